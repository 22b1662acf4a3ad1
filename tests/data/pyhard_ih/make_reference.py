"""PyHard 2.2.4's pool on breast cancer, replayed from a seeded global numpy stream: the reference of tests/test_ih_pyhard.py.

Not run by the tests (they read the CSV it writes). To regenerate, in a separate virtual environment with PyHard's own pins:

    python3.11 -m venv /tmp/phvenv && /tmp/phvenv/bin/pip install pyhard==2.2.4
    /tmp/phvenv/bin/python tests/data/pyhard_ih/make_reference.py

The same code on robustdiff's own libraries (scikit-learn 1.9, imbalanced-learn 0.14; PyHard's plotting imports
stubbed by pyhard_stubs.py, PyHard's wheel unpacked in /tmp/pyh/src) writes the `_sklearn<version>` files:

    pip install --target /tmp/phlib --no-deps imbalanced-learn==0.14.2 sklearn-compat hyperopt networkx cloudpickle future py4j
    PYTHONPATH=tests/data/pyhard_ih:/tmp/phlib:/tmp/pyh/src python tests/data/pyhard_ih/make_reference.py stubs

PyHard's `ClassifiersPool.run_all` as its `build_metadata` calls it with the shipped config.yaml (5 folds, 1 iteration,
log-loss, resampling 'over', the seven classifiers, seed 0 through PYHARD_SEED), except hyper-parameter search, which
is off (robustdiff's `pyhard7` pool has none). PyHard's SMOTE() has no random_state, so imbalanced-learn draws from
numpy's global RandomState: `np.random.seed(s)` right before `run_all` makes the run reproducible, and the same
stream is what `instance_hardness(..., resampling_stream=np.random.RandomState(s))` consumes.
Writes breast_cancer_seed<s>.csv.gz (per-instance probability of the true class per classifier, and PyHard's IH) for
resampling 'over' with s = 0 and 1, and breast_cancer_noresampling.csv.gz for resampling 'no'; with the argument `small`,
only breast_cancer_lr_svclinear_seed0.csv.gz (two classifiers, for the fast test).
"""
import os, sys
from pathlib import Path
os.environ['PYHARD_SEED'] = '0'          # what `pyhard run` sets from config.yaml's general.seed: 0
if sys.argv[1:] == ['stubs']: import pyhard_stubs   # noqa: F401  (PyHard's plotting imports, unused here)
import numpy as np, pandas as pd
from sklearn.datasets import load_breast_cancer
import sklearn, imblearn, pyhard
from pyhard.classification import ClassifiersPool

OUT = Path(__file__).resolve().parent
POOL = ['svc_linear', 'svc_rbf', 'random_forest', 'gradient_boosting', 'bagging', 'logistic_regression', 'mlp']

def run(resampling:str, seed:int|None, pool=POOL)->pd.DataFrame:
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    algos, pool = pool, ClassifiersPool(X.assign(target=y))
    if seed is not None: np.random.seed(seed)
    pool.run_all(metric='logloss', n_folds=5, n_iter=1, algo_list=algos,
                 parameters={'random_forest': {'n_jobs': 1}, 'bagging': {'n_jobs': 1}},   # config.yaml: n_jobs -1 (same result)
                 resampling=resampling, hyper_param_optm=False)
    return pool.predicted_proba.assign(IH=pool.estimate_ih()).rename_axis('instance').reset_index()

if __name__ == '__main__':
    tag = '' if sklearn.__version__.startswith('1.5.') else f'_sklearn{sklearn.__version__}'
    print('pyhard', pyhard.__version__, 'sklearn', sklearn.__version__, 'imblearn', imblearn.__version__, 'numpy', np.__version__, flush=True)
    if sys.argv[1:] == ['small']:       # the fast test's fixture: two classifiers
        run('over', 0, ['svc_linear', 'logistic_regression']).to_csv(OUT / f'breast_cancer_lr_svclinear_seed0{tag}.csv.gz', index=False, float_format='%.17g')
        sys.exit(0)
    run('no', None).to_csv(OUT / f'breast_cancer_noresampling{tag}.csv.gz', index=False, float_format='%.17g')
    for s in (0, 1):
        run('over', s).to_csv(OUT / f'breast_cancer_seed{s}{tag}.csv.gz', index=False, float_format='%.17g')
    print('written', flush=True)
