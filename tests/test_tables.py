"""Real tables in, every chart out: missing values, task checks, file formats, date/ID columns, charts at any size.

A table of bad inputs → the expected error (as in test_data_bad_input.py); what is accepted and the note it leaves;
Parquet/Excel round trips; imputation fitted on the training folds only; a continuous target refused with exit
code 2; a report on a 20 000-row table with every chart (counted in the HTML and in headless Chromium). The
instance-space explorer at 20 000 instances: tests/test_explore_large.py.
"""
import contextlib, json, io, re, shutil, sys
from pathlib import Path
from unittest import mock
import numpy as np, pandas as pd, pytest
from robustdiff.data import Dataset, from_frame, check_task
from robustdiff.tables import from_file, from_csv, read_table
from robustdiff.datasets import load_dataset
from robustdiff.responses import map_folds

ROOT = Path(__file__).resolve().parent
PENGUINS = ROOT/'data'/'penguins_like.csv'
RNG = np.random.default_rng(0)
N = 60
NOISE = pd.DataFrame({'x': RNG.normal(size=N), 'z': RNG.normal(size=N), 'target': np.repeat(['a', 'b'], N // 2)})
CHROMIUM = shutil.which('chromium') or ('/usr/bin/chromium' if Path('/usr/bin/chromium').exists() else None)


def _peng(): return pd.read_csv(PENGUINS)

def _write(tmp, name, frame=None, text=None, **kw):
    p = tmp/name
    if frame is not None: frame.to_csv(p, **kw)
    else: p.write_text(text)
    return p

def _no(*modules): return mock.patch.dict(sys.modules, {m: None for m in modules})   # as if not installed

def _parquet_without_pyarrow(t):
    p = t/'p.parquet'; p.write_bytes(b'PAR1')
    with _no('pyarrow', 'fastparquet'): return read_table(p)

def _excel_without_openpyxl(t):
    p = t/'p.xlsx'; p.write_bytes(b'PK')
    with _no('openpyxl'): return read_table(p)

def _report(t, frame, **kw):
    from robustdiff.report import build_report
    return build_report(Dataset('d', frame.drop(columns='target'), frame.target), stages='accuracy', models='quick',
                        progress=False, **kw)

# (id, f(tmp_path) that must fail, exception class, message fragment)
CASES = [
    ('missing-error-names-every-column', lambda t: from_file(PENGUINS, 'species', missing='error'), ValueError,
     "feature column 'bill_length_mm' has 2 missing; feature column 'bill_depth_mm' has 2 missing; feature column "
     "'flipper_length_mm' has 2 missing; feature column 'body_mass_g' has 2 missing; feature column 'sex' has 11 missing"),
    ('missing-error-says-what-to-do', lambda t: from_file(PENGUINS, 'species', missing='error'), ValueError,
     "pass missing='impute'"),
    ('missing-target-error', lambda t: from_frame(NOISE.assign(target=NOISE.target.where(NOISE.index > 0)), 'target',
     missing='error'), ValueError, "the target 'target' has 1 missing values"),
    ('missing-unknown-mode', lambda t: from_frame(NOISE, 'target', missing='mean'), ValueError,
     "missing must be one of ['impute', 'drop', 'error']"),
    ('missing-empty-column', lambda t: from_frame(NOISE.assign(e=np.nan), 'target'), ValueError,
     "feature column 'e' is empty (no value in any row)"),
    ('missing-every-row', lambda t: from_frame(NOISE.assign(e=[np.nan, 1.] * (N // 2), f=[1., np.nan] * (N // 2)), 'target',
     missing='drop'), ValueError, 'every row has a missing value'),
    ('dataset-missing-drop', lambda t: Dataset('d', NOISE[['x']], NOISE.target, missing='drop'), ValueError,
     "Dataset(missing=...) must be 'impute' or 'error'"),
    ('dataset-nan-names-all', lambda t: Dataset('d', NOISE[['x', 'z']].assign(x=np.nan, z=[np.nan] + [1.] * (N - 1)),
     NOISE.target), ValueError, "feature column 'x' has 60 missing; feature column 'z' has 1 missing"),
    ('folder', lambda t: from_file(t, 'target'), ValueError, 'is a folder, not a table file: pass one file'),
    ('folder-load-dataset', lambda t: load_dataset(str(t)), ValueError, 'is a folder, not a table file'),
    ('unknown-extension', lambda t: read_table(_write(t, 'd.json', text='{}')), ValueError,
     "unknown file type '.json'; robustdiff reads CSV or TSV"),
    ('no-extension', lambda t: read_table(_write(t, 'data', text='a,b\n1,2\n')), ValueError, "unknown file type '(no extension)'"),
    ('parquet-extra-missing', _parquet_without_pyarrow, ImportError, "pip install 'robustdiff[parquet]'"),
    ('excel-extra-missing', _excel_without_openpyxl, ImportError, "pip install 'robustdiff[excel]'"),
    ('explicit-wrong-separator', lambda t: from_file(_write(t, 'd.csv', NOISE, sep=';', index=False), 'target', sep=','),
     ValueError, "pass sep=';'"),
    ('regression-text-target', lambda t: check_task(['a', 'b'] * 30, task='regression'), ValueError,
     "task 'regression' needs a numeric target; it holds labels such as 'a'"),
    ('regression-text-values', lambda t: Dataset('d', NOISE[['x']], ['1.5'] * (N - 1) + ['lots'], task='regression'), TypeError,
     "a regression target must hold numbers; found 'lots'"),
    ('regression-bad-tolerance', lambda t: Dataset('d', NOISE[['x']], RNG.normal(size=N), task='regression', tolerance=0), ValueError,
     'tolerance must be a positive number'),
    ('unknown-task', lambda t: check_task(NOISE.target, task='ordinal'), ValueError, "task must be one of"),
    ('report-tolerance-on-classes', lambda t: _report(t, NOISE, tolerance=1.0), ValueError,
     'tolerance is for a regression target; this target is read as classes'),
    ('cli-unknown-missing', lambda t: __import__('robustdiff.cli').cli._parser().parse_args(['report', '--missing', 'mean']),
     SystemExit, '2'),
]


@pytest.mark.parametrize('case', CASES, ids=[c[0] for c in CASES])
def test_bad_input(case, tmp_path):
    _, f, exc, fragment = case
    with contextlib.redirect_stderr(io.StringIO()), pytest.raises(exc, match=re.escape(fragment)):
        f(tmp_path)


# accepted, with a note ---------------------------------------------------------------------------------------------
def test_penguins_imputed_by_default():
    d = from_file(PENGUINS, 'species')
    assert (d.n_instances, d.nominal, d.missing) == (344, ('island', 'sex'), 'impute')
    assert d.missing_counts.to_dict() == {'bill_length_mm': 2, 'bill_depth_mm': 2, 'flipper_length_mm': 2, 'body_mass_g': 2, 'sex': 11}
    assert d.notes == ("19 missing cells in 5 columns (bill_length_mm 2, bill_depth_mm 2, flipper_length_mm 2, body_mass_g 2, "
                       "sex 11) imputed inside the package's preprocessing from each training fold (numeric: median, nominal: "
                       "most frequent value; plus a missing-value indicator); a model of your own used as given receives them as NaN",)
    assert from_file(PENGUINS, 'species', missing='drop').n_instances == 333
    full = d.imputed()
    assert not full.X.isna().any().any() and full.n_instances == 344 and 'filled from the whole table' in full.notes[-1]


def test_dates_and_identifiers():
    n = 40
    df = pd.DataFrame({'when': pd.date_range('2021-03-01', periods=n, freq='D'), 'day': pd.date_range('2020-01-01', periods=n).astype(str),
                       'slashed': pd.date_range('2012-01-01', periods=n).strftime('%Y/%m/%d'),   # as in vega_datasets' seattle-weather
                       'name': [f'n{i}' for i in range(n)], 'customer_id': RNG.permutation(n) + 500, 'v': RNG.normal(size=n),
                       'target': ['a', 'b'] * (n // 2)})
    d = from_frame(df, 'target')
    assert list(d.X.columns) == ['when', 'day', 'slashed', 'v']
    assert d.X.when.iloc[0] == (pd.Timestamp('2021-03-01') - pd.Timestamp('1970-01-01')).days
    assert d.X.slashed.iloc[0] == (pd.Timestamp('2012-01-01') - pd.Timestamp('1970-01-01')).days
    notes = ' | '.join(d.notes)
    for frag in ("column 'when' holds dates: used as a number (days since 1970-01-01)", "column 'day' holds dates", "column 'slashed' holds dates",
                 "column 'name' is text with a different value in every row", "column 'customer_id' is an identifier"):
        assert frag in notes, (frag, notes)
    # a numeric column unique per row that is not named like an identifier stays (a measurement)
    assert 'v' in d.X.columns
    # a row number is still refused (it would leak the row order), not silently dropped
    with pytest.raises(ValueError, match='looks like a row index'): from_frame(df.assign(id=np.arange(n)), 'target')
    # declared nominal: kept as it is
    assert 'name' in from_frame(df, 'target', nominal=['name']).nominal


@pytest.mark.parametrize('sep,name', [(';', 'd.csv'), ('\t', 'd.txt'), ('|', 'd.csv'), ('\t', 'd.tsv'), (',', 'd.csv.gz')])
def test_separator_detected(tmp_path, sep, name):
    p = tmp_path/name
    NOISE.assign(note=['a, b'] * N).to_csv(p, sep=sep, index=False)   # a quoted comma must not fool the detection
    d = from_file(p, 'target')
    assert d.n_features == 3 and d.n_instances == N


def test_parquet_and_excel_round_trip(tmp_path):
    df = _peng()
    ref = from_frame(df, 'species', name='penguins_like')
    for name, write in [('p.parquet', lambda p: df.to_parquet(p, index=False)), ('p.xlsx', lambda p: df.to_excel(p, index=False))]:
        p = tmp_path/name; write(p)
        d = from_file(p, 'species', name='penguins_like')
        pd.testing.assert_frame_equal(d.X, ref.X, check_dtype=False)
        pd.testing.assert_series_equal(d.y, ref.y)
        assert (d.nominal, d.notes) == (ref.nominal, ref.notes)
        assert load_dataset(str(p), target='species').n_instances == 344


# imputation inside the training fold only -------------------------------------------------------------------------
def _imputer_stats(ctx):
    prep = ctx.estimator.named_steps['prep']
    num = prep.named_transformers_['numeric'].named_steps['impute']
    nom = prep.named_transformers_['nominal'].named_steps['impute']
    cols = list(ctx.dataset.numeric) + list(ctx.dataset.nominal)
    return pd.DataFrame({'column': cols, 'stat': list(num.statistics_) + list(nom.statistics_),
                         'test_rows': [tuple(ctx.test)] * len(cols)})


def test_imputer_sees_only_training_rows():
    from sklearn.linear_model import LogisticRegression
    ds = from_file(PENGUINS, 'species')
    from robustdiff.portfolio import needs_prep
    models = {'lr': needs_prep(LogisticRegression(max_iter=500))}   # the package's imputer (a model of yours is used as given)
    stats = map_folds(_imputer_stats, ds, models, n_splits=5, progress=False)
    for fold, g in stats.groupby('fold'):
        test = np.array(g.test_rows.iloc[0]); train = np.setdiff1d(np.arange(ds.n_instances), test)
        got = g.set_index('column').stat
        for c in ds.numeric: assert got[c] == pytest.approx(ds.X[c].iloc[train].median()), (fold, c)
        for c in ds.nominal: assert got[c] == ds.X[c].iloc[train].mode().iloc[0], (fold, c)
    # change only the test rows of every fold: no imputer statistic may move
    first = stats[stats.fold == 0]
    test = np.array(first.test_rows.iloc[0])
    X2 = ds.X.copy()
    for c in ds.numeric: X2.loc[test, c] = X2.loc[test, c] * 1000 + 1e6
    X2.loc[test, 'sex'] = 'female'
    ds2 = Dataset(ds.name, X2, ds.y, ds.nominal, 'impute')
    stats2 = map_folds(_imputer_stats, ds2, models, n_splits=5, progress=False)
    a, b = first.set_index('column').stat, stats2[stats2.fold == 0].set_index('column').stat
    assert (a == b).all(), pd.concat([a, b], axis=1)
    # ... while the other folds (which train on those rows) do see the change
    assert not (stats[stats.fold == 1].stat.to_numpy() == stats2[stats2.fold == 1].stat.to_numpy()).all()


def test_gappy_table_cross_validates_and_perturbs():
    from robustdiff.responses import cv_predictions
    from robustdiff.scc import noisy_predictions
    ds = from_file(PENGUINS, 'species')
    p = cv_predictions(ds, 'quick', n_splits=3, progress=False)
    assert len(p) == 4 * 344 and p.correct.mean() > 0.9
    nz = noisy_predictions(ds, 'quick', perturbation=0.2, n_splits=3, progress=False)
    assert nz.y_pred.notna().all()


# the command line -------------------------------------------------------------------------------------------------
def _cli(args):
    from robustdiff.cli import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err): code = main(args)
    return code, out.getvalue(), err.getvalue()


def test_cli_continuous_target_is_regression(tmp_path):
    "A continuous target takes the regression path, saying why in the report's configuration; forced classes go past the task check."
    p = _write(tmp_path, 'price.csv', pd.DataFrame({'x': RNG.normal(size=80), 'price': RNG.gamma(2, 50, size=80).round(2)}), index=False)
    code, out, err = _cli(['report', str(p), '--target', 'price', '--out', str(tmp_path/'r'), '--quiet', '--stages', 'data'])
    assert code == 0, err
    cfg = json.loads((tmp_path/'r'/'summary.json').read_text())['config']
    assert cfg['task'] == 'regression' and cfg['tolerance'] > 0
    assert "80 distinct numeric values that are not whole numbers: regression; pass --task classification" in cfg['task_reason']
    code, _, err = _cli(['report', str(p), '--target', 'price', '--task', 'classification', '--out', str(tmp_path/'r2'), '--quiet',
                         '--stages', 'accuracy', '--models', 'quick'])
    assert code == 2 and 'fewer than the 5 folds' in err, err   # forced: past the task check (the folds then cannot split 80 classes of one row)


def test_cli_penguins_no_options(tmp_path):
    code, out, err = _cli(['report', str(PENGUINS), '--target', 'species', '--out', str(tmp_path/'r'), '--stages', 'accuracy',
                           '--models', 'quick', '--n-jobs', '1'])
    assert code == 0, err
    assert ("penguins_like: 19 missing cells in 5 columns (bill_length_mm 2, bill_depth_mm 2, flipper_length_mm 2, "
            "body_mass_g 2, sex 11) imputed inside the package's preprocessing") in err
    assert '19 missing cells' in (tmp_path/'r'/'report.html').read_text()
    code, _, err = _cli(['report', str(PENGUINS), '--target', 'species', '--out', str(tmp_path/'r3'), '--missing', 'error', '--quiet'])
    assert code == 2 and "feature column 'sex' has 11 missing" in err


def test_fit_warnings_summarised_not_printed(tmp_path):
    from sklearn.neural_network import MLPClassifier
    from robustdiff.report import build_report
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        from robustdiff.portfolio import needs_prep
        rep = build_report(from_file(PENGUINS, 'species'), models={'mlp': needs_prep(MLPClassifier(max_iter=20))}, stages='accuracy',
                           n_jobs=1, progress=True)
    notes = rep.stages['accuracy'].notes
    assert 'Warnings during the fits — mlp: 5 fits did not converge in 20 iterations.' in notes, notes
    assert 'ConvergenceWarning' not in err.getvalue() and '  mlp: 5 fits did not converge in 20 iterations' in err.getvalue()


# charts at any size -----------------------------------------------------------------------------------------------
def _big(n=20_000, seed=0):
    from sklearn.datasets import make_classification
    X, y = make_classification(n, n_features=6, n_informative=4, n_redundant=0, flip_y=0.05, random_state=seed)
    return Dataset('big', pd.DataFrame(X, columns=[f'f{i}' for i in range(6)]), np.array(['a', 'b'])[y])


@pytest.fixture(scope='module')
def big_report(tmp_path_factory):
    from robustdiff.report import build_report
    out = tmp_path_factory.mktemp('big')/'report'
    rep = build_report(_big(), models='quick', respondents='models', hardness_models='quick',
                       stages='accuracy,difficulty,hardness,isa', n_jobs=2, out=out, progress=False)
    return rep, out


def test_report_20000_rows_has_every_chart(big_report):
    rep, out = big_report
    assert {k: s.status for k, s in rep.stages.items() if s.status != 'off'} == {
        'data': 'ok', 'accuracy': 'ok', 'difficulty': 'ok', 'hardness': 'ok', 'isa': 'ok'}
    charts = [k for s in rep.stages.values() for k in s.charts]
    for k in ('difficulty', 'difficulty_se', 'ih', 'instance_space_ih', 'instance_space_difficulty'): assert k in charts
    page = (out/'report.html').read_text()
    assert 'could not be rendered' not in page and 'MaxRowsError' not in page
    blocks = re.findall(r'<div class="chart" id="chart-([^"]+)">(.*?)</div>', page, flags=re.S)
    assert sorted(k for k, _ in blocks) == sorted(charts)
    for k, svg in blocks:
        assert svg.startswith('<svg') and len(svg.encode()) <= 2_000_000, (k, len(svg))
    assert 'binned in a 60 × 45 grid' in page or '60 × 45 grid' in page


@pytest.mark.skipif(CHROMIUM is None, reason='chromium not installed (apt-get install chromium)')
def test_report_20000_rows_in_chromium(big_report):
    pytest.importorskip('playwright.sync_api', reason='playwright not installed')
    from playwright.sync_api import sync_playwright
    rep, out = big_report
    n_charts = sum(len(s.charts) for s in rep.stages.values())
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=['--headless', '--no-sandbox', '--disable-gpu'])
        page = browser.new_page()
        page.goto((out/'report.html').as_uri())
        drawn = page.evaluate("() => [...document.querySelectorAll('div.chart > svg')].filter(s => s.getBBox().width > 0 "
                              "&& s.querySelectorAll('path, rect, line, text').length > 10).length")
        browser.close()
    assert drawn == n_charts


def test_stage_with_an_undrawable_chart_is_warn(monkeypatch):
    import altair as alt
    import robustdiff.report as R
    import robustdiff.data_report as D
    data = D.report_stage
    def with_raw_chart(ctx, st):       # a stage that leaves a chart of 6 000 raw rows (altair refuses > 5 000)
        data(ctx, st); st.charts['raw'] = alt.Chart(pd.DataFrame({'x': np.arange(6000)})).mark_point().encode(x='x')
    monkeypatch.setattr(D, 'report_stage', with_raw_chart)
    rep = R.build_report('sklearn:iris', stages='data,accuracy', models='quick', progress=False)
    st = rep.stages['data']
    assert st.status == 'warn' and 'chart raw could not be drawn: MaxRowsError' in st.message, st
    assert 'raw' not in st.charts and 'classes' in st.charts
    assert rep.stages['accuracy'].status == 'ok'
    assert '<span class="status warn">warn' in __import__('robustdiff.page', fromlist=['render_html']).render_html(rep)


def test_one_pass_report_runs_on_a_table_with_gaps(tmp_path):
    "Every fitting stage of the one-pass report on a table with gaps: perturbed copies keep a missing cell missing, each pipeline imputes it."
    from robustdiff.report import build_report
    from robustdiff.robustness import RawNoise
    ds = from_file(Path(__file__).parent/'data'/'penguins_like.csv', 'species')
    assert ds.missing_counts.sum() > 0
    rep = build_report(ds, models='quick', respondents='models', stages='accuracy,difficulty,scc,ela,perturbation,verdict',
                       progress=False, n_jobs=1)
    assert {k: s.status for k, s in rep.stages.items() if s.status != 'off'} == dict.fromkeys(
        ['data', 'accuracy', 'difficulty', 'scc', 'ela', 'perturbation', 'verdict'], 'ok'), {k: s.message for k, s in rep.stages.items()}
    num = [c for c in ds.numeric if ds.X[c].isna().any()][0]
    X = ds.X[list(ds.numeric)]
    noisy = RawNoise(size=0.4).fit(X).transform(X, random_state=0)
    assert (noisy[num].isna() == ds.X[num].isna()).all() and not np.allclose(noisy[num].dropna(), ds.X[num].dropna())


def test_header_shorter_than_rows_is_an_error(tmp_path):
    "A header with fewer names than the rows have fields (scikit-learn's wine_data.csv: 5 names over 14 fields) made pandas turn the first fields into the row index silently; now one line says so."
    from robustdiff.tables import from_file
    p = tmp_path / 'short_header.csv'
    rows = '\n'.join(f"{i % 7}.5,{i % 3},{i % 5},{i % 2}" for i in range(40))
    p.write_text('n,k,class\n' + rows + '\n')
    with pytest.raises(ValueError, match=r"header names 3 columns but the rows hold 4 fields"):
        from_file(p, 'class')
