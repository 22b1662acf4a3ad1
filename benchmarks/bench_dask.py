"""Benchmark: the report on a local 2-worker Dask cluster against local joblib on the same two cores.

    python benchmarks/bench_dask.py [--data sklearn:wine] [--models quick] [--stages accuracy,difficulty,scc,verdict]
        [--rounds 2] [--out NAME]

A `distributed.LocalCluster` (2 worker processes × 1 thread, 127.0.0.1 only, no dashboard) stands in for
`dask scheduler` + `dask worker --nworkers 2 --nthreads 1`. Each round runs `build_report` twice in this process,
interleaved: local joblib (`n_jobs=2`, loky) and `scheduler=<the cluster's address>`; it prints both wall times, their
ratio (target ≤ 1.5×) and whether every table is identical. Results: benchmarks/results/dask_<NAME>.json.
"""
import argparse, json, os, time, warnings
from pathlib import Path
import pandas as pd

def _tables(rep):
    out = {}
    for name, st in rep.stages.items():
        for key, val in (getattr(st, 'tables', None) or {}).items():
            if isinstance(val, pd.DataFrame): out[f'{name}.{key}'] = val
    return out

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--data', default='sklearn:wine')
    ap.add_argument('--models', default='quick')
    ap.add_argument('--stages', default='accuracy,difficulty,scc,verdict')
    ap.add_argument('--rounds', type=int, default=2)
    ap.add_argument('--out', default=None)
    a = ap.parse_args()
    warnings.simplefilter('ignore')
    from distributed import LocalCluster
    from robustdiff.report import build_report
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host='127.0.0.1', dashboard_address=None)
    kw = dict(models=a.models, stages=a.stages, progress=False, random_state=0)
    times, same = {'joblib': [], 'dask': []}, True
    try:
        for r in range(a.rounds):
            t = time.perf_counter(); loc = build_report(a.data, n_jobs=2, **kw); times['joblib'].append(time.perf_counter() - t)
            t = time.perf_counter(); dsk = build_report(a.data, n_jobs=2, scheduler=cluster.scheduler_address, **kw)
            times['dask'].append(time.perf_counter() - t)
            tl, td = _tables(loc), _tables(dsk)
            same &= tl.keys() == td.keys() and all(tl[k].equals(td[k]) for k in tl)
            print(f"round {r}: joblib {times['joblib'][-1]:.1f} s, dask {times['dask'][-1]:.1f} s, tables identical: {same}", flush=True)
    finally:
        cluster.close()
    best = {k: min(v) for k, v in times.items()}
    res = dict(command='python benchmarks/bench_dask.py ' + ' '.join(f'--{k} {v}' for k, v in vars(a).items() if v is not None),
               data=a.data, models=a.models, stages=a.stages, joblib_s=best['joblib'], dask_s=best['dask'],
               ratio=round(best['dask'] / best['joblib'], 2), identical=bool(same), rounds=times,
               date=time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()), load_after=os.getloadavg())
    print(json.dumps(res))
    if a.out: (Path(__file__).resolve().parent/'results'/f'dask_{a.out}.json').write_text(json.dumps(res, indent=1))

if __name__ == '__main__':
    main()
