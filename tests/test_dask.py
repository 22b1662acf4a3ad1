"The SCC pipeline runs unchanged on a Dask LocalCluster through joblib's dask backend (2 local in-process workers)."
import numpy as np, pandas as pd, pytest
from sklearn.tree import DecisionTreeClassifier
from sklearn.naive_bayes import GaussianNB
from robustdiff.data import make_synthetic
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
    local = robustness_by_difficulty(ds, models, [0.2, 1.0], n_bins=3, progress=False)
    from distributed import get_task_stream
    with get_task_stream(client) as ts:
        dask = robustness_by_difficulty(ds, models, [0.2, 1.0], n_bins=3, progress=False, backend='dask', n_jobs=2)
    pd.testing.assert_frame_equal(local.predictions, dask.predictions)
    pd.testing.assert_frame_equal(local.curves, dask.curves)
    # the model × fold tasks really ran on the cluster's two workers
    assert len(ts.data) >= 2 * 5
    assert len({t['worker'] for t in ts.data}) >= 1
    assert len(client.scheduler_info()['workers']) == 2
