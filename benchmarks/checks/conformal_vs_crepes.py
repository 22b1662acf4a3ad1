"""robustdiff's conformal sets against crepes' (issue 46, items 2 and 3), with the same probabilities and calibration rows.

For each data set: at most `--max-rows` rows (stratified subsample, seed), split 60 / 20 / 20 (stratified, seed) into
training, calibration and test rows; one HistGradientBoosting model fitted on the training rows gives the probabilities
of the calibration and test rows, and two difficulty measures give the Mondrian bins (`--bins` equal-count bins on the
calibration rows, crepes' `binning`):
  * `knn`: crepes' `DifficultyEstimator` (mean distance to the k = 25 nearest training rows, standardised features,
    `scaler=True`), the taxonomy crepes' documentation uses;
  * `kdn`: k-disagreeing neighbours (the share of the 10 nearest training rows with another label; Smith et al. 2014),
    a hardness measure independent of the model and of the kNN distance.
The hardest fifth of the test rows by `kdn` is the neutral hard group of every row of the table.

Sets at α = `--alpha` (score 1 − p̂_y for every method):
  * crepes `ConformalClassifier` Mondrian over the bins, smoothed p-values (its default, seeded) and non-smoothed,
    marginal (no bins, smoothed), and class-conditional (the true class as the category, as crepes' `class_cond`);
  * ours (`robustdiff.conformal.conformal_sets`) on average over calibration draws (`delta=None`, as crepes): with and
    without `nonempty`, smoothed (`smoothing=True`, seeded Generator); every bin at once with δ = 0.1 (the default of
    `robustdiff.risk`); class-conditional (`classwise=True`) on average and with δ; `classwise='auto'` with δ; class-conditional without bins (`ours_class_avg`, and smoothed: crepes' class-conditional cells).
Per method: mean set size, coverage overall, per bin (the worst and the hardest bin), per class (the worst), and of the
hardest fifth. Tables: benchmarks/results/conformal_vs_crepes.csv (one row per data set × bins × method) and
conformal_vs_crepes.md (the summary, with the command).

The two tables of issue 46 that stay outside the repository (credit: target `Status`, churn: target `churn`; the
column is found among Status, churn, y) are read only with `--ext DIR` (credit_data.csv, mlc_churn.csv in DIR).
Examples:
    nice -n 10 python benchmarks/checks/conformal_vs_crepes.py --datasets all
    nice -n 10 python benchmarks/checks/conformal_vs_crepes.py --datasets none --ext /work/ext --tag ext
"""
from __future__ import annotations
import argparse, sys, time, warnings
from pathlib import Path
import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.preprocessing import StandardScaler, OrdinalEncoder
from sklearn.neighbors import NearestNeighbors

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from robustdiff.datasets import load_dataset, data_dir
from robustdiff.conformal import conformal_sets, conformal_cells

RESULTS = ROOT/'benchmarks'/'results'
EXT = {'credit': ('credit_data.csv', ('Status', 'y')), 'churn': ('mlc_churn.csv', ('churn', 'y'))}


def pmlb_names()->list:
    return [p.name.split('.')[0] for p in sorted(data_dir('pmlb').glob('*.tsv.gz'), key=lambda p: (p.stat().st_size, p.name))]


def load(name:str, ext:Path|None)->tuple:
    "(X DataFrame, y Series) of a PMLB set or an --ext table."
    if name in EXT:
        if ext is None: raise SystemExit(f"{name}: needs --ext DIR holding {EXT[name][0]}")
        df = pd.read_csv(ext/EXT[name][0])
        col = next((c for c in EXT[name][1] if c in df.columns), None)
        if col is None: raise SystemExit(f"{ext/EXT[name][0]}: no target column among {EXT[name][1]}")
        return df.drop(columns=[col]), df[col].astype(str)
    ds = load_dataset(f'pmlb:{name}')
    return ds.X, ds.y


def encode(X:pd.DataFrame)->tuple:
    "Numeric matrix (nominal columns as ordinal codes) and the mask of nominal columns."
    nominal = np.array([not pd.api.types.is_numeric_dtype(X[c]) for c in X.columns])
    A = X.copy()
    if nominal.any():
        A.loc[:, X.columns[nominal]] = OrdinalEncoder().fit_transform(X.loc[:, X.columns[nominal]].astype(str))
    return A.astype(float).to_numpy(), nominal


