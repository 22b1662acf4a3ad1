"""Benchmark: the 13 [PLM22] hardness measures on make_classification n × 20, wall time, CPU time and peak memory.

    nice -n 10 python benchmarks/timings/bench_hardness.py [--sizes 5000 20000 50000 100000] [--dense_max 5000]
                                                   [--n_jobs 1 2] [--full_max 200000] [--timeout 1800]

Each (implementation, size, n_jobs) runs in its own child process so that its peak resident memory (ru_maxrss of
the child, which includes the Python interpreter and the imports, ~150 MB) is its own. `hardness_measures` (paper
preset, all 13 measures; also the pyhard preset up to 20 000 rows) runs at every size and every `--n_jobs`; the
literal dense reference (`dense_reference`, the full n × n matrix, what the tests compare against) only where it
fits (`--dense_max`). With several `--n_jobs` the speed-up of the largest over 1 is reported per size (wall and
CPU). Targets: ≤ 10 s and ≤ 1 GB at 5 000 rows; ≤ 60 s and ≤ 2 GB at 20 000 rows; at 50 000 rows ≤ 10 s with
n_jobs = 2 and ≥ 1.7× faster than n_jobs = 1; 100 000 rows ≤ 60 s within 4 GB.
Sizes above `--full_max` run the same stages one by one (`STAGED`) with progress lines and a time box; the run then
reports its peak memory so far (polled from /proc) and which stages finished.
The time growth exponent is the least-squares slope of log(time) on log(n). The load average of the (shared)
machine is recorded before and after. Results: benchmarks/results/hardness.json.
"""
import argparse, json, os, subprocess, sys, time
from pathlib import Path
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parents[1]/'tools'))
from harness import write_result

CHILD = r'''
import json, resource, sys, time, warnings
import numpy as np, pandas as pd
from sklearn.datasets import make_classification
from robustdiff.data import Dataset
from robustdiff.hardness import hardness_measures, dense_reference
impl, n, preset, n_jobs = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
X, y = make_classification(n, 20, random_state=0)
ds = Dataset(f'make_classification_{n}', pd.DataFrame(X), y)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
_ru = resource.getrusage(resource.RUSAGE_SELF); cpu0 = _ru.ru_utime + _ru.ru_stime
t = time.perf_counter()
with warnings.catch_warnings():
    warnings.simplefilter('ignore')
    M = hardness_measures(ds, preset=preset, n_jobs=n_jobs) if impl == 'blocked' else dense_reference(ds, preset=preset)
sec = time.perf_counter() - t
ru = resource.getrusage(resource.RUSAGE_SELF)
out = dict(impl=impl, n=n, preset=preset, seconds=sec, cpu_seconds=ru.ru_utime + ru.ru_stime - cpu0, peak_rss_mb=ru.ru_maxrss / 1024,
           rss_before_mb=before / 1024, stages=M.attrs.get('seconds', {}), ccp_alpha=M.attrs.get('ccp_alpha'),
           mean=M.mean().round(6).to_dict())
print('RESULT ' + json.dumps(out))
'''

STAGED = r'''
# The same work as hardness_measures(preset), stage by stage, printing progress so that a run stopped by the time
# box still tells how far it got (and the peak memory is polled by the parent).
import json, resource, sys, time, warnings
import numpy as np, pandas as pd
from sklearn.datasets import make_classification
from robustdiff.data import Dataset
import robustdiff.hardness as H
n, preset = int(sys.argv[1]), sys.argv[2]
X, y = make_classification(n, 20, random_state=0)
ds = Dataset(f'make_classification_{n}', pd.DataFrame(X), y)
clock = time.perf_counter
def cpu():
    ru = resource.getrusage(resource.RUSAGE_SELF); return ru.ru_utime + ru.ru_stime
def say(**kw): print('PROGRESS ' + json.dumps(dict(kw, cpu_seconds=cpu(), rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)), flush=True)
t0 = clock()
with warnings.catch_warnings():
    warnings.simplefilter('ignore')
    rest = H.hardness_measures(ds, measures=['DCP', 'TD_P', 'TD_U', 'CL', 'CLD', 'F1'], preset=preset)
say(stage='trees+likelihood+F1', seconds=clock() - t0, stages=rest.attrs['seconds'])
cfg = H.PRESETS[preset]
Z, scale = H._distance_space(ds, cfg['metric']); yy, _ = H._codes(ds.y)
t1 = clock()
st = H._neighbour_stats(Z, yy, cfg['k'], cfg['metric'], scale, n_jobs=1)
nbr, nbr_d = st['nbr'], st['nbr_d']
say(stage='neighbours', done=1.0, seconds=clock() - t1)
t2 = clock(); H._mst_boruvka(Z, cfg['metric'], scale, nbr, nbr_d); say(stage='mst', done=1.0, seconds=clock() - t2)
print('RESULT ' + json.dumps(dict(impl='staged', n=n, preset=preset, seconds=clock() - t0, cpu_seconds=cpu(),
      peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)))
'''

