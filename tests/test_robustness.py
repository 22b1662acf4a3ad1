"PiML-style robustness tests: the perturbations by simulation, the protocol's invariants, regression end to end, bad input."
import math
import numpy as np, pandas as pd, pytest
from hypothesis import given, settings, strategies as st
from sklearn.base import clone
from sklearn.datasets import load_diabetes
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.svm import LinearSVC, SVR
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from robustdiff.perturb import Perturbation
from robustdiff.robustness import (RawNoise, QuantileNoise, CategoricalResample, robustness_test, robustness_compare,
                                   feature_sensitivity, robustness_chart, sensitivity_chart, _quantile_shift, _rng)
from robustdiff.datasets import load_sklearn, make_synthetic

# ---------- fixtures ----------
@pytest.fixture(scope='module')
def bc():
    ds = load_sklearn('breast_cancer')
    Xtr, Xte, ytr, yte = train_test_split(ds.X, ds.y, test_size=0.3, stratify=ds.y, random_state=0)
    rf = RandomForestClassifier(n_estimators=25, random_state=0, n_jobs=1).fit(Xtr, ytr)
    return rf, Xtr, Xte, ytr, yte

@pytest.fixture(scope='module')
def diab():
    d = load_diabetes(as_frame=True)
    Xtr, Xte, ytr, yte = train_test_split(d.data, d.target, test_size=0.3, random_state=0)
    return LinearRegression().fit(Xtr, ytr), Xtr, Xte, ytr, yte

