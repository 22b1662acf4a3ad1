"Integration and bad-input tests of robustdiff.portfolio: every model of every portfolio on a small multi-class set with a nominal feature."
import pickle, warnings
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.base import clone
from sklearn.naive_bayes import GaussianNB
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier
from sklearn.svm import SVC

from robustdiff.data import from_frame
from robustdiff.portfolio import PORTFOLIOS, REGRESSION_PORTFOLIOS, get_models, make_pipeline, register_portfolio
from robustdiff.estimators import (FDAClassifier, PLSDAClassifier, RDAClassifier, LVQClassifier, C45TreeClassifier,
                                   RPartClassifier, CITreeClassifier, PARTClassifier, RBFNetworkClassifier,
                                   RuleEnsembleClassifier, PukKernel, GaussianNBFloor)
from robustdiff.ripper import RipperClassifier
from robustdiff.datasets import load_pmlb
from robustdiff.responses import cv_predictions

from robustdiff.c45 import C45Classifier
CUSTOM = [FDAClassifier, PLSDAClassifier, RDAClassifier, LVQClassifier, C45TreeClassifier, RPartClassifier,
          CITreeClassifier, PARTClassifier, RBFNetworkClassifier, RuleEnsembleClassifier, RipperClassifier, GaussianNBFloor,
          C45Classifier]


