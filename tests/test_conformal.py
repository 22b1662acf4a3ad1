"Class-conditional Mondrian sets (`classwise`), the cell table (`conformal_cells`) and their boundary checks."
import numpy as np, pandas as pd, pytest
from robustdiff.conformal import conformal_sets, conformal_cells, unpromised_classes, CELL_USES
from robustdiff._conformal import _bin_delta, _min_rows, _rank


def _imbalanced(n, rng, share=0.12):
    "Two classes, the minority `share` of the rows and less probable under the model than it should be; three difficulty bins."
    y = (rng.random(n) < share).astype(int)
    bins = rng.integers(0, 3, n)
    logit = np.where(y == 1, 0.3, -2.0) + rng.normal(0, 1.3, n) + 0.5 * bins * rng.normal(0, 1, n)
    p1 = 1 / (1 + np.exp(-logit))
    return np.column_stack([1 - p1, p1]), y, bins


def _coverage(S, y, bins):
    return pd.Series(S[np.arange(len(y)), y]).groupby([y, bins]).mean()


@pytest.mark.parametrize('delta', [None, 0.1])
def test_classwise_covers_every_class_and_bin(delta):
    rng = np.random.default_rng(3)
    Pc, yc, bc = _imbalanced(4000, rng)
    Pt, yt, bt = _imbalanced(30000, rng)
    pc = Pc[np.arange(len(yc)), yc]
    cw = conformal_sets(Pt, pc, bc, bt, alpha=0.1, delta=delta, cal_labels=yc, classwise=True)
    blind = conformal_sets(Pt, pc, bc, bt, alpha=0.1, delta=delta, cal_labels=yc)
    cov_cw, cov_blind = _coverage(cw, yt, bt), _coverage(blind, yt, bt)
    n_cal = pd.Series(1, index=pd.MultiIndex.from_arrays([yc, bc])).groupby(level=[0, 1]).sum()
    n_test = pd.Series(1, index=pd.MultiIndex.from_arrays([yt, bt])).groupby(level=[0, 1]).sum()
    se = np.sqrt(0.09 / n_cal + 0.09 / n_test)        # the calibration draw and the test rows
    assert (cov_cw >= 0.9 - 2 * se).all(), cov_cw
    assert cov_blind.loc[1].max() < 0.8               # label-blind sets leave the minority short in every bin
    assert cw.sum(axis=1).mean() > blind.sum(axis=1).mean()   # the price: larger sets


@pytest.mark.parametrize('delta', [None, 0.1])
def test_label_blind_with_labels_is_the_bin_sets(delta):
    rng = np.random.default_rng(4)
    Pc, yc, bc = _imbalanced(900, rng)
    Pt, yt, bt = _imbalanced(500, rng)
    pc = Pc[np.arange(len(yc)), yc]
    ref = conformal_sets(Pt, pc, bc, bt, alpha=0.1, delta=delta)
    np.testing.assert_array_equal(conformal_sets(Pt, pc, bc, bt, alpha=0.1, delta=delta, cal_labels=yc), ref)
    np.testing.assert_array_equal(conformal_sets(Pt, pc, bc, bt, alpha=0.1, delta=delta, cal_labels=yc, min_cell=1), ref)


def _small():
    "200 rows of class 0 over four bins, 30 of class 1 (25 in bin 0, 5 in bin 1), 5 of class 2 (bin 0)."
    y = np.r_[np.zeros(200, int), np.ones(30, int), np.full(5, 2)]
    b = np.r_[np.arange(200) % 4, np.zeros(25, int), np.ones(5, int), np.zeros(5, int)]
    return y, b


