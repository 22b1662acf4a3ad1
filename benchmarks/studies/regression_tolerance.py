"""The tolerance τ of a regression response by measurement, and a continuous-response IRT model beside the binary one (issue #48, item 3).

For each real regression table (`data/regression/NAME.csv.gz`, target column `target`; tables larger than `--max-rows`
are sampled to that many rows, seed 0):
  * the regression ladder (`get_respondents('ladder', task='regression')`, first `--n` respondents) answers every row
    out of fold (5 folds, seed 0, `respondent_predictions`); the absolute errors |y − ŷ| (respondents × rows) are cached
    in `--cache` (default benchmarks/.cache_regtol/NAME.npz), so a rerun only re-analyses;
  * (each table's analysis is cached beside its errors, so tables can be analysed by separate runs, then gathered)
  * for τ = s × the target's robust sd (s ∈ --shares, `default_tolerance(y, share=s)`) and τ = the median of the
    population's absolute errors: the 0/1 matrix U = (|y − ŷ| ≤ τ), the respondents' mean
    accuracy, the share of all-right and all-wrong rows, the split-half reliability of the 1PL difficulties
    (`split_half_reliability`, --repeats random halves of the respondents, seed 0) and of the 2PL ones (the first
    --repeats-2pl halves), and the
    1PL/2PL fit (log-likelihood per response, ΔBIC = BIC(2PL) − BIC(1PL), the 1PL's median item outfit);
  * on the SAME halves, the split-half reliability of two continuous-response models fitted on the graded responses
    x = exp(−|y − ŷ|/τ) (1 at the truth, 1/e at τ, → 0 far out): the continuous Rasch model
    (`robustdiff.irt.continuous_rasch_difficulty`, every τ; fitted on the first --crm-repeats halves, and on every
    half by its sufficient statistic, the mean graded response, whose order its difficulties share) and β³-IRT (Chen et al. 2019,
    `beta3_difficulty` below; ~20 s a half, so at the τ shares of --beta3-shares and the first --beta3-repeats halves).
Writes benchmarks/results/regression_tolerance.csv (one row per table × τ), regression_tolerance_splits.csv (one row per
table × τ × split × model: the paired Spearmans) and regression_tolerance.md (the summary table).
    nice -n 19 python benchmarks/studies/regression_tolerance.py                 # every table, 240 respondents
    nice -n 19 python benchmarks/studies/regression_tolerance.py --tables wage --n 60 --repeats 3 --out /tmp/x   # a quick look
"""
from __future__ import annotations
import argparse, json, sys, time, warnings
from pathlib import Path
import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from robustdiff.data import from_frame, default_tolerance
from robustdiff.respondents import respondent_predictions, split_half_reliability, _spearman
from robustdiff.irt import fit_irt, rasch_difficulty

SHARES = (0.1, 0.25, 0.5, 1.0)


def data_dir(arg):
    "The folder of the regression tables: --data, else the repository's data/regression."
    for d in ([Path(arg)] if arg else []) + [ROOT/'data'/'regression']:
        if d.is_dir() and list(d.glob('*.csv.gz')): return d
    sys.exit("no regression tables: pass --data DIR (a folder of NAME.csv.gz with a `target` column)")


def load(path:Path, max_rows:int):
    df = pd.read_csv(path)
    if len(df) > max_rows: df = df.sample(max_rows, random_state=0).sort_index().reset_index(drop=True)
    return from_frame(df, 'target', name=path.name[:-7], task='regression', checks=False)


def errors(ds, n:int, cache:Path)->tuple:
    "(E respondents × rows of absolute errors, y, respondent names, seconds): from the cache when it is there."
    f = cache/f'{ds.name}_{ds.n_instances}_{n}.npz'
    if f.exists():
        z = np.load(f, allow_pickle=False)
        return z['E'], z['y'], list(z['names']), float(z['seconds'])
    t = time.perf_counter()
    rp = respondent_predictions(ds, f'ladder:{n}', n_splits=5, random_state=0, n_jobs=1, progress=False)
    sec = time.perf_counter() - t
    rp['err'] = (rp.y_true.astype(float) - rp.y_pred.astype(float)).abs()
    E = rp.pivot(index='model', columns='instance', values='err')
    names = [m for m in rp.model.unique()]
    E = E.loc[names].to_numpy(float)
    y = ds.y.to_numpy(float)
    cache.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(f, E=E, y=y, names=np.array(names), seconds=sec)
    return E, y, names, sec


