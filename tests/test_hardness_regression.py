"""Regression instance hardness against PyHard 2.2.4 (issue #48): the 15 measures and the regressor pool's IH.

The fixtures in tests/data/pyhard_reg were written by PyHard itself (make_reference.py there): `NAME_measures.csv.gz` and
`NAME_pool.csv.gz` in PyHard's own environment (numpy 1.23.5, scikit-learn 1.5.2, PYHARD_SEED=0); `NAME_*_stack.csv.gz`
by PyHard 2.2.4's own `measures.py` / `regression.py` source executed on robustdiff's environment. PyHard is not
needed here.
"""
import json, tracemalloc
from pathlib import Path
import numpy as np, pandas as pd, pytest
from sklearn.datasets import load_diabetes
from robustdiff.data import Dataset
from robustdiff.hardness import (REG_MEASURES, hardness_measures, _argpartition_np123, _argsort_np123, _reg_design,
                                 _regression_measures, _sklearn_neighbours)
from robustdiff.ih import instance_hardness, pyhard_regressors

REF = Path(__file__).parent / 'data' / 'pyhard_reg'
TREES = ['DS', 'TD_P']        # carseats: scikit-learn 1.5.2 and the installed version grow different trees on it


def _carseats():
    df = pd.read_csv(REF / 'carseats.csv')
    y = df.pop('Sales')
    return Dataset('carseats', df, y, nominal=('ShelveLoc', 'Urban', 'US'), task='regression')


def _diabetes():
    X, y = load_diabetes(return_X_y=True, as_frame=True)
    return Dataset('diabetes', X, y, task='regression')


def _college():
    from robustdiff.datasets import load_dataset
    return load_dataset('reg:college')      # the bundled table; its one nominal column, Private, enters one-hot


TABLES = {'carseats': _carseats, 'diabetes': _diabetes, 'college': _college}


@pytest.fixture(scope='module')
def ours():
    return {name: hardness_measures(make()) for name, make in TABLES.items()}


def _off(a, b, tol=1e-6):
    "Measures where two frames differ by more than tol."
    return [m for m in REG_MEASURES if not np.allclose(a[m].to_numpy(), b[m].to_numpy(), rtol=0, atol=tol)]


def test_design_is_pyhards_input():
    "PyHard saw the numeric columns, then each nominal one-hot (levels sorted): the same matrix, column for column."
    meta = json.loads((REF / 'carseats_meta.json').read_text())
    df = pd.read_csv(REF / 'carseats.csv')
    X = _reg_design(_carseats())
    test = pd.get_dummies(df.drop(columns='Sales'), dtype=float)
    test = test[[c.replace('=', '_') for c in meta['columns'][:-1]]]
    np.testing.assert_array_equal(X, test.to_numpy())


@pytest.mark.parametrize('name', list(TABLES))
def test_measures_equal_pyhard(ours, name):
    "All 15 on diabetes and college; on carseats all but the two that read a tree scikit-learn 1.5.2 grows otherwise (next test)."
    ref = pd.read_csv(REF / f'{name}_measures.csv.gz')
    test_cols = list(REG_MEASURES)
    assert list(ours[name].columns) == test_cols
    off = _off(ours[name], ref)
    assert off == (TREES if name == 'carseats' else []), off
    assert ours[name].attrs['ccp_alpha'] == json.loads((REF / f'{name}_meta.json').read_text())['ccp_alpha'] or name == 'carseats'


@pytest.mark.parametrize('name', list(TABLES))
def test_measures_equal_pyhards_code_on_this_stack(ours, name):
    """PyHard's own measures.py run on the installed numpy / scikit-learn gives our numbers for every measure but S2,
    where it walks tied targets in numpy 2's order; ours keeps PyHard 2.2.4's (numpy 1.23's) order, checked above."""
    stack = pd.read_csv(REF / f'{name}_measures_stack.csv.gz')
    assert _off(ours[name], stack) == ['S2']
    if name == 'carseats':      # the tree measures that differ from PyHard's pinned run are the installed tree's
        pinned = pd.read_csv(REF / 'carseats_measures.csv.gz')
        assert _off(stack, pinned) == ['S2'] + TREES