def test_cells_fall_back_from_cell_to_class_to_every_class():
    y, b = _small()
    cells = conformal_cells(b, y, n_classes=3, alpha=0.1, delta=None, classwise=True).set_index(['class', 'bin'])
    test_eq = lambda a, e: np.testing.assert_array_equal(a, e)
    test_eq(cells.loc[0, 'used'], ['cell'] * 4)                                  # 50 rows a cell, 9 needed
    test_eq(cells.loc[1, 'used'], ['cell', 'class', 'class', 'class'])           # 25 | 5, 0, 0: the class's 30 rows
    test_eq(cells.loc[2, 'used'], ['every class enters'] * 4)                    # 5 rows in all: fewer than 9
    test_eq(cells.needed.unique(), [_min_rows(0.1, None)])
    test_eq(cells.loc[(1, 1), 'n_used'], 30)
    assert set(cells.used) <= set(CELL_USES) and cells.attrs['classwise']
    # the sets follow the table: class 2 is in every set, class 1 in bin 1 uses the threshold of its 30 rows
    rng = np.random.default_rng(0)
    p_true = rng.uniform(0.3, 1, len(y))
    P = rng.dirichlet(np.ones(3), 400); tb = rng.integers(0, 4, 400)
    S = conformal_sets(P, p_true, b, tb, alpha=0.1, nonempty=False, cal_labels=y, classwise=True)
    assert S[:, 2].all()
    d = np.sort(1 - p_true[y == 1])[::-1]
    thr = d[_rank(30, 0.1) - 1]
    np.testing.assert_array_equal(S[tb == 1, 1], 1 - P[tb == 1, 1] <= thr)
    d0 = np.sort(1 - p_true[(y == 1) & (b == 0)])[::-1]
    np.testing.assert_array_equal(S[tb == 0, 1], 1 - P[tb == 0, 1] <= d0[_rank(25, 0.1) - 1])


def test_delta_is_split_over_the_groups_used():
    y, b = _small()
    for d in (0.05, 0.1, 0.3):
        cells = conformal_cells(b, y, n_classes=3, alpha=0.1, delta=d, classwise=True)
        groups = (cells.used == 'cell').sum() + cells.loc[cells.used == 'class', 'class'].nunique()
        K = cells.n_groups.iloc[0]
        assert groups <= K <= (cells.n_rows > 0).sum()
        np.testing.assert_allclose(cells.delta_cell, _bin_delta(d, K), rtol=1e-12)
        assert (cells.needed == _min_rows(0.1, _bin_delta(d, K))).all()
        ok = cells.used.isin(['cell', 'class'])
        assert (cells.n_used[ok] >= cells.needed[ok]).all()
        assert (cells.loc[cells.used == 'cell', 'n_rows'] >= cells.needed.iloc[0]).all()
    per = conformal_cells(b, y, n_classes=3, alpha=0.1, delta=0.1, classwise=True, simultaneous=False)
    np.testing.assert_allclose(per.delta_cell, 0.1)


def test_auto_turns_on_for_an_imbalanced_target_with_the_rows():
    rng = np.random.default_rng(1)
    b = rng.integers(0, 3, 2000)
    minority = (rng.random(2000) < 0.15).astype(int)
    balanced = rng.integers(0, 2, 2000)
    thin = np.r_[np.zeros(1990, int), np.ones(10, int)]
    on = lambda y: conformal_cells(b, y, n_classes=2, alpha=0.1, delta=0.1, classwise='auto').attrs['classwise']
    assert on(minority) and not on(balanced) and not on(thin)
    assert not conformal_cells(b, None, n_classes=2, alpha=0.1, delta=0.1, classwise='auto').attrs['classwise']
    p, P, tb = rng.uniform(0.2, 1, 2000), rng.dirichlet([1, 1], 300), rng.integers(0, 3, 300)
    for y, same in ((minority, True), (balanced, False)):
        np.testing.assert_array_equal(conformal_sets(P, p, b, tb, delta=0.1, cal_labels=y, classwise='auto'),
                                      conformal_sets(P, p, b, tb, delta=0.1, cal_labels=y, classwise=same))


