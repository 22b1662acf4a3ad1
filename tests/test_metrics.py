"robustdiff.metrics: replicates equal the weighted score and scikit-learn's metrics (classes and numbers); target profile; baseline; break rate."
import numpy as np, pandas as pd, pytest
from sklearn.metrics import accuracy_score, balanced_accuracy_score, f1_score, roc_auc_score
from sklearn.metrics import mean_absolute_error, root_mean_squared_error, r2_score
from robustdiff.metrics import (target_profile, choose_metric, metric_score, metric_replicates, metric_replicates_many, baseline_score,
                                baseline_replicates, baseline_constant, break_rate)
from robustdiff._scores import CLASSIFICATION_METRICS, REGRESSION_METRICS, LOWER_IS_BETTER, better, check_metric


def _problem(K, n, seed):
    rng = np.random.default_rng(seed)
    cl = [f'k{k}' for k in range(K)]
    yt = np.array(cl)[rng.integers(0, K, n)]
    P = rng.dirichlet(np.ones(K), n) + rng.uniform(0, 1.5) * (yt[:, None] == np.array(cl))
    P = np.round(P / P.sum(1, keepdims=True), 2)
    P /= P.sum(1, keepdims=True)
    return cl, yt, np.array(cl)[P.argmax(1)], P


def _sk(m, yt, yp, P, w):
    K = P.shape[1]
    return dict(accuracy=lambda: accuracy_score(yt, yp, sample_weight=w),
                balanced_accuracy=lambda: balanced_accuracy_score(yt, yp, sample_weight=w),
                macro_f1=lambda: f1_score(yt, yp, average='macro', sample_weight=w),
                roc_auc=lambda: roc_auc_score(yt, P[:, 1] if K == 2 else P, multi_class='ovr', sample_weight=w))[m]()


@pytest.mark.parametrize('K', [2, 3, 5])
@pytest.mark.parametrize('metric', CLASSIFICATION_METRICS)
def test_replicates_equal_weighted_score_and_sklearn(K, metric):
    for seed in range(3):
        cl, yt, yp, P = _problem(K, 150, seed)
        rng = np.random.default_rng(seed + 10)
        W = rng.multinomial(150, np.full(150, 1 / 150), size=20).astype(np.float32)
        W[:, [np.flatnonzero(yt == c)[0] for c in cl]] += 1          # every class keeps some weight
        R = metric_replicates(metric, W, yt, yp, P, classes=cl, rows=7)       # several chunks
        assert R.shape == (20,)
        np.testing.assert_allclose(R, [metric_score(metric, yt, yp, P, classes=cl, weights=w) for w in W], atol=1e-12)
        np.testing.assert_allclose(R, [_sk(metric, yt, yp, P, w) for w in W], atol=1e-9)


def test_target_profile_imbalance_and_sentence():
    y = pd.Series(['no'] * 940 + ['yes'] * 60)
    p = target_profile(y)
    assert p['imbalanced'] and p['metric'] == 'balanced_accuracy' and not p['ordered']
    assert "6 %" in p['sentence'] and 'balanced accuracy' in p['sentence']
    m, why = choose_metric(y)
    assert m == 'balanced_accuracy' and 'yes' in why
    assert choose_metric(y, metric='accuracy')[0] == 'accuracy'
    assert '0.940' in target_profile(y, metric='accuracy')['sentence']           # asked for accuracy: the baseline it must beat is said
    assert choose_metric(['a', 'b'] * 30)[0] == 'accuracy'
    with pytest.raises(ValueError, match='roc_auc'):
        choose_metric(y, metric='AUC')


def test_ordered_detection():
    assert target_profile(pd.Series([3, 4, 5, 6, 7] * 10))['ordered']
    assert target_profile(pd.Categorical(['lo', 'hi'] * 5 + ['mid'], categories=['lo', 'mid', 'hi'], ordered=True))['ordered']
    assert target_profile(['low', 'medium', 'high'] * 10)['levels'] == ['low', 'medium', 'high']
    assert not target_profile(['red', 'green', 'blue'] * 10)['ordered']
    assert not target_profile([0, 1] * 10)['ordered']                    # two classes: no order worth saying


def test_baseline_is_the_constant_predictor():
    for K in (2, 4):
        cl, yt, _, _ = _problem(K, 200, 1)
        major = pd.Series(yt).value_counts().index[0]
        for m in CLASSIFICATION_METRICS:
            b = baseline_score(m, yt)
            assert b == pytest.approx(metric_score(m, yt, np.full(len(yt), major), np.full((len(yt), K), 1 / K), classes=cl))
            W = np.random.default_rng(0).poisson(1, (5, len(yt))) + 1.0
            R = baseline_replicates(m, W, yt, classes=cl)
            if m in ('balanced_accuracy', 'roc_auc'): np.testing.assert_allclose(R, b)   # constant whatever the weights


