"""The NannyML side of `risk_vs_anchors.py`: run in the anchors venv (NannyML is never a dependency of robustdiff).

    /work/anchors-venv/bin/python benchmarks/checks/risk_anchors_cbpe.py data OUT_DIR     # NannyML's bundled tables → parquet
    /work/anchors-venv/bin/python benchmarks/checks/risk_anchors_cbpe.py cbpe IN.npz OUT.json [IN2.npz OUT2.json ...]  # CBPE on given probabilities

`cbpe` reads the reference rows' probabilities (`ref_P`, columns in `classes` order), predictions and labels, and the
batches' probabilities and predictions concatenated in batch order (`ana_P`, `ana_pred`, all batches of `size` rows),
fits CBPE (its default isotonic calibration) on the reference rows and writes, per batch, the estimated accuracy, its
confidence band and its alert.
"""
import json, sys
from pathlib import Path
import numpy as np
import pandas as pd


def data(out:Path):
    import nannyml as nml
    out.mkdir(parents=True, exist_ok=True)
    ref, ana, tgt = nml.load_synthetic_car_loan_dataset()
    ana = ana.merge(tgt, on='id') if 'id' in tgt.columns else pd.concat([ana, tgt], axis=1)
    ref.to_parquet(out/'car_loan_reference.parquet'); ana.to_parquet(out/'car_loan_analysis.parquet')
    have = ['car_loan']
    for fn in ('load_us_census_ma_employment_data',):
        if hasattr(nml, fn):
            try:
                r, a, t = getattr(nml, fn)()
                a = a.merge(t, on='id') if 'id' in t.columns and 'id' in a.columns else pd.concat([a, t], axis=1)
                r.to_parquet(out/'census_reference.parquet'); a.to_parquet(out/'census_analysis.parquet'); have.append('census')
            except Exception as e: print(f"{fn}: {type(e).__name__}: {e}", file=sys.stderr)
    print(json.dumps(dict(tables=have, nannyml=nml.__version__)))


def cbpe(inp:Path, out:Path):
    import nannyml as nml
    d = np.load(inp, allow_pickle=True)
    classes = [str(c) for c in d['classes']]
    size = int(d['size'])
    def frame(P, pred, y=None):
        f = pd.DataFrame({f'p_{i}': P[:, i] for i in range(len(classes))})
        f['y_pred'] = [str(v) for v in pred]
        if y is not None: f['y_true'] = [str(v) for v in y]
        return f
    ref, ana = frame(d['ref_P'], d['ref_pred'], d['ref_y']), frame(d['ana_P'], d['ana_pred'])
    binary = len(classes) == 2
    if binary:
        ref['y_true'] = (ref.y_true == classes[1]).astype(int); ref['y_pred'] = (ref.y_pred == classes[1]).astype(int)
        ana['y_pred'] = (ana.y_pred == classes[1]).astype(int)
        proba, kind = 'p_1', 'classification_binary'
    else:
        proba, kind = {c: f'p_{i}' for i, c in enumerate(classes)}, 'classification_multiclass'
    est = nml.CBPE(y_pred_proba=proba, y_pred='y_pred', y_true='y_true', metrics=['accuracy'], chunk_size=size, problem_type=kind)
    est.fit(ref)
    res = est.estimate(ana).filter(period='analysis').to_df()
    acc = res['accuracy']
    rows = [dict(estimated=float(r['value']), lo=float(r['lower_confidence_boundary']), hi=float(r['upper_confidence_boundary']),
                 alert=bool(r['alert'])) for _, r in acc.iterrows()]
    n_batches = len(d['ana_pred']) // size
    out.write_text(json.dumps(dict(batches=rows[:n_batches], nannyml=nml.__version__)))


if __name__ == '__main__':
    if sys.argv[1] == 'data': data(Path(sys.argv[2]))
    else:                 # several inputs in one process: NannyML's import costs more than its estimates
        for i in range(2, len(sys.argv), 2): cbpe(Path(sys.argv[i]), Path(sys.argv[i + 1]))
