"""Benchmark: the least wall time a report can take on `n_jobs` cores, from the CPU of the work it must do.

    python benchmarks/timings/report_floor.py [--data pmlb:waveform_40] [--folds 5] [--n-jobs 2] [--stages-from JSON] [--out NAME]

Runs in one process with one BLAS/OpenMP thread (as every fit of the report does) and measures the CPU time
(`getrusage`) of each piece of work of a default report, fold by fold (`--folds k` measures the first k of the 5
folds and scales by 5/k):
- per evaluated model (fabra18): the fit on the training fold, the one pass's predictions (the clean test fold, its
  SCC copies and the perturbation-test copies, `_one_pass_fold` without the refit) and the ELA refit on noisy labels
  (`_noisy_refit`);
- the 240 respondents of the fold, fitted and answering as one batch of the schedule does (`_run_batch`, shared prep);
- the hardness measures (`hardness_measures`, once);
- the plain CV the report benchmark compares with: each pipeline fitted on the training fold and predicting its test
  fold.
The floor of the report's wall time on n cores is (CPU of the schedule) / n + the serial stages (read from a
`bench_report.py` result with `--stages-from`, else 0), against the plain CV's CPU / n: a ratio no schedule can beat
without doing less work. Since the label-noise refits run beside the stages (n_jobs > 1), the stages share the cores with
the schedule's last work: the floor is then (CPU of the schedule + CPU of the stages) / n (`--stages-cpu S`, the
stages' CPU-s in the report's process; default: the serial stages' seconds). Results: benchmarks/results/floor_<NAME>.json.
"""
import argparse, json, resource, sys, time, warnings
from pathlib import Path
import numpy as np
sys.path.insert(0, str(Path(__file__).resolve().parents[1]/'tools'))
from harness import write_result

