"PyHard's resampling path written out by hand against `instance_hardness(preset='pyhard')`; PyISpace's area normaliser; reproduction tables."
import numpy as np, pandas as pd, pytest
from sklearn.base import clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import NearestNeighbors
from sklearn.preprocessing import StandardScaler
from robustdiff.data import Dataset
from robustdiff.ih import instance_hardness
from robustdiff.responses import cv_splits, _fold_seed


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


def test_area_norm_pyispace_is_pyispaces_formula():
    "Two unit squares 2 apart: hull area 4, PyISpace's space footprint (all instances good) area 2, density 441."
    from robustdiff.footprints import footprints
    g = np.linspace(0, 1, 21)
    sq = np.array([(x, y) for x in g for y in g])
    Z = np.vstack([sq, sq + [3, 0]])
    good = pd.DataFrame({'left': Z[:, 0] <= 1 + 1e-9, 'right': Z[:, 0] >= 3 - 1e-9})
    fp = footprints(Z, good, alpha_radius=0.08, min_samples=4, area_norm='pyispace')
    t = fp.table.set_index('model')
    space_area, space_density = 2.0, len(Z) / 2.0          # TRACE: out.space = TRACEbuild(Z, true(ninst, 1), opts)
    assert fp.space_area == pytest.approx(space_area, abs=1e-9)
    for m in ('left', 'right'):
        assert t.loc[m, 'area'] == pytest.approx(1.0, abs=1e-9)
        assert t.loc[m, 'area_norm'] == pytest.approx(t.loc[m, 'area'] / space_area, abs=1e-12)
        assert t.loc[m, 'density_norm'] == pytest.approx(t.loc[m, 'density'] / space_density, abs=1e-12)
    hull = footprints(Z, good, alpha_radius=0.08, min_samples=4).table.set_index('model')
    assert hull.loc['left', 'area_norm'] == pytest.approx(0.25, abs=1e-9)     # the two normalisers differ here


def test_reproduction_summary_is_computed_from_the_table():
    from robustdiff.repro import reproduction_table, summary_line, summary_counts
    paper = pd.DataFrame({'k': range(6), 'value': np.linspace(0, 1, 6)})
    ours = paper.assign(value=paper.value + [0, 0.01, -0.06, 0.05, 0.2, np.nan])
    t = reproduction_table(paper, ours, 'k', tolerance=0.05, causes=lambda r: 'x')
    assert summary_counts(t) == (3, 6) and summary_line(t, label='T') == 'T: 3 of 6 cells within ±0.05'
    assert t.cause.tolist() == ['', '', 'x', '', 'x', 'x']
