"""Write a synthetic table as CSV for the whole-report benchmarks (the data `bench_pipeline.py` uses).

    python benchmarks/tools/make_csv.py --rows 50000 --out /tmp/mc50k.csv
    python benchmarks/tools/measure.py --out report_mc50k_quick -- robustdiff report /tmp/mc50k.csv --target target \
        --models quick --n-jobs 2 --out /tmp/mc50k-report

`make_classification(rows, 20, n_informative=10, n_classes=3, random_state=0)`, columns x0..x19 and `target`.
"""
import argparse
import pandas as pd
from sklearn.datasets import make_classification

if __name__ == '__main__':
    ap = argparse.ArgumentParser()
    ap.add_argument('--rows', type=int, default=50000)
    ap.add_argument('--features', type=int, default=20)
    ap.add_argument('--out', required=True)
    a = ap.parse_args()
    X, y = make_classification(a.rows, a.features, n_informative=10, n_classes=3, random_state=0)
    pd.DataFrame(X, columns=[f'x{i}' for i in range(a.features)]).assign(target=y).to_csv(a.out, index=False)