def _peak_kb(pid):
    try:
        for line in open(f'/proc/{pid}/status'):
            if line.startswith('VmHWM:'): return int(line.split()[1])
    except OSError: return None

def run_staged(n, preset, timeout):
    "Run the staged child; stop it after `timeout` s and report how far it got, its peak memory, and an extrapolation."
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get('PYTHONPATH', ''))
    t = time.perf_counter()
    import tempfile
    errf = tempfile.TemporaryFile(mode='w+')                # not a pipe: a full stderr pipe would block the child
    p = subprocess.Popen([sys.executable, '-c', STAGED, str(n), preset], stdout=subprocess.PIPE, stderr=errf, text=True, env=env)
    peak, lines = 0, []
    import selectors
    sel = selectors.DefaultSelector(); sel.register(p.stdout, selectors.EVENT_READ)
    while p.poll() is None and time.perf_counter() - t < timeout:
        peak = max(peak, _peak_kb(p.pid) or 0)
        for _ in sel.select(timeout=1.0):
            line = p.stdout.readline()
            if line: lines.append(line.strip())
    if p.poll() is None: p.kill()
    out, _ = p.communicate()
    errf.seek(0); err = errf.read()
    lines += [l for l in out.splitlines() if l.strip()]
    res = [json.loads(l[7:]) for l in lines if l.startswith('RESULT ')]
    timed_out = not res and p.returncode != 0 and time.perf_counter() - t >= timeout
    prog = [json.loads(l[9:]) for l in lines if l.startswith('PROGRESS ')]
    r = res[0] if res else dict(impl='staged', n=n, preset=preset, seconds=time.perf_counter() - t)
    r.update(timed_out=timed_out, polled_peak_rss_mb=peak / 1024, progress=prog[-3:])
    if res: r['peak_rss_mb'] = max(r['peak_rss_mb'], peak / 1024)
    else: r['peak_rss_mb'] = max([peak / 1024] + [q['rss_mb'] for q in prog])
    nb = [q for q in prog if q['stage'] == 'neighbours']
    if timed_out and nb and nb[-1]['done'] > 0:
        first = next((q for q in prog if q['stage'] == 'trees+likelihood+F1'), {'seconds': 0})
        est_nb = nb[-1]['seconds'] / nb[-1]['done']
        r['extrapolated_seconds'] = dict(trees_likelihood_F1=first['seconds'], neighbours=est_nb,
                                         note='neighbour pass extrapolated linearly from the share of blocks done; the MST '
                                              '(Borůvka on the neighbour lists) is a small fraction of it')
    if err and not res and not timed_out: r['error'] = err[-800:]
    return r

