"""Benchmark: the report on a local 2-worker Dask cluster against local joblib on the same two cores.

    python benchmarks/timings/bench_dask.py [--data sklearn:wine] [--models quick] [--stages accuracy,difficulty,scc,verdict]
        [--rounds 2] [--out NAME]

A `distributed.LocalCluster` (2 worker processes × 1 thread, 127.0.0.1 only, no dashboard) stands in for
`dask scheduler` + `dask worker --nworkers 2 --nthreads 1`. Each round runs `build_report` twice in this process,
interleaved: local joblib (`n_jobs=2`, loky) and `scheduler=<the cluster's address>`; it prints both wall times, their
ratio (target ≤ 1.5×), the CPU-seconds each run used (this process and its children: the loky workers or the Dask
worker processes; other users of the machine are not counted), the number of tasks the cluster ran and whether every
table is identical. Results: benchmarks/results/dask_<NAME>.json.
"""
import argparse, json, os, sys, time, warnings
from pathlib import Path
import pandas as pd, psutil
sys.path.insert(0, str(Path(__file__).resolve().parents[1]/'tools'))
from harness import write_result

def _cpu()->dict:
    "CPU-seconds (user + system) of this process and of each live descendant, by pid."
    out = {}
    for p in [psutil.Process()] + psutil.Process().children(recursive=True):
        try: t = p.cpu_times(); out[p.pid] = t.user + t.system
        except psutil.Error: pass
    return out

def _cpu_used(before:dict)->float:
    "CPU-seconds used since `before` by this process and its descendants (those that ended meanwhile are not counted)."
    return sum(v - before.get(pid, 0.0) for pid, v in _cpu().items())

def _timed(run)->tuple:
    "(result, wall seconds, CPU-seconds) of `run()`."
    c, t = _cpu(), time.perf_counter()
    out = run()
    return out, time.perf_counter() - t, _cpu_used(c)

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
    from distributed import Client, LocalCluster
    from robustdiff.report import build_report
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host='127.0.0.1', dashboard_address=None)
    kw = dict(models=a.models, stages=a.stages, progress=False, random_state=0)
    times, cpus, same, load_before = {'joblib': [], 'dask': []}, {'joblib': [], 'dask': []}, True, os.getloadavg()
    watch = Client(cluster)             # counts the tasks the cluster runs (a nested joblib call would be a task too)
    watch.get_task_stream()             # starts recording
    tasks = []
    try:
        for r in range(a.rounds):
            loc, t, c = _timed(lambda: build_report(a.data, n_jobs=2, **kw)); times['joblib'].append(t); cpus['joblib'].append(c)
            t0 = time.time()
            dsk, t, c = _timed(lambda: build_report(a.data, n_jobs=2, scheduler=cluster.scheduler_address, **kw))
            times['dask'].append(t); cpus['dask'].append(c)
            tasks.append(len(watch.get_task_stream(start=t0)))
            tl, td = _tables(loc), _tables(dsk)
            same &= tl.keys() == td.keys() and all(tl[k].equals(td[k]) for k in tl)
            print(f"round {r}: joblib {times['joblib'][-1]:.1f} s ({cpus['joblib'][-1]:.0f} CPU-s), dask {times['dask'][-1]:.1f} s "
                  f"({cpus['dask'][-1]:.0f} CPU-s, {tasks[-1]} tasks), tables identical: {same}", flush=True)
    finally:
        watch.close(); cluster.close()
    best = {k: min(v) for k, v in times.items()}
    res = dict(command='python benchmarks/timings/bench_dask.py ' + ' '.join(f'--{k} {v}' for k, v in vars(a).items() if v is not None),
               data=a.data, models=a.models, stages=a.stages, joblib_s=best['joblib'], dask_s=best['dask'],
               ratio=round(best['dask'] / best['joblib'], 2), identical=bool(same), rounds=times, cpu_s=cpus, dask_tasks=tasks,
               date=time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()), load_before=load_before, load_after=os.getloadavg())
    print(json.dumps(res))
    if a.out: write_result(f'dask_{a.out}.json', res)

if __name__ == '__main__':
    main()
