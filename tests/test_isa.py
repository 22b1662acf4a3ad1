"""Instance space analysis (robustdiff.isa): constructed cases, properties and bad input.

The instance-space integration tests use a small stand-in for the hardness measures (six of the 13, plain
formulas) and the `quick` portfolio's out-of-fold predictions as the hardness input, so they run in seconds and do
not depend on the hardness module's internals; with `robustdiff.hardness` present, one test runs the real chain.
"""
import math, os, subprocess, sys
from pathlib import Path
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from robustdiff.data import from_frame
from robustdiff.datasets import make_synthetic, load_sklearn
from robustdiff.isa import (select_features, instant_runoff, pilot, rotation_matrix, instance_space, InstanceSpace,
                            _mrmr_rank, _discretise, _mutual_info)
from robustdiff.footprints import footprints, footprint_edges
from robustdiff.explore import space_chart, explore


def standin_measures(ds, k=5):
    "Six hardness measures by their plain formulas (dense; test sizes only)."
    from sklearn.naive_bayes import GaussianNB
    from sklearn.tree import DecisionTreeClassifier
    X = ds.X.to_numpy(float); X = (X - X.min(0)) / np.maximum(np.ptp(X, 0), 1e-12); y = ds.y.to_numpy()
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1)); np.fill_diagonal(D, np.inf)
    same = y[:, None] == y[None]
    nn = np.argsort(D, 1)[:, :k]
    kdn = (y[nn] != y[:, None]).mean(1)
    d_same = np.where(same, D, np.inf).min(1); d_enemy = np.where(~same, D, np.inf).min(1)
    n2 = 1 - 1 / (d_same / d_enemy + 1)
    nb = GaussianNB().fit(X, y); P = nb.predict_proba(X)
    cl = 1 - P[np.arange(len(y)), np.searchsorted(nb.classes_, y)]
    leaf = DecisionTreeClassifier(random_state=0, min_samples_leaf=5).fit(X, y).apply(X)
    dcp = np.array([1 - (y[leaf == leaf[i]] == y[i]).mean() for i in range(len(y))])
    lsc = 1 - ((D < d_enemy[:, None]) & same).sum(1) / same.sum(1)
    harm = np.bincount(np.where(~same, D, np.inf).argmin(1), minlength=len(y)) / (len(y) - 1)
    return pd.DataFrame({'kDN': kdn, 'N2': n2, 'CL': cl, 'DCP': dcp, 'LSC': lsc, 'Harmfulness': harm})


@pytest.fixture(scope='module')
def moons():
    from robustdiff.responses import cv_predictions
    ds = make_synthetic('moons', 240, noise=0.35, random_state=0)
    preds = cv_predictions(ds, 'quick', n_splits=5, random_state=0, progress=False)
    return ds, standin_measures(ds), preds


@pytest.fixture(scope='module')
def space(moons):
    ds, M, preds = moons
    return instance_space(ds, measures=M, hardness=preds, n_features=4, random_state=0)


# ---------------------------------------------------------------- feature selection
@pytest.mark.parametrize('seed', range(5))
def test_mrmr_never_picks_a_redundant_copy_second(seed):
    rng = np.random.default_rng(seed)
    a, b, c = rng.normal(size=(3, 500))
    M = pd.DataFrame({'a': a, 'copy_of_a': a + 1e-9 * rng.normal(size=500), 'b': b, 'c': c})
    L = pd.DataFrame({'m1': a + 0.8 * b + 0.1 * rng.normal(size=500), 'm2': a + b, 'm3': 1.2 * a + b})
    sel = select_features(M, L, n=4)
    assert not {'a', 'copy_of_a'} <= set(sel[:2])          # never the original and its copy as the first two
    assert 'b' in sel[:2] and sel[-1] in ('c', 'a', 'copy_of_a')


