"""Benchmark: the 13 [PLM22] hardness measures on make_classification n × 20, wall time and peak memory (issue 12).

    nice -n 10 python benchmarks/bench_hardness.py [--sizes 5000 20000 100000] [--dense_max 5000] [--n_jobs 1]

Each (implementation, size) runs in its own child process so that its peak resident memory (ru_maxrss of the
child, which includes the Python interpreter and the imports, ~150 MB) is its own. `hardness_measures` (paper preset,
all 13 measures; also the pyhard preset up to 20 000 rows) runs at every size; the literal dense reference
(`dense_reference`, the full n × n matrix, what the tests compare against) only where it fits (`--dense_max`).
Targets: ≤ 10 s and ≤ 1 GB at 5 000 rows; ≤ 60 s and ≤ 2 GB at 20 000 rows; 100 000 rows within 4 GB.
The time growth exponent is the least-squares slope of log(time) on log(n). The load average of the (shared)
machine is recorded before and after. Results: benchmarks/results/hardness.json.
"""
import argparse, json, os, subprocess, sys, time
from pathlib import Path
import numpy as np

ROOT = Path(__file__).resolve().parents[1]

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
t = time.perf_counter()
with warnings.catch_warnings():
    warnings.simplefilter('ignore')
    M = hardness_measures(ds, preset=preset, n_jobs=n_jobs) if impl == 'blocked' else dense_reference(ds, preset=preset)
sec = time.perf_counter() - t
out = dict(impl=impl, n=n, preset=preset, seconds=sec, peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
           rss_before_mb=before / 1024, stages=M.attrs.get('seconds', {}), ccp_alpha=M.attrs.get('ccp_alpha'),
           mean=M.mean().round(6).to_dict())
print('RESULT ' + json.dumps(out))
'''

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
    ap.add_argument('--sizes', type=int, nargs='+', default=[5000, 20000, 100000])
    ap.add_argument('--dense_max', type=int, default=5000, help='largest n for the dense reference (n × n float64 ×~6)')
    ap.add_argument('--pyhard_max', type=int, default=20000, help='largest n for the pyhard preset')
    ap.add_argument('--n_jobs', type=int, default=1)
    ap.add_argument('--out', default=str(ROOT / 'benchmarks' / 'results' / 'hardness.json'))
    a = ap.parse_args()
    load0 = os.getloadavg()
    rows = []
    for n in a.sizes:
        plan = [('blocked', 'paper')] + ([('blocked', 'pyhard')] if n <= a.pyhard_max else []) + \
               ([('dense', 'paper')] if n <= a.dense_max else [])
        for impl, preset in plan:
            r = run(impl, n, preset, a.n_jobs)
            r['load_after'] = os.getloadavg()[0]
            rows.append(r)
            print(f"{impl:8s} {preset:7s} n={n:7d}: " + (f"{r['seconds']:8.1f} s  peak {r['peak_rss_mb']:7.0f} MB  {r.get('stages', '')}"
                  if 'error' not in r else f"FAILED {r['error'][-200:]}"), flush=True)
    ok = [r for r in rows if r['impl'] == 'blocked' and r['preset'] == 'paper' and 'error' not in r]
    slope = float(np.polyfit(np.log([r['n'] for r in ok]), np.log([r['seconds'] for r in ok]), 1)[0]) if len(ok) >= 2 else None
    targets = {5000: (10, 1024), 20000: (60, 2048), 100000: (None, 4096)}
    checks = []
    for r in ok:
        if r['n'] in targets:
            ts, tm = targets[r['n']]
            checks.append(dict(n=r['n'], seconds=round(r['seconds'], 1), target_seconds=ts, peak_rss_mb=round(r['peak_rss_mb']),
                               target_mb=tm, meets=(ts is None or r['seconds'] <= ts) and r['peak_rss_mb'] <= tm))
    res = dict(command='nice -n 10 python benchmarks/bench_hardness.py ' + ' '.join(sys.argv[1:]), cpu_count=os.cpu_count(),
               load_before=load0, load_after=os.getloadavg(), growth_exponent=slope, targets=checks, runs=rows,
               note='peak_rss_mb is the child process peak (interpreter + imports + work); the machine is shared, so '
                    'wall times include contention (see load averages)')
    Path(a.out).write_text(json.dumps(res, indent=1))
    print(json.dumps(dict(growth_exponent=slope, targets=checks, load_before=load0, load_after=os.getloadavg()), indent=1))

if __name__ == '__main__':
    main()
