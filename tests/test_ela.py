"ELA: Table 1 exactly, eq. 4, class noise (count, never the same class, uniform, seeded), no leak into test folds, bad input."
import numpy as np, pandas as pd, pytest
from hypothesis import given, settings, strategies as st
from scipy.stats import chisquare
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.tree import DecisionTreeClassifier
from sklearn.neighbors import KNeighborsClassifier
from robustdiff.data import from_frame
from robustdiff.datasets import make_synthetic
from robustdiff.responses import FoldContext, _fold_seed
from robustdiff.ela import (rla, ela, bra, class_noise, ela_predictions, ela_table, ela_experiment, ela_by_difficulty,
                            winners, best_counts, rank_agreement, measure_surface_chart, ela_noise_chart, best_chart,
                            difficulty_chart, _ela_fold)

TIMES = ['t_fit', 't_predict', 't_noise', 't_score']   # per-fold timings: the only columns allowed to differ between runs

# [SLH16] Table 1: example, classifier, A_0 %, A_x %, RLA, ELA as printed in the paper
TABLE1 = [
    (1, 'C1', 100, 100, '0', '0'),       (1, 'C2', 50, 50, '0', '1'),
    (1, 'C1', 100, 96, '.04', '.04'),    (1, 'C2', 50, 46, '.08', '1.08'),
    (1, 'C1', 100, 92, '.08', '.08'),    (1, 'C2', 50, 42, '.16', '1.16'),
    (2, 'C1', 100, 96, '.04', '.04'),    (2, 'C2', 50, 48, '.04', '1.04'),
    (2, 'C1', 100, 92, '.08', '.08'),    (2, 'C2', 50, 46, '.08', '1.08'),
    (3, 'C1', 80, 80, '0', '.25'),       (3, 'C2', 30, 30, '0', '2.33'),
    (3, 'C1', 80, 84, '-.05', '.2'),     (3, 'C2', 30, 34, '-.13', '2.2'),
    (3, 'C1', 80, 88, '-.1', '.15'),     (3, 'C2', 30, 38, '-.27', '2.07'),
    (4, 'C1', 100, 99.996, '.00004', '.00004'), (4, 'C2', 50, 50.004, '-.00008', '.99992'),
    (4, 'C1', 100, 99.992, '.00008', '.00008'), (4, 'C2', 50, 50.008, '-.00016', '.99984'),
]
def _decimals(s): return len(s.split('.')[1]) if '.' in s else 0

@pytest.mark.parametrize('ex,clf,a0,ax,r,e', TABLE1)
def test_table1_exact(ex, clf, a0, ax, r, e):
    "Each printed value is the computed one rounded to the printed number of decimals (accuracies % → fractions)."
    got_r, got_e = rla(a0 / 100, ax / 100), ela(a0 / 100, ax / 100)
    assert round(got_r, _decimals(r)) == float(r), (got_r, r)
    assert round(got_e, _decimals(e)) == float(e), (got_e, e)

def test_table1_vectorised():
    t = pd.DataFrame(TABLE1, columns=['ex', 'clf', 'a0', 'ax', 'rla', 'ela'])
    r, e = rla(t.a0 / 100, t.ax / 100), ela(t.a0 / 100, t.ax / 100)
    assert isinstance(r, pd.Series) and r.index.equals(t.index)
    np.testing.assert_allclose(r.to_numpy(), [rla(a / 100, b / 100) for a, b in zip(t.a0, t.ax)])
    assert isinstance(ela(t.a0.to_numpy() / 100, t.ax.to_numpy() / 100), np.ndarray)
    assert isinstance(ela(0.9, 0.8), float)

frac = st.floats(0, 1, allow_nan=False)
@settings(max_examples=300, deadline=None)
@given(a0=st.floats(1e-6, 1), ax=frac)
def test_eq4_identity(a0, ax):
    "ELA_x = RLA_x + ELA_0 (eq. 4), ELA_0 = (1 − A_0)/A_0."
    assert abs(ela(a0, ax) - (rla(a0, ax) + ela(a0, a0))) <= 1e-9 * max(1.0, ela(a0, ax))

@settings(max_examples=100, deadline=None)
@given(a0=st.lists(st.floats(1e-3, 1), min_size=1, max_size=20), data=st.data())
def test_eq4_identity_arrays(a0, data):
    ax = data.draw(st.lists(frac, min_size=len(a0), max_size=len(a0)))
    a0, ax = np.array(a0), np.array(ax)
    np.testing.assert_allclose(ela(a0, ax), rla(a0, ax) + (1 - a0) / a0, rtol=1e-9, atol=1e-12)

