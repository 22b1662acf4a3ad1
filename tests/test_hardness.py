"Instance hardness: every measure vs its dense formula, ties and duplicates, invariants, PyHard's code by hand, bad input, IH."
import itertools, math, warnings
import numpy as np, pandas as pd, pytest
from hypothesis import given, settings, strategies as st, HealthCheck
from scipy.sparse.csgraph import minimum_spanning_tree
from sklearn import tree
from sklearn.calibration import CalibratedClassifierCV
from sklearn.model_selection import GridSearchCV
from sklearn.naive_bayes import GaussianNB
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier
from robustdiff.data import Dataset
from robustdiff.datasets import make_synthetic
from robustdiff.hardness import (MEASURES, PRESETS, hardness_measures, dense_reference, hardness_correlations,
                                 _distance_space, _cdist, _mst_prim, _mst_boruvka, _neighbour_stats, _n1_from_edges, _codes)
from robustdiff.ih import instance_hardness, InstanceHardness, good_threshold


def _random(n, p, C, nominal=0, seed=0, integer=False):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, (n, p)).astype(float) if integer else rng.normal(size=(n, p))
    X = pd.DataFrame(X, columns=[f'x{j}' for j in range(p)])
    for j in range(nominal): X[f'c{j}'] = pd.Categorical(rng.choice(list('abcd'), n))
    y = rng.integers(0, C, n)
    y[:C] = np.arange(C)                                  # every class present
    return Dataset('rand', X, y, tuple(f'c{j}' for j in range(nominal)))


# ---------------------------------------------------------------- exact agreement with the dense formulas
@pytest.mark.parametrize('preset', list(PRESETS))
@pytest.mark.parametrize('nominal', [0, 2])
@pytest.mark.parametrize('C', [2, 3])
def test_matches_dense_reference(preset, nominal, C):
    ds = _random(90, 3, C, nominal, seed=C + nominal)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', UserWarning)
        fast, ref = hardness_measures(ds, preset=preset), dense_reference(ds, preset=preset)
    pd.testing.assert_frame_equal(fast, ref, check_exact=True)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(12, 60), p=st.integers(1, 4), C=st.integers(2, 4), nominal=st.integers(0, 2),
       k=st.integers(1, 7), seed=st.integers(0, 10_000), metric=st.sampled_from(['gower', 'euclidean']))
def test_matches_dense_reference_property(n, p, C, nominal, k, seed, metric):
    ds = _random(n, p, C, nominal, seed)
    kw = dict(measures=[m for m in MEASURES if m not in ('DCP', 'TD_P', 'TD_U')], k=k, metric=metric)
    pd.testing.assert_frame_equal(hardness_measures(ds, **kw, block_rows=5), dense_reference(ds, **kw), check_exact=True)


def test_ties_and_duplicates():
    "Integer features with duplicated rows: exact agreement (ties by instance order); N1 from a valid MST."
    ds = _random(100, 3, 3, 1, seed=11, integer=True)
    X = pd.concat([ds.X, ds.X.iloc[:15]], ignore_index=True)
    y = np.r_[ds.y.to_numpy(), (ds.y.to_numpy()[:15] + np.arange(15) % 2) % 3]     # some duplicates disagree
    dup = Dataset('dup', X, y, ds.nominal)
    fast, ref = hardness_measures(dup), dense_reference(dup)
    pd.testing.assert_frame_equal(fast.drop(columns='N1'), ref.drop(columns='N1'), check_exact=True)
    assert fast.N1.between(0, 1).all()
    Z, s = _distance_space(dup, 'gower')
    u, v = _mst_prim(Z, 'gower', s)
    D = _cdist(Z, Z, 'gower') / s
    W = D + 1.0; np.fill_diagonal(W, 0)     # scipy ignores entries within 1e-8 of 0; +1 on every edge keeps the MST
    assert len(u) == len(dup.y) - 1
    assert abs(D[u, v].sum() + len(u) - minimum_spanning_tree(W).sum()) < 1e-9        # minimum total weight
    import scipy.sparse as sp                                                  # and it spans: one component
    G = sp.coo_matrix((np.ones(len(u)), (u, v)), shape=(len(y), len(y)))
    assert sp.csgraph.connected_components(G, directed=False)[0] == 1