def test_break_rate_vs_flip_rate():
    "A constant predictor never flips; a model right on the hard cases breaks some answers — yet only it keeps answers right."
    y = np.array(['a'] * 80 + ['b'] * 20)
    const_clean = const_noisy = np.full(100, 'a')
    good_noisy = y.copy(); good_noisy[80:85] = 'a'
    assert (const_clean != const_noisy).mean() == 0 and (y != good_noisy).mean() > 0
    assert break_rate(y == y, good_noisy == y) == pytest.approx(0.05)
    assert break_rate(const_clean == y, const_noisy == y) == 0       # nothing breaks, but the metric under noise is the baseline
    assert metric_score('balanced_accuracy', y, const_noisy) == baseline_score('balanced_accuracy', y)
    assert metric_score('balanced_accuracy', y, good_noisy) > 0.8


def test_bad_input():
    with pytest.raises(ValueError, match='weights'):
        metric_score('accuracy', ['a', 'b'], ['a', 'b'], weights=[1])
    with pytest.raises(ValueError, match='shape'):
        metric_score('roc_auc', ['a', 'b', 'c'], ['a', 'b', 'c'], np.ones((3, 2)) / 2, classes=['a', 'b', 'c'])
    with pytest.raises(ValueError, match='at least 2'):
        target_profile(['x'] * 5)


_SK_REG = dict(mae=mean_absolute_error, rmse=root_mean_squared_error, r2=r2_score)


@pytest.mark.parametrize('metric', REGRESSION_METRICS)
def test_regression_replicates_equal_sklearn_weighted(metric):
    for seed in range(3):
        rng = np.random.default_rng(seed)
        yt = rng.lognormal(2, 0.7, 180)
        yp = yt * rng.uniform(0.7, 1.3, 180) + rng.normal(0, 1, 180)
        W = rng.multinomial(180, np.full(180, 1 / 180), size=25).astype(np.float32)
        R = metric_replicates(metric, W, yt, yp, rows=7)                  # several chunks
        np.testing.assert_allclose(R, [_SK_REG[metric](yt, yp, sample_weight=w) for w in W], rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(R, [metric_score(metric, yt, yp, weights=w) for w in W], rtol=1e-12)
        # several models and repeats at once: each repeat's errors pooled, as the metric of all the predictions together
        yp2 = yp + rng.normal(0, 2, 180)
        M = metric_replicates_many(metric, W[:3], yt, np.stack([np.c_[yp, yp2], np.c_[yt, yt]], 1))
        if metric != 'rmse':
            np.testing.assert_allclose(M[:, 0], [(_SK_REG[metric](yt, yp, sample_weight=w) + _SK_REG[metric](yt, yp2, sample_weight=w)) / 2
                                                for w in W[:3]], rtol=1e-9)
        np.testing.assert_allclose(M[:, 1], 1.0 if metric == 'r2' else 0.0, atol=1e-12)


def test_regression_baseline_median_and_mean():
    rng = np.random.default_rng(4)
    y = rng.exponential(5, 301)
    assert baseline_constant('mae', y) == np.median(y) and baseline_constant('rmse', y) == pytest.approx(y.mean())
    assert baseline_score('mae', y) == pytest.approx(mean_absolute_error(y, np.full(301, np.median(y))))
    assert baseline_score('rmse', y) == pytest.approx(root_mean_squared_error(y, np.full(301, y.mean())))
    assert baseline_score('r2', y) == pytest.approx(0.0, abs=1e-12)
    W = rng.poisson(1, (4, 301)).astype(float)
    np.testing.assert_allclose(baseline_replicates('mae', W, y), [mean_absolute_error(y, np.full(301, np.median(y)), sample_weight=w) for w in W])
    np.testing.assert_allclose(baseline_replicates('r2', W, y), [r2_score(y, np.full(301, y.mean()), sample_weight=w) for w in W], atol=1e-12)


def test_direction_and_task_refusals():
    assert LOWER_IS_BETTER == ('mae', 'rmse') and [better(m) for m in ('mae', 'rmse', 'r2', 'accuracy')] == ['lower', 'lower', 'higher', 'higher']
    y = pd.Series(np.linspace(0.5, 9.5, 40))
    assert choose_metric(y)[0] == 'mae' and 'numeric target' in choose_metric(y)[1]
    with pytest.raises(ValueError, match="'accuracy' is for classification"):
        choose_metric(y, metric='accuracy')
    with pytest.raises(ValueError, match="'mae' is for regression"):
        check_metric('mae', task='classification')
    with pytest.raises(ValueError, match='numbers'):
        metric_score('rmse', ['a', 'b'], [1.0, 2.0])
    with pytest.raises(ValueError, match='classification'):
        from robustdiff.metrics import expected_metric
        expected_metric('mae', np.ones((2, 1)), ['a', 'a'], ['a'])
    p = target_profile(y, tolerance=0.5)
    assert p['tolerance'] == 0.5 and 'within τ = 0.5' in p['sentence'] and 'median 5' in p['sentence']
