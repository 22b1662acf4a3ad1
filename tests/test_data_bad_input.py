"""Bad and unusual input, as a table: input → expected error class and message fragment (issue 14).

Each row names the issue-14 item it covers (1 cache, 3 CSV intake, 4 misalignment, 6 user models, 7 late/missing
validation) or 'old' for bad-input cases that were already handled and must stay so.
"""
import numpy as np, pandas as pd, pytest
from hypothesis import given, example, settings, HealthCheck, strategies as st
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.tree import DecisionTreeClassifier
from robustdiff.data import Dataset, from_frame
from robustdiff.tables import from_csv
from robustdiff.datasets import load_sklearn, load_dataset
from robustdiff.responses import cv_predictions, map_folds, cv_splits, response_matrix

RNG = np.random.default_rng(0)
N = 60
NOISE = pd.DataFrame({'x': RNG.normal(size=N), 'z': RNG.normal(size=N), 'target': np.repeat(['a', 'b'], N // 2)})
IRIS = load_sklearn('iris')

class BadModel(ClassifierMixin, BaseEstimator):
    "A classifier whose predict/predict_proba outputs are wrong in the way `mode` says."
    def __init__(self, mode='ok'): self.mode = mode
    def fit(self, X, y): self.classes_ = np.unique(y); return self
    def predict(self, X):
        n = len(X)
        if self.mode == 'short': return np.repeat(self.classes_[0], n - 1)
        if self.mode == '2d': return np.tile(self.classes_[:1], (n, 2))
        return np.repeat(self.classes_[0], n)
    def predict_proba(self, X):
        n, k = len(X), len(self.classes_)
        P = np.full((n, k), 1 / k)
        if self.mode == 'one_col': return P[:, :1]
        if self.mode == 'p7': P[:, 0] = 7.0
        if self.mode == 'nan': P[0, 0] = np.nan
        if self.mode == 'sum': P = P * 0.5
        if self.mode == 'short_proba': P = P[1:]
        return P

def _csv(tmp, text=None, frame=None, name='d.csv', **kw):
    p = tmp/name
    if frame is not None: frame.to_csv(p, **kw)
    elif isinstance(text, bytes): p.write_bytes(text)
    else: p.write_text(text)
    return p

def _cv(model, ds=IRIS): return cv_predictions(ds, {'bad': model}, n_splits=2, progress=False)

# (id, issue item, f(tmp_path) that must fail, exception class, message fragment)
CASES = [
    # 3: CSV intake
    ('csv-written-with-index', 3, lambda t: from_csv(_csv(t, frame=NOISE.sort_values('target')), 'target'), ValueError,
     "'Unnamed: 0' looks like a row index"),
    ('duplicate-target-header', 3, lambda t: from_csv(_csv(t, 'x,target,target\n' + '\n'.join(f'{i},{c},{c}' for i, c in
        zip(RNG.normal(size=N), NOISE.target))), 'target'), ValueError, "'target.1' looks like a second copy of the target"),
    ('feature-identical-to-target', 3, lambda t: from_frame(NOISE.assign(leak=NOISE.target), 'target'), ValueError,
     "identical to the target"),
    ('question-marks-in-numbers', 3, lambda t: from_csv(_csv(t, frame=NOISE.assign(
        x=NOISE.x.round(3).astype(str).where(NOISE.index % 9 > 0, '?')), index=False), 'target'), ValueError,
     "na_values=['?']"),
    ('latin-1-file', 3, lambda t: from_csv(_csv(t, ('x,target\n' + '\n'.join(f'{i % 7},caf\xe9{i % 2}' for i in range(N)))
        .encode('latin-1')), 'target'), ValueError, "encoding='latin-1'"),
    ('empty-file', 3, lambda t: from_csv(_csv(t, ''), 'target'), ValueError, 'is empty'),
    ('blank-file', 3, lambda t: from_csv(_csv(t, '\n\n'), 'target'), ValueError, 'holds no data'),
    ('header-only', 3, lambda t: from_csv(_csv(t, 'x,target\n'), 'target'), ValueError, 'header but no rows'),
    ('wrong-separator', 3, lambda t: from_csv(_csv(t, frame=NOISE, sep=';', index=False), 'target', sep=','), ValueError,
     "pass sep=';'"),
    ('drop-unknown-column', 3, lambda t: from_frame(NOISE, 'target', drop=['nope']), ValueError, "drop: column 'nope' not in the data"),
    ('nominal-unknown-column', 3, lambda t: from_frame(NOISE, 'target', nominal=['nope']), ValueError,
     "nominal: feature column 'nope' not in the data"),
    # 4: misalignment
    ('y-series-duplicate-index', 4, lambda t: Dataset('d', NOISE[['x']], NOISE.target.set_axis([0] * N)), ValueError,
     "index does not match"),
    # 6: user models
    ('predict-wrong-length', 6, lambda t: _cv(BadModel('short')), ValueError,
     "model 'bad' on repeat 0, fold 0 of 'iris': predict returned shape (74,), expected (75,)"),
    ('predict-2d', 6, lambda t: _cv(BadModel('2d')), ValueError, "predict returned shape (75, 2)"),
    ('proba-one-column', 6, lambda t: _cv(BadModel('one_col')), ValueError,
     "model 'bad' on repeat 0, fold 0 of 'iris': predict_proba returned shape (75, 1), expected (75, 3)"),
    ('proba-wrong-rows', 6, lambda t: _cv(BadModel('short_proba')), ValueError, "predict_proba returned shape (74, 3)"),
    ('proba-is-7', 6, lambda t: _cv(BadModel('p7')), ValueError, "predict_proba returned values outside [0, 1]"),
    ('proba-nan', 6, lambda t: _cv(BadModel('nan')), ValueError, "outside [0, 1]"),
    ('proba-rows-not-summing-to-1', 6, lambda t: _cv(BadModel('sum')), ValueError, "rows must sum to 1"),
    # 7: late or missing validation (the parts in this branch's modules)
    ('correct-not-0-1', 7, lambda t: response_matrix(pd.DataFrame({'model': ['m', 'm'], 'repeat': 0, 'instance': [0, 1],
        'correct': [0.7, 1]})), ValueError, "only 0 and 1"),
    ('correct-nan', 7, lambda t: response_matrix(pd.DataFrame({'model': ['m', 'm'], 'repeat': 0, 'instance': [0, 1],
        'correct': [np.nan, 1]})), ValueError, "only 0 and 1"),
    ('duplicate-columns-1-and-"1"', 7, lambda t: Dataset('d', pd.DataFrame(np.ones((4, 2)), columns=[1, '1']), [0, 1, 0, 1]),
     ValueError, "duplicate column names"),
    ('duplicate-columns-frame', 7, lambda t: from_frame(pd.concat([NOISE, NOISE[['x']]], axis=1), 'target'), ValueError,
     "duplicate column names in the data: ['x']"),
    ('target-mixes-in-frame', 7, lambda t: from_frame(NOISE.assign(target=[1, '1'] * (N // 2)), 'target'), TypeError,
     'mixes value types'),
    ('y-2d-frame', 7, lambda t: Dataset('d', NOISE[['x']], NOISE[['x', 'z']]), ValueError, 'y must be 1-D'),
    # 1: the cache
    ('cache-with-random-state-none', 1, lambda t: map_folds(lambda c: pd.DataFrame(), IRIS, 'quick', random_state=None,
        cache_dir=t, progress=False), ValueError, 'cache_dir needs an int random_state'),
    # old cases that must stay
    ('missing-file', 'old', lambda t: from_csv(t/'nope.csv', 'target'), FileNotFoundError, 'no such file'),
    ('folder-as-file', 'old', lambda t: from_csv(t, 'target'), ValueError, 'is a folder'),
    ('unknown-dataset', 'old', lambda t: load_dataset('nonsense'), ValueError, 'unknown dataset'),
    ('unknown-portfolio', 'old', lambda t: cv_predictions(IRIS, 'nope', progress=False), ValueError, 'unknown portfolio'),
    ('n-splits-1', 'old', lambda t: cv_splits(IRIS, n_splits=1), ValueError, 'n_splits'),
    ('n-repeats-0', 'old', lambda t: cv_splits(IRIS, n_repeats=0), ValueError, 'n_repeats'),
    ('class-smaller-than-folds', 'old', lambda t: cv_splits(IRIS.subset(np.r_[0:50, 50:53, 100:150])), ValueError,
     'fewer than the 5 folds'),
    ('not-a-classifier', 'old', lambda t: _cv(__import__('sklearn.linear_model').linear_model.LinearRegression()),
     TypeError, "'bad'.*is a regressor, but the target is a classification target"),
    ('fn-not-callable', 'old', lambda t: map_folds(3, IRIS, 'quick', progress=False), TypeError, 'fn must be callable'),
    ('fn-returns-list', 'old', lambda t: map_folds(lambda c: [1], IRIS, {'c': DecisionTreeClassifier()}, n_splits=2,
        progress=False), TypeError, 'fn must return a DataFrame'),
    ('response-matrix-not-tidy', 'old', lambda t: response_matrix(pd.DataFrame({'a': [1]})), ValueError,
     'expected the tidy predictions'),
]

@pytest.mark.parametrize('case', CASES, ids=[c[0] for c in CASES])
def test_bad_input(case, tmp_path):
    _, _, f, exc, fragment = case
    with pytest.raises(exc, match=fragment if '.*' in fragment else __import__('re').escape(fragment)):
        f(tmp_path)

def test_every_issue_item_is_covered():
    assert {1, 3, 4, 6, 7, 'old'} <= {c[1] for c in CASES}

def test_fit_failure_is_named():
    class Broken(ClassifierMixin, BaseEstimator):
        def fit(self, X, y): raise ArithmeticError('boom')
        def predict(self, X): return np.zeros(len(X))
    with pytest.raises(RuntimeError, match=r"model 'broken' failed to fit on repeat 0, fold 0 of 'iris'.*boom"):
        cv_predictions(IRIS, {'broken': Broken()}, n_splits=2, progress=False)

# what is accepted: with the documented fix, the same inputs work --------------------------------------------------
def test_the_suggested_fixes_work(tmp_path):
    p = _csv(tmp_path, frame=NOISE.sort_values('target'))
    assert from_csv(p, 'target', index_col=0).n_features == 2
    assert from_csv(p, 'target', drop=['Unnamed: 0']).n_features == 2
    q = _csv(tmp_path, frame=NOISE.assign(x=NOISE.x.round(3).astype(str).where(NOISE.index % 9 > 0, '?')), index=False,
             name='q.csv')
    d = from_csv(q, 'target', na_values=['?'], dropna=True)
    assert d.n_instances == N - 7 and d.nominal == ()
    l = _csv(tmp_path, ('x,target\n' + '\n'.join(f'{i % 7},caf\xe9{i % 2}' for i in range(N))).encode('latin-1'), name='l.csv')
    assert set(from_csv(l, 'target', encoding='latin-1').classes) == {'caf\xe90', 'caf\xe91'}
    s = _csv(tmp_path, frame=NOISE, sep=';', index=False, name='s.csv')
    assert from_csv(s, 'target', sep=';').n_features == 2
    # a declared nominal column with many levels is accepted with a warning
    with pytest.warns(UserWarning, match="'user' would be a nominal feature with 60 levels"):
        from_frame(NOISE.assign(user=[f'u{i:03d}' for i in range(N)]), 'target', nominal=['user'], max_levels=50)

def test_y_series_is_aligned_by_index_not_position():
    X = NOISE[['x', 'z']].set_axis(np.arange(N) * 3 + 7)
    y = NOISE.target.set_axis(X.index)
    perm = np.random.default_rng(1).permutation(N)
    d = Dataset('d', X, y.iloc[perm])                 # same labels, shuffled order: paired by index
    assert d.y.tolist() == NOISE.target.tolist()
    with pytest.raises(ValueError, match="index does not match"):
        Dataset('d', X, y.iloc[perm].reset_index(drop=True))

@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(names=st.lists(st.text(min_size=1, max_size=8), min_size=2, max_size=2, unique_by=str).filter(
           lambda v: not any(n.startswith('Unnamed') or n.startswith('target') for n in v)),
       seed=st.integers(0, 2**16), labels=st.sampled_from(['int', 'str']))
@example(names=['0', '\x00'], seed=0, labels='int')     # a NUL name: numpy drops it from scikit-learn's column list (found by hypothesis)
def test_column_names_and_index_order_never_change_results(names, seed, labels):
    "Random column names, index labels and y order (paired by index) give the same dataset and the same predictions."
    rng = np.random.default_rng(seed)
    index = rng.permutation(10 * N)[:N] if labels == 'int' else [f'r{i}' for i in rng.permutation(N)]
    X = NOISE[['x', 'z']].set_axis(names, axis=1).set_axis(index)
    y = NOISE.target.set_axis(index).iloc[rng.permutation(N)]
    d = Dataset('d', X, y)
    base = Dataset('d', NOISE[['x', 'z']], NOISE.target)
    np.testing.assert_array_equal(d.X.to_numpy(), base.X.to_numpy()); assert d.y.equals(base.y)
    m = {'cart': DecisionTreeClassifier()}
    a = cv_predictions(d, m, n_splits=2, progress=False)
    b = cv_predictions(base, m, n_splits=2, progress=False)
    pd.testing.assert_frame_equal(a, b, check_exact=True)
