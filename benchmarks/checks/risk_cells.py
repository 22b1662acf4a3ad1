"""The cells below 0.90 − 2 SE in `bench_risk.py`'s runs, looked at fold by fold.

For each cell (data set, subsample size, model, bin) it prints, per fold of the report, the calibration rows of that bin
with their mean nonconformity score 1 − p̂_y and the share of them at or below the pooled sets' threshold (the bin's
threshold from every out-of-fold row, at the model's δ), and the same for the held-out rows of the bin, scored by the
deployed model (the first fold's fit). Fold 0's rows were scored by that very model, the other folds' by their own fits:

* if the held-out rows are harder than fold 0's own rows of the bin, the gap is the split's (the draw of the 30 % held
  out), not a mismatch between calibration and deployment (waveform_21 at 800 rows);
* if fold 0's own rows already cover less than the other folds' at the pooled threshold, the deployed fit is
  miscalibrated in its own way, and only its own rows can calibrate it (LVQ and JRip at 5 000 rows).

    python benchmarks/checks/risk_cells.py                       # the cells of CELLS; uses bench_risk's fit cache (benchmarks/.cache_risk)
    python benchmarks/checks/risk_cells.py letter:5000:lvq:2     # any cells, dataset:max_rows:model:bin (every row: max_rows 1000000000)
Writes benchmarks/results/risk_cells.csv.
"""
import sys
from pathlib import Path
ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT/'benchmarks'/'studies')]
import numpy as np, pandas as pd
from bench_risk import _split
from robustdiff.datasets import load_dataset
from robustdiff.risk_fit import fit_risk
from robustdiff.responses import predict_labels_proba
from robustdiff._conformal import _thresholds

CELLS = (('waveform_21', 800, 'gbm', 4), ('letter', 1500, 'rbf', 1),
         ('letter', 5000, 'lvq', 2), ('letter', 5000, 'JRip', 4), ('texture', 5000, 'lvq', 4),
         ('nursery', 10**9, 'fda', 2), ('letter', 10**9, 'fda', 2))   # 10**9: every row (bench_risk --max-rows 0)

def cell(name:str, rows:int, model:str, k:int)->pd.DataFrame:
    ds = load_dataset(f'pmlb:{name}'); tr, Xte, yte = _split(ds, rows)
    rm = fit_risk(tr, models='fabra18', respondents='auto', random_state=0, n_jobs=1,
                  cache_dir=str(ROOT/'benchmarks'/'.cache_risk'/f'{name}_fabra18_auto_{rows}'))
    fold_of = rm._oof['fold']
    cal, cb = 1 - np.asarray(rm.cal_p_true[model]), np.asarray(rm.cal_bins)
    t = _thresholds(cal, cb, np.array([k]), rm.alpha, rm.delta, rm.simultaneous)[0]      # the pooled sets' threshold of the bin
    r = rm.predict_risk(Xte, models=model)
    _, P = predict_labels_proba(rm.models[model], Xte)
    y = yte.to_numpy(); pos = pd.Index(rm.classes[model]).get_indexer(y)
    s, b = 1 - P[np.arange(len(y)), np.maximum(pos, 0)], r.difficulty_bin.to_numpy()
    out = [dict(rows='calibration', fold=f, n=int(on.sum()), mean_score_bin=cal[on].mean(), covered_at_pooled=(cal[on] <= t).mean(),
                mean_score_all=cal[fold_of == f].mean()) for f in range(fold_of.max() + 1) for on in [(cb == k) & (fold_of == f)]]
    out.append(dict(rows='held out', fold=np.nan, n=int((b == k).sum()), mean_score_bin=s[b == k].mean(),
                    covered_at_pooled=(s[b == k] <= t).mean(), mean_score_all=s.mean()))
    return pd.DataFrame(out).assign(dataset=name, max_rows=rows, model=model, bin=k, calibration=rm.calibration)

if __name__ == '__main__':
    cells = [(d, int(n), m, int(k)) for d, n, m, k in (a.split(':') for a in sys.argv[1:])] or CELLS
    res = pd.concat([cell(*c) for c in cells], ignore_index=True)
    for _, g in res.groupby(['dataset', 'max_rows', 'model', 'bin'], sort=False): print(g.round(3).to_string(index=False), '\n')
    res.to_csv(ROOT/'benchmarks'/'results'/'risk_cells.csv', index=False)