def _mixed(n, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({'x': rng.normal(5, 3, n), 'z': rng.exponential(2, n),
                         'c': pd.Categorical(rng.choice(list('pqrs'), n, p=[.4, .3, .2, .1]), categories=list('pqrst'))})

# ---------- the perturbations ----------
def test_subclass_perturbation_and_level():
    for cls in (RawNoise, QuantileNoise, CategoricalResample):
        p = cls(0.3)
        assert isinstance(p, Perturbation) and p.target == 'X' and p.level == 0.3
        assert clone(p).get_params() == {'size': 0.3, 'features': None, 'stats': None}

def test_quantile_worked_example():
    "[PiML] values 1 2 2 2 3 3 3 40 40 50; x = 3 at quantile 0.7, +0.12 → 0.82 → 0.8 → 40."
    vals = np.array([1, 2, 2, 2, 3, 3, 3, 40, 40, 50.])
    assert _quantile_shift(vals, np.array([3.]), np.array([0.12]))[0] == 40
    assert _quantile_shift(vals, np.array([3.]), np.array([0.04]))[0] == 3      # 0.74 → 0.7 → 3
    assert _quantile_shift(vals, np.array([3.]), np.array([-0.3]))[0] == 2      # 0.4 → 2
    # through the class: a uniform draw of exactly +0.12 at size 0.24 is the upper end; check the class maps every
    # value of the example with an observed-value output and reproduces the worked example for the matching draw
    X = pd.DataFrame({'v': vals})
    q = QuantileNoise(0.24).fit(X)
    for seed in range(50):
        rng = np.random.default_rng(seed)
        u = np.random.default_rng(seed).uniform(-0.12, 0.12, (10, 1))[:, 0]
        out = q.transform(X, random_state=seed).v.to_numpy()
        np.testing.assert_array_equal(out, _quantile_shift(np.sort(vals), vals, u))

def test_quantile_train_stats_and_test_stats():
    tr = pd.DataFrame({'v': np.arange(100.)}); te = pd.DataFrame({'v': np.array([0.5, 10.5, 99.5, 200.])})
    out = QuantileNoise(0.0, stats='train').fit(tr).transform(te, random_state=0).v.to_numpy()
    np.testing.assert_array_equal(out, [0, 10, 99, 99])                        # largest training value ≤ x
    out = QuantileNoise(0.0).fit(tr).transform(te, random_state=0)             # default 'test': identity at 0
    pd.testing.assert_frame_equal(out, te)

@pytest.mark.parametrize('size', [0.1, 0.5, 2.0])
def test_raw_noise_variance_by_simulation(size):
    tr, te = _mixed(2000, 1), _mixed(50_000, 2)
    p = RawNoise(size).fit(tr)
    d = p.transform(te, random_state=3)[['x', 'z']].to_numpy() - te[['x', 'z']].to_numpy()
    sd = tr[['x', 'z']].std(ddof=0).to_numpy() * size
    np.testing.assert_allclose(d.std(0), sd, rtol=0.02)
    np.testing.assert_allclose(d.mean(0), 0, atol=5 * sd.max() / math.sqrt(len(te)))
    assert abs(np.corrcoef(d.T)[0, 1]) < 0.03
    assert (p.transform(te, random_state=3).c == te.c).all()                    # category column untouched

def test_raw_noise_test_stats():
    tr, te = _mixed(500, 1), _mixed(40_000, 2)
    te['x'] *= 4
    d = RawNoise(0.5, features='x', stats='test').fit(tr).transform(te, random_state=0).x - te.x
    assert d.std() == pytest.approx(0.5 * te.x.std(ddof=0), rel=0.02)

@pytest.mark.parametrize('size', [0.2, 0.7, 1.0])
def test_categorical_frequencies_by_simulation(size):
    tr, te = _mixed(4000, 1), _mixed(60_000, 2)
    out = CategoricalResample(size).fit(tr).transform(te, random_state=4)
    p = tr.c.value_counts(normalize=True).reindex(list('pqrst'), fill_value=0).to_numpy()
    for src in 'pqrs':
        got = out.c[te.c == src].value_counts(normalize=True).reindex(list('pqrst'), fill_value=0).to_numpy()
        expect = size * p + (1 - size) * (np.array(list('pqrst')) == src)
        np.testing.assert_allclose(got, expect, atol=0.015)
    pd.testing.assert_frame_equal(out[['x', 'z']], te[['x', 'z']])

def test_categorical_numeric_feature_resampled_from_observed_values():
    tr = pd.DataFrame({'k': np.repeat([1., 2., 7.], [500, 300, 200])}); te = pd.DataFrame({'k': np.full(30_000, 2.)})
    out = CategoricalResample(1.0, features='k').fit(tr).transform(te, random_state=0).k
    assert set(out) == {1., 2., 7.}
    np.testing.assert_allclose(out.value_counts(normalize=True).sort_index().to_numpy(), [.5, .3, .2], atol=0.01)

def test_unseen_test_category():
    tr = pd.DataFrame({'c': pd.Categorical(list('aab'))})
    te = pd.DataFrame({'c': pd.Categorical(list('zz'))})
    out = CategoricalResample(1.0).fit(tr).transform(te, random_state=0).c
    assert set(out) <= {'a', 'b'} and set(out.cat.categories) == {'z', 'a', 'b'}

@settings(max_examples=40, deadline=None)
@given(vals=st.lists(st.integers(-50, 50), min_size=2, max_size=40), size=st.floats(0, 3), seed=st.integers(0, 10**6))
def test_quantile_outputs_are_observed_values(vals, size, seed):
    X = pd.DataFrame({'v': np.array(vals, float)})
    out = QuantileNoise(size).fit(X).transform(X, random_state=seed).v
    assert set(out) <= set(X.v)
    # the output is s_k for a grid index k with |k − m·F(x)| ≤ m·size/2 + 1/2 (ties: s_k = out for L < k ≤ U)
    s, m = np.sort(X.v.to_numpy()), len(X)
    F = np.searchsorted(s, X.v.to_numpy(), side='right')                       # m·F(x)
    L, U = np.searchsorted(s, out.to_numpy(), side='left'), np.searchsorted(s, out.to_numpy(), side='right')
    h = m * min(size, 2) / 2 + 0.5 + 1e-9
    assert ((L + 1 <= F + h) & (U >= F - h)).all()

@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 30))
def test_size_zero_is_identity(seed, n):
    X = _mixed(n, seed)
    for p in (RawNoise(0.0), QuantileNoise(0.0), CategoricalResample(0.0), CategoricalResample(0.0, features=['x', 'c'])):
        pd.testing.assert_frame_equal(p.fit(X).transform(X, random_state=seed), X)

