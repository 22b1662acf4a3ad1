"""Are calibration rows and new rows exchangeable inside a predicted-difficulty bin? (robustdiff.risk, issue 34)

Repeats, over `--seeds` random 70/30 splits of one PMLB set (quick models, a 40-respondent ladder: cheap), two designs:
  * `report`: the risk model as shipped — the report runs on all training rows, and those same rows calibrate the
    Mondrian sets (out-of-fold scores, out-of-fold b̂);
  * `holdout`: a leak-free split conformal reference — the report runs on 70 % of the training rows only (A); the other
    30 % (C) were never seen by a respondent, the IRT fit, the difficulty estimator or a model, and calibrate the sets
    with the deployed model and estimator, exactly as the held-out test rows are scored.
Per seed, model and bin: test coverage at α = 0.1, test rows per bin, accuracy. Writes
benchmarks/results/risk_exchangeability_<set>.csv and prints the means over seeds.
    nice -n 10 python benchmarks/checks/risk_exchangeability.py --dataset vowel --seeds 10
"""
from __future__ import annotations
import argparse, sys, warnings
from pathlib import Path
import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT)); sys.path.insert(0, str(ROOT/'benchmarks'/'studies'))
from bench_risk import _split, _respondents
from robustdiff.datasets import load_dataset
from robustdiff._risk_core import _bin_of
from robustdiff.risk_fit import fit_risk
from robustdiff.conformal import conformal_sets
from robustdiff.responses import predict_labels_proba


def _coverage(rm, m, P_cal, y_cal, bins_cal, P, y, bins, alpha):
    cls = pd.Index(rm.classes[m])
    p_true = P_cal[np.arange(len(y_cal)), cls.get_indexer(y_cal)]
    return conformal_sets(P, p_true, bins_cal, bins, alpha=alpha)[np.arange(len(y)), cls.get_indexer(y)]


def one_seed(ds, s, alpha):
    tr, Xte, yte = _split(ds, 4000, seed=s)
    y, rows = yte.to_numpy(), []
    for design in ('report', 'holdout'):
        if design == 'report': fit_on, Xc, yc = tr, None, None
        else:
            ia, ic = train_test_split(np.arange(tr.n_instances), test_size=0.3, stratify=tr.y, random_state=s)
            fit_on, ic = tr.subset(np.sort(ia)), np.sort(ic)
            Xc, yc = tr.X.iloc[ic].reset_index(drop=True), tr.y.to_numpy()[ic]
        rm = fit_risk(fit_on, models='quick', respondents=_respondents('ladder40'), random_state=s, n_jobs=1)
        Xm, Xf, _ = rm._intake(Xte)
        bt = _bin_of(rm.estimator.predict(Xf), rm.edges)
        if Xc is not None:
            Xcm, Xcf, _ = rm._intake(Xc)
            bc = _bin_of(rm.estimator.predict(Xcf), rm.edges)
        for m in rm.models:
            lab, P = predict_labels_proba(rm.models[m], Xm)
            if Xc is None:
                cls = pd.Index(rm.classes[m])
                inn = conformal_sets(P, rm.cal_p_true[m], rm.cal_bins, bt, alpha=alpha)[np.arange(len(y)), cls.get_indexer(y)]
                ncal = np.bincount(rm.cal_bins, minlength=rm.n_bins)
            else:
                inn = _coverage(rm, m, predict_labels_proba(rm.models[m], Xcm)[1], yc, bc, P, y, bt, alpha)
                ncal = np.bincount(bc, minlength=rm.n_bins)
            for k in range(rm.n_bins):
                on = bt == k
                rows.append(dict(seed=s, design=design, model=m, bin=k, n=int(on.sum()), n_cal=int(ncal[k]),
                                 coverage=float(inn[on].mean()) if on.any() else np.nan,
                                 accuracy=float((np.asarray(lab)[on] == y[on]).mean()) if on.any() else np.nan))
    return rows


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--dataset', default='vowel'); p.add_argument('--seeds', type=int, default=10)
    p.add_argument('--alpha', type=float, default=0.1)
    a = p.parse_args(argv)
    warnings.simplefilter('ignore')
    ds = load_dataset(f'pmlb:{a.dataset}')
    rows, out = [], ROOT/'benchmarks'/'results'/f'risk_exchangeability_{a.dataset}.csv'
    for s in range(a.seeds):
        rows += one_seed(ds, s, a.alpha)
        pd.DataFrame(rows).to_csv(out, index=False)
        print(f"seed {s} done", flush=True)
    d = pd.DataFrame(rows)
    print(d.groupby(['design', 'model', 'bin'])[['n', 'n_cal', 'coverage', 'accuracy']].mean().round(3).unstack('design').to_string())


if __name__ == '__main__':
    main()
