"""robustdiff.difficulty_model's applications on a simulated population, and a property of the ability estimate.

The estimator, `difficulty_cv`, the named regressors and their bad input are checked beside the code
(nbs/11_difficulty_model.ipynb). Here: importance, class difficulty and accuracy by difficulty on a toy whose
difficulty is a known function of two features, fitted back through a 1PL response matrix of 60 models; the shift
alarm, a one-sided test at α = 0.01: over 300 clean batches its false-alarm rate must stay below 0.04 (binomial
upper tail), and flipping a quarter of the answers must be caught almost always; ability recovery (hypothesis).
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

# the estimator, difficulty_cv, the named regressors and their bad input: unit checks in nbs/11_difficulty_model.ipynb

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