def test_rows_selection_keeps_other_rows():
    X = _mixed(50)
    out = RawNoise(1.0).fit(X).transform(X, rows=np.arange(10), random_state=0)
    pd.testing.assert_frame_equal(out.iloc[10:], X.iloc[10:])
    assert (out.x.iloc[:10] != X.x.iloc[:10]).all()

@pytest.mark.parametrize('make, err, msg', [
    (lambda: RawNoise(-0.1), ValueError, '>= 0'),
    (lambda: RawNoise(float('nan')), ValueError, 'finite'),
    (lambda: RawNoise('a'), TypeError, 'real number'),
    (lambda: CategoricalResample(1.2), ValueError, '<= 1'),
    (lambda: QuantileNoise(0.1, stats='valid'), ValueError, "'train' or 'test'"),
    (lambda: QuantileNoise(0.1, features='c'), TypeError, 'numeric'),
    (lambda: RawNoise(0.1, features=['nope']), ValueError, 'not columns'),
    (lambda: RawNoise(0.1, features=[]), ValueError, 'empty'),
])
def test_perturbation_bad_input(make, err, msg):
    with pytest.raises(err, match=msg): make().fit(_mixed(20))

def test_works_in_robustness_by_difficulty():
    from robustdiff.scc import robustness_by_difficulty
    ds = make_synthetic('moons', n_samples=150, random_state=0)
    res = robustness_by_difficulty(ds, models='quick', perturbation=[RawNoise(0.5), QuantileNoise(0.3), CategoricalResample(0.5, features=['x1'])],
                                   lambdas=(0, 0.5, 1), n_bins=3, n_splits=3, progress=False)
    c = res.curves
    assert set(c.perturbation) == {'RawNoise', 'QuantileNoise', 'CategoricalResample'}
    assert set(c.level) == {0.5, 0.3}
    assert (c.query('lam == 0').kappa == 1).all()
    for p, g in c.query('lam == 1').groupby('perturbation'): assert g.kappa.mean() < 1, p

# ---------- the test protocol ----------
def test_levels_repeats_and_level0_clean(bc):
    rf, Xtr, Xte, ytr, yte = bc
    for method in ('raw', 'quantile', 'categorical'):
        r = robustness_test(rf, Xte, yte, X_train=Xtr, method=method, perturb_size=0.15, levels=4, n_repeats=3)
        assert list(r.columns) == ['level', 'repeat', 'metric', 'value', 'subset']
        np.testing.assert_allclose(sorted(r.level.unique()), [0, 0.15, 0.3, 0.45])
        assert len(r) == 12 and (r.metric == 'ACC').all() and (r.subset == 'all').all()
        clean = np.mean(rf.predict(Xte) == yte.to_numpy())
        assert (r.query('level == 0').value == clean).all()

@pytest.mark.parametrize('metric', ['ACC', 'AUC', 'F1'])
def test_level0_equals_sklearn_metric(bc, metric):
    from sklearn.metrics import accuracy_score, roc_auc_score, f1_score
    rf, Xtr, Xte, ytr, yte = bc
    r = robustness_test(rf, Xte, yte, metric=metric.lower(), levels=2, n_repeats=2)
    ref = {'ACC': lambda: accuracy_score(yte, rf.predict(Xte)),
           'AUC': lambda: roc_auc_score(yte == rf.classes_[1], rf.predict_proba(Xte)[:, 1]),
           'F1': lambda: f1_score(yte, rf.predict(Xte), pos_label=rf.classes_[1])}[metric]()
    assert r.query('level == 0').value.iloc[0] == pytest.approx(ref)
    assert (r.metric == metric).all()

def test_batched_equals_one_repeat_at_a_time(bc):
    rf, Xtr, Xte, ytr, yte = bc
    r = robustness_test(rf, Xte, yte, X_train=Xtr, method='quantile', perturb_size=0.2, levels=3, n_repeats=4, random_state=5)
    p = QuantileNoise(features=list(Xte.columns)).fit(Xtr)
    ent = np.random.SeedSequence(5).entropy
    exp = []
    for i in range(3):
        for k in range(4):
            Xp = Xte if i == 0 else p.set_params(size=round(0.2 * i, 12)).transform(Xte, random_state=_rng(ent, 0, i, k, 0))
            exp.append(np.mean(rf.predict(Xp) == yte.to_numpy()))
    np.testing.assert_array_equal(r.value.to_numpy(), exp)

