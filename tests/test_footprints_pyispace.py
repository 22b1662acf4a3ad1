"""`footprints(construction='pyispace')` against PyISpace 0.3.7's own TRACE on the breast-cancer instance space.

tests/data/pyispace_trace/trace.csv was written by PyISpace itself (make_reference.py beside it); PyISpace is not needed here."""
from pathlib import Path
import numpy as np, pandas as pd, pytest
from threadpoolctl import threadpool_limits
from robustdiff.footprints import footprints, _build_region, _stats

REF = Path(__file__).parent / 'data' / 'pyispace_trace'


@pytest.fixture(scope='module')
def space():
    d = pd.read_csv(REF / 'breast_cancer_space.csv.gz')
    good = d[[c for c in d.columns if c.startswith('good_')]].astype(bool)
    good.columns = [c.removeprefix('good_') for c in good.columns]
    return d[['z1', 'z2']].to_numpy(), good, pd.read_csv(REF / 'trace.csv')


@pytest.mark.parametrize('scale', [1.0, 4.0])    # 4×: alpha = 2 breaks every cluster up, PyISpace falls back to optimizealpha
def test_pyispace_construction_is_traces(space, scale):
    Z, good, ref = space
    Z = Z * scale
    ref = ref[ref.scale == scale].set_index('set')
    fp = footprints(Z, good, area_norm='pyispace', construction='pyispace')
    assert fp.construction == 'pyispace'
    assert fp.space_area == pytest.approx(ref.loc['space', 'area'], rel=1e-9)
    t = fp.table.set_index('model')
    np.testing.assert_allclose(t.area, ref.loc[t.index, 'area'], rtol=1e-9)
    np.testing.assert_array_equal(t.n_instances, ref.loc[t.index, 'elements'])
    np.testing.assert_array_equal(t.n_good, ref.loc[t.index, 'good_elements'])
    np.testing.assert_allclose(t.area_norm, ref.loc[t.index, 'area'] / ref.loc['space', 'area'], rtol=1e-9)
    with threadpool_limits(1):                # as `footprints` runs it (scipy's many tiny LAPACK calls)
        sp = _build_region(Z, np.ones(len(Z), bool), 0.55, None, None, 'pyispace'); inside = sp.contains(Z)
    assert int(inside.sum()) == ref.loc['space', 'elements']                  # the space footprint holds what TRACE's holds


def test_own_construction_is_not_traces(space):
    "The default construction differs from TRACE (the check above can fail): smaller space, fewer instances in it."
    Z, good, ref = space
    ref = ref[ref.scale == 1.0].set_index('set')
    with threadpool_limits(1):
        own = _build_region(Z, np.ones(len(Z), bool), 0.55, None, None, 'own')
        s = _stats(own, Z, np.ones(len(Z), bool), 1.0, 1.0)
    assert s['n_instances'] < ref.loc['space', 'elements']
    assert abs(s['area'] - ref.loc['space', 'area']) > 0.1


def test_construction_is_checked(space):
    Z, good, _ = space
    with pytest.raises(ValueError, match='construction must be one of'):
        footprints(Z, good, construction='trace')


def test_area_norm_pyispace_is_pyispaces_formula():
    "Two unit squares 2 apart: hull area 4, PyISpace's space footprint (all instances good) area 2, density 441."
    from robustdiff.footprints import footprints
    g = np.linspace(0, 1, 21)
    sq = np.array([(x, y) for x in g for y in g])
    Z = np.vstack([sq, sq + [3, 0]])
    good = pd.DataFrame({'left': Z[:, 0] <= 1 + 1e-9, 'right': Z[:, 0] >= 3 - 1e-9})
    fp = footprints(Z, good, alpha_radius=0.08, min_samples=4, area_norm='pyispace')
    t = fp.table.set_index('model')
    space_area, space_density = 2.0, len(Z) / 2.0          # TRACE: out.space = TRACEbuild(Z, true(ninst, 1), opts)
    assert fp.space_area == pytest.approx(space_area, abs=1e-9)
    for m in ('left', 'right'):
        assert t.loc[m, 'area'] == pytest.approx(1.0, abs=1e-9)
        assert t.loc[m, 'area_norm'] == pytest.approx(t.loc[m, 'area'] / space_area, abs=1e-12)
        assert t.loc[m, 'density_norm'] == pytest.approx(t.loc[m, 'density'] / space_density, abs=1e-12)
    hull = footprints(Z, good, alpha_radius=0.08, min_samples=4).table.set_index('model')
    assert hull.loc['left', 'area_norm'] == pytest.approx(0.25, abs=1e-9)     # the two normalisers differ here
