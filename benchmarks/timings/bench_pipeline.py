"""Benchmark: the whole robustness pipeline against a plain cross-validation of the same models (issue 16, target 3).

    nice -n 10 python benchmarks/timings/bench_pipeline.py [--sizes 5000 50000] [--models quick] [--rounds 3]

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
`--before COMMIT`: the pipeline side only, this tree against the code of COMMIT (`git archive` into a temporary
folder), each run in a child process whose working directory is its own tree (so that the tree's `robustdiff`
is imported, not the editable install's), interleaved; the best of 3 runs per child, CPU time.
Results: benchmarks/results/pipeline_<models>.json (`--before`: pipeline_<models>_before_<COMMIT>.json).
"""
import argparse, json, os, subprocess, sys, tarfile, tempfile, time, warnings
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

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parents[1]/'tools'))
from harness import write_result

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
            for _, _, tr, te in cv_splits(ds, n_splits=5, n_repeats=1, random_state=0):
                Xtr, Xte = ds.X.iloc[tr], ds.X.iloc[te]
                m = make_pipeline(est, ds).fit(Xtr, ds.y.iloc[tr])
                if noisy: Xte = pd.concat([Xte, FB24Noise(0.2).fit(Xtr).transform(Xte, random_state=0)], ignore_index=True)
                pred = np.asarray(m.predict(Xte))[:len(te)]
                correct += int((pred == ds.y.iloc[te].to_numpy()).sum())
            acc[name] = correct / ds.n_instances
    return acc

def same_predictions(ds, models): return plain_cv(ds, models, noisy=True)

def pipeline(ds, models):
    return robustness_by_difficulty(ds, models, perturbation=0.2, respondents='models', n_jobs=1, progress=False)

def timed(fn, *a):
    c0, t0 = time.process_time(), time.perf_counter()
    out = fn(*a)
    return out, time.process_time() - c0, time.perf_counter() - t0

_CHILD = r'''
import sys, time, warnings; warnings.simplefilter('ignore')
sys.path[:0] = ['benchmarks/timings', 'benchmarks/tools']; import bench_pipeline as b, robustdiff
assert robustdiff.__file__.startswith(sys.argv[1]), robustdiff.__file__
ds = b.dataset(int(sys.argv[2])); b.pipeline(ds, sys.argv[3])
ts = []
for _ in range(3):
    c = time.process_time(); b.pipeline(ds, sys.argv[3]); ts.append(time.process_time() - c)
print(min(ts))
'''

def before_after(commit:str, sizes, models:str, rounds:int):
    "The pipeline's CPU time, this tree vs COMMIT's code, child processes interleaved."
    res = dict(benchmark='robustness_by_difficulty CPU time: this tree vs ' + commit, models=models, rounds=rounds,
               date=time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()), load_before=os.getloadavg(), sizes={})
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp)/'before'
        data = subprocess.run(['git', 'archive', commit], cwd=ROOT, capture_output=True, check=True).stdout
        tarfile.open(fileobj=__import__('io').BytesIO(data)).extractall(old)
        for d, f in (('timings', Path(__file__)), ('tools', ROOT/'benchmarks'/'tools'/'harness.py')):   # the same harness on both sides
            (old/'benchmarks'/d).mkdir(parents=True, exist_ok=True); (old/'benchmarks'/d/f.name).write_text(f.read_text())
        trees = {'before': old, 'after': ROOT}
        for n in sizes:
            t = {k: [] for k in trees}
            for r in range(rounds):
                for side in (list(trees) if r % 2 == 0 else list(trees)[::-1]):
                    env = dict(os.environ, PYTHONPATH=str(trees[side]), ROBUSTDIFF_DATA=str(ROOT/'data'))
                    out = subprocess.run([sys.executable, '-c', _CHILD, str(trees[side]), str(n), models], env=env,
                                         cwd=trees[side], capture_output=True, text=True, check=True)
                    t[side].append(float(out.stdout.split()[-1]))
                    print(f'n={n:>6} round {r} {side:6s} cpu {t[side][-1]:7.3f} s', flush=True)
            med = {k: float(np.median(v)) for k, v in t.items()}
            res['sizes'][n] = dict(before_cpu_s=round(med['before'], 3), after_cpu_s=round(med['after'], 3),
                                   ratio_after_before=round(med['after'] / med['before'], 3))
            print(n, res['sizes'][n], flush=True)
    res['load_after'] = os.getloadavg()
    res['command'] = 'python benchmarks/timings/bench_pipeline.py ' + ' '.join(sys.argv[1:])
    write_result(f'pipeline_{models}_before_{commit}.json', res)

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--sizes', type=int, nargs='*', default=[5000, 50000])
    ap.add_argument('--models', default='quick')
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--before', default='', help='a commit: compare the pipeline side against its code')
    a = ap.parse_args()
    if a.before: return before_after(a.before, a.sizes, a.models, a.rounds)
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
    res['command'] = 'nice -n 10 python benchmarks/timings/bench_pipeline.py ' + ' '.join(os.sys.argv[1:])
    out = ROOT/'benchmarks'/'results'/f'pipeline_{a.models}.json'
    write_result(out, res)
    print(json.dumps(res, indent=1))

if __name__ == '__main__':
    main()