def _frame(n=180, seed=0):
    "3 classes (string labels), two numeric columns, one nominal column correlated with the class."
    rng = np.random.default_rng(seed)
    y = np.repeat(['low', 'mid', 'high'], n // 3)
    k = np.repeat([0, 1, 2], n // 3)
    df = pd.DataFrame({'x1': rng.normal(size=n) + 2.0 * (k == 1), 'x2': rng.normal(size=n) + 2.0 * (k == 2),
                       'colour': pd.Categorical(np.where(rng.random(n) < .6, np.array(['red', 'green', 'blue'])[k],
                                                         rng.choice(['red', 'green', 'blue'], n))),
                       'label': y})
    return df.sample(frac=1, random_state=1).reset_index(drop=True)


@pytest.fixture(scope='module')
def data():
    ds = from_frame(_frame(), target='label')
    assert ds.nominal == ('colour',) and set(ds.numeric) == {'x1', 'x2'}
    return ds


REGRESSION = tuple(REGRESSION_PORTFOLIOS.values())   # portfolios of regressors (tested below)
ALL_MODELS = [(spec, name) for spec in sorted(PORTFOLIOS) if spec != 'ladder' and spec not in REGRESSION
              for name in get_models(spec)]   # the ladder's respondents are weak on purpose (tests/test_respondents.py)
REGRESSORS = [(spec, name) for spec in ('regressors', 'quick_regressors') for name in get_models(spec, task='regression')]


@pytest.mark.parametrize('spec,name', REGRESSORS, ids=[f"{s}-{n}" for s, n in REGRESSORS])
def test_every_regressor_beats_the_median(spec, name):
    "Each bundled regressor, behind the package's preprocessing, predicts held-out rows of a real table better than their training median."
    from sklearn.datasets import load_diabetes
    from robustdiff.data import Dataset
    X, y = load_diabetes(return_X_y=True, as_frame=True)
    ds = Dataset('diabetes', X, y.to_numpy(), task='regression')
    est = get_models(spec, random_state=0, task='regression')[name]
    tr, te = np.arange(0, 442, 2), np.arange(1, 442, 2)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        pred = make_pipeline(est, ds).fit(ds.X.iloc[tr], ds.y.iloc[tr]).predict(ds.X.iloc[te])
    y_te = ds.y.iloc[te].to_numpy()
    assert np.shape(np.squeeze(pred)) == (len(te),) and np.isfinite(pred).all()
    assert np.abs(np.squeeze(pred) - y_te).mean() < np.abs(np.median(ds.y.iloc[tr]) - y_te).mean()


@pytest.mark.parametrize('spec,name', ALL_MODELS, ids=[f"{s}-{n}" for s, n in ALL_MODELS])
def test_every_model_fits_and_predicts(data, spec, name):
    est = get_models(spec, random_state=0)[name]
    tr, te = np.arange(120), np.arange(120, 180)      # the frame is shuffled
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')      # convergence warnings of small fits
        pipe = make_pipeline(est, data).fit(data.X.iloc[tr], data.y.iloc[tr])
        proba = pipe.predict_proba(data.X.iloc[te])
        pred = pipe.predict(data.X.iloc[te])
    assert list(pipe.classes_) == ['high', 'low', 'mid']
    assert proba.shape == (len(te), 3) and np.all(proba >= 0)
    np.testing.assert_allclose(proba.sum(1), 1, atol=1e-9)
    assert set(pred) <= set(pipe.classes_)
    acc = (pred == data.y.iloc[te].to_numpy()).mean()
    assert acc > 0.5, f"{spec}/{name}: hold-out accuracy {acc:.2f} (chance 0.33)"
    pickle.loads(pickle.dumps(pipe)).predict(data.X.iloc[te[:5]])      # joblib workers need picklable fits


@pytest.mark.parametrize('name', list(get_models('fabra18')))
def test_fabra18_same_seed_same_result(data, name):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        p1, p2 = (make_pipeline(get_models('fabra18', random_state=3)[name], data).fit(data.X, data.y).predict_proba(data.X)
                  for _ in range(2))
    np.testing.assert_array_equal(p1, p2)


def test_unseen_category_at_predict_time(data):
    pipe = make_pipeline(GaussianNB(), data).fit(data.X, data.y)
    X = data.X.iloc[:3].copy()
    X['colour'] = pd.Categorical(['purple', 'red', 'purple'])
    assert pipe.predict_proba(X).shape == (3, 3)


def test_preprocessing_is_fitted_on_the_training_rows_only(data):
    pipe = make_pipeline(GaussianNB(), data).fit(data.X.iloc[:50], data.y.iloc[:50])
    np.testing.assert_allclose(pipe.named_steps['prep'].named_transformers_['numeric'].mean_,
                               data.X.iloc[:50][list(data.numeric)].mean())


def test_make_pipeline_returns_an_unfitted_clone(data):
    est = DecisionTreeClassifier()
    pipe = make_pipeline(est, data)
    assert pipe.named_steps['model'] is not est
    assert not hasattr(pipe.named_steps['model'], 'tree_')


def test_get_models_clones_and_seeds_nested():
    from sklearn.calibration import CalibratedClassifierCV
    mine = {'svm': CalibratedClassifierCV(SVC(), ensemble=False), 'tree': DecisionTreeClassifier()}
    m1, m2 = get_models(mine, random_state=11), get_models(mine, random_state=11)
    assert m1['svm'].estimator.random_state == 11 and m1['tree'].random_state == 11
    assert m1['tree'] is not m2['tree'] and mine['tree'].random_state is None
    assert all(est.random_state == 5 for est in get_models('fabra18', random_state=5).values() if hasattr(est, 'random_state'))


def test_register_a_user_portfolio():
    register_portfolio('_test_mine', lambda: {'nb': GaussianNB()})
    try:
        assert list(get_models('_test_mine')) == ['nb']
        with pytest.raises(ValueError, match='already registered'):
            register_portfolio('_test_mine', lambda: {})
        register_portfolio('_test_mine', lambda: {'t': DecisionTreeClassifier()}, overwrite=True)
        assert list(get_models('_test_mine')) == ['t']
    finally:
        PORTFOLIOS.pop('_test_mine')


# ---------------------------------------------------------------- bad input
def test_unknown_portfolio_name_lists_the_known_ones():
    with pytest.raises(ValueError, match=r"unknown portfolio 'fabra19'.*ela2, fabra18, ladder, pyhard7, quick"):
        get_models('fabra19')


@pytest.mark.parametrize('bad,msg', [
    (StandardScaler(), r"'bad' \(StandardScaler\) is not a classifier"),
    (GaussianNB, r"'bad' is a class \(GaussianNB\)"),
    ('svm', r"'bad' \(str\) is not a scikit-learn estimator"),
])
def test_non_classifier_in_portfolio(bad, msg):
    with pytest.raises(TypeError, match=msg):
        get_models({'ok': GaussianNB(), 'bad': bad})
    with pytest.raises(TypeError):
        make_pipeline(bad, from_frame(_frame(), target='label'))


def test_duplicate_empty_and_malformed_portfolios():
    with pytest.raises(ValueError, match="duplicate model name 'a'"):
        get_models([('a', GaussianNB()), ('a', DecisionTreeClassifier())])
    with pytest.raises(ValueError, match='empty'):
        get_models([])
    with pytest.raises(TypeError, match=r'\(name, estimator\) pairs'):
        get_models([GaussianNB()])
    with pytest.raises(TypeError, match='non-empty str'):
        get_models({1: GaussianNB()})
    with pytest.raises(TypeError, match='portfolio must be'):
        get_models(42)
    with pytest.raises(TypeError, match='random_state'):
        get_models('quick', random_state='seed')
    with pytest.raises(TypeError, match='callable'):
        register_portfolio('x', 'not a factory')


def test_make_pipeline_needs_a_dataset():
    with pytest.raises(TypeError, match=r'\.numeric'):
        make_pipeline(GaussianNB(), pd.DataFrame({'a': [1.0]}))


@pytest.mark.parametrize('cls', CUSTOM, ids=lambda c: c.__name__)
def test_custom_estimators_reject_bad_input(cls):
    X = np.random.default_rng(0).normal(size=(40, 3)); y = np.repeat([0, 1], 20)
    with pytest.raises(ValueError, match='one class'):
        cls().fit(X, np.zeros(40))
    Xn = X.copy(); Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match='NaN'):
        cls().fit(Xn, y)
    Xi = X.copy(); Xi[0, 0] = np.inf
    with pytest.raises(ValueError, match='infinity'):
        cls().fit(Xi, y)
    with pytest.raises(ValueError, match='inconsistent numbers of samples'):
        cls().fit(X, y[:-1])
    fitted = cls().fit(X, y)
    with pytest.raises(ValueError, match='features'):
        fitted.predict(X[:, :2])
    from sklearn.exceptions import NotFittedError
    with pytest.raises(NotFittedError):
        cls().predict(X)


@pytest.mark.parametrize('make,msg', [
    (lambda: RDAClassifier(reg_lambda=2), r'\[0, 1\]'), (lambda: LVQClassifier(variant='glvq'), 'variant'),
    (lambda: C45TreeClassifier(cf=0.9), 'cf'), (lambda: RPartClassifier(cp=-1), 'cp'),
    (lambda: CITreeClassifier(alpha=1.5), 'alpha'), (lambda: LVQClassifier(n_iter=-1), 'n_iter'),
    (lambda: RipperClassifier(folds=1), 'folds'), (lambda: RipperClassifier(optimizations=-1), 'optimizations'),
    (lambda: GaussianNBFloor(floor=-0.1), 'floor'), (lambda: GaussianNBFloor(var_smoothing=np.inf), 'var_smoothing'),
    (lambda: GaussianNBFloor(alpha=0), 'alpha'), (lambda: GaussianNBFloor(binary='kernel'), 'binary'),
    (lambda: PARTClassifier(confidence=0.9), 'confidence'), (lambda: PARTClassifier(min_leaf=0), 'min_leaf'),
    (lambda: C45Classifier(confidence=0), 'confidence'), (lambda: C45Classifier(min_leaf=1.5), 'min_leaf'),
])
def test_custom_estimators_reject_bad_parameters(make, msg):
    X = np.random.default_rng(0).normal(size=(40, 3)); y = np.repeat([0, 1], 20)
    with pytest.raises(ValueError, match=msg):
        make().fit(X, y)


def test_puk_kernel_rejects_bad_parameters():
    with pytest.raises(ValueError, match='> 0'):
        PukKernel(sigma=-1)


def test_jrip_is_ripper_on_every_training_row(data):
    "fabra18's JRip is the native RIPPER (more in test_ripper.py) and uses every training row (no cap)."
    est = get_models('fabra18', random_state=0)['JRip']
    assert isinstance(est, RipperClassifier) and est.random_state == 0
    Xt = make_pipeline(GaussianNB(), data).named_steps['prep'].fit_transform(data.X)
    j = clone(est).fit(Xt, data.y)
    assert j.rule_counts_.sum() == len(data.y)          # every training row behind exactly one rule's distribution
    assert (j.predict(Xt) == data.y.to_numpy()).mean() > 0.6


def test_fabra18_nb_beats_the_majority_class_on_yeast():
    "yeast's erl/pox are constant within classes: GaussianNB falls below the majority rate, fabra18's nb (sd floor) does not."
    ds = load_pmlb('yeast')
    majority = ds.y.value_counts(normalize=True).max()
    nb = get_models('fabra18')['nb']
    assert isinstance(nb, GaussianNBFloor)
    acc = cv_predictions(ds, {'nb': nb, 'gnb': GaussianNB()}, progress=False).groupby('model').correct.mean()
    assert acc['gnb'] < majority - 0.1                  # the failure the floor fixes (0.14 vs 0.31)
    assert acc['nb'] > majority + 0.15, acc.to_dict()   # Weka's NaiveBayes: 0.57 on the same folds


def test_nb_floor_bounds_the_penalty_of_an_unseen_value():
    "A feature constant in one class: another value costs (6 · gap / precision)² / 2 nats, not ~1e8."
    X = np.array([[0.0, 0.1], [0.0, 0.5], [0.0, 0.9], [2.0, 0.2], [4.0, 0.6], [2.0, 0.7]]); y = [0, 0, 0, 1, 1, 1]
    m = GaussianNBFloor().fit(X, y)                      # feature 0: values 0, 2, 4 → precision 2, floor 1/3
    jll = m._joint_log_likelihood(np.array([[0.0, 0.5], [2.0, 0.5], [4.0, 0.5]]))
    np.testing.assert_allclose(jll[0, 0] - jll[1:, 0], [18.0, 72.0])
    assert np.isfinite(m.predict_log_proba(np.array([[100.0, 0.5]]))).all()


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**16), scale=st.floats(1e-3, 1e3), shift=st.floats(-100, 100), levels=st.integers(2, 5))
def test_nb_floor_is_affine_invariant(seed, scale, shift, levels):
    "Precision, variances and floor scale together: x → a·x + b on every column changes no probability."
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1, 2], 20)
    X = np.column_stack([rng.integers(0, levels, 60) * (y > 0), rng.normal(size=60) + y, rng.integers(0, 3, 60)]).astype(float)
    p = GaussianNBFloor(binary='gaussian').fit(X, y).predict_proba(X)
    q = GaussianNBFloor(binary='gaussian').fit(X * scale + shift, y).predict_proba(X * scale + shift)
    np.testing.assert_allclose(p, q, atol=1e-6)


def test_weka_members_are_the_weka_ports():
    "fabra18's PART and ela2's C4.5 are the Weka ports (robustdiff.c45; identity with Weka in test_c45_weka.py)."
    from robustdiff.c45 import PARTClassifier as WekaPART
    part, c45 = get_models('fabra18', random_state=0)['PART'], get_models('ela2', random_state=0)['C4.5']
    assert type(part) is WekaPART and PARTClassifier is WekaPART
    assert type(c45) is C45Classifier and (c45.confidence, c45.min_leaf, c45.unpruned) == (0.25, 2, False)
    X = np.random.default_rng(3).normal(size=(600, 4)); y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int) + (X[:, 2] > 1)
    p = clone(part).fit(X, y)
    assert p.rules_[-1][0] == [] and sum(c.sum() for _, c in p.rules_) == len(y)   # every row behind exactly one rule
    assert (p.predict(X) == y).mean() > 0.9 and (clone(c45).fit(X, y).predict(X) == y).mean() > 0.9
