"""Intake and rendering at scale.

--part intake: a 1 000 000 × 50 CSV (46 numeric + 4 nominal features, a 3-class target, 5 % of the feature cells
  missing), generated once in /tmp; `from_file(path, 'target')` (missing='impute': the default) timed in a fresh
  process, with its peak RSS above the process's RSS after the imports, against the in-memory size of the data
  (the DataFrame `read_table` returns, `memory_usage(deep=True)`). Target of the issue: ≤ 30 s and ≤ 3× that size.
--part render: rendering only (no model is fitted) of a report page whose tables have 100 000 rows — a `Report`
  with the difficulty, hardness, instance-hardness and instance-space tables of 100 000 instances and their charts
  drawn by `robustdiff.charts` (histograms, a density grid, the instance space as a mean-colour grid, and the worst
  case, a 5 000-point stratified sample coloured by class) — `render_html` time and page size, and the time headless
  Chromium takes to load it. Target: every chart present, page ≤ 15 MB, opens in ≤ 5 s.

    nice -n 10 python benchmarks/timings/bench_intake.py --part intake
    nice -n 10 python benchmarks/timings/bench_intake.py --part render
"""
import argparse, json, os, resource, shutil, subprocess, sys, time
from pathlib import Path
import numpy as np
import pandas as pd
sys.path.insert(0, str(Path(__file__).resolve().parents[1]/'tools'))
from harness import write_result

CSV = Path('/tmp/robustdiff_bench_intake_1e6x50.csv')


def make_csv(path:Path=CSV, n:int=1_000_000, seed:int=0):
    if path.exists(): return path
    rng = np.random.default_rng(seed)
    cols = {}
    for j in range(46): cols[f'x{j}'] = rng.normal(size=n).round(4)
    for j in range(4): cols[f'c{j}'] = np.array(['red', 'green', 'blue', 'grey', 'pink'])[rng.integers(0, 5, n)]
    df = pd.DataFrame(cols)
    mask = rng.random(df.shape) < 0.05
    df = df.mask(mask)
    df['target'] = np.array(['a', 'b', 'c'])[rng.integers(0, 3, n)]
    tmp = path.with_suffix('.tmp'); df.to_csv(tmp, index=False); os.replace(tmp, path)
    return path


def _intake_child(path:str):
    "Run in a fresh process: RSS after imports, time and peak RSS of from_file, the data's in-memory size."
    from robustdiff.tables import from_file, read_table
    import robustdiff.report  # noqa: F401  (everything the CLI imports)
    def rss_now():
        with open('/proc/self/status') as f:
            return next(int(l.split()[1]) for l in f if l.startswith('VmRSS:')) * 1024
    base = rss_now()
    t0, c0 = time.perf_counter(), time.process_time()
    ds = from_file(path, 'target')
    secs, cpu = time.perf_counter() - t0, time.process_time() - c0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    data = int(ds.X.memory_usage(deep=True).sum() + ds.y.memory_usage(deep=True))
    raw = read_table(path)
    raw_bytes = int(raw.memory_usage(deep=True).sum())
    print(json.dumps(dict(seconds=round(secs, 2), cpu_seconds=round(cpu, 2), rss_base_mb=round(base / 2**20), peak_rss_mb=round(peak / 2**20),
                          extra_peak_mb=round((peak - base) / 2**20), dataset_mb=round(data / 2**20),
                          read_frame_mb=round(raw_bytes / 2**20), ratio_to_read_frame=round((peak - base) / raw_bytes, 2),
                          ratio_to_dataset=round((peak - base) / data, 2), shape=list(raw.shape),
                          missing_cells=int(ds.missing_counts.sum()), notes=list(ds.notes))))


def part_intake():
    path = make_csv()
    out = subprocess.run([sys.executable, __file__, '--child', str(path)], capture_output=True, text=True, check=True)
    res = json.loads(out.stdout.strip().splitlines()[-1])
    res['csv_mb'] = round(path.stat().st_size / 2**20)
    return res


