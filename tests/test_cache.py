"The map_folds cache (issue 14 items 1-2): every part of the key recomputes; bad files are named and recomputed, never run."
import functools, hashlib, importlib, json, os, pickle, signal, subprocess, sys, textwrap, time, warnings
import numpy as np, pandas as pd, pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.tree import DecisionTreeClassifier
from robustdiff.data import Dataset
from robustdiff.datasets import load_sklearn
from robustdiff import responses, _cache as result_cache
from robustdiff.responses import map_folds, cv_predictions
from robustdiff.cache import CacheWarning

CALLS = []   # a module global (not a closure variable, which would be part of the key)

def count_fn(ctx):
    CALLS.append((ctx.model, ctx.fold))
    return pd.DataFrame({'instance': ctx.test, 'pred': ctx.estimator.predict(ctx.dataset.X.iloc[ctx.test]),
                         'label': ctx.dataset.y.iloc[ctx.test].to_numpy(), 'u': ctx.rng().random(len(ctx.test))})

class WeightedStump(ClassifierMixin, BaseEstimator):
    "A classifier with a long list parameter (scikit-learn's repr elides it)."
    def __init__(self, weights=None): self.weights = weights
    def fit(self, X, y):
        self.classes_ = np.unique(y); self.c_ = self.classes_[int(sum(self.weights)) % len(self.classes_)]; return self
    def predict(self, X): return np.full(len(X), self.c_)

@pytest.fixture(scope='module')
def iris(): return load_sklearn('iris')

def run(ds, tmp, models=None, fn=count_fn, **kw):
    "Number of fn calls (= recomputed tasks) of one cached map_folds run, and its result."
    CALLS.clear()
    kw = dict(dict(n_splits=2, progress=False, n_jobs=1, cache_dir=tmp), **kw)
    out = map_folds(fn, ds, models or {'cart': DecisionTreeClassifier()}, **kw)
    return len(CALLS), out

def test_rerun_is_read_from_disk_and_identical(iris, tmp_path):
    n, a = run(iris, tmp_path)
    m, b = run(iris, tmp_path)
    assert (n, m) == (2, 0)
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    assert len(list(tmp_path.glob('*.npz'))) == 2 and len(list(tmp_path.glob('*.json'))) == 2
    assert not list(tmp_path.glob('*.pkl'))

def test_each_part_of_the_key_recomputes(iris, tmp_path):
    assert run(iris, tmp_path)[0] == 2
    # the model's parameters: values, even where repr elides them, and the model's name
    w = list(range(300))
    assert run(iris, tmp_path, {'s': WeightedStump(tuple(w))})[0] == 2
    assert run(iris, tmp_path, {'s': WeightedStump(tuple(w))})[0] == 0
    w[150] += 1
    assert repr(WeightedStump(tuple(w))) == repr(WeightedStump(tuple(range(300)))) and '...' in repr(WeightedStump(tuple(w)))   # repr cannot tell them apart
    assert run(iris, tmp_path, {'s': WeightedStump(tuple(w))})[0] == 2
    assert run(iris, tmp_path, {'cart': DecisionTreeClassifier(max_depth=2)})[0] == 2
    assert run(iris, tmp_path, {'tree': DecisionTreeClassifier()})[0] == 2
    # the data, the splits, the seed, cache_key
    X = iris.X.copy(); X.iloc[0, 0] += 1e-9
    assert run(Dataset('iris', X, iris.y), tmp_path)[0] == 2
    assert run(iris, tmp_path, n_splits=3)[0] == 3
    assert run(iris, tmp_path, random_state=1)[0] == 2
    assert run(iris, tmp_path, cache_key='v2')[0] == 2
    assert run(iris, tmp_path)[0] == 0                  # nothing above disturbed the first entry

def test_function_identity_code_closure_and_partial_args(iris, tmp_path):
    def make(k):
        def fn(ctx): CALLS.append(1); return pd.DataFrame({'k': [k], 'n': [len(ctx.test)]})
        return fn
    assert run(iris, tmp_path, fn=make(1))[0] == 2
    assert run(iris, tmp_path, fn=make(1))[0] == 0      # same code, same closure: a hit
    assert run(iris, tmp_path, fn=make(2))[0] == 2      # same code, another closure value
    def make2(k):
        def fn(ctx): CALLS.append(1); return pd.DataFrame({'k': [k + 1], 'n': [len(ctx.test)]})
        return fn
    f = make2(1); f.__qualname__ = make(1).__qualname__  # same name, other code
    assert run(iris, tmp_path, fn=f)[0] == 2
    def g(ctx, a): CALLS.append(1); return pd.DataFrame({'a': [a]})
    assert run(iris, tmp_path, fn=functools.partial(g, a=1))[0] == 2
    assert run(iris, tmp_path, fn=functools.partial(g, a=1))[0] == 0
    assert run(iris, tmp_path, fn=functools.partial(g, a=2))[0] == 2