def test_one_predict_call_per_level(bc):
    rf, Xtr, Xte, ytr, yte = bc
    calls = []
    class Spy:
        classes_ = rf.classes_
        feature_names_in_ = rf.feature_names_in_
        def predict(self, X): calls.append(len(X)); return rf.predict(X)
    robustness_test(Spy(), Xte, yte, levels=5, n_repeats=10)
    assert calls == [len(Xte)] + [10 * len(Xte)] * 4

def test_seeded(bc):
    rf, Xtr, Xte, ytr, yte = bc
    a = robustness_test(rf, Xte, yte, perturb_size=0.3, levels=3, n_repeats=3, random_state=1)
    b = robustness_test(rf, Xte, yte, perturb_size=0.3, levels=3, n_repeats=3, random_state=1)
    c = robustness_test(rf, Xte, yte, perturb_size=0.3, levels=3, n_repeats=3, random_state=2)
    pd.testing.assert_frame_equal(a, b)
    assert not np.array_equal(a.value, c.value)

def test_reselect_vs_fixed_regression(diab):
    "MSE/MAE: reselect (PiML) ≥ fixed in every repeat (top-k of the perturbed residuals); equal at level 0."
    lm, Xtr, Xte, ytr, yte = diab
    for metric in ('MSE', 'MAE'):
        kw = dict(X_train=Xtr, perturb_size=0.3, levels=4, n_repeats=5, metric=metric, worst_share=0.2)
        rs = robustness_test(lm, Xte, yte, worst='reselect', **kw).query("subset == 'worst 20%'")
        fx = robustness_test(lm, Xte, yte, worst='fixed', **kw).query("subset == 'worst 20% (fixed)'")
        a, b = rs.value.to_numpy(), fx.value.to_numpy()
        assert (a >= b - 1e-9).all() and (a[5:] > b[5:]).all()
        np.testing.assert_allclose(a[:5], b[:5])
        res = np.abs(yte.to_numpy() - lm.predict(Xte))
        k = math.ceil(0.2 * len(Xte))
        top = np.sort(res)[::-1][:k]
        assert a[0] == pytest.approx(np.mean(top**2) if metric == 'MSE' else np.mean(top))

def test_fixed_rows_are_the_clean_worst(bc):
    rf, Xtr, Xte, ytr, yte = bc
    r = robustness_test(rf, Xte, yte, perturb_size=0.0, levels=1, n_repeats=1, worst_share=0.1, worst='fixed')
    p_true = rf.predict_proba(Xte)[np.arange(len(Xte)), pd.Index(rf.classes_).get_indexer(yte)]
    idx = np.argsort(-(1 - p_true), kind='stable')[:math.ceil(0.1 * len(Xte))]
    assert r.query("subset != 'all'").value.iloc[0] == pytest.approx(np.mean(rf.predict(Xte.iloc[idx]) == yte.iloc[idx].to_numpy()))

def test_hard_scores_select_hardest(bc):
    rf, Xtr, Xte, ytr, yte = bc
    rng = np.random.default_rng(0)
    scores = pd.Series(rng.normal(size=len(Xte)), index=Xte.index[::-1]).sort_index()   # any order: aligned by index
    r = robustness_test(rf, Xte, yte, worst_share=0.25, worst=scores, levels=2, n_repeats=2)
    assert set(r.subset) == {'all', 'hardest 25%'}
    hard = scores.reindex(Xte.index).to_numpy()
    idx = np.argsort(-hard, kind='stable')[:math.ceil(0.25 * len(Xte))]
    assert r.query("subset != 'all' and level == 0").value.iloc[0] == pytest.approx(np.mean(rf.predict(Xte.iloc[idx]) == yte.iloc[idx].to_numpy()))
    r2 = robustness_test(rf, Xte, yte, worst_share=0.25, worst=hard, levels=2, n_repeats=2)   # an array in row order
    pd.testing.assert_frame_equal(r, r2)
    with pytest.raises(ValueError, match='lack'): robustness_test(rf, Xte, yte, worst_share=0.25, worst=scores.iloc[1:])
    with pytest.raises(ValueError, match='worst_share'): robustness_test(rf, Xte, yte, worst=scores)

