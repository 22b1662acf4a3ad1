"System characteristic curves: κ vs scikit-learn, mixing vs literal re-perturbation, determinism, bins, bad input."
import numpy as np, pandas as pd, pytest, warnings
from hypothesis import given, settings, strategies as st
from sklearn.metrics import cohen_kappa_score
from sklearn.dummy import DummyClassifier
from sklearn.tree import DecisionTreeClassifier
from sklearn.naive_bayes import GaussianNB
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import KNeighborsClassifier
from robustdiff.data import Dataset
from robustdiff.datasets import make_synthetic, load_pmlb, load_sklearn
from robustdiff.responses import map_folds, response_matrix
from robustdiff.perturb import FB24Noise, perturb_masks
from robustdiff.scc import (cohen_kappa, kappa_by_group, difficulty_bins, noisy_predictions, clean_predictions,
                            scc_curves, robustness_by_difficulty, scc_chart, LAMBDAS)

MODELS = {'cart': DecisionTreeClassifier(max_depth=4), 'nb': GaussianNB(), 'knn': KNeighborsClassifier(5)}

@pytest.fixture(scope='module')
def moons(): return make_synthetic('moons', 240, random_state=1)

@pytest.fixture(scope='module')
def moons_preds(moons): return noisy_predictions(moons, MODELS, perturbation=[0.3, 1.0], progress=False)

@pytest.fixture(scope='module')
def moons_bins(moons_preds):
    U = response_matrix(clean_predictions(moons_preds))
    return difficulty_bins(pd.Series(-np.log((U.mean() + .05)/(1.05 - U.mean()))), n_bins=5)