def test_mrmr_first_pick_is_most_relevant():
    rng = np.random.default_rng(0)
    F = rng.normal(size=(400, 4)); y = F[:, 2] + 0.05 * rng.normal(size=400)
    codes = np.column_stack([_discretise(F[:, j], 10) for j in range(4)])
    red = np.array([[_mutual_info(codes[:, i], codes[:, j]) for j in range(4)] for i in range(4)])
    assert _mrmr_rank(codes, _discretise(y, 10), red)[0] == 2


def test_instant_runoff_hand_made_ballot():
    # 9 voters: first choices A 4, B 3, C 2 → C out, its 2 voters go to B (7 vs... B 5) → B wins place 1;
    # then A vs C without B: A 4 + (B voters' next: C for 3) → C 5 > A 4 → C second.
    ballots = [list('ACB')] * 4 + [list('BCA')] * 3 + [list('CBA')] * 2
    assert instant_runoff(ballots) == ['B', 'C', 'A']
    # a majority of first choices wins outright
    assert instant_runoff([list('XYZ')] * 3 + [list('ZYX')] * 2)[0] == 'X'
    # partial ballots
    assert instant_runoff([['p'], ['q', 'p'], ['p', 'q']]) == ['p', 'q']


@given(st.lists(st.permutations(list('abcde')), min_size=1, max_size=12))
@settings(max_examples=60, deadline=None)
def test_instant_runoff_is_a_ranking_and_respects_unanimity(ballots):
    out = instant_runoff([list(b) for b in ballots])
    assert sorted(out) == list('abcde')
    if all(b[0] == ballots[0][0] for b in ballots): assert out[0] == ballots[0][0]


@pytest.mark.parametrize('kw, msg', [
    (dict(n=7), 'larger than the number of measures'),
    (dict(n=1), 'n must be an integer'),
    (dict(method='lasso'), 'method must be'),
])
def test_select_features_bad_input(kw, msg):
    M = pd.DataFrame(np.random.default_rng(0).normal(size=(50, 6)), columns=list('abcdef'))
    L = pd.DataFrame({'m': np.random.default_rng(1).normal(size=50)})
    with pytest.raises(ValueError, match=msg): select_features(M, L, **kw)


def test_select_features_missing_model_values():
    M = pd.DataFrame(np.random.default_rng(0).normal(size=(50, 4)), columns=list('abcd'))
    L = pd.DataFrame({'m1': np.random.default_rng(1).normal(size=50), 'm2': np.nan})
    with pytest.raises(ValueError, match='NaN'): select_features(M, L, n=2)


# ---------------------------------------------------------------- PILOT and rotation
def test_pilot_objective_decreases_and_best_start_is_kept():
    rng = np.random.default_rng(2)
    Z = rng.normal(size=(250, 2))
    F = pd.DataFrame(np.tanh(Z @ rng.normal(size=(2, 5))) + 0.1 * rng.normal(size=(250, 5)), columns=list('abcde'))
    Y = pd.DataFrame(Z @ rng.normal(size=(2, 3)))
    pr = pilot(F, Y, n_starts=6, random_state=3)
    for t in pr.traces:
        assert len(t) > 2 and np.all(np.diff(t) <= 1e-12) and t[-1] < t[0]
    assert pr.starts.kept.sum() == 1
    assert pr.starts.correlation[pr.best_start] == pr.starts.correlation.max()
    np.testing.assert_allclose(pr.project(F).to_numpy(), pr.coords.to_numpy(), atol=1e-12)
    # same seed, same result
    pr2 = pilot(F, Y, n_starts=6, random_state=3)
    np.testing.assert_array_equal(pr.A.to_numpy(), pr2.A.to_numpy())


def test_pilot_sampled_pairs_for_large_n():
    rng = np.random.default_rng(0)
    F = pd.DataFrame(rng.normal(size=(3000, 3))); Y = pd.DataFrame(rng.normal(size=(3000, 2)))
    pr = pilot(F, Y, n_starts=2, max_pairs=5000)
    assert np.isfinite(pr.starts.correlation).all()


