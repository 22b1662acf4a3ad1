"""Benchmark: [FB24] SCCs of one dataset × fabra18 × 5 folds × 6 λ on 2 cores, and where the time goes (issue 4).

    python benchmarks/timings/bench_scc.py [--dataset waveform_40] [--models fabra18] [--n_jobs 2] [--nu 0.2] [--respondents ladder]

Since issue 9 the difficulties come from a respondent population (`--respondents ladder`, the default of
`robustness_by_difficulty`; `--respondents models` = the evaluated models, no extra fits): its stage (CV answers
of the population on the same folds, 1PL fit, split-half reliability) is timed separately. Since issue 16 the
clean and noisy rows are predicted in one stacked call, as `robustdiff.scc._noisy_fold` does.

Runs `noisy_predictions` (one fit per model × fold; clean + fully perturbed prediction), the 1PL IRT fit, the bins
and `scc_curves` (every λ by mixing), timing each stage. Inside each model × fold task it also times the noise
generation and the two predictions, so the share of the run spent outside model fitting can be stated:

- fits ≈ total − (noise + predictions) / n_jobs − (IRT + bins + κ)   [task seconds run n_jobs at a time]
- targets: total ≤ 300 s; noise + κ ≤ 10 % of the total.

Also checks that mixing costs no more than ~a second however many λ there are (λ grid of 51 values).
The machine's load average before/after is recorded (other jobs on a shared machine inflate the wall time).
Results are printed and written to benchmarks/results/scc_<dataset>_<models>.json.
"""
import argparse, json, os, sys, time, warnings
from functools import partial
from pathlib import Path
import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parents[1]/'tools'))
from harness import write_result

