"""PyHard 2.2.4's IH replayed: its unseeded SMOTE() draws from numpy's global stream; `resampling_stream` replays it.

The fixtures in tests/data/pyhard_ih were written by PyHard itself (tests/data/pyhard_ih/make_reference.py: PyHard 2.2.4
with its own pins, scikit-learn 1.5.2, imbalanced-learn 0.12.4, `np.random.seed(0)` before `run_all`); PyHard is
not needed here."""
from pathlib import Path
import numpy as np, pandas as pd, pytest
from sklearn.datasets import load_breast_cancer
from sklearn.base import clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import NearestNeighbors
from sklearn.preprocessing import StandardScaler
from robustdiff.data import Dataset
from robustdiff.ih import instance_hardness, smote, random_undersample
from robustdiff.portfolio import get_models
from robustdiff.responses import cv_splits, _fold_seed

REF = Path(__file__).parent / 'data' / 'pyhard_ih'


@pytest.fixture(scope='module')
def bc():
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    return Dataset('breast_cancer', X, y.to_numpy())          # PyHard's input: sklearn's 0 = malignant, 1 = benign


def test_stream_replays_pyhards_smote_rows(bc):
    "Two of PyHard's classifiers (run_all sorts them: logistic_regression, then svc_linear) on SMOTE'd folds, global seed 0."
    ref = pd.read_csv(REF / 'breast_cancer_lr_svclinear_seed0.csv.gz')
    pool = get_models('pyhard7')
    models = {'svc_linear': pool['svc_linear'], 'logistic_regression': pool['logistic_regression']}   # not in PyHard's order on purpose
    ours = instance_hardness(bc, models=models, preset='pyhard', random_state=0, resampling_stream=np.random.RandomState(0))
    assert ours.resampled == 'over'
    W = ours.wide_losses('p_true')
    for m in models: np.testing.assert_allclose(W[m].to_numpy(), ref[m].to_numpy(), rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours.ih.to_numpy(), ref.IH.to_numpy(), rtol=0, atol=1e-12)
    # the old behaviour (each fold's SMOTE from its own fold seed) does not give PyHard's rows: the check can fail
    old = instance_hardness(bc, models=models, preset='pyhard', random_state=0)
    assert np.abs(old.ih.to_numpy() - ref.IH.to_numpy()).max() > 1e-3
    # another global seed is another PyHard run
    other = instance_hardness(bc, models=models, preset='pyhard', random_state=0, resampling_stream=np.random.RandomState(1))
    assert np.abs(other.ih.to_numpy() - ref.IH.to_numpy()).max() > 1e-3


def test_stream_is_not_advanced_and_n_jobs_free(bc):
    pool = get_models('pyhard7')
    models = {'logistic_regression': pool['logistic_regression']}
    rs = np.random.RandomState(5); before = rs.get_state()[1].copy()
    a = instance_hardness(bc, models=models, preset='pyhard', resampling_stream=rs)
    np.testing.assert_array_equal(rs.get_state()[1], before)                       # the caller's stream is left as it was
    b = instance_hardness(bc, models=models, preset='pyhard', resampling_stream=rs, n_jobs=2)
    pd.testing.assert_series_equal(a.ih, b.ih)


def test_resampling_stream_rejects_a_seed_or_generator(bc):
    for bad in (0, np.random.default_rng(0)):
        with pytest.raises(TypeError, match='resampling_stream must be a numpy RandomState'):
            instance_hardness(bc, models='quick', preset='pyhard', resampling_stream=bad)


def _smote_stream_by_hand(X, y, rs):
    "imbalanced-learn SMOTE(random_state=rs) with a RandomState: `_make_samples` draws every class from the same stream."
    out_X, out_y = [X], [y]
    classes, counts = np.unique(y, return_counts=True)
    for c, n_c in zip(classes, counts):
        n_new = counts.max() - n_c
        if n_new == 0 or c == classes[np.argmax(counts)]: continue
        Xc = X[y == c]
        nns = NearestNeighbors(n_neighbors=6).fit(Xc).kneighbors(Xc, return_distance=False)[:, 1:]
        idx = rs.randint(low=0, high=nns.size, size=n_new)
        steps = rs.uniform(size=n_new)[:, None]
        r, k = idx // 5, idx % 5
        out_X.append(Xc[r] + steps * (Xc[nns[r, k]] - Xc[r])); out_y.append(np.full(n_new, c))
    return np.vstack(out_X), np.concatenate(out_y)