@given(st.floats(-5, 5), st.floats(-5, 5), st.floats(0, 360))
@settings(max_examples=60, deadline=None)
def test_rotation_puts_bad_centroid_at_135(cx, cy, angle):
    if math.hypot(cx, cy) < 1e-3: return
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(60, 2)) * 0.3
    bad = np.zeros(60, bool); bad[:20] = True
    Z[bad] += [cx, cy] - Z[bad].mean(0)
    R = rotation_matrix(Z, bad, angle=angle)
    c = (Z @ R.T)[bad].mean(0)
    got = math.degrees(math.atan2(c[1], c[0])) % 360
    assert min(abs(got - angle % 360), 360 - abs(got - angle % 360)) < 1e-7
    np.testing.assert_allclose(R @ R.T, np.eye(2), atol=1e-12)


# ---------------------------------------------------------------- footprints
def _grid(k=21):
    g = np.linspace(0, 1, k)
    return np.array([(x, y) for x in g for y in g])


def test_footprint_of_a_constructed_square():
    Z = _grid()
    good = pd.DataFrame({'left': Z[:, 0] <= 0.5 + 1e-9, 'all': np.ones(len(Z), bool)})
    fp = footprints(Z, good, alpha_radius=0.08, min_samples=4)
    t = fp.table.set_index('model')
    assert fp.space_area == pytest.approx(1.0)
    assert t.loc['left', 'area'] == pytest.approx(0.5) and t.loc['left', 'area_norm'] == pytest.approx(0.5)
    assert t.loc['left', 'purity'] == 1.0
    assert t.loc['left', 'density'] == pytest.approx(t.loc['left', 'n_instances'] / 0.5)
    assert t.loc['all', 'area'] == pytest.approx(1.0) and t.loc['all', 'density'] == pytest.approx(441)
    assert t.loc['all', 'density_norm'] == pytest.approx(1.0)
    # the outline of the left footprint is the rectangle's perimeter: 2 × 0.5 + 2 × 1 = 3
    E = footprint_edges(fp, kind='good', models=['left'])
    assert np.hypot(E.z1_end - E.z1, E.z2_end - E.z2).sum() == pytest.approx(3.0)


def test_footprint_purity_counts_bad_instances_inside():
    Z = _grid()
    rng = np.random.default_rng(0)
    good = (Z[:, 0] <= 0.5 + 1e-9) & (rng.random(len(Z)) > 0.25)
    t = footprints(Z, pd.DataFrame({'m': good}), alpha_radius=0.08, min_samples=4).table.iloc[0]
    assert 0.55 <= t.purity < 1
    assert t.n_good == pytest.approx(t.purity * t.n_instances)


def test_best_footprint_purity_uses_own_labels():
    Z = _grid()
    row = np.rint(Z[:, 1] * 20).astype(int)
    strip = (Z[:, 0] > 0.4 + 1e-9) & (Z[:, 0] < 0.6 - 1e-9)
    a = Z[:, 0] <= 0.6 + 1e-9
    b = (Z[:, 0] >= 0.6 - 1e-9) | (strip & (row % 5 >= 2))
    bb = pd.DataFrame({'a': a, 'b': b})
    fp = footprints(Z, bb, best=bb, alpha_radius=0.08, min_samples=4)
    t = fp.table.query("kind == 'best'").set_index('model')
    in_a, in_b = fp.contains('best', 'a', Z), fp.contains('best', 'b', Z)
    assert not (in_a & in_b & strip).any()
    assert t.loc['b', 'purity'] == pytest.approx(b[in_b].mean()) and t.loc['b', 'purity'] > 0.9
    assert t.loc['a', 'purity'] == pytest.approx(a[in_a].mean())


@pytest.mark.parametrize('args, msg', [
    ((np.zeros((2, 2)), pd.DataFrame({'m': [True, False]})), 'at least 3'),
    ((np.zeros((5, 3)), pd.DataFrame({'m': [True] * 5})), 'n × 2'),
    ((np.random.default_rng(0).normal(size=(5, 2)), pd.DataFrame({'m': [1] * 5})), 'booleans'),
    ((np.c_[np.arange(5.), np.arange(5.)], pd.DataFrame({'m': [True] * 5})), 'collinear'),
])
def test_footprints_bad_input(args, msg):
    with pytest.raises((ValueError, TypeError), match=msg): footprints(*args)


