"""Benchmark: the whole report against a plain `cross_val_predict` of the same pipelines on the same folds.

    nice -n 10 python benchmarks/timings/bench_report.py [--data pmlb:waveform_40] [--rows 2000] [--models fabra18]
        [--respondents ladder] [--n-jobs 2] [--before COMMIT] [--after COMMIT] [--out NAME]

The plain CV runs first and again last; the ratios divide by the mean of the two (a machine whose load changes during
the run moves both). Each side runs in a child process whose working directory is its tree (`--before COMMIT`: also the code of COMMIT,
`git archive` into a temporary folder, the same data and arguments; `--after COMMIT`: the "after" side from COMMIT
instead of this tree, so that the tree can change while it runs), one after the other:
- `report`: `build_report(data, models, respondents, n_jobs)` with every stage, in memory (no HTML);
- `plain`: `sklearn.model_selection.cross_val_predict` of every model's pipeline (`make_pipeline`) on the report's
  folds (`cv_splits`), `n_jobs` workers, one model after another: what accuracy alone costs.
For each it prints the wall time, the CPU time of the process and all its workers (psutil, the live tree summed before
exit plus the reaped children), the CPU utilisation (CPU / (wall · n_jobs)) and the peak summed RSS of the tree (polled
every 0.5 s; shared pages counted once per process: an upper bound) and the peak summed PSS (each shared page divided
among the processes that map it: what the tree really holds); for the report also its stage table; and the thread
settings each side ran with (`thread_settings.py`: the thread variables and BLAS/OpenMP pools of the process, of a
loky worker and inside a task). `--rows N`
takes a stratified sample of N rows (seed 0) so that the run fits a shared machine. Results:
benchmarks/results/report_<NAME>.json.
"""
import argparse, json, os, subprocess, sys, tarfile, tempfile, time, io
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT/'benchmarks'/'tools'))
from harness import write_result

_CHILD = r'''
import json, os, resource, sys, threading, time, warnings
warnings.simplefilter('ignore')
import psutil
side, tree, data, rows, models, respondents, n_jobs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6], int(sys.argv[7])
import robustdiff
assert robustdiff.__file__.startswith(tree), (robustdiff.__file__, tree)
from robustdiff.data import from_frame
from robustdiff.datasets import load_dataset
ds = load_dataset(data)
if rows and rows < ds.n_instances:
    from sklearn.model_selection import train_test_split
    strata = ds.y
    if getattr(ds, 'regression', False):             # a numeric target: its quantile bins (as the report's folds)
        from robustdiff.responses import fold_strata
        strata = fold_strata(ds, 5)
    keep, _ = train_test_split(range(ds.n_instances), train_size=rows, stratify=strata, random_state=0)
    keep = sorted(keep)
    ds = from_frame(ds.X.iloc[keep].reset_index(drop=True).assign(_target=ds.y.iloc[keep].to_numpy()), '_target',
                    nominal=list(ds.nominal), name=f'{ds.name}_{rows}',
                    **({'task': 'regression'} if getattr(ds, 'regression', False) else {}))
me = psutil.Process()
peak = [0, 0]; stop = threading.Event()
def poll():
    while not stop.is_set():
        try:
            procs = [me] + me.children(recursive=True)
            peak[0] = max(peak[0], sum(p.memory_info().rss for p in procs))
            peak[1] = max(peak[1], sum(p.memory_full_info().pss for p in procs))
        except psutil.Error: pass
        time.sleep(0.5)
threading.Thread(target=poll, daemon=True).start()
def cpu():
    t = me.cpu_times(); s = t.user + t.system
    for p in me.children(recursive=True):
        try: c = p.cpu_times(); s += c.user + c.system
        except psutil.Error: pass
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return s + ru.ru_utime + ru.ru_stime
sys.path[:0] = [os.path.join(tree, 'benchmarks', 'tools'), os.path.join(tree, 'benchmarks')]   # a tree before or after the sort
from thread_settings import thread_settings
threads = thread_settings(n_jobs)              # parent and a loky worker (started here, reused by the run: not timed)
c0, t0 = cpu(), time.perf_counter()
out = dict(side=side, rows=ds.n_instances, features=ds.n_features, classes=None if getattr(ds, 'regression', False) else ds.n_classes, threads=threads)
if side == 'report':
    from robustdiff.report import build_report
    rep = build_report(ds, models=models, respondents=respondents, n_jobs=n_jobs, progress=False)
    out['stages'] = {k: dict(status=s.status, seconds=round(s.seconds, 1), message=s.message[:200]) for k, s in rep.stages.items()}
    out['fits_seconds'] = rep.config.get('fits_seconds')     # the one schedule of every stage's fits (before the stages)
else:
    from sklearn.model_selection import cross_val_predict
    from robustdiff.portfolio import get_models, make_pipeline
    from robustdiff.responses import cv_splits
    folds = [(tr, te) for _, _, tr, te in cv_splits(ds, n_splits=5, n_repeats=1, random_state=0)]
    for name, est in get_models(models, random_state=0, **({'task': 'regression'} if getattr(ds, 'regression', False) else {})).items():
        cross_val_predict(make_pipeline(est, ds), ds.X, ds.y.to_numpy(), cv=folds, n_jobs=n_jobs)
wall = time.perf_counter() - t0
used = cpu() - c0
stop.set()
out.update(wall_s=round(wall, 1), cpu_s=round(used, 1), utilisation=round(used / (wall * n_jobs), 3),
           peak_rss_sum_mib=round(peak[0] / 2**20), peak_pss_sum_mib=round(peak[1] / 2**20))
print('RESULT ' + json.dumps(out), flush=True)
'''

