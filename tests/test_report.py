"""The robustness report (robustdiff.report) and its command line (robustdiff.cli): end to end on tiny data, the CLI's
arguments and one-line errors, the HTML page in Chromium (no console error, no external request, every chart drawn),
and a Dask cluster of separate processes giving the same tables as a local run."""
import contextlib, io, json, os, shutil, socket, subprocess, sys, time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from robustdiff.datasets import make_synthetic
from robustdiff.report import build_report, STAGES
from robustdiff.publish import check_out_dir
from robustdiff.run import connect_scheduler
from robustdiff.cli import main

REPO = Path(__file__).resolve().parents[1]
QUICK = dict(models='quick', respondents='models', n_jobs=1, progress=False, random_state=0)


@pytest.fixture(scope='module')
def tiny():
    return make_synthetic('moons', 150, random_state=1)


@pytest.fixture(scope='module')
def full_report(tiny, tmp_path_factory):
    out = tmp_path_factory.mktemp('rep')/'report'
    rep = build_report(tiny, out=out, **QUICK)
    return rep, out


def test_every_stage_runs(full_report):
    rep, out = full_report
    status = {k: s.status for k, s in rep.stages.items()}
    assert status == {k: 'ok' for k in STAGES}, {k: (s.status, s.message) for k, s in rep.stages.items()}
    v = rep.verdict
    assert sorted(v.model.unique()) == ['cart', 'knn3', 'logreg', 'majority class', 'nb']
    for m in ('score', 'break_hard', 'flip_hard', 'kappa_hard', 'score_change_hard', 'ela', 'rla', 'break_labels', 'break_perturbed',
              'flip_perturbed', 'drop_hardest'):
        assert v[v.measure == m][['value', 'lo', 'hi']].notna().all().all(), m
    assert 1 <= len(rep.answer) <= 5
    files = {p.name for p in out.iterdir()}
    assert {'report.html', 'summary.json', 'verdict.csv', 'scc.csv', 'ela.csv', 'perturbation.csv', 'hardness.csv'} <= files
    s = json.loads((out/'summary.json').read_text())
    assert s['robustdiff_report'] == 1 and set(s['stages']) == set(STAGES)


def test_tables_match_the_saved_csv(full_report):
    rep, out = full_report
    for name in ('verdict', 'accuracy', 'scc'):
        saved = pd.read_csv(out/f'{name}.csv')
        assert len(saved) == len(rep.table(name))
        num = rep.table(name).select_dtypes('number').columns
        np.testing.assert_allclose(saved[num].to_numpy(float), rep.table(name)[num].to_numpy(float), rtol=1e-9, equal_nan=True)


def test_rerun_from_cache_is_identical(tiny, full_report, tmp_path):
    rep, out = full_report
    again = build_report(tiny, out=out, **QUICK)                  # same folder: a report folder, reused cache
    for name in ('accuracy', 'scc', 'verdict'):
        pd.testing.assert_frame_equal(again.table(name), rep.table(name))


