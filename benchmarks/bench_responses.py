"""Benchmark: cross-validated response matrix of a portfolio, n_jobs=1 vs n_jobs=2 (issue 2 acceptance).

    python benchmarks/bench_responses.py [--dataset sklearn:breast_cancer] [--models fabra18] [--n_splits 5]

Prints the response-matrix shape, each model's accuracy, the wall time per n_jobs, and checks that both runs
give identical predictions. Results are also written to benchmarks/results/responses_<dataset>_<models>.json.
"""
import argparse, json, os, time
from pathlib import Path
import pandas as pd
from robustdiff.data import load_dataset
from robustdiff.responses import cv_predictions, response_matrix, accuracy_table

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--dataset', default='sklearn:breast_cancer')
    ap.add_argument('--models', default='fabra18')
    ap.add_argument('--n_splits', type=int, default=5)
    ap.add_argument('--jobs', default='1,2')
    a = ap.parse_args()
    ds = load_dataset(a.dataset)
    load0 = os.getloadavg()
    times, runs = [], {}
    for j in [int(x) for x in a.jobs.split(',')]:
        t = time.perf_counter()
        runs[j] = cv_predictions(ds, a.models, n_splits=a.n_splits, n_jobs=j, progress=False)
        times.append((j, time.perf_counter() - t))
    first = runs[min(runs)]
    same = all(first.equals(r) for r in runs.values())
    U = response_matrix(first)
    acc = accuracy_table(first)
    pd.set_option('display.width', 160)
    print(f"dataset {ds!r}\nportfolio {a.models}: response matrix {U.shape[0]} models × {U.shape[1]} instances")
    print(acc.to_string(index=False, float_format=lambda v: f'{v:.4f}'))
    for j, t in times: print(f"n_jobs={j}: {t:.1f} s")
    print(f"load average before/after: {load0} / {os.getloadavg()}")
    print(f"identical predictions across n_jobs: {same}")
    out = Path(__file__).parent/'results'; out.mkdir(exist_ok=True)
    (out/f"responses_{ds.name}_{a.models}.json").write_text(json.dumps(dict(
        dataset=ds.name, models=a.models, shape=list(U.shape), seconds=[(k, round(v, 2)) for k, v in times], load_average=[load0, os.getloadavg()],
        identical=same, accuracy=acc.set_index('model').accuracy.round(4).to_dict()), indent=2))
    if not same: raise SystemExit('results differ across n_jobs')

if __name__ == '__main__': main()