def _kruskal(D):
    "Kruskal on the dense matrix, edges ordered by (weight, lower id, higher id): the one MST under that total order."
    n = len(D)
    iu, ju = np.triu_indices(n, 1)
    parent = np.arange(n)
    def find(a):
        while parent[a] != a: parent[a] = parent[parent[a]]; a = parent[a]
        return a
    edges = set()
    for e in np.lexsort((ju, iu, D[iu, ju])):
        a, b = find(iu[e]), find(ju[e])
        if a != b: parent[a] = b; edges.add((int(iu[e]), int(ju[e])))
    return edges


def _boruvka(ds, K, n_jobs=1, block_rows=None, metric='gower'):
    Z, s = _distance_space(ds, metric)
    y, _ = _codes(ds.y)
    st = _neighbour_stats(Z, y, 1, metric, s, block_rows, n_jobs, K=K)
    u, v = _mst_boruvka(Z, metric, s, st['nbr'], st['nbr_d'], n_jobs, block_rows)
    return set(zip(np.minimum(u, v).tolist(), np.maximum(u, v).tolist())), Z, s


@pytest.mark.parametrize('K', [1, 3, 16])
@pytest.mark.parametrize('integer', [False, True])
@pytest.mark.parametrize('metric', ['gower', 'euclidean'])
def test_boruvka_is_the_mst_under_weight_then_ids(K, integer, metric):
    "Borůvka on short neighbour lists (K = 1 makes it fall back to exact rows) = Kruskal with ties by ids, any threads/blocks."
    ds = _random(130, 3, 3, 1 if integer else 0, seed=5, integer=integer)
    if integer: ds = Dataset('dup', pd.concat([ds.X, ds.X.iloc[:20]], ignore_index=True), np.r_[ds.y, ds.y[:20]], ds.nominal)
    edges, Z, s = _boruvka(ds, K, metric=metric)
    assert len(edges) == len(ds.y) - 1
    assert edges == _kruskal(_cdist(Z, Z, metric) / s)
    if not integer:                                            # no ties: the MST is unique, Prim finds the same tree
        u, v = _mst_prim(Z, metric, s)
        assert edges == set(zip(np.minimum(u, v).tolist(), np.maximum(u, v).tolist()))
    for n_jobs, block_rows in ((2, 7), (3, 1)):
        assert _boruvka(ds, K, n_jobs, block_rows, metric)[0] == edges


def test_n1_uses_the_mst_with_ties_by_ids():
    ds = _random(100, 2, 2, 1, seed=2, integer=True)
    Z, s = _distance_space(ds, 'gower')
    y, _ = _codes(ds.y)
    u, v = np.array(sorted(_kruskal(_cdist(Z, Z, 'gower') / s))).T
    np.testing.assert_array_equal(hardness_measures(ds, measures='N1', n_jobs=2, block_rows=9).N1, _n1_from_edges(u, v, y, len(y)))


def test_block_size_and_threads_do_not_change_results():
    ds = _random(150, 4, 3, 1, seed=3)
    a = hardness_measures(ds)
    b = hardness_measures(ds, block_rows=7, n_jobs=2)
    pd.testing.assert_frame_equal(a, b, check_exact=True)


# ---------------------------------------------------------------- invariants
def test_range_orientation_and_subset():
    ds = make_synthetic('moons', 300, noise=0.35, random_state=2)
    for preset in PRESETS:
        M = hardness_measures(ds, preset=preset)
        assert list(M.columns) == list(MEASURES) and M.index.name == 'instance' and len(M) == 300
        assert ((M >= 0) & (M <= 1)).all().all() and M.notna().all().all()
    sub = hardness_measures(ds, measures=['N2', 'kDN'])
    assert list(sub.columns) == ['kDN', 'N2']                      # canonical order
    pd.testing.assert_series_equal(sub.kDN, hardness_measures(ds).kDN)


def test_easy_vs_hard_instance():
    "An instance sitting inside the other class is harder than one deep inside its own class, on every measure."
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0, .3, (40, 2)), rng.normal(3, .3, (40, 2)), [[3.0, 3.0]]]
    ds = Dataset('pair', pd.DataFrame(X, columns=['a', 'b']), [0] * 40 + [1] * 40 + [0])
    M = hardness_measures(ds)
    easy = M.iloc[int(np.argmin(np.abs(X[:40]).sum(1)))]
    hard = M.iloc[80]
    assert (hard >= easy).all(), (hard - easy)
    assert (hard > easy).sum() >= 11, (hard - easy)