def test_estimator_class_source_and_global_helpers(iris, tmp_path, monkeypatch):
    "Editing a model class's code (same module and name) or a global helper of fn invalidates the cache."
    mod = tmp_path/'src'/'usermod.py'; mod.parent.mkdir()
    src = textwrap.dedent('''
        import numpy as np, pandas as pd
        from sklearn.base import BaseEstimator, ClassifierMixin
        class Const(ClassifierMixin, BaseEstimator):
            def fit(self, X, y): self.classes_ = np.unique(y); return self
            def predict(self, X): return np.full(len(X), self.classes_[0])
        def helper(n): return n
        CALLS = []
        def fn(ctx): CALLS.append(1); return pd.DataFrame({'n': [helper(len(ctx.test))]})
        ''')
    mod.write_text(src)
    monkeypatch.syspath_prepend(str(mod.parent))
    import usermod
    def go():
        usermod.CALLS.clear()
        map_folds(usermod.fn, iris, {'c': usermod.Const()}, n_splits=2, progress=False, cache_dir=tmp_path/'c')
        return len(usermod.CALLS)
    assert go() == 2 and go() == 0
    for old, new in [("self.classes_[0])", "self.classes_[-1])"), ("return n\n", "return n + 1\n")]:
        src = src.replace(old, new); mod.write_text(src); os.utime(mod, (time.time() + 5, time.time() + 5))
        importlib.reload(usermod)
        assert go() == 2 and go() == 0

def test_library_and_package_versions(iris, tmp_path, monkeypatch):
    assert run(iris, tmp_path)[0] == 2
    real = responses.code_versions()
    for i in range(len(real)):   # robustdiff, sklearn, numpy, pandas, scipy, python versions and robustdiff's source
        fake = real[:i] + ('changed',) + real[i + 1:]
        monkeypatch.setattr(responses, 'code_versions', lambda fake=fake: fake)
        assert run(iris, tmp_path)[0] == 2, i

def test_random_state_none_with_cache_is_refused(iris, tmp_path):
    with pytest.raises(ValueError, match='cache_dir needs an int random_state'):
        map_folds(count_fn, iris, 'quick', random_state=None, cache_dir=tmp_path, progress=False)
    map_folds(count_fn, iris, {'cart': DecisionTreeClassifier()}, random_state=None, n_splits=2, progress=False)  # fine without

# files that fail their check ---------------------------------------------------------------------------------------
def _entries(tmp):
    return sorted(tmp.glob('*.npz'))

def _evil_pickle(marker):
    class Evil:
        def __reduce__(self): return (open, (str(marker), 'w'))
    return pickle.dumps(Evil())

def _fix_checksum(npz):
    side = npz.with_suffix('.json'); meta = json.loads(side.read_text())
    meta['sha256'] = hashlib.sha256(npz.read_bytes()).hexdigest(); side.write_text(json.dumps(meta))

@pytest.mark.parametrize('damage', ['pickle', 'pickle_in_npz', 'truncated', 'altered', 'garbage', 'bad_sidecar', 'no_npz'])
def test_bad_file_is_named_recomputed_and_never_executed(iris, tmp_path, damage):
    cache = tmp_path/'cache'; marker = tmp_path/'PWNED'
    _, clean = run(iris, cache)
    bad = _entries(cache)[0]
    if damage == 'pickle':                       # a crafted pickle with a checksum that matches
        bad.write_bytes(_evil_pickle(marker)); _fix_checksum(bad)
    elif damage == 'pickle_in_npz':              # an npz holding a pickled object array, checksum matching
        import io
        buf = io.BytesIO(); np.savez(buf, c0=np.array([_Boom(marker)], dtype=object)); bad.write_bytes(buf.getvalue())
        _fix_checksum(bad)
    elif damage == 'truncated': bad.write_bytes(bad.read_bytes()[:100])
    elif damage == 'altered':                    # a valid npz whose numbers were changed (sidecar unchanged)
        z = dict(np.load(bad)); z['c6'] = z['c6'] + 1
        import io
        buf = io.BytesIO(); np.savez(buf, **z); bad.write_bytes(buf.getvalue())
    elif damage == 'garbage': bad.write_bytes(os.urandom(500))
    elif damage == 'bad_sidecar': bad.with_suffix('.json').write_text('{not json')
    elif damage == 'no_npz': bad.unlink()
    with pytest.warns(CacheWarning, match=bad.name):
        n, again = run(iris, cache)
    assert n == 1 and not marker.exists()
    pd.testing.assert_frame_equal(again, clean, check_exact=True)
    with warnings.catch_warnings():
        warnings.simplefilter('error')           # the entry was rewritten: no warning, no recomputation
        assert run(iris, cache)[0] == 0

