"""Reliability II, as tables: a user's files are never touched, a report is published atomically, failures exit
non-zero, the cache survives a disk that refuses writes and cannot be forged, label leaks are named, workers end
with their parent.

Each row names the numbered case it covers (1-9, as in the list of problems these tests were written against).
"""
import contextlib, errno, hashlib, io, json, os, pathlib, signal, subprocess, sys, textwrap, time, warnings
import numpy as np, pandas as pd, pytest
from sklearn.tree import DecisionTreeClassifier
from robustdiff.cli import main
from robustdiff.data import Dataset
from robustdiff.datasets import load_sklearn
from robustdiff.tables import from_csv
from robustdiff.responses import map_folds, cv_predictions
from robustdiff.cache import CacheWarning
from robustdiff import responses, _cache as result_cache
import robustdiff.report as report
from robustdiff.report import Report, Stage

RNG = np.random.default_rng(0)
N = 60
QUICK = ['--models', 'quick', '--respondents', 'models', '--stages', 'accuracy', '--n-jobs', '1', '--quiet']

def _frame(n=N, classes=('a', 'b'), seed=0):
    r = np.random.default_rng(seed)
    return pd.DataFrame({'x': r.normal(size=n), 'z': r.normal(size=n),
                         'target': np.resize(np.repeat(classes, max(1, n // len(classes))), n)})

def _csv(tmp, df, name='d.csv'):
    p = tmp/name; df.to_csv(p, index=False); return p

def _cli(args):
    "(exit code, stdout, stderr) of `robustdiff ARGS`."
    o, e = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(o), contextlib.redirect_stderr(e), warnings.catch_warnings():
        warnings.simplefilter('ignore')
        code = main([str(a) for a in args])
    return code, o.getvalue(), e.getvalue()

def _tree(folder):
    "Every regular file under `folder` (relative name → bytes)."
    folder = pathlib.Path(folder)
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob('*')) if p.is_file()}

# ---- the CLI: every case of the table is a run of `robustdiff report` -----------------------------------------------
def _thesis(t):              # 1: a summary.json naming a user's file, --force
    (t/'x').mkdir(); (t/'x'/'thesis.docx').write_text('precious'); (t/'x'/'summary.json').write_text('{"files": ["thesis.docx"]}')
    return [_csv(t, _frame()), '--out', t/'x', '--force']

def _input_in_out(t):        # 2: the input file is named like a table of the report, in the output folder, --force
    (t/'d').mkdir(); p = _csv(t/'d', _frame(), 'difficulty.csv')
    return [p, '--out', t/'d', '--force', '--stages', 'accuracy,difficulty']

def _dir_named_like_table(t):  # 3: a folder named like a table of the report
    (t/'r').mkdir(); (t/'r'/'accuracy.csv').mkdir()
    return [_csv(t, _frame()), '--out', t/'r', '--force']

def _one_member(t):          # 4: a class with one member
    df = _frame(); df.loc[0, 'target'] = 'c'
    return [_csv(t, df), '--out', t/'r']

def _many_pairs(t):          # 4: 150 classes of 2 rows
    df = pd.DataFrame({'x': RNG.normal(size=300), 'target': np.repeat([f'c{i}' for i in range(150)], 2)})
    return [_csv(t, df), '--out', t/'r']

def _huge(t):                # 4: 1e308 values
    df = _frame(); df['x'] = df.x * 1e308
    return [_csv(t, df.replace([np.inf, -np.inf], 1e308)), '--out', t/'r']

def _foreign_summary(t):     # 4: a foreign summary.json noticed before any work (not after it)
    (t/'r').mkdir(); (t/'r'/'summary.json').write_text('{"mine": 1}')
    return [_csv(t, _frame()), '--out', t/'r', '--force']

def _empty_trailing(t):      # 9: an empty trailing column
    p = t/'d.csv'; df = _frame()
    p.write_text('x,z,target,\n' + ''.join(f'{a:.4f},{b:.4f},{c},\n' for a, b, c in df.itertuples(index=False)))
    return [p, '--out', t/'r']

def _quick(args):
    "The quick options, without their --stages where the case names its own."
    q = list(QUICK)
    if '--stages' in args: i = q.index('--stages'); del q[i:i + 2]
    return q

def _plain(t, **kw): return [_csv(t, _frame()), '--out', t/'r']

# (id, case, argv(tmp), exit code, stderr fragment, check(tmp) after the run or None)
CLI_CASES = [
    ('force-keeps-files-a-summary-names', 1, _thesis, 2, "'summary.json'",
     lambda t: (t/'x'/'thesis.docx').read_text() == 'precious' and (t/'x'/'summary.json').read_text() == '{"files": ["thesis.docx"]}'),
    ('force-never-overwrites-the-input', 2, _input_in_out, 2, "'difficulty.csv'",
     lambda t: pd.read_csv(t/'d'/'difficulty.csv').shape == (N, 3)),
    ('folder-named-like-a-table', 3, _dir_named_like_table, 2, "'accuracy.csv'",
     lambda t: (t/'r'/'accuracy.csv').is_dir() and not (t/'r'/'report.html').exists()),
    ('class-with-one-member', 4, _one_member, 2, "class 'c' has 1 member(s), fewer than the 5 folds: drop the class's rows", None),
    ('150-classes-of-2-rows', 4, _many_pairs, 2, 'use --folds 2', None),
    ('folds-1', 4, lambda t: _plain(t) + ['--folds', '1'], 2, 'at least 2 folds', None),
    ('n-jobs-0', 4, lambda t: _plain(t) + ['--n-jobs', '0'], 2, 'n_jobs (--n-jobs) must be a non-zero int', None),
    ('cache-in-proc', 4, lambda t: _plain(t) + ['--cache', '/proc/x'], 2, "cache folder '/proc/x' cannot be created", None),
    ('values-1e308', 4, _huge, 2, "column 'x' holds values up to", None),
    ('foreign-summary-json-before-work', 4, _foreign_summary, 2, "'summary.json'",
     lambda t: not (t/'r'/'.cache').exists()),          # refused before the first fit (no cache entry written)
    ('nu-1e308', 9, lambda t: _plain(t) + ['--nu', '1e308'], 2, 'ν = 1e+308 makes the noisy features overflow', None),
    ('empty-trailing-column', 9, _empty_trailing, 2, "column 'Unnamed: 3' is empty", None),
]

@pytest.mark.parametrize('case', CLI_CASES, ids=[c[0] for c in CLI_CASES])
def test_cli(case, tmp_path):
    _, _, argv, want, fragment, check = case
    args = argv(tmp_path)
    code, out, err = _cli(['report'] + _quick(args) + args)   # the case's options last: they win
    assert code == want, (code, err[-2000:])
    assert fragment in err, err[-2000:]
    if want == 2: assert err.count('\n') == 1, err     # one line, no traceback
    assert 'row index' not in err
    if check is not None: assert check(tmp_path)

def test_every_case_is_covered():
    covered = {c[1] for c in CLI_CASES} | {1, 2, 3, 5, 6, 7, 8, 9}
    assert set(range(1, 10)) <= covered

# ---- 4: a required stage that fails: exit 1, the report says which -------------------------------------------------
def test_failed_stage_exits_1_and_the_report_says_which(tmp_path, monkeypatch):
    def boom(ctx, st): raise RuntimeError('the accuracy stage broke')
    import robustdiff.accuracy_report as A
    monkeypatch.setattr(A, 'report_stage', boom)
    code, out, err = _cli(['report', _csv(tmp_path, _frame()), '--out', tmp_path/'r'] + QUICK)
    assert code == 1
    assert 'failed stages: accuracy (RuntimeError: the accuracy stage broke)' in err
    s = json.loads((tmp_path/'r'/'summary.json').read_text())
    assert s['failed_stages'] == ['accuracy'] and s['stages']['accuracy']['status'] == 'failed'
    assert 'the accuracy stage broke' in (tmp_path/'r'/'report.html').read_text()

def test_a_good_run_exits_0_and_reruns_without_force(tmp_path):
    args = ['report', _csv(tmp_path, _frame()), '--out', tmp_path/'r'] + QUICK
    assert _cli(args)[0] == 0
    first = _tree(tmp_path/'r')
    assert _cli(args)[0] == 0                                   # its own folder: no --force needed
    assert set(_tree(tmp_path/'r')) == set(first)

# ---- 1, 2: ownership is proved by the marker's hashes ---------------------------------------------------------------
def _rep(tables, name='t'):
    return Report(name, {'data': Stage('data', 'ok', tables=tables)}, {})

A = {'shared': pd.DataFrame({'v': [1, 2, 3]}), 'only_a': pd.DataFrame({'a': ['x', 'y']})}
B = {'shared': pd.DataFrame({'v': [4, 5, 6, 7]}), 'only_b': pd.DataFrame({'b': [0.5]})}

def test_edited_report_file_is_the_users(tmp_path):
    r = tmp_path/'r'
    _rep(A).save(r)
    (r/'shared.csv').write_text('my edits')                     # changed since robustdiff wrote it: now the user's
    with pytest.raises(FileExistsError, match='not a robustdiff report'): _rep(B).save(r)
    with pytest.raises(FileExistsError, match="'shared.csv'"): _rep(B).save(r, force=True)
    assert (r/'shared.csv').read_text() == 'my edits'

def test_old_report_files_are_replaced_but_a_users_files_beside_them_stay(tmp_path):
    r = tmp_path/'r'
    _rep(A).save(r)
    (r/'notes.txt').write_text('mine')
    _rep(B).save(r, force=True)
    names = {p.name for p in r.iterdir()}
    assert {'notes.txt', 'shared.csv', 'only_b.csv'} <= names and 'only_a.csv' not in names
    assert (r/'notes.txt').read_text() == 'mine'
    assert not [p for p in r.iterdir() if p.name.startswith('.robustdiff-staging')]

def test_the_input_is_protected_even_when_it_is_an_old_report_file(tmp_path):
    from robustdiff.publish import foreign_files
    r = tmp_path/'r'
    _rep(A).save(r)
    assert foreign_files(r) == []
    assert foreign_files(r, protect=[r/'shared.csv']) == ['shared.csv']
    with pytest.raises(FileExistsError, match="'shared.csv'"): _rep(B).save(r, force=True, protect=[r/'shared.csv'])

# ---- 3, 8: publishing is atomic; a kill at any step leaves the old or the new report; a rerun completes ---------------
def _visible(folder):
    return {k: v for k, v in _tree(folder).items() if not k.startswith('.')}

def _hooked_save(rep, out, kill_at, count_file=None, force=False):
    "In a forked child: count every disk step of `rep.save(out)` and die (os._exit) right after step `kill_at`."
    n = [0]
    def tick(*_):
        n[0] += 1
        if count_file is not None:
            with open(count_file, 'w') as f: f.write(str(n[0]))
        if n[0] == kill_at: os._exit(9)
    def wrap(f):
        def g(*a, **k): r = f(*a, **k); tick(); return r
        return g
    os.replace, os.rename = wrap(os.replace), wrap(os.rename)
    pathlib.Path.write_text, pathlib.Path.write_bytes = wrap(pathlib.Path.write_text), wrap(pathlib.Path.write_bytes)
    pd.DataFrame.to_csv = wrap(pd.DataFrame.to_csv)
    try:
        from robustdiff import publish
        publish._exchange = wrap(publish._exchange)
    except (ImportError, AttributeError): pass
    rep.save(out, force=force)
    os._exit(0)

def _fork(fn, *args):
    pid = os.fork()
    if pid == 0:
        try: fn(*args)
        finally: os._exit(3)
    return os.waitpid(pid, 0)[1]

def test_kill_at_every_step_leaves_the_old_or_the_new_report(tmp_path):
    old, new = _rep(A), _rep(B)
    ref_old, ref_new = tmp_path/'ref_old', tmp_path/'ref_new'
    old.save(ref_old); new.save(ref_new)
    want_old, want_new = _visible(ref_old), _visible(ref_new)
    count = tmp_path/'count'
    r = tmp_path/'w'/'r'
    old.save(r)
    assert _fork(_hooked_save, new, r, -1, count) == 0          # how many steps a whole save takes
    total = int(count.read_text())
    assert total >= 6 and _visible(r) == want_new
    outcomes, mixed, reruns, leftovers = [], [], [], []
    for k in range(1, total + 1):
        r = tmp_path/f'k{k}'/'r'
        old.save(r); (r/'.cache').mkdir(); (r/'.cache'/'fit.npz').write_text('cached')
        _fork(_hooked_save, new, r, k)
        got = _visible(r) if r.is_dir() else None
        outcomes.append('old' if got == want_old else 'new' if got == want_new else 'MIX')
        if outcomes[-1] == 'MIX': mixed.append((k, sorted(got or {})))
        try: new.save(r)                                        # the rerun completes, without force
        except Exception as e: reruns.append((k, repr(e))); continue
        if _visible(r) != want_new or (r/'.cache'/'fit.npz').read_text() != 'cached': reruns.append((k, 'wrong result'))
        left = [p.name for p in r.parent.iterdir() if p.name != 'r'] + [p.name for p in r.iterdir()
                if p.name.startswith(('.partial', '.robustdiff-staging', '.write-test'))]
        if left: leftovers.append((k, left))
    assert not mixed, f"{len(mixed)} of {total} kill points leave a mix: {mixed[:3]}"   # never a mix
    assert not reruns, reruns                                    # the rerun completes (and keeps the fit cache)
    assert not leftovers, leftovers                              # no temporary folder left
    assert 'old' in outcomes and 'new' in outcomes, outcomes
    print(f"{total} kill points: {' '.join(outcomes)}")

def test_kill_at_every_step_beside_a_users_files_is_recovered(tmp_path):
    "With foreign files (force) the folder cannot be swapped: files move one by one under a journal; the next run's `recover` finishes or undoes it."
    from robustdiff.publish import recover
    old, new = _rep(A), _rep(B)
    ref_old, ref_new = tmp_path/'ref_old', tmp_path/'ref_new'
    old.save(ref_old); new.save(ref_new)
    want_old, want_new = _visible(ref_old), _visible(ref_new)
    want_old['notes.txt'] = want_new['notes.txt'] = b'mine'
    count, r = tmp_path/'count', tmp_path/'w'/'r'
    old.save(r); (r/'notes.txt').write_text('mine')
    assert _fork(_hooked_save, new, r, -1, count, True) == 0
    total = int(count.read_text())
    outcomes = []
    for k in range(1, total + 1):
        r = tmp_path/f'k{k}'/'r'
        old.save(r); (r/'notes.txt').write_text('mine')
        _fork(_hooked_save, new, r, k, None, True)
        recover(r)                                              # what the next run does first
        got = _visible(r)
        outcomes.append('old' if got == want_old else 'new' if got == want_new else 'MIX')
        new.save(r, force=True)
        assert _visible(r) == want_new, k
        assert not [p.name for p in r.iterdir() if p.name.startswith(('.robustdiff-staging', '.write-test'))], k
    assert 'MIX' not in outcomes and 'old' in outcomes and 'new' in outcomes, outcomes

def test_an_exception_at_any_step_leaves_the_old_report(tmp_path, monkeypatch):
    old, new = _rep(A), _rep(B)
    r = tmp_path/'r'
    old.save(r); want = _visible(r)
    real = pd.DataFrame.to_csv
    calls = [0]
    def failing(self, *a, **k):
        calls[0] += 1
        if calls[0] == 2: raise OSError(errno.ENOSPC, 'No space left on device')
        return real(self, *a, **k)
    monkeypatch.setattr(pd.DataFrame, 'to_csv', failing)
    with pytest.raises(OSError, match='No space left'): new.save(r)
    assert _visible(r) == want
    assert [p.name for p in tmp_path.iterdir()] == ['r']

# (test_killed_first_run_does_not_need_force moved to tests/test_cli_errors.py: leftovers that merely look like
#  robustdiff's, such as .partial-PID, are the user's now; only what a journal lists is ever deleted)

def test_full_disk_at_publish_exits_1_in_one_line(tmp_path, monkeypatch):
    data = _csv(tmp_path, _frame())
    def full(self, path, *a, **k):
        pathlib.Path(path).write_text('partial'); raise OSError(errno.ENOSPC, 'No space left on device')
    monkeypatch.setattr(pd.DataFrame, 'to_csv', full)
    code, _, err = _cli(['report', data, '--out', tmp_path/'r'] + QUICK)
    assert code == 1 and 'No space left on device' in err and err.count('\n') == 1, err
    assert not _visible(tmp_path/'r')                           # nothing half-written is published
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith('.')] == []

# ---- 5: the cache survives a disk that refuses writes ---------------------------------------------------------------
IRIS = load_sklearn('iris')

def _refuse_writes(monkeypatch, folder, err, partial=False):
    for meth in ('write_bytes', 'write_text'):
        real = getattr(pathlib.Path, meth)
        def f(self, data, *a, real=real, **k):
            if str(self).startswith(str(folder)):
                if partial: real(self, data[:len(data) // 2], *a, **k)
                raise OSError(err, os.strerror(err), str(self))
            return real(self, data, *a, **k)
        monkeypatch.setattr(pathlib.Path, meth, f)

@pytest.mark.parametrize('err,partial', [(errno.EROFS, False), (errno.ENOSPC, True)], ids=['read-only', 'disk-full'])
def test_cache_that_cannot_be_written_degrades_with_one_warning(tmp_path, monkeypatch, err, partial):
    cache = tmp_path/'cache'; cache.mkdir()
    _refuse_writes(monkeypatch, cache, err, partial)
    result_cache._UNWRITABLE.clear()
    m = {'cart': DecisionTreeClassifier(random_state=0), 'd2': DecisionTreeClassifier(max_depth=2, random_state=0)}
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        got = cv_predictions(IRIS, m, n_splits=3, progress=False, cache_dir=cache)
    cw = [x for x in w if issubclass(x.category, CacheWarning)]
    assert len(cw) == 1 and 'continuing without a cache' in str(cw[0].message), [str(x.message) for x in w]
    pd.testing.assert_frame_equal(got, cv_predictions(IRIS, m, n_splits=3, progress=False))
    assert list(cache.iterdir()) == []                          # no .tmp, no npz without its sidecar

# ---- 6: stale or forged cache entries -------------------------------------------------------------------------------
BASE = '''
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
def pick(classes): return classes[0]
class Base(ClassifierMixin, BaseEstimator):
    def fit(self, X, y): self.classes_ = np.unique(y); return self
    def predict(self, X): return np.full(len(X), pick(self.classes_))
'''
LEAF = '''
from usrbase import Base
class Leaf(Base):
    pass
'''

def test_base_class_and_module_helper_changes_recompute(tmp_path, monkeypatch):
    import importlib
    src = tmp_path/'src'; src.mkdir()
    (src/'usrbase.py').write_text(BASE); (src/'usrleaf.py').write_text(LEAF)
    monkeypatch.syspath_prepend(str(src))
    import usrbase, usrleaf
    ds = IRIS.subset(np.r_[0:50, 50:80, 100:110])                  # 50/30/10: each constant answer has its own accuracy
    def acc():
        result_cache._class_token.cache_clear()
        p = cv_predictions(ds, {'leaf': usrleaf.Leaf()}, n_splits=3, progress=False, cache_dir=tmp_path/'c')
        return p.correct.mean()
    fresh = lambda: cv_predictions(ds, {'leaf': usrleaf.Leaf()}, n_splits=3, progress=False).correct.mean()
    values = [fresh()]
    assert acc() == fresh()
    for old, new in [('return classes[0]', 'return classes[1]'),                       # a module-level helper
                     ('np.full(len(X), pick(self.classes_))', 'np.full(len(X), self.classes_[-1])')]:  # the base class
        text = (src/'usrbase.py').read_text().replace(old, new); (src/'usrbase.py').write_text(text)
        t = time.time() + 5; os.utime(src/'usrbase.py', (t, t))
        importlib.reload(usrbase); importlib.reload(usrleaf)
        assert acc() == fresh(), (old, new)
        values.append(fresh())
    assert len(set(values)) == 3                                 # each edit changed the true result
def test_sidecar_metadata_is_covered_by_the_checksum(tmp_path):
    m = {'cart': DecisionTreeClassifier(random_state=0)}
    clean = cv_predictions(IRIS, m, n_splits=2, progress=False, cache_dir=tmp_path)
    side = sorted(tmp_path.glob('*.json'))[0]
    meta = json.loads(side.read_text())
    names = [c['name'] for c in meta['columns']]
    i, j = names.index('y_true'), names.index('y_pred')
    meta['columns'][i]['name'], meta['columns'][j]['name'] = 'y_pred', 'y_true'   # swap the two labels' names
    side.write_text(json.dumps(meta))
    with pytest.warns(CacheWarning, match='checksum mismatch'):
        again = cv_predictions(IRIS, m, n_splits=2, progress=False, cache_dir=tmp_path)
    pd.testing.assert_frame_equal(again, clean)

def test_300_character_dataset_name(tmp_path):
    ds = Dataset('x' * 300, IRIS.X, IRIS.y)
    p = cv_predictions(ds, {'cart': DecisionTreeClassifier(random_state=0)}, n_splits=2, progress=False, cache_dir=tmp_path)
    assert len(p) == 150 and all(len(f.name) < 200 for f in tmp_path.iterdir())

# ---- 7: label leaks are named on the CLI and at the top of the report -----------------------------------------------
def _leak_id(t):
    df = _frame(90, ('a', 'b', 'c')).sort_values('target', kind='stable').reset_index(drop=True)
    df.insert(0, 'id', np.arange(1001, 1091)); return df, 'id'

def _leak_customer(t):
    df = _frame(90, ('a', 'b', 'c')).sort_values('target', kind='stable').reset_index(drop=True)
    df.insert(0, 'customer', np.cumsum(RNG.integers(1, 1000, 90))); return df, 'customer'

def _leak_target_code(t):
    df = _frame(90, ('yes', 'no')); df['TARGET'] = (df.target == 'yes').astype(int); return df, 'TARGET'

LEAKS = [('id-1001-1090-rows-sorted-by-class', 7, _leak_id), ('increasing-customer-numbers', 7, _leak_customer),
         ('TARGET-coded-0-1', 7, _leak_target_code)]

@pytest.mark.parametrize('case', LEAKS, ids=[c[0] for c in LEAKS])
def test_leak_is_named(case, tmp_path):
    df, col = case[2](tmp_path)
    code, out, err = _cli(['report', _csv(tmp_path, df), '--out', tmp_path/'r'] + QUICK)
    assert code == 0, err
    if col == 'id':     # an integer column named like an identifier, unique per row, is dropped at intake: it cannot leak
        page = (tmp_path/'r'/'report.html').read_text()
        assert "column &#x27;id&#x27; is an identifier (a different integer in every row): dropped" in page
        assert 'label leak' not in err
        return
    assert f"possible label leak: column {col!r}" in err
    page = (tmp_path/'r'/'report.html').read_text()
    assert f"possible label leak: column {col!r}".replace("'", '&#x27;') in page
    assert page.index('class="warning"') < page.index('<section')      # at the top
    assert json.loads((tmp_path/'r'/'summary.json').read_text())['warnings']

def test_no_leak_warning_on_honest_data(tmp_path):
    code, out, err = _cli(['report', _csv(tmp_path, _frame(90, ('a', 'b', 'c'))), '--out', tmp_path/'r'] + QUICK)
    assert code == 0 and 'label leak' not in err

# ---- 8: workers end with their parent -------------------------------------------------------------------------------
WORKERS = '''
import os, sys, time, pathlib, pandas as pd
from robustdiff.responses import map_folds
def fn(ctx):
    pathlib.Path(sys.argv[1], f"started-{os.getpid()}").write_text("")
    time.sleep(300)
    return pd.DataFrame({"n": [1]})
map_folds(fn, "iris", {"a": __import__("sklearn.dummy").dummy.DummyClassifier()}, n_splits=4, n_jobs=2, progress=False)
'''

def _alive(pid):
    try: state = pathlib.Path(f'/proc/{pid}/stat').read_text().rsplit(')', 1)[1].split()[0]
    except OSError: return False
    return state != 'Z'

def test_workers_end_with_their_killed_parent(tmp_path):
    (tmp_path/'w.py').write_text(WORKERS)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    p = subprocess.Popen([sys.executable, str(tmp_path/'w.py'), str(tmp_path)], env=env)
    try:
        t0 = time.time()
        while len(list(tmp_path.glob('started-*'))) < 2 and time.time() - t0 < 240: time.sleep(0.2)
        workers = [int(f.name.split('-')[1]) for f in tmp_path.glob('started-*')]
        assert len(workers) == 2 and all(_alive(w) for w in workers)
    finally:
        p.send_signal(signal.SIGKILL); p.wait()
    t0 = time.time()
    while any(_alive(w) for w in workers) and time.time() - t0 < 60: time.sleep(0.5)
    alive = [w for w in workers if _alive(w)]
    for w in alive: os.kill(w, signal.SIGKILL)                  # do not leave them behind when the test fails
    assert not alive, f"workers still alive {time.time() - t0:.0f} s after their parent was killed"

# ---- 9: a user model's outputs of the wrong length ------------------------------------------------------------------
from sklearn.base import BaseEstimator, ClassifierMixin

class OffByOne(ClassifierMixin, BaseEstimator):
    def __init__(self, extra=1): self.extra = extra
    def fit(self, X, y): self.classes_ = np.unique(y); return self
    def predict(self, X): return np.resize(self.classes_, len(X) + self.extra)

@pytest.mark.parametrize('extra', [1, -1], ids=['one-too-many', 'one-too-few'])
def test_robustness_by_difficulty_refuses_wrong_length_predictions(extra):
    from robustdiff.scc import robustness_by_difficulty
    with pytest.raises(ValueError, match=r"model 'offbyone' on repeat 0, fold 0 of 'iris': predict returned shape"):
        robustness_by_difficulty(IRIS, {'offbyone': OffByOne(extra), 'tree': DecisionTreeClassifier()},
                                 respondents='models', n_bins=3, reliability=0, progress=False)

def test_leak_check_alone_and_nominal():
    "A near-copy of the label (1 % flipped) and a nominal code of it are named by the out-of-fold check; noise is not."
    from robustdiff.leaks import leak_check
    r = np.random.default_rng(3)
    y = r.choice(['a', 'b', 'c'], 300)
    flip = r.random(300) < 0.01
    noisy_code = np.where(flip, r.integers(0, 3, 300), pd.factorize(y, sort=True)[0]).astype(float) + r.normal(0, .01, 300)
    X = pd.DataFrame({'noise': r.normal(size=300), 'near_copy': noisy_code, 'code': pd.Series(y).map({'a': 'A1', 'b': 'B2', 'c': 'C3'})})
    found = leak_check(Dataset('d', X, y, nominal=('code',))).set_index('column')
    assert set(found.index) == {'near_copy', 'code'}
    assert found.loc['near_copy', 'check'] == 'alone' and found.loc['near_copy', 'balanced_accuracy'] >= 0.98