def test_regression_end_to_end(diab):
    lm, Xtr, Xte, ytr, yte = diab
    from sklearn.metrics import mean_squared_error, mean_absolute_error, r2_score
    ref = {'MSE': mean_squared_error, 'MAE': mean_absolute_error, 'R2': r2_score}
    for metric, f in ref.items():
        r = robustness_test(lm, Xte, yte, X_train=Xtr, metric=metric, perturb_size=0.5, n_repeats=4, worst_share=0.3)
        assert r.query("level == 0 and subset == 'all'").value.iloc[0] == pytest.approx(f(yte, lm.predict(Xte)))
        m = r.query("subset == 'all'").groupby('level').value.mean()
        assert (m.iloc[-1] > m.iloc[0]) if metric != 'R2' else (m.iloc[-1] < m.iloc[0])
    assert robustness_test(lm, Xte, yte).metric.iloc[0] == 'MSE'          # default by task
    svr = SVR().fit(Xtr, ytr)
    cmp = robustness_compare({'lm': lm, 'svr': svr}, Xte, yte, X_train=Xtr, levels=3, n_repeats=2, worst_share=0.3)
    assert set(cmp.model) == {'lm', 'svr'} and len(cmp) == 2 * 3 * 2 * 2
    robustness_chart(cmp).to_dict(); robustness_chart(cmp, facet='subset').to_dict()

def test_pipeline_with_categorical_columns():
    "Raw/quantile noise on numeric columns and resampling on category columns of a one-hot pipeline."
    from sklearn.compose import make_column_transformer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder
    X = _mixed(600, 0); y = pd.Series(np.where(X.x + (X.c == 'p') * 4 + np.random.default_rng(1).normal(0, 1, 600) > 6, 'yes', 'no'))
    pipe = make_pipeline(make_column_transformer((OneHotEncoder(handle_unknown='ignore'), ['c']), remainder='passthrough'),
                         LogisticRegression(max_iter=500)).fit(X.iloc[:400], y.iloc[:400])
    for method in ('raw', 'quantile', 'categorical'):
        r = robustness_test(pipe, X.iloc[400:], y.iloc[400:], X_train=X.iloc[:400], method=method, perturb_size=0.3, n_repeats=3, metric='AUC')
        m = r.groupby('level').value.mean()
        assert m.iloc[-1] < m.iloc[0]
    only_c = robustness_test(pipe, X.iloc[400:], y.iloc[400:], X_train=X.iloc[:400], features='c', perturb_size=0.25, n_repeats=3)
    assert only_c.groupby('level').value.mean().iloc[-1] < only_c.value.iloc[0]

def test_decision_function_auc_and_no_proba_residuals(bc):
    rf, Xtr, Xte, ytr, yte = bc
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    svm = make_pipeline(StandardScaler(), LinearSVC()).fit(Xtr, ytr)
    r = robustness_test(svm, Xte, yte, metric='AUC', worst_share=0.2, levels=2, n_repeats=2)
    assert r.value.notna().any()
    from sklearn.metrics import roc_auc_score
    assert r.query("level == 0 and subset == 'all'").value.iloc[0] == pytest.approx(roc_auc_score(yte == svm.classes_[1], svm.decision_function(Xte)))

def test_multiclass():
    ds = load_sklearn('wine')
    Xtr, Xte, ytr, yte = train_test_split(ds.X, ds.y, test_size=0.4, stratify=ds.y, random_state=0)
    lr = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(Xtr, ytr)
    for metric in ('ACC', 'AUC', 'F1'):
        r = robustness_test(lr, Xte, yte, X_train=Xtr, metric=metric, perturb_size=0.5, n_repeats=3, worst_share=0.3)
        assert r.value.notna().all() and r.value.between(0, 1).all()

