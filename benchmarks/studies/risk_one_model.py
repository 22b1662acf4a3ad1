"""What one user model costs in `fit_risk`, and how small a respondent population keeps the difficulty reliable (issue 46 item 5).

For each data set: 30 % held out (stratified, seed 0; larger sets first subsampled to --max-rows rows), one user model
(`needs_prep(HistGradientBoostingClassifier)`) and `fit_risk(..., models={'mine': model}, respondents=R)` on the other
70 % for the respondent populations R in --populations ('auto' is the report's choice for one model: the ladder's first
120 or 60 respondents; 'ladderN' the ladder's first N). Measured per (set, population):
  * wall time of `fit_risk` (n_jobs 1);
  * the difficulty estimator's cross-validated NRMSE and Spearman ρ against its own population's IRT difficulty;
  * Spearman ρ of the held-out rows' predicted difficulty b̂ against b̂ of the reference population (the first one listed);
  * coverage of the default sets (α = 0.1, δ = 0.1 for all bins) per predicted-difficulty bin on the held-out rows, the
    worst bin and its 0.90 − 2 SE floor; the AUROC of `risk` for "the prediction is wrong".
Beside it, the anchor's cost on the same rows (one thread, as robustdiff runs each fit): the model's fit + a 5-fold cross_val_predict (what a CBPE-like
calibration needs) + crepes (kNN `DifficultyEstimator` + Mondrian `ConformalClassifier` on a 25 % calibration split).
Results: benchmarks/results/risk_one_model.json (rewritten after every run, so a partial run keeps what it measured).
    nice -n 10 python benchmarks/studies/risk_one_model.py --datasets vowel yeast page_blocks credit --ext /work/ext/credit_data.csv
"""
from __future__ import annotations
import argparse, json, sys, time
from pathlib import Path
import numpy as np
import pandas as pd
from scipy.stats import spearmanr
from sklearn.model_selection import train_test_split

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from robustdiff.datasets import load_dataset
from robustdiff._risk_core import _auroc
from robustdiff.risk_fit import fit_risk
from robustdiff.respondents import get_respondents
from robustdiff.portfolio import needs_prep, make_pipeline

OUT = ROOT/'benchmarks'/'results'/'risk_one_model.json'


def user_model():
    from sklearn.ensemble import HistGradientBoostingClassifier
    return needs_prep(HistGradientBoostingClassifier(max_iter=100, random_state=0))


def dataset(name:str, ext:str|None):
    if name == 'credit':
        from robustdiff.tables import from_file
        head = pd.read_csv(ext, nrows=1).columns
        return from_file(ext, target='Status' if 'Status' in head else 'y', name='credit')
    return load_dataset(f'pmlb:{name}')


def split(ds, max_rows:int, seed:int=0):
    idx = np.arange(ds.n_instances)
    if ds.n_instances > max_rows:
        idx, _ = train_test_split(idx, train_size=max_rows, stratify=ds.y, random_state=seed)
    tr, te = train_test_split(np.sort(idx), test_size=0.3, stratify=ds.y.to_numpy()[np.sort(idx)], random_state=seed)
    return np.sort(tr), np.sort(te)


def population(spec:str):
    return spec if spec == 'auto' else get_respondents('ladder', n=int(spec[6:]), random_state=0)


def anchor_cost(ds, tr)->dict:
    "Seconds for the model's fit, a 5-fold cross_val_predict and crepes' Mondrian sets over its kNN DifficultyEstimator (one thread, as robustdiff's fits)."
    from threadpoolctl import threadpool_limits
    with threadpool_limits(1): return _anchor_cost(ds, tr)