def test_smote_with_a_stream_continues_it_across_classes_and_calls():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], [40, 15, 10]); X = rng.normal(size=(65, 3)) + y[:, None]
    rs, hand = np.random.RandomState(7), np.random.RandomState(7)
    for _ in range(2):                                                             # two calls: the second goes on where the first stopped
        Xr, yr = smote(X, y, random_state=rs)
        Xh, yh = _smote_stream_by_hand(X, y, hand)
        np.testing.assert_allclose(Xr, Xh, rtol=0, atol=1e-12); np.testing.assert_array_equal(yr, yh)
    seeded = smote(X, y, random_state=7)[0]                                        # an int seed: a fresh RandomState per class
    assert not np.allclose(seeded[55:], smote(X, y, random_state=np.random.RandomState(7))[0][55:])
    np.testing.assert_allclose(seeded[65:90], smote(X, y, random_state=np.random.RandomState(7))[0][65:90])   # the first grown class alike
    with pytest.raises(TypeError, match='int seed or a numpy RandomState'):
        smote(X, y, random_state=np.random.default_rng(0))


def test_undersample_with_a_stream_continues_it():
    y = np.repeat([0, 1, 2], [30, 20, 10]); X = np.arange(60.)[:, None]
    rs = np.random.RandomState(3)
    Xa, _ = random_undersample(X, y, random_state=rs); Xb, _ = random_undersample(X, y, random_state=rs)
    assert not np.array_equal(Xa, Xb)                                              # the stream moved on
    hand = np.random.RandomState(3)
    k0 = hand.choice(range(30), size=10, replace=False); k1 = hand.choice(range(20), size=10, replace=False)
    np.testing.assert_array_equal(Xa[:, 0], np.r_[k0, 30 + k1, np.arange(50, 60)])


def test_mlp_matches_pyhard_given_pyhards_class_coding(bc):
    "The MLP's gap 'even without resampling' is the class coding: with PyHard's 0/1 labels its probabilities are PyHard's."
    ref = pd.read_csv(REF / 'breast_cancer_noresampling.csv.gz')
    models = {'mlp': get_models('pyhard7')['mlp']}
    ours = instance_hardness(bc, models=models, random_state=0).wide_losses('p_true').mlp.to_numpy()
    np.testing.assert_allclose(ours, ref.mlp.to_numpy(), rtol=0, atol=1e-10)
    names = Dataset('breast_cancer', bc.X, np.where(bc.y.to_numpy() == 0, 'malignant', 'benign'))   # 'benign' < 'malignant': the order flips
    flipped = instance_hardness(names, models=models, random_state=0).wide_losses('p_true').mlp.to_numpy()
    assert np.abs(flipped - ref.mlp.to_numpy()).max() > 0.1


# ---- `preset='pyhard'` against PyHard's resampling path written out by hand ------------------------------------
def _smote_by_hand(X, y, seed):
    """imbalanced-learn SMOTE(k_neighbors=5, random_state=seed)._fit_resample, followed line by line.
    `_make_samples` calls `check_random_state(self.random_state)` itself, so every class draws from a fresh
    RandomState(seed) (checked against imbalanced-learn 0.14.2 outside this suite: identical rows, 2 and 3 classes)."""
    target_stats = dict(zip(*np.unique(y, return_counts=True)))
    n_sample_majority = max(target_stats.values())
    class_majority = max(target_stats, key=target_stats.get)
    sampling_strategy = {k: n_sample_majority - v for k, v in sorted(target_stats.items()) if k != class_majority}
    X_resampled, y_resampled = [X.copy()], [y.copy()]
    for class_sample, n_samples in sampling_strategy.items():
        if n_samples == 0: continue
        target_class_indices = np.flatnonzero(y == class_sample)
        X_class = X[target_class_indices]
        nn_k_ = NearestNeighbors(n_neighbors=6).fit(X_class)
        nns = nn_k_.kneighbors(X_class, return_distance=False)[:, 1:]
        # _make_samples(X_class, y.dtype, class_sample, X_class, nns, n_samples, 1.0)
        random_state = np.random.RandomState(seed)          # check_random_state(self.random_state), per call
        samples_indices = random_state.randint(low=0, high=nns.size, size=n_samples)
        steps = 1.0 * random_state.uniform(size=n_samples)[:, np.newaxis]
        rows = np.floor_divide(samples_indices, nns.shape[1])
        cols = np.mod(samples_indices, nns.shape[1])
        diffs = X_class[nns[rows, cols]] - X_class[rows]
        X_new = X_class[rows] + steps * diffs
        X_resampled.append(X_new)
        y_resampled.append(np.full(n_samples, fill_value=class_sample, dtype=y.dtype))
    return np.vstack(X_resampled), np.hstack(y_resampled)