def test_feature_sensitivity(diab):
    lm, Xtr, Xte, ytr, yte = diab
    t = feature_sensitivity(lm, Xte, yte, X_train=Xtr, size=1.0, n_repeats=5)
    assert list(t.columns) == ['feature', 'metric', 'subset', 'clean', 'mean', 'sd', 'drop']
    assert set(t.feature) == set(Xte.columns) and (t['drop'].diff().dropna() <= 0).all()
    # for a linear model, expected MSE increase from noise on feature j is β_j² (σ_j)²: the ranking follows it
    expected = pd.Series(lm.coef_**2 * Xtr.std(ddof=0).to_numpy()**2, index=Xte.columns)
    assert t.feature.iloc[0] == expected.idxmax()
    row = t.set_index('feature').loc[expected.idxmax()]
    assert row['drop'] == pytest.approx(expected.max(), rel=0.35)
    sensitivity_chart(t).to_dict()
    t2 = feature_sensitivity(lm, Xte, yte, X_train=Xtr, size=1.0, features=['bmi', 's5'], n_repeats=3, worst_share=0.3)
    assert set(t2.feature) == {'bmi', 's5'} and (t2.subset == 'worst 30%').all()

# ---------- bad input ----------
def _bad_cases():
    return [
        (dict(perturb_size=-0.1), ValueError, '>= 0'),
        (dict(method='gauss'), ValueError, 'unknown method'),
        (dict(metric='RMSE'), ValueError, 'unknown metric'),
        (dict(metric='MSE'), ValueError, 'for regressors'),
        (dict(worst_share=0.0), ValueError, 'worst_share'),
        (dict(worst_share=1.0), ValueError, 'worst_share'),
        (dict(worst_share=1.5), ValueError, 'worst_share'),
        (dict(features=['radius']), ValueError, 'not columns'),
        (dict(worst='worse', worst_share=0.2), ValueError, 'worst'),
        (dict(levels=0), ValueError, 'levels'),
        (dict(n_repeats=0), ValueError, 'n_repeats'),
        (dict(method=QuantileNoise(), features=['mean radius']), ValueError, 'perturbation object'),
    ]

@pytest.mark.parametrize('kw, err, msg', _bad_cases())
def test_bad_input_classifier(bc, kw, err, msg):
    rf, Xtr, Xte, ytr, yte = bc
    with pytest.raises(err, match=msg): robustness_test(rf, Xte, yte, **kw)

def test_bad_input_other(bc, diab):
    rf, Xtr, Xte, ytr, yte = bc
    lm, dXtr, dXte, dytr, dyte = diab
    with pytest.raises(ValueError, match='for classifiers'): robustness_test(lm, dXte, dyte, metric='AUC')
    with pytest.raises(ValueError, match='for classifiers'): robustness_test(lm, dXte, dyte, metric='ACC')
    with pytest.raises(TypeError, match='predict_proba nor decision_function'):
        class NoScore:
            classes_ = rf.classes_
            def predict(self, X): return rf.predict(X)
        robustness_test(NoScore(), Xte, yte, metric='AUC')
    with pytest.raises(ValueError, match='fitted on'): robustness_test(rf, Xte.iloc[:, ::-1], yte)
    with pytest.raises(ValueError, match='fitted on'): robustness_test(rf, Xte.iloc[:, :5], yte)
    with pytest.raises(ValueError, match='X_train has columns'): robustness_test(rf, Xte, yte, X_train=Xtr.iloc[:, :5])
    with pytest.raises(TypeError, match='DataFrame'): robustness_test(rf, Xte.to_numpy(), yte)
    with pytest.raises(ValueError, match='one value per row'): robustness_test(rf, Xte, yte.iloc[:5])
    with pytest.raises(TypeError, match='predict'): robustness_test(object(), Xte, yte)
    X = pd.DataFrame({'s': ['a', 'b'] * 10, 'x': np.arange(20.)})
    class M:
        def predict(self, X): return np.zeros(len(X))
    with pytest.raises(TypeError, match='numeric'): robustness_test(M(), X, np.zeros(20), method='quantile', features=['s'])
    with pytest.raises(TypeError, match='numeric'): QuantileNoise(features=['s']).fit(X.astype({'s': 'category'}))
    with pytest.raises(ValueError, match='unique'): robustness_compare([('a', rf), ('a', rf)], Xte, yte)
    with pytest.raises(ValueError, match='mix metrics'):
        robustness_chart(pd.concat([robustness_test(rf, Xte, yte, levels=1, n_repeats=1),
                                    robustness_test(rf, Xte, yte, levels=1, n_repeats=1, metric='F1')]))