@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_kappa_matches_sklearn(data):
    n = data.draw(st.integers(1, 50)); C = data.draw(st.integers(1, 5))
    a = np.array(data.draw(st.lists(st.integers(0, C - 1), min_size=n, max_size=n)))
    b = np.array(data.draw(st.lists(st.integers(0, C - 1), min_size=n, max_size=n)))
    k = cohen_kappa(a, b, on_constant=np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        ref = cohen_kappa_score(a, b)
    if np.isnan(ref): assert np.isnan(k) and len(set(a) | set(b)) == 1   # only when p_e = 1
    else: assert abs(k - ref) < 1e-10

def test_kappa_constant_cases():
    assert cohen_kappa([3, 3, 3], [3, 3, 3]) == 1.0
    assert cohen_kappa([3, 3, 3], [3, 3, 4]) == 0.0
    assert np.isnan(cohen_kappa(['a'], ['a'], on_constant=np.nan))
    with pytest.raises(ValueError, match='p_e = 1'): cohen_kappa(['a'], ['a'], on_constant='raise')
    with pytest.raises(ValueError, match='on_constant'): cohen_kappa([1], [1], on_constant='one')
    with pytest.raises(ValueError, match='missing'): cohen_kappa(np.array([1., np.nan]), np.array([1., 2.]))

def test_kappa_by_group_multiindex_and_strings():
    a = np.array(list('aabbaabb')); b = np.array(list('abbbaaab'))
    g = pd.MultiIndex.from_arrays([[0, 0, 0, 0, 1, 1, 1, 1], list('xxyyxxyy')], names=['fold', 'bin'])
    k = kappa_by_group(a, b, g, on_constant=np.nan)
    assert list(k.columns[:2]) == ['fold', 'bin'] and len(k) == 4
    for (g0, g1), kk in zip(zip(k.iloc[:, 0], k.iloc[:, 1]), k.kappa):
        sel = np.array([(x, y) == (g0, g1) for x, y in g])
        ref = cohen_kappa(a[sel], b[sel], on_constant=np.nan)
        assert (np.isnan(ref) and np.isnan(kk)) or abs(ref - kk) < 1e-12

def test_lambda_zero_gives_kappa_one_and_curve_shape(moons_preds, moons_bins):
    c = scc_curves(moons_preds, moons_bins)
    assert (c[c.lam == 0].kappa == 1).all() and (c[c.lam == 0].agree == 1).all()
    assert len(c) == 3 * 2 * len(LAMBDAS) * 5
    assert c.groupby(['model', 'level', 'bin']).difficulty.nunique().eq(1).all()
    assert c.difficulty.is_monotonic_increasing or c.groupby(['model', 'level', 'lam']).difficulty.apply(lambda s: s.is_monotonic_increasing).all()
    # more perturbed rows, fewer unchanged predictions (nested masks ⇒ agree is non-increasing in λ)
    assert (c.sort_values('lam').groupby(['model', 'level', 'bin']).agree.apply(lambda s: s.is_monotonic_decreasing)).all()
    # stronger noise changes more predictions overall
    assert c[c.level == 1.0].agree.mean() < c[c.level == 0.3].agree.mean()

def test_mixing_equals_literal_reperturbation(moons, moons_bins):
    "Deriving each λ by mixing equals perturbing the selected rows and predicting again (one fold seed convention)."
    lams = [0, .2, .5]
    bin_of = moons_bins.set_index('instance').bin
    def literal(ctx):
        te = ctx.test; X = ctx.dataset.X.iloc[te]
        prio = ctx.rng(0).random(len(te))
        nz = FB24Noise(1.0).fit(ctx.dataset.X.iloc[ctx.train])
        b = bin_of.loc[te].to_numpy()
        clean = ctx.estimator.predict(X)
        rows = []
        for lam in lams:
            mask = perturb_masks(b, [lam], priority=prio)[0]
            noisy = ctx.estimator.predict(nz.transform(X, rows=mask, random_state=ctx.rng(1, 0)))
            for k in np.unique(b):
                s = b == k
                with warnings.catch_warnings():
                    warnings.simplefilter('ignore')
                    kap = cohen_kappa_score(clean[s], noisy[s])
                rows.append({'lam': lam, 'bin': k, 'kappa': 1.0 if np.isnan(kap) else kap})
        return pd.DataFrame(rows)
    lit = map_folds(literal, moons, MODELS, progress=False)
    fast = scc_curves(noisy_predictions(moons, MODELS, perturbation=1.0, progress=False), moons_bins, lambdas=lams, per_fold=True)
    m = lit.merge(fast, on=['model', 'repeat', 'fold', 'lam', 'bin'], suffixes=('_lit', ''))
    assert len(m) == len(lit) == len(fast)
    np.testing.assert_allclose(m.kappa, m.kappa_lit, atol=1e-12)

def test_pooled_kappa_is_kappa_of_pooled_predictions(moons_preds, moons_bins):
    c = scc_curves(moons_preds, moons_bins, lambdas=[0.4])
    p = moons_preds[(moons_preds.model == 'nb') & (moons_preds.level == 1.0)].merge(moons_bins, on='instance')
    # rebuild the mix by hand: within each fold × bin, the ⌈0.4 n⌉ lowest priorities are perturbed
    p['rank'] = p.groupby(['fold', 'bin']).priority.rank(method='first') - 1
    p['n'] = p.groupby(['fold', 'bin']).priority.transform('size')
    p['mixed'] = np.where(p['rank'] < np.ceil(0.4 * p.n - 1e-9), p.y_noisy, p.y_pred)
    for k, s in p.groupby('bin'):
        got = c[(c.model == 'nb') & (c.level == 1.0) & (c.bin == k)]
        assert abs(got.kappa.iloc[0] - cohen_kappa(s.y_pred, s.mixed)) < 1e-12
        assert abs(got.acc.iloc[0] - (s.mixed == s.y_true).mean()) < 1e-12
        assert got.n.iloc[0] == len(s)

def test_same_result_whatever_n_jobs_and_backend(moons):
    a = noisy_predictions(moons, MODELS, perturbation=0.5, progress=False)
    b = noisy_predictions(moons, MODELS, perturbation=0.5, progress=False, n_jobs=2)
    c = noisy_predictions(moons, MODELS, perturbation=0.5, progress=False, n_jobs=2, backend='threading')
    pd.testing.assert_frame_equal(a, b); pd.testing.assert_frame_equal(a, c)
    d = noisy_predictions(moons, MODELS, perturbation=0.5, progress=False, random_state=1)
    assert not a.y_noisy.equals(d.y_noisy) or not a.instance.equals(d.instance)

def test_every_model_sees_the_same_noise_and_priorities(moons_preds):
    p = moons_preds[moons_preds.level == 0.3]
    pri = p.pivot_table(index='instance', columns='model', values='priority')
    assert (pri.nunique(axis=1) == 1).all()

def test_single_class_model_and_on_constant(moons, moons_bins):
    models = {'majority': DummyClassifier(), 'nb': GaussianNB()}
    preds = noisy_predictions(moons, models, perturbation=1.0, progress=False)
    c = scc_curves(preds, moons_bins)
    assert (c[c.model == 'majority'].kappa == 1).all()
    cn = scc_curves(preds, moons_bins, on_constant=np.nan)
    assert cn[cn.model == 'majority'].kappa.isna().all() and cn[cn.model == 'nb'].kappa.notna().all()
    with pytest.raises(ValueError, match='p_e = 1'): scc_curves(preds, moons_bins, on_constant='raise')

def test_nominal_dataset_end_to_end():
    ds = load_pmlb('nursery')
    rng = np.random.default_rng(0)
    idx = np.sort(rng.choice(ds.n_instances, 600, replace=False))
    small = ds.subset(idx)
    small = Dataset('nursery600', small.X, small.y, small.nominal)
    res = robustness_by_difficulty(small, {'cart': DecisionTreeClassifier(), 'nb': GaussianNB(),
                                           'lr': LogisticRegression(max_iter=300), 'knn': KNeighborsClassifier()},
                                   perturbation=0.5, progress=False, n_bins=3)
    c = res.curves
    assert set(c.bin) == {0, 1, 2} and (c[c.lam == 0].kappa == 1).all()
    assert c[c.lam == .5].agree.mean() < 1
    assert set(res.items.status.astype(str)) <= {'ok', 'all_right', 'all_wrong', 'out_of_range'}

def test_extremes_clip_and_drop():
    d = pd.Series([-np.inf] * 30 + list(np.linspace(-2, 2, 60)) + [np.inf] * 10 + [8.0])
    clip = difficulty_bins(d, n_bins=5)
    assert len(clip) == 101 and clip.difficulty.min() == -6 and clip.difficulty.max() == 6
    assert clip[clip.difficulty == -6].bin.isin([0, 1]).all()
    drop = difficulty_bins(d, n_bins=5, extremes='drop')
    assert len(drop) == 60 and drop.groupby('bin').size().tolist() == [12] * 5
    b2 = difficulty_bins(d, n_bins=5, bound=10)
    assert b2.difficulty.max() == 10 and (b2.difficulty == 8).sum() == 1

def test_bins_equal_size_and_deterministic():
    d = pd.Series(np.random.default_rng(0).integers(0, 4, 103).astype(float))
    a, b = difficulty_bins(d, n_bins=5, random_state=3), difficulty_bins(d, n_bins=5, random_state=3)
    pd.testing.assert_frame_equal(a, b)
    assert sorted(a.groupby('bin').size().tolist()) == [20, 20, 21, 21, 21]
    assert (a.groupby('bin').difficulty.max().to_numpy()[:-1] <= a.groupby('bin').difficulty.min().to_numpy()[1:]).all()

def test_bins_bad_input():
    d = pd.Series([0., 1, 2])
    with pytest.raises(ValueError, match='4 bins from 3'): difficulty_bins(d, n_bins=4)
    with pytest.raises(ValueError, match='missing'): difficulty_bins(pd.Series([0., np.nan]), n_bins=1)
    with pytest.raises(ValueError, match='method'): difficulty_bins(d, n_bins=2, method='width')
    with pytest.raises(ValueError, match='extremes'): difficulty_bins(d, n_bins=2, extremes='keep')
    with pytest.raises(ValueError, match='duplicated'): difficulty_bins(pd.Series([0., 1], index=[1, 1]), n_bins=1)
    with pytest.raises(ValueError, match='bins from 0'): difficulty_bins(pd.Series([np.inf, np.inf]), n_bins=1, extremes='drop')

def test_empty_bin_outcome_quantile():
    with pytest.warns(UserWarning, match='empty'):
        b = difficulty_bins(pd.Series([0.] * 9 + [1.]), n_bins=4, method='quantile')
    assert sorted(b.bin.unique()) == [0, 1]

def test_bin_missing_in_a_fold_gives_no_row(moons_preds, moons_bins):
    "A bin with no instance in some fold contributes no per-fold row; pooled values use the other folds."
    inst = moons_bins.instance.to_numpy()
    lonely = moons_preds[moons_preds.fold == 0].instance.iloc[0]
    bins = moons_bins.assign(bin=np.where(inst == lonely, 5, moons_bins.bin))
    bins['bin_difficulty'] = bins.groupby('bin').difficulty.transform('mean')
    f = scc_curves(moons_preds, bins, lambdas=[0, .5], per_fold=True)
    assert set(f[f.bin == 5].fold) == {0}
    c = scc_curves(moons_preds, bins, lambdas=[0, .5])
    assert (c[c.bin == 5].n == 1).all() and c[c.bin == 5].kappa_sd.isna().all()

def test_scc_input_validation(moons_preds, moons_bins):
    with pytest.raises(ValueError, match='noisy_predictions'): scc_curves(moons_preds.drop(columns='priority'), moons_bins)
    with pytest.raises(ValueError, match='difficulty_bins'): scc_curves(moons_preds, moons_bins.drop(columns='bin'))
    with pytest.raises(ValueError, match=r'\[0, 1\]'): scc_curves(moons_preds, moons_bins, lambdas=[0, 2])
    with pytest.raises(ValueError, match='rounding'): scc_curves(moons_preds, moons_bins, rounding='up')
    with pytest.raises(TypeError, match='Perturbation'): noisy_predictions(make_synthetic('moons', 50), MODELS, perturbation=object(), progress=False)

def test_chart_renders(moons_preds, moons_bins):
    c = scc_curves(moons_preds, moons_bins)
    ch = scc_chart(c[c.level == 1.0], band=True)
    spec = ch.to_dict()
    assert 'facet' in spec
    with pytest.raises(ValueError, match='filter'): scc_chart(c)


# ---- issue 16 item 3: clean and noisy rows predicted in one call, identical to the former separate calls ----
def _noisy_fold_separate_calls(ctx, perturbations):
    "The implementation before issue 16 (clean and each noisy copy predicted in separate calls), kept for comparison."
    from sklearn.base import clone
    ds, est = ctx.dataset, ctx.estimator
    Xtr, Xte = ds.X.iloc[ctx.train], ds.X.iloc[ctx.test]
    y_true = ds.y.iloc[ctx.test].to_numpy()
    y_pred = np.asarray(est.predict(Xte))
    priority = ctx.rng(0).random(len(ctx.test))
    frames = []
    for k, pert in enumerate(perturbations):
        p = clone(pert).fit(Xtr, ds.y.iloc[ctx.train])
        Xn = p.transform(Xte, random_state=ctx.rng(1, k))
        frames.append(pd.DataFrame({'instance': ctx.test, 'y_true': y_true, 'y_pred': y_pred,
                                    'correct': (y_pred == y_true).astype('int8'),
                                    'perturbation': type(p).__name__, 'level': float(getattr(p, 'level', np.nan)),
                                    'y_noisy': np.asarray(est.predict(Xn)), 'priority': priority}))
    return pd.concat(frames, ignore_index=True)

@pytest.mark.parametrize('dataset', ['moons', 'nursery'])
def test_stacked_prediction_identical_to_separate_calls(dataset):
    from functools import partial
    from robustdiff._folds import as_perturbations as _as_perturbations
    if dataset == 'moons': ds = make_synthetic('moons', 200, random_state=3)
    else:
        full = load_pmlb('nursery'); sub = full.subset(np.sort(np.random.default_rng(0).choice(full.n_instances, 400, replace=False)))
        ds = Dataset('nursery400', sub.X, sub.y, sub.nominal)
    models = {**MODELS, 'lr': LogisticRegression(max_iter=300)}
    perts = _as_perturbations([0.2, 1.0])
    new = noisy_predictions(ds, models, perturbation=[0.2, 1.0], progress=False)
    old = map_folds(partial(_noisy_fold_separate_calls, perturbations=perts), ds, models, progress=False)
    pd.testing.assert_frame_equal(new, old)
    bins = difficulty_bins(pd.Series(np.random.default_rng(1).normal(size=ds.n_instances)), n_bins=4)
    pd.testing.assert_frame_equal(scc_curves(new, bins), scc_curves(old, bins))   # bit-identical curves

# ---- issue 9: respondents separate from the evaluated models; issue 14: validation and alignment ----
def test_default_respondents_are_the_population_on_the_same_folds(moons):
    from robustdiff.respondents import get_respondents, respondent_predictions
    pop = get_respondents('ladder', n=12)
    res = robustness_by_difficulty(moons, MODELS, perturbation=0.3, respondents=pop, reliability=3, progress=False)
    rp = respondent_predictions(moons, pop, progress=False)
    pd.testing.assert_frame_equal(res.respondent_predictions, rp)
    assert res.respondents == list(pop) and len(res.reliability) == 3
    # same folds: every instance is in the same fold for the models and the respondents
    f_models = res.predictions.drop_duplicates('instance').set_index('instance').fold.sort_index()
    f_resp = rp.drop_duplicates('instance').set_index('instance').fold.sort_index()
    pd.testing.assert_series_equal(f_models, f_resp)
    U = response_matrix(rp)
    assert np.allclose(res.items.set_index('instance').p_correct.loc[U.columns], U.mean())
    ok = res.items.status == 'ok'
    assert 'difficulty_se' in res.items and (res.items.difficulty_se[ok] > 0).all() and res.items.difficulty_se[~ok].isna().all()
    self_ = robustness_by_difficulty(moons, MODELS, perturbation=0.3, respondents='models', reliability=0, progress=False)
    assert self_.respondents == list(MODELS) and self_.reliability is None
    pd.testing.assert_frame_equal(self_.predictions, res.predictions)

def test_respondents_with_difficulty_raises(moons):
    d = pd.Series(np.zeros(moons.n_instances))
    with pytest.raises(ValueError, match='not both'):
        robustness_by_difficulty(moons, MODELS, respondents='ladder', difficulty=d, progress=False)

class _Bomb(DummyClassifier):
    def fit(self, X, y): raise AssertionError('fitted although the input was invalid')

@pytest.mark.parametrize('kw, err, msg', [
    (dict(n_bins=0), ValueError, 'n_bins'), (dict(n_bins=True), ValueError, 'n_bins'), (dict(n_bins=10_000), ValueError, 'bins from'),
    (dict(lambdas=[0, 1.5]), ValueError, r'\[0, 1\]'), (dict(perturbation=-1), ValueError, 'nu'),
    (dict(perturbation='loud'), TypeError, 'perturbation'), (dict(bin_method='kmeans'), ValueError, 'bin_method'),
    (dict(irt_model='3PL'), ValueError, 'irt_model'), (dict(reliability=-1), ValueError, 'reliability'),
    (dict(respondents={'one': GaussianNB()}), ValueError, 'at least 2'),
    (dict(respondents={'a': GaussianNB(), 'b': 'tree'}), TypeError, 'not a scikit-learn estimator'),
    (dict(difficulty=pd.Series(np.zeros(239))), ValueError, 'does not match'),
    (dict(difficulty=pd.Series(np.zeros(240), index=np.arange(240) + 1)), ValueError, 'unknown instances'),
    (dict(difficulty=np.zeros(241)), ValueError, 'does not match'),
])
def test_validated_before_any_fit(moons, kw, err, msg):
    with pytest.raises(err, match=msg): robustness_by_difficulty(moons, {'bomb': _Bomb()}, progress=False, **kw)

def test_identical_population_raises(moons):
    with pytest.raises(ValueError, match='identically'):
        robustness_by_difficulty(moons, MODELS, respondents={'m1': DummyClassifier(), 'm2': DummyClassifier(strategy='prior')},
                                 progress=False)

def test_difficulty_aligned_by_label_or_position(moons):
    d = pd.Series(np.random.default_rng(0).normal(size=moons.n_instances).round(0))   # many ties: broken by position, not row order
    ref = robustness_by_difficulty(moons, MODELS, perturbation=0.3, difficulty=d, progress=False)
    shuffled = robustness_by_difficulty(moons, MODELS, perturbation=0.3, difficulty=d.sample(frac=1, random_state=1), progress=False)
    pd.testing.assert_frame_equal(ref.curves, shuffled.curves)
    lab = Dataset('moons_lab', moons.X.set_axis([f'r{i}' for i in range(moons.n_instances)]),
                  moons.y.set_axis([f'r{i}' for i in range(moons.n_instances)]), moons.nominal)
    by_label = robustness_by_difficulty(lab, MODELS, perturbation=0.3, difficulty=d.set_axis(lab.X.index).iloc[::-1], progress=False)
    pd.testing.assert_frame_equal(ref.curves.drop(columns='dataset'), by_label.curves.drop(columns='dataset'))
    items = pd.DataFrame({'instance': np.arange(moons.n_instances)[::-1], 'difficulty': d.to_numpy()[::-1], 'status': 'ok'})
    via_items = robustness_by_difficulty(moons, MODELS, perturbation=0.3, difficulty=items, progress=False)
    pd.testing.assert_frame_equal(ref.curves, via_items.curves)

def test_single_instance_bin_warns(moons_preds):
    d = pd.Series(np.arange(5.0))
    with pytest.warns(UserWarning, match='single instance'):
        scc_curves(moons_preds[moons_preds.instance < 5], difficulty_bins(d, n_bins=5))

# --- regression (#48): break, agreement within τ and Lin's ρ_c in place of κ
from sklearn.linear_model import Ridge
from sklearn.tree import DecisionTreeRegressor
from robustdiff.data import from_frame
from robustdiff.scc import lin_ccc, concordance_by_group

def _ccc_by_hand(x, y):
    "Lin (1989) eq. 2 with the moments over 1/n, written out term by term."
    x, y = np.asarray(x, float), np.asarray(y, float)
    mx, my = x.sum() / len(x), y.sum() / len(y)
    sxy = ((x - mx) * (y - my)).sum() / len(x)
    sx2, sy2 = ((x - mx) ** 2).sum() / len(x), ((y - my) ** 2).sum() / len(y)
    return 2 * sxy / (sx2 + sy2 + (mx - my) ** 2)

def test_ccc_hand_worked():
    # x = 1..4, y = x + 1: s_x² = s_y² = s_xy = 1.25, (x̄ − ȳ)² = 1 ⇒ ρ_c = 2.5 / 3.5
    assert lin_ccc([1, 2, 3, 4], [2, 3, 4, 5]) == pytest.approx(5 / 7, abs=1e-12)
    # y = 2x: x̄ = 2.5, ȳ = 5, s_x² = 1.25, s_y² = 5, s_xy = 2.5 ⇒ ρ_c = 5 / (6.25 + 6.25) = 0.4
    assert lin_ccc([1, 2, 3, 4], [2, 4, 6, 8]) == pytest.approx(0.4, abs=1e-12)
    rng = np.random.default_rng(0)
    for _ in range(50):
        n = int(rng.integers(2, 40)); x = rng.normal(size=n); y = x * rng.uniform(-1, 2) + rng.normal(scale=rng.uniform(0, 2), size=n)
        assert lin_ccc(x, y) == pytest.approx(_ccc_by_hand(x, y), abs=1e-10)
    assert lin_ccc([2., 2.], [2., 2.]) == 1.0 and np.isnan(lin_ccc([2., 2.], [2., 2.], on_constant=np.nan))
    assert lin_ccc([2., 2.], [3., 3.]) == 0.0                       # two different constants: no concordance

def test_concordance_grouped_equals_loop_and_is_stable():
    rng = np.random.default_rng(1)
    x = rng.normal(2e6, 30, 500); y = x + rng.normal(0, 10, 500); g = rng.integers(0, 6, 500)
    t = concordance_by_group(x, y, g, tolerance=12.)
    for k in range(6):
        assert t.ccc.iloc[k] == pytest.approx(_ccc_by_hand(x[g == k] - 2e6, y[g == k] - 2e6), abs=1e-9)
        assert t.agree.iloc[k] == pytest.approx(np.mean(np.abs(x[g == k] - y[g == k]) <= 12.))
    with pytest.raises(TypeError, match='numbers'): concordance_by_group(list('ab'), list('ab'), tolerance=1.)
    with pytest.raises(ValueError, match='tolerance'): concordance_by_group(x, y, tolerance=np.nan)
    with pytest.raises(ValueError, match='NaN'): concordance_by_group([1., np.nan], [1., 2.], tolerance=1.)

def _reg_preds(n=10, shift=2.):
    return pd.DataFrame({'model': 'm', 'repeat': 0, 'fold': 0, 'instance': range(n), 'y_true': np.arange(n, dtype=float),
                         'y_pred': np.arange(n) + .5, 'y_noisy': np.arange(n) + shift, 'priority': np.arange(n) / n})

def test_break_and_agreement_hand_worked():
    # τ = 1; clean predictions 0.5 off (all right), perturbed ones 2 off (all wrong, 1.5 from the clean ones)
    bins = difficulty_bins(pd.Series(np.zeros(10)), n_bins=1)
    c = scc_curves(_reg_preds(), bins, lambdas=[0, .2, .5, 1], tolerance=1.0).set_index('lam')
    assert c.break_rate.tolist() == pytest.approx([0, .2, .5, 1])      # ⌈λ·10⌉ rows leave τ out of 10 within τ
    assert c.agree.tolist() == pytest.approx([1, .8, .5, 0])
    assert c.acc.tolist() == pytest.approx([1, .8, .5, 0])
    assert c.mae.tolist() == pytest.approx([.5, .8, 1.25, 2])
    assert c.rmse.loc[.2] == pytest.approx(np.sqrt((8 * .25 + 2 * 4) / 10))
    mixed = np.r_[np.arange(2) + 2., np.arange(2, 10) + .5]
    assert c.ccc.loc[.2] == pytest.approx(_ccc_by_hand(np.arange(10) + .5, mixed), abs=1e-12)
    assert c.ccc.loc[0] == 1.0 and c.ccc.loc[1] == pytest.approx(_ccc_by_hand(np.arange(10) + .5, np.arange(10) + 2.))
    # a noisy prediction that moves but stays within τ of the truth does not break, and agrees within τ
    d = scc_curves(_reg_preds(shift=.9), bins, lambdas=[1], tolerance=1.0)
    assert d.break_rate.iloc[0] == 0 and d.agree.iloc[0] == 1 and d.ccc.iloc[0] < 1

def test_regression_curves_refuse_labels_and_bad_tolerance():
    bins = difficulty_bins(pd.Series(np.zeros(10)), n_bins=1)
    lab = _reg_preds().assign(y_true=list('ab') * 5)
    with pytest.raises(ValueError, match='hold labels'): scc_curves(lab, bins, tolerance=1.0)
    for bad in (0, -1, np.inf, True):
        with pytest.raises(ValueError, match='tolerance'): scc_curves(_reg_preds(), bins, tolerance=bad)

@pytest.fixture(scope='module')
def reg_ds():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(150, 3)), columns=['a', 'b', 'c'])
    return from_frame(X.assign(y=3 * X.a - X.b + rng.normal(scale=.5, size=150)), 'y', name='reg', task='regression')