def test_accuracy_beside_kappa(tiny, full_report):
    "Table scc_accuracy and chart scc_acc: per bin, clean accuracy (recomputed here from the predictions) and accuracy and κ at the largest λ."
    import re
    from robustdiff.scc import noisy_predictions
    rep, out = full_report
    c = rep.config
    sa, curves, bins = rep.table('scc_accuracy'), rep.table('scc'), rep.table('bins')
    preds = noisy_predictions(tiny, c['models'], perturbation=c['nu'], n_splits=c['n_splits'], n_repeats=1, random_state=c['random_state'], n_jobs=1, backend=None, progress=False)
    p = preds.drop_duplicates(['model', 'instance']).merge(bins[['instance', 'bin']], on='instance')
    own = (p.y_pred == p.y_true).groupby([p.model, p.bin]).mean()
    s = sa.set_index(['model', 'bin'])
    assert sorted(s.index) == sorted(own.index) and not s.index.duplicated().any()
    np.testing.assert_allclose(s.acc_clean.loc[own.index].to_numpy(), own.to_numpy(), rtol=0, atol=1e-12)
    assert own.groupby(level='bin').mean().std() > 0, 'moons: the bins must differ in accuracy for this test to bite'
    top = curves[np.isclose(curves.lam, max(c['lambdas']))].set_index(['model', 'bin'])
    np.testing.assert_allclose(s.acc_noisy.to_numpy(), top.acc.loc[s.index].to_numpy(), rtol=0, atol=1e-12)
    np.testing.assert_allclose(s.kappa_noisy.to_numpy(), top.kappa.loc[s.index].to_numpy(), rtol=0, atol=1e-12)
    assert len(pd.read_csv(out/'scc_accuracy.csv')) == len(sa)
    chart = rep.stages['scc'].charts['scc_acc'].to_dict()
    assert chart['spec']['layer'][0]['encoding']['y']['field'] == 'score' and chart['facet']['field'] == 'model'   # the chosen metric
    if rep.config['metric'] == 'accuracy': np.testing.assert_allclose(curves.score, curves.acc, rtol=0, atol=1e-12)
    page = (out/'report.html').read_text()
    assert 'id="chart-scc_acc"><svg' in page and 'table <code>scc_accuracy</code>' in page
    vb = rep.table('verdict_bins')          # the verdict's per-bin figures are the table's (and the curves')
    for meas, col in (('acc_change', 'acc_change'), ('kappa', 'kappa_noisy'), ('acc_clean', 'acc_clean')):
        t = vb[vb.measure == meas].set_index(['model', 'bin'])
        np.testing.assert_allclose(t.value.loc[s.index].to_numpy(), s[col].to_numpy(), rtol=0, atol=1e-12)
    for sentence in rep.table('verdict_models').sentence:     # a break rate quoted comes with its interval, the flip rate and the score there
        assert re.search(r'\d+ % \(\d+ % to \d+ %\) of its correct predictions turn wrong on the hardest \d+ %, \d+ % flip, accuracy '
                         r'\d\.\d{3} \(\d\.\d+ to \d\.\d+\)', sentence) or 'not better than' in sentence, sentence


def test_gzip_outputs_are_byte_reproducible(tmp_path):
    from robustdiff.publish import _write_csv
    df = pd.DataFrame({'a': range(1000)})
    _write_csv(df, tmp_path/'x.csv.gz'); a = (tmp_path/'x.csv.gz').read_bytes()
    time.sleep(1.1)
    _write_csv(df, tmp_path/'x.csv.gz'); b = (tmp_path/'x.csv.gz').read_bytes()
    assert a == b


def test_a_failing_stage_does_not_stop_the_report(tiny, monkeypatch):
    from robustdiff import ela_report
    def boom(ctx, st): raise RuntimeError('boom')
    monkeypatch.setattr(ela_report, 'report_stage', boom)
    rep = build_report(tiny, stages='accuracy,ela,verdict', **QUICK)
    assert rep.stages['ela'].status == 'failed' and 'boom' in rep.stages['ela'].message
    assert rep.stages['verdict'].status == 'ok' and not {'rla', 'break_labels'} & set(rep.verdict.measure)
    assert 'RuntimeError: boom' in __import__('robustdiff.page', fromlist=['render_html']).render_html(rep)


# ------------------------------------------------------------------ bad input, before any work

def _csv(tmp_path, df, name='d.csv'):
    p = tmp_path/name; df.to_csv(p, index=False); return p