def test_method_as_perturbation_objects(bc):
    "A perturbation object (e.g. quantile noise with training statistics) as `method`: the levels set its size."
    rf, Xtr, Xte, ytr, yte = bc
    feats = ['mean radius', 'worst area']
    r = robustness_test(rf, Xte, yte, X_train=Xtr, method=QuantileNoise(stats='train', features=feats), perturb_size=0.2, levels=3, n_repeats=3)
    p = QuantileNoise(stats='train', features=feats).fit(Xtr)
    ent = np.random.SeedSequence(0).entropy
    Xp = p.set_params(size=0.4).transform(Xte, random_state=_rng(ent, 0, 2, 1, 0))
    assert r.query('level == 0.4').value.iloc[1] == np.mean(rf.predict(Xp) == yte.to_numpy())
    both = robustness_test(rf, Xte, yte, X_train=Xtr, method=[RawNoise(features=feats[:1]), QuantileNoise(features=feats[1:])],
                           perturb_size=0.5, levels=2, n_repeats=2)
    assert len(both) == 4

# --- the report's perturbation stage on a regressor (#48)
from sklearn.metrics import mean_absolute_error, r2_score
from robustdiff.perturbation_report import _perturbation_subsets, _perturbation_table

def _reg_pp(tau=1.0):
    "Two models, one fold of 10 instances, clean level 0 and level 1 with two copies; model 'b' moves every prediction by 1.5 at level 1."
    rows = []
    y = np.arange(10.)
    for m, off in (('a', .5), ('b', .2)):
        for lv in (0., 1.):
            for rep in (0, 1):
                pred = y + off + (1.5 * (rep + 1) / 2 if (m == 'b' and lv == 1) else 0) + (.01 * np.arange(10) if m == 'a' else 0)
                rows.append(pd.DataFrame({'model': m, 'repeat': 0, 'fold': 0, 'instance': np.arange(10), 'level': lv, 'rep': np.int16(rep),
                                          'y_true': y, 'y_pred': pred, 'correct': (np.abs(pred - y) <= tau).astype('int8'), 'p_true': np.nan}))
    return pd.concat(rows, ignore_index=True)

def test_regression_worst_rows_by_absolute_residual():
    pp = _reg_pp()
    (_, _), (_, worst) = _perturbation_subsets(pp, 0.3, regression=True)
    a0 = pp[(pp.model == 'a') & (pp.level == 0) & (pp.rep == 0)]
    assert a0.instance[worst[a0.index]].tolist() == [7, 8, 9]             # model a's residuals .5 + .01·i: the last three

def test_regression_table_scores_each_fold_and_copy():
    pp = _reg_pp()
    subsets = _perturbation_subsets(pp, 0.3, regression=True)
    tab = _perturbation_table(pp, 0.3, None, 'mae', subsets)
    assert set(tab.subset) == {'all', 'worst 30%'}                        # the worst rows too, as PiML scores them
    g = pp[(pp.model == 'b') & (pp.level == 1) & (pp.rep == 1)]
    pick = lambda t: t[(t.model == 'b') & (t.level == 1) & (t.repeat == 1) & (t.subset == 'all')].value.iloc[0]
    assert pick(tab) == pytest.approx(mean_absolute_error(g.y_true, g.y_pred))
    assert pick(_perturbation_table(pp, 0.3, None, 'r2', subsets)) == pytest.approx(r2_score(g.y_true, g.y_pred))
    assert pick(_perturbation_table(pp, 0.3, None, 'rmse', subsets)) == pytest.approx(np.sqrt(np.mean((g.y_true - g.y_pred) ** 2)))
    w = tab[tab.subset == 'worst 30%'].set_index(['model', 'level', 'repeat']).value
    assert (w >= tab[tab.subset == 'all'].set_index(['model', 'level', 'repeat']).value.loc[w.index]).all()