def test_more_label_noise_is_harder():
    ds = make_synthetic('moons', 400, noise=0.1, random_state=0)
    y = ds.y.to_numpy().copy()
    flip = np.random.default_rng(0).choice(400, 80, replace=False); y[flip] = 1 - y[flip]
    noisy = Dataset('noisy', ds.X, y)
    a, b = hardness_measures(ds).mean(), hardness_measures(noisy).mean()
    for m in ('kDN', 'N1', 'N2', 'LSC', 'DCP', 'CL'):   # not TD: noise deepens the tree, and TD is relative to its depth
        assert b[m] > a[m], m


def test_deterministic():
    ds = make_synthetic('circles', 200, noise=0.2, random_state=0)
    pd.testing.assert_frame_equal(hardness_measures(ds, random_state=3), hardness_measures(ds, random_state=3))


def test_presets_differ_where_they_should():
    ds = _random(120, 3, 3, seed=9)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', UserWarning)
        a, b = hardness_measures(ds), hardness_measures(ds, preset='pyhard')
    assert a.attrs['k'] == 5 and b.attrs['k'] == 10
    same = ['F1', 'N1', 'N2', 'LSC', 'LSR', 'TD_U']        # no preset choice enters these
    pd.testing.assert_frame_equal(a[same], b[same], check_exact=True)
    c = hardness_measures(ds, preset='pyhard', k=5, denominator='all', likelihood='nb', ccp_alpha=a.attrs['ccp_alpha'])
    pd.testing.assert_frame_equal(a, c, check_exact=True)  # every choice is a parameter


# ---------------------------------------------------------------- PyHard 2.2.4, its code followed by hand
def _pyhard_by_hand(X:pd.DataFrame, y:np.ndarray, seed=0, ccp_alpha=None)->pd.DataFrame:
    "ClassificationMeasures of PyHard 2.2.4 (measures.py), transcribed: dense Gower, argsort with −1 on the diagonal."
    N = len(y)
    D = np.zeros((N, N))
    for f in X.columns:
        v = X[[f]].to_numpy(float)
        D += np.abs(v - v.T) / max(np.ptp(v), 1e-8) / X.shape[1]
    idx = np.argsort(D + np.diag(-np.ones(N)), axis=1)
    dist = np.sort(D, axis=1)
    yS = pd.Series(y)
    n_class = yS.value_counts()
    out = {}
    out['kDN'] = np.array([np.sum(y[idx[i, :11]][1:] != y[i]) / 10 for i in range(N)])
    if ccp_alpha is None:                                   # PyHard's grid search (its default)
        ccp_alpha = GridSearchCV(tree.DecisionTreeClassifier(criterion='gini', random_state=seed),
                                 {'ccp_alpha': np.linspace(0.001, 0.1, num=100)}).fit(X.values, y).best_params_['ccp_alpha']
    dtc = tree.DecisionTreeClassifier(min_samples_split=2, criterion='gini', random_state=seed).fit(X.values, y)
    pr = tree.DecisionTreeClassifier(criterion='gini', ccp_alpha=ccp_alpha, random_state=seed).fit(X.values, y)
    leaf = pr.apply(X.values)
    out['DCP'] = 1 - np.array([np.mean(y[leaf == leaf[i]] == y[i]) for i in range(N)])
    out['TD_P'] = np.array([pr.decision_path([x]).sum() - 1 for x in X.values]) / pr.get_depth()
    out['TD_U'] = np.array([dtc.decision_path([x]).sum() - 1 for x in X.values]) / dtc.get_depth()
    C = len(np.unique(y))
    cal = CalibratedClassifierCV(estimator=GaussianNB(priors=np.ones(C) / C), method='sigmoid', cv=3, ensemble=False).fit(X, y)
    P = cal.predict_proba(X)
    mask = np.equal(y.reshape(-1, 1), cal.classes_.reshape(1, -1))
    out['CL'] = 1 - P[mask]
    out['CLD'] = (1 - (P[mask] - np.max(P[~mask].reshape((N, -1)), axis=1))) / 2
    F1 = np.zeros(N)
    for a, b in itertools.combinations(np.unique(y), 2):
        sub = (y == a) | (y == b)
        for f in X.columns:
            v = X[f].to_numpy()
            m1 = max(v[y == a].min(), v[y == b].min()); m2 = min(v[y == a].max(), v[y == b].max())
            F1 += sub * ((v >= m1) & (v <= m2)) / X.shape[1]
    out['F1'] = F1 / (C - 1)
    mst = minimum_spanning_tree(D).toarray(); mst = np.where(mst > 0, mst, np.inf)
    out['N1'] = np.array([np.mean(y[np.argwhere(np.minimum(mst[i], mst[:, i]) < np.inf)[:, 0]] != y[i]) for i in range(N)])
    N2 = np.zeros(N)
    for i in range(N):
        nn = y[idx[i]]
        N2[i] = dist[i, nn == y[i]][1] / max(dist[i, nn != y[i]][0], 1e-15)
    out['N2'] = 1 - 1 / (N2 + 1)
    out['LSC'] = 1 - np.array([np.argmax(y[idx[i]] != y[i]) / n_class[y[i]] for i in range(N)])
    LSR = np.zeros(N)
    for i in range(N):
        nn = y[idx[i]]; aux = (nn == y[i])[::-1]
        LSR[i] = min(1.0, dist[i, np.argmax(nn != y[i])] / dist[i, len(aux) - np.argmax(aux) - 1])
    out['LSR'] = 1 - LSR
    ne_pos = np.argmax(y[idx] != y[:, None], axis=1)
    u = np.zeros(N)
    for i in range(N): u[idx[i, 1:ne_pos[i]]] += 1
    out['Usefulness'] = 1 - u / n_class[y].values
    ne = idx[np.arange(N), ne_pos]
    out['Harmfulness'] = np.sum(np.arange(N)[:, None] == ne, axis=1) / (N - n_class[y].values)
    return pd.DataFrame(out)[list(MEASURES)]


