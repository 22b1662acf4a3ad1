"""Is a bin's undercoverage in bench_risk.py the risk model's fault or the subsample's? (issue 34: waveform_21, 800 rows).

bench_risk.py checks the Mondrian conformal sets on the 30 % held out of a stratified subsample (`--max-rows`). A large
PMLB set has thousands of rows outside that subsample that nothing has seen: here they are scored too ("fresh" rows),
so the coverage each fitted risk model really has (thousands of rows per bin) is separated from the luck of the
held-out draw (tens of rows per bin), and the experiment is repeated over subsample seeds.
`--leak-free SEED` repeats one fit with a single change: each fold's difficulty estimator learns IRT difficulties from
respondents and an IRT fit that never saw that fold's rows (the report's respondents are trained on the other folds,
calibration rows included), to measure how much that leak moves the coverage.
Writes benchmarks/results/risk_subsamples_<dataset>.csv: max_rows, seed, variant, rows (held_out/fresh), model, bin,
n, n_cal, coverage.
    nice -n 10 python benchmarks/checks/risk_subsamples.py --dataset waveform_21 --max-rows 800 --seeds 0-7 --extra 1500:0 --leak-free 0
"""
from __future__ import annotations
import argparse, sys, time
from pathlib import Path
import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT)); sys.path.insert(0, str(ROOT/'benchmarks'/'studies'))
from bench_risk import _split_positions
from robustdiff.datasets import load_dataset
from robustdiff.risk import _filled, _risk_regressor; from robustdiff._risk_core import _bin_of, _edges
from robustdiff.risk_fit import fit_risk
from robustdiff.conformal import conformal_sets
from robustdiff.responses import predict_labels_proba, cv_splits, response_matrix

RESULTS = ROOT/'benchmarks'/'results'


def _coverage(rm, models, cal_bins, deployed_b, X, y, k_bins, **key)->list:
    "Per model and bin, the coverage of the conformal sets on rows X (bins of the `deployed_b` estimator's b̂)."
    tb = _bin_of(deployed_b(X), rm.edges if cal_bins is None else key.pop('edges'))
    cb = rm.cal_bins if cal_bins is None else cal_bins
    out = []
    for m in models:
        cls = rm.classes[m]
        lab, P = predict_labels_proba(rm.models[m], X)
        if P is None: P = (np.asarray(lab)[:, None] == cls[None, :]).astype(float)
        pos = pd.Index(cls).get_indexer(y)
        cov = np.where(pos >= 0, conformal_sets(P, rm.cal_p_true[m], cb, tb, alpha=0.1)[np.arange(len(y)), np.maximum(pos, 0)], False)
        for k in range(k_bins):
            on = tb == k
            out.append(dict(**key, model=m, bin=k, n=int(on.sum()), n_cal=int((cb == k).sum()),
                            coverage=float(cov[on].mean()) if on.any() else np.nan))
    return out


def _leak_free(rm, tr, n_jobs):
    "Out-of-fold b̂ and the first fold's estimator when fold k's estimator learns difficulties computed without fold k's rows."
    from robustdiff.respondents import respondent_predictions, with_reliability, auto_respondents, check_respondents
    from robustdiff.irt import fit_irt
    from robustdiff.scc import difficulty_bins
    from robustdiff.difficulty_model import DifficultyEstimator
    pop = check_respondents(auto_respondents('auto', len(rm.models), tr)[0], random_state=rm.random_state)
    Xtr = _filled(tr.X, rm.fill)
    b_oof, ests = np.empty(len(tr.y)), []
    for trn, te in [(a, b) for _, _, a, b in cv_splits(tr, n_splits=5, n_repeats=1, random_state=rm.random_state)]:
        U = response_matrix(respondent_predictions(tr.subset(trn), pop, n_splits=5, n_repeats=1, random_state=rm.random_state, n_jobs=n_jobs, backend=None, progress=False, cache_dir=None))
        b = difficulty_bins(with_reliability(fit_irt(U, model='1PL')), n_bins=rm.n_bins, method='rank', extremes='clip', random_state=rm.random_state)
        b = b.set_index('instance').difficulty.sort_index()
        est = DifficultyEstimator(_risk_regressor(rm.random_state), random_state=rm.random_state).fit(
            Xtr.iloc[trn].reset_index(drop=True), pd.Series(b.to_numpy()))
        b_oof[te] = est.predict(Xtr.iloc[te]); ests.append(est)
    return b_oof, ests[0]


