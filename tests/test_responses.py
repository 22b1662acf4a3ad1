"Cross-validated predictions and response matrices: determinism across n_jobs, caching, bad input."
import numpy as np, pandas as pd, pytest
from robustdiff.data import Dataset
from robustdiff.datasets import load_sklearn, make_synthetic
from robustdiff.responses import cv_predictions, response_matrix, map_folds, cv_splits, accuracy_table
from robustdiff.datasets import read_responses

@pytest.fixture(scope='module')
def wine(): return load_sklearn('wine')

def test_same_seed_same_result_whatever_n_jobs(wine):
    a = cv_predictions(wine, 'quick', n_splits=3, n_repeats=2, progress=False, n_jobs=1)
    b = cv_predictions(wine, 'quick', n_splits=3, n_repeats=2, progress=False, n_jobs=2)
    c = cv_predictions(wine, 'quick', n_splits=3, n_repeats=2, progress=False, n_jobs=2, backend='threading')
    pd.testing.assert_frame_equal(a, b); pd.testing.assert_frame_equal(a, c)
    d = cv_predictions(wine, 'quick', n_splits=3, n_repeats=2, progress=False, random_state=1)
    assert not a[['instance', 'fold']].equals(d[['instance', 'fold']])

def test_shapes_and_tidy(wine):
    p = cv_predictions(wine, 'quick', n_splits=5, n_repeats=2, progress=False, proba=True)
    assert len(p) == 4 * 2 * 178
    assert [c for c in p if c.startswith('proba_')] == ['proba_class_0', 'proba_class_1', 'proba_class_2']
    np.testing.assert_allclose(p.filter(like='proba_').sum(1), 1, atol=1e-9)
    for r in (0, 1):
        U = response_matrix(p, repeat=r)
        assert U.shape == (4, 178) and set(np.unique(U)) <= {0, 1}
    acc = accuracy_table(p)
    assert acc.accuracy.between(0.5, 1).all()

_CALLS = []   # a global, not a closure variable: closure contents are part of the cache key

def _count_fn(ctx):
    _CALLS.append(1)
    return pd.DataFrame({'n': [len(ctx.test)]})

def test_cache_reuses_results(wine, tmp_path):
    calls, fn = _CALLS, _count_fn
    calls.clear()
    a = map_folds(fn, wine, 'quick', n_splits=3, progress=False, cache_dir=tmp_path, n_jobs=1)
    n = len(calls)
    b = map_folds(fn, wine, 'quick', n_splits=3, progress=False, cache_dir=tmp_path, n_jobs=1)
    assert n == 12 and len(calls) == n            # the second run read everything from disk
    pd.testing.assert_frame_equal(a, b)
    map_folds(fn, wine, 'quick', n_splits=3, progress=False, cache_dir=tmp_path, n_jobs=1, cache_key='other')
    assert len(calls) == 2 * n                    # another key, fresh results

def test_nominal_feature_end_to_end():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({'x': rng.normal(size=90), 'c': rng.choice(list('pqr'), 90)})
    d = Dataset('mixed', X, np.repeat(['a', 'b', 'c'], 30), nominal=['c'])
    p = cv_predictions(d, 'quick', n_splits=3, progress=False)
    assert response_matrix(p).shape == (4, 90)

def test_external_response_matrix():
    U, info = read_responses('liver-disorders')
    assert U.shape == (74, 345) and len(info) == 345 and 'Dffclt' in info
    assert U.dtypes.unique().tolist() == [np.dtype('int8')]

# bad input -----------------------------------------------------------------------------------------------------
def test_class_smaller_than_folds():
    d = load_sklearn('iris').subset(np.r_[0:50, 50:53, 100:150])
    with pytest.raises(ValueError, match="has 3 member.*fewer than the 5 folds"): cv_predictions(d, 'quick', progress=False)

def test_bad_parameters(wine):
    with pytest.raises(ValueError, match='n_splits'): cv_splits(wine, n_splits=1)
    with pytest.raises(ValueError, match='n_repeats'): cv_splits(wine, n_repeats=0)
    with pytest.raises(ValueError, match='unknown portfolio'): cv_predictions(wine, 'nope', progress=False)
    with pytest.raises(ValueError, match='unknown dataset'): cv_predictions('nonsense', 'quick', progress=False)
    with pytest.raises(TypeError, match='Dataset'): cv_splits(np.zeros((3, 3)))

def test_non_classifier_in_portfolio(wine):
    from sklearn.linear_model import LinearRegression
    with pytest.raises(TypeError, match="'lin'.*is a regressor, but the target is a classification target"):
        cv_predictions(wine, {'lin': LinearRegression()}, progress=False)

def test_fit_failure_names_the_model(wine):
    from sklearn.base import BaseEstimator, ClassifierMixin
    class Broken(ClassifierMixin, BaseEstimator):
        def fit(self, X, y): raise ArithmeticError('boom')
        def predict(self, X): return np.zeros(len(X))
    with pytest.raises(RuntimeError, match="model 'broken' failed to fit.*boom"):
        cv_predictions(wine, {'broken': Broken()}, progress=False)