def _timed_fold(ctx, nu):
    "The same work as robustdiff.scc._noisy_fold, with timers around its parts."
    from robustdiff.perturb import FB24Noise
    ds, est = ctx.dataset, ctx.estimator
    Xtr, Xte = ds.X.iloc[ctx.train], ds.X.iloc[ctx.test]
    from robustdiff._folds import stack_rows as _stack_rows
    t0 = time.perf_counter()
    priority = ctx.rng(0).random(len(ctx.test))
    Xn = FB24Noise(nu).fit(Xtr).transform(Xte, random_state=ctx.rng(1, 0))
    t_noise = time.perf_counter() - t0
    t0 = time.perf_counter(); pred = np.asarray(est.predict(_stack_rows([Xte, Xn]))); t_pred = time.perf_counter() - t0
    y_pred, y_noisy = pred[:len(Xte)], pred[len(Xte):]
    y_true = ds.y.iloc[ctx.test].to_numpy()
    out = pd.DataFrame({'instance': ctx.test, 'y_true': y_true, 'y_pred': y_pred, 'correct': (y_pred == y_true).astype('int8'),
                        'perturbation': 'FB24Noise', 'level': nu, 'y_noisy': y_noisy, 'priority': priority})
    out['_t_noise'], out['_t_pred'] = 0.0, 0.0
    out.loc[out.index[0], ['_t_noise', '_t_pred']] = [t_noise, t_pred]
    return out

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--dataset', default='pmlb:waveform_40')
    ap.add_argument('--models', default='fabra18')
    ap.add_argument('--n_jobs', type=int, default=2)
    ap.add_argument('--nu', type=float, default=0.2)
    ap.add_argument('--respondents', default='ladder', help="'ladder' (default population) or 'models'")
    a = ap.parse_args()
    from robustdiff.datasets import load_dataset
    from robustdiff.responses import map_folds, response_matrix
    from robustdiff.irt import fit_irt
    from robustdiff.scc import clean_predictions, difficulty_bins, scc_curves, LAMBDAS, noisy_predictions
    ds = load_dataset(a.dataset)
    print(f'{ds!r}\nportfolio {a.models}, 5 folds, λ = {LAMBDAS}, ν = {a.nu}, n_jobs = {a.n_jobs}', flush=True)
    load_before = os.getloadavg()
    t_start = time.perf_counter()
    fn = partial(_timed_fold, nu=a.nu)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        preds = map_folds(fn, ds, a.models, n_splits=5, n_jobs=a.n_jobs, progress=True)
    t_cv = time.perf_counter() - t_start
    noise_task_s, pred_task_s = preds._t_noise.sum(), preds._t_pred.sum()
    preds = preds.drop(columns=['_t_noise', '_t_pred'])
    t0 = time.perf_counter()
    if a.respondents == 'models': U = response_matrix(clean_predictions(preds)); t_pop = 0.0
    else:
        from robustdiff.respondents import respondent_predictions, get_respondents
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            U = response_matrix(respondent_predictions(ds, get_respondents(a.respondents), n_splits=5, n_jobs=a.n_jobs, progress=True))
        t_pop = time.perf_counter() - t0
    t0 = time.perf_counter(); irt = fit_irt(U, model='1PL'); t_irt = time.perf_counter() - t0
    from robustdiff.respondents import split_half_reliability
    t0 = time.perf_counter(); rel = split_half_reliability(U, n_repeats=10); t_rel = time.perf_counter() - t0
    t0 = time.perf_counter(); bins = difficulty_bins(irt.items, n_bins=5); t_bins = time.perf_counter() - t0
    t0 = time.perf_counter(); curves = scc_curves(preds, bins, lambdas=LAMBDAS); t_kappa = time.perf_counter() - t0
    total = time.perf_counter() - t_start
    t0 = time.perf_counter(); scc_curves(preds, bins, lambdas=np.linspace(0, 1, 51)); t_kappa51 = time.perf_counter() - t0
    # the exported pipeline gives the same predictions (same seeds) — the timed copy does the same work
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check_models = dict(list(__import__('robustdiff.portfolio', fromlist=['get_models']).get_models(a.models).items())[:2])
    same = noisy_predictions(ds, check_models, perturbation=a.nu, progress=False).equals(
        preds[preds.model.isin(list(check_models))].reset_index(drop=True).astype({'level': float}))
    fits = total - (noise_task_s + pred_task_s) / a.n_jobs - (t_irt + t_bins + t_kappa + t_pop + t_rel)
    noise_kappa_share = (noise_task_s / a.n_jobs + t_kappa) / total
    res = dict(dataset=ds.name, shape=[ds.n_instances, ds.n_features], models=a.models, n_models=int(preds.model.nunique()),
               n_jobs=a.n_jobs, nu=a.nu, lambdas=list(LAMBDAS), total_s=round(total, 1), cv_fit_predict_noise_s=round(t_cv, 1),
               noise_task_s=round(float(noise_task_s), 2), predict_task_s=round(float(pred_task_s), 1), irt_s=round(t_irt, 2),
               respondents=a.respondents, n_respondents=int(len(U)), respondents_s=round(t_pop, 1),
               split_half_s=round(t_rel, 2), split_half_spearman_median=round(float(rel.spearman.median()), 4),
               bins_s=round(t_bins, 3), kappa_mixing_s=round(t_kappa, 3), kappa_mixing_51_lambdas_s=round(t_kappa51, 3),
               fits_s_estimate=round(fits, 1), share_outside_fits=round(1 - fits / total, 4),
               share_noise_plus_kappa=round(noise_kappa_share, 4), matches_noisy_predictions=bool(same),
               load_avg_1_5_15_before=[round(x, 2) for x in load_before], load_avg_1_5_15_after=[round(x, 2) for x in os.getloadavg()],
               target_total_le_300s=bool(total <= 300), target_noise_kappa_le_10pct=bool(noise_kappa_share <= .10))
    for k, v in res.items(): print(f'{k:>28}: {v}')
    out = ROOT/'benchmarks'/'results'; out.mkdir(parents=True, exist_ok=True)
    write_result(out/f'scc_{ds.name}_{a.models}.json', res, indent=2)
    if not same: raise SystemExit('the timed run differs from robustdiff.scc.noisy_predictions')

if __name__ == '__main__':
    main()
