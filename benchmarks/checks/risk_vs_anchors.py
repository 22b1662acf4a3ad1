"""Label-free accuracy head to head (issue 46 item 4): robustdiff's `estimate_accuracy` vs NannyML CBPE and the mean confidence.

The same fitted model (a `HistGradientBoostingClassifier`, seed 0) and the same calibration rows for every method: the
risk model is fitted on up to `--train` rows of each table (`fit_risk(models={'hgb': ...}, respondents=ladder of 40)`);
its deployed model is the first training fold's fit and its calibration rows are the out-of-fold rows of the report's
folds. CBPE gets exactly those out-of-fold rows (probabilities of each fold's own fit) as its reference and the
deployed model's probabilities on the batches. The other rows of the table form the pool the batches are drawn from,
scored once by `predict_risk`; every estimate reuses that scored table (`estimate_accuracy(scored)`).

Groups of batches per table: `random` (uniform draws), `hard` (drawn with weight e^{4u}, u the rank of 1 − the
model's confidence: covariate shift toward the rows the model is least sure about), `feature` (weight e^{4v}, v the
rank of one numeric feature, the one most correlated with the model's uncertainty); on NannyML's car-loan showcase also
its own analysis chunks (`chunks`: 10 × 5 000 rows, drift in the last 5). Per table and group: median |error|, the
share of batches whose interval holds the actual accuracy (robustdiff's at level 0.9; CBPE's band), the alarm rate.

NannyML runs in its own venv (`--anchors`, default /work/anchors-venv) through `benchmarks/checks/risk_anchors_cbpe.py`;
the car-loan and census tables are the ones bundled in NannyML's wheel (nothing is downloaded). The fits and the scored
pools are cached in `--cache` (a rerun after a change to the batch estimate refits nothing). Example:
    nice -n 10 python benchmarks/checks/risk_vs_anchors.py
(2 cores at load 12–20: the five fits ≈ 13 min, the estimates ≈ 9 min; `fit_seconds` and `seconds` in the JSON.)
Results: benchmarks/results/risk_vs_anchors.csv (one row per batch and method), risk_vs_anchors.md (summary),
risk_vs_anchors.json (machine, commands, timings).
"""
from __future__ import annotations
import argparse, json, os, pickle, platform, subprocess, sys, tempfile, time
for _v in ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS'): os.environ.setdefault(_v, '1')   # one thread a process: OpenMP spinning on a loaded machine costs minutes
from pathlib import Path
import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
RESULTS = ROOT/'benchmarks'/'results'
EXT = Path('/work/ext')
YEARS = {}   # table → the year of each pool row (NannyML's census table)


def _hgb():
    from sklearn.ensemble import HistGradientBoostingClassifier
    from robustdiff.portfolio import needs_prep
    return needs_prep(HistGradientBoostingClassifier(random_state=0))   # robustdiff's imputation and one-hot encoding around it


def load_tables(anchors:str, cache:Path, names:list)->dict:
    "name → (DataFrame, target, fixed chunks or None): the five tables (NannyML's from its wheel, through the anchors venv)."
    out = {}
    if {'car_loan', 'census'} & set(names):
        nd = cache/'nannyml'
        if not (nd/'car_loan_reference.parquet').exists():
            r = subprocess.run([anchors, str(ROOT/'benchmarks'/'checks'/'risk_anchors_cbpe.py'), 'data', str(nd)], capture_output=True, text=True)
            if r.returncode: raise RuntimeError(r.stderr[-2000:])
        for t, target in (('car_loan', 'repaid'), ('census', 'employed')):
            if t in names and (nd/f'{t}_reference.parquet').exists():
                ref, ana = pd.read_parquet(nd/f'{t}_reference.parquet'), pd.read_parquet(nd/f'{t}_analysis.parquet')
                if t == 'census':   # 209 000 analysis rows over 4 years: a random 30 000 of them (the year kept for its chunks)
                    ana = ana.sample(min(len(ana), 30000), random_state=0).sort_values(['year', 'id']).reset_index(drop=True)
                    YEARS[t] = ana.year.to_numpy()
                drop = [c for c in ('id', 'timestamp', 'y_pred_proba', 'y_pred', 'prediction', 'predicted_probability', 'year', 'period',
                                    'partition') if c in ref.columns]
                ref, ana = ref.drop(columns=drop), ana.drop(columns=[c for c in drop if c in ana.columns])
                ana = ana[ref.columns]
                out[t] = (pd.concat([ref, ana], ignore_index=True), target, len(ref))
    for t, f, target in (('credit', 'credit_data.csv', 'y'), ('churn', 'mlc_churn.csv', 'y'), ('hpc', 'hpc_data.csv', 'y')):
        if t in names: out[t] = (pd.read_csv(EXT/f), target, None)
    return out


