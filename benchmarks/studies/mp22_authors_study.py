"""[MP22] Table 2a and the metric comparison with the IRT input built as the authors' code does.

    nohup nice -n 10 python benchmarks/studies/mp22_authors_study.py > mp22_authors.log 2>&1 &

For each of the 12 published matrices: `robustdiff.repro.mp22_irt_input` (repeated runs dropped, the five artificial
learners added), fitted in column chunks (`chunked_difficulty`; the chunk count per data set is the one that matched
the published `Dffclt` best in `benchmarks/timings/bench_irt.py`, column `chunks` of nbs/results/mp22/irt_vs_mirt.csv),
instances with |b| > 6 dropped; then the same 2 × 5-fold difficulty estimator as nbs/50_mp22.ipynb for the five
regressors (Table 2a), and rf on AvE of the same input (metric comparison; 2PL on this input was not run).
Writes nbs/results/mp22/table2a_authors_input.csv and predictions_authors_input.csv.gz (resumable per data set).

    nohup nice -n 10 python benchmarks/studies/mp22_authors_study.py estimator > mp22_estimator.log 2>&1 &

`estimator`: the authors' published difficulties (`Dffclt`) as the target, so that only the estimator side varies, one
variable at a time against our defaults (`baseline`): `authors` = the regressors as the authors' caret call runs them
(`get_regressor(..., tuning='authors')`: `tuneLength = 1`, ranger with 1000 trees and mtry = p/3, unscaled kNN, ...);
`authors_sqrt` = the same with mtry = √p (older caret releases / ranger's own default); `clip3` = our defaults with
`Dffclt` clamped to [−3, 3] instead of dropped beyond ±6 (`croppDiffs(orig.irt, Diff.filter, cropp = F)` of
Diffmodel.R, whose commented default is `Diff.filter <- 3`); `authors_clip3` = both; `caret` = caret's default
tuning (`tuning='caret'`: tuneLength = 3 grid, 25 bootstrap resamples); `holdout`: ρ on the training 70 % and the held-out 30 % of the authors' single split
(nbs/results/mp22/table2a_holdout.csv). `authors_class` = `authors` with the data
set's class column among the features (Diffmodel.R fits `train(Dffclt ~ ., data = datos_train)` on the published
per-instance table, whose `class` column the formula's `.` takes in unless the unpublished driver drops it). Writes
nbs/results/mp22/table2a_dffclt_variants.csv (resumable per variant × data set × regressor).
"""
import sys, time
from pathlib import Path
import pandas as pd
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from robustdiff.datasets import read_responses
from robustdiff.difficulty_model import difficulty_cv, REGRESSORS
from robustdiff.repro import mp22_irt_input, chunked_difficulty

RES = ROOT/'nbs'/'results'/'mp22'
NAMES = ['diabetes', 'kc1', 'liver-disorders', 'japaneseVowels', 'letter', 'optdigits', 'pendigits', 'satimage',
         'segment', 'vehicle', 'sat', 'tptp']
NOT_FEATURES = ['class', 'meanACC', 'Dffclt', 'Dscrmn']

def targets(name, chunks):
    U, info = read_responses(name)
    M = mp22_irt_input(U, info)
    b = chunked_difficulty(M, chunks=chunks)
    one = b[(b.status == 'ok') & (b.difficulty.abs() <= 6)].difficulty
    ave = 1 - M.mean(0)
    return info.drop(columns=NOT_FEATURES), {'1PL': one, 'AvE': ave}

def main(n_jobs=1):
    chunks = pd.read_csv(RES/'irt_vs_mirt.csv').set_index('dataset').chunks
    out, pout = RES/'table2a_authors_input.csv', RES/'predictions_authors_input.csv.gz'
    summ = pd.read_csv(out).to_dict('records') if out.exists() else []
    samp = [pd.read_csv(pout)] if pout.exists() else []
    done = {r['dataset'] for r in summ}
    for name in NAMES:
        if name in done: continue
        X, tg = targets(name, int(chunks[name]))
        for metric, regs in [('1PL', list(REGRESSORS)), ('AvE', ['rf'])]:
            d = tg[metric]
            for reg in regs:
                t = time.perf_counter()
                cv = difficulty_cv(X, d, regressor=reg, n_jobs=n_jobs)
                s = cv.summary(); s['regressor'] = reg
                summ.append(dict(dataset=name, target='authors_input', metric=metric, **s.to_dict(),
                                 chunks=int(chunks[name]), seconds=time.perf_counter() - t))
                p = cv.predictions[cv.predictions.repeat == 0]
                samp.append(p.sample(min(100, len(p)), random_state=0).assign(dataset=name, target='authors_input', metric=metric, regressor=reg))
                print(f"{name:16s} {metric:4s} {reg:7s} NRMSE {s.nrmse:.3f} rho {s.spearman:.3f} ({time.perf_counter() - t:.0f} s)", flush=True)
        pd.DataFrame(summ).to_csv(out, index=False)
        pd.concat(samp).to_csv(pout, index=False)