def _anchor_cost(ds, tr)->dict:
    from sklearn.model_selection import cross_val_predict, StratifiedKFold
    from crepes import ConformalClassifier
    from crepes.extras import DifficultyEstimator, binning
    sub = ds.subset(tr)
    X, y = sub.X, sub.y.to_numpy()
    t0 = time.perf_counter()
    m = make_pipeline(user_model(), sub).fit(X, y)
    t_fit = time.perf_counter() - t0
    t0 = time.perf_counter()
    cross_val_predict(make_pipeline(user_model(), sub), X, y, cv=StratifiedKFold(5, shuffle=True, random_state=0), method='predict_proba')
    t_cv = time.perf_counter() - t0
    t0 = time.perf_counter()
    a, b = train_test_split(np.arange(len(y)), test_size=0.25, stratify=y, random_state=0)
    prep = make_pipeline(user_model(), sub)[:-1].fit(X.iloc[a], y[a])
    Za, Zb = np.asarray(prep.transform(X.iloc[a]), float), np.asarray(prep.transform(X.iloc[b]), float)
    mm = make_pipeline(user_model(), sub).fit(X.iloc[a], y[a])
    de = DifficultyEstimator().fit(Za, k=25, scaler=True)          # distances to the k nearest rows (labels may be text)
    sig = de.apply(Zb)
    bins, edges = binning(sig, bins=5)
    P = mm.predict_proba(X.iloc[b])
    cls = list(mm.classes_)
    alphas = 1 - P[np.arange(len(b)), [cls.index(v) for v in y[b]]]
    ConformalClassifier().fit(alphas, bins)
    t_crepes = time.perf_counter() - t0
    return dict(t_model_fit=t_fit, t_cross_val_predict=t_cv, t_crepes=t_crepes, t_anchor=t_fit + t_cv + t_crepes)


def one(ds, tr, te, spec:str)->tuple:
    sub, Xte, yte = ds.subset(tr), ds.X.iloc[te].reset_index(drop=True), ds.y.to_numpy()[te]
    t0 = time.perf_counter()
    rm = fit_risk(sub, models={'mine': user_model()}, respondents=population(spec), random_state=0, n_jobs=1)
    t = time.perf_counter() - t0
    r = rm.predict_risk(Xte)
    cover = np.array([yy in s for yy, s in zip(yte, r.prediction_set)])
    wrong = (r.prediction.to_numpy() != yte)
    bins = r.difficulty_bin.to_numpy()
    per = []
    for k in range(rm.n_bins):
        c = cover[bins == k]
        if len(c): per.append(dict(bin=k, n=int(len(c)), coverage=float(c.mean()),
                                   floor=float(0.9 - 2 * np.sqrt(0.9 * 0.1 / len(c)))))
    worst = min(per, key=lambda d: d['coverage'] - d['floor'])
    pop = [n for n in rm.notes if n.startswith('Difficulty from')]
    return dict(population=spec, t_fit_risk=t, nrmse=rm.b_cv['nrmse'], spearman=rm.b_cv['spearman'],
                coverage=float(cover.mean()), set_size=float(r.set_size.mean()), per_bin=per,
                worst_bin_coverage=worst['coverage'], worst_bin_floor=worst['floor'],
                bins_hold=bool(all(d['coverage'] >= d['floor'] for d in per)),
                auroc_risk=_auroc(r.risk.to_numpy(), wrong), accuracy=float(1 - wrong.mean())), r.difficulty.to_numpy()


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--datasets', nargs='+', default=['vowel', 'yeast', 'page_blocks', 'credit'])
    p.add_argument('--populations', nargs='+', default=['auto', 'ladder40', 'ladder20'])
    p.add_argument('--ext', default='/work/ext/credit_data.csv', help="the credit table (read here only, never in the tests)")
    p.add_argument('--max-rows', type=int, default=2500)
    a = p.parse_args(argv)
    res = json.loads(OUT.read_text()) if OUT.exists() else {}
    cmd = 'python benchmarks/studies/risk_one_model.py ' + ' '.join(argv if argv is not None else sys.argv[1:])
    res['commands'] = [c for c in res.get('commands', [res['command']] if 'command' in res else []) if c != cmd] + [cmd]
    res.pop('command', None)
    for name in a.datasets:
        ds = dataset(name, a.ext)
        tr, te = split(ds, a.max_rows)
        out = dict(n_train=int(len(tr)), n_test=int(len(te)), n_features=int(ds.n_features), anchor=anchor_cost(ds, tr), runs=[])
        ref = None
        for spec in a.populations:
            row, b = one(ds, tr, te, spec)
            if ref is None: ref = b
            row['spearman_vs_reference'] = float(spearmanr(b, ref).statistic)
            row['cost_vs_anchor'] = row['t_fit_risk'] / out['anchor']['t_anchor']
            out['runs'].append(row)
            res.setdefault('datasets', {})[name] = out
            OUT.write_text(json.dumps(res, indent=1))
            print(name, {k: (round(v, 3) if isinstance(v, float) else v) for k, v in row.items() if k != 'per_bin'}, flush=True)
    return res


if __name__ == '__main__': main()
