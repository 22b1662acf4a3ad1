"""Benchmark (issue 16, target 4): how many rows PART's trees read, against the CPU time of its fit.

    nice -n 5 python benchmarks/bench_part_rows.py [--sizes 5000 20000 50000]

`PARTClassifier` (the default, one rule per tree, as the rules pinned by the tests) grows a pruned C4.5-like tree
on the rows no rule covers yet, keeps its largest leaf as the next rule and drops the rows it covers. Any
implementation that gives the same rules must look at every remaining row once per rule (each tree's root split is
chosen on all of them), so the sum of the rows the trees are grown on, Σ|rest|, is a lower bound on the work. Its
growth exponent bounds the fit's from below, whatever the tree builder.

Data as `bench_fabra18_scale.py`: `make_classification(n, 40, n_informative=10, n_redundant=5, n_classes=3,
flip_y=0.05, random_state=0)`, standardised, the first 80 % of the rows (one training fold of a 5-fold CV), one
BLAS thread. Exponents are least-squares slopes of log(value) on log(training rows).
Results: benchmarks/results/part_rows.json.
"""
import argparse, json, os, time
from pathlib import Path
import numpy as np
from sklearn.datasets import make_classification
from threadpoolctl import threadpool_limits
import robustdiff.estimators as E

ROOT = Path(__file__).resolve().parents[1]

def fit_counting(n:int)->dict:
    "Fit PART on a training fold of n rows; count the trees and the rows each was grown on."
    X, y = make_classification(n, 40, n_informative=10, n_redundant=5, n_classes=3, flip_y=0.05, random_state=0)
    X = (X - X.mean(0)) / X.std(0); m = int(n * 0.8); X, y = X[:m], y[:m]
    grown, fit = [], E.C45TreeClassifier.fit
    def counting(self, Xr, yr): grown.append(len(Xr)); return fit(self, Xr, yr)
    E.C45TreeClassifier.fit = counting
    try:
        with threadpool_limits(1):
            c = time.process_time(); part = E.PARTClassifier(random_state=0).fit(X, y); cpu = time.process_time() - c
    finally: E.C45TreeClassifier.fit = fit
    return dict(train_rows=m, rules=len(part.rules_), trees=len(grown), rows_read=int(sum(grown)), cpu_s=round(cpu, 2))

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--sizes', type=int, nargs='*', default=[5000, 20000, 50000])
    a = ap.parse_args()
    rows = []
    for n in a.sizes:
        rows.append(fit_counting(n)); print(rows[-1], flush=True)
    m = np.log([r['train_rows'] for r in rows])
    exps = {k: round(float(np.polyfit(m, np.log([r[k] for r in rows]), 1)[0]), 2) for k in ('rules', 'rows_read', 'cpu_s')}
    res = dict(benchmark=__doc__.splitlines()[0], date=time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()),
               load_average=os.getloadavg(), fits=rows, exponents=exps,
               command='nice -n 5 python benchmarks/bench_part_rows.py ' + ' '.join(os.sys.argv[1:]))
    (ROOT/'benchmarks'/'results'/'part_rows.json').write_text(json.dumps(res, indent=1))
    print(json.dumps(exps))

if __name__ == '__main__':
    main()