def test_bra_gaussians():
    "BRM on a problem with known Bayes error: two N(±1, 1) classes, E = Φ(−1); the Bayes rule itself has BRM 0."
    from scipy.stats import norm
    rng = np.random.default_rng(0)
    n = 200_000; y = rng.integers(0, 2, n); x = rng.normal(2 * y - 1, 1)
    E = norm.cdf(-1); err_bayes = np.mean((x > 0) != y)
    assert abs(bra(E, err_bayes)) < 0.02
    assert bra(E, 0.5) == pytest.approx((0.5 - E) / E)

@pytest.mark.parametrize('f,args,msg', [
    (ela, (80, 84), 'percentage'), (rla, (0.8, 84.0), 'percentage'), (ela, (1.5, 0.9), 'fraction'),
    (ela, (-0.1, 0.9), 'fraction'), (rla, (0.0, 0.5), 'A_0'), (ela, ([0.9, 0.0], [0.5, 0.5]), 'A_0'),
    (ela, ([0.9, 0.8], [0.5]), 'different lengths'), (ela, (np.nan, 0.5), 'NaN'), (ela, ('0.9', 0.5), 'numeric'),
    (bra, (0.0, 0.1), 'Bayes error'), (bra, (0.1, 12.0), 'percentage'),
])
def test_measures_bad_input(f, args, msg):
    with pytest.raises((ValueError, TypeError), match=msg): f(*args)

def test_series_index_mismatch():
    with pytest.raises(ValueError, match='different indexes'):
        ela(pd.Series([.9, .8], index=['a', 'b']), pd.Series([.8, .7], index=['b', 'a']))

# ---------------------------------------------------------------- class noise
@settings(max_examples=200, deadline=None)
@given(n=st.integers(2, 300), C=st.integers(2, 6), rate=st.floats(0, 0.99), seed=st.integers(0, 2**32 - 1),
       kind=st.sampled_from(['uniform', 'pairwise']))
def test_class_noise_exact_count(n, C, rate, seed, kind):
    y = np.arange(n) % C
    if len(np.unique(y)) < 2 or (rate > 0 and round(rate * n) == 0):
        with pytest.raises(ValueError): class_noise(y, rate, random_state=seed, kind=kind)
        return
    yn = class_noise(y, rate, random_state=seed, kind=kind)
    assert (yn != y).sum() == round(rate * n)          # exactly, and every selected label really changed
    assert set(np.unique(yn)) <= set(np.unique(y))
    assert (class_noise(y, rate, random_state=seed, kind=kind) == yn).all()   # same seed, same labels
    if kind == 'pairwise':
        moved = yn != y
        k = min(n, C)                                    # the classes present in y are 0 … k−1
        assert ((y[moved] + 1) % k == yn[moved]).all()

def test_class_noise_uniform_over_other_classes():
    "Changed labels go to each of the other classes equally often (χ² test, 4 classes, 20 000 changes)."
    y = np.repeat(np.array(['a', 'b', 'c', 'd']), 10_000)
    yn = class_noise(y, 0.5, random_state=123)
    moved = yn != y
    assert moved.sum() == 20_000
    for c in 'abcd':
        to = pd.Series(yn[moved & (y == c)]).value_counts()
        assert c not in to.index and len(to) == 3
        assert chisquare(to.to_numpy()).pvalue > 1e-3
    # the selected positions are uniform over the classes too
    assert chisquare(pd.Series(y[moved]).value_counts().to_numpy()).pvalue > 1e-3

def test_class_noise_types_and_seeds():
    y = pd.Series(pd.Categorical(list('aabbbcc') * 10), index=np.arange(70) * 3, name='cls')
    yn = class_noise(y, .2, random_state=np.random.default_rng(5))
    assert isinstance(yn, pd.Series) and yn.index.equals(y.index) and yn.name == 'cls' and yn.dtype == y.dtype
    assert (class_noise(y, .2, random_state=1) != class_noise(y, .2, random_state=2)).any()
    assert (class_noise(y, 0.0, random_state=1) == y).all()