def prepare(name, df, target, n_ref, a, cache:Path)->dict:
    "Fit the risk model, the out-of-fold reference probabilities and score the pool once (cached per table)."
    f = cache/f'{name}_{a.train}.pkl'
    if f.exists(): return pickle.loads(f.read_bytes()) | dict(cached=True)
    from robustdiff.data import from_frame
    from robustdiff.risk_fit import fit_risk
    from robustdiff.respondents import get_respondents
    from robustdiff.responses import cv_splits, predict_labels_proba
    from robustdiff.portfolio import model_pipeline
    from sklearn.model_selection import train_test_split
    ds = from_frame(df, target, name=name, task='classification')
    n = ds.n_instances
    rng = np.random.default_rng(0)
    if n_ref is None:      # a table without NannyML's split: `train` rows to fit on (stratified), the rest is the pool
        tr, pool = train_test_split(np.arange(n), train_size=min(a.train, n // 2), stratify=ds.y, random_state=0)
    else:                  # NannyML's reference rows to fit on (a stratified subsample), its analysis rows the pool
        tr, _ = train_test_split(np.arange(n_ref), train_size=min(a.train, n_ref - 10), stratify=ds.y.iloc[:n_ref], random_state=0)
        pool = np.arange(n_ref, n)
    tr, pool = np.sort(tr), np.sort(pool)
    train = ds.subset(tr)
    t0 = time.perf_counter()
    rm = fit_risk(train, models={'hgb': _hgb()}, respondents=get_respondents('ladder', n=40, random_state=0), random_state=0, n_jobs=a.n_jobs)
    t_fit = time.perf_counter() - t0
    folds = [(f_tr, f_te) for _, _, f_tr, f_te in cv_splits(train, n_splits=5, n_repeats=1, random_state=0)]
    cls = rm.classes['hgb']
    P_oof, pred_oof = np.zeros((train.n_instances, len(cls))), np.empty(train.n_instances, object)
    for f_tr, f_te in folds:
        pipe = model_pipeline(_hgb(), train).fit(train.X.iloc[f_tr], train.y.iloc[f_tr])
        lab, P = predict_labels_proba(pipe, train.X.iloc[f_te])
        P_oof[f_te], pred_oof[f_te] = P, lab
    Xp, yp = ds.X.iloc[pool].reset_index(drop=True), ds.y.iloc[pool].reset_index(drop=True)
    t0 = time.perf_counter()
    r = rm.predict_risk(Xp)
    t_score = time.perf_counter() - t0
    _, P_pool = predict_labels_proba(rm.models['hgb'], rm._intake(Xp)[0])
    out = dict(rm=rm, ref_P=P_oof, ref_pred=pred_oof, ref_y=train.y.to_numpy(), oof_correct=rm._oof['correct']['hgb'],
               r=r, P_pool=P_pool, y_pool=yp.to_numpy(), X_pool=Xp, t_fit=t_fit, t_score=t_score, n_train=len(tr), n_pool=len(pool))
    cache.mkdir(parents=True, exist_ok=True)
    f.write_bytes(pickle.dumps(out))
    return out


def groups(name, p, n_ref, a)->dict:
    "Group → list of position arrays into the pool."
    rng = np.random.default_rng(0)
    n = p['n_pool']
    size = a.size if name not in ('car_loan', 'census') else a.size_big
    size = min(size, n // 3)
    conf = p['r'].confidence.to_numpy()
    u = pd.Series(1 - conf).rank(pct=True).to_numpy()
    X = p['X_pool']
    num = [c for c in X.columns if pd.api.types.is_numeric_dtype(X[c]) and X[c].nunique() > 10]
    out = {}
    draw = lambda w: [rng.choice(n, size, replace=False, p=None if w is None else w / w.sum()) for _ in range(a.batches)]
    out['random'] = draw(None)
    out['hard'] = draw(np.exp(4 * u))
    if num:
        cor = {c: abs(pd.Series(X[c].to_numpy(float)).corr(pd.Series(1 - conf), method='spearman')) for c in num}
        c = max(cor, key=lambda k: np.nan_to_num(cor[k]))
        v = pd.Series(X[c].to_numpy(float)).rank(pct=True).fillna(0.5).to_numpy()
        out[f'feature'] = draw(np.exp(4 * v))
        out['_feature'] = c
    if name == 'car_loan':   # NannyML's own analysis chunks, in time order (drift in the last five)
        out['chunks'] = [np.arange(k * 5000, (k + 1) * 5000) for k in range(n // 5000)]
    if name in YEARS:        # per analysis year, 3 batches drawn from that year's rows
        yr = YEARS[name]
        out['years'] = [rng.choice(np.flatnonzero(yr == v), size, replace=False) for v in np.unique(yr) for _ in range(3)]
    return out


def cbpe(p, groups:dict, anchors:str)->dict:
    "CBPE per batch of each group (one call of the anchors venv per table; a group's batches, all of one size, concatenated in order)."
    with tempfile.TemporaryDirectory() as td:
        args = []
        for k, (grp, batches) in enumerate(groups.items()):
            f, size, idx = Path(td)/f'in{k}.npz', len(batches[0]), np.concatenate(batches)
            np.savez(f, classes=np.asarray([str(c) for c in p['rm'].classes['hgb']], object), size=size, ref_P=p['ref_P'],
                     ref_pred=np.asarray(p['ref_pred'], str), ref_y=np.asarray(p['ref_y'], str), ana_P=p['P_pool'][idx],
                     ana_pred=np.asarray(p['r'].prediction.to_numpy()[idx], str))
            args += [str(f), str(Path(td)/f'out{k}.json')]
        r = subprocess.run([anchors, str(ROOT/'benchmarks'/'checks'/'risk_anchors_cbpe.py'), 'cbpe', *args], capture_output=True, text=True)
        if r.returncode: raise RuntimeError(r.stderr[-3000:])
        return {grp: json.loads((Path(td)/f'out{k}.json').read_text())['batches'] for k, grp in enumerate(groups)}


def evaluate(name, p, g:dict, a)->pd.DataFrame:
    rm, r, y = p['rm'], p['r'], p['y_pool']
    rows = []
    groups = {grp: b for grp, b in g.items() if not grp.startswith('_')}
    t0 = time.perf_counter()
    cbs = cbpe(p, groups, a.anchors)
    t_cbpe = (time.perf_counter() - t0) / sum(map(len, groups.values()))   # per batch, the venv's start and NannyML's import included
    for grp, batches in groups.items():
        cb = cbs[grp]
        for bi, idx in enumerate(batches):
            sub = r.iloc[idx]
            actual = float((sub.prediction.to_numpy() == y[idx]).mean())
            t0 = time.perf_counter()
            e = rm.estimate_accuracy(sub)
            t_est = time.perf_counter() - t0
            t = e.table.iloc[0]
            base = dict(table=name, group=grp, batch=bi, n=len(idx), actual=actual)
            rows.append(base | dict(method='robustdiff', estimated=t.estimated, lo=t.lo, hi=t.hi, alarm=bool(e.alarm), mix_alarm=bool(e.mix_alarm),
                                    gap=t.gap, outside=t.outside, seconds=t_est))
            # robustdiff's second opinion alone: the mean of the isotonic-calibrated confidence (CBPE's calibration, on p̂max only)
            rows.append(base | dict(method='isotonic', estimated=t.estimated_confidence, lo=np.nan, hi=np.nan, alarm=False, seconds=np.nan))
            rows.append(base | dict(method='cbpe', estimated=cb[bi]['estimated'], lo=cb[bi]['lo'], hi=cb[bi]['hi'], alarm=cb[bi]['alert'],
                                    seconds=t_cbpe))
            rows.append(base | dict(method='confidence', estimated=float(sub.confidence.mean()), lo=np.nan, hi=np.nan, alarm=False, seconds=np.nan))
    d = pd.DataFrame(rows)
    d['error'] = (d.estimated - d.actual).abs()
    d['holds'] = np.where(d.lo.notna(), (d.lo <= d.actual) & (d.actual <= d.hi), np.nan)
    return d


def summary(d:pd.DataFrame)->pd.DataFrame:
    s = d.groupby(['table', 'group', 'method']).agg(batches=('batch', 'size'), actual=('actual', 'mean'), estimated=('estimated', 'mean'),
                                                   median_error=('error', 'median'), max_error=('error', 'max'), holds=('holds', 'mean'),
                                                   alarm=('alarm', 'mean')).reset_index()
    return s


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--tables', default='car_loan,census,credit,churn,hpc')
    ap.add_argument('--train', type=int, default=3000, help='rows the risk model is fitted on (a stratified subsample)')
    ap.add_argument('--size', type=int, default=300, help='batch size (the small tables)')
    ap.add_argument('--size-big', type=int, default=1000, help='batch size (the NannyML tables)')
    ap.add_argument('--batches', type=int, default=10, help='batches per group')
    ap.add_argument('--n-jobs', type=int, default=1)
    ap.add_argument('--anchors', default='/work/anchors-venv/bin/python')
    ap.add_argument('--cache', default=str(ROOT/'benchmarks'/'.cache_anchors'))
    ap.add_argument('--tag', default='')
    a = ap.parse_args(argv)
    cache = Path(a.cache)
    names = a.tables.split(',')
    t_all = time.perf_counter()
    tabs = load_tables(a.anchors, cache, names)
    res, info = [], {}
    for name in names:
        if name not in tabs: print(f"{name}: not available (skipped)"); continue
        df, target, n_ref = tabs[name]
        p = prepare(name, df, target, n_ref, a, cache)
        g = groups(name, p, n_ref, a)
        d = evaluate(name, p, g, a)
        res.append(d)
        info[name] = dict(rows=len(df), train=p['n_train'], pool=p['n_pool'], classes=len(p['rm'].classes['hgb']), fit_seconds=round(p['t_fit'], 1),
                          score_seconds=round(p['t_score'], 1), shift_feature=g.get('_feature'),
                          estimate_seconds=round(float(d[d.method == 'robustdiff'].seconds.median()), 4),
                          cbpe_seconds=round(float(d[d.method == 'cbpe'].seconds.median()), 3), cached=bool(p.get('cached', False)))
        print(name, info[name], flush=True)
        print(summary(d).to_string(index=False), flush=True)
    d = pd.concat(res, ignore_index=True)
    RESULTS.mkdir(exist_ok=True)
    d.to_csv(RESULTS/f'risk_vs_anchors{a.tag}.csv', index=False)
    s = summary(d)
    wide = s.pivot_table(index=['table', 'group'], columns='method', values=['median_error', 'holds', 'alarm']).round(4)
    wide.columns = [f'{v} {m}' for v, m in wide.columns]
    load = os.getloadavg()
    meta = dict(command='nice -n 10 python benchmarks/checks/risk_vs_anchors.py ' + ' '.join(argv or sys.argv[1:]), cpu=platform.processor() or platform.machine(),
                cores=os.cpu_count(), load=[round(x, 2) for x in load], seconds=round(time.perf_counter() - t_all, 1), tables=info)
    (RESULTS/f'risk_vs_anchors{a.tag}.json').write_text(json.dumps(meta, indent=1, default=str))
    wins = []
    for (t, grp), w in s.pivot_table(index=['table', 'group'], columns='method', values='median_error').iterrows():
        wins.append(dict(table=t, group=grp, robustdiff=w.robustdiff, cbpe=w.cbpe, ahead_or_level=bool(w.robustdiff <= w.cbpe + 0.002)))
    ov = d.groupby('method').agg(batches=('batch', 'size'), median_error=('error', 'median'), holds=('holds', 'mean')).round(4)
    ov['alarm_random'] = d[d.group == 'random'].groupby('method').alarm.mean().round(3)
    ov['alarm_shifted'] = d[d.group.isin(['hard', 'feature'])].groupby('method').alarm.mean().round(3)
    md = [f"# Label-free accuracy: robustdiff vs NannyML CBPE\n", f"`{meta['command']}`; {meta['cores']} cores, load {meta['load']}, "
          f"{meta['seconds']} s. The same deployed model (HistGradientBoosting, robustdiff's first training fold) for every method; "
          f"robustdiff's risk and isotonic curves and CBPE's reference are the same out-of-fold rows. robustdiff's interval is at "
          f"level 0.9; CBPE's is its ±3 SE band. `isotonic`: robustdiff's second opinion alone (the mean isotonic-calibrated "
          f"confidence); `confidence`: the mean raw confidence. robustdiff's alarm: the mix test, rows outside the calibrated range, "
          f"or its two estimates apart; CBPE's: its estimate beyond thresholds from its reference chunks (with 5 000-row chunks "
          f"and fewer reference rows, as for car_loan's `chunks`, those thresholds are not meaningful).\n", "## Over every batch\n", ov.to_markdown(),
          "\n## Per table and group (median |error|, share of intervals holding, alarm rate)\n",
          wide.to_markdown(), "\n## robustdiff ahead or level (within 0.002) of CBPE\n", pd.DataFrame(wins).to_markdown(index=False),
          "\n## Tables\n", pd.DataFrame(info).T.to_markdown()]
    (RESULTS/f'risk_vs_anchors{a.tag}.md').write_text('\n'.join(md) + '\n')
    print('\n'.join(md))


if __name__ == '__main__':
    main()