def test_bad_response_file(tmp_path):
    pd.DataFrame({'learner': ['a', 'b'], '0': [0, 2], '1': [1, 0]}).to_csv(tmp_path/'x_responses.csv.gz', index=False)
    with pytest.raises(ValueError, match='only 0 and 1'): read_responses('x', folder=tmp_path)
    with pytest.raises(ValueError, match='unknown response matrix'): read_responses('y', folder=tmp_path)

@pytest.fixture(scope='module')
def fabra_wine(wine): return cv_predictions(wine, 'fabra18', n_splits=3, progress=False, n_jobs=1, proba=True)

def test_fabra18_bit_identical_across_n_jobs(wine, fabra_wine):
    "Every digit, probabilities included, for all 18 families (BLAS thread counts must not leak into results)."
    b = cv_predictions(wine, 'fabra18', n_splits=3, progress=False, n_jobs=2, proba=True)
    pd.testing.assert_frame_equal(fabra_wine, b, check_exact=True)

# one prediction pass (issue 16 item 3): identical results to the frozen pre-optimisation code ------------------------
def _old_predict_fold(ctx, proba=False):
    "Frozen copy of responses._predict_fold before labels were derived from probabilities (predict + predict_proba)."
    ds, te = ctx.dataset, ctx.test
    X, y = ds.X.iloc[te], ds.y.iloc[te].to_numpy()
    est = ctx.estimator
    out = pd.DataFrame({'instance': te, 'y_true': y})
    if hasattr(est, 'predict_proba'):
        P = np.asarray(est.predict_proba(X), dtype=float)
        classes = est.classes_
        y_pred = est.predict(X)
        pos = pd.Index(classes).get_indexer(y)
        p_true = np.where(pos >= 0, P[np.arange(len(y)), np.maximum(pos, 0)], 0.0)
        out['y_pred'] = y_pred
        out['p_true'] = p_true
        out['logloss'] = -np.log(np.clip(p_true, 1e-15, 1))
        if proba:
            for k, c in enumerate(classes): out[f'proba_{c}'] = P[:, k]
    else:
        out['y_pred'] = est.predict(X)
        out['p_true'] = np.nan
        out['logloss'] = np.nan
    out['correct'] = (out.y_pred.to_numpy() == y).astype('int8')
    return out[['instance', 'y_true', 'y_pred', 'correct', 'p_true', 'logloss'] + [c for c in out if c.startswith('proba_')]]

@pytest.mark.parametrize('portfolio', ['quick', 'fabra18'])
def test_one_pass_predictions_identical_to_old(wine, portfolio, request):
    from functools import partial
    new = (request.getfixturevalue('fabra_wine') if portfolio == 'fabra18' else
           cv_predictions(wine, portfolio, n_splits=3, progress=False, proba=True))
    old = map_folds(partial(_old_predict_fold, proba=True), wine, portfolio, n_splits=3, progress=False)
    pd.testing.assert_frame_equal(new, old, check_exact=True)

def test_argmax_allowlist_holds_for_every_registered_model():
    "For every member of every registered portfolio: predict_labels_proba's labels are exactly the pipeline's predict."
    from robustdiff.portfolio import PORTFOLIOS, REGRESSION_PORTFOLIOS, get_models, make_pipeline
    from robustdiff.responses import predict_labels_proba, predict_is_argmax
    rng = np.random.default_rng(0)
    d = load_sklearn('wine').subset(rng.permutation(178)[:120])
    Xte = load_sklearn('wine').X
    n_argmax = 0
    for pname in sorted(p for p in PORTFOLIOS if p not in REGRESSION_PORTFOLIOS.values()):   # classifiers
        for name, est in get_models(pname, random_state=0).items():
            pipe = make_pipeline(est, d).fit(d.X, d.y.to_numpy())
            lab, P = predict_labels_proba(pipe, Xte)
            np.testing.assert_array_equal(lab, pipe.predict(Xte), err_msg=f'{pname}/{name}')
            if P is not None: np.testing.assert_array_equal(P, pipe.predict_proba(Xte), err_msg=f'{pname}/{name}')
            if predict_is_argmax(pipe):
                n_argmax += 1
                np.testing.assert_array_equal(pipe.predict(Xte), pipe.classes_[np.argmax(pipe.predict_proba(Xte), 1)])
    assert n_argmax >= 14   # rf, PART, JRip, the Platt SVMs, ... take the one-pass path

ORDER = []
def _order_fn(ctx):
    ORDER.append(ctx.model)
    return pd.DataFrame({'n': [len(ctx.test)]})

def test_longest_expected_first_but_output_in_portfolio_order(wine):
    from sklearn.tree import DecisionTreeClassifier
    from sklearn.ensemble import RandomForestClassifier
    ORDER.clear()
    out = map_folds(_order_fn, wine, {'cart': DecisionTreeClassifier(), 'rf': RandomForestClassifier(5)}, n_splits=2,
                    progress=False, n_jobs=1)
    assert ORDER == ['rf', 'rf', 'cart', 'cart']            # the forest (higher cost prior) was started first
    assert out.model.tolist() == ['cart', 'cart', 'rf', 'rf'] and out.fold.tolist() == [0, 1, 0, 1]