class _Boom:
    def __init__(self, marker): self.marker = str(marker)
    def __reduce__(self): return (open, (self.marker, 'w'))

def test_legacy_pickle_files_are_never_read(iris, tmp_path):
    marker = tmp_path/'PWNED'
    for name in ('iris-cart-r0f0-0123456789abcdef.pkl', 'x.pkl'): (tmp_path/name).write_bytes(_evil_pickle(marker))
    assert run(iris, tmp_path)[0] == 2 and not marker.exists()

def test_uncacheable_result_warns_and_still_returns(iris, tmp_path):
    def fn(ctx): return pd.DataFrame({'obj': [object()]})
    with pytest.warns(CacheWarning, match='not cached'):
        out = map_folds(fn, iris, {'cart': DecisionTreeClassifier()}, n_splits=2, progress=False, cache_dir=tmp_path)
    assert len(out) == 2 and not list(tmp_path.glob('*.npz'))

def test_round_trip_of_column_types(tmp_path):
    df = pd.DataFrame({'s': ['a', 'bb', 'ccc'], 'i8': np.array([0, 1, 1], 'int8'), 'f': [0.1, np.nan, 1e-300],
                       'b': [True, False, True], 'cat': pd.Categorical(['x', 'y', 'x']), 'mix': [1, 'a', 2.5],
                       'i': [1, 2, 3], 7: [1.0, 2.0, 3.0]})
    p = tmp_path/'t.npz'
    result_cache.cache_write(p, 'k', df)
    back = result_cache.cache_read(p, 'k')
    pd.testing.assert_frame_equal(back, df, check_exact=True)
    with pytest.warns(CacheWarning, match='key does not match'): assert result_cache.cache_read(p, 'other') is None

# killed and resumed ------------------------------------------------------------------------------------------------
RESUME = '''
import os, time, pandas as pd
from robustdiff.responses import map_folds
CALLS = []
def fn(ctx):
    CALLS.append(1); time.sleep(float(os.environ.get('RESUME_SLEEP', '0')))
    return pd.DataFrame({'instance': ctx.test, 'u': ctx.rng().random(len(ctx.test)),
                         'pred': ctx.estimator.predict(ctx.dataset.X.iloc[ctx.test])})
def go(cache):
    return map_folds(fn, 'iris', 'quick', n_splits=5, progress=False, n_jobs=1, cache_dir=cache)
'''

def test_kill_and_resume_gives_the_uncached_result(tmp_path, monkeypatch):
    (tmp_path/'resume_mod.py').write_text(RESUME)
    cache = tmp_path/'cache'
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path)] + sys.path), RESUME_SLEEP='0.4')
    p = subprocess.Popen([sys.executable, '-c', 'import sys, resume_mod; resume_mod.go(sys.argv[1])', str(cache)], env=env)
    t0 = time.time()
    while len(list(cache.glob('*.json'))) < 4 and time.time() - t0 < 120 and p.poll() is None: time.sleep(0.05)
    p.send_signal(signal.SIGKILL); p.wait()
    done = len(list(cache.glob('*.json')))
    assert 4 <= done < 20, done                        # killed part-way
    monkeypatch.syspath_prepend(str(tmp_path))
    import resume_mod
    resume_mod.CALLS.clear()
    resumed = resume_mod.go(cache)
    assert len(resume_mod.CALLS) == 20 - done          # only the missing tasks ran
    fresh = map_folds(resume_mod.fn, 'iris', 'quick', n_splits=5, progress=False, n_jobs=1)
    pd.testing.assert_frame_equal(resumed, fresh, check_exact=True)