@pytest.mark.parametrize('case, fragment', [
    ('missing_target', "target column 'label' not in the data"),
    ('one_class', 'class'),
    ('unparsable', 'CSV'),
    ('target_collides', 'label'),
    ('other_files', 'not a robustdiff report'),
    ('not_a_folder', 'not a folder'),
    ('unknown_stage', 'unknown stage'),
    ('unknown_models', 'unknown portfolio'),
])
def test_cli_user_errors(case, fragment, tmp_path):
    rng = np.random.default_rng(0)
    good = pd.DataFrame({'x1': rng.normal(size=60), 'x2': rng.normal(size=60), 'label': np.repeat(['a', 'b'], 30)})
    out = tmp_path/'out'
    args = ['report', str(_csv(tmp_path, good)), '--target', 'label', '--models', 'quick', '--respondents', 'models']
    if case == 'missing_target': args = ['report', str(_csv(tmp_path, good.drop(columns='label'))), '--target', 'label']
    elif case == 'one_class': args[1] = str(_csv(tmp_path, good.assign(label='a')))
    elif case == 'unparsable':
        p = tmp_path/'bad.csv'; p.write_bytes(b'\x00\x01\x02"unterminated\n\xff\xfe,,,\n"')
        args[1] = str(p)
    elif case == 'target_collides':
        p = tmp_path/'dup.csv'; p.write_text('x1,label,label\n' + ''.join(f'{rng.normal():.4f},{"ab"[i % 2]},{"ab"[i % 2]}\n' for i in range(60)))
        args[1] = str(p)
    elif case == 'other_files': out.mkdir(); (out/'thesis.tex').write_text('mine')
    elif case == 'not_a_folder': out.write_text('a file')
    elif case == 'unknown_stage': args += ['--stages', 'accuracy,nope']
    elif case == 'unknown_models': args[args.index('quick')] = 'nope'
    err = io.StringIO()
    t0 = time.perf_counter()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(args + ['--out', str(out), '--quiet', '--n-jobs', '1'])
    msg = err.getvalue()
    assert code == 2, (case, msg)
    assert msg.startswith('robustdiff: error: ') and msg.count('\n') == 1, msg
    assert fragment.lower() in msg.lower(), (case, msg)
    assert time.perf_counter() - t0 < 10, 'errors are found before any fitting'


def test_unwritable_folder_is_found_first(tmp_path):
    if os.geteuid() == 0:
        # root writes anywhere; a path below a regular file cannot be created by anyone
        (tmp_path/'f').write_text('x')
        with pytest.raises((NotADirectoryError, PermissionError, FileExistsError, OSError)): check_out_dir(tmp_path/'f'/'sub')
    else:
        ro = tmp_path/'ro'; ro.mkdir(); ro.chmod(0o500)
        with pytest.raises(PermissionError, match='not writable'): check_out_dir(ro/'x')


def test_scheduler_that_does_not_answer_fails_fast():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0)); port = s.getsockname()[1]       # a free port: nobody listens there
    t0 = time.perf_counter()
    with pytest.raises(ConnectionError, match='no Dask scheduler answered'):
        connect_scheduler(f'tcp://127.0.0.1:{port}', timeout=2)
    assert time.perf_counter() - t0 < 15


def test_cli_report_and_existing_report_folder(tiny, tmp_path):
    p = tmp_path/'moons.csv'
    pd.concat([tiny.X, tiny.y.rename('y')], axis=1).to_csv(p, index=False)
    args = ['report', str(p), '--target', 'y', '--models', 'quick', '--respondents', 'models', '--stages', 'accuracy,difficulty,scc,verdict',
            '--out', str(tmp_path/'r'), '--quiet', '--n-jobs', '1']
    out = io.StringIO()
    with contextlib.redirect_stdout(out): assert main(args) == 0
    assert 'report.html' in out.getvalue() and 'logreg:' in out.getvalue()
    with contextlib.redirect_stdout(io.StringIO()): assert main(args) == 0      # a report folder may be rewritten


# ------------------------------------------------------------------ the page in Chromium

def test_report_page_in_browser(full_report, tmp_path):
    sys.path.insert(0, str(REPO/'tools'))
    import browser_check
    if browser_check.chromium_path() is None:
        if os.environ.get('CI'): pytest.fail('Chromium is missing: .ci/run must apt-get install chromium')
        pytest.skip('no Chromium (apt-get install chromium)')
    rep, out = full_report
    shot = tmp_path/'report.png'
    res = browser_check.check_site(out, pages=['report.html'], shots={'report.html': [str(shot)]})
    assert res['problems'] == [] and res['external'] == [], res['problems']
    assert shot.stat().st_size > 10_000
    html = (out/'report.html').read_text()
    n_charts = html.count('class="chart"')
    assert n_charts >= 6
    with browser_check.serve(out) as base, browser_check.browser() as b:
        page = b.new_page()
        page.goto(base + 'report.html')
        drawn = page.evaluate("() => [...document.querySelectorAll('.chart > svg')].filter(s => s.getBoundingClientRect().width > 50 && s.querySelectorAll('path, rect, circle, line').length > 3).length")
        sections = page.evaluate("() => [...document.querySelectorAll('section h2')].map(h => h.innerText)")
    assert drawn == n_charts
    assert any('Verdict' in s or 'answer' in s.lower() for s in sections) and len(sections) >= 8