@pytest.mark.parametrize('C', [2, 3])
def test_pyhard_preset_follows_pyhard_code(C):
    from sklearn.datasets import make_classification
    X, y = make_classification(80, 3, n_informative=2, n_redundant=0, n_classes=C, n_clusters_per_class=1,
                               flip_y=0.15, random_state=C)
    ds = Dataset('mc', pd.DataFrame(X, columns=list('abc')), y)
    ours = hardness_measures(ds, preset='pyhard')
    assert ours.attrs['ccp_alpha'] < 0.1 and ours.TD_P.max() > 0          # a real pruned tree, not a stump
    ref = _pyhard_by_hand(ds.X, ds.y.to_numpy())
    for m in MEASURES:
        np.testing.assert_allclose(ours[m].to_numpy(), ref[m].to_numpy(), atol=1e-12, err_msg=m)


def test_pyhard_differences_on_degenerate_input():
    "Where PyHard divides 0 by 0 (a pruned tree that is a single leaf), we return 0, not NaN."
    ds = _random(60, 3, 2, seed=22)                       # random labels: the pruned tree is the root alone
    ours = hardness_measures(ds, preset='pyhard')
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', RuntimeWarning)
        ref = _pyhard_by_hand(ds.X, ds.y.to_numpy(), ccp_alpha=ours.attrs['ccp_alpha'])   # PyHard's ccp_alpha argument
    assert ref.TD_P.isna().all() and (ours.TD_P == 0).all()
    for m in [m for m in MEASURES if m != 'TD_P']:
        np.testing.assert_allclose(ours[m].to_numpy(), ref[m].to_numpy(), atol=1e-12, err_msg=m)


# ---------------------------------------------------------------- bad input
def test_one_class():
    with pytest.raises(ValueError, match='one class'):
        Dataset('one', pd.DataFrame({'a': [1., 2, 3]}), [0, 0, 0])
    ds = make_synthetic('moons', 40, random_state=0)
    sub = ds.subset(np.flatnonzero(ds.y.to_numpy() == ds.y.iloc[0]))       # subsets skip validation
    with pytest.raises(ValueError, match='one class'): hardness_measures(sub)


@pytest.mark.parametrize('preset', list(PRESETS))
def test_class_with_a_single_instance(preset):
    ds = _random(50, 3, 2, seed=1)
    y = ds.y.to_numpy().copy(); y[7] = 2
    lone = Dataset('lone', ds.X, y)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', UserWarning)
        M = hardness_measures(lone, preset=preset)
    assert M.notna().all().all() and ((M >= 0) & (M <= 1)).all().all()
    assert M.N2[7] == 1.0 and M.LSC[7] == 0.0                   # no class-mate; its local set is itself
    pd.testing.assert_frame_equal(M, dense_reference(lone, preset=preset), check_exact=True) if preset == 'paper' else None


