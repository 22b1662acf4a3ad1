"""Benchmark: the respondent population of issue 9 — finite difficulties, split-half reliability, cost.

    nice -n 10 python benchmarks/timings/bench_respondents.py                      # all three parts
    python benchmarks/timings/bench_respondents.py --parts coverage --datasets vowel yeast
    python benchmarks/timings/bench_respondents.py --parts cost
    python benchmarks/timings/bench_respondents.py --parts scaling --datasets vowel analcatdata_dmft --sizes 30 60 120 240 480
    nice -n 10 python benchmarks/timings/bench_respondents.py --parts speed            # the ladder's CPU before/after (issue 36)
    nice -n 10 python benchmarks/timings/bench_respondents.py --parts speed --speed-data waveform_40 --before-ref b7f352b

speed (issue 36): the CPU seconds of the report's respondent schedule (the 240-respondent ladder on the report's 5
folds, batched as `robustdiff._run._schedule` batches it, n_jobs=1, answers only) with the code of git ref
`--before-ref` (checked out with `git archive` into a temporary folder) and with this checkout, each in a fresh
process, on waveform_40 (5 000 rows) and the diamonds-like table (53 940 rows: 43 152 training rows per fold,
`benchmarks/tools/diamonds_like.py`); and whether the two response matrices are equal, bit for bit.

Targets (issue 9), with `get_respondents('ladder')` (default n) and no artificial learners:
- coverage: the share of instances with a finite 1PL difficulty (answered right by some respondent and wrong by
  another), median ≥ 99 % over the 16 PMLB benchmarks of [FB24] (`benchmarks/fb24_study.PMLB16`); min and which;
- reliability: split-half Spearman between the difficulties fitted on two random halves of the respondents,
  median (over the benchmarks, of each benchmark's median over 10 splits) ≥ 0.9;
- cost: fitting the population ≤ 2× fitting `fabra18` on the same 5 folds of waveform_40, measured as CPU time
  (n_jobs=1, in-process, so `time.process_time` counts all of it; the machine is shared, wall time is also given).

The population's CV answers are cached per respondent × fold in `benchmarks/results/tmp/fb24_cache/<dataset>`
(the same cache as `fb24_study.py`'s difficulty pass, so either run reuses the other's fits).
Writes benchmarks/results/respondents.json (and respondents_<part>.csv tables).
"""
import argparse, json, os, sys, time, warnings
from pathlib import Path
import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
PARTS = ('coverage', 'cost', 'scaling', 'speed')
sys.path[:0] = [str(ROOT/'benchmarks'/'studies'), str(ROOT/'benchmarks'/'tools')]
from harness import write_result
from fb24_study import PMLB16

def coverage(datasets, n, n_jobs, cache, n_splits_rel=10):
    from robustdiff.datasets import load_pmlb
    from robustdiff.irt import fit_irt
    from robustdiff.responses import response_matrix
    from robustdiff.respondents import get_respondents, respondent_predictions, split_half_reliability, with_reliability
    rows = []
    for name in datasets:
        ds = load_pmlb(name)
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            rp = respondent_predictions(ds, get_respondents('ladder', n=n), n_jobs=n_jobs, progress=False, cache_dir=Path(cache)/name)
        U = response_matrix(rp)
        fit = fit_irt(U)
        it = with_reliability(fit)
        rel = split_half_reliability(U, n_repeats=n_splits_rel, random_state=0)
        st = fit.items.status.astype(str)
        r = dict(dataset=name, n_instances=ds.n_instances, n_classes=ds.n_classes, n_respondents=len(U),
                 finite_share=float(st.isin(['ok', 'out_of_range']).mean()), all_right=int((st == 'all_right').sum()),
                 all_wrong=int((st == 'all_wrong').sum()), split_half_spearman=float(rel.spearman.median()),
                 split_half_spearman_finite=float(rel.spearman_finite.median()), spearman_brown=float(rel.spearman_brown.median()),
                 median_se=float(np.median(it.difficulty_se[np.isfinite(it.difficulty_se)])),
                 accuracy_min=float(U.mean(1).min()), accuracy_max=float(U.mean(1).max()), seconds=round(time.perf_counter() - t0, 1))
        print(r, flush=True); rows.append(r)
    return pd.DataFrame(rows)