def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF); return r.ru_utime + r.ru_stime

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--data', default='pmlb:waveform_40'); ap.add_argument('--folds', type=int, default=5)
    ap.add_argument('--n-jobs', type=int, default=2); ap.add_argument('--stages-from', default='')
    ap.add_argument('--stages-cpu', type=float, default=None, help="the stages' CPU-s (beside the refits); default: the serial stages' seconds")
    ap.add_argument('--out', default='')
    a = ap.parse_args()
    warnings.simplefilter('ignore')
    from threadpoolctl import threadpool_limits
    threadpool_limits(1)
    from thread_settings import thread_settings, show_threads
    threads = thread_settings(1); show_threads(threads)
    from sklearn.base import clone
    from robustdiff.datasets import load_dataset
    from robustdiff.portfolio import get_models, make_pipeline
    from robustdiff.responses import FoldContext, _fold_seed, cv_splits, _run_batch
    from robustdiff.respondents import respond_fold as _respond_fold, get_respondents
    from robustdiff._folds import as_perturbations as _as_perturbations
    from robustdiff.hardness import hardness_measures
    from robustdiff import _run as R   # the one pass (robustdiff._run)
    ds = load_dataset(a.data)
    perts = _as_perturbations(0.2)
    splits = cv_splits(ds, n_splits=5, n_repeats=1, random_state=0)[:a.folds]
    scale = 5 / len(splits)
    models, pop = get_models('fabra18', random_state=0), get_respondents('ladder')
    rows = {m: dict(fit=0.0, predict=0.0, refit=0.0, plain=0.0) for m in models}
    resp = 0.0
    t0 = time.perf_counter()
    for repeat, fold, tr, te in splits:
        for m, est in models.items():
            pipe = make_pipeline(est, ds)
            c0 = cpu(); pipe.fit(ds.X.iloc[tr], ds.y.iloc[tr].to_numpy()); c1 = cpu()
            ctx = FoldContext(m, pipe, ds, tr, te, repeat, fold, _fold_seed(0, repeat, fold))
            R._one_pass_fold(ctx, perts, 0.0, 0.1, 5, 3); c2 = cpu()
            R._noisy_refit(ctx, clone(pipe), 0.1); c3 = cpu()
            plain = make_pipeline(est, ds)
            c4 = cpu(); plain.fit(ds.X.iloc[tr], ds.y.iloc[tr].to_numpy()).predict(ds.X.iloc[te]); c5 = cpu()
            r = rows[m]; r['fit'] += c1 - c0; r['predict'] += c2 - c1; r['refit'] += c3 - c2; r['plain'] += c5 - c4
        items = [(k, name, e, repeat, fold, tr, te) for k, (name, e) in enumerate(get_models(pop, random_state=0).items())]
        c0 = cpu(); _run_batch(0, _respond_fold, ds, 0, items); resp += cpu() - c0
        R._PASS_INPUTS.clear()
        print(f"fold {fold}: {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    c0 = cpu(); hardness_measures(ds.imputed(), n_jobs=1); meas = cpu() - c0
    for r in rows.values():
        for k in r: r[k] = round(r[k] * scale, 2)
    tot = {k: round(sum(r[k] for r in rows.values()), 1) for k in ('fit', 'predict', 'refit', 'plain')}
    schedule = tot['fit'] + tot['predict'] + tot['refit'] + resp * scale + meas
    stages = 0.0
    if a.stages_from:
        res = json.load(open(a.stages_from))      # a bench_report.py result, or a measure.py one with stages_s
        side = res.get('after') or res.get('report') or {}
        stages = sum(s['seconds'] for s in side.get('stages', {}).values()) or \
                 sum(v for k, v in res.get('stages_s', {}).items() if k != 'one_schedule')
    n = a.n_jobs
    out = dict(data=a.data, rows=ds.n_instances, folds_measured=len(splits), n_jobs=n, threads=threads, models=rows,
               cpu=dict(models_fit=tot['fit'], one_pass_predictions=tot['predict'], ela_refit=tot['refit'],
                        respondents=round(resp * scale, 1), hardness_measures=round(meas, 1), schedule=round(schedule, 1),
                        plain_cv=tot['plain']),
               serial_stages_s=round(stages, 1),
               floor_report_wall_s=round(schedule / n + stages, 1), floor_plain_wall_s=round(tot['plain'] / n, 1),
               cpu_ratio=round(schedule / tot['plain'], 2),
               floor_ratio=round((schedule / n + stages) / (tot['plain'] / n), 2))
    sc = stages if a.stages_cpu is None else a.stages_cpu
    out.update(stages_cpu_s=round(sc, 1), floor_beside_wall_s=round((schedule + sc) / n, 1),
               floor_beside_ratio=round((schedule + sc) / tot['plain'], 2))
    w = max(map(len, rows))
    print(f"{'model':{w}s} {'fit':>7s} {'predict':>8s} {'refit':>7s} {'plain':>7s}   CPU-s over 5 folds, one thread")
    for m, r in sorted(rows.items(), key=lambda kv: -(kv[1]['fit'] + kv[1]['refit'])):
        print(f"{m:{w}s} {r['fit']:7.1f} {r['predict']:8.1f} {r['refit']:7.1f} {r['plain']:7.1f}")
    print(f"{'total':{w}s} {tot['fit']:7.1f} {tot['predict']:8.1f} {tot['refit']:7.1f} {tot['plain']:7.1f}")
    print(f"respondents (240, batched) {resp * scale:.1f} CPU-s; hardness measures {meas:.1f} CPU-s")
    print(f"schedule CPU {schedule:.1f} s = {schedule / tot['plain']:.2f}× the plain CV's {tot['plain']:.1f} CPU-s")
    print(f"floor on {n} cores: report ≥ {schedule / n:.1f} s + {stages:.1f} s serial stages = {schedule / n + stages:.1f} s; "
          f"plain CV ≥ {tot['plain'] / n:.1f} s; ratio ≥ {out['floor_ratio']:.2f}× (at perfect use of both sides' cores)")
    print(f"stages beside the label-noise refits: report ≥ ({schedule:.1f} + {sc:.1f}) CPU-s / {n} = {out['floor_beside_wall_s']:.1f} s; "
          f"ratio ≥ {out['floor_beside_ratio']:.2f}×")
    if a.out:
        p = write_result(f'floor_{a.out}.json', out); print(f"wrote {p}")

if __name__ == '__main__': main()
