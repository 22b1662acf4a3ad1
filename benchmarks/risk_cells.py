"""The cells below 0.90 − 2 SE in `bench_risk.py`'s runs, looked at fold by fold.

For each cell (data set, subsample size, model, bin) it prints, per fold of the report, the calibration rows of that bin
with their mean nonconformity score 1 − p̂_y, and the same for the held-out rows of the bin, scored by the deployed model
(the first fold's fit). Fold 0's held-out rows were scored by that very model: if the held-out rows are harder than fold 0's
own rows of the bin, the gap is the split's (the draw of the 30 % held out), not a mismatch between calibration and deployment.

    python benchmarks/risk_cells.py        # uses bench_risk's fit cache (benchmarks/.cache_risk) when present
"""
import sys
from pathlib import Path
ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT/'benchmarks')]
import numpy as np, pandas as pd
from bench_risk import _split
from robustdiff.datasets import load_dataset
from robustdiff.risk import fit_risk
from robustdiff.responses import predict_labels_proba, cv_splits

CELLS = (('waveform_21', 800, 'gbm', 4), ('letter', 1500, 'rbf', 1))

def cell(name:str, rows:int, model:str, k:int)->pd.DataFrame:
    ds = load_dataset(f'pmlb:{name}'); tr, Xte, yte = _split(ds, rows)
    rm = fit_risk(tr, models='fabra18', respondents='auto', random_state=0, n_jobs=1,
                  cache_dir=str(ROOT/'benchmarks'/'.cache_risk'/f'{name}_fabra18_auto_{rows}'))
    fold_of = np.empty(tr.n_instances, int)
    for f, (_, _, _, te) in enumerate(cv_splits(tr, 5, 1, 0)): fold_of[te] = f
    cal, cb = 1 - np.asarray(rm.cal_p_true[model]), np.asarray(rm.cal_bins)
    r = rm.predict_risk(Xte); g = r[r.model == model].reset_index(drop=True)
    _, P = predict_labels_proba(rm.models[model], Xte)
    y = yte.to_numpy(); pos = pd.Index(rm.classes[model]).get_indexer(y)
    s, b = 1 - P[np.arange(len(y)), np.maximum(pos, 0)], g.difficulty_bin.to_numpy()
    out = [dict(rows='calibration', fold=f, n=int(((cb == k) & (fold_of == f)).sum()),
                mean_score_bin=cal[(cb == k) & (fold_of == f)].mean(), mean_score_all=cal[fold_of == f].mean()) for f in range(5)]
    out.append(dict(rows='held out', fold=np.nan, n=int((b == k).sum()), mean_score_bin=s[b == k].mean(), mean_score_all=s.mean()))
    return pd.DataFrame(out).assign(dataset=name, max_rows=rows, model=model, bin=k)

if __name__ == '__main__':
    for c in CELLS: print(cell(*c).round(3).to_string(index=False), '\n')
