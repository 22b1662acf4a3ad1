"""Acceptance measurements of `robustdiff.risk` (issue 34) on the PMLB classification sets in data/pmlb.

For each data set: 30 % held out (stratified, seed 0), the risk model fitted on the other 70 % (`fit_risk`), then on the
held-out rows:
  * coverage of the Mondrian conformal sets per predicted-difficulty bin at α = 0.1 (`mondrian`: the sets `predict_risk`
    returns, training-conditional for all of a model's bins at once with the model's δ = 0.1 unless --delta says
    otherwise: each bin at δ_bin = 1 − (1 − δ)^(1/K), Šidák), beside the same sets with δ for each bin on its own
    (`mondrian_bin`), the same sets valid on average over calibration draws (`mondrian_avg`, δ off), marginal split
    conformal, and the sets calibrated on every out-of-fold row (`mondrian_pooled`; the default calibrates on the
    deployed fold's own rows when they are enough), each with its mean set size;
  * AUROC for "the prediction is wrong" of `risk`, of the model's confidence (1 − max probability) and of b̂ alone;
  * AUROC for "the prediction changes under feature noise ν" of `p_flip` and of the margin 1 − (p₁ − p₂);
  * label-free accuracy of batches drawn without and with covariate shift toward hard rows: |estimate − actual| of
    ours (mean 1 − risk), of the mean confidence (the CBPE idea), of the out-of-fold training accuracy;
  * (--speed) predict_risk on 100 000 rows against the models' own predict_proba on the same rows;
  * (--check-jobs) identical predict_risk tables for n_jobs 1 and 2.
Tables go to benchmarks/results/risk_*.csv; the summary is printed and written to risk_summary.md.

By default the report's own defaults: `models='fabra18'` (18 models) and `respondents='auto'` (the whole 240-respondent
ladder for more than 3 models); larger sets are subsampled (stratified) to `--max-rows` rows (5 000 by default: 3 500
to fit on, 1 500 held out). The report's fits are cached per set (`--cache`, default benchmarks/.cache_risk), so a rerun
after a change to `robustdiff.risk` refits only the risk model. The cheap variant: `--models quick --respondents ladder40`.
Examples:
    nice -n 10 python benchmarks/studies/bench_risk.py --datasets all --n-jobs 2 --check-jobs
    nice -n 10 python benchmarks/studies/bench_risk.py --datasets all --models quick --respondents ladder40 --max-rows 4000 --tag quick
    nice -n 10 python benchmarks/studies/bench_risk.py --datasets vowel --speed vowel --tag speed
"""
from __future__ import annotations
import argparse, sys, time
from pathlib import Path
import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from robustdiff.datasets import load_dataset, data_dir
from robustdiff._risk_core import _auroc
from robustdiff.risk_fit import fit_risk
from robustdiff.conformal import conformal_sets
from robustdiff.responses import predict_labels_proba
from robustdiff.perturb import FB24Noise
from robustdiff.respondents import get_respondents

RESULTS = ROOT/'benchmarks'/'results'


def pmlb_names()->list:
    "The PMLB sets in data/pmlb, smallest file first (a partial run covers the most sets)."
    return [p.name.split('.')[0] for p in sorted(data_dir('pmlb').glob('*.tsv.gz'), key=lambda p: (p.stat().st_size, p.name))]


def _respondents(spec:str):
    if spec.startswith('ladder') and spec[6:].isdigit(): return get_respondents('ladder', n=int(spec[6:]), random_state=0)
    return spec


def _split(ds, max_rows:int, seed:int=0):
    tr, te = _split_positions(ds, max_rows, seed)
    return ds.subset(tr), ds.X.iloc[te].reset_index(drop=True), ds.y.iloc[te].reset_index(drop=True)