def run(side, tree, a):
    env = dict(os.environ, PYTHONPATH=str(tree), ROBUSTDIFF_DATA=str(ROOT/'data'))
    p = subprocess.run([sys.executable, '-c', _CHILD, side, str(tree), a.data, str(a.rows), a.models, a.respondents,
                        str(a.n_jobs)], env=env, cwd=tree, capture_output=True, text=True)
    line = [l for l in p.stdout.splitlines() if l.startswith('RESULT ')]
    if p.returncode or not line: raise RuntimeError(f"{side} in {tree} failed:\n{p.stderr[-3000:]}")
    return json.loads(line[-1][len('RESULT '):])

def show(label, r):
    if r.get('threads'):
        from thread_settings import show_threads
        show_threads(r['threads'])
    print(f"{label:>14}: wall {r['wall_s']:7.1f} s  CPU {r['cpu_s']:7.1f} s  utilisation {r['utilisation']:.0%}  "
          f"peak RSS {r['peak_rss_sum_mib']} MiB, PSS {r.get('peak_pss_sum_mib', '?')} MiB", flush=True)
    if r.get('fits_seconds') is not None: print(f"{'':>16}{'(one schedule)':<13} {'':<7} {r['fits_seconds']:7.1f} s", flush=True)
    for k, s in r.get('stages', {}).items():
        if s['status'] != 'off': print(f"{'':>16}{k:<13} {s['status']:<7} {s['seconds']:7.1f} s {s['message']}", flush=True)

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--data', default='pmlb:waveform_40')
    ap.add_argument('--rows', type=int, default=0, help='stratified sample of this many rows (0: all)')
    ap.add_argument('--models', default='fabra18')
    ap.add_argument('--respondents', default='ladder')
    ap.add_argument('--n-jobs', type=int, default=2)
    ap.add_argument('--before', default='', help='a commit: also run the report with its code')
    ap.add_argument('--after', default='', help='a commit: the "after" report with its code (default: this tree)')
    ap.add_argument('--out', default='')
    a = ap.parse_args()
    res = dict(benchmark=__doc__.splitlines()[0], args=vars(a), load_before=os.getloadavg(),
               date=time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()))
    with tempfile.TemporaryDirectory() as tmp:
        def archive(commit, name):
            d = Path(tmp)/name
            data = subprocess.run(['git', 'archive', commit], cwd=ROOT, capture_output=True, check=True).stdout
            tarfile.open(fileobj=io.BytesIO(data)).extractall(d)
            return d
        trees = {'after': archive(a.after, 'after') if a.after else ROOT}
        if a.before: trees = {'before': archive(a.before, 'before'), **trees}
        res['plain'] = run('plain', trees['after'], a); show('plain CV', res['plain'])
        for k, tree in trees.items():
            res[k] = run('report', tree, a); show(f'report {k}', res[k])
        res['plain_after'] = run('plain', trees['after'], a); show('plain CV after', res['plain_after'])
        plain = {f: (res['plain'][f] + res['plain_after'][f]) / 2 for f in ('wall_s', 'cpu_s')}   # the machine may change during the run
        res['plain_mean'] = {f: round(v, 1) for f, v in plain.items()}
        for k in trees:
            res[k]['ratio_wall_vs_plain'] = round(res[k]['wall_s'] / plain['wall_s'], 2)
            res[k]['ratio_cpu_vs_plain'] = round(res[k]['cpu_s'] / plain['cpu_s'], 2)
            print(f"{'':>16}report {k}: ratio to plain CV (mean of before and after): wall {res[k]['ratio_wall_vs_plain']}×, "
                  f"CPU {res[k]['ratio_cpu_vs_plain']}× (target wall ≤ 2.86×)", flush=True)
    res['load_after'] = os.getloadavg()
    res['command'] = 'python benchmarks/timings/bench_report.py ' + ' '.join(sys.argv[1:])
    if a.out: write_result(f'report_{a.out}.json', res)

if __name__ == '__main__':
    main()
