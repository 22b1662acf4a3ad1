"""Calibrate the planner's cost prior (issue 36, item 4): what one report task costs, per model, as the rows grow.

    nice -n 10 python benchmarks/timings/plan_calibrate.py                        # fabra18 + quick, 2 000 and 8 000 rows
    nice -n 10 python benchmarks/timings/plan_calibrate.py --sizes 2000 8000 --portfolios quick --hardness-sizes 5000 10000

For every model of the portfolios, on the diamonds-like table (`diamonds_like.py`: 5 classes, 3 nominal columns, 21
columns after one-hot encoding), in this process with one BLAS/OpenMP thread (`n_jobs=1`, CPU time by
`time.process_time`):
- the fit on a class-stratified sample of n training rows (n in `--sizes`), through the package's pipeline;
- the refit on the same rows with 10 % of the labels flipped (the ELA refit of the one pass: rule learners grow more
  rules on noisy labels, so it is not the clean fit's cost);
- `predict_labels_proba` on `--predict-rows` held-out rows (the one pass predicts 18 blocks of test rows: the clean
  rows, 5 × 1 feature-noise copies and 4 × 3 PiML copies).
From two sizes: the exponent of each cost in the rows and its value at 40 000 training rows (the prior's unit), printed
beside the prior in `robustdiff.responses` and the earlier measurements in `benchmarks/results/` (`fabra18_fit40k.json`,
`part_rows.json`, the per-model fits of `floor_waveform_40.json` at 4 000 rows of waveform_40). The
hardness measures (`robustdiff.hardness.hardness_measures`) are timed at `--hardness-sizes` rows of the same table
and extrapolated to 50 000 rows, and every model's task of the report's one pass (fit, 18 blocks of predictions, the
noisy-label refit) on fold 0 of the whole table (43 152 training rows) is timed for the `--one-pass` portfolios
(`tests/test_costs_calibration.py` checks the prior against these). Writes benchmarks/results/plan_calibrate.json.
"""
import argparse, json, math, os, sys, time, warnings
from pathlib import Path
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT/'benchmarks'/'tools'))
from harness import write_result
RESULTS = ROOT/'benchmarks'/'results'

def _table():
    from diamonds_like import diamonds_like
    from robustdiff.data import from_frame
    return from_frame(diamonds_like(), 'cut', name='diamonds_like')

def _sample(y, n, rng):
    "Class-stratified positions: n of the rows of y."
    from sklearn.model_selection import train_test_split
    keep, _ = train_test_split(np.arange(len(y)), train_size=int(n), stratify=y, random_state=int(rng.integers(1 << 30)))
    return np.sort(keep)

def time_model(est, ds, train, test, noise:float=0.1, seed:int=0)->dict:
    "CPU seconds of the fit, the noisy-label (a regressor: noisy-target) refit and the predictions of one model (one thread)."
    from robustdiff.portfolio import model_pipeline
    from robustdiff.responses import predict_labels_proba, predict_values
    from robustdiff._folds import one_thread as _one_thread
    from robustdiff.ela import class_noise, target_noise
    predict, corrupt = (predict_values, target_noise) if ds.regression else (predict_labels_proba, class_noise)
    X, y = ds.X.iloc[train], ds.y.iloc[train].to_numpy()
    Xte = ds.X.iloc[test]
    out = {}
    with _one_thread(), warnings.catch_warnings():
        warnings.simplefilter('ignore')
        c0 = time.process_time(); pipe = model_pipeline(est, ds).fit(X, y); out['fit'] = time.process_time() - c0
        c0 = time.process_time(); predict(pipe, Xte); out['predict'] = time.process_time() - c0
        y_noisy = corrupt(y, noise, random_state=np.random.default_rng(seed))
        c0 = time.process_time(); model_pipeline(est, ds).fit(X, y_noisy); out['refit'] = time.process_time() - c0
    return {k: round(v, 4) for k, v in out.items()}

def _growth(t_small, t_big, n_small, n_big, lo=0.5, hi=2.5)->tuple:
    "(exponent in the rows, value at 40 000 rows) from two timings; the exponent clipped to [lo, hi]."
    e = math.log(max(t_big, 1e-4) / max(t_small, 1e-4)) / math.log(n_big / n_small)
    e = min(hi, max(lo, e))
    return round(e, 3), round(t_big * (40000 / n_big) ** e, 4)