def one(ds, max_rows, seed, a, leak_free=False)->list:
    trp, tep = _split_positions(ds, max_rows, seed)
    fresh = np.setdiff1d(np.arange(ds.n_instances), np.r_[trp, tep])
    tr = ds.subset(trp)
    cache = str(Path(a.cache)/f'cache_{a.dataset}_{max_rows}_{seed}') if a.cache else None
    rm = fit_risk(tr, models=a.models, respondents='auto', random_state=0, n_jobs=a.n_jobs, cache_dir=cache)
    models = list(rm.models)
    y = ds.y.to_numpy()
    sets = (('held_out', tep), ('fresh', fresh))
    est_b = lambda X: rm.estimator.predict(_filled(X, rm.fill))
    out = []
    for rows, pos in sets:
        out += _coverage(rm, models, None, est_b, ds.X.iloc[pos].reset_index(drop=True), y[pos], rm.n_bins,
                         max_rows=max_rows, seed=seed, variant='report', rows=rows)
    if leak_free:
        b_oof, est = _leak_free(rm, tr, a.n_jobs)
        edges = _edges(b_oof, rm.n_bins)
        for rows, pos in sets:
            out += _coverage(rm, models, _bin_of(b_oof, edges), lambda X: est.predict(_filled(X, rm.fill)),
                             ds.X.iloc[pos].reset_index(drop=True), y[pos], rm.n_bins, edges=edges,
                             max_rows=max_rows, seed=seed, variant='leak-free difficulty targets', rows=rows)
    return out


def _seeds(spec:str)->list:
    if '-' in spec: lo, hi = map(int, spec.split('-')); return list(range(lo, hi + 1))
    return [int(s) for s in spec.split(',') if s.strip()]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--dataset', default='waveform_21')
    p.add_argument('--models', default='fabra18')
    p.add_argument('--max-rows', type=int, default=800)
    p.add_argument('--seeds', default='0-7', help="subsample seeds: '0-7' or '0,3'")
    p.add_argument('--extra', default='', help="more max_rows:seed pairs, e.g. '1500:0'")
    p.add_argument('--leak-free', default='', help="seeds (at --max-rows) to repeat with leak-free difficulty targets")
    p.add_argument('--n-jobs', type=int, default=2)
    p.add_argument('--cache', default=str(ROOT/'benchmarks'/'.cache_risk_subsamples'))
    a = p.parse_args(argv)
    ds = load_dataset(f'pmlb:{a.dataset}')
    runs = [(a.max_rows, s) for s in _seeds(a.seeds)] + [tuple(map(int, e.split(':'))) for e in a.extra.split(',') if e.strip()]
    lf = set(_seeds(a.leak_free)) if a.leak_free else set()
    rows = []
    for mr, s in runs:
        t0 = time.perf_counter()
        rows += one(ds, mr, s, a, leak_free=(mr == a.max_rows and s in lf))
        print(f"{a.dataset} max_rows={mr} seed={s}: {time.perf_counter() - t0:.0f} s", flush=True)
    out = pd.DataFrame(rows).assign(coverage=lambda d: d.coverage.round(4))
    RESULTS.mkdir(parents=True, exist_ok=True)
    out.to_csv(RESULTS/f'risk_subsamples_{a.dataset}.csv', index=False)
    top = out[out.bin == out.bin.max()]
    print(top.pivot_table(index=['variant', 'max_rows', 'seed'], columns='rows', values='coverage', aggfunc=['min', 'mean']).round(3))


if __name__ == '__main__':
    main()
