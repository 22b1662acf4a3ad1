"""[MP22] Table 2a and the metric comparison with the IRT input built as the authors' code does.

    nohup nice -n 10 python benchmarks/mp22_authors_study.py > mp22_authors.log 2>&1 &

For each of the 12 published matrices: `robustdiff.repro.mp22_irt_input` (repeated runs dropped, the five artificial
learners added), fitted in column chunks (`chunked_difficulty`; the chunk count per data set is the one that matched
the published `Dffclt` best in `benchmarks/bench_irt.py`, column `chunks` of nbs/results/mp22/irt_vs_mirt.csv),
instances with |b| > 6 dropped; then the same 2 × 5-fold difficulty estimator as nbs/50_mp22.ipynb for the five
regressors (Table 2a), and rf on AvE of the same input (metric comparison; 2PL on this input was not run).
Writes nbs/results/mp22/table2a_authors_input.csv and predictions_authors_input.csv.gz (resumable per data set).
"""
import sys, time
from pathlib import Path
import pandas as pd
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from robustdiff.responses import read_responses
from robustdiff.difficulty_model import difficulty_cv, REGRESSORS
from robustdiff.repro import mp22_irt_input, chunked_difficulty

RES = ROOT/'nbs'/'results'/'mp22'
NAMES = ['diabetes', 'kc1', 'liver-disorders', 'japaneseVowels', 'letter', 'optdigits', 'pendigits', 'satimage',
         'segment', 'vehicle', 'sat', 'tptp']
NOT_FEATURES = ['class', 'meanACC', 'Dffclt', 'Dscrmn']

def targets(name, chunks):
    U, info = read_responses(name)
    M = mp22_irt_input(U, info)
    b = chunked_difficulty(M, chunks)
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
                cv = difficulty_cv(X, d, reg, n_jobs=n_jobs)
                s = cv.summary(); s['regressor'] = reg
                summ.append(dict(dataset=name, target='authors_input', metric=metric, **s.to_dict(),
                                 chunks=int(chunks[name]), seconds=time.perf_counter() - t))
                p = cv.predictions[cv.predictions.repeat == 0]
                samp.append(p.sample(min(100, len(p)), random_state=0).assign(dataset=name, target='authors_input', metric=metric, regressor=reg))
                print(f"{name:16s} {metric:4s} {reg:7s} NRMSE {s.nrmse:.3f} rho {s.spearman:.3f} ({time.perf_counter() - t:.0f} s)", flush=True)
        pd.DataFrame(summ).to_csv(out, index=False)
        pd.concat(samp).to_csv(pout, index=False)

if __name__ == '__main__': main()
