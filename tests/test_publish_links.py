"""Publishing through a symlink, a kill at every step of a publication beside foreign files, and temporary files on
every exit path (issue 44, part B). Each test failed on the code before the fix."""
import contextlib, errno, io, json, os, signal, warnings
from pathlib import Path
import numpy as np, pandas as pd, pytest
from robustdiff import publish
from robustdiff.cli import main
from robustdiff.report import Report, Stage

A = {'shared': pd.DataFrame({'v': [1, 2, 3]}), 'only_a': pd.DataFrame({'a': ['x', 'y']})}
B = {'shared': pd.DataFrame({'v': [4, 5, 6, 7]}), 'only_b': pd.DataFrame({'b': [0.5]})}
QUICK = ['--models', 'quick', '--respondents', 'models', '--stages', 'accuracy', '--n-jobs', '1', '--quiet']


def _rep(tables): return Report('t', {'data': Stage('data', 'ok', tables=tables)}, {})


def _leftovers(*folders)->list:
    "Entries robustdiff makes only while publishing (journal, lock, staging or old folders, `.tmp` files) in `folders`."
    return sorted(str(p) for f in folders if f.is_dir() for p in f.iterdir()
                  if 'robustdiff-' in p.name and p.name != publish._MARKER or p.name.endswith('.tmp'))


def _cli(args):
    e = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(e), warnings.catch_warnings():
        warnings.simplefilter('ignore')
        code = main([str(a) for a in args])
    return code, e.getvalue()


# ---- --out LINK: into the link's target, the link kept ----------------------------------------------------------------
@pytest.mark.parametrize('mode', ['swap', 'beside'])
def test_out_through_a_symlink_publishes_into_its_target_and_keeps_the_link(tmp_path, mode):
    target, link = tmp_path/'real'/'reports', tmp_path/'link'
    target.mkdir(parents=True); link.symlink_to(target, target_is_directory=True)
    force = mode == 'beside'
    if force: (target/'notes.txt').write_text('mine')
    for tables in (A, B):                                  # a first report, then one replacing it
        out = _rep(tables).save(link, force=force)
        assert link.is_symlink() and os.readlink(link) == str(target), tables
        assert out == target.resolve()
        assert set(publish.read_marker(target)) == {f'{k}.csv' for k in tables} | {'report.html', 'summary.json'}
        assert publish.owned_files(target) == set(publish.read_marker(target))
        assert not _leftovers(tmp_path, tmp_path/'real', target), _leftovers(tmp_path, tmp_path/'real', target)
    assert not (target/'only_a.csv').exists()
    if force: assert (target/'notes.txt').read_text() == 'mine'


def test_out_through_a_dangling_symlink_creates_its_target(tmp_path):
    link = tmp_path/'link'; link.symlink_to(tmp_path/'later', target_is_directory=True)
    _rep(A).save(link)
    assert link.is_symlink() and (tmp_path/'later'/'report.html').is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ['later', 'link']


def test_out_through_a_symlink_loop_is_one_clear_line(tmp_path):
    (tmp_path/'a').symlink_to(tmp_path/'b'); (tmp_path/'b').symlink_to(tmp_path/'a')
    with pytest.raises(OSError, match=r"output path '.*/a' cannot be resolved \(Symlink loop.*\): choose another --out"):
        publish.check_out_dir(tmp_path/'a')


def test_cli_out_through_a_symlink_twice(tmp_path):
    r = np.random.default_rng(0)
    y = np.resize(['a', 'b', 'c'], 90)
    pd.DataFrame({'x': r.normal(size=90) + (y == 'a'), 'z': r.normal(size=90), 'target': y}).to_csv(tmp_path/'d.csv', index=False)
    target, link = tmp_path/'t', tmp_path/'l'
    target.mkdir(); link.symlink_to(target, target_is_directory=True)
    for _ in range(2):
        code, err = _cli(['report', tmp_path/'d.csv', '--out', link] + QUICK)
        assert code == 0, err
        assert link.is_symlink() and (target/'report.html').is_file() and (target/'.cache').is_dir()
        assert sorted(p.name for p in tmp_path.iterdir()) == ['d.csv', 'l', 't'], sorted(p.name for p in tmp_path.iterdir())


# ---- a kill at every step of a publication beside foreign files: a reader never sees a mixed report ------------------
def _exactly(folder:Path, want:dict, other:dict)->bool:
    "`folder` holds every file of `want` with its hash and no file only `other` has."
    names = {p.name for p in folder.iterdir()}
    return (all((folder/n).is_file() and publish._sha256(folder/n) == h for n, h in want.items())
            and not (set(other) - set(want)) & names)


def _reader_view(folder:Path, old:dict, new:dict)->str:
    "What a reader sees: 'old' or 'new' (the marker lists exactly that report and the folder holds it), 'old' also without the marker while every file is still the old report's, 'none' (no marker, no page, no summary: a publication under way); anything else is 'MIX'."
    names = {p.name for p in folder.iterdir()}
    files = publish.read_marker(folder)
    if not files:
        if not names & {'report.html', 'summary.json'}: return 'none'
        for name, want, other in (('old', old, new), ('new', new, old)):
            if _exactly(folder, {k: v for k, v in want.items() if (folder/k).exists() or k == 'report.html'}, other): return name
        return 'MIX'
    for name, want in (('old', old), ('new', new)):
        if files == want and publish.owned_files(folder) == set(want) and not ((set(old) | set(new)) - set(want)) & names:
            return name
    return 'MIX'


