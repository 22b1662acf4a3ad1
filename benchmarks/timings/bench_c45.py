"""Benchmark: `PARTClassifier` (Weka's PART) and `C45Classifier` (Weka's J48) fit times, one core.

    nice -n 10 python benchmarks/timings/bench_c45.py [--sizes 4000 10000 20000 40000]

Data as `bench_fabra18_scale.py`: `make_classification(n, 40, n_informative=10, n_redundant=5,
n_classes=3, flip_y=0.05, random_state=0)` (waveform-like: 40 numeric attributes, 3 classes, 5 % label noise),
standardised, the first 80 % of the rows (one training fold of a 5-fold CV), one BLAS thread.
1. PART: CPU seconds of the fit, the number of rules, the rows the partial trees were started on (Σ over rules of
   the rows not yet covered: any PART reads each of them once per rule) and the rows every split search examined
   (Σ over the nodes whose test was searched). Growth exponents: least-squares slopes of log(value) on
   log(training rows) over the sizes.
2. J48 against scikit-learn's `DecisionTreeClassifier(criterion='entropy')` on the same rows, in the same run.
Results: benchmarks/results/c45.json (with the machine's load average, which inflates CPU time on a shared machine).
"""
import argparse, json, os, sys, time
from pathlib import Path
import numpy as np
from sklearn.datasets import make_classification
from sklearn.tree import DecisionTreeClassifier
from threadpoolctl import threadpool_limits
import robustdiff.c45 as C

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parents[1]/'tools'))
from harness import write_result


def data(n):
    X, y = make_classification(n, 40, n_informative=10, n_redundant=5, n_classes=3, flip_y=0.05, random_state=0)
    X = (X - X.mean(0)) / X.std(0); m = int(n * 0.8)
    return X[:m], y[:m]


def part(X, y):
    "Fit PART, counting the rows each partial tree starts on and the rows every split search examines."
    started, examined = [], []
    build, select = C._PartialTree.build, C._Grower.select
    def counting_select(self, rows, counts, order=None, parent=None): examined.append(len(rows)); return select(self, rows, counts, order, parent)
    C._Grower.select = counting_select
    try:
        c = time.process_time(); p = C.PARTClassifier().fit(X, y); cpu = time.process_time() - c
    finally: C._Grower.select = select
    rest, n = len(y), []
    for conds, counts in p.rules_: n.append(rest); rest -= int(counts.sum())
    return dict(cpu_s=round(cpu, 2), rules=p.n_rules_, rows_started=int(sum(n)), rows_examined=int(sum(examined)))


def j48_vs_sklearn(X, y):
    c = time.process_time(); sk = DecisionTreeClassifier(criterion='entropy', random_state=0).fit(X, y); t_sk = time.process_time() - c
    c = time.process_time(); j = C.C45Classifier().fit(X, y); t_j = time.process_time() - c
    return dict(j48_cpu_s=round(t_j, 2), j48_leaves=j.n_leaves_, sklearn_cpu_s=round(t_sk, 2),
                sklearn_leaves=int(sk.get_n_leaves()), ratio=round(t_j / t_sk, 2))


def slope(x, v): return round(float(np.polyfit(np.log(x), np.log(v), 1)[0]), 2)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--sizes', type=int, nargs='*', default=[4000, 10000, 20000, 40000])
    ap.add_argument('--out', default=str(ROOT/'benchmarks'/'results'/'c45.json'))
    a = ap.parse_args()
    rows = []
    with threadpool_limits(1):
        for n in a.sizes:
            X, y = data(n)
            r = dict(n=n, train_rows=len(y), load_before=round(os.getloadavg()[0], 2), **part(X, y), **j48_vs_sklearn(X, y))
            print(r, flush=True); rows.append(r)
    t = [r['train_rows'] for r in rows]
    summary = {f'exponent_{k}': slope(t, [r[k] for r in rows]) for k in ('cpu_s', 'rules', 'rows_started', 'rows_examined', 'j48_cpu_s')}
    out = dict(rows=rows, summary=summary, cpu=os.cpu_count(), note='CPU seconds (process_time), one BLAS thread, nice -n 10')
    print(summary)
    write_result(a.out, out)


if __name__ == '__main__':
    main()