# ---------------------------------------------------------------- instance space
def test_instance_space_result(space, moons):
    ds, M, preds = moons
    assert isinstance(space, InstanceSpace) and len(space.coords) == ds.n_instances
    assert len(space.features) == 4 and set(space.features) <= set(M.columns)
    assert list(space.losses.columns) == ['logreg', 'cart', 'knn3', 'nb']
    # hard instances upper-left: the bad centroid at 135°
    c = space.coords[space.bad].mean()
    assert math.degrees(math.atan2(c.z2, c.z1)) == pytest.approx(135, abs=1e-6)
    # IH = 1 − mean probability of the true class (eq. 7)
    p = preds.pivot(index='instance', columns='model', values='p_true')
    np.testing.assert_allclose(space.ih.to_numpy(), 1 - p.mean(1).to_numpy())
    assert space.threshold == pytest.approx(math.log(2))
    kinds = space.footprint_table.groupby('kind').size().to_dict()
    assert kinds == {'good': 4, 'best': 4, 'easy': 1}
    assert space.irt_difficulty is not None and space.irt_difficulty.notna().any()
    f = space.frame()
    assert {'z1', 'z2', 'IH', 'IRT difficulty', 'class', 'loss_cart', 'x_x1', 'kDN'} <= set(f.columns)


def test_project_training_data_returns_training_coordinates(space, moons):
    ds, M, _ = moons
    np.testing.assert_allclose(space.project(M).to_numpy(), space.coords.to_numpy(), atol=1e-10)


def test_project_rejects_other_columns(space, moons):
    ds, M, _ = moons
    with pytest.raises(ValueError, match='lacks the selected measures'): space.project(M.drop(columns=space.features[0]))
    other = from_frame(pd.DataFrame({'a': [0., 1, 2, 3], 'b': [1., 0, 1, 0], 'y': [0, 1, 0, 1]}), 'y')
    with pytest.raises(ValueError, match='other columns'): space.project(other)


def test_same_seed_same_space(moons, space):
    ds, M, preds = moons
    again = instance_space(ds, measures=M, hardness=preds, n_features=4, random_state=0)
    np.testing.assert_array_equal(again.coords.to_numpy(), space.coords.to_numpy())
    pd.testing.assert_frame_equal(again.footprint_table, space.footprint_table)


def test_pyhard_preset_draws_traces_footprints(moons, space):
    "With PyHard's measures preset the footprints are TRACE's (construction and normaliser); otherwise ours."
    ds, M, preds = moons
    assert (space.footprints.construction, space.footprints.area_norm) == ('own', 'hull')
    ph = instance_space(ds, measures=M, hardness=preds, n_features=4, random_state=0, measures_kws={'preset': 'pyhard'})
    assert (ph.footprints.construction, ph.footprints.area_norm) == ('pyispace', 'pyispace')
    np.testing.assert_array_equal(ph.coords.to_numpy(), space.coords.to_numpy())          # only the footprints change
    from robustdiff.footprints import footprints
    ref = footprints(space.coords, space.good, best=space.best, easy=(space.ih <= 0.4).to_numpy(), area_norm='pyispace', construction='pyispace')
    pd.testing.assert_frame_equal(ph.footprint_table, ref.table)
    assert not np.allclose(ph.footprint_table.area.to_numpy(), space.footprint_table.area.to_numpy())


def test_instance_space_bad_input(moons):
    ds, M, preds = moons
    with pytest.raises(ValueError, match='larger than the number of measures'):
        instance_space(ds, measures=M, hardness=preds, n_features=7)
    with pytest.raises(ValueError, match='too few'):
        instance_space(ds.subset(np.arange(10)), measures=M.iloc[:10], hardness=preds[preds.instance < 10], n_features=4)
    with pytest.raises(ValueError, match='only one class'):
        instance_space(from_frame(pd.DataFrame({'a': np.arange(40.), 'y': 0}), 'y', checks=False), measures=M.iloc[:40])
    # all instances good: no hard centroid for the rotation
    easy = preds.assign(logloss=0.01, p_true=0.99)
    with pytest.raises(ValueError, match='no bad instances'):
        instance_space(ds, measures=M, hardness=easy, n_features=4)
    # a model without predictions for some instances
    gap = preds[~((preds.model == 'knn3') & (preds.instance < 5))]
    with pytest.raises(ValueError, match='NaN'):
        instance_space(ds, measures=M, hardness=gap, n_features=4)