@pytest.mark.parametrize('y,rate,kw,msg', [
    ([0, 1] * 10, 1.0, {}, r'\[0, 1\)'), ([0, 1] * 10, -0.01, {}, r'\[0, 1\)'), ([0, 1] * 10, 0.1, {'kind': 'swap'}, 'unknown noise kind'),
    ([3] * 20, 0.1, {}, 'two classes'), ([0, 1, 0], 0.1, {}, 'changes no label'), ([0, 1] * 10, '0.1', {}, 'number'),
    ([0, 1] * 10, True, {}, 'number'),
])
def test_class_noise_bad_input(y, rate, kw, msg):
    with pytest.raises((ValueError, TypeError), match=msg): class_noise(np.array(y), rate, random_state=0, **kw)

# ---------------------------------------------------------------- no leak into the test fold
class Spy(BaseEstimator, ClassifierMixin):
    "Records the rows and labels of every fit and every predict (on DataFrames: the index says which rows)."
    log = []
    def fit(self, X, y):
        Spy.log.append(('fit', np.asarray(X.index), np.asarray(y).copy())); self.classes_ = np.unique(y); return self
    def predict(self, X):
        Spy.log.append(('predict', np.asarray(X.index), None)); return np.full(len(X), self.classes_[0])

def test_noise_only_in_training_fold():
    ds = make_synthetic('moons', 200, random_state=0)
    rs = np.random.default_rng(0); test = np.sort(rs.choice(200, 40, replace=False)); train = np.setdiff1d(np.arange(200), test)
    Spy.log = []
    est = Spy().fit(ds.X.iloc[train], ds.y.iloc[train].to_numpy())
    ctx = FoldContext('spy', est, ds, train, test, 0, 0, _fold_seed(0, 0, 0))
    out = _ela_fold(ctx, (0.1, 0.3), 'uniform')
    fits = [e for e in Spy.log if e[0] == 'fit']; preds = [e for e in Spy.log if e[0] == 'predict']
    assert len(fits) == 3 and len(preds) == 3                       # clean + 2 noisy fits; each scored once
    clean_y = ds.y.iloc[train].to_numpy()
    for (_, rows, y), rate in zip(fits[1:], (0.1, 0.3)):
        assert (rows == ds.X.index[train]).all()                    # only training rows are fitted ...
        assert (y != clean_y).sum() == round(rate * len(train))     # ... with exactly the requested label noise
    for _, rows, _ in preds: assert (rows == ds.X.index[test]).all()   # scored on the test rows only
    assert (out.y_true.to_numpy() == ds.y.to_numpy()[out.instance]).all()   # test labels are the clean ones
    assert set(out.instance) == set(test)
    assert (ds.y.to_numpy() == make_synthetic('moons', 200, random_state=0).y.to_numpy()).all()   # dataset untouched

MODELS = {'tree': DecisionTreeClassifier(max_depth=3), 'knn': KNeighborsClassifier(5), 'knn1': KNeighborsClassifier(1)}

@pytest.fixture(scope='module')
def moons(): return make_synthetic('moons', 300, noise=0.3, random_state=2)

@pytest.fixture(scope='module')
def preds(moons): return ela_predictions(moons, MODELS, noise=[0.1, 0.3], n_splits=3, n_repeats=2, progress=False)

def test_predictions_shape_and_labels(moons, preds):
    assert len(preds) == 3 * 2 * 2 * 300
    assert (preds.y_true.to_numpy() == moons.y.to_numpy()[preds.instance]).all()
    assert not preds.duplicated(['model', 'repeat', 'noise', 'instance']).any()
    # the clean correctness does not depend on the noise level (the same clean fit is used)
    w = preds.pivot_table(index=['model', 'repeat', 'instance'], columns='noise', values='correct_clean')
    assert (w[0.1] == w[0.3]).all()
    assert set(preds.n_changed.unique()) == {round(0.1 * 200), round(0.3 * 200)}

def test_same_noise_for_every_model_and_seed_determinism(moons, preds):
    again = ela_predictions(moons, MODELS, noise=[0.1, 0.3], n_splits=3, n_repeats=2, progress=False, n_jobs=2, backend='threading')
    pd.testing.assert_frame_equal(preds.drop(columns=TIMES), again.drop(columns=TIMES))
    other = ela_predictions(moons, MODELS, noise=[0.3], n_splits=3, n_repeats=2, progress=False)   # a level's noise does not depend on the list
    a = preds[preds.noise == 0.3].reset_index(drop=True).drop(columns=TIMES)
    pd.testing.assert_frame_equal(a, other.drop(columns=TIMES))