def hardness(ds, sizes)->dict:
    "CPU seconds of the hardness measures on n rows of the table, and the n² extrapolation to 50 000 rows."
    from robustdiff.hardness import hardness_measures
    rng, rows = np.random.default_rng(1), {}
    with warnings.catch_warnings():                  # a first small run: imports and compiled kernels, not timed
        warnings.simplefilter('ignore')
        hardness_measures(ds.subset(_sample(ds.y.to_numpy(), 500, rng)).imputed(), n_jobs=1)
    for n in sizes:
        sub = ds.subset(_sample(ds.y.to_numpy(), n, rng)).imputed()
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            c0 = time.process_time(); hardness_measures(sub, n_jobs=1); rows[n] = round(time.process_time() - c0, 2)
        print('hardness', n, rows[n], flush=True)
    n_big = max(sizes)
    e = math.log(rows[n_big] / rows[min(sizes)]) / math.log(n_big / min(sizes)) if len(sizes) > 1 else 2.0
    return dict(cpu_s=rows, exponent=round(e, 3), cpu_s_50k_n2=round(rows[n_big] * (50000 / n_big) ** 2, 1),
                cpu_s_50k_own_exponent=round(rows[n_big] * (50000 / n_big) ** e, 1))

def one_pass_fold0(ds, portfolio:str, skip=())->dict:
    "CPU seconds of each model's task of the report's one pass (`robustdiff._run._one_pass_fold`, a default report's\n    arguments) on fold 0 of `ds`, one thread, in this process; the models in `skip` are left out."
    import inspect
    from robustdiff.report import build_report
    from robustdiff._run import _Ctx
    from robustdiff.responses import _plan_folds, _run_batch
    from robustdiff._folds import one_thread as _one_thread
    d = {k: v.default for k, v in inspect.signature(build_report).parameters.items()}
    cfg = dict(nu=d['nu'], class_noise=d['class_noise'], perturb_size=d['perturb_size'], perturb_repeats=d['perturb_repeats'],
               noise_draws=d['noise_draws'])
    fn, key = _Ctx(ds, cfg, {}, names=('accuracy', 'scc', 'ela', 'perturbation', 'difficulty', 'hardness', 'verdict', 'risk')).pass_task()
    plan = _plan_folds(fn, ds, portfolio, d['n_splits'], 1, 0, None, key)
    out = {}
    for k, spec in enumerate(plan.specs):
        if spec[3] != 0 or spec[0] in skip: continue
        with _one_thread(), warnings.catch_warnings():
            warnings.simplefilter('ignore')
            c0 = time.process_time(); _run_batch(0, fn, ds, plan.entropy, [(k,) + tuple(spec)]); out[spec[0]] = round(time.process_time() - c0, 2)
        print('one pass', portfolio, spec[0], out[spec[0]], flush=True)
    return dict(cpu_s=out, train_rows=len(plan.specs[0][4]), test_rows=len(plan.specs[0][5]), skipped=list(skip))