def run(impl, n, preset, n_jobs):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get('PYTHONPATH', ''))
    t = time.perf_counter()
    p = subprocess.run([sys.executable, '-c', CHILD, impl, str(n), preset, str(n_jobs)], capture_output=True, text=True, env=env)
    line = [l for l in p.stdout.splitlines() if l.startswith('RESULT ')]
    if p.returncode != 0 or not line:
        return dict(impl=impl, n=n, preset=preset, error=(p.stderr or p.stdout)[-800:], returncode=p.returncode,
                    seconds=time.perf_counter() - t)
    return json.loads(line[0][7:])

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--sizes', type=int, nargs='+', default=[5000, 20000, 50000, 100000])
    ap.add_argument('--dense_max', type=int, default=5000, help='largest n for the dense reference (n × n float64 ×~6)')
    ap.add_argument('--pyhard_max', type=int, default=20000, help='largest n for the pyhard preset')
    ap.add_argument('--n_jobs', type=int, nargs='+', default=[1, 2], help='threads; every size runs with each')
    ap.add_argument('--full_max', type=int, default=200000, help='above this n, run the staged child with a time box')
    ap.add_argument('--timeout', type=float, default=1800, help='time box (s) for staged runs')
    ap.add_argument('--out', default=str(ROOT / 'benchmarks' / 'results' / 'hardness.json'))
    a = ap.parse_args()
    load0 = os.getloadavg()
    rows = []
    for n in a.sizes:
        plan = [('blocked', 'paper')] + ([('blocked', 'pyhard')] if n <= a.pyhard_max else []) + \
               ([('dense', 'paper')] if n <= a.dense_max else [])
        if n > a.full_max: plan = [('staged', 'paper')]
        plan = [(impl, preset, j) for impl, preset in plan for j in (a.n_jobs if (impl, preset) == ('blocked', 'paper') else a.n_jobs[-1:])]
        for impl, preset, n_jobs in plan:
            r = run_staged(n, preset, a.timeout) if impl == 'staged' else run(impl, n, preset, n_jobs)
            r.update(n_jobs=n_jobs, load_after=os.getloadavg()[0])
            rows.append(r)
            Path(a.out + '.partial').write_text(json.dumps(rows, indent=1))     # survives an interrupted run
            print(f"{impl:8s} {preset:7s} n={n:7d} n_jobs={n_jobs}: " + (f"{r['seconds']:8.1f} s (cpu {r.get('cpu_seconds', float('nan')):.1f} s)  peak {r['peak_rss_mb']:7.0f} MB  {r.get('stages', '')} {r.get('progress', '')} {r.get('extrapolated_seconds', '')}"
                  if 'error' not in r else f"FAILED {r['error'][-200:]}"), flush=True)
    ok_all = [r for r in rows if r['impl'] in ('blocked', 'staged') and r['preset'] == 'paper' and 'error' not in r
              and not r.get('timed_out')]
    speedup = {}
    for n in a.sizes:
        one = [r for r in ok_all if r['n'] == n and r['n_jobs'] == 1]; most = [r for r in ok_all if r['n'] == n and r['n_jobs'] == max(a.n_jobs)]
        if one and most and max(a.n_jobs) > 1:
            speedup[n] = dict(n_jobs=max(a.n_jobs), wall_1=round(one[0]['seconds'], 1), wall_j=round(most[0]['seconds'], 1),
                              speedup=round(one[0]['seconds'] / most[0]['seconds'], 2), cpu_1=round(one[0]['cpu_seconds'], 1),
                              cpu_j=round(most[0]['cpu_seconds'], 1))
    ok = [r for r in ok_all if r['n_jobs'] == max(a.n_jobs)]
    slope = float(np.polyfit(np.log([r['n'] for r in ok]), np.log([r['seconds'] for r in ok]), 1)[0]) if len(ok) >= 2 else None
    slope_cpu = float(np.polyfit(np.log([r['n'] for r in ok]), np.log([r['cpu_seconds'] for r in ok]), 1)[0]) if len(ok) >= 2 else None
    targets = {5000: (10, 1024), 20000: (60, 2048), 50000: (10, 4096), 100000: (60, 4096)}
    checks = []
    for r in ok + [r for r in rows if r.get('timed_out')]:
        if r['n'] in targets:
            ts, tm = targets[r['n']]
            checks.append(dict(n=r['n'], seconds=round(r['seconds'], 1), cpu_seconds=round(r.get('cpu_seconds', float('nan')), 1),
                               target_seconds=ts, peak_rss_mb=round(r['peak_rss_mb']),
                               target_mb=tm, completed=not r.get('timed_out', False),
                               meets_wall=(ts is None or r['seconds'] <= ts) and r['peak_rss_mb'] <= tm and not r.get('timed_out'),
                               meets_cpu=(ts is None or r.get('cpu_seconds', 1e9) <= ts) and r['peak_rss_mb'] <= tm and not r.get('timed_out')))
    res = dict(command='nice -n 10 python benchmarks/timings/bench_hardness.py ' + ' '.join(sys.argv[1:]), cpu_count=os.cpu_count(),
               load_before=load0, load_after=os.getloadavg(), growth_exponent=slope, growth_exponent_cpu=slope_cpu, targets=checks,
               speedup=speedup, runs=rows,
               note='peak_rss_mb is the child process peak (interpreter + imports + work); the machine is shared, so '
                    'wall times include contention (see load averages); cpu_seconds (user + system of the child) is '
                    'what the work costs')
    write_result(a.out, res)
    print(json.dumps(dict(growth_exponent=slope, growth_exponent_cpu=slope_cpu, targets=checks, speedup=speedup, load_before=load0, load_after=os.getloadavg()), indent=1))

if __name__ == '__main__':
    main()
