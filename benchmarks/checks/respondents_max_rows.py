"""Benchmark (issue 36): what bounding the ladder respondents' training rows (`SubsetClassifier.max_rows`,
`get_respondents(max_rows=)`) does to the 1PL difficulties, and what it saves.

    nice -n 10 python benchmarks/checks/respondents_max_rows.py /tmp/dl3/diamonds.csv --target cut --rows 5000 --caps 1000,2000
    nice -n 10 python benchmarks/checks/respondents_max_rows.py /tmp/dl3/diamonds.csv --target cut --fold-cost 5 --caps 10000

The table (e.g. diamonds from plotnine's wheel, kept outside the repository) is cut to a stratified sample of `--rows`
rows (seed 0). The whole ladder (240 respondents, 5 folds, seed 0) answers without a bound; then the respondents whose
draw exceeds each bound answer again with it, and the difficulties of the two response matrices are compared: Spearman
(±∞ for all-right/all-wrong instances), the share of instances that stay in their difficulty quintile, the split-half
reliability (median Spearman of 5 splits) and the mean accuracy the bounded respondents lose; also ladder:120 against
the 240. A bound of b rows on a fold of t training rows stands for the same ratio on a larger table (1 000 of 4 000 ≈
10 000 of the 43 152 of diamonds): on the smaller table a learning curve is steeper, so the measured change is an upper
bound of the change at full size.
`--fold-cost K`: the CPU (one thread) of fitting and answering the first fold of the whole table for every K-th
respondent, without and with the bound, by family and budget.
Results: benchmarks/results/respondents_max_rows[_fold].json.
"""
import argparse, json, resource, sys, time, warnings
from pathlib import Path
import numpy as np, pandas as pd

def cpu():
    return sum(resource.getrusage(w)[0] + resource.getrusage(w)[1] for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))

def inner(e): return e.steps[-1][1] if hasattr(e, 'steps') else e

def effect(ds, caps):
    from robustdiff.respondents import get_respondents, respondent_predictions, split_half_reliability, _statused_difficulty, _spearman
    from robustdiff.responses import response_matrix
    from robustdiff.irt import fit_irt
    t = cpu(); U = response_matrix(respondent_predictions(ds, get_respondents('ladder', n=240, max_rows=None), progress=False)); c_full = cpu() - t
    d_full = _statused_difficulty(fit_irt(U, model='1PL'))
    rel = split_half_reliability(U, n_repeats=5, random_state=0)
    n_train = int(round(ds.n_instances * 0.8))
    out = dict(rows=ds.n_instances, train_rows=n_train, cpu_ladder_unbounded=round(c_full, 1),
               split_half_240=round(rel.spearman.median(), 4), split_half_sb_240=round(rel.spearman_brown.median(), 4))
    out['rho_ladder120_vs_240'] = round(_spearman(_statused_difficulty(fit_irt(U.iloc[:120], model='1PL')), d_full), 4)
    out['split_half_120'] = round(split_half_reliability(U.iloc[:120], n_repeats=5, random_state=0).spearman.median(), 4)
    q = lambda d: pd.qcut(pd.Series(d).rank(method='first'), 5, labels=False).to_numpy()
    for cap in caps:
        pop = get_respondents('ladder', n=240, max_rows=cap)
        hit = {k: e for k, e in pop.items() if not isinstance(inner(e).max_samples, (int, np.integer)) and inner(e).max_samples * n_train > cap}
        t = cpu(); Uc = response_matrix(respondent_predictions(ds, hit, progress=False)); c_cap = cpu() - t
        t = cpu(); respondent_predictions(ds, {k: get_respondents('ladder', n=240, max_rows=None)[k] for k in hit}, progress=False); c_free = cpu() - t
        Ucap = U.copy(); Ucap.loc[Uc.index] = Uc.loc[:, U.columns].to_numpy()
        d_cap = _statused_difficulty(fit_irt(Ucap, model='1PL'))
        out[f'max_rows_{cap}'] = dict(n_bounded=len(hit), rho_vs_unbounded=round(_spearman(d_cap, d_full), 4),
                                      same_quintile=round(float((q(d_full) == q(d_cap)).mean()), 4),
                                      split_half=round(split_half_reliability(Ucap, n_repeats=5, random_state=0).spearman.median(), 4),
                                      accuracy_lost=round(float((U.loc[list(hit)].mean(1) - Ucap.loc[list(hit)].mean(1)).mean()), 4),
                                      cpu_bounded=round(c_cap, 1), cpu_unbounded=round(c_free, 1))
        print(json.dumps(out), flush=True)
    return out

def fold_cost(ds, step, cap):
    from threadpoolctl import threadpool_limits
    from robustdiff.responses import cv_splits, _run_batch
    from robustdiff.respondents import get_respondents, check_respondents, respond_fold as _respond_fold
    threadpool_limits(1)
    _, _, tr, te = cv_splits(ds, n_splits=5, n_repeats=1, random_state=0)[0]
    rows = []
    for tag, mr in (('bounded', cap), ('unbounded', None)):
        pop = check_respondents(get_respondents('ladder', n=240, max_rows=mr), random_state=0)
        for nm in list(pop)[::step]:
            c = time.process_time()
            _run_batch(0, _respond_fold, ds, 0, [(0, nm, pop[nm], 0, 0, tr, te)])
            rows.append(dict(tag=tag, name=nm, family=nm.split('_')[0], budget=nm.split('_')[2], cpu=time.process_time() - c))
    df = pd.DataFrame(rows)
    print(df.pivot_table(index=['family', 'budget'], columns='tag', values='cpu', aggfunc='sum').round(2).to_string())
    tot = df.groupby('tag').cpu.sum()
    return dict(rows=ds.n_instances, train_rows=len(tr), every=step, max_rows=cap, cpu_by_family=df.groupby(['tag', 'family']).cpu.sum().round(2).unstack().to_dict(),
                cpu_sampled=tot.round(2).to_dict(), cpu_whole_ladder_estimate=(tot * step * 5).round(0).to_dict())

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('csv'); ap.add_argument('--target', required=True)
    ap.add_argument('--rows', type=int, default=5000); ap.add_argument('--caps', default='1000,2000')
    ap.add_argument('--fold-cost', type=int, default=0)
    a = ap.parse_args()
    warnings.simplefilter('ignore')
    from robustdiff.data import from_frame
    from robustdiff.tables import from_file
    caps = [int(c) for c in a.caps.split(',')]
    if a.fold_cost:
        res = fold_cost(from_file(a.csv, target=a.target), a.fold_cost, caps[0]); name = 'respondents_max_rows_fold.json'
    else:
        from sklearn.model_selection import train_test_split
        df = pd.read_csv(a.csv)
        keep, _ = train_test_split(np.arange(len(df)), train_size=a.rows, stratify=df[a.target], random_state=0)
        ds = from_frame(df.iloc[np.sort(keep)].reset_index(drop=True), a.target, name=f'{Path(a.csv).stem}_{a.rows}')
        res = effect(ds, caps); name = 'respondents_max_rows.json'
    res.update(command='python benchmarks/checks/respondents_max_rows.py ' + ' '.join(sys.argv[1:]),
               date=time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()), load_after=[round(x, 2) for x in __import__('os').getloadavg()])
    print(json.dumps(res, indent=1))
    (Path(__file__).resolve().parents[1]/'results'/name).write_text(json.dumps(res, indent=1))

if __name__ == '__main__': main()