def equal_count_bins(cal_values, test_values, k:int)->tuple:
    "crepes-style equal-count bins: edges at the calibration values' quantiles; ties stay together."
    edges = np.unique(np.quantile(cal_values, np.linspace(0, 1, k + 1)[1:-1]))
    return np.searchsorted(edges, cal_values, side='right'), np.searchsorted(edges, test_values, side='right')


def coverage_row(S, y, bins, hard_fifth)->dict:
    hit = S[np.arange(len(y)), y]
    by_bin = pd.Series(hit).groupby(bins).mean()
    by_cls = pd.Series(hit).groupby(y).mean()
    return {'size': S.sum(axis=1).mean(), 'empty': (S.sum(axis=1) == 0).mean(), 'coverage': hit.mean(),
            'worst_bin': by_bin.min(), 'hardest_bin': by_bin.iloc[-1], 'worst_class': by_cls.min(),
            'minority_class': by_cls.loc[np.bincount(y).argmin()] if len(np.unique(y)) == len(np.bincount(y)) else np.nan,
            'hard_fifth': hit[hard_fifth].mean()}


def one(name:str, a)->list:
    from crepes import ConformalClassifier
    from crepes.extras import DifficultyEstimator
    X, y_raw = load(name, a.ext)
    y_all = pd.Series(pd.factorize(y_raw.astype(str), sort=True)[0])
    A, nominal = encode(X)
    idx = np.arange(len(A))
    if len(idx) > a.max_rows:
        idx, _ = train_test_split(idx, train_size=a.max_rows, stratify=y_all, random_state=a.seed)
    y = y_all.to_numpy()[idx]; A = A[idx]
    tr, rest = train_test_split(np.arange(len(A)), train_size=0.6, stratify=y, random_state=a.seed)
    ca, te = train_test_split(rest, train_size=0.5, stratify=y[rest], random_state=a.seed)
    t0 = time.perf_counter()
    model = HistGradientBoostingClassifier(max_iter=a.max_iter, random_state=a.seed, categorical_features=nominal if nominal.any() else None)
    model.fit(A[tr], y[tr])
    C = len(np.unique(y))
    def proba(rows):
        P = np.zeros((len(rows), C)); P[:, model.classes_] = model.predict_proba(A[rows]); return P
    Pc, Pt = proba(ca), proba(te)
    pc = Pc[np.arange(len(ca)), y[ca]]
    sc = StandardScaler().fit(A[tr]); Z = np.nan_to_num(sc.transform(A))
    de = DifficultyEstimator().fit(Z[tr], scaler=True)
    nn = NearestNeighbors(n_neighbors=10).fit(Z[tr])
    kdn = lambda rows: (y[tr][nn.kneighbors(Z[rows], return_distance=False)] != y[rows][:, None]).mean(axis=1)
    diff = {'knn': (de.apply(Z[ca]), de.apply(Z[te])), 'kdn': (kdn(ca), kdn(te))}
    kt = diff['kdn'][1]
    hard_fifth = kt >= np.quantile(kt, 0.8)
    fit_s = time.perf_counter() - t0
    rows = []
    for bname, (dc, dt) in diff.items():
        bc, bt = equal_count_bins(dc, dt, a.bins)
        ours = {'ours_avg': dict(delta=None), 'ours_avg_raw': dict(delta=None, nonempty=False),
                'ours_avg_smooth': dict(delta=None, nonempty=False, smoothing=True, seed=a.seed),
                'ours_delta': dict(delta=0.1), 'ours_cw_avg': dict(delta=None, classwise=True, cal_labels=y[ca]),
                'ours_cw_avg_smooth': dict(delta=None, classwise=True, cal_labels=y[ca], nonempty=False, smoothing=True, seed=a.seed),
                'ours_cw_delta': dict(delta=0.1, classwise=True, cal_labels=y[ca]),
                'ours_auto_delta': dict(delta=0.1, classwise='auto', cal_labels=y[ca])}
        sets = {}
        for k, kw in ours.items():
            try: sets[k] = conformal_sets(Pt, pc, bc, bt, alpha=a.alpha, **kw)
            except TypeError as e:       # an option this version of robustdiff does not have
                warnings.warn(f"{k}: {e}")
        ccm = ConformalClassifier().fit(1 - pc, bins=bc)
        sets['crepes_mond'] = ccm.predict_set(1 - Pt, bins=bt, confidence=1 - a.alpha, smoothing=True, seed=a.seed).astype(bool)
        sets['crepes_mond_ns'] = ccm.predict_set(1 - Pt, bins=bt, confidence=1 - a.alpha, smoothing=False).astype(bool)
        sets['crepes_marg'] = ConformalClassifier().fit(1 - pc).predict_set(1 - Pt, confidence=1 - a.alpha, smoothing=True, seed=a.seed).astype(bool)
        # class-conditional (crepes' class_cond: the true class is the category, no difficulty bins), and ours over the same cells
        ccc = ConformalClassifier().fit(1 - pc, bins=y[ca])
        sets['crepes_class'] = np.column_stack([ccc.predict_set(1 - Pt[:, [c]], bins=np.full(len(te), c), confidence=1 - a.alpha,
                                                                smoothing=True, seed=a.seed + c)[:, 0] for c in range(C)]).astype(bool)
        z = np.zeros(len(ca), int)
        sets['ours_class_avg'] = conformal_sets(Pt, pc, z, np.zeros(len(te), int), alpha=a.alpha, nonempty=False, cal_labels=y[ca], classwise=True)
        sets['ours_class_avg_smooth'] = conformal_sets(Pt, pc, z, np.zeros(len(te), int), alpha=a.alpha, nonempty=False, cal_labels=y[ca],
                                                       classwise=True, smoothing=True, seed=a.seed)
        auto = conformal_cells(bc, y[ca], n_classes=C, alpha=a.alpha, delta=0.1, classwise='auto')
        for k, S in sets.items():
            rows.append({'dataset': name, 'bins': bname, 'method': k, 'n_cal': len(ca), 'n_test': len(te), 'classes': C,
                         'minority_share': np.bincount(y).min() / len(y), 'auto_classwise': auto.attrs['classwise'],
                         'accuracy': (Pt.argmax(axis=1) == y[te]).mean(), **coverage_row(S, y[te], bt, hard_fifth)})
    print(f"{name}: {len(A)} rows, {C} classes, model + difficulty {fit_s:.1f} s", flush=True)
    return rows