REGRESSORS = {'ridge': Ridge(), 'tree': DecisionTreeRegressor(max_depth=3, random_state=0)}

def test_regression_noisy_predictions(reg_ds):
    p = noisy_predictions(reg_ds, REGRESSORS, perturbation=0.5, n_splits=3, progress=False, noise_draws=2)
    assert p.y_pred.dtype.kind == 'f' and p.y_noisy.dtype.kind == 'f'
    assert (p.correct == (np.abs(p.y_pred - p.y_true) <= reg_ds.tolerance)).all()        # right = within τ
    q = noisy_predictions(reg_ds, REGRESSORS, perturbation=0.5, n_splits=3, progress=False, noise_draws=2)
    pd.testing.assert_frame_equal(p, q)                                                  # same seed, same result
    bins = difficulty_bins(pd.Series(np.random.default_rng(2).normal(size=150)), n_bins=3)
    c = scc_curves(p, bins, lambdas=[0, .5], tolerance=reg_ds.tolerance)
    c0 = c[c.lam == 0]
    assert (c0.break_rate == 0).all() and (c0.agree == 1).all() and (c0.ccc == 1).all()   # nothing perturbed: nothing moves
    one = p[p.draw == 0]
    r = one.merge(bins[['instance', 'bin']], on='instance')
    manual = r.groupby(['model', 'bin']).apply(lambda g: np.mean(np.abs(g.y_pred - g.y_true)), include_groups=False)
    assert c0.set_index(['model', 'bin']).mae.loc[manual.index].to_numpy() == pytest.approx(manual.to_numpy())

def test_robustness_by_difficulty_on_a_regressor(reg_ds):
    r = robustness_by_difficulty(reg_ds, REGRESSORS, respondents='models', n_bins=3, n_splits=3, progress=False, reliability=0)
    assert {'agree', 'ccc', 'break_rate', 'mae'} <= set(r.curves.columns) and 'kappa' not in r.curves.columns
    c0 = r.curves[r.curves.lam == 0]
    assert (c0.break_rate == 0).all() and r.curves.break_rate.between(0, 1).all()
    with pytest.raises(ValueError, match="respondents='models'"):
        robustness_by_difficulty(reg_ds, REGRESSORS, n_bins=3, progress=False)          # the ladder holds classifiers