def _pyhard_ih_by_hand(ds, models, random_state=0, n_folds=5):
    "ClassifiersPool.run of PyHard 2.2.4 (resampling='over'), one iteration, on our folds and fold seeds."
    y_all = ds.y.to_numpy()
    counts = pd.Series(y_all).value_counts()
    imbalanced = not (counts.max() / counts.min()) <= 1.5           # validator.are_classes_balanced(ir_tol=1.5)
    proba = {name: np.zeros(len(y_all)) for name in models}
    for repeat, fold, train, test in cv_splits(ds, n_splits=n_folds, n_repeats=1, random_state=random_state):
        X_train_, y_train = ds.X.to_numpy(float)[train], y_all[train]
        X_test_ = ds.X.to_numpy(float)[test]
        if imbalanced:
            seed = int(_fold_seed(random_state, repeat, fold).generate_state(1)[0])
            X_train_, y_train = _smote_by_hand(X_train_, y_train, seed)
        scaler = StandardScaler()
        X_train = scaler.fit_transform(X_train_)
        X_test = scaler.transform(X_test_)
        for name, est in models.items():
            clf = CalibratedClassifierCV(estimator=clone(est), method='sigmoid', cv=3, ensemble=False)
            clf.fit(X_train, y_train)
            y_pred = clf.predict_proba(X_test)
            proba[name][test] = y_pred[np.arange(len(test)), np.searchsorted(clf.classes_, y_all[test])]
    return 1 - pd.DataFrame(proba).mean(axis=1), imbalanced


@pytest.mark.parametrize('weights', [(0.75, 0.25), (0.55, 0.3, 0.15)])
def test_pyhard_preset_ih_is_pyhards_resampling_path(weights):
    rng = np.random.default_rng(len(weights))
    n = 90
    y = rng.choice(len(weights), n, p=weights)
    X = pd.DataFrame(rng.normal(size=(n, 3)) + y[:, None] * [1.0, 0.5, 0.0], columns=['a', 'b', 'c']) * [1, 10, 100]
    ds = Dataset('imbalanced', X, y)
    from robustdiff.portfolio import needs_prep
    models = {'lr': needs_prep(LogisticRegression(random_state=0)), 'nb': needs_prep(GaussianNB())}   # scaled, as PyHard does
    ours = instance_hardness(ds, models=models, preset='pyhard', random_state=0)
    ref, imbalanced = _pyhard_ih_by_hand(ds, models)
    assert imbalanced and ours.resampled == 'over'
    np.testing.assert_allclose(ours.ih.to_numpy(), ref.to_numpy(), rtol=0, atol=1e-10)
    plain = instance_hardness(ds, models=models, preset='paper', random_state=0)
    assert plain.resampled == 'none' and np.abs(plain.ih.to_numpy() - ref.to_numpy()).max() > 1e-3   # the check can fail


def test_pyhard_preset_rejects_nominal_features_before_fitting():
    X = pd.DataFrame({'a': np.arange(60.), 'b': pd.Categorical(list('xy') * 30)})
    ds = Dataset('nominal', X, np.r_[np.zeros(45, int), np.ones(15, int)], ('b',))
    with pytest.raises(ValueError, match="nominal columns \\['b'\\]"):
        instance_hardness(ds, models='quick', preset='pyhard')
    assert instance_hardness(ds, models='quick', preset='pyhard', resampling='under').resampled == 'under'