def scaling(datasets, sizes, n_jobs, cache, n_splits_rel=10):
    "Finite share, split-half reliability and rank agreement with the largest population (Spearman of the 1PL\n    difficulties) for growing populations (prefixes of one ladder: the first n respondents)."
    from robustdiff.datasets import load_pmlb
    from robustdiff.responses import response_matrix
    from robustdiff.respondents import get_respondents, respondent_predictions, split_half_reliability
    from robustdiff.irt import fit_irt
    from scipy.stats import spearmanr
    rows = []
    for name in datasets:
        ds = load_pmlb(name)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            U = response_matrix(respondent_predictions(ds, get_respondents('ladder', n=max(sizes)), n_jobs=n_jobs,
                                                       progress=False, cache_dir=Path(cache)/name))
        d_full = fit_irt(U).items.difficulty
        for n in sorted(sizes):
            Un = U.iloc[:n]
            rel = split_half_reliability(Un, n_repeats=n_splits_rel, random_state=0)
            r = dict(dataset=name, n_respondents=n, finite_share=float(((Un.min() == 0) & (Un.max() == 1)).mean()),
                     split_half_spearman=float(rel.spearman.median()), spearman_brown=float(rel.spearman_brown.median()),
                     split_half_spearman_finite=float(rel.spearman_finite.median()),
                     spearman_vs_largest=float(spearmanr(fit_irt(Un).items.difficulty, d_full, nan_policy='omit').statistic))
            print(r, flush=True); rows.append(r)
    return pd.DataFrame(rows)

def cost(n, dataset='waveform_40'):
    "CPU and wall seconds of fitting (and predicting) fabra18 and the population on the same 5 folds, n_jobs=1."
    from robustdiff.datasets import load_pmlb
    from robustdiff.responses import map_folds
    from robustdiff.respondents import get_respondents, respond_fold as _respond_fold
    ds = load_pmlb(dataset)
    out = {}
    for label, models in [('population', get_respondents('ladder', n=n)), ('fabra18', 'fabra18')]:
        c0, t0 = time.process_time(), time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            map_folds(_respond_fold, ds, models, n_splits=5, random_state=0, n_jobs=1, progress=False)
        out[label] = dict(cpu_s=round(time.process_time() - c0, 1), wall_s=round(time.perf_counter() - t0, 1),
                          n_models=len(models) if isinstance(models, dict) else 18)
        print(label, out[label], flush=True)
    out['ratio_cpu'] = round(out['population']['cpu_s'] / out['fabra18']['cpu_s'], 3)
    out['ratio_wall'] = round(out['population']['wall_s'] / out['fabra18']['wall_s'], 3)
    return out

def _speed_data(name:str):
    "waveform_40 (PMLB) or the diamonds-like table (`diamonds_like.py`, 53 940 rows)."
    if name == 'diamonds_like':
        from diamonds_like import diamonds_like
        from robustdiff.data import from_frame
        return from_frame(diamonds_like(), 'cut', name='diamonds_like')
    from robustdiff.datasets import load_pmlb
    return load_pmlb(name)

def speed_worker(name:str, out:str):
    "In a fresh process: the report's respondent schedule on `name`, n_jobs=1; writes the 0/1 matrix and the CPU seconds."
    import math, robustdiff
    from robustdiff.respondents import get_respondents, respond_fold as _respond_fold
    from robustdiff.responses import _plan_folds, response_matrix
    from robustdiff._folds import run_plans as _run_plans, answers_only as _answers_only
    ds = _speed_data(name)
    resp = get_respondents('ladder')
    c0, t0 = time.process_time(), time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        plan = _plan_folds(_respond_fold, ds, resp, 5, 1, 0, None, 'respondents', batch=max(1, math.ceil(len(resp) * 5 / 24))).slim(_answers_only)
        _run_plans([plan], 1, None, False, 'respondents')
        U = response_matrix([r for r in plan.results if r is not None])
    cpu, wall = time.process_time() - c0, time.perf_counter() - t0
    np.savez_compressed(out, U=U.to_numpy(), models=np.array(U.index, dtype=str), instances=U.columns.to_numpy())
    print(json.dumps(dict(cpu_s=round(cpu, 2), wall_s=round(wall, 2), code=robustdiff.__file__)))

def speed(datasets, before_ref:str, repeats:int=1):
    "Before/after CPU seconds of the ladder on each dataset (fresh processes, n_jobs=1) and whether the matrices are equal."
    import subprocess, tempfile
    out = {'before_ref': before_ref}
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp)/'before'; old.mkdir()
        tar = subprocess.run(['git', 'archive', before_ref, 'robustdiff'], cwd=ROOT, check=True, capture_output=True).stdout
        subprocess.run(['tar', '-x', '-C', str(old)], input=tar, check=True)
        for name in datasets:
            res = {}
            for label, code in (('before', old), ('after', ROOT)):
                runs = []
                for r in range(repeats):
                    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(code), str(ROOT/'benchmarks'/'tools')]), ROBUSTDIFF_DATA=os.environ.get('ROBUSTDIFF_DATA', str(ROOT/'data')))
                    f = Path(tmp)/f'{name}_{label}.npz'
                    p = subprocess.run([sys.executable, __file__, '--speed-worker', name, str(f)], env=env, check=True,
                                       capture_output=True, text=True)
                    runs.append(json.loads(p.stdout.strip().splitlines()[-1]))
                    print(name, label, runs[-1], flush=True)
                res[label] = dict(cpu_s=min(x['cpu_s'] for x in runs), wall_s=min(x['wall_s'] for x in runs), runs=runs)
            with np.load(Path(tmp)/f'{name}_before.npz') as a, np.load(Path(tmp)/f'{name}_after.npz') as b:
                res['identical'] = bool(all(np.array_equal(a[k], b[k]) for k in ('U', 'models', 'instances')))
                res['shape'] = list(a['U'].shape)
            res['speedup_cpu'] = round(res['before']['cpu_s'] / res['after']['cpu_s'], 3)
            print(name, {k: v for k, v in res.items() if k not in ('before', 'after')}, flush=True)
            out[name] = res
    return out

