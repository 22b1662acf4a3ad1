"""Is a subsample's calibration draw easier than the rest of its data set? (robustdiff.risk, issue 34)

The conformal sets are calibrated on the out-of-fold rows of the fitted subsample (560 of waveform_21's 5 000 rows in
bench_risk.py). For `--seeds` subsample seeds (the same stratified 800-row subsamples as bench_risk.py / risk_subsamples.py)
this measures, for two cheap models (3-NN and logistic regression, scaled features), the 5-fold out-of-fold accuracy on the
subsample's 560 fitting rows minus the accuracy on the rows outside the subsample of the same model fitted on those 560:
how much easier the calibration rows are than new rows, draw by draw. Writes
benchmarks/results/risk_subsample_gap_<dataset>.csv (dataset, model, seed, oof_accuracy, fresh_accuracy, gap).
    nice -n 10 python benchmarks/checks/risk_subsample_gap.py --dataset waveform_21 --seeds 40
"""
from __future__ import annotations
import argparse, sys, warnings
from pathlib import Path
import numpy as np
import pandas as pd
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.neighbors import KNeighborsClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_predict

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT)); sys.path.insert(0, str(ROOT/'benchmarks'/'studies'))
from bench_risk import _split_positions
from robustdiff.datasets import load_dataset

MODELS = {'3-NN': lambda: make_pipeline(StandardScaler(), KNeighborsClassifier(3)),
          'logistic': lambda: make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--dataset', default='waveform_21'); p.add_argument('--seeds', type=int, default=40)
    p.add_argument('--max-rows', type=int, default=800)
    a = p.parse_args(argv)
    warnings.simplefilter('ignore')
    ds = load_dataset(f'pmlb:{a.dataset}')
    X, y = ds.X.to_numpy(float), ds.y.to_numpy()
    rows = []
    for name, mk in MODELS.items():
        for s in range(a.seeds):
            trp, _ = _split_positions(ds, a.max_rows, s)
            rest = np.setdiff1d(np.arange(len(y)), trp)
            oof = cross_val_predict(mk(), X[trp], y[trp], cv=StratifiedKFold(5, shuffle=True, random_state=0))
            fresh = (mk().fit(X[trp], y[trp]).predict(X[rest]) == y[rest]).mean()
            rows.append(dict(dataset=a.dataset, model=name, seed=s, oof_accuracy=(oof == y[trp]).mean(), fresh_accuracy=fresh))
    d = pd.DataFrame(rows).assign(gap=lambda d: d.oof_accuracy - d.fresh_accuracy).round(4)
    d.to_csv(ROOT/'benchmarks'/'results'/f'risk_subsample_gap_{a.dataset}.csv', index=False)
    g = d.groupby('model').gap
    print(pd.DataFrame({'seed 0': d[d.seed == 0].set_index('model').gap, 'mean': g.mean(), 'sd': g.std(),
                        'rank of seed 0 (1 = largest)': d.assign(r=g.rank(ascending=False)).query('seed == 0').set_index('model').r}).round(3))


if __name__ == '__main__':
    main()
