"""Benchmark: the whole robustness pipeline against a plain cross-validation of the same models (issue 16, target 3).

    nice -n 10 python benchmarks/bench_pipeline.py [--sizes 5000 50000] [--models quick] [--rounds 3]

Both sides do the same fits: `robustness_by_difficulty(ds, models, respondents='models', nu=0.2, n_jobs=1)` (CV fits of
the evaluated models, their clean + perturbed predictions in one call, the 1PL IRT fit of their answers, split-half
reliability (10 splits), bins, κ SCCs) versus a plain scikit-learn CV: the same pipelines (`make_pipeline`) fitted on
the same `cv_splits` and `predict`ed once on each test fold (what a user would run to get accuracy alone).

A third side, `same_predictions`, is the plain CV that also predicts the perturbed copy of each test fold (the same
`FB24Noise(0.2)` rows, stacked with the clean ones in one call): the least work any implementation of [FB24]'s SCCs
must do, since κ compares clean with perturbed predictions. `ratio_cpu_vs_same` is the pipeline's own overhead.

Measured in one process with n_jobs=1 and one BLAS/OpenMP thread on every side (the pipeline pins one thread per
task for bit-identical results whatever n_jobs; the baselines get the same limit, else scikit-learn's OpenMP k-NN
runs on two threads and its CPU time depends on the machine's load), interleaved `--rounds` times, as CPU time
(`time.process_time`, robust on a shared machine) and wall time; the ratio is of the medians. The data is
`make_classification(n, 20, n_informative=10, n_classes=3, random_state=0)`. Target: ≤ 1.1×.
Results: benchmarks/results/pipeline_<models>.json.
"""
import argparse, json, os, time, warnings
from pathlib import Path
import numpy as np, pandas as pd
from sklearn.base import clone
from sklearn.datasets import make_classification
from threadpoolctl import threadpool_limits
from robustdiff.data import from_frame
from robustdiff.perturb import FB24Noise
from robustdiff.portfolio import get_models, make_pipeline
from robustdiff.responses import cv_splits
from robustdiff.scc import robustness_by_difficulty

ROOT = Path(__file__).resolve().parents[1]

def dataset(n:int):
    X, y = make_classification(n, 20, n_informative=10, n_classes=3, random_state=0)
    df = pd.DataFrame(X, columns=[f'x{i}' for i in range(20)]).assign(y=y)
    return from_frame(df, 'y', name=f'make_classification_{n}')

def plain_cv(ds, models, noisy=False):
    "Per model × fold: fit the pipeline, predict the test rows (labels only); `noisy`: also their perturbed copy, in one call."
    acc = {}
    with threadpool_limits(limits=1):
        for name, est in get_models(models).items():
            correct = 0
            for _, _, tr, te in cv_splits(ds, 5, 1, 0):
                Xtr, Xte = ds.X.iloc[tr], ds.X.iloc[te]
                m = make_pipeline(est, ds).fit(Xtr, ds.y.iloc[tr])
                if noisy: Xte = pd.concat([Xte, FB24Noise(0.2).fit(Xtr).transform(Xte, random_state=0)], ignore_index=True)
                pred = np.asarray(m.predict(Xte))[:len(te)]
                correct += int((pred == ds.y.iloc[te].to_numpy()).sum())
            acc[name] = correct / ds.n_instances
    return acc

def same_predictions(ds, models): return plain_cv(ds, models, noisy=True)

def pipeline(ds, models):
    return robustness_by_difficulty(ds, models, 0.2, respondents='models', n_jobs=1, progress=False)

def timed(fn, *a):
    c0, t0 = time.process_time(), time.perf_counter()
    out = fn(*a)
    return out, time.process_time() - c0, time.perf_counter() - t0

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--sizes', type=int, nargs='*', default=[5000, 50000])
    ap.add_argument('--models', default='quick')
    ap.add_argument('--rounds', type=int, default=3)
    a = ap.parse_args()
    warnings.simplefilter('ignore')
    res = dict(benchmark=__doc__.splitlines()[0], models=a.models, rounds=a.rounds, n_jobs=1,
               date=time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()), load_before=os.getloadavg(), sizes={})
    for n in a.sizes:
        ds = dataset(n)
        sides = {'plain': plain_cv, 'same_predictions': same_predictions, 'pipeline': pipeline}
        t = {k: [] for k in sides}
        for r in range(a.rounds):
            for side in (list(sides) if r % 2 == 0 else list(sides)[::-1]):
                out, cpu, wall = timed(sides[side], ds, a.models)
                t[side].append((cpu, wall))
                print(f'n={n:>6} round {r} {side:16s} cpu {cpu:7.2f} s  wall {wall:7.2f} s  load {os.getloadavg()[0]:.1f}', flush=True)
        med = {k: np.median(np.array(v), axis=0) for k, v in t.items()}
        res['sizes'][n] = dict(plain_cpu_s=round(float(med['plain'][0]), 2), plain_wall_s=round(float(med['plain'][1]), 2),
                               pipeline_cpu_s=round(float(med['pipeline'][0]), 2), pipeline_wall_s=round(float(med['pipeline'][1]), 2),
                               ratio_cpu=round(float(med['pipeline'][0] / med['plain'][0]), 3),
                               ratio_wall=round(float(med['pipeline'][1] / med['plain'][1]), 3), target=1.1,
                               same_predictions_cpu_s=round(float(med['same_predictions'][0]), 2),
                               same_predictions_ratio_cpu=round(float(med['same_predictions'][0] / med['plain'][0]), 3),
                               ratio_cpu_vs_same=round(float(med['pipeline'][0] / med['same_predictions'][0]), 3))
        print(n, res['sizes'][n], flush=True)
    res['load_after'] = os.getloadavg()
    res['command'] = 'nice -n 10 python benchmarks/bench_pipeline.py ' + ' '.join(os.sys.argv[1:])
    out = ROOT/'benchmarks'/'results'/f'pipeline_{a.models}.json'
    out.write_text(json.dumps(res, indent=1))
    print(json.dumps(res, indent=1))

if __name__ == '__main__':
    main()
