"FB24 noise model and perturbation masks: statistics by simulation, determinism, row selection, bad input."
import math
import numpy as np, pandas as pd, pytest
from hypothesis import given, settings, strategies as st
from sklearn.base import clone
from robustdiff.perturb import FB24Noise, Perturbation, perturb_masks, perturb_counts, mix, group_ranks
from robustdiff.datasets import load_pmlb, make_synthetic

def _frame(n, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({'x': rng.normal(5, 3, n), 'z': rng.uniform(-1, 1, n),
                         'c': pd.Categorical(rng.choice(list('pqrs'), n, p=[.4, .3, .2, .1]), categories=list('pqrst'))})

@pytest.mark.parametrize('nu', [0.05, 0.2, 1.0, 3.0])
def test_numeric_noise_mean_and_variance(nu):
    tr, te = _frame(500, 1), _frame(40_000, 2)
    nz = FB24Noise(nu).fit(tr)
    d = nz.transform(te, random_state=3)[['x', 'z']].to_numpy() - te[['x', 'z']].to_numpy()
    sd = tr[['x', 'z']].std(ddof=1).to_numpy() * nu
    np.testing.assert_allclose(d.mean(0), 0, atol=5 * sd.max() / math.sqrt(len(te)))
    np.testing.assert_allclose(d.std(0), sd, rtol=0.02)
    assert abs(np.corrcoef(d.T)[0, 1]) < 0.03            # independent across attributes

@pytest.mark.parametrize('nu', [0.2, 1.0])
def test_nominal_noise_distribution_per_source_value(nu):
    tr, te = _frame(1000, 1), _frame(60_000, 2)
    nz = FB24Noise(nu).fit(tr)
    out = nz.transform(te, random_state=4)['c']
    p = tr.c.value_counts(normalize=True).reindex(list('pqrst'), fill_value=0).to_numpy()
    a = 1 - math.exp(-nu)
    for k, v in enumerate('pqrs'):
        src = (te.c == v).to_numpy()
        obs = out[src].value_counts(normalize=True).reindex(list('pqrst'), fill_value=0).to_numpy()
        exp = a * p + (1 - a) * np.eye(5)[k]
        se = np.sqrt(exp * (1 - exp) / src.sum())
        assert (np.abs(obs - exp) <= 5 * se + 1e-12).all(), (v, obs, exp)
    assert (out == 't').sum() == 0                      # a category absent from training is never drawn

def test_statistics_come_from_the_training_fold():
    tr = pd.DataFrame({'x': [0., 1, 2, 3]})
    te = pd.DataFrame({'x': np.full(20_000, 100.)})
    out = FB24Noise(1.0).fit(tr).transform(te, random_state=0)
    assert abs(out.x.std() - np.std([0, 1, 2, 3], ddof=1)) < 0.05
    out0 = FB24Noise(1.0, ddof=0).fit(tr).transform(te, random_state=0)
    assert abs(out0.x.std() - np.std([0, 1, 2, 3])) < 0.05

def test_deterministic_and_no_global_rng():
    tr, te = _frame(200), _frame(50, 9)
    nz = FB24Noise(0.3).fit(tr)
    state = np.random.get_state()
    a = nz.transform(te, random_state=7)
    b = nz.transform(te, random_state=np.random.SeedSequence(7))
    assert np.random.get_state()[1].tolist() == state[1].tolist()
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(nz.transform(te, random_state=8))
    pd.testing.assert_frame_equal(clone(nz).fit(tr).transform(te, random_state=7), a)

def test_row_selection_equals_full_noise_on_selected_rows():
    tr, te = _frame(200), _frame(300, 9)
    nz = FB24Noise(0.7).fit(tr)
    full = nz.transform(te, random_state=1)
    mask = np.random.default_rng(0).random(300) < .3
    part = nz.transform(te, rows=mask, random_state=1)
    pd.testing.assert_frame_equal(part[mask], full[mask])
    pd.testing.assert_frame_equal(part[~mask], te[~mask])

def test_unseen_category_kept_or_replaced():
    tr = pd.DataFrame({'c': pd.Categorical(list('aab'))})
    te = pd.DataFrame({'c': pd.Categorical(['new'] * 30_000)})
    out = FB24Noise(0.5).fit(tr).transform(te, random_state=0).c
    a = 1 - math.exp(-.5)
    assert abs((out == 'new').mean() - (1 - a)) < 0.01
    assert abs((out == 'a').mean() - a * 2 / 3) < 0.01
    assert not out.isna().any()

def test_works_on_a_real_dataset_with_nominal_columns():
    ds = load_pmlb('nursery')
    assert ds.nominal
    X = ds.X.iloc[:2000]
    out = FB24Noise(0.2).fit(X.iloc[:1500]).transform(X.iloc[1500:], random_state=0)
    changed = (out[list(ds.nominal)] != X.iloc[1500:][list(ds.nominal)]).to_numpy().mean()
    assert 0 < changed < (1 - math.exp(-.2))            # some values change, fewer than α (a redraw may keep the value)
    assert list(out.dtypes) == list(X.dtypes)

@pytest.mark.parametrize('bad, msg', [(-1, 'nu must be'), (float('inf'), 'nu must be'), ('0.2', 'real number')])
def test_bad_noise_levels(bad, msg):
    with pytest.raises((ValueError, TypeError), match=msg): FB24Noise(bad).fit(_frame(10))

def test_bad_inputs():
    nz = FB24Noise(.2).fit(_frame(20))
    with pytest.raises(ValueError, match='not fitted'): FB24Noise().transform(_frame(5))
    with pytest.raises(ValueError, match='columns'): nz.transform(_frame(5)[['x', 'c']])
    with pytest.raises(ValueError, match='infinite'): nz.transform(_frame(5).assign(x=np.inf))
    assert nz.transform(_frame(5).assign(x=np.nan)).x.isna().all()      # a missing cell stays missing (the model imputes it)
    with pytest.raises(TypeError, match='DataFrame'): nz.transform(np.zeros((3, 3)))
    with pytest.raises(ValueError, match='no rows'): nz.transform(_frame(5).iloc[:0])
    with pytest.raises(ValueError, match='rows'): nz.transform(_frame(5), rows=np.ones(4, bool))
    with pytest.raises(TypeError, match='category'): FB24Noise().fit(pd.DataFrame({'s': ['a', 'b']}))
    with pytest.raises(ValueError, match='σ'): FB24Noise().fit(_frame(1))

def test_interface_for_other_perturbations():
    "A label perturbation fits the same interface (the class-noise issue builds on this)."
    class Flip(Perturbation):
        target = 'y'
        def __init__(self, rate=.5): self.rate = rate
        def _fit(self, X, y): self.classes_ = np.unique(y)
        def _perturb(self, X, y, rng):
            flip = rng.random(len(y)) < self.rate
            return X, pd.Series(np.where(flip, self.classes_[0], np.asarray(y)))
    X, y = _frame(10), pd.Series([1] * 10)
    f = Flip(1.0).fit(X, pd.Series([0, 1] * 5))
    Xp, yp = f.perturb(X, y, rows=[0, 1], random_state=0)
    assert yp.tolist() == [0, 0] + [1] * 8 and Xp.equals(X)
    with pytest.raises(TypeError, match='labels'): f.transform(X)

@settings(max_examples=60, deadline=None)
@given(sizes=st.lists(st.integers(0, 40), min_size=1, max_size=6),
       lams=st.lists(st.floats(0, 1), min_size=1, max_size=6), seed=st.integers(0, 2**32 - 1),
       rounding=st.sampled_from(['ceil', 'floor']))
def test_masks_sizes_nested_and_per_group(sizes, lams, seed, rounding):
    groups = np.repeat(np.arange(len(sizes)), sizes)
    lams = sorted(lams)
    M = perturb_masks(groups, lams, random_state=seed, rounding=rounding)
    assert M.shape == (len(lams), len(groups))
    for i, l in enumerate(lams):
        for g, n in enumerate(sizes):
            k = M[i][groups == g].sum()
            # perturb_counts's documented tolerance: λ·n within 1e-9 of an integer counts as that integer
            assert k == (math.ceil(l * n - 1e-9) if rounding == 'ceil' else math.floor(l * n + 1e-9))
    assert (M[:-1] <= M[1:]).all()

def test_masks_exact_products_do_not_round_up():
    assert perturb_counts(np.array([10, 20, 30]), 0.3).tolist() == [3, 6, 9]
    assert perturb_counts(np.array([10]), 0.7).tolist() == [7]
    assert perturb_counts(np.array([0]), 0.5).tolist() == [0]

def test_group_ranks_and_mix():
    r, s = group_ranks(['a', 'b', 'a', 'a'], [.3, .1, .2, .9])
    assert r.tolist() == [1, 0, 0, 2] and s.tolist() == [3, 1, 3, 3]
    assert mix(np.zeros((2, 3)), np.ones((2, 3)), [[1, 0, 0], [0, 1, 1]]).tolist() == [[1, 0, 0], [0, 1, 1]]
    with pytest.raises(ValueError, match='shape'): mix([1, 2], [1, 2, 3], [True, False])
    with pytest.raises(ValueError, match=r'\[0, 1\]'): perturb_masks([0, 0], [0.2, -0.1])
