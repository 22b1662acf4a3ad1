"""The report's speed work changes no number: the label-noise refits beside the stages (n_jobs > 1), the verdict reusing the
SCC stage's replicates, the per-instance means by cell. Same seed → the same tables whatever n_jobs is."""
import warnings
import pandas as pd
import pytest
from robustdiff.report import build_report, STAGES
from robustdiff._run import _Ctx, _refits_beside, _stage_order; from robustdiff.run import REFITS_BESIDE_MAX_ROWS


def _tables(rep):
    return {f'{s}/{k}': v for s, st in rep.stages.items() for k, v in st.tables.items()}


@pytest.fixture(scope='module')
def pair():
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        one = build_report('sklearn:wine', models='quick', respondents='models', n_jobs=1, progress=False)
        two = build_report('sklearn:wine', models='quick', respondents='models', n_jobs=2, progress=False)
    return one, two


def test_same_tables_whatever_n_jobs(pair):
    one, two = pair
    a, b = _tables(one), _tables(two)
    assert set(a) == set(b) and 'ela/ela' in a and 'verdict/verdict' in a
    for k in a: pd.testing.assert_frame_equal(a[k], b[k], check_exact=True, obj=k)
    # the verdict, its pairs, each noise's front and the headline among them
    assert {'verdict/verdict_pairs', 'verdict/headline'} <= set(a) and len(a['verdict/verdict_front'])
    assert set(a['verdict/verdict_front'].noise) == {'feature noise', 'label noise', 'perturbation'}


def test_stages_in_order_and_all_ran(pair):
    for rep in pair:
        assert list(rep.stages) == list(STAGES)
        assert all(s.status in ('ok', 'warn') for s in rep.stages.values()), {k: s.message for k, s in rep.stages.items()}
    assert 'noise_reps' not in pair[1].extra          # the SCC replicates are dropped once the verdict used them
    assert 'perturbation_reps' not in pair[1].extra   # (and the perturbation stage's)


def test_refits_beside_only_with_ela_and_cores():
    class Rows:
        def __init__(self, n): self.n_instances = n
    ctx = lambda names, n_jobs, n=5000, backend=None: _Ctx(Rows(n), dict(n_jobs=n_jobs, backend=backend), {}, names=names)
    assert _refits_beside(ctx(('accuracy', 'ela'), 2)) and _refits_beside(ctx(('ela',), -1))
    assert not _refits_beside(ctx(('accuracy', 'ela'), 1)) and not _refits_beside(ctx(('accuracy', 'scc'), 2))
    assert not _refits_beside(ctx(('accuracy', 'ela'), 2, REFITS_BESIDE_MAX_ROWS + 1))   # big tables: memory first
    assert _refits_beside(ctx(('ela',), 2, backend='loky')) and not _refits_beside(ctx(('ela',), 2, backend='dask'))
    c = ctx(STAGES, 2)
    assert _stage_order(c, STAGES) == list(STAGES)    # nothing running beside: the usual order
    c._refit = object()
    order = _stage_order(c, STAGES)
    assert order[-2:] == ['ela', 'verdict'] and sorted(order) == sorted(STAGES)