def _split_positions(ds, max_rows:int, seed:int=0)->tuple:
    "Positions (sorted) of the rows fitted on and of the held-out rows; the rest of a subsampled set is never used."
    idx = np.arange(ds.n_instances)
    if ds.n_instances > max_rows:     # a stratified subsample first (cheap by default; --max-rows 0 keeps every row)
        idx, _ = train_test_split(idx, train_size=max_rows, stratify=ds.y, random_state=seed)
        idx = np.sort(idx)
        yy, need = ds.y.to_numpy(), 8     # a class needs 5 training rows for the report's 5 folds: ≥ 8 before the 70/30 split
        for c in pd.unique(yy):
            have = idx[yy[idx] == c]
            if len(have) < need:          # a rare class: topped up from outside the subsample (as few rows as it takes)
                more = np.setdiff1d(np.flatnonzero(yy == c), have)[: need - len(have)]
                idx = np.sort(np.r_[idx, more])
    y = ds.y.to_numpy()[idx]
    tr, te = train_test_split(idx, test_size=0.3, stratify=y, random_state=seed)
    return np.sort(tr), np.sort(te)


def _batches(n:int, weights:np.ndarray|None, size:int, B:int, rng)->list:
    p = None if weights is None else weights / weights.sum()
    return [rng.choice(n, size, replace=False, p=p) for _ in range(B)]