def test_argsort_is_numpy_123s():
    z = np.load(REF / 'argsort_np123.npz')
    for i in range(7):
        v = z[f'v{i}']
        np.testing.assert_array_equal(_argsort_np123(v), z[f'idx{i}'])
        assert np.all(np.diff(v[_argsort_np123(v)]) >= 0)
    assert any(not np.array_equal(np.argsort(z[f'v{i}']), z[f'idx{i}']) for i in range(7))   # the installed sort differs


def test_argpartition_is_numpy_123s():
    "S3's neighbour search: numpy 1.23.5's argpartition on tied, sorted, reversed and rolled arrays (median of medians included)."
    z = np.load(REF / 'argpartition_np123.npz')
    for i in range(len(z.files) // 3):
        np.testing.assert_array_equal(_argpartition_np123(z[f'v{i}'], int(z[f'k{i}'])), z[f'idx{i}'])
    d = np.array([0.3, 0., 0.1, 0.2, 0.2, 0.2, 0.2, 0.5, 0.2])            # row 1 itself; five rows tie at 0.2 for three places
    nn = _sklearn_neighbours(d, 1, 5)
    assert 1 not in nn and {2}.issubset(nn) and set(nn) <= {2, 3, 4, 5, 6, 8} and len(set(nn)) == 5
    assert set(nn) == set(_argpartition_np123(d, 5)[:6]) - {1}


def test_same_seed_same_result_and_blocks_do_not_matter():
    ds = _carseats()
    a = hardness_measures(ds)
    b = hardness_measures(ds, block_rows=7)
    pd.testing.assert_frame_equal(a, b)


def test_no_n_by_n_memory():
    "4 000 rows: a dense distance matrix is 128 MB; the whole computation peaks below a fifth of it (blocks of ~4 MB)."
    rng = np.random.default_rng(0)
    n = 4000
    X = pd.DataFrame(rng.normal(size=(n, 6)), columns=list('abcdef'))
    y = X.a * 2 + np.sin(X.b * 3) + rng.normal(scale=0.3, size=n)
    ds = Dataset('sim', X, y, task='regression')
    hardness_measures(ds, measures=['S1'])                 # compile the kernels outside the measurement
    tracemalloc.start()
    out = hardness_measures(ds)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 0.2 * n * n * 8, peak
    assert ((out >= 0) & (out <= 1)).all().all()


def test_bad_input_is_named():
    ds = _diabetes()
    with pytest.raises(ValueError, match=r"\['k', 'metric'\] are options of the classification measures; 'diabetes' is a regression"):
        hardness_measures(ds, k=5, metric='gower')
    with pytest.raises(ValueError, match='unknown regression measures'):
        hardness_measures(ds, measures=['kDN'])
    X = ds.X.copy(); X.iloc[3, 2] = np.nan
    with pytest.raises(ValueError, match=r"'gappy' has missing values in \['bmi'\]"):
        hardness_measures(Dataset('gappy', X, ds.y, missing='impute', task='regression'))


def test_cc_where_pyhard_divides_by_zero():
    "A row with fewer than two rows at distance ≥ 0.15 has no CC in PyHard (0/0): it is 1 here, and everything stays in [0, 1]."
    x = np.r_[np.linspace(0, 0.1, 11), 1.0]
    ds = Dataset('tight', pd.DataFrame({'x': x}), np.arange(12.), task='regression')
    out, _ = _regression_measures(ds, ('D', 'CC'))
    deg = out['D'] * 11
    assert (deg[:-1] == 1).all() and (out['CC'][:-1] == 1).all() and 0 <= out['CC'][-1] <= 1


FOUR = ('bayesian_ard', 'extra_tree', 'kernel_ridge', 'svr_nu')   # equal to PyHard's pinned run on all three tables


@pytest.mark.parametrize('name', list(TABLES))
def test_ih_equals_pyhards_pool(name):
    ds = TABLES[name]()
    ref = pd.read_csv(REF / f'{name}_pool.csv.gz')
    ih = instance_hardness(ds, models={k: v for k, v in pyhard_regressors().items() if k in FOUR})
    W = ih.wide_losses('p_true')
    for m in FOUR: np.testing.assert_allclose(W[m].to_numpy(), ref[m].to_numpy(), rtol=0, atol=1e-9)
    np.testing.assert_allclose(ih.ih.to_numpy(), 1 - ref[list(FOUR)].mean(1).to_numpy(), rtol=0, atol=1e-9)
    np.testing.assert_array_equal(ih.wide_losses('good').to_numpy(), ih.wide_losses('abs_error').to_numpy() <= ds.tolerance)
    assert ih.regression and ih.threshold == ds.tolerance


def test_ih_other_regressors_are_pyhards_code_on_this_stack():
    "The regressors scikit-learn 1.5.2 fits otherwise on carseats give what PyHard's regression.py gives on the installed one."
    ds, names = _carseats(), ('ada_boost', 'decision_tree', 'gradient_boosting', 'mlp')
    pinned, stack = pd.read_csv(REF / 'carseats_pool.csv.gz'), pd.read_csv(REF / 'carseats_pool_stack.csv.gz')
    W = instance_hardness(ds, models={k: v for k, v in pyhard_regressors().items() if k in names}).wide_losses('p_true')
    for m in names:
        np.testing.assert_allclose(W[m].to_numpy(), stack[m].to_numpy(), rtol=0, atol=1e-9)
    assert any(np.abs(W[m].to_numpy() - pinned[m].to_numpy()).max() > 1e-3 for m in names)


def test_ih_refuses_class_options():
    with pytest.raises(ValueError, match="resample classes; 'diabetes' is a regression dataset"):
        instance_hardness(_diabetes(), resampling='over')


def test_the_report_stages_read_a_regression_report():
    "The hardness and instance-space stages on a regression context: PyHard's measures, IH from the evaluated models' errors, good = ds.right."
    from types import SimpleNamespace
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import KFold, cross_val_predict
    from sklearn.neighbors import KNeighborsRegressor
    from sklearn.tree import DecisionTreeRegressor
    from robustdiff import hardness_report, isa_report
    ds = _carseats()
    X, y = _reg_design(ds), ds.y.to_numpy(float)
    models = {'ridge': Ridge(), 'tree': DecisionTreeRegressor(max_depth=4, random_state=0), 'knn': KNeighborsRegressor()}
    rows = []
    for m, est in models.items():
        pred = cross_val_predict(est, X, y, cv=KFold(5, shuffle=True, random_state=0))
        rows.append(pd.DataFrame({'model': m, 'repeat': 0, 'fold': 0, 'instance': np.arange(len(y)), 'y_true': y, 'y_pred': pred,
                                  'correct': ds.right(y, pred), 'p_true': np.nan, 'p_max': np.nan}))
    oof = pd.concat(rows, ignore_index=True)
    ctx = SimpleNamespace(cfg={'ih_pool': 'models', 'hardness_models': 'pyhard7'}, ds=ds, measures=None, instance_hardness=None,
                          run=SimpleNamespace(n_jobs=1, n_splits=5, random_state=0, progress=False, cache_dir=None),
                          oof=lambda: oof, table=lambda *a: None)
    st = SimpleNamespace(notes=[], tables={}, charts={})
    hardness_report.report_stage(ctx, st)
    assert list(st.tables['hardness'].columns) == ['instance', *REG_MEASURES]
    p = np.exp(-np.abs(oof.y_true - oof.y_pred) / np.abs(y).mean())
    np.testing.assert_allclose(st.tables['instance_hardness'].ih.to_numpy(), 1 - p.groupby(oof.instance).mean().to_numpy(), rtol=0, atol=1e-12)
    assert any('outside τ by most models' in n for n in st.notes)
    st2 = SimpleNamespace(notes=[], tables={}, charts={})
    isa_report.report_stage(ctx, st2)
    frame, fp = st2.tables['instance_space'], st2.tables['footprints']
    assert set(models) <= set(fp.model)
    right = oof.pivot(index='instance', columns='model', values='correct')
    np.testing.assert_array_equal(frame.set_index('instance').n_good.loc[right.index].to_numpy(), right.sum(1).to_numpy())
    assert any('within τ' in n for n in st2.notes)
