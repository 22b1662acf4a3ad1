"""Reliability III (issue 37): a class named "NA" is data, a crash mid-publish never leaves a mixed report, and every
failure speaks the user's language. Each test names the numbered case of the issue it covers; each failed on the
code before the fix (the case list of the issue is the record of the old behaviour)."""
import contextlib, io, json, os, pathlib, random, signal, socket, subprocess, sys, textwrap, threading, time, warnings
import numpy as np, pandas as pd, pytest
from robustdiff.cli import main
from robustdiff.data import from_frame, DataWarning
from robustdiff.tables import from_file
from robustdiff.report import Report, Stage
from robustdiff import publish

QUICK = ['--models', 'quick', '--respondents', 'models', '--stages', 'accuracy', '--n-jobs', '1', '--quiet']

def _cli(args, cwd=None):
    "(exit code, stdout, stderr) of `robustdiff ARGS` (in folder `cwd`)."
    o, e = io.StringIO(), io.StringIO()
    old = os.getcwd()
    if cwd is not None: os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(o), contextlib.redirect_stderr(e), warnings.catch_warnings():
            warnings.simplefilter('ignore')
            code = main([str(a) for a in args])
    finally: os.chdir(old)
    return code, o.getvalue(), e.getvalue()

def _frame(n=120, classes=('NA', 'yes', 'no'), seed=0):
    r = np.random.default_rng(seed)
    y = np.resize(np.repeat(classes, n // len(classes)), n)
    return pd.DataFrame({'x': r.normal(size=n) + (y == classes[0]), 'z': r.normal(size=n), 'target': y})

def _csv(tmp, df, name='d.csv'):
    p = tmp/name; df.to_csv(p, index=False); return p

def _one_line(err): return err.count('\n') == 1 and err.startswith('robustdiff: ')

# ---- 1: labels named NA, None, null, N/A are classes; only an empty cell is a missing label --------------------------
@pytest.mark.parametrize('name', ['NA', 'None', 'null', 'N/A'])
def test_1_a_class_named_like_missing_is_data(tmp_path, name):
    code, _, err = _cli(['report', _csv(tmp_path, _frame(classes=(name, 'yes', 'no'))), '--out', tmp_path/'r'] + QUICK)
    assert code == 0, err
    summary = json.loads((tmp_path/'r'/'summary.json').read_text())
    assert summary['intake']['rows_dropped'] == 0
    classes = pd.read_csv(tmp_path/'r'/'classes.csv', keep_default_na=False)
    assert sorted(classes['class']) == sorted([name, 'yes', 'no']) and classes.n.sum() == 120

def test_1_empty_labels_are_dropped_and_said_so_on_the_page_and_in_summary(tmp_path):
    df = _frame(); df.loc[:6, 'target'] = np.nan                 # 7 empty cells
    code, _, err = _cli(['report', _csv(tmp_path, df), '--out', tmp_path/'r'] + QUICK)
    assert code == 0, err
    summary = json.loads((tmp_path/'r'/'summary.json').read_text())
    assert summary['intake']['rows_dropped'] == 7 and 'empty cell' in summary['intake']['notes'][0]
    assert '7 rows without a label (an empty cell' in (tmp_path/'r'/'report.html').read_text()

def test_1_the_user_can_name_missing_markers_for_the_target(tmp_path):
    ds = from_file(_csv(tmp_path, _frame()), 'target', na_values=['NA'])
    assert ds.n_instances == 80 and ds.n_classes == 2 and '40 rows without a label' in ds.notes[0]

# ---- 2: Excel formulas without a stored value are an error naming the cells ------------------------------------------
def _xlsx(path, rows, header=('x', 'w', 'target'), sheets=('data',)):
    import openpyxl
    wb = openpyxl.Workbook(); ws = wb.active; ws.title = sheets[0]; ws.append(list(header))
    for r in rows: ws.append(list(r))
    for s in sheets[1:]: wb.create_sheet(s)
    wb.save(path); return path

def test_2_excel_formulas_without_values_are_refused_naming_the_cells(tmp_path):
    r = np.random.default_rng(0)
    p = _xlsx(tmp_path/'f.xlsx', [(float(r.normal()), f'=A{i + 2}*2', 'ab'[i % 2]) for i in range(40)])
    code, _, err = _cli(['report', p, '--out', tmp_path/'r'] + QUICK)
    assert code == 2 and _one_line(err), err
    assert "40 cell(s) hold formulas without a stored value (B2, B3" in err and 'save it' in err
    assert not (tmp_path/'r').exists()

# ---- 3: a near-copy of the label is named as a possible leak, with the agreement found ------------------------------
def test_3_label_copy_with_3_percent_flipped_is_a_leak(tmp_path):
    r = np.random.default_rng(2)
    df = _frame(200, ('a', 'b'), seed=2)
    flip = r.permutation(200) < 6                                 # 3 %
    df['flag'] = np.where(flip, df.target != 'a', df.target == 'a').astype(int)
    code, _, err = _cli(['report', _csv(tmp_path, df), '--out', tmp_path/'r'] + QUICK)
    assert code == 0
    assert "possible label leak: column 'flag' alone agrees with the label on 97.0% of the rows" in err, err
    assert 'near-copy of the label' in err and '--drop flag' in err

# ---- 4, 5: publishing under a journal: every kill point leaves the old or the new report (after recovery) -------------
A = {'shared': pd.DataFrame({'v': [1, 2, 3]}), 'only_a': pd.DataFrame({'a': ['x', 'y']})}
B = {'shared': pd.DataFrame({'v': [4, 5, 6, 7]}), 'only_b': pd.DataFrame({'b': [0.5]})}

def _rep(tables): return Report('t', {'data': Stage('data', 'ok', tables=tables)}, {})

def _state(folder, old:dict, new:dict)->str:
    "'old' / 'new' when the folder holds exactly that report (the marker's SHA-256 list, every file, nothing of the other), else 'MIX'."
    for name, want in (('old', old), ('new', new)):
        files = publish.read_marker(folder)
        if files == want and publish.owned_files(folder) == set(want) and not (set(old) | set(new)) - set(want) & \
           {p.name for p in folder.iterdir()}:
            return name
    return 'MIX'

def _kill_child(fn, *args):
    pid = os.fork()
    if pid == 0:
        try: fn(*args)
        finally: os._exit(3)
    return os.waitpid(pid, 0)[1]

def _save_and_die_at(rep, out, k, force):
    "In a forked child: `rep.save(out)`, SIGKILLed right after disk step `k`."
    publish._after_step = lambda i: os.kill(os.getpid(), signal.SIGKILL) if i == k else None
    rep.save(out, force=force); os._exit(0)

def _steps(rep, out, force):
    n = []
    publish._after_step = n.append
    try: rep.save(out, force=force)
    finally: publish._after_step = None
    return len(n)

@pytest.mark.parametrize('mode', ['swap', 'beside'])
def test_4_random_kill_points_leave_exactly_the_old_or_the_new_report(tmp_path, mode):
    "A property test: for random kill points (and every one of the first and last steps) the folder, once the next run has recovered, holds exactly one report."
    old, new = _rep(A), _rep(B)
    force = mode == 'beside'
    probe = tmp_path/'probe'/'r'; old.save(probe)
    if force: (probe/'notes.txt').write_text('mine')
    total = _steps(new, probe, force)
    assert total >= 8
    rng = random.Random(37)
    points = sorted(set(range(1, 4)) | set(range(total - 3, total + 1)) | set(rng.sample(range(1, total + 1), min(total, 8))))
    seen = []
    for k in points:
        r = tmp_path/f'k{k}'/'r'
        old.save(r); (r/'.cache').mkdir(); (r/'.cache'/'fit.npz').write_text('cached')
        if force: (r/'notes.txt').write_text('mine')
        want_old = publish.read_marker(r)
        status = _kill_child(_save_and_die_at, new, r, k, force)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, (k, status)
        publish.recover(r)                                        # what the next run does first, under the lock
        want_new = publish.read_marker(tmp_path/'probe'/'r')
        got = _state(r, want_old, want_new)
        assert got != 'MIX', (k, sorted(p.name for p in r.iterdir()), publish.read_marker(r))
        seen.append(got)
        assert (r/'.cache'/'fit.npz').read_text() == 'cached', k   # the fit cache survives
        if force: assert (r/'notes.txt').read_text() == 'mine', k
        left = sorted(p.name for p in r.parent.iterdir() if p.name != 'r')
        inside = sorted(p.name for p in r.iterdir() if p.name.startswith('.robustdiff-') and p.name != publish._MARKER)
        assert not left and not inside, (k, left, inside)          # no journal, staging folder or lock left
        new.save(r, force=force)                                  # and the rerun needs no more than the first run did
        assert _state(r, want_old, want_new) == 'new', k
    assert 'old' in seen and 'new' in seen, seen

def test_5_a_kill_while_the_journal_is_written_never_blocks_the_next_run(tmp_path):
    "The journal (the former COMMIT marker) is written aside, synced and renamed: a truncated aside copy is discarded."
    r = tmp_path/'r'; _rep(A).save(r)
    (tmp_path/'.r.robustdiff-journal.tmp').write_text('{"format": "robustdiff-journal-1", "tok')   # truncated mid-write
    _rep(B).save(r)
    assert set(publish.read_marker(r)) == {'shared.csv', 'only_b.csv', 'report.html', 'summary.json'}
    assert sorted(p.name for p in tmp_path.iterdir()) == ['r']

def test_5_marker_and_journal_are_written_aside_and_renamed(tmp_path, monkeypatch):
    "Every write of a marker or journal goes through a synced file renamed over the real one."
    seen = []
    real = os.replace
    monkeypatch.setattr(os, 'replace', lambda a, b: (seen.append((pathlib.Path(a).name, pathlib.Path(b).name)), real(a, b))[1])
    syncs = []
    real_sync = os.fsync
    monkeypatch.setattr(os, 'fsync', lambda fd: (syncs.append(fd), real_sync(fd))[1])
    r = tmp_path/'r'; _rep(A).save(r); (r/'mine.txt').write_text('x'); _rep(B).save(r, force=True)
    names = {b for a, b in seen if a == b + '.tmp'}
    assert {publish._MARKER, '.r.robustdiff-journal'} <= names, seen
    assert len(syncs) >= 8

def _publisher_in_new_pid_namespace(tmp, out, k):
    "A script that publishes B into `out` and SIGKILLs itself after step `k`, run as PID 1 of a new PID namespace."
    script = tmp/'pub.py'
    script.write_text(textwrap.dedent(f'''
        import os, signal, pandas as pd
        from robustdiff import publish
        from robustdiff.report import Report, Stage
        print("pid", os.getpid(), flush=True)
        publish._after_step = lambda i: os._exit(137) if i == {k} else None   # (PID 1 ignores its own SIGKILL)
        Report('t', {{'data': Stage('data', 'ok', tables={{'shared': pd.DataFrame({{'v': [4, 5, 6, 7]}}),
                                                           'only_b': pd.DataFrame({{'b': [0.5]}})}})}}, {{}}).save({str(out)!r}, force=True)
    '''))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.run(['unshare', '--user', '--map-root-user', '--pid', '--fork', '--mount-proc', sys.executable, str(script)],
                          env=env, capture_output=True, text=True, timeout=120)

def test_4_a_run_killed_in_a_pid_namespace_is_recovered(tmp_path):
    "In a container the killed run's PID (1, 2, ...) is alive outside it: ownership is a token and the lock, never a PID."
    r = tmp_path/'r'; _rep(A).save(r); (r/'notes.txt').write_text('mine')
    want_old = publish.read_marker(r)
    probe = tmp_path/'probe'; _rep(B).save(probe); want_new = publish.read_marker(probe)
    r2 = tmp_path/'probe2'; _rep(A).save(r2); (r2/'notes.txt').write_text('mine')
    k = _steps(_rep(B), r2, True) - 5                             # after two of the four files moved in
    try: p = _publisher_in_new_pid_namespace(tmp_path, r, k)
    except (FileNotFoundError, subprocess.TimeoutExpired): p = None
    if p is None or 'pid 1' not in p.stdout:                      # no unshare here: simulate the foreign live PID instead
        status = _kill_child(_save_and_die_at, _rep(B), r, k, True)
        assert os.WIFSIGNALED(status)
        j = r/'.robustdiff-journal' if (r/'.robustdiff-journal').exists() else tmp_path/'.r.robustdiff-journal'
        assert j.exists() and str(os.getppid()) not in j.name    # nothing names a PID, so a live one cannot block it
    assert _state(r, want_old, want_new) == 'MIX', (p and (p.stdout, p.stderr[-500:]))   # killed mid-way beside a user's file ...
    _rep(B).save(r, force=True)                                   # ... the next run finishes it and publishes
    assert _state(r, want_old, want_new) == 'new' and (r/'notes.txt').read_text() == 'mine'

def test_4_concurrent_runs_are_serialised_by_a_lock_with_a_clear_message(tmp_path):
    r = tmp_path/'r'; _rep(A).save(r)
    ready, done = os.pipe(), os.pipe()
    pid = os.fork()
    if pid == 0:                                                  # another run, in the middle of its publication
        try:
            with publish._locked(r):
                os.write(ready[1], b'1'); os.read(done[0], 1)
        finally: os._exit(0)
    os.close(ready[1])
    assert os.read(ready[0], 1) == b'1'                           # (EOF if the child could not take the lock)
    try:
        real = publish._locked
        with pytest.raises(FileExistsError, match='another robustdiff run is publishing into .* wait until it ends'):
            with real(r, wait=0.5): pass
    finally:
        os.write(done[1], b'1'); os.waitpid(pid, 0)
    _rep(B).save(r)                                               # once it ends, the next run proceeds
    assert 'only_b.csv' in publish.read_marker(r)

def test_7_only_files_a_journal_lists_are_ever_deleted(tmp_path):
    "A refused run (no --force) deletes nothing, and no run deletes what merely looks like a leftover of robustdiff."
    r = tmp_path/'r'; r.mkdir()
    for name in ('.partial-999999999', '.robustdiff-staging-123', '.write-test-77'): (r/name).write_text('mine')
    (r/'thesis.docx').write_text('precious'); (tmp_path/'.r.robustdiff-new-999999997').mkdir()
    before = sorted(p.name for p in r.iterdir())
    code, _, err = _cli(['report', _csv(tmp_path, _frame(90, ('a', 'b', 'c'))), '--out', r] + QUICK)
    assert code == 2 and _one_line(err) and '--force' in err, err
    assert sorted(p.name for p in r.iterdir()) == before and (tmp_path/'.r.robustdiff-new-999999997').is_dir()
    code, _, err = _cli(['report', _csv(tmp_path, _frame(90, ('a', 'b', 'c'))), '--out', r, '--force'] + QUICK)
    assert code == 0, err
    assert set(before) <= {p.name for p in r.iterdir()} and (tmp_path/'.r.robustdiff-new-999999997').is_dir()

def test_killed_first_run_does_not_need_force(tmp_path):
    "A first run killed while publishing (or before: only its cache exists) leaves nothing that makes the rerun need --force."
    data = _csv(tmp_path, _frame(90, ('a', 'b', 'c')))
    total = _steps(_rep(A), tmp_path/'probe', False)
    for k in (1, total // 2, total - 1):
        r = tmp_path/f'k{k}'/'r'; r.mkdir(parents=True); (r/'.cache').mkdir()
        _kill_child(_save_and_die_at, _rep(A), r, k, False)
        code, _, err = _cli(['report', data, '--out', r] + QUICK)
        assert code == 0, (k, err)
        assert sorted(p.name for p in r.parent.iterdir()) == ['r'], k

# ---- 6: --out . and a cache inside OUT -----------------------------------------------------------------------------
def test_6_out_dot_never_moves_the_callers_folder(tmp_path):
    data = _csv(tmp_path, _frame(90, ('a', 'b', 'c')))
    here = tmp_path/'here'; here.mkdir()
    ino = here.stat().st_ino
    for _ in range(2):                                            # a first report, then a rerun replacing it
        code, _, err = _cli(['report', data, '--out', '.'] + QUICK, cwd=here)
        assert code == 0, err
        assert here.stat().st_ino == ino and (here/'report.html').is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ['d.csv', 'here']

def test_6_a_cache_inside_out_is_the_runs_own(tmp_path):
    data = _csv(tmp_path, _frame(90, ('a', 'b', 'c')))
    for _ in range(2):                                            # the rerun resumes from it, into the same folder
        code, _, err = _cli(['report', data, '--out', tmp_path/'r', '--cache', tmp_path/'r'/'cache'] + QUICK)
        assert code == 0, err
        assert (tmp_path/'r'/'cache').is_dir() and any((tmp_path/'r'/'cache').glob('*.npz'))

# ---- 8: messages in one line, in the command line's terms ------------------------------------------------------------
def test_8_parquet_with_duplicate_columns_one_line(tmp_path):
    import pyarrow as pa, pyarrow.parquet as pq
    pq.write_table(pa.Table.from_arrays([pa.array(np.arange(30.)), pa.array(np.ones(30)), pa.array(['a', 'b'] * 15)],
                                        names=['x', 'x', 'target']), tmp_path/'d.parquet')
    code, _, err = _cli(['report', tmp_path/'d.parquet', '--out', tmp_path/'r'] + QUICK)
    assert code == 2 and _one_line(err) and "holds the column name(s) ['x'] more than once" in err, err

def test_8_damaged_parquet_one_line(tmp_path):
    (tmp_path/'d.parquet').write_bytes(b'PAR1' + b'\0' * 64)
    code, _, err = _cli(['report', tmp_path/'d.parquet', '--out', tmp_path/'r'] + QUICK)
    assert code == 2 and _one_line(err) and 'could not be read as Parquet' in err, err

def test_8_a_server_that_is_not_dask_one_line_and_nothing_created(tmp_path):
    srv = socket.socket(); srv.bind(('127.0.0.1', 0)); srv.listen(4)
    port = srv.getsockname()[1]
    def answer():
        while True:
            try: c, _ = srv.accept()
            except OSError: return
            try: c.recv(1024); c.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok' * 8)
            except OSError: pass
            finally: c.close()
    threading.Thread(target=answer, daemon=True).start()
    try: code, _, err = _cli(['report', _csv(tmp_path, _frame(90, ('a', 'b', 'c'))), '--out', tmp_path/'r',
                              '--scheduler', f'tcp://127.0.0.1:{port}'] + QUICK)
    finally: srv.close()
    assert code == 2 and _one_line(err) and 'no Dask scheduler answered' in err and 'EiB' not in err, err
    assert not (tmp_path/'r').exists()                            # 9: OUT is not created before the scheduler check

def test_8_a_lost_scheduler_fails_the_run_and_publishes_nothing(tmp_path, monkeypatch):
    import robustdiff.report as report
    class Lost:                                                  # a client whose scheduler went away during the fits
        status = 'running'
        def close(self): pass
    client = Lost()
    def schedule(ctx):
        client.status = 'connecting'; raise OSError('Timed out trying to connect to tcp://127.0.0.1:8786')
    monkeypatch.setattr(report, 'connect_scheduler', lambda address: client)
    monkeypatch.setattr(report, '_schedule', schedule)
    code, _, err = _cli(['report', _csv(tmp_path, _frame(90, ('a', 'b', 'c'))), '--out', tmp_path/'r',
                         '--scheduler', 'tcp://127.0.0.1:8786'] + QUICK)
    assert code == 1 and _one_line(err) and 'was lost during the run' in err and 'rerun the same command' in err, err
    assert not (tmp_path/'r'/'report.html').exists()

def test_8_empty_target_column_says_so(tmp_path):
    df = _frame(90, ('a', 'b', 'c')); df['target'] = np.nan
    code, _, err = _cli(['report', _csv(tmp_path, df), '--out', tmp_path/'r'] + QUICK)
    assert code == 2 and _one_line(err) and "the target column 'target' is empty in all 90 rows" in err, err

def test_8_ctrl_c_is_one_line_and_exit_130(tmp_path, monkeypatch):
    import robustdiff.cli as cli
    def interrupted(*a, **k): raise KeyboardInterrupt
    monkeypatch.setattr(cli, 'build_report', interrupted)
    code, out, err = _cli(['report', _csv(tmp_path, _frame(90, ('a', 'b', 'c'))), '--out', tmp_path/'r'] + QUICK)
    assert code == 130 and err == 'robustdiff: interrupted; rerun the same command to resume\n' and out == ''

def test_8_task_classification_on_half_grades(tmp_path):
    df = _frame(120, ('a', 'b', 'c')); df['target'] = np.resize([1.5, 2.0, 2.5, 3.0], 120)
    code, _, err = _cli(['report', _csv(tmp_path, df), '--out', tmp_path/'r', '--task', 'classification'] + QUICK)
    assert code == 0, err
    acc = pd.read_csv(tmp_path/'r'/'accuracy.csv')
    assert acc.accuracy.notna().all()
    code, _, err = _cli(['report', _csv(tmp_path, df), '--out', tmp_path/'r2'] + QUICK)   # 'auto': four repeated levels are grades
    assert code == 0, err
    cfg = json.loads((tmp_path/'r2'/'summary.json').read_text())['config']
    assert cfg['task'] == 'classification' and 'pass --task regression if they are amounts' in cfg['task_reason']

def test_8_a_full_disk_is_said_in_one_line_naming_out_and_cache(tmp_path, monkeypatch):
    import errno
    def full(self, path, *a, **k):
        pathlib.Path(path).write_text('partial'); raise OSError(errno.ENOSPC, 'No space left on device')
    monkeypatch.setattr(pd.DataFrame, 'to_csv', full)
    data = tmp_path/'d.csv'; data.write_text('x,z,target\n' + '\n'.join(f'{i % 7},{i % 5},{"ab"[i % 2]}' for i in range(60)))
    code, _, err = _cli(['report', data, '--out', tmp_path/'r'] + QUICK)
    assert code == 1 and _one_line(err) and 'No space left on device' in err and '--cache' in err, err
    assert not [p for p in tmp_path.rglob('*') if '.write-test' in p.name or 'robustdiff-' in p.name]

# ---- 9: --sheet, duplicate Excel headers, a column named 'a,b' -------------------------------------------------------
def test_9_sheet_by_name_or_index_and_a_clear_error(tmp_path):
    import openpyxl
    r = np.random.default_rng(0)
    wb = openpyxl.Workbook(); wb.active.title = 'notes'; wb.active.append(['nothing here'])
    ws = wb.create_sheet('data'); ws.append(['x', 'z', 'target'])
    for i in range(90): ws.append([float(r.normal()), float(r.normal()), 'abc'[i % 3]])
    wb.save(tmp_path/'b.xlsx')
    for sheet in ('data', '1'):
        code, _, err = _cli(['report', tmp_path/'b.xlsx', '--sheet', sheet, '--out', tmp_path/f'r{sheet}'] + QUICK)
        assert code == 0, err
    code, _, err = _cli(['report', tmp_path/'b.xlsx', '--sheet', 'dat', '--out', tmp_path/'rx'] + QUICK)
    assert code == 2 and _one_line(err) and "its sheets are ['notes', 'data']: pass --sheet NAME or --sheet INDEX" in err, err

def test_9_duplicate_excel_headers_are_warned(tmp_path):
    r = np.random.default_rng(0)
    p = _xlsx(tmp_path/'d.xlsx', [(float(r.normal()), float(r.normal()), 'abc'[i % 3]) for i in range(90)], header=('x', 'x', 'target'))
    code, _, err = _cli(['report', p, '--out', tmp_path/'r'] + QUICK)
    assert code == 0
    assert "robustdiff: warning: the header of d.xlsx names the column(s) 'x' more than once" in err, err
    assert 'more than once' in (tmp_path/'r'/'report.html').read_text()

def test_9_a_column_named_with_a_comma_can_be_dropped(tmp_path):
    df = _frame(90, ('a', 'b', 'c')); df.insert(0, 'a,b', np.arange(90))
    code, _, err = _cli(['report', _csv(tmp_path, df), '--out', tmp_path/'r'] + QUICK)
    assert code == 2 and """--drop '"a,b"'""" in err, err
    code, _, err = _cli(['report', _csv(tmp_path, df), '--out', tmp_path/'r', '--drop', '"a,b"'] + QUICK)
    assert code == 0, err

# ---- issue 33, item 6: CLI messages in CLI syntax; the closest column names ------------------------------------------
def test_cli_messages_name_cli_options(tmp_path):
    df = _frame(90, ('a', 'b', 'c')); df.insert(0, 'Unnamed: 0', np.arange(90))
    code, _, err = _cli(['report', _csv(tmp_path, df), '--out', tmp_path/'r'] + QUICK)
    assert code == 2 and '--index-col 0' in err and "--drop 'Unnamed: 0'" in err and '--no-checks' in err, err
    assert 'index_col=' not in err and 'drop=[' not in err and 'checks=False' not in err
    for extra in (['--index-col', '0'], ['--no-checks']):
        code, _, err = _cli(['report', _csv(tmp_path, df), '--out', tmp_path/f'r{extra[0]}'] + extra + QUICK)
        assert code == 0, (extra, err)

def test_misspelt_target_suggests_the_closest_names_case_first(tmp_path):
    r = np.random.default_rng(0)
    df = pd.DataFrame({f'feature_{i:02d}': r.normal(size=30) for i in range(85)})
    df['CLASS'] = np.resize(['a', 'b'], 30)
    code, _, err = _cli(['report', _csv(tmp_path, df), '--target', 'class', '--out', tmp_path/'r'] + QUICK)
    assert code == 2 and _one_line(err), err
    assert "target column 'class' not in the data (86 columns); closest to 'class': 'CLASS'" in err and '--target' in err
    code, _, err = _cli(['report', _csv(tmp_path, df), '--target', 'featur_07', '--out', tmp_path/'r'] + QUICK)
    assert "closest to 'featur_07': 'feature_07'" in err, err
