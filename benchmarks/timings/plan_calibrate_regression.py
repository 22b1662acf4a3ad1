"""The planner's cost prior for regressors (issue 48): what one fit, its refit on noisy targets and its predictions cost,
per regressor, as the rows grow — the regression counterpart of plan_calibrate.py.

    nice -n 10 python benchmarks/timings/plan_calibrate_regression.py [--sizes 1000 4000] [--predict-rows 1000]

Every model of the `regressors` portfolio, on Ecdat Computers as bundled (`reg:computers`, 6 259 rows, 9 columns, 3 of
them nominal: 12 after one-hot encoding), in this process with one BLAS/OpenMP thread (CPU time by
`time.process_time`): the fit on n training rows (n in `--sizes`, a seeded sample), through the package's pipeline; the
refit on the same rows with 10 % of the targets replaced by another row's (`ela.target_noise`, the ELA refit of the one
pass); `predict_values` on `--predict-rows` held-out rows. From two sizes: the exponent of each cost in the rows and its
value at 40 000 training rows (the prior's unit), printed beside the prior in `robustdiff.costs._COST_PRIOR`.
Writes benchmarks/results/plan_calibrate_regression.json.
"""
import argparse, json, math, os, sys, time, warnings
from pathlib import Path
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT/'benchmarks'/'tools'))
sys.path.insert(0, str(ROOT/'benchmarks'/'timings'))
from harness import write_result
from plan_calibrate import _growth, time_model

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--sizes', type=int, nargs=2, default=[1000, 4000])
    ap.add_argument('--predict-rows', type=int, default=1000)
    ap.add_argument('--portfolio', default='regressors')
    ap.add_argument('--out', default=str(ROOT/'benchmarks'/'results'/'plan_calibrate_regression.json'))
    a = ap.parse_args()
    from robustdiff.datasets import load_dataset
    from robustdiff.portfolio import get_models
    from robustdiff.costs import _cost_classes, _COST_PRIOR, _PREDICT_PRIOR, _PREDICT_OTHER
    ds = load_dataset('reg:computers')
    rng = np.random.default_rng(0)
    perm = rng.permutation(ds.n_instances)
    test, rest = perm[:a.predict_rows], perm[a.predict_rows:]
    trains = {n: np.sort(rest[:n]) for n in a.sizes}
    load0, models = os.getloadavg(), {}
    for name, est in get_models(a.portfolio, random_state=0, task='regression').items():
        cls = _cost_classes(est)[0]
        m = models[name] = dict(model=name, cls=cls, sizes={})
        for n in a.sizes:
            m['sizes'][n] = time_model(est, ds, trains[n], test)
            print(name, cls, n, m['sizes'][n], flush=True)
        n0, n1 = a.sizes
        s0, s1 = m['sizes'][n0], m['sizes'][n1]
        m['fit_exponent'], m['fit_40k'] = _growth(s0['fit'], s1['fit'], n0, n1, hi=3.0)
        m['refit_over_fit'] = round(s1['refit'] / max(s1['fit'], 1e-4), 3)
        pe, p40 = _growth(s0['predict'], s1['predict'], n0, n1, lo=0.0, hi=1.5)
        m['predict_exponent'], m['predict_1000_rows_40k'] = pe, round(p40 * 1000 / a.predict_rows, 5)
        m['prior_40k'] = _COST_PRIOR.get(cls)
        m['predict_prior'] = _PREDICT_PRIOR.get(cls, _PREDICT_OTHER)
    res = dict(command='nice -n 10 python benchmarks/timings/plan_calibrate_regression.py ' + ' '.join(sys.argv[1:]),
               date=time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()), table='reg:computers (6 259 rows, 12 columns one-hot)',
               sizes=a.sizes, predict_rows=a.predict_rows, models=models, load_avg_before_after=[list(load0), list(os.getloadavg())])
    write_result(a.out, res)
    for k, m in models.items():
        print(f"{k:12s} {m['cls']:30s} fit40k {m['fit_40k']:10.3f} e {m['fit_exponent']:.2f} prior {m['prior_40k']}  "
              f"refit× {m['refit_over_fit']:.2f}  pred/1000@40k {m['predict_1000_rows_40k']:.4f} e {m['predict_exponent']:.2f} prior {m['predict_prior']}")

if __name__ == '__main__':
    main()