VARIANTS = {'baseline': dict(tuning=None, clip=None), 'authors': dict(tuning='authors', clip=None),
            'authors_sqrt': dict(tuning='authors', clip=None, mtry='sqrt'), 'clip3': dict(tuning=None, clip=3.0),
            'authors_clip3': dict(tuning='authors', clip=3.0), 'caret': dict(tuning='caret', clip=None),
            'authors_class': dict(tuning='authors', clip=None, with_class=True)}

def estimator(variants, regressors, datasets, n_jobs=2):
    from robustdiff.difficulty_model import get_regressor, _caret_model
    out = RES/'table2a_dffclt_variants.csv'
    rows = pd.read_csv(out).to_dict('records') if out.exists() else []
    done = {(r['variant'], r['dataset'], r['regressor']) for r in rows}
    for variant in variants:
        v = VARIANTS[variant]
        for name in datasets:
            U, info = read_responses(name)
            X = info.drop(columns=[c for c in NOT_FEATURES if not (c == 'class' and v.get('with_class'))])
            if v.get('with_class'): X['class'] = X['class'].astype(str)      # `Dffclt ~ .` sees the class column (a factor)
            d = info.Dffclt.clip(-v['clip'], v['clip']) if v['clip'] else info.Dffclt[info.Dffclt.abs() <= 6]
            for reg in regressors:
                if (variant, name, reg) in done: continue
                t = time.perf_counter()
                if v.get('mtry'):
                    model = _caret_model('rf', dict(mtry=v['mtry'], splitrule='variance', trees=1000), 0, 1)
                    cv = difficulty_cv(X, d, regressor=model, n_jobs=n_jobs)
                else:
                    cv = difficulty_cv(X, d, regressor=reg, n_jobs=n_jobs, tuning=v['tuning'])
                s = cv.summary()
                rows.append(dict(variant=variant, dataset=name, regressor=reg, n=len(d), nrmse=s.nrmse, nrmse_sd=s.nrmse_sd,
                                 spearman=s.spearman, spearman_sd=s.spearman_sd, spearman_pooled=s.spearman_pooled,
                                 seconds=time.perf_counter() - t))
                pd.DataFrame(rows).to_csv(out, index=False)
                print(f"{variant:14s} {name:16s} {reg:7s} NRMSE {s.nrmse:.3f} rho {s.spearman:.3f} ({time.perf_counter() - t:.0f} s)", flush=True)

def holdout(datasets, n_jobs=2):
    """Which ρ does the paper tabulate? Diffmodel.R splits 70/30 (`createDataPartition(y = Dffclt, p = 0.7)`, seed 288)
    and `extractPrediction` returns predictions on both parts (`dataType` Training / Test), ρ = cor(obs, pred, "spearman")
    per part. The same with the authors' rf settings and `Dffclt` as target: ρ on the 70 % it was trained on and on the
    held-out 30 % (the split stratified by quintiles of Dffclt, as createDataPartition does for a numeric y)."""
    import numpy as np
    from scipy.stats import spearmanr
    from robustdiff.difficulty_model import DifficultyEstimator
    out = RES/'table2a_holdout.csv'
    rows = pd.read_csv(out).to_dict('records') if out.exists() else []
    done = {r['dataset'] for r in rows}
    for name in datasets:
        if name in done: continue
        t = time.perf_counter()
        U, info = read_responses(name)
        y = info.Dffclt[info.Dffclt.abs() <= 6]
        X = info.drop(columns=NOT_FEATURES).loc[y.index]
        rng = np.random.default_rng(288)
        q = pd.qcut(y.rank(method='first'), 5, labels=False).to_numpy()
        tr = np.sort(np.concatenate([rng.choice(np.flatnonzero(q == g), int(np.ceil(0.7 * (q == g).sum())), replace=False) for g in range(5)]))
        te = np.setdiff1d(np.arange(len(y)), tr)
        m = DifficultyEstimator('rf', tuning='authors', n_jobs=n_jobs).fit(X.iloc[tr], y.iloc[tr])
        rows.append(dict(dataset=name, n_train=len(tr), n_test=len(te),
                         rho_train=spearmanr(m.predict(X.iloc[tr]), y.iloc[tr])[0], rho_test=spearmanr(m.predict(X.iloc[te]), y.iloc[te])[0],
                         seconds=time.perf_counter() - t))
        pd.DataFrame(rows).to_csv(out, index=False)
        print(f"holdout {name:16s} rho train {rows[-1]['rho_train']:.3f} test {rows[-1]['rho_test']:.3f} ({rows[-1]['seconds']:.0f} s)", flush=True)

if __name__ == '__main__':
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('part', nargs='?', default='authors_input', choices=['authors_input', 'estimator', 'holdout'])
    ap.add_argument('--variants', nargs='*', default=['baseline', 'authors', 'clip3', 'authors_sqrt', 'authors_clip3'])
    ap.add_argument('--regressors', nargs='*', default=['rf'])
    ap.add_argument('--datasets', nargs='*', default=NAMES)
    ap.add_argument('--n_jobs', type=int, default=2)
    a = ap.parse_args()
    if a.part == 'authors_input': main()
    elif a.part == 'holdout': holdout(a.datasets, a.n_jobs)
    else: estimator(a.variants, a.regressors, a.datasets, a.n_jobs)