def test_unpromised_classes_and_min_cell():
    y, b = _small()
    assert unpromised_classes(conformal_cells(b, y, n_classes=3, alpha=0.1, delta=0.1, classwise=False)) == [0, 1, 2]
    assert unpromised_classes(conformal_cells(b, y, n_classes=3, alpha=0.1, delta=0.1, classwise=True)) == []
    cells = conformal_cells(b, y, n_classes=3, alpha=0.1, delta=None, classwise=True, min_cell=40)
    assert (cells.needed == 40).all() and (cells.loc[cells['class'] == 1, 'used'] == 'every class enters').all()


def test_labels_through_classes():
    y, b = _small()
    names = np.array(['a', 'b', 'c'])
    rng = np.random.default_rng(2)
    p_true, P, tb = rng.uniform(0.3, 1, len(y)), rng.dirichlet(np.ones(3), 50), rng.integers(0, 4, 50)
    np.testing.assert_array_equal(conformal_sets(P, p_true, b, tb, cal_labels=names[y], classes=names, classwise=True),
                                  conformal_sets(P, p_true, b, tb, cal_labels=y, classwise=True))
    cells = conformal_cells(b, names[y], n_classes=3, classes=names, classwise=True)
    assert (cells.label == names[cells['class']]).all()


def test_bad_input_is_refused_with_one_line():
    y, b = _small()
    P, p = np.full((3, 3), 1 / 3), np.full(len(y), 0.5)
    with pytest.raises(ValueError, match='needs cal_labels'): conformal_sets(P, p, b, [0, 1, 2], classwise=True)
    with pytest.raises(ValueError, match='classwise must be'): conformal_sets(P, p, b, [0, 1, 2], cal_labels=y, classwise='yes')
    with pytest.raises(ValueError, match='min_cell'): conformal_sets(P, p, b, [0, 1, 2], cal_labels=y, min_cell=0)
    bad = y.copy(); bad[7] = 3
    with pytest.raises(ValueError, match=r'cal_labels row 7: 3 is not a class index 0\.\.2'): conformal_sets(P, p, b, [0, 1, 2], cal_labels=bad)
    with pytest.raises(ValueError, match="cal_labels row 0: 'z'"): conformal_sets(P, p, b, [0, 1, 2], cal_labels=np.r_[['z'], ['a'] * 234], classes=['a', 'b', 'c'])
    with pytest.raises(ValueError, match='cal_labels has shape'): conformal_sets(P, p, b, [0, 1, 2], cal_labels=y[:-1])
    with pytest.raises(ValueError, match='3 test rows but 2 test bins'): conformal_sets(P, p, b, [0, 1])
    with pytest.raises(ValueError, match='n_classes'): conformal_cells(b, y, n_classes=0, alpha=0.1, delta=None, classwise=True)


def _crepes_draws(cb, tb, C, seed):
    "The uniform draws crepes' smoothed Mondrian p-values take from NumPy's legacy generator: per bin in sorted order, (rows, C)."
    rs, U = np.random.RandomState(seed), np.empty((len(tb), C))
    for k in np.unique(np.r_[cb, tb]):
        U[tb == k] = rs.rand((tb == k).sum(), C)
    return U


def test_smoothed_p_values_equal_crepes():
    from robustdiff.conformal import mondrian_p_values
    from crepes import ConformalClassifier
    rng = np.random.default_rng(6)
    cal, cb = np.round(rng.random(500), 1), rng.integers(0, 3, 500)      # many ties
    St, tb = np.round(rng.random((80, 4)), 1), rng.integers(0, 3, 80)
    ref = ConformalClassifier().fit(cal, bins=cb).predict_p(St, bins=tb, smoothing=True, seed=11)
    np.testing.assert_allclose(mondrian_p_values(cal, cb, St, tb, u=_crepes_draws(cb, tb, 4, 11)), ref, atol=1e-12)