def main():
    import inspect
    from robustdiff.respondents import get_respondents
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    if len(sys.argv) == 4 and sys.argv[1] == '--speed-worker': return speed_worker(sys.argv[2], sys.argv[3])
    ap.add_argument('--parts', nargs='*', default=['coverage', 'cost'], choices=list(PARTS))
    ap.add_argument('--speed-data', nargs='*', default=['waveform_40', 'diamonds_like'], help='tables for --parts speed')
    ap.add_argument('--before-ref', default='b7f352b', help='git ref of the code --parts speed compares against')
    ap.add_argument('--repeats', type=int, default=1, help='runs of each side for --parts speed (the least CPU is kept)')
    ap.add_argument('--sizes', type=int, nargs='*', default=[30, 60, 120, 240, 480], help='population sizes for --parts scaling')
    ap.add_argument('--datasets', nargs='*', default=PMLB16)
    ap.add_argument('--n', type=int, default=inspect.signature(get_respondents).parameters['n'].default)
    ap.add_argument('--n_jobs', type=int, default=1)
    ap.add_argument('--cache', default=str(ROOT/'benchmarks'/'results'/'tmp'/'fb24_cache'))
    a = ap.parse_args()
    path = ROOT/'benchmarks'/'results'/'respondents.json'
    res = json.loads(path.read_text()) if path.exists() else {}
    res.update(population=f"get_respondents('ladder', n={a.n}), no artificial learners", date=time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()))
    load0 = os.getloadavg()
    if 'coverage' in a.parts:
        cov = coverage(a.datasets, a.n, a.n_jobs, a.cache)
        cov.round(5).to_csv(ROOT/'benchmarks'/'results'/'respondents_coverage.csv', index=False)
        worst = cov.loc[cov.finite_share.idxmin()]
        res['coverage'] = dict(n_datasets=len(cov), finite_share_median=float(cov.finite_share.median()),
                               finite_share_min=float(worst.finite_share), finite_share_min_dataset=worst.dataset,
                               target_median=0.99, met=bool(cov.finite_share.median() >= .99),
                               split_half_spearman_median=float(cov.split_half_spearman.median()),
                               split_half_spearman_min=float(cov.split_half_spearman.min()),
                               split_half_spearman_min_dataset=cov.loc[cov.split_half_spearman.idxmin(), 'dataset'],
                               split_half_target=0.9, split_half_met=bool(cov.split_half_spearman.median() >= .9),
                               per_dataset='benchmarks/results/respondents_coverage.csv')
    if 'scaling' in a.parts:
        sc = scaling(a.datasets, a.sizes, a.n_jobs, a.cache)
        sc.round(5).to_csv(ROOT/'benchmarks'/'results'/'respondents_scaling.csv', index=False)
        res['scaling'] = dict(datasets=list(a.datasets), sizes=sorted(a.sizes), table='benchmarks/results/respondents_scaling.csv',
                              split_half_median_by_n=sc.groupby('n_respondents').split_half_spearman.median().round(4).to_dict(),
                              spearman_vs_largest_median_by_n=sc.groupby('n_respondents').spearman_vs_largest.median().round(4).to_dict())
    if 'cost' in a.parts:
        res['cost'] = cost(a.n) | dict(target_ratio=2.0)
        res['cost']['met'] = bool(res['cost']['ratio_cpu'] <= 2.0)
    if 'speed' in a.parts:
        res['speed'] = speed(a.speed_data, a.before_ref, a.repeats)
    res['load_avg_before_after'] = [list(load0), list(os.getloadavg())]
    res['command'] = 'nice -n 10 python benchmarks/timings/bench_respondents.py ' + ' '.join(sys.argv[1:])
    latest = json.loads(path.read_text()) if path.exists() else {}   # another part may have finished meanwhile:
    latest.update({k: v for k, v in res.items() if k not in PARTS or k in a.parts}); res = latest   # keep its results
    write_result(path, res)
    print(json.dumps(res, indent=1))

if __name__ == '__main__':
    main()