def one_dataset(name:str, a)->dict:
    ds = load_dataset(f'pmlb:{name}')
    tr, Xte, yte = _split(ds, a.max_rows)
    t0 = time.perf_counter()
    cache = None if not a.cache else str(Path(a.cache)/f'{name}_{a.models}_{a.respondents}_{a.max_rows}')
    rm = fit_risk(tr, models=a.models, respondents=_respondents(a.respondents), random_state=0, n_jobs=a.n_jobs, cache_dir=cache)
    t_fit = time.perf_counter() - t0
    r = rm.predict_risk(Xte, alpha=a.alpha, delta=a.delta)
    y = yte.to_numpy()
    noise = FB24Noise(nu=rm.nu if np.isfinite(rm.nu) else 0.2).fit(tr.X, tr.y)
    Xn = noise.transform(Xte, random_state=np.random.default_rng(1))
    cov, auc, acc = [], [], []
    unc = np.zeros(len(y))
    for m, g in r.groupby('model', sort=False):
        pipe, cls = rm.models[m], rm.classes[m]
        lab, P = predict_labels_proba(pipe, Xte)
        if P is None: P = (np.asarray(lab)[:, None] == cls[None, :]).astype(float)
        bins = g.difficulty_bin.to_numpy()
        pos = pd.Index(cls).get_indexer(y)
        mond = np.array([y[i] in s for i, s in enumerate(g.prediction_set)])
        hit = lambda S: np.where(pos >= 0, S[np.arange(len(y)), np.maximum(pos, 0)], False)   # each held-out row's true class in its set
        c = rm._cal_rows()                           # the model's calibration rows (the deployed fold's own, or every out-of-fold row)
        cal_p, cal_b = np.asarray(rm.cal_p_true[m])[c], np.asarray(rm.cal_bins)[c]
        marg_sets = conformal_sets(P, cal_p, np.zeros(len(cal_b)), np.zeros(len(y)), alpha=a.alpha)
        marg = hit(marg_sets)
        avg_sets = conformal_sets(P, cal_p, cal_b, bins, alpha=a.alpha)          # Mondrian, δ off
        avg = hit(avg_sets)
        dlt = rm.delta if a.delta is None else (a.delta or None)
        bin_sets = conformal_sets(P, cal_p, cal_b, bins, alpha=a.alpha, delta=dlt, simultaneous=False)   # δ per bin
        binw = hit(bin_sets)
        pool_sets = conformal_sets(P, rm.cal_p_true[m], rm.cal_bins, bins, alpha=a.alpha, delta=dlt, simultaneous=rm.simultaneous)   # every out-of-fold row
        poolw = hit(pool_sets)
        for k in range(rm.n_bins):
            on = bins == k
            for kind, v, S in (('mondrian', mond, None), ('mondrian_bin', binw, bin_sets), ('mondrian_avg', avg, avg_sets), ('marginal', marg, marg_sets),
                               ('mondrian_pooled', poolw, pool_sets)):
                cb = rm.cal_bins if kind == 'mondrian_pooled' else cal_b
                cv = float(v[on].mean()) if on.any() else np.nan
                cov.append(dict(dataset=name, model=m, bin=k, method=kind, n=int(on.sum()), coverage=cv, calibration=rm.calibration if kind != 'mondrian_pooled' else 'pooled',
                                n_cal=int((cb == k).sum()) if kind != 'marginal' else len(cb),
                                set_size=np.nan if not on.any() else (float(g.set_size.to_numpy()[on].mean()) if S is None else float(S[on].sum(1).mean()))))
        wrong = g.prediction.to_numpy() != y
        Ps = np.sort(P, axis=1)
        margin = 1 - (Ps[:, -1] - (Ps[:, -2] if P.shape[1] > 1 else 0))
        lab_n, _ = predict_labels_proba(pipe, Xn)
        flipped = np.asarray(lab_n) != np.asarray(lab)
        conf = 1 - g.confidence.fillna(1.0).to_numpy()
        unc += conf
        auc.append(dict(dataset=name, model=m, n_test=len(y), error_rate=float(wrong.mean()), flip_rate=float(flipped.mean()),
                        distinct_conf=int(len(np.unique(np.round(conf, 9)))),
                        auroc_risk=_auroc(g.risk, wrong), auroc_confidence=_auroc(conf, wrong), auroc_difficulty=_auroc(g.difficulty, wrong),
                        auroc_pflip=_auroc(g.p_flip, flipped), auroc_pflip_bin=_auroc(g.p_flip_bin, flipped), auroc_margin=_auroc(margin, flipped)))
    # label-free accuracy: batches without shift, and with covariate shift toward hard rows (the rows the models are
    # least sure about, a function of x only: P(y | x) is unchanged)
    rng = np.random.default_rng(0)
    size = min(500, len(y) // 2)
    blocks = {m: g.reset_index(drop=True) for m, g in r.groupby('model', sort=False)}
    u = pd.Series(unc).rank(pct=True).to_numpy()
    for shift, w in (('none', None), ('hard', np.exp(4 * u))):
        for bi, idx in enumerate(_batches(len(y), w, size, a.batches, rng)):
            sub = pd.concat([blocks[m].iloc[idx] for m in blocks], ignore_index=True)   # = predict_risk(Xte.iloc[idx]), not recomputed
            e = rm._estimate_rows(sub)
            for row in e.table.itertuples():
                actual = float((blocks[row.model].prediction.to_numpy()[idx] == y[idx]).mean())
                acc.append(dict(dataset=name, model=row.model, shift=shift, batch=bi, n=size, actual=actual, ours=row.estimated,
                                ours_lo=row.lo, ours_hi=row.hi, sd_batch=row.sd_batch, sd_calibration=row.sd_calibration,
                                cbpe=row.mean_confidence, train=row.train_accuracy,
                                irt=row.expected_irt, hard_share=float(e.bins.batch_share.iloc[-1]), mix_alarm=e.mix_alarm))
    out = dict(cov=pd.DataFrame(cov), auc=pd.DataFrame(auc), acc=pd.DataFrame(acc),
               info=dict(dataset=name, rows=ds.n_instances, used=tr.n_instances + len(y), train=tr.n_instances, test=len(y),
                         classes=ds.n_classes, fit_seconds=round(t_fit, 1), nrmse=rm.b_cv['nrmse'], spearman=rm.b_cv['spearman'],
                         # the b̂ mix of all held-out rows against the deployed estimator's own out-of-fold rows (no shift: p should be uniform)
                         test_mix_p=rm._estimate_rows(r).mix_p,
                         test_hard_share=float((r.difficulty_bin[r.model == r.model.iloc[0]] == rm.n_bins - 1).mean())))
    if name in a.speed: out['speed'] = speed(rm, Xte, name, a.speed_rows, a.speed_repeats)
    if a.check_jobs and name == a.datasets[0]:
        other = 2 if a.n_jobs == 1 else 1          # the other n_jobs, without the cache: every fit redone
        rm2 = fit_risk(tr, models=a.models, respondents=_respondents(a.respondents), random_state=0, n_jobs=other)
        r2 = rm2.predict_risk(Xte, alpha=a.alpha)
        same = r.drop(columns='prediction_set').equals(r2.drop(columns='prediction_set')) and list(r.prediction_set) == list(r2.prediction_set)
        out['info']['n_jobs_1_equals_2'] = bool(same)   # (the first fit used --n-jobs and the cache)
    return out


def speed(rm, Xte, name:str, n_rows:int, repeats:int=5)->pd.DataFrame:
    X = Xte.sample(n_rows, replace=True, random_state=0).reset_index(drop=True)
    fs = dict(proba=lambda: [predict_labels_proba(p, X) for p in rm.models.values()], risk=lambda: rm.predict_risk(X),
              b=lambda: rm.estimator.predict(X))
    t = {k: [] for k in fs}
    for _ in range(repeats):               # interleaved, the fastest: the machine is shared, its load changes
        for k, f in fs.items():
            t0 = time.perf_counter(); f(); t[k].append(time.perf_counter() - t0)
    t_proba, t_risk, t_b = min(t['proba']), min(t['risk']), min(t['b'])
    return pd.DataFrame([dict(dataset=name, rows=n_rows, models=len(rm.models), repeats=repeats, predict_proba_s=t_proba, predict_risk_s=t_risk,
                              difficulty_estimator_s=t_b, ratio=t_risk / t_proba)])


def with_se(cov:pd.DataFrame, alpha:float)->pd.DataFrame:
    "Add SE_test (test rows only), SE (test rows and the calibration draw) and the criterion with each."
    c, n = cov.coverage, cov.n.clip(lower=1)
    se_test = np.sqrt(c * (1 - c) / n)
    se = np.sqrt(se_test**2 + alpha * (1 - alpha) / (cov.n_cal + 2)) if 'n_cal' in cov else se_test
    return cov.assign(se_test=se_test, se=se, ok_test=(cov.n == 0) | (c >= 1 - alpha - 2 * se_test), ok=(cov.n == 0) | (c >= 1 - alpha - 2 * se))


def method_counts(cov:pd.DataFrame)->pd.DataFrame:
    "Per method: cells, cells ≥ 1 − α − 2 SE (and with SE_test only), mean coverage, the lowest, mean set size."
    order = ['mondrian', 'mondrian_bin', 'mondrian_avg', 'marginal', 'mondrian_pooled']
    g = cov.groupby('method')
    t = pd.DataFrame({'cells': g.size(), 'ok (SE)': g.ok.sum().astype(int), 'ok (SE_test)': g.ok_test.sum().astype(int),
                      'mean coverage': g.coverage.mean().round(3), 'lowest coverage': g.coverage.min().round(3),
                      'mean set size': g.set_size.mean().round(3)})
    return t.reindex([k for k in order if k in t.index] + [k for k in t.index if k not in order]).rename_axis('method').reset_index()


def summary(cov, auc, acc, info, speed_t, a)->str:
    L = ["# robustdiff.risk benchmark\n", f"models={a.models}, respondents={a.respondents}, alpha={a.alpha}, max_rows={a.max_rows}, "
         f"batches={a.batches}, n_jobs={a.n_jobs}\n", pd.DataFrame(info).to_markdown(index=False), '\n']
    cov = with_se(cov, a.alpha)
    dlt = 'off' if getattr(a, 'delta', None) is False else (getattr(a, 'delta', None) or "the risk model's, 0.1")
    L.append(f"## Coverage by bin (α = {a.alpha})\nSE_test = sqrt(c(1 − c)/n_test) (the held-out rows of the bin, one split); "
             f"SE = sqrt(SE_test² + α(1 − α)/(n_cal + 2)) adds the calibration draw (the coverage given a calibration set of "
             f"n_cal rows is Beta-distributed with that variance).\n\nMethods (δ = {dlt}): `mondrian` — the sets `predict_risk` "
             f"returns, δ for all of a model's bins at once (each bin at 1 − (1 − δ)^(1/K), Šidák); `mondrian_bin` — δ for each bin "
             f"on its own; `mondrian_avg` — δ off (valid on average over calibration draws); `marginal` — split conformal, one "
             f"category, δ off; these four calibrate on the risk model's rows (`calibration`: the deployed fold's own held-out rows "
             f"where its bins are thick enough for δ, else every out-of-fold row); `mondrian_pooled` — the first, calibrated on every "
             f"out-of-fold row whatever the table's size.\n\n" + method_counts(cov).to_markdown(index=False) + '\n')
    for meth in ('mondrian', 'mondrian_bin', 'mondrian_pooled'):
        d = cov[cov.method == meth]
        L.append(f"Bins below 1 − α − 2 SE ({meth}): " + (d[~d.ok][['dataset', 'model', 'bin', 'n', 'n_cal', 'coverage', 'se_test', 'se']].round(3)
                 .to_markdown(index=False) if (~d.ok).any() else 'none') + '\n')
    w = cov.pivot_table(index=['dataset', 'method'], columns='bin', values='coverage', aggfunc='min')
    L.append("Lowest coverage over the models, per bin:\n\n" + w.round(3).to_markdown() + '\n')
    s = cov.pivot_table(index=['dataset', 'method'], values='set_size', aggfunc='mean')
    L.append("Mean set size:\n\n" + s.round(2).to_markdown() + '\n')
    per = auc.assign(diff=auc.auroc_risk - auc.auroc_confidence)
    ok = per.groupby('dataset')['diff'].min().ge(-0.01)
    okm = per.groupby('dataset')['diff'].median().ge(-0.01)
    mean_auc = per.groupby('dataset')[['auroc_risk', 'auroc_confidence']].mean()
    okmean = (mean_auc.auroc_risk - mean_auc.auroc_confidence).ge(-0.01)
    L.append(f"## Which predictions fail (AUROC for 'wrong')\nrisk not worse than confidence by more than 0.01 for every model "
             f"on {int(ok.sum())} of {len(ok)} sets; for the set's median model on {int(okm.sum())} of {len(okm)}; for the mean AUROC "
             f"over the set's models on {int(okmean.sum())} of {len(okmean)}; per model × set: {int((per['diff'] >= -0.01).sum())} of {len(per)}.\n")
    L.append(per[['dataset', 'model', 'error_rate', 'distinct_conf', 'auroc_risk', 'auroc_confidence', 'auroc_difficulty', 'diff']]
             .round(3).to_markdown(index=False) + '\n')
    L.append("## Which predictions flip under ν (AUROC)\n" + auc[['dataset', 'model', 'flip_rate', 'auroc_pflip', 'auroc_pflip_bin',
             'auroc_margin']].round(3).to_markdown(index=False) + '\n')
    acc = acc.assign(err_ours=(acc.ours - acc.actual).abs(), err_cbpe=(acc.cbpe - acc.actual).abs(), err_train=(acc.train - acc.actual).abs(),
                     err_irt=(acc.irt - acc.actual).abs(), inside=(acc.ours_lo <= acc.actual) & (acc.actual <= acc.ours_hi))
    med = acc.groupby(['dataset', 'model', 'shift'])[['err_ours', 'err_cbpe', 'err_train', 'err_irt']].median().reset_index()
    overall = med.groupby('shift')[['err_ours', 'err_cbpe', 'err_train', 'err_irt']].median()
    L.append("## Label-free accuracy: median |estimate − actual| (median over batches, then over data sets × models)\n" +
             overall.round(4).to_markdown() + '\n')
    L.append(f"Interval (90 %; batch sampling + per-bin calibration) holds the actual batch accuracy in {acc.inside.mean():.1%} of batches "
             f"(none: {acc[acc['shift'] == 'none'].inside.mean():.1%}, hard: {acc[acc['shift'] == 'hard'].inside.mean():.1%}); "
             f"mix alarm raised on {acc[acc['shift'] == 'hard'].mix_alarm.mean():.0%} of shifted and "
             f"{acc[acc['shift'] == 'none'].mix_alarm.mean():.0%} of unshifted batches.\n")
    L.append(med.round(4).to_markdown(index=False) + '\n')
    if speed_t is not None and len(speed_t): L.append("## Speed\n" + speed_t.round(3).to_markdown(index=False) + '\n')
    return '\n'.join(L)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--datasets', default='vowel,yeast,analcatdata_dmft', help="comma-separated PMLB names in data/pmlb, or 'all'")
    p.add_argument('--models', default='fabra18', help="as build_report (its default: fabra18); 'quick' is the cheap variant")
    p.add_argument('--respondents', default='auto', help="as build_report (its default: auto); 'ladderN' = the first N of the ladder")
    p.add_argument('--alpha', type=float, default=0.1)
    p.add_argument('--delta', type=float, default=None, help="the sets' δ (default: the risk model's, 0.1; 0 = off: valid on average)")
    p.add_argument('--max-rows', type=int, default=5000, help="stratified subsample of larger sets (0: all rows)")
    p.add_argument('--batches', type=int, default=20)
    p.add_argument('--n-jobs', type=int, default=1)
    p.add_argument('--speed', default='', help="comma-separated data sets to time on --speed-rows rows")
    p.add_argument('--speed-rows', type=int, default=100_000)
    p.add_argument('--speed-repeats', type=int, default=5, help="timings per function (interleaved; the fastest counts)")
    p.add_argument('--check-jobs', action='store_true', help="also fit the first data set with n_jobs=2 and compare")
    p.add_argument('--cache', default=str(ROOT/'benchmarks'/'.cache_risk'), help="folder of the report's fit caches ('' = none)")
    p.add_argument('--tag', default='', help="suffix of the result files")
    p.add_argument('--summary-only', action='store_true', help="rewrite the summary from the tables of an earlier run (same --tag)")
    a = p.parse_args(argv)
    if a.delta == 0: a.delta = False
    if a.summary_only:
        tag = f"_{a.tag}" if a.tag else ''
        rd = lambda k: pd.read_csv(RESULTS/f'risk_{k}{tag}.csv')
        sp = rd('speed') if (RESULTS/f'risk_speed{tag}.csv').exists() else None
        info = rd('datasets')
        cov = with_se(rd('coverage'), a.alpha)
        cov.to_csv(RESULTS/f'risk_coverage{tag}.csv', index=False)
        text = summary(cov, rd('auroc'), rd('accuracy'), info.to_dict('records'), sp, a)
        old = (RESULTS/f'risk_summary{tag}.md').read_text().split('\n\nCommand: ')[-1] if (RESULTS/f'risk_summary{tag}.md').exists() else ''
        (RESULTS/f'risk_summary{tag}.md').write_text(text + ("\n\nCommand: " + old if old else '\n'))
        print(text); return
    a.datasets = pmlb_names() if a.datasets == 'all' else [s.strip() for s in a.datasets.split(',') if s.strip()]
    a.speed = [s.strip() for s in a.speed.split(',') if s.strip()]
    if a.max_rows <= 0: a.max_rows = 10**9
    parts = {k: [] for k in ('cov', 'auc', 'acc', 'speed')}
    info = []
    RESULTS.mkdir(parents=True, exist_ok=True)
    tag = f"_{a.tag}" if a.tag else ''
    for name in a.datasets:
        t0 = time.perf_counter()
        o = one_dataset(name, a)
        for k in parts:
            if k in o: parts[k].append(o[k])
        info.append(o['info'])
        print(f"{name}: {time.perf_counter() - t0:.0f} s  {o['info']}", flush=True)
        text = write(parts, info, a, tag, argv)          # after every data set: a partial run leaves its tables
    print(text)


def write(parts, info, a, tag, argv)->str:
    cov, auc, acc = (pd.concat(parts[k], ignore_index=True) for k in ('cov', 'auc', 'acc'))
    sp = pd.concat(parts['speed'], ignore_index=True) if parts['speed'] else None
    cov = with_se(cov, a.alpha)
    cov.to_csv(RESULTS/f'risk_coverage{tag}.csv', index=False)
    auc.to_csv(RESULTS/f'risk_auroc{tag}.csv', index=False)
    acc.to_csv(RESULTS/f'risk_accuracy{tag}.csv', index=False)
    pd.DataFrame(info).to_csv(RESULTS/f'risk_datasets{tag}.csv', index=False)
    if sp is not None: sp.to_csv(RESULTS/f'risk_speed{tag}.csv', index=False)
    text = summary(cov, auc, acc, info, sp, a)
    cmd = ' '.join(argv if argv is not None else sys.argv[1:])
    (RESULTS/f'risk_summary{tag}.md').write_text(text + f"\n\nCommand: nice -n 10 python benchmarks/studies/bench_risk.py {cmd}\n"
                                                 f"Data sets done: {len(info)} of {len(a.datasets)}\n")
    return text


if __name__ == '__main__':
    main()