# ------------------------------------------------------------------ a Dask cluster of separate processes

@pytest.fixture(scope='module')
def dask_cluster(tmp_path_factory):
    pytest.importorskip('distributed')
    d = tmp_path_factory.mktemp('dask')
    sf = d/'scheduler.json'
    bindir = Path(sys.executable).parent
    env = dict(os.environ, DASK_DISTRIBUTED__WORKER__DAEMON='False', PYTHONPATH=str(REPO))
    sched = subprocess.Popen([str(bindir/'dask'), 'scheduler', '--host', '127.0.0.1', '--port', '0', '--no-dashboard',
                              '--scheduler-file', str(sf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    for _ in range(100):
        if sf.exists() and sf.stat().st_size: break
        time.sleep(0.2)
    worker = subprocess.Popen([str(bindir/'dask'), 'worker', '--scheduler-file', str(sf), '--nworkers', '2', '--nthreads', '1',
                               '--no-dashboard', '--host', '127.0.0.1'], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    address = json.loads(sf.read_text())['address']
    from distributed import Client
    with Client(address, timeout=20) as c: c.wait_for_workers(2, timeout=60)
    yield address
    worker.terminate(); sched.terminate()
    worker.wait(20); sched.wait(20)


def test_dask_cluster_gives_identical_tables(tiny, dask_cluster):
    kw = dict(QUICK, stages='accuracy,difficulty,scc,verdict')
    local = build_report(tiny, **kw)
    remote = build_report(tiny, scheduler=dask_cluster, **dict(kw, n_jobs=2))
    assert remote.config['scheduler'] == dask_cluster
    for name in ('accuracy', 'difficulty', 'scc', 'verdict'):
        pd.testing.assert_frame_equal(local.table(name), remote.table(name))



def test_summary_and_page_state_what_ran(tmp_path):
    "summary.json and the page say what was run: no IH pool when IH comes from the evaluated models, the perturbation levels and the verdict's, the columns --drop removed, and how ordered classes of unknown names are treated."
    r = np.random.default_rng(0)
    n = 240
    x = r.normal(size=(n, 2))
    y = np.array(['VF', 'F', 'M', 'L'])[np.digitize(x[:, 0] + 0.3 * r.normal(size=n), [-0.5, 0.3, 1.0])]
    p = tmp_path/'jobs.csv'
    pd.DataFrame({'job': [f'j{i:04d}' for i in range(n)], 'a': x[:, 0], 'b': x[:, 1], 'runtime': y}).to_csv(p, index=False)
    out = tmp_path/'rep'
    rep = build_report(str(p), target='runtime', stages='data,accuracy', out=out, csv_kws=dict(drop=['job']), **QUICK)
    c = json.loads((out/'summary.json').read_text())['config']
    assert c['dropped'] == ['job'] and c['ih_pool'] == 'models' and c['hardness_models'] is None
    assert c['perturb_levels'] == pytest.approx([0, 0.1, 0.2, 0.3, 0.4]) and c['verdict_perturb_level'] == pytest.approx(0.4)
    page = (out/'report.html').read_text()
    assert 'columns left out as asked (--drop): job' in page
    assert 'Class order: every metric here treats the classes as unordered labels' in page and '(F, L, M, VF)' in page


def test_a_duplicate_model_name_and_too_many_noise_draws_are_refused(tiny):
    "A model of yours named like one of the portfolio beside it, and noise_draws above its bound: one line each, before any fit."
    from sklearn.linear_model import LogisticRegression
    with pytest.raises(ValueError, match=r"model name 'logreg' is already in the portfolio 'quick' \(logreg, .*\): give yours another name"):
        build_report(tiny, **(QUICK | dict(models=['quick', ('logreg', LogisticRegression())])))
    with pytest.raises(ValueError, match='noise_draws must be an int from 1 to 100, got 101'):
        build_report(tiny, noise_draws=101, **QUICK)
    rep = build_report(tiny, stages='data', **(QUICK | dict(models=['quick', ('my_logreg', LogisticRegression())])))
    assert 'my_logreg' in rep.config['models']


# the verdict, its pairs, each noise's front and the headline for any n_jobs: tests/test_run_beside.py (every table)