def summary(df:pd.DataFrame, a, cmd:str)->str:
    piv = df.pivot_table(index=['dataset', 'bins'], columns='method', values='size')
    out = [f"# robustdiff conformal sets vs crepes (α = {a.alpha}, {a.bins} bins, seed {a.seed})", "", f"`{cmd}`", ""]
    base = 'crepes_mond'
    ratios = {m: (piv[m] / piv[base]) for m in piv.columns if m != base}
    rt = pd.DataFrame(ratios)
    out += ["## Mean set size relative to crepes' Mondrian sets (smoothed), per bins", "",
            rt.groupby(level='bins').agg(['median', 'min', 'max']).T.round(3).to_markdown(), ""]
    cov = df.groupby(['bins', 'method'])[['coverage', 'worst_bin', 'hardest_bin', 'worst_class', 'minority_class', 'hard_fifth']].agg(['median', 'min'])
    out += ["## Coverage (median and min over data sets)", "", cov.round(3).to_markdown(), ""]
    out += ["## Per data set (knn bins): set size", "", piv.xs('knn', level='bins').round(3).to_markdown(), ""]
    wc = df.pivot_table(index=['dataset', 'bins'], columns='method', values='worst_class')
    out += ["## Per data set: worst class coverage", "", wc.round(3).to_markdown(), ""]
    return '\n'.join(out)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--datasets', default='all', help="'all' (the PMLB sets in data/pmlb), 'none', or comma-separated names")
    p.add_argument('--ext', type=Path, default=None, help='directory with credit_data.csv and mlc_churn.csv (outside the repository)')
    p.add_argument('--max-rows', type=int, default=5000)
    p.add_argument('--max-iter', type=int, default=100)
    p.add_argument('--alpha', type=float, default=0.1)
    p.add_argument('--bins', type=int, default=5)
    p.add_argument('--seed', type=int, default=0)
    p.add_argument('--tag', default='')
    a = p.parse_args(argv)
    names = pmlb_names() if a.datasets == 'all' else [] if a.datasets == 'none' else a.datasets.split(',')
    if a.ext is not None: names += list(EXT)
    rows = []
    for n in names: rows += one(n, a)
    df = pd.DataFrame(rows)
    stem = 'conformal_vs_crepes' + (f'_{a.tag}' if a.tag else '')
    RESULTS.mkdir(parents=True, exist_ok=True)
    df.to_csv(RESULTS/f'{stem}.csv', index=False)
    cmd = 'python benchmarks/checks/conformal_vs_crepes.py ' + ' '.join(argv if argv is not None else sys.argv[1:])
    text = summary(df, a, cmd)
    (RESULTS/f'{stem}.md').write_text(text)
    print(text)


if __name__ == '__main__':
    main()
