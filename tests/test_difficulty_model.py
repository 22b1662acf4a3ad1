"""Tests for robustdiff.difficulty_model (issue 3): the [MP22] difficulty estimator and its applications.

Tolerances: the toy difficulty is a known function of two features, fitted back through a 1PL response matrix of
60 models, so its observed difficulty carries IRT noise (se ≈ 0.3); a good estimator still ranks it with ρ > 0.8.
The shift alarm is a one-sided test at α = 0.01: over 300 clean batches its false-alarm rate must stay below 0.04
(binomial upper tail), and flipping a quarter of the answers must be caught almost always.
"""
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from scipy.stats import spearmanr
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.dummy import DummyRegressor

from robustdiff.irt import irt_probability, difficulty
from robustdiff.difficulty_model import (DifficultyEstimator, difficulty_cv, get_regressor, REGRESSORS, nrmse,
                                         importance_table, class_difficulty, accuracy_by_difficulty, shift_alarm,
                                         estimate_ability)
from robustdiff.difficulty_model import CaretTrain, CaretGlmnet, _caret_grid, _glmnet_lambdas

def _toy(n=800, n_models=60, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({'x0': rng.normal(size=n), 'x1': rng.normal(size=n), 'noise': rng.normal(size=n),
                      'kind': pd.Categorical(rng.choice(['a', 'b'], n))})
    b = 1.5 * X.x0 - X.x1 + (X.kind == 'b')
    theta = rng.normal(0, 1, n_models)
    U = pd.DataFrame((rng.random((n_models, n)) < irt_probability(theta[:, None], b.to_numpy()[None, :])).astype('int8'))
    return X, b, U

@pytest.fixture(scope='module')
def toy():
    X, b, U = _toy()
    return X, b, U, difficulty(U)

def test_estimator_predicts_unseen_instances(toy):
    X, b, U, d = toy
    tr, te = d.index[:500], d.index[500:]
    est = DifficultyEstimator('rf').fit(X.loc[tr], d.loc[tr])
    p = est.predict(X.loc[te])
    assert p.shape == (len(te),) and np.isfinite(p).all()
    assert spearmanr(p, d.loc[te])[0] > 0.8
    # unseen rows with columns in another order give the same predictions
    np.testing.assert_allclose(est.predict(X.loc[te, ::-1]), p)

def test_cv_shape_metrics_and_n_jobs_invariance(toy):
    X, b, U, d = toy
    cv1 = difficulty_cv(X, d, regressor='rf', n_jobs=1, random_state=3)
    cv2 = difficulty_cv(X, d, regressor='rf', n_jobs=2, random_state=3)
    pd.testing.assert_frame_equal(cv1.predictions, cv2.predictions)
    assert len(cv1.predictions) == 2 * len(d) and set(cv1.predictions.repeat) == {0, 1}
    assert sorted(cv1.predictions[cv1.predictions.repeat == 0].instance) == sorted(d.index)
    sc = cv1.scores
    assert len(sc) == 10 and (sc.nrmse < 1).all()
    # NRMSE is RMSE over the sd of *all* observed difficulties, as in the authors' code
    one = cv1.predictions[(cv1.predictions.repeat == 0) & (cv1.predictions.fold == 0)]
    assert np.isclose(sc.nrmse.iloc[0], np.sqrt(np.mean((one.observed - one.predicted) ** 2)) / d.std(ddof=1))
    assert cv1.summary().spearman > 0.8

@pytest.mark.parametrize('reg', REGRESSORS)
def test_every_named_regressor_beats_the_mean(toy, reg):
    X, b, U, d = toy
    s = difficulty_cv(X, d, regressor=reg, n_repeats=1).summary()
    assert s.nrmse < 0.9 and s.spearman > 0.5

def test_constant_predictor_has_zero_rho(toy):
    X, b, U, d = toy
    s = difficulty_cv(X, d, regressor=DummyRegressor(), n_repeats=1).summary()
    assert s.spearman == 0.0 and abs(s.nrmse - 1) < 0.05

def test_bad_input():
    X, b, U = _toy(100, 20)
    with pytest.raises(TypeError, match='not a scikit-learn regressor'):
        DifficultyEstimator(LogisticRegression()).fit(X, b)
    with pytest.raises(ValueError, match='unknown regressor'):
        get_regressor('svm')
    with pytest.raises(ValueError, match='NaN'):
        DifficultyEstimator().fit(X, b.where(b > 0))                   # NaN difficulties
    with pytest.raises(ValueError, match='not rows of X'):
        DifficultyEstimator().fit(X, pd.Series(b.to_numpy(), index=b.index + 1000))
    with pytest.raises(ValueError, match='at least 10'):
        DifficultyEstimator().fit(X, b.iloc[:5])
    with pytest.raises(ValueError, match='n_splits'):
        difficulty_cv(X, b, n_splits=1)
    with pytest.raises(ValueError, match='zero variance'):
        nrmse([1, 1, 1], [1, 2, 3])
    assert type(get_regressor(Ridge())).__name__ == 'Ridge'

def test_importance_separates_hardness_from_class(toy):
    X, b, U, d = toy
    y = np.where(X.noise > 0, 'up', 'down')
    imp = importance_table(X, d, y=y)
    est = imp[imp.model == 'difficulty estimator'].set_index('feature').importance
    clf = imp[imp.model == 'task classifier'].set_index('feature').importance
    assert np.isclose(est.sum(), 1) and np.isclose(clf.sum(), 1)
    assert est.idxmax() == 'x0' and clf.idxmax() == 'noise'
    perm = importance_table(X, d, kind='permutation')
    assert set(perm.feature) == set(X.columns)
    with pytest.raises(ValueError, match='kind'):
        importance_table(X, d, kind='shap')

def test_class_difficulty_and_scc(toy):
    X, b, U, d = toy
    cd = class_difficulty(X.kind, observed=d, true=b)
    m = cd[cd.source == 'true'].set_index('class')['mean']
    assert m['b'] > m['a']
    assert cd.groupby('source').n.sum().to_dict() == {'observed': len(d), 'true': len(b)}
    acc = accuracy_by_difficulty(U, d, bins=5)
    assert len(acc) == U.shape[0] * 5 and acc.n.sum() == U.shape[0] * len(d)
    assert (acc.groupby('bin').accuracy.mean().diff().dropna() < 0).all()   # harder bins, lower accuracy
    with pytest.raises(ValueError, match='finite'):
        accuracy_by_difficulty(U, d.where(d > 0))
    with pytest.raises(ValueError, match='not columns'):
        accuracy_by_difficulty(U, pd.Series([0.0], index=[10 ** 6]))

def test_shift_alarm_rates():
    rng = np.random.default_rng(1)
    clean, shifted = [], []
    for _ in range(300):
        bb = rng.normal(0, 1.5, 150)
        u = (rng.random(150) < irt_probability(0.5, bb)).astype(int)
        clean.append(shift_alarm(u, 0.5, bb)['alarm'])
        shifted.append(shift_alarm(np.where(rng.random(150) < 0.25, 0, u), 0.5, bb)['alarm'])
    assert np.mean(clean) < 0.04 and np.mean(shifted) > 0.9
    r = shift_alarm(np.ones(50, int), 0.0, np.full(50, 3.0))     # all right on hard instances: Clever Hans side
    assert r['clever_hans'] and not r['alarm']

@settings(max_examples=20, deadline=None)
@given(st.floats(-3, 3), st.integers(0, 10 ** 6))
def test_estimate_ability_recovers_theta(theta, seed):
    rng = np.random.default_rng(seed)
    bb = rng.normal(0, 2, 3000)
    P = irt_probability(theta, bb)
    u = (rng.random(3000) < P).astype(int)
    se = 1 / np.sqrt((P * (1 - P)).sum())                       # ≈ 0.04–0.06 here
    # 5 standard errors (a 1-in-a-million miss per example) plus the weak prior's pull towards 0 (≤ 0.05 here)
    assert abs(estimate_ability(u, bb) - theta) < 5 * se + 0.05


# ---- the regressors as the [MP22] authors' caret code ran them -------------------------------------------------
def test_regressors_as_the_mp22_authors_ran_them():
    "Diffmodel.R: caret train(..., tuneLength = 1): ranger with 1000 trees, mtry = floor(p/3), min.node.size 5; kNN unscaled."
    rf = get_regressor('rf', tuning='authors')
    assert (rf.n_estimators, rf.max_features, rf.min_samples_split) == (1000, 1 / 3, 6)
    assert type(get_regressor('knn', tuning='authors')).__name__ == 'KNeighborsRegressor'
    assert get_regressor('gbm', tuning='authors').subsample == 0.5
    assert isinstance(get_regressor('glmnet', tuning='authors'), CaretGlmnet)
    assert isinstance(get_regressor('rf', tuning='caret'), CaretTrain)
    assert type(get_regressor('rf')).__name__ == 'RandomForestRegressor' and get_regressor('rf').max_features == 'sqrt'  # default kept
    with pytest.raises(ValueError, match='tuning must be one of'): get_regressor('rf', tuning='tuned')
    X = pd.DataFrame(np.random.default_rng(0).normal(size=(40, 3)), columns=list('abc'))
    with pytest.raises(ValueError, match='tuning must be one of'): difficulty_cv(X, X.a, regressor='rf', tuning='x')


def test_caret_default_grids_and_bootstrap_choice():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(80, 16)), rng.normal(size=80)
    assert [g['mtry'] for g in _caret_grid('rf', X, y)][:3] == [2, 9, 16]          # floor(seq(2, p, length = 3))
    assert [g['k'] for g in _caret_grid('knn', X, y)] == [5, 7, 9]
    lam = _glmnet_lambdas(X, y, 5)
    assert lam[0] > lam[-1] and lam[-1] / lam[0] == pytest.approx(1e-4)             # n > p: lambda.min.ratio = 1e-4
    ct = CaretTrain(method='knn', n_boot=4, random_state=1).fit(X, X[:, 0] + 0.1 * y)
    assert ct.resample_rmse_.shape == (4, 3)
    assert ct.best_params_ == ct.grid_[int(np.argmin(ct.resample_rmse_.mean(axis=0)))]
    a, b = CaretTrain(method='knn', n_boot=4, random_state=1).fit(X, X[:, 0]), CaretTrain(method='knn', n_boot=4, random_state=1).fit(X, X[:, 0])
    assert np.array_equal(a.resample_rmse_, b.resample_rmse_)                         # same seed, same choice