def _die_at(rep, out, k):
    "In a forked child: `rep.save(out, force=True)`, SIGKILLed right after disk step `k`."
    pid = os.fork()
    if pid == 0:
        try:
            publish._after_step = lambda i: os.kill(os.getpid(), signal.SIGKILL) if i == k else None
            rep.save(out, force=True)
        finally: os._exit(3)
    return os.waitpid(pid, 0)[1]


def test_a_kill_at_every_step_beside_foreign_files_never_shows_a_mixed_report(tmp_path):
    old, new = _rep(A), _rep(B)
    probe = tmp_path/'probe'; old.save(probe); (probe/'notes.txt').write_text('mine')
    n = []
    publish._after_step = n.append
    try: new.save(probe, force=True)
    finally: publish._after_step = None
    want_new = publish.read_marker(probe)
    seen = {}
    for k in range(1, len(n) + 1):
        r = tmp_path/f'k{k}'/'r'
        old.save(r); (r/'notes.txt').write_text('mine')
        want_old = publish.read_marker(r)
        status = _die_at(new, r, k)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, (k, status)
        seen[k] = _reader_view(r, want_old, want_new)              # before any recovery: what a reader sees now
        assert seen[k] != 'MIX', (k, sorted(p.name for p in r.iterdir()), publish.read_marker(r))
        publish.recover(r)                                          # the next run finishes it
        assert _reader_view(r, want_old, want_new) in ('old', 'new'), k
        assert (r/'notes.txt').read_text() == 'mine' and not _leftovers(r.parent, r), k
    assert {'old', 'none', 'new'} <= set(seen.values()), seen


# ---- temporary files: removed on every exit path ---------------------------------------------------------------------
class Boom(Exception): pass


def _failing(tables, when):
    "A report whose publication fails: `when`='staging' in a writer, 'committed' while the old folder is cleared away."
    rep = _rep(tables)
    if when == 'staging':
        rep.extra['files'] = {'zz_last.txt': lambda p: (p.write_text('half'), (_ for _ in ()).throw(Boom('disk')))}
    return rep


@pytest.mark.parametrize('mode', ['swap', 'beside'])
@pytest.mark.parametrize('when', ['staging', 'committed'])
def test_an_error_while_publishing_leaves_no_temporary_file(tmp_path, monkeypatch, mode, when):
    r = tmp_path/'r'
    _rep(A).save(r)
    (r/'.cache').mkdir(); (r/'.cache'/'fit.npz').write_text('cached')
    force = mode == 'beside'
    if force: (r/'notes.txt').write_text('mine')
    old = publish.read_marker(r)
    if when == 'committed':                                 # the new report is on disk and committed; then an error
        target = '_move_caches' if mode == 'swap' else '_fsync_dir'
        real = getattr(publish, target)
        calls = []
        def boom(*a):                                       # once, as a Ctrl-C would
            calls.append(a)
            if len(calls) == (1 if mode == 'swap' else 3) and not fired: fired.append(1); raise Boom('late')
            return real(*a)
        fired = []
        monkeypatch.setattr(publish, target, boom)
        if mode == 'beside':                                # fail inside the roll-forward only (after the journal is committed)
            roll = publish._roll_forward
            monkeypatch.setattr(publish, '_roll_forward', lambda *a: (calls.clear(), roll(*a))[1])
    with pytest.raises(Boom):
        _failing(B, when).save(r, force=force)
    monkeypatch.undo()
    assert not _leftovers(tmp_path, r), _leftovers(tmp_path, r)
    files = publish.read_marker(r)
    assert files == old if when == 'staging' else set(files) == {'shared.csv', 'only_b.csv', 'report.html', 'summary.json'}
    assert publish.owned_files(r) == set(files) and (r/'.cache'/'fit.npz').read_text() == 'cached'


def test_a_failed_atomic_write_leaves_no_tmp(tmp_path, monkeypatch):
    def full(fd): raise OSError(errno.ENOSPC, 'No space left on device')
    monkeypatch.setattr(os, 'fsync', full)
    with pytest.raises(OSError, match='No space'):
        publish._write_atomic(tmp_path/'x.json', json.dumps({'a': 1}))
    assert list(tmp_path.iterdir()) == []


def test_sigterm_while_publishing_leaves_no_temporary_file(tmp_path):
    "SIGTERM in the middle of a publication: the process still ends (status 143), after removing the staging folder and journal."
    r = tmp_path/'r'; _rep(A).save(r)
    old = publish.read_marker(r)
    pid = os.fork()
    if pid == 0:
        code = 3
        try:
            publish._after_step = lambda i: os.kill(os.getpid(), signal.SIGTERM) if i == 3 else None
            _rep(B).save(r)
        except SystemExit as e: code = e.code
        finally: os._exit(code if isinstance(code, int) else 4)
    status = os.waitpid(pid, 0)[1]
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 143, status
    assert not _leftovers(tmp_path, r) and publish.read_marker(r) == old