def test_table_and_experiment(moons, preds):
    tab = ela_table(preds)
    assert list(tab.columns[:7]) == ['model', 'noise', 'acc_clean', 'acc_noisy', 'rla', 'ela', 'acc_clean_sd']
    np.testing.assert_allclose(tab.ela, tab.rla + (1 - tab.acc_clean) / tab.acc_clean)
    t30 = tab[tab.noise == 0.3].set_index('model')
    assert t30.loc['knn1', 'rla'] > t30.loc['knn', 'rla']           # 1-NN copies the noise; 5-NN votes it away
    assert (tab.n_folds == 6).all()
    ex = ela_experiment([moons], MODELS, noise=0.1, n_splits=3, n_repeats=2, progress=False)
    assert list(ex.columns[:7]) == ['dataset', 'model', 'noise', 'acc_clean', 'acc_noisy', 'rla', 'ela']
    pd.testing.assert_frame_equal(ex.drop(columns='dataset'), tab[tab.noise == 0.1].reset_index(drop=True), check_like=True)
    w = winners(ex); assert set(w.columns) == {'dataset', 'noise', 'best_ela', 'best_rla', 'disagree'}
    bc = best_counts(ex); assert np.isclose(bc.groupby('measure').wins.sum(), 1).all()
    for chart in (ela_noise_chart(tab.assign(dataset='moons')), best_chart(ex), measure_surface_chart()):
        assert chart.to_dict()

def test_by_difficulty(preds):
    bd = ela_by_difficulty(preds, n_bins=3)
    assert len(bd) == 3 * 2 * 3 and sorted(bd.bin.unique()) == [0, 1, 2]
    assert bd.groupby('bin').acc_clean.mean().is_monotonic_decreasing       # IRT bins: harder bins, lower accuracy
    assert difficulty_chart(bd).to_dict()

def test_by_difficulty_given(moons, preds):
    "A difficulty from elsewhere (Series or items table): held out by default, every repetition with held_out=False."
    from robustdiff.scc import difficulty_bins
    rng = np.random.default_rng(0)
    inst = np.sort(preds.instance.unique())
    d = pd.Series(rng.normal(size=len(inst)), index=inst)
    assert (ela_by_difficulty(preds, n_bins=3, difficulty=d).n_folds == 3).all()       # repetition 1 only
    bd = ela_by_difficulty(preds, n_bins=3, difficulty=d, held_out=False)
    assert len(bd) == 3 * 2 * 3 and (bd.n_folds == 6).all()                 # 2 repeats × 3 folds, all scored
    items = pd.DataFrame({'instance': inst, 'difficulty': d.to_numpy(), 'status': 'ok'})
    pd.testing.assert_frame_equal(ela_by_difficulty(preds, n_bins=3, difficulty=items, held_out=False), bd)
    # by hand: the bins of d, then the per-bin table over all repetitions
    b = difficulty_bins(d, n_bins=3)
    hand = ela_table(preds.merge(b[['instance', 'bin']], on='instance'), by=('bin',))
    m = bd.merge(hand, on=['model', 'noise', 'bin'], suffixes=('', '_hand'))
    np.testing.assert_allclose(m.acc_clean, m.acc_clean_hand); np.testing.assert_allclose(m.acc_noisy, m.acc_noisy_hand)
    assert (ela_by_difficulty(preds, n_bins=3).n_folds == 3).all()          # fitted on preds: held out as before
    with pytest.raises(ValueError, match='misses 1 instance'): ela_by_difficulty(preds, difficulty=d.iloc[1:])
    with pytest.raises(ValueError, match='duplicated'): ela_by_difficulty(preds, difficulty=pd.concat([d, d.iloc[:1]]))

@pytest.mark.parametrize('kw,msg', [
    (dict(noise=[0.1, 0.1]), 'distinct'), (dict(noise=[]), 'non-empty'), (dict(noise=1.0), r'\[0, 1\)'),
    (dict(noise=-0.2), r'\[0, 1\)'), (dict(noise=0.001), 'changes no label'), (dict(noise=0.1, datasets=[]), 'empty'),
])
def test_experiment_bad_input(moons, kw, msg):
    args = dict(datasets=moons, models=MODELS, n_splits=3, n_repeats=1, progress=False); args.update(kw)
    with pytest.raises(ValueError, match=msg): ela_experiment(**args)