def test_space_chart_and_explorer(space):
    ch = space_chart(space, color='IRT difficulty', footprint='best', models=['cart', 'nb'], selection=((-1, 1), (-1, 1)))
    spec = ch.to_dict()
    assert len(spec['layer']) >= 3
    with pytest.raises(ValueError, match='cannot colour'): space_chart(space, color='nope')
    with pytest.raises(ValueError, match='unknown models'): space_chart(space, color='IH', footprint='good', models=['svm'])
    ex = explore(space, color='kDN')
    assert len(ex.selected) == len(space.coords)
    ex.z1.value = (float(space.coords.z1.median()), ex.z1.max)
    sel = ex.export()
    assert 0 < len(sel) < len(space.coords) and (sel.z1 >= space.coords.z1.median() - 1e-9).all()
    ex.color.value = 'loss_knn3'; ex.kind.value = 'easy'; ex.models[0].value = False
    with pytest.raises(ValueError, match='color must be one of'): explore(space, color='nope')


def test_real_hardness_chain():
    hardness = pytest.importorskip('robustdiff.hardness', reason='robustdiff.hardness not merged yet')
    ds = make_synthetic('moons', 150, random_state=1)
    sp = instance_space(ds, models='quick', n_features=5, random_state=0)
    assert len(sp.features) == 5 and sp.measures.shape[1] == 13
    np.testing.assert_allclose(sp.project(ds).to_numpy(), sp.coords.to_numpy(), atol=1e-8)


# ------------------------------------------------------------------ isa / footprints / explore: no cycle

ISA_ALL = ['instant_runoff', 'select_features', 'PilotResult', 'pilot', 'rotation_matrix', 'InstanceSpace', 'instance_space']


def test_isa_exports_only_its_own_names():
    "The analysis is in isa, the footprints in footprints, the charts and explorer in explore: nothing re-exported."
    import robustdiff.isa as isa
    assert isa.__all__ == ISA_ALL
    for name in ('space_chart', 'footprint_chart', 'projection_chart', 'Explorer', 'explore'):
        assert not hasattr(isa, name), name
    assert not hasattr(isa, '__getattr__')


@pytest.mark.parametrize('first', ['robustdiff.isa', 'robustdiff.footprints', 'robustdiff.explore'])
def test_no_import_cycle(first):
    "In a fresh interpreter, whichever module comes first, each module's names import from it."
    code = (f"import {first}\nfrom robustdiff.isa import *\nfrom robustdiff.footprints import *\nfrom robustdiff.explore import *\n"
            f"missing = [n for n in {ISA_ALL + ['Footprints', 'footprints', 'space_chart', 'explore']!r} if n not in globals()]\n"
            f"assert not missing, missing\nprint('ok')")
    env = {**os.environ, 'PYTHONPATH': str(Path(__file__).resolve().parents[1])}
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, env=env)
    assert r.returncode == 0 and r.stdout.strip() == 'ok', r.stderr[-2000:]


def test_footprints_module_is_independent():
    "robustdiff.footprints imports neither isa nor explore; isa does not import explore at load time."
    code = ("import sys, robustdiff.footprints\nassert 'robustdiff.isa' not in sys.modules and 'robustdiff.explore' not in sys.modules\n"
            "import robustdiff.isa\nassert 'robustdiff.explore' not in sys.modules\nprint('ok')")
    env = {**os.environ, 'PYTHONPATH': str(Path(__file__).resolve().parents[1])}
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, env=env)
    assert r.returncode == 0 and r.stdout.strip() == 'ok', r.stderr[-2000:]