def _big_report(n:int=100_000, seed:int=0):
    import altair as alt
    from robustdiff.report import Report, Stage
    from robustdiff.charts import histogram, scatter
    rng = np.random.default_rng(seed)
    items = pd.DataFrame({'instance': np.arange(n), 'difficulty': rng.normal(size=n), 'difficulty_se': rng.gamma(2, .2, n),
                          'status': 'ok'})
    hard = pd.DataFrame(rng.random((n, 13)), columns=[f'm{i}' for i in range(13)]).assign(instance=np.arange(n))
    ih = pd.DataFrame({'instance': np.arange(n), 'ih': rng.beta(2, 5, n)})
    space = pd.DataFrame({'instance': np.arange(n), 'z1': rng.normal(size=n), 'z2': rng.normal(size=n), 'IH': ih.ih,
                          'class': rng.choice(list('abc'), n), 'difficulty': items.difficulty})
    st = {k: Stage(k, 'off') for k in ('data', 'accuracy', 'difficulty', 'scc', 'ela', 'perturbation', 'hardness', 'isa', 'verdict')}
    st['difficulty'] = Stage('difficulty', 'ok', 1.0, tables={'difficulty': items}, charts={
        'difficulty': histogram(items, field='difficulty', maxbins=40, title='distribution of finite difficulties'),
        'difficulty_se': scatter(items, 'difficulty', 'difficulty_se', title='reliability of each difficulty')})
    st['hardness'] = Stage('hardness', 'ok', 1.0, tables={'hardness': hard, 'instance_hardness': ih},
                           charts={'ih': histogram(ih, field='ih', maxbins=30, title='instance hardness (eq. 7)')})
    st['isa'] = Stage('isa', 'ok', 1.0, tables={'instance_space': space}, charts={
        'instance_space_ih': scatter(space, 'z1', 'z2', color='IH', width=360, height=320, title='coloured by IH'),
        'instance_space_difficulty': scatter(space, 'z1', 'z2', color='difficulty', width=360, height=320, title='coloured by difficulty'),
        'instance_space_class': scatter(space, 'z1', 'z2', color='class', width=360, height=320, title='coloured by class (sample)')})
    return Report('synthetic-100k', st, dict(models='quick', respondents='models', nu=0.2, random_state=0))


def part_render(out_dir=Path('/tmp/robustdiff_bench_render')):
    from robustdiff.page import render_html
    rep = _big_report()
    t0 = time.perf_counter(); page = render_html(rep); secs = time.perf_counter() - t0
    out_dir.mkdir(parents=True, exist_ok=True)
    f = out_dir/'report.html'; f.write_text(page, encoding='utf-8')
    n_charts = sum(len(s.charts) for s in rep.stages.values())
    res = dict(render_seconds=round(secs, 2), page_mb=round(len(page.encode()) / 2**20, 2), charts=n_charts,
               charts_in_page=page.count('<div class="chart"'), errors_in_page=page.count('could not be rendered'))
    chromium = shutil.which('chromium') or '/usr/bin/chromium'
    try:
        from playwright.sync_api import sync_playwright
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path=chromium, args=['--headless', '--no-sandbox', '--disable-gpu'])
            pg = b.new_page()
            t0 = time.perf_counter(); pg.goto(f.as_uri(), wait_until='load'); load = time.perf_counter() - t0
            drawn = pg.evaluate("() => [...document.querySelectorAll('div.chart > svg')].filter(s => s.getBBox().width > 0).length")
            b.close()
        res.update(chromium_load_seconds=round(load, 2), charts_drawn_in_chromium=drawn)
    except Exception as e: res['chromium'] = f'not measured: {type(e).__name__}: {e}'
    return res


if __name__ == '__main__':
    a = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    a.add_argument('--part', choices=('intake', 'render'), default='intake')
    a.add_argument('--child', default=None, help=argparse.SUPPRESS)
    args = a.parse_args()
    if args.child: _intake_child(args.child); sys.exit(0)
    res = dict(part=args.part, load=os.getloadavg(), **(part_intake() if args.part == 'intake' else part_render()))
    print(json.dumps(res, indent=1))
    write_result(f'intake_{args.part}.json', res)