def halves(J:int, repeats:int, seed:int=0)->list:
    "The halves `split_half_reliability(random_state=seed)` draws: the same respondents in each split."
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(repeats):
        perm = rng.permutation(J)
        out.append((np.sort(perm[:J // 2]), np.sort(perm[J // 2:])))
    return out


def graded(E:np.ndarray, tau:float)->np.ndarray:
    "Graded responses in (0, 1]: exp(−e/τ)."
    return np.exp(-E / tau)


def beta3_difficulty(X:np.ndarray, *, eps:float=1e-4, a_prior_sd:float=1.0, max_iter:int=300)->np.ndarray:
    """Difficulties (logit δ) of the β³-IRT model (Chen, Silva Filho, Prudêncio, Diethe & Flach 2019) fitted on graded responses X (respondents × rows, in (0, 1)).

    x_ij ~ Beta(α_ij, β_ij), α_ij = (θ_j/δ_i)^a_i, β_ij = ((1 − θ_j)/(1 − δ_i))^a_i, θ, δ ∈ (0, 1), a_i > 0: maximum a
    posteriori with Chen et al.'s uniform priors on θ and δ and log a ~ N(0, 1) (which keeps every estimate finite),
    over logit θ, logit δ and log a jointly by L-BFGS-B with the analytic gradient."""
    from scipy.special import gammaln, digamma, expit, log_expit
    from scipy.optimize import minimize
    X = np.clip(np.asarray(X, float), eps, 1 - eps)
    J, I = X.shape
    lx, l1x = np.log(X), np.log1p(-X)
    pm, im = X.mean(1), X.mean(0)
    z0 = np.r_[np.log(pm / (1 - pm)), np.log((1 - im) / im), np.zeros(I)]
    def f(z):
        t, d, la = z[:J], z[J:J + I], z[J + I:]
        a = np.exp(la)
        lt, l1t, ld, l1d = log_expit(t), log_expit(-t), log_expit(d), log_expit(-d)
        u, v = lt[:, None] - ld[None, :], l1t[:, None] - l1d[None, :]
        al, be = np.exp(a * u), np.exp(a * v)
        s = al + be
        ps = digamma(s)
        Ga, Gb = (ps - digamma(al) + lx) * al, (ps - digamma(be) + l1x) * be       # ∂ℓ/∂α · α, ∂ℓ/∂β · β
        th, de = expit(t), expit(d)
        obj = (gammaln(s) - gammaln(al) - gammaln(be) + (al - 1) * lx + (be - 1) * l1x).sum() \
              + (lt + l1t).sum() + (ld + l1d).sum() - 0.5 * (la**2).sum() / a_prior_sd**2
        g_t = (a[None, :] * (Ga * (1 - th)[:, None] - Gb * th[:, None])).sum(1) + 1 - 2 * th
        g_d = (a[None, :] * (Gb * de[None, :] - Ga * (1 - de)[None, :])).sum(0) + 1 - 2 * de
        g_l = (a[None, :] * (Ga * u + Gb * v)).sum(0) - la / a_prior_sd**2
        return -obj, -np.r_[g_t, g_d, g_l]
    r = minimize(f, z0, jac=True, method='L-BFGS-B', bounds=[(-12, 12)] * (J + I) + [(-3, 3)] * I,
                 options=dict(maxiter=max_iter, ftol=1e-10, gtol=1e-5))
    return r.x[J:J + I]


def fit_stats(U:np.ndarray)->dict:
    "1PL and 2PL fit on the whole matrix: log-likelihood per response, ΔBIC (2PL − 1PL), the 1PL's median outfit."
    J, I = U.shape
    ok = (U.min(0) < 1) & (U.max(0) > 0)
    f1, f2 = fit_irt(U, model='1PL'), fit_irt(U, model='2PL')
    n = J * I
    k1, k2 = int(ok.sum()) + 1, 2 * int(ok.sum())
    bic1, bic2 = -2 * f1.loglik + k1 * np.log(n), -2 * f2.loglik + k2 * np.log(n)
    out = f1.items.outfit[f1.items.status == 'ok'] if 'outfit' in f1.items else pd.Series(dtype=float)
    return dict(ll1_per_resp=f1.loglik / n, ll2_per_resp=f2.loglik / n, dbic_2pl_minus_1pl=bic2 - bic1,
                outfit_1pl_median=float(out.median()) if len(out) else np.nan)


def analyse(name, E, y, args, crm):
    J, I = E.shape
    rsd = default_tolerance(y, share=1.0)
    taus = [(f'{s:g}×sd', s, s * rsd) for s in args.shares]
    taus += [('median |e|', np.nan, float(np.median(E)))]
    H = halves(J, args.repeats)
    rows, splits = [], []
    for label, share, tau in taus:
        U = (E <= tau).astype(np.int8)
        X = graded(E, tau)
        Ud = pd.DataFrame(U)
        row = dict(table=name, rows=I, respondents=J, tau_rule=label, share=share, tau=tau, tau_over_sd=tau / rsd,
                   accuracy=float(U.mean()), all_right=float((U.min(0) == 1).mean()), all_wrong=float((U.max(0) == 0).mean()))
        row['extreme'] = row['all_right'] + row['all_wrong']
        t = time.perf_counter()
        r1 = split_half_reliability(Ud, n_repeats=args.repeats, random_state=0)
        r2 = split_half_reliability(Ud, n_repeats=args.repeats_2pl, model='2PL', random_state=0) if not args.no_2pl else None
        row['rel_1pl'] = float(r1.spearman.median())
        row['rel_2pl'] = float(r2.spearman.median()) if r2 is not None else np.nan
        row['rel_1pl_same_splits_as_2pl'] = float(r1.spearman.iloc[:len(r2)].median()) if r2 is not None else np.nan
        row.update(fit_stats(U) if not args.no_2pl else {})
        row['sec_binary'] = time.perf_counter() - t
        t = time.perf_counter()
        rc, rg, rb = [], [], []
        do_b3 = any(np.isclose(share, b) for b in args.beta3_shares)
        for s, (ha, hb) in enumerate(H):
            rg.append(_spearman(-X[ha].mean(0), -X[hb].mean(0)))      # the continuous Rasch model's order (its sufficient statistic)
            if s < args.crm_repeats: rc.append(_spearman(*(crm(X[h]) for h in (ha, hb))))
            if do_b3 and s < args.beta3_repeats: rb.append(_spearman(*(beta3_difficulty(X[h]) for h in (ha, hb))))
            for model, v in (('1PL', r1.spearman.iloc[s] if s < len(r1) else np.nan),
                             ('2PL', r2.spearman.iloc[s] if r2 is not None and s < len(r2) else np.nan),
                             ('graded_mean', rg[-1]), ('continuous_rasch', rc[-1] if s < args.crm_repeats else np.nan),
                             ('beta3', rb[-1] if do_b3 and s < args.beta3_repeats else np.nan)):
                splits.append(dict(table=name, tau_rule=label, split=s, model=model, spearman=v))
        row['rel_graded_mean'], row['rel_crm'] = float(np.median(rg)), float(np.median(rc))
        row['rel_beta3'] = float(np.median(rb)) if rb else np.nan
        row['rel_1pl_same_splits_as_beta3'] = float(r1.spearman.iloc[:len(rb)].median()) if rb else np.nan
        row['sec_continuous'] = time.perf_counter() - t
        rows.append(row)
        print(f"  {label:>11} τ={tau:.4g} acc={row['accuracy']:.3f} extreme={row['extreme']:.3f} "
              f"rel 1PL {row['rel_1pl']:.3f} 2PL {row['rel_2pl']:.3f} graded mean {row['rel_graded_mean']:.3f} CRM {row['rel_crm']:.3f} β³ {row['rel_beta3']:.3f}", flush=True)
    return rows, splits


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--data', default=None, help='folder of NAME.csv.gz (default: data/regression)')
    ap.add_argument('--tables', nargs='*', default=None, help='table names (default: every table)')
    ap.add_argument('--n', type=int, default=240, help='respondents: the first N of the regression ladder')
    ap.add_argument('--max-rows', type=int, default=1000)
    ap.add_argument('--repeats', type=int, default=10, help='random halves of the respondents')
    ap.add_argument('--shares', type=float, nargs='*', default=list(SHARES))
    ap.add_argument('--no-2pl', action='store_true')
    ap.add_argument('--beta3-shares', type=float, nargs='*', default=[0.5], help='τ shares at which β³-IRT is fitted (it costs ~20 s a half)')
    ap.add_argument('--beta3-repeats', type=int, default=1, help='the first K halves for β³-IRT')
    ap.add_argument('--crm-repeats', type=int, default=2, help='the first K halves fitted by the continuous Rasch model (all halves by its sufficient statistic, the mean graded response)')
    ap.add_argument('--repeats-2pl', type=int, default=2, help='the first K halves for the 2PL (a 2PL fit costs ~1 s a half)')
    ap.add_argument('--predict-only', action='store_true', help='fill the cache of absolute errors and stop')
    ap.add_argument('--cache', default=str(ROOT/'benchmarks'/'.cache_regtol'))
    ap.add_argument('--out', default=str(ROOT/'benchmarks'/'results'/'regression_tolerance'))
    args = ap.parse_args(argv)
    if not args.predict_only:
        from robustdiff.irt import continuous_rasch_difficulty as crm
    folder = data_dir(args.data)
    names = args.tables or sorted(p.name[:-7] for p in folder.glob('*.csv.gz'))
    rows, splits, meta = [], [], {}
    for nm in names:
        ds = load(folder/f'{nm}.csv.gz', args.max_rows)
        E, y, who, sec = errors(ds, args.n, Path(args.cache))
        meta[nm] = dict(rows=ds.n_instances, features=ds.n_features, respondents=len(who), respondent_seconds=round(sec, 1))
        print(f"{nm}: {ds.n_instances} rows × {ds.n_features} features, {len(who)} respondents ({sec:.0f} s)", flush=True)
        if args.predict_only: continue
        key = Path(args.cache)/f"{nm}_{ds.n_instances}_{args.n}_analysis_{args.repeats}_{args.repeats_2pl}_{args.beta3_repeats}_{args.crm_repeats}_{'-'.join(map(str, args.shares))}_{'-'.join(map(str, args.beta3_shares))}{'_no2pl' if args.no_2pl else ''}.pkl"
        if key.exists(): r, s = pd.read_pickle(key)
        else:
            r, s = analyse(nm, E, y, args, crm)
            pd.to_pickle((r, s), key)
        rows += r; splits += s
    if args.predict_only: return
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tab = pd.DataFrame(rows)
    tab.to_csv(f'{out}.csv', index=False, float_format='%.6g')
    pd.DataFrame(splits).to_csv(f'{out}_splits.csv', index=False, float_format='%.6g')
    (Path(f'{out}_meta.json')).write_text(json.dumps(dict(tables=meta, n=args.n, max_rows=args.max_rows, repeats=args.repeats,
                                                          command=' '.join(sys.argv)), indent=1))
    summ = tab.groupby('tau_rule', sort=False)[['tau_over_sd', 'accuracy', 'all_right', 'all_wrong', 'extreme', 'rel_1pl', 'rel_2pl',
                                                 'rel_graded_mean', 'rel_crm', 'rel_beta3', 'rel_1pl_same_splits_as_beta3', 'dbic_2pl_minus_1pl']].median()
    summ.index = summ.index.str.replace('|', '\\|')                      # a label inside a markdown table
    tab_md = tab.assign(tau_rule=tab.tau_rule.str.replace('|', '\\|'))
    lines = [f"# τ by measurement: {len(names)} regression tables, the first {args.n} respondents of the regression ladder, "
             f"5 folds, {args.repeats} random halves (medians over tables)", '',
             summ.to_markdown(floatfmt='.3f'), '', '## Per table', '',
             tab_md[['table', 'rows', 'tau_rule', 'tau', 'accuracy', 'extreme', 'rel_1pl', 'rel_2pl', 'rel_graded_mean', 'rel_crm', 'rel_beta3']]
             .to_markdown(index=False, floatfmt='.3f'), '',
             f"Command: `nice -n 19 python benchmarks/studies/{Path(__file__).name} {' '.join(sys.argv[1:])}`"]
    Path(f'{out}.md').write_text('\n'.join(lines) + '\n')
    print(summ.to_string())


if __name__ == '__main__':
    main()