def earlier()->dict:
    "What the earlier result files say about the same costs."
    out = {}
    f = RESULTS/'fabra18_fit40k.json'
    if f.exists(): out['fabra18_fit40k_cpu_s'] = {r['label']: r['cpu_s_40000'] for r in json.loads(f.read_text())['summary']}
    f = RESULTS/'part_rows.json'
    if f.exists(): out['part_rows'] = {r['train_rows']: r['cpu_s'] for r in json.loads(f.read_text())['fits']}
    f = RESULTS/'floor_waveform_40.json'
    if f.exists():
        d = json.loads(f.read_text())
        out['waveform_40_per_fold'] = {m: {k: round(v[k] / 5, 3) for k in ('fit', 'predict', 'refit')} for m, v in d['models'].items()}
    for name in ('hardness_50k.json', 'hardness_50k_quiet.json'):
        f = RESULTS/name
        if f.exists(): out[name] = json.loads(f.read_text())['targets'][0]['cpu_seconds']
    for name in ('report_diamonds_fabra18.json', 'report_diamonds_quick.json'):
        f = RESULTS/name
        if f.exists(): out[name] = {k: json.loads(f.read_text()).get(k) for k in ('cpu_s', 'wall_s', 'command')}
    return out

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--portfolios', nargs='*', default=['fabra18', 'quick'])
    ap.add_argument('--sizes', type=int, nargs=2, default=[2000, 8000])
    ap.add_argument('--predict-rows', type=int, default=2000)
    ap.add_argument('--hardness-sizes', type=int, nargs='*', default=[10000, 20000])
    ap.add_argument('--one-pass', nargs='*', default=['quick'], help="portfolios whose one-pass tasks on fold 0 are timed")
    ap.add_argument('--one-pass-skip', nargs='*', default=[], help='models left out of --one-pass (e.g. PART: minutes a task)')
    ap.add_argument('--out', default=str(RESULTS/'plan_calibrate.json'))
    a = ap.parse_args()
    from robustdiff.portfolio import get_models
    from robustdiff.costs import _cost_classes, _COST_PRIOR
    ds = _table()
    rng = np.random.default_rng(0)
    y = ds.y.to_numpy()
    test = _sample(y, a.predict_rows, rng)
    rest = np.setdiff1d(np.arange(len(y)), test)
    trains = {n: rest[_sample(y[rest], n, rng)] for n in a.sizes}
    load0, models = os.getloadavg(), {}
    for p in a.portfolios:
        for name, est in get_models(p, random_state=0).items():
            cls = _cost_classes(est)[0]
            key = f'{p}:{name}'
            models[key] = dict(portfolio=p, model=name, cls=cls, sizes={})
            for n in a.sizes:
                models[key]['sizes'][n] = time_model(est, ds, trains[n], test)
                print(key, cls, n, models[key]['sizes'][n], flush=True)
    if not a.portfolios and Path(a.out).exists():     # no models to fit: keep those measured before (and the parts not rerun)
        old = json.loads(Path(a.out).read_text())
        models, a.sizes = old['models'], old['sizes']
        for m in models.values(): m['sizes'] = {int(k): v for k, v in m['sizes'].items()}
    n0, n1 = a.sizes
    for m in models.values():
        s0, s1 = m['sizes'][n0], m['sizes'][n1]
        m['fit_exponent'], m['fit_40k'] = _growth(s0['fit'], s1['fit'], n0, n1)
        m['refit_over_fit'] = round(s1['refit'] / max(s1['fit'], 1e-4), 3)
        pe, p40 = _growth(s0['predict'], s1['predict'], n0, n1, lo=0.0, hi=1.5)
        m['predict_exponent'], m['predict_1000_rows_40k'] = pe, round(p40 * 1000 / a.predict_rows, 5)
        m['prior_40k'] = _COST_PRIOR.get(m['cls'])
    command = 'nice -n 10 python benchmarks/timings/plan_calibrate.py ' + ' '.join(sys.argv[1:])
    kept = not a.portfolios and 'old' in dir()       # parts of earlier runs are kept: every run that wrote this file is listed
    res = dict(command=command, models_command=old.get('models_command', old['command']) if kept else command,
               runs=(old.get('runs', [old['command']]) if kept else []) + [command],
               date=time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()), table='diamonds_like (53 940 rows, 5 classes)',
               sizes=a.sizes, predict_rows=a.predict_rows, models=models,
               hardness=hardness(ds, a.hardness_sizes) if a.hardness_sizes else (old.get('hardness') if 'old' in dir() else None),
               one_pass_fold0=(old.get('one_pass_fold0', {}) if 'old' in dir() else {}) | {p: one_pass_fold0(ds, p, a.one_pass_skip) for p in a.one_pass},
               earlier=earlier(), load_avg_before_after=[list(load0), list(os.getloadavg())])
    write_result(a.out, res)
    for k, m in models.items():
        print(f"{k:24s} {m['cls']:28s} fit40k {m['fit_40k']:9.3f} e {m['fit_exponent']:.2f}  refit× {m['refit_over_fit']:.2f}  "
              f"pred/1000@40k {m['predict_1000_rows_40k']:.4f} e {m['predict_exponent']:.2f}  prior {m['prior_40k']}")
    print(json.dumps(res['hardness']))

if __name__ == '__main__':
    main()
