"""Benchmark: cross-validated predictions of a portfolio (issues 2 and 16).

    python benchmarks/timings/bench_responses.py --dataset pmlb:waveform_40 --models fabra18 --rounds 2      # vs scikit-learn
    python benchmarks/timings/bench_responses.py --dataset sklearn:breast_cancer --models fabra18 --jobs 1,2  # n_jobs scaling

`--rounds R` (issue 16 item 3) measures, interleaved R times in one process with n_jobs=1 (so CPU time is the
process's own `time.process_time`, robust on a shared machine):
  - `sklearn`: a plain per-model `cross_val_predict(method='predict_proba')` of the same pipelines on the same splits;
  - `robustdiff`: `cv_predictions` (labels, probabilities, log-loss, tidy);
  - `before`: the pre-issue-16 fold function (`predict_proba` then `predict`) through the same `map_folds`.
and reports CPU and wall seconds (median over rounds) and the ratios to `sklearn`; it checks that `robustdiff` and
`before` give identical predictions. `--jobs` (issue 2) times cv_predictions per n_jobs and checks identical results.
Results go to benchmarks/results/responses_<dataset>_<models>.json (the --rounds part under the key "vs_sklearn").
"""
import argparse, json, os, sys, time
from functools import partial
from pathlib import Path
import numpy as np, pandas as pd
from sklearn.model_selection import cross_val_predict
from threadpoolctl import threadpool_limits
from robustdiff.datasets import load_dataset
from robustdiff.portfolio import get_models, make_pipeline
from robustdiff.responses import cv_predictions, cv_splits, map_folds, response_matrix, accuracy_table
sys.path.insert(0, str(Path(__file__).resolve().parents[1]/'tools'))
from harness import write_result

def _before_fold(ctx):
    "The fold function of cv_predictions before issue 16: predict_proba, then predict (two passes)."
    ds, te = ctx.dataset, ctx.test
    X, y = ds.X.iloc[te], ds.y.iloc[te].to_numpy()
    est = ctx.estimator
    out = pd.DataFrame({'instance': te, 'y_true': y})
    P = np.asarray(est.predict_proba(X), dtype=float)
    pos = pd.Index(est.classes_).get_indexer(y)
    p_true = np.where(pos >= 0, P[np.arange(len(y)), np.maximum(pos, 0)], 0.0)
    out['y_pred'] = est.predict(X)
    out['p_true'] = p_true
    out['logloss'] = -np.log(np.clip(p_true, 1e-15, 1))
    out['correct'] = (out.y_pred.to_numpy() == y).astype('int8')
    return out[['instance', 'y_true', 'y_pred', 'correct', 'p_true', 'logloss']]

def _sklearn(ds, models, n_splits):
    "Plain scikit-learn: one cross_val_predict per model, same pipelines, same splits."
    cv = [(tr, te) for _, _, tr, te in cv_splits(ds, n_splits=n_splits, n_repeats=1, random_state=0)]
    with threadpool_limits(limits=1):
        return {name: cross_val_predict(make_pipeline(est, ds), ds.X, ds.y.to_numpy(), cv=cv, method='predict_proba')
                for name, est in get_models(models, random_state=0).items()}

def _timed(f):
    c, w = time.process_time(), time.perf_counter()
    out = f()
    return out, time.process_time() - c, time.perf_counter() - w

def vs_sklearn(ds, models, n_splits, rounds):
    sides = {'sklearn': lambda: _sklearn(ds, models, n_splits),
             'robustdiff': lambda: cv_predictions(ds, models, n_splits=n_splits, n_jobs=1, progress=False),
             'before': lambda: map_folds(_before_fold, ds, models, n_splits=n_splits, n_jobs=1, progress=False)}
    cpu, wall, res = {k: [] for k in sides}, {k: [] for k in sides}, {}
    names = list(sides)
    for r in range(rounds):
        for k in names[r % 3:] + names[:r % 3]:            # interleaved, rotating the order
            res[k], c, w = _timed(sides[k])
            cpu[k].append(c); wall[k].append(w)
            print(f"round {r}: {k:10s} cpu {c:7.1f} s  wall {w:7.1f} s  load {os.getloadavg()[0]:.1f}", flush=True)
    same = res['robustdiff'].equals(res['before'])
    med = lambda v: float(np.median(v))
    out = dict(rounds=rounds, cpu_s={k: [round(x, 2) for x in v] for k, v in cpu.items()},
               wall_s={k: [round(x, 2) for x in v] for k, v in wall.items()},
               ratio_cpu={k: round(med(cpu[k]) / med(cpu['sklearn']), 3) for k in ('robustdiff', 'before')},
               ratio_wall={k: round(med(wall[k]) / med(wall['sklearn']), 3) for k in ('robustdiff', 'before')},
               identical_to_before=bool(same), date=time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()))
    print(json.dumps(out, indent=1))
    return out

def n_jobs_scaling(ds, models, n_splits, jobs):
    times, runs = [], {}
    for j in jobs:
        t = time.perf_counter()
        runs[j] = cv_predictions(ds, models, n_splits=n_splits, n_jobs=j, progress=False)
        times.append((j, time.perf_counter() - t))
    first = runs[min(runs)]
    same = all(first.equals(r) for r in runs.values())
    U, acc = response_matrix(first), accuracy_table(first)
    pd.set_option('display.width', 160)
    print(f"dataset {ds!r}\nportfolio {models}: response matrix {U.shape[0]} models × {U.shape[1]} instances")
    print(acc.to_string(index=False, float_format=lambda v: f'{v:.4f}'))
    for j, t in times: print(f"n_jobs={j}: {t:.1f} s")
    print(f"identical predictions across n_jobs: {same}")
    return dict(shape=list(U.shape), seconds=[(k, round(v, 2)) for k, v in times], identical=same,
                accuracy=acc.set_index('model').accuracy.round(4).to_dict())

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--dataset', default='sklearn:breast_cancer')
    ap.add_argument('--models', default='fabra18')
    ap.add_argument('--n_splits', type=int, default=5)
    ap.add_argument('--jobs', default=None, help='comma-separated n_jobs values to time (issue 2)')
    ap.add_argument('--rounds', type=int, default=0, help='interleaved rounds against plain scikit-learn (issue 16)')
    a = ap.parse_args()
    ds = load_dataset(a.dataset)
    path = Path(__file__).resolve().parents[1]/'results'/f"responses_{ds.name}_{a.models}.json"
    path.parent.mkdir(exist_ok=True)
    rec = json.loads(path.read_text()) if path.exists() else {}
    rec.update(dataset=ds.name, models=a.models, n_splits=a.n_splits, cpu_count=os.cpu_count())
    if a.rounds: rec['vs_sklearn'] = vs_sklearn(ds, a.models, a.n_splits, a.rounds)
    if a.jobs or not a.rounds:
        rec.update(n_jobs_scaling(ds, a.models, a.n_splits, [int(x) for x in (a.jobs or '1,2').split(',')]))
    write_result(path, rec, indent=2)
    if not rec.get('identical', True) or not rec.get('vs_sklearn', {}).get('identical_to_before', True):
        raise SystemExit('results differ')

if __name__ == '__main__': main()