def test_smoothed_sets_are_seeded_and_cover_exactly_on_average():
    from robustdiff.conformal import mondrian_p_values
    rng = np.random.default_rng(7)
    Pc, yc, bc = _imbalanced(2000, rng)
    Pt, yt, bt = _imbalanced(20000, rng)
    pc = Pc[np.arange(len(yc)), yc]
    state = np.random.get_state()[1].copy()
    S = conformal_sets(Pt, pc, bc, bt, alpha=0.1, nonempty=False, smoothing=True, seed=3)
    np.testing.assert_array_equal(np.random.get_state()[1], state)          # NumPy's global generator untouched
    U = np.random.default_rng(3).random(Pt.shape)
    np.testing.assert_array_equal(S, mondrian_p_values(1 - pc, bc, 1 - Pt, bt, u=U) > 0.1)
    np.testing.assert_array_equal(S, conformal_sets(Pt, pc, bc, bt, alpha=0.1, nonempty=False, smoothing=True, seed=3))
    assert not (S == conformal_sets(Pt, pc, bc, bt, alpha=0.1, nonempty=False, smoothing=True, seed=4)).all()
    plain = conformal_sets(Pt, pc, bc, bt, alpha=0.1, nonempty=False)
    assert S.sum() <= plain.sum() and (S <= plain).mean() > 0.99       # smoothing only trims the boundary
    cov = S[np.arange(len(yt)), yt].mean()
    assert abs(cov - 0.9) < 3 * np.sqrt(0.09 / 2000 + 0.09 / 20000)
    with pytest.raises(ValueError, match='smoothing applies to delta=None'): conformal_sets(Pt, pc, bc, bt, alpha=0.1, delta=0.1, smoothing=True)
    with pytest.raises(ValueError, match='seed must be'): conformal_sets(Pt, pc, bc, bt, alpha=0.1, smoothing=True, seed=-1)


def test_nonempty_sets_are_the_filled_sets():
    "`nonempty` puts the most probable class into an empty set and changes nothing else."
    rng = np.random.default_rng(8)
    Pc, yc, bc = _imbalanced(1000, rng)
    Pt, yt, bt = _imbalanced(3000, rng)
    pc = Pc[np.arange(len(yc)), yc]
    for d in (None, 0.1):
        raw = conformal_sets(Pt, pc, bc, bt, alpha=0.3, delta=d, nonempty=False)
        S = conformal_sets(Pt, pc, bc, bt, alpha=0.3, delta=d)
        e = ~raw.any(axis=1)
        assert e.any() and S.any(axis=1).all() and (S[~e] == raw[~e]).all() and (S[e].sum(axis=1) == 1).all()
        np.testing.assert_array_equal(S[e].argmax(axis=1), Pt[e].argmax(axis=1))


def test_smoothed_thin_classes_get_a_threshold():
    "Smoothed p-values are exactly valid with any number of rows: a class too thin for a cell gets its class-wide randomised threshold instead of entering every set."
    y, b = _small()
    cells = conformal_cells(b, y, n_classes=3, alpha=0.1, classwise=True, smoothing=True).set_index(['class', 'bin'])
    assert (cells.needed == _min_rows(0.1, None)).all()
    np.testing.assert_array_equal(cells.loc[2, 'used'], ['class'] * 4)                 # 5 rows in all
    np.testing.assert_array_equal(cells.loc[1, 'used'], ['cell', 'class', 'class', 'class'])
    with pytest.raises(ValueError, match='smoothing applies to delta=None'):
        conformal_cells(b, y, n_classes=3, alpha=0.1, delta=0.1, smoothing=True)
    rng = np.random.default_rng(9)
    p_true, P, tb = rng.uniform(0.3, 1, len(y)), rng.dirichlet(np.ones(3), 2000), rng.integers(0, 4, 2000)
    S = conformal_sets(P, p_true, b, tb, alpha=0.1, nonempty=False, cal_labels=y, classwise=True, smoothing=True, seed=1)
    assert 0 < S[:, 2].mean() < 1                      # class 2 no longer in every set


# ---- a regressor's intervals (`conformal_intervals`, `interval_choice`) ----
from robustdiff.conformal import conformal_intervals, interval_choice


def _hetero(n, rng):
    "x uniform; the residual's scale grows with x (0.2 + x); four bins of x."
    x = rng.random(n)
    return x, rng.normal(0, 0.2 + x), np.minimum((x * 4).astype(int), 3)


