"""Coverage of a production model's sets, per class and per difficulty bin, on rows nobody calibrated on (issue 46 acceptance).

For each table: stratified split (seed 0) into training 50 %, calibration 25 % and held-out 25 % rows (larger tables first
subsampled to --max-rows). `fit_risk` on the training rows with one user Pipeline (the report's difficulty estimator and
bins; one model → the small respondent population), then the production model — the same Pipeline fitted on ALL training
rows, as a user deploys it — calibrated with `RiskModel.calibrate(prod, X_cal, y_cal)` (split conformal) and scored on the
held-out rows with the defaults (α = 0.1, δ = 0.1 for all cells at once, classwise='auto'). Per class and per bin:
held-out rows, coverage, SE = sqrt(c(1 − c)/n) and whether coverage ≥ 0.90 − 2 SE; the mean set size.
Results: benchmarks/results/risk_deployed.json.
    nice -n 10 python benchmarks/checks/risk_deployed.py --datasets waveform_21 satimage --ext /work/ext/credit_data.csv /work/ext/mlc_churn.csv
"""
from __future__ import annotations
import argparse, json, platform, subprocess, sys, time, os
from pathlib import Path
import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.model_selection import train_test_split

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from robustdiff.data import from_frame
from robustdiff.datasets import load_dataset
from robustdiff.risk_fit import fit_risk

OUT = ROOT/'benchmarks'/'results'/'risk_deployed.json'


def user_pipeline():
    "A user's own Pipeline: impute + one-hot for text columns, impute + scale numbers, gradient boosting."
    from sklearn.compose import make_column_transformer, make_column_selector
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler
    from sklearn.impute import SimpleImputer
    from sklearn.ensemble import HistGradientBoostingClassifier
    return make_pipeline(
        make_column_transformer(
            (make_pipeline(SimpleImputer(strategy='most_frequent'), OneHotEncoder(handle_unknown='ignore', sparse_output=False)),
             make_column_selector(dtype_exclude='number')),
            (make_pipeline(SimpleImputer(), StandardScaler()), make_column_selector(dtype_include='number'))),
        HistGradientBoostingClassifier(max_iter=100, random_state=0))


def table(name:str)->tuple:
    "(name, X, y) of a PMLB set in data/ or an external CSV whose label column is `y`."
    if name.endswith('.csv'):
        df = pd.read_csv(name)
        return Path(name).stem, df.drop(columns='y'), df.y.astype(str)
    ds = load_dataset(f'pmlb:{name}')
    return name, ds.X.reset_index(drop=True), ds.y.reset_index(drop=True)


def run(name, X, y, max_rows:int)->dict:
    if len(X) > max_rows:
        keep, _ = train_test_split(np.arange(len(X)), train_size=max_rows, stratify=y, random_state=0)
        X, y = X.iloc[np.sort(keep)].reset_index(drop=True), y.iloc[np.sort(keep)].reset_index(drop=True)
    idx = np.arange(len(X))
    tr, rest = train_test_split(idx, train_size=0.5, stratify=y, random_state=0)
    cal, te = train_test_split(rest, train_size=0.5, stratify=y.iloc[rest], random_state=0)
    train = X.iloc[tr].assign(**{'__y': y.iloc[tr].to_numpy()})
    t0 = time.perf_counter()
    rm = fit_risk(from_frame(train, '__y', name=name), models={'mine': user_pipeline()}, n_jobs=2)
    t_fit = time.perf_counter() - t0
    prod = clone(user_pipeline()).fit(X.iloc[tr], y.iloc[tr])             # the production model: every training row
    dep = rm.calibrate(prod, X.iloc[cal], y.iloc[cal].to_numpy(), name='prod')
    r = dep.predict_risk(X.iloc[te], models='prod')
    truth = y.iloc[te].to_numpy()
    hit = np.array([t in s for t, s in zip(truth, r.prediction_set)])
    def cells(by):
        out = []
        for k, g in pd.Series(hit).groupby(by):
            c, n = float(g.mean()), len(g)
            se = float(np.sqrt(max(c * (1 - c), 1e-12) / n))
            out.append(dict(group=str(k), n=n, coverage=round(c, 4), se=round(se, 4), ok=bool(c >= 0.9 - 2 * se)))
        return out
    cov = dep.class_coverage('prod') if hasattr(dep, 'class_coverage') else None
    return dict(dataset=name, rows=len(X), train=len(tr), calibration=len(cal), held_out=len(te),
                classes=int(y.nunique()), minority_share=round(float(y.value_counts(normalize=True).min()), 4),
                fit_risk_seconds=round(t_fit, 1), coverage=round(float(hit.mean()), 4), mean_set_size=round(float(r.set_size.mean()), 3),
                by_class=cells(truth), by_bin=cells(r.difficulty_bin.to_numpy()),
                classwise=str(cov.attrs.get('classwise')) if cov is not None and hasattr(cov, 'attrs') else None,
                notes=[n for n in dep.notes if n.startswith("Model 'prod'")])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--datasets', nargs='*', default=['waveform_21', 'satimage'])
    ap.add_argument('--ext', nargs='*', default=[], help='external CSVs with a label column y (not in the repository)')
    ap.add_argument('--max-rows', type=int, default=6000)
    a = ap.parse_args()
    res = dict(command='python benchmarks/checks/risk_deployed.py ' + ' '.join(sys.argv[1:]),
               commit=subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True, cwd=ROOT).stdout.strip(),
               cpu=next((l.split(':', 1)[1].strip() for l in open('/proc/cpuinfo') if l.startswith('model name')), platform.processor()),
               load=os.getloadavg(), runs=[])
    for n in list(a.datasets) + list(a.ext):
        res['runs'].append(run(*table(n), a.max_rows))
        r = res['runs'][-1]
        print(f"{r['dataset']}: coverage {r['coverage']}, set size {r['mean_set_size']}, worst class "
              f"{min(c['coverage'] for c in r['by_class'])}, worst bin {min(c['coverage'] for c in r['by_bin'])}, "
              f"all ≥ 0.90 − 2 SE: {all(c['ok'] for c in r['by_class'] + r['by_bin'])}", flush=True)
        OUT.write_text(json.dumps(res, indent=1) + '\n')


if __name__ == '__main__': main()
