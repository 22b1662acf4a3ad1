"The SCC pipeline runs unchanged on a Dask LocalCluster through joblib's dask backend (2 local in-process workers)."
import numpy as np, pandas as pd, pytest
from sklearn.tree import DecisionTreeClassifier
from sklearn.naive_bayes import GaussianNB
from robustdiff.datasets import make_synthetic
from robustdiff.scc import noisy_predictions, robustness_by_difficulty

distributed = pytest.importorskip('distributed')

@pytest.fixture(scope='module')
def client():
    from distributed import Client, LocalCluster
    # in-process workers (inproc:// transport, no network), no dashboard
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None)
    c = Client(cluster)
    yield c
    c.close(); cluster.close()

def test_dask_backend_gives_the_same_curves(client):
    ds = make_synthetic('circles', 150, random_state=2)
    models = {'cart': DecisionTreeClassifier(max_depth=3), 'nb': GaussianNB()}
    local = robustness_by_difficulty(ds, models, perturbation=[0.2, 1.0], n_bins=3, progress=False)
    from distributed import get_task_stream
    with get_task_stream(client) as ts:
        dask = robustness_by_difficulty(ds, models, perturbation=[0.2, 1.0], n_bins=3, progress=False, backend='dask', n_jobs=2)
    pd.testing.assert_frame_equal(local.predictions, dask.predictions)
    pd.testing.assert_frame_equal(local.curves, dask.curves)
    # the model × fold tasks really ran on the cluster's two workers
    assert len(ts.data) >= 2 * 5
    assert len({t['worker'] for t in ts.data}) >= 1
    assert len(client.scheduler_info()['workers']) == 2


# ------------------------------------------------------------------ the report's one schedule on Dask

def _report_models():
    "A k-NN (its `kneighbors` calls joblib), a 2-job forest (threads) and a tree; each inside make_pipeline's ColumnTransformer (joblib too)."
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.neighbors import KNeighborsClassifier
    from robustdiff.portfolio import needs_prep
    return {k: needs_prep(e) for k, e in {'cart': DecisionTreeClassifier(max_depth=3), 'knn5': KNeighborsClassifier(5),
                                          'rf': RandomForestClassifier(8, n_jobs=2)}.items()}

def _report_tables(rep)->dict:
    return {f'{s}.{k}': v for s, st in rep.stages.items() for k, v in (st.tables or {}).items() if isinstance(v, pd.DataFrame)}

def _assert_same_tables(a, b):
    ta, tb = _report_tables(a), _report_tables(b)
    assert ta.keys() == tb.keys() and ta
    for k in ta: pd.testing.assert_frame_equal(ta[k], tb[k], check_exact=True, obj=k)

def test_report_fits_send_no_nested_tasks_and_a_later_local_run_is_unchanged(client):
    "Every task of the report's schedule is one batch of fits: the fits' own joblib calls (ColumnTransformer, k-NN, forest) stay in the task instead of becoming tasks of the cluster; a local run after the Dask run (same process, in-process workers sharing its module state) gives the tables of the local run before it."
    from distributed import get_task_stream
    from robustdiff.report import build_report
    ds = make_synthetic('moons', 120, random_state=1)
    kw = dict(models=_report_models(), respondents='models', stages='accuracy,difficulty,scc,verdict', progress=False, random_state=4)
    before = build_report(ds, n_jobs=1, **kw)
    with get_task_stream(client) as ts:
        dask = build_report(ds, n_jobs=2, backend='dask', **kw)
    funcs = [t['key'].rsplit('-', 1)[0] for t in ts.data]   # joblib's names: 'batch_of_<function>_<n>_calls'
    assert funcs and all(f.startswith('batch_of__run_batch_') for f in funcs), sorted(set(funcs))
    assert sum(int(f.split('_')[-2]) for f in funcs) == 3 * 5   # one call per model × fold, nothing else
    _assert_same_tables(before, dask)
    _assert_same_tables(before, build_report(ds, n_jobs=1, **kw))
    _assert_same_tables(before, build_report(ds, n_jobs=2, **kw))