@pytest.mark.parametrize('delta', [None, 0.1])
@pytest.mark.parametrize('normalised', [False, True])
def test_intervals_cover_every_bin_of_a_heteroscedastic_problem(delta, normalised):
    rng = np.random.default_rng(7)
    xc, rc, bc = _hetero(3000, rng)
    xt, rt, bt = _hetero(20000, rng)
    kw = dict(cal_sigma=0.2 + xc, test_sigma=0.2 + xt) if normalised else {}
    lo, hi = conformal_intervals(np.zeros(len(rt)), rc, bc, bt, alpha=0.1, delta=delta, **kw)
    cov = pd.Series((lo <= rt) & (rt <= hi)).groupby(bt).mean()
    se = np.sqrt(0.09 / np.bincount(bc) + 0.09 / np.bincount(bt))
    assert (cov >= 0.9 - 2 * se).all(), cov
    lo_m, hi_m = conformal_intervals(np.zeros(len(rt)), rc, np.zeros(len(rc)), np.zeros(len(rt)), alpha=0.1)
    marg = pd.Series((lo_m <= rt) & (rt <= hi_m)).groupby(bt).mean()
    assert marg.iloc[-1] < 0.85 and marg.iloc[0] > 0.95      # one threshold for all: short in the hardest bin, wide in the easiest
    if delta is not None: assert cov.min() > 0.9               # δ = 0.1 for all bins at once: above 1 − α here


def test_intervals_are_centred_and_scaled():
    lo, hi = conformal_intervals([10., 20.], [-1., 2., -3., 4.] * 10, [0] * 40, [0, 0], alpha=0.1, cal_sigma=np.full(40, 2.), test_sigma=[1., 4.])
    np.testing.assert_allclose(hi - [10., 20.], [10., 20.] - lo)           # symmetric around ŷ
    np.testing.assert_allclose((hi - lo)[1] / (hi - lo)[0], 4.)            # the width follows σ


def test_choice_takes_the_normalised_intervals_only_when_they_are_tighter():
    rng = np.random.default_rng(8)
    x, r, b = _hetero(3000, rng)
    good = interval_choice(r, b, 0.2 + x, alpha=0.1, random_state=1)
    assert good.attrs['choice'] == 'normalised' and good.attrs['width']['normalised'] < good.attrs['width']['mondrian']
    noise = interval_choice(r, b, rng.uniform(0.1, 3, 3000), alpha=0.1, random_state=1)
    assert noise.attrs['choice'] == 'mondrian'
    pd.testing.assert_frame_equal(interval_choice(r, b, 0.2 + x, random_state=1), good)   # same seed, same table
    assert set(good.columns) == {'kind', 'bin', 'n', 'coverage', 'se', 'width'}


def test_interval_bad_input_is_refused_with_one_line():
    with pytest.raises(ValueError, match='3 calibration residuals but 2 calibration bins'): conformal_intervals([1.], [1., 2., 3.], [0, 0], [0])
    with pytest.raises(ValueError, match='1 test predictions but 2 test bins'): conformal_intervals([1.], [1.], [0], [0, 1])
    with pytest.raises(ValueError, match='cal_residuals row 1 is nan'): conformal_intervals([1.], [1., np.nan], [0, 0], [0])
    with pytest.raises(ValueError, match=r'test_sigma row 0 is -1.0'): conformal_intervals([1.], [1.], [0], [0], cal_sigma=[1.], test_sigma=[-1.])
    with pytest.raises(ValueError, match=r'cal_sigma has shape \(2,\)'): conformal_intervals([1.], [1.], [0], [0], cal_sigma=[1., 1.], test_sigma=[1.])
    with pytest.raises(ValueError, match='alpha must be in'): conformal_intervals([1.], [1.], [0], [0], alpha=1.5)
    with pytest.raises(ValueError, match='3 residuals, 2 bins and 3 scales'): interval_choice([1., 2., 3.], [0, 0], [1., 1., 1.])