def test_duplicate_rows_and_constant_features():
    X = pd.DataFrame({'a': [0., 0, 0, 1, 1, 2, 2, 2, 3, 3], 'const': 5.0, 'b': [1., 1, 1, 0, 0, 1, 1, 0, 0, 0]})
    y = [0, 0, 1, 0, 1, 1, 1, 0, 1, 1]
    ds = Dataset('dups', X, y)
    M = hardness_measures(ds, k=3)
    assert M.notna().all().all() and ((M >= 0) & (M <= 1)).all().all()
    pd.testing.assert_frame_equal(M.drop(columns='N1'), dense_reference(ds, k=3).drop(columns='N1'), check_exact=True)
    # rows 0 and 2 coincide but disagree: each is the other's nearest enemy at distance 0
    assert M.LSC[0] == 1.0 and M.LSR[0] == 1.0 and M.N2[0] == 0.0 or M.N2[0] > 0.99


def test_undeclared_non_numeric_and_nan():
    X = pd.DataFrame({'a': [1., 2, 3, 4], 'b': list('xyxy')})
    with pytest.raises(TypeError, match='non-numeric'): Dataset('s', X, [0, 1, 0, 1])
    with pytest.raises(ValueError, match='NaN'): Dataset('n', pd.DataFrame({'a': [1., np.nan, 3, 4]}), [0, 1, 0, 1])
    ok = Dataset('s', X, [0, 1, 0, 1], ('b',))
    assert hardness_measures(ok, k=2).notna().all().all()
    with pytest.raises(TypeError, match='Dataset'): hardness_measures(X)


@pytest.mark.parametrize('kw, err, match', [
    (dict(k=40), ValueError, 'k = 40'), (dict(k=0), ValueError, 'positive'), (dict(k=2.5), ValueError, 'positive'),
    (dict(preset='nope'), ValueError, 'preset'), (dict(metric='cosine'), ValueError, 'metric'),
    (dict(measures=['kDN', 'bogus']), ValueError, 'unknown measures'), (dict(measures=[]), ValueError, 'no measures'),
    (dict(n_jobs=0), ValueError, 'n_jobs'), (dict(ccp_alpha='cv'), ValueError, 'ccp_alpha'),
    (dict(likelihood='kde'), ValueError, 'likelihood'), (dict(denominator='n'), ValueError, 'denominator')])
def test_bad_arguments(kw, err, match):
    ds = make_synthetic('moons', 40, random_state=0)
    with pytest.raises(err, match=match): hardness_measures(ds, **kw)


# ---------------------------------------------------------------- IH
@pytest.fixture(scope='module')
def moons_ih():
    return instance_hardness(make_synthetic('moons', 150, noise=0.3, random_state=0),
                             models={'lr': LogisticRegression(), 'tree': DecisionTreeClassifier(max_depth=3)})


def test_instance_hardness(moons_ih):
    r = moons_ih
    assert isinstance(r, InstanceHardness)
    assert list(r.losses.columns) == ['model', 'instance', 'y_true', 'correct', 'p_true', 'logloss', 'good']
    assert r.wide_losses('correct').isin([0, 1]).all().all()
    W = r.wide_losses('p_true')
    assert W.shape == (150, 2) and list(W.columns) == ['lr', 'tree']
    np.testing.assert_allclose(r.ih.to_numpy(), 1 - W.mean(1).to_numpy())
    np.testing.assert_allclose(r.losses.logloss, -np.log(np.clip(r.losses.p_true, 1e-15, 1)))
    assert r.threshold == pytest.approx(math.log(2))
    assert (r.losses.good == (r.losses.logloss < math.log(2))).all()
    assert r.ih.between(0, 1).all() and r.easy.dtype == bool
    # Proposition 1 (two classes): log-loss below log 2 means p_true > 1/2
    assert (r.losses.p_true[r.losses.good] > 0.5).all()


def test_ih_relates_to_measures(moons_ih):
    ds = make_synthetic('moons', 150, noise=0.3, random_state=0)
    corr = hardness_correlations(hardness_measures(ds).join(moons_ih.ih), moons_ih.ih.rename('target'))
    assert corr.measure.iloc[0] == 'IH' and corr.rho.iloc[0] == pytest.approx(1.0)
    assert corr.set_index('measure').rho[['kDN', 'N2', 'CL']].gt(0.3).all()


def test_instance_hardness_bad_input():
    ds = make_synthetic('moons', 40, random_state=0)
    with pytest.raises(ValueError, match='n_splits'): instance_hardness(ds, models='quick', n_splits=1)
    y = ds.y.to_numpy().copy(); y[:3] = 2
    with pytest.raises(ValueError, match='fewer than n_splits'): instance_hardness(Dataset('s', ds.X, y), models='quick')
    with pytest.raises(TypeError, match='calibrate'): instance_hardness(ds, models='quick', calibrate='yes')
    with pytest.raises(ValueError, match='n_classes'): good_threshold(1)
