"""Benchmark: Instance Space Analysis ([PLM22], issue 13).

    python benchmarks/timings/bench_isa.py [--part all|breast_cancer|large] [--n_jobs 2] [--n 20000]

1. `breast_cancer`: `instance_space(load_sklearn('breast_cancer'), models='pyhard7')` end to end — the 13 hardness
   measures, the 7-model pool's out-of-fold log-losses (5 folds, Platt calibration, no hyper-parameter search), MRMR +
   instant-runoff, PILOT (5 starts), rotation, good/best/easy footprints and the IRT difficulty. Each stage is timed
   separately as well. Target ≤ 20 s (PyHard 2.2.4 took 104 s on this kind of machine).
2. `large`: PILOT + footprints on n = 20 000 instances (10 features, 7 models, synthetic), wall time and peak memory
   (ru_maxrss of a fresh child process, so the numbers are not mixed with part 1).

The machine's load average before/after is recorded (other jobs on a shared machine inflate the wall time).
Results are printed and written to benchmarks/results/isa.json.
"""
import argparse, json, os, resource, subprocess, sys, time, warnings
from pathlib import Path
import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parents[1]/'tools'))
from harness import write_result

def breast_cancer(n_jobs:int)->dict:
    from robustdiff.datasets import load_sklearn
    from robustdiff.isa import instance_space
    ds = load_sklearn('breast_cancer')
    load_before = os.getloadavg()
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        sp = instance_space(ds, models='pyhard7', n_jobs=n_jobs)
    total = time.perf_counter() - t0
    # the stages again, separately (measures, pool; then the ISA part on the cached inputs)
    from robustdiff import hardness as H
    from robustdiff.ih import instance_hardness
    t0 = time.perf_counter(); M = H.hardness_measures(ds); t_meas = time.perf_counter() - t0
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        ih = instance_hardness(ds, models='pyhard7', n_jobs=n_jobs)
    t_pool = time.perf_counter() - t0
    t0 = time.perf_counter(); instance_space(ds, measures=M, hardness=ih); t_isa = time.perf_counter() - t0
    return {'dataset': 'breast_cancer', 'n': ds.n_instances, 'models': 'pyhard7', 'n_jobs': n_jobs,
            'total_s': round(total, 2), 'measures_s': round(t_meas, 2), 'pool_s': round(t_pool, 2),
            'isa_rest_s': round(t_isa, 2), 'target_s': 20, 'pyhard_s': 104,
            'features': sp.features, 'load_before': load_before, 'load_after': os.getloadavg()}

def large(n:int)->dict:
    "Runs in a child process: PILOT + footprints on n synthetic instances."
    code = f"""
import json, time, resource, numpy as np, pandas as pd
from robustdiff.isa import pilot, rotation_matrix
from robustdiff.footprints import footprints
rng = np.random.default_rng(0)
n, m, k = {n}, 10, 7
Z = rng.normal(size=(n, 2))
F = pd.DataFrame(np.tanh(Z @ rng.normal(size=(2, m))) + 0.2 * rng.normal(size=(n, m)), columns=[f'f{{i}}' for i in range(m)])
L = pd.DataFrame(np.exp(Z @ rng.normal(size=(2, k)) * 0.7 + 0.3 * rng.normal(size=(n, k)) - 1.5), columns=[f'm{{j}}' for j in range(k)])
t0 = time.perf_counter(); pr = pilot(F, (L - L.mean()) / L.std(), n_starts=5, random_state=0); t_pilot = time.perf_counter() - t0
good = L < np.log(2); best = L.le(L.min(1), axis=0); bad = (~good).sum(1) > k / 2
R = rotation_matrix(pr.coords, bad.to_numpy()); C = pr.coords.to_numpy() @ R.T
t0 = time.perf_counter(); fp = footprints(C, good, best=best, easy=(L.mean(1) < 0.4).to_numpy()); t_fp = time.perf_counter() - t0
print(json.dumps({{'n': n, 'features': m, 'models': k, 'pilot_s': round(t_pilot, 2), 'footprints_s': round(t_fp, 2),
                  'total_s': round(t_pilot + t_fp, 2), 'peak_rss_mb': round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
                  'good_area_norm_mean': round(float(fp.table.query("kind == 'good'").area_norm.mean()), 3)}}))
"""
    load_before = os.getloadavg()
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, env={**os.environ, 'PYTHONPATH': str(ROOT)})
    if out.returncode: raise RuntimeError(out.stderr)
    res = json.loads(out.stdout.strip().splitlines()[-1])
    res.update(load_before=load_before, load_after=os.getloadavg())
    return res

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--part', default='all', choices=['all', 'breast_cancer', 'large'])
    ap.add_argument('--n_jobs', type=int, default=2)
    ap.add_argument('--n', type=int, default=20_000)
    a = ap.parse_args()
    path = ROOT / 'benchmarks' / 'results' / 'isa.json'
    res = json.loads(path.read_text()) if path.exists() else {}
    if a.part in ('all', 'large'):
        res['large'] = large(a.n); print(json.dumps(res['large'], indent=1), flush=True)
    if a.part in ('all', 'breast_cancer'):
        res['breast_cancer'] = breast_cancer(a.n_jobs); print(json.dumps(res['breast_cancer'], indent=1), flush=True)
    write_result(path, res)
    print(f'written {path}')

if __name__ == '__main__':
    main()