def test_rank_agreement():
    tab = pd.DataFrame({'dataset': np.repeat(['d1', 'd2'], 4), 'model': list('abcd') * 2, 'noise': .1, 'rla': 0.,
                        'ela': [.1, .2, .3, .4, .4, .3, .2, .1]})
    loss = pd.DataFrame({'dataset': np.repeat(['d1', 'd2'], 4), 'model': list('abcd') * 2,
                         'delta_easy': [0, .1, .2, .3] * 2, 'delta_hard': [0, .1, .2, .3] * 2})
    r = rank_agreement(tab, loss).set_index('dataset').rho
    assert r['d1'] == pytest.approx(1) and r['d2'] == pytest.approx(-1) and np.isnan(r['all'])   # mean ranks all tie
    with pytest.raises(ValueError, match='one noise level'): rank_agreement(pd.concat([tab, tab.assign(noise=.2)]), loss)
    with pytest.raises(ValueError, match='no \\(dataset, model\\)'): rank_agreement(tab, loss.assign(dataset='x'))

# --- regression (#48): noise on the training target, right within τ
from sklearn.linear_model import Ridge
from sklearn.tree import DecisionTreeRegressor
from robustdiff.data import from_frame
from robustdiff.ela import target_noise

@settings(max_examples=40, deadline=None)
@given(n=st.integers(20, 300), rate=st.floats(0.05, 0.9), seed=st.integers(0, 10**6))
def test_target_noise_share_changed(n, rate, seed):
    y = np.random.default_rng(seed).normal(size=n)                     # no ties: a replaced value always differs
    z = target_noise(y, rate, random_state=seed)
    assert int((z != y).sum()) == round(rate * n)
    assert np.isin(z, y).all()                                          # every value one the target takes

def test_target_noise_keeps_the_marginal():
    y = np.random.default_rng(0).exponential(size=300)
    Z = np.stack([target_noise(y, .3, random_state=s) for s in range(300)])
    assert Z.mean() == pytest.approx(y.mean(), abs=0.02 * y.std())
    assert np.quantile(Z, [.1, .5, .9]) == pytest.approx(np.quantile(y, [.1, .5, .9]), abs=0.05 * y.std())
    assert Z.std() == pytest.approx(y.std(), rel=0.03)                  # not widened (Gaussian noise on y would be)
    np.testing.assert_array_equal(target_noise(y, .3, random_state=5), target_noise(y, .3, random_state=5))

@pytest.fixture(scope='module')
def reg_preds():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(240, 3)), columns=['a', 'b', 'c'])
    ds = from_frame(X.assign(y=3 * X.a - X.b + rng.normal(scale=.5, size=240)), 'y', name='reg', task='regression')
    models = {'ridge': Ridge(), 'tree': DecisionTreeRegressor(max_depth=4, random_state=0)}
    return ds, ela_predictions(ds, models, noise=[0, .2], n_splits=3, n_repeats=2, progress=False)

def test_regression_predictions(reg_preds):
    ds, p = reg_preds
    assert {'y_pred_clean', 'y_pred_noisy'} <= set(p.columns)
    np.testing.assert_array_equal(p.correct_clean, (np.abs(p.y_pred_clean - p.y_true) <= ds.tolerance).astype('int8'))
    np.testing.assert_array_equal(p.correct_noisy, (np.abs(p.y_pred_noisy - p.y_true) <= ds.tolerance).astype('int8'))
    assert p[p.noise == .2].n_changed.unique().tolist() == [32]         # 20 % of the 160 training rows
    assert (p[p.noise == 0].y_pred_clean == p[p.noise == 0].y_pred_noisy).all()
    # the same target noise for every model: the noisy fits of one fold see one noisy target
    assert p.groupby(['repeat', 'fold', 'noise']).n_changed.nunique().max() == 1

def test_regression_table(reg_preds):
    ds, p = reg_preds
    t = ela_table(p, errors=True)
    manual = (p.assign(ae0=(p.y_pred_clean - p.y_true).abs(), ae1=(p.y_pred_noisy - p.y_true).abs())
               .groupby(['model', 'noise', 'repeat', 'fold'])[['ae0', 'ae1']].mean().groupby(['model', 'noise']).mean())
    t = t.set_index(['model', 'noise'])
    np.testing.assert_allclose(t.mae_clean, manual.ae0.loc[t.index], atol=1e-12)
    np.testing.assert_allclose(t.mae_rise, (manual.ae1 / manual.ae0 - 1).loc[t.index], atol=1e-12)
    np.testing.assert_allclose(t.ela, t.rla + (1 - t.acc_clean) / t.acc_clean, atol=1e-12)   # eq. 4 on the share within τ
    assert (t.xs(.2, level='noise').mae_rise > 0).all()
    assert 'mae_clean' not in ela_table(p).columns                      # errors only when asked
    with pytest.raises(ValueError, match='y_pred_clean'): ela_table(p.drop(columns='y_pred_clean'), errors=True)
