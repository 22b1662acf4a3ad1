"""Integration, property and bad-input tests for robustdiff.irt (issue 3).

Tolerances: a difficulty estimated from J binary responses has a standard error of about 1/sqrt(J·p(1−p)), i.e.
≈ 0.1–0.2 for the J = 200–400 used here, so recovery is asserted as correlation ≥ 0.97 and RMSE ≤ 0.25 (1PL).
2PL slopes are much noisier (sampling sd ≈ 0.15–0.3 at J = 400), hence correlation ≥ 0.8 for them.
"""
import os, warnings
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck
from scipy.stats import spearmanr

from robustdiff.irt import fit_irt, difficulty, simulate_responses, irt_checks, irt_probability, IRTResult, METRICS

def _corr(x, y):
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(x) & np.isfinite(y)
    return np.corrcoef(x[ok], y[ok])[0, 1]

# ---------------------------------------------------------------- recovery of known parameters
def test_1pl_recovers_simulated_parameters():
    U, items, abil = simulate_responses(300, 1500, sigma=1.2, random_state=11)
    res = fit_irt(U)
    ok = (res.items.status == 'ok').to_numpy()
    b, bt = res.items.difficulty[ok], items.difficulty[ok]
    assert _corr(b, bt) > 0.97
    assert np.sqrt(np.mean((b - bt) ** 2)) < 0.25
    assert abs(res.sigma - 1.2) < 0.2
    assert _corr(res.abilities.ability, abil.ability) > 0.99
    assert res.converged

def test_2pl_recovers_slopes_and_difficulties():
    U, items, _ = simulate_responses(400, 300, model='2PL', random_state=12)
    res = fit_irt(U, model='2PL')
    ok = (res.items.status == 'ok').to_numpy()
    assert _corr(res.items.discrimination[ok], items.discrimination[ok]) > 0.8
    assert _corr(res.items.difficulty[ok], items.difficulty[ok]) > 0.95
    assert np.all(np.diff(res.loglik_trace) > -1e-8 * abs(res.loglik))  # penalised EM is monotone

def test_2pl_finds_abstruse_instances_and_notabs_drops_them():
    rng = np.random.default_rng(5)
    U, items, abil = simulate_responses(400, 200, model='2PL', random_state=5)
    theta = abil.ability.to_numpy()
    neg = np.arange(10)                              # ten instances that better models get wrong more often
    P = irt_probability(theta[:, None], 0.0, -1.5)
    U.iloc[:, neg] = (rng.random((400, 10)) < P).astype('int8')
    res = fit_irt(U, model='2PL')
    assert (res.items.discrimination.iloc[neg] < 0).all()
    assert (res.items.discrimination.iloc[10:] < 0).mean() < 0.05
    d = difficulty(U, metric='2PL(¬abs)')
    assert not set(neg) & set(d.index)
    assert len(difficulty(U, metric='AvE(¬abs)')) <= 200 - 10

# ---------------------------------------------------------------- agreement with girth
def test_rasch_ranks_like_girth():
    U, _, _ = simulate_responses(60, 400, random_state=13)
    ours, theirs = fit_irt(U), fit_irt(U, method='girth')
    ok = (ours.items.status != 'all_right') & (ours.items.status != 'all_wrong')
    assert spearmanr(ours.items.difficulty[ok], theirs.items.difficulty[ok])[0] > 0.999
    # both centre the abilities at 0 but girth fixes sigma = 1, so the locations differ: compare centred
    assert _corr(ours.items.difficulty[ok], theirs.items.difficulty[ok]) > 0.99

def test_2pl_agrees_with_girth_on_a_small_matrix():
    # girth's twopl_mml is slow (~2 s here) and underflows beyond ~1500 items, so only a small matrix
    U, _, _ = simulate_responses(100, 60, model='2PL', random_state=0)
    ours, theirs = fit_irt(U, model='2PL'), fit_irt(U, model='2PL', method='girth')
    ok = (ours.items.status == 'ok') & (theirs.items.status == 'ok')     # near-zero slopes make b explode: excluded
    assert spearmanr(ours.items.difficulty[ok], theirs.items.difficulty[ok])[0] > 0.99
    assert spearmanr(ours.items.discrimination[ok], theirs.items.discrimination[ok])[0] > 0.99

# ---------------------------------------------------------------- extremes and the [-6, 6] filter
def _with_extremes():
    U, _, _ = simulate_responses(100, 300, b_sd=1.0, random_state=2)
    U[0] = 1; U[1] = 0
    return U

def test_extremes_are_reported_not_infinite():
    U = _with_extremes()
    res = fit_irt(U)
    assert res.items.status.iloc[0] == 'all_right' and res.items.status.iloc[1] == 'all_wrong'
    assert res.items.difficulty.iloc[:2].isna().all()
    assert np.isfinite(res.items.difficulty[res.items.status.isin(['ok', 'out_of_range'])]).all()
    assert not np.isinf(res.items.difficulty).any()

def test_difficulty_extremes_policies():
    U = _with_extremes()
    d = difficulty(U)
    assert 0 not in d.index and 1 not in d.index and len(d) == U.shape[1] - 2
    c = difficulty(U, extremes='clip')
    assert list(c.index) == list(U.columns) and c.loc[0] == -6 and c.loc[1] == 6
    with pytest.raises(ValueError, match='all-right'):
        difficulty(U, extremes='error')
    with pytest.raises(ValueError, match="extremes must be"):
        difficulty(U, extremes='ignore')

def test_b_range_filter_is_explicit():
    U, _, _ = simulate_responses(100, 400, b_sd=3.0, random_state=3)
    res = fit_irt(U, b_range=3.0)
    out = res.items.status == 'out_of_range'
    assert out.any() and (res.items.difficulty[out].abs() > 3).all()   # value kept, flagged
    kept = difficulty(U, b_range=3.0)
    assert kept.abs().max() <= 3 and len(kept) == int((res.items.status == 'ok').sum())
    assert difficulty(U, b_range=3.0, extremes='clip').abs().max() == 3

def test_ave_is_one_minus_accuracy():
    U = _with_extremes()
    np.testing.assert_allclose(difficulty(U, metric='AvE').to_numpy(), 1 - U.mean(0).to_numpy())

# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize('bad, match', [
    (np.array([[0, 1, np.nan], [1, 0, 1]]), 'NaN'),
    (np.array([[0, 2, 1], [1, 0, 1]]), 'binary'),
    (np.array([[0, 1, 1]]), 'at least 2 models'),
    (np.array([[0], [1]]), 'at least 2 instances'),
    (np.zeros((2, 2, 2)), '2-D'),
    (np.array([[0.5, 1], [1, 0]]), 'binary'),
])
def test_bad_matrices(bad, match):
    with pytest.raises(ValueError, match=match):
        fit_irt(bad)

def test_bad_types_and_options():
    with pytest.raises(TypeError):
        fit_irt('not a matrix')
    with pytest.raises(TypeError):
        fit_irt(pd.DataFrame([['a', 'b'], ['c', 'd']]))
    U, _, _ = simulate_responses(20, 30, random_state=0)
    with pytest.raises(ValueError, match="'1PL' or '2PL'"):
        fit_irt(U, model='3PL')
    with pytest.raises(ValueError, match='method'):
        fit_irt(U, method='bayes')
    with pytest.raises(ValueError, match='unknown difficulty metric'):
        difficulty(U, metric='IRT')
    with pytest.raises(ValueError, match='nothing to estimate'):
        fit_irt(np.ones((6, 5)))                # every instance all-right

def test_irtresult_gives_only_its_own_metric():
    U, _, _ = simulate_responses(30, 50, random_state=0)
    res = fit_irt(U)
    assert difficulty(res).equals(difficulty(U))
    with pytest.raises(ValueError, match='gives only'):
        difficulty(res, metric='2PL')

# ---------------------------------------------------------------- properties
@st.composite
def _matrices(draw):
    J = draw(st.integers(3, 25)); I = draw(st.integers(3, 40))
    seed = draw(st.integers(0, 2**31 - 1))
    return np.random.default_rng(seed).integers(0, 2, (J, I)).astype('int8'), seed

@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_matrices())
def test_rasch_properties(args):
    A, seed = args
    s = A.sum(0)
    if ((s > 0) & (s < A.shape[0])).sum() < 2:
        with pytest.raises(ValueError): fit_irt(A)
        return
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        res = fit_irt(A)
        st_ = res.items.status.astype(str).to_numpy()
        # status follows the proportion correct; finite estimates exactly where there is one
        assert ((st_ == 'all_right') == (s == A.shape[0])).all() and ((st_ == 'all_wrong') == (s == 0)).all()
        b = res.items.difficulty.to_numpy()
        fin = np.isin(st_, ['ok', 'out_of_range'])
        assert np.isfinite(b[fin]).all() and np.isnan(b[~fin]).all()
        # Rasch: difficulty is a non-increasing function of the number right
        o = np.argsort(s[fin], kind='stable')
        assert np.all(np.diff(b[fin][o]) <= 1e-6)
        # permuting instances permutes difficulties; permuting models changes nothing
        perm = np.random.default_rng(seed).permutation(A.shape[1])
        b2 = fit_irt(A[:, perm]).items.difficulty.to_numpy()
        np.testing.assert_allclose(b2, b[perm], atol=1e-6, equal_nan=True)
        rperm = np.random.default_rng(seed + 1).permutation(A.shape[0])
        np.testing.assert_allclose(fit_irt(A[rperm]).items.difficulty.to_numpy(), b, atol=1e-6, equal_nan=True)

@settings(max_examples=15, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=4), min_size=8, max_size=8, unique=True))
def test_index_follows_the_columns(labels):
    U, _, _ = simulate_responses(30, 8, random_state=1)
    U.columns = labels
    res = fit_irt(U)
    assert res.items.instance.tolist() == labels
    assert set(difficulty(U, extremes='clip').index) == set(labels)

def test_deterministic_and_dedupe():
    U, _, _ = simulate_responses(40, 100, random_state=4)
    a, b = fit_irt(U), fit_irt(U)
    pd.testing.assert_frame_equal(a.items, b.items)
    U2 = pd.concat([U, U.iloc[:10]])                      # ten runs repeated under the same label
    assert fit_irt(U2, dedupe_models=True).n_models == 40
    np.testing.assert_allclose(fit_irt(U2, dedupe_models=True).items.difficulty, a.items.difficulty, atol=1e-6)
    assert len(fit_irt(U2).abilities) == 50

def test_checks_flag_small_and_degenerate_matrices():
    small = fit_irt(simulate_responses(6, 200, random_state=0)[0])
    chk = irt_checks(small).set_index('check')
    assert chk.loc['models', 'status'] == 'warn'
    big = fit_irt(simulate_responses(200, 500, random_state=0)[0])
    assert (irt_checks(big).status == 'ok').all()
    noise = fit_irt(np.random.default_rng(0).integers(0, 2, (40, 300)))
    assert irt_checks(noise).set_index('check').loc['sigma', 'status'] == 'warn'

# ---------------------------------------------------------------- real data
def test_real_matrix_agrees_with_the_authors_when_fed_their_input():
    from robustdiff.datasets import read_responses
    U, info = read_responses('diabetes')
    res = fit_irt(U)
    assert res.items.instance.tolist() == list(U.columns)
    # the authors fitted de-duplicated rows plus five artificial learners (see benchmarks/timings/bench_irt.py);
    # on the matrix as given, Spearman is capped by the proportion correct (≈ 0.98 here)
    rho = spearmanr(res.items.difficulty, info.Dffclt, nan_policy='omit')[0]
    assert rho > 0.97
    dd = fit_irt(U, dedupe_models=True)
    assert spearmanr(dd.items.difficulty, info.Dffclt, nan_policy='omit')[0] > rho

# ---------------------------------------------------------------- issue 16: the optimised paths give today's numbers
# tests/irt_frozen_v0.py is a frozen copy of the estimator before the optimisations (no copies avoided, float32 item
# statistics, one BLAS call per E-step, single thread). Difficulties and abilities must agree to 1e-10 (relative,
# floor 1); infit/outfit to 1e-5, since the old code summed float32 terms and the new one float64.
import tracemalloc
from irt_frozen_v0 import fit_irt_v0
from robustdiff.irt import _fit_stats, _stats_block, difficulty_se_chart

def _close(new, old, rtol):
    new, old = np.asarray(new, float), np.asarray(old, float)
    np.testing.assert_array_equal(np.isnan(new), np.isnan(old))
    ok = ~np.isnan(old)
    assert np.all(np.abs(new[ok] - old[ok]) <= rtol * np.maximum(1, np.abs(old[ok]))), np.max(np.abs(new[ok] - old[ok]))

def _same_as_frozen(U, rtol=1e-10, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        new, old = fit_irt(U, **kw), fit_irt_v0(U, **kw)
    for c in ('difficulty', 'discrimination', 'p_correct'): _close(new.items[c], old['items'][c], rtol)
    for c in ('infit', 'outfit'): _close(new.items[c], old['items'][c], max(rtol, 1e-5))
    assert new.items.status.equals(old['items'].status)
    for c in ('ability', 'ability_sd', 'accuracy'): _close(new.abilities[c], old['abilities'][c], rtol)
    assert (new.n_iter, new.converged, new.n_models) == (old['n_iter'], old['converged'], old['n_models'])
    _close(new.loglik_trace, old['trace'], rtol)
    return new

@pytest.mark.parametrize('kw', [dict(), dict(sigma_update='exact'), dict(n_quad=31, bound=8.0), dict(b_range=1.0),
                                dict(tol=1e-6), dict(max_iter=3)])
def test_1pl_identical_to_frozen(kw):
    U = _with_extremes()
    _same_as_frozen(U, rtol=0.0, **kw)                                 # the 1PL path is bit for bit the same
    _same_as_frozen(simulate_responses(80, 2000, sigma=2.5, b_sd=3, random_state=7)[0], rtol=0.0, **kw)

def test_1pl_identical_to_frozen_dedupe_and_input_types():
    U, _, _ = simulate_responses(40, 300, random_state=4)
    U2 = pd.concat([U, U.iloc[:10]])
    _same_as_frozen(U2, rtol=0.0, dedupe_models=True)
    A = U.to_numpy()
    for M in (np.asfortranarray(A), A.astype(bool), A.astype(float), A.astype(np.int64), U.astype(float)):
        _same_as_frozen(M, rtol=0.0)

@pytest.mark.parametrize("seed, kw", [(12, dict()), (3, dict(a_prior_sd=None, max_iter=60)), (5, dict(a_max=2.0, max_iter=60))])
def test_2pl_matches_frozen(seed, kw):
    U, _, _ = simulate_responses(60, 250, model='2PL', random_state=seed)
    U.iloc[:, 0] = 1                                                      # one all-right instance
    _same_as_frozen(U, model='2PL', **kw)

def test_2pl_dedupe_matches_frozen():
    U, _, _ = simulate_responses(60, 400, model='2PL', random_state=8)
    _same_as_frozen(pd.concat([U, U.iloc[:7]]), model='2PL', dedupe_models=True)

def test_threads_give_identical_results():
    # 3 000 instances → 8 item blocks of 375: the threads really split the work
    U, _, _ = simulate_responses(60, 3000, model='2PL', random_state=9)
    ref = fit_irt(U, model='2PL', n_jobs=1)
    for n_jobs in (2, 3, -1):
        r = fit_irt(U, model='2PL', n_jobs=n_jobs)
        pd.testing.assert_frame_equal(r.items, ref.items, check_exact=True)
        pd.testing.assert_frame_equal(r.abilities, ref.abilities, check_exact=True)
        np.testing.assert_array_equal(r.loglik_trace, ref.loglik_trace)
    one, two = fit_irt(U, n_jobs=1), fit_irt(U, n_jobs=2)
    pd.testing.assert_frame_equal(one.items, two.items, check_exact=True)

def test_grouped_item_statistics_equal_the_elementwise_ones():
    U, _, _ = simulate_responses(150, 2000, random_state=1)
    A = U.to_numpy(); AT = np.ascontiguousarray(A.T)
    res = fit_irt(U)
    keep = (res.items.status != 'all_right') & (res.items.status != 'all_wrong')
    cols = np.flatnonzero(keep); b = res.items.difficulty.to_numpy()[cols]; a = np.ones(len(cols))
    theta = res.abilities.ability.to_numpy()
    infit, outfit, info = _fit_stats(AT, cols, a, b, theta)               # grouped by distinct b
    num_in, num_out, den = _stats_block(AT, cols, a, b, theta)            # elementwise
    np.testing.assert_allclose(infit, num_in / den, rtol=1e-12)
    np.testing.assert_allclose(outfit, num_out / A.shape[0], rtol=1e-12)
    np.testing.assert_allclose(info, den, rtol=1e-12)

def test_memory_stays_within_three_times_the_int8_matrix():
    U, _, _ = simulate_responses(300, 40_000, random_state=0)
    A = U.to_numpy()
    fit_irt(U.iloc[:, :100])                                              # first-call costs outside the measurement
    tracemalloc.start()
    try:
        fit_irt(U)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= 3 * A.nbytes, peak / A.nbytes

# ---------------------------------------------------------------- issue 14 item 7: options checked before any work
@pytest.mark.parametrize('kw, err, match', [
    (dict(max_iter=-1), ValueError, 'max_iter must be at least 1'), (dict(max_iter=0), ValueError, 'max_iter'),
    (dict(max_iter=2.5), TypeError, 'max_iter must be an integer'), (dict(bound=0), ValueError, 'bound must be'),
    (dict(bound=-6), ValueError, 'bound'), (dict(bound=np.inf), ValueError, 'finite'), (dict(n_quad=4), ValueError, 'n_quad'),
    (dict(n_quad=61.0), TypeError, 'n_quad'), (dict(tol=0), ValueError, 'tol'), (dict(tol=-1e-4), ValueError, 'tol'),
    (dict(tol=np.nan), ValueError, 'tol'), (dict(b_range=0), ValueError, 'b_range'), (dict(b_range=-6), ValueError, 'b_range'),
    (dict(a_max=0), ValueError, 'a_max'), (dict(a_prior_sd=-1), ValueError, 'a_prior_sd'), (dict(bound='6'), TypeError, 'bound'),
    (dict(n_jobs=0), ValueError, 'n_jobs'), (dict(n_jobs=1.5), TypeError, 'n_jobs'), (dict(sigma_update='median'), ValueError, 'sigma_update'),
])
def test_bad_options_fail_before_any_work(kw, err, match, monkeypatch):
    import robustdiff.irt as irt
    def boom(*a, **k): raise AssertionError('validated too late: the matrix was read')
    monkeypatch.setattr(irt, '_as_response_matrix', boom)
    with pytest.raises(err, match=match):
        fit_irt(np.zeros((3, 3)), **kw)

def test_b_range_inf_is_allowed():
    U, _, _ = simulate_responses(30, 50, random_state=0)
    assert (fit_irt(U, b_range=np.inf).items.status != 'out_of_range').all()

@pytest.mark.parametrize('bad, match', [
    (np.array([[0, 0.7, 1], [1, 0, 1]]), r'binary \(0/1\); found values such as \[0.7\]'),
    (np.array([[0, -1, 1], [1, 0, 1]], dtype='int8'), r'\[-1\]'),
    (np.array([[0, 3, 1], [1, 0, 1]], dtype='uint8'), r'\[3\]'),
    (np.array([[np.nan, 1, np.nan], [1, 0, 1]]), '2 NaN entries'),
    (pd.DataFrame({'a': [0, 1], 'b': [0.5, 1.0]}), r'\[0.5\]'),
])
def test_non_binary_values_are_named(bad, match):
    with pytest.raises(ValueError, match=match):
        fit_irt(bad)

# ---------------------------------------------------------------- issue 9 item 3: the standard error of a difficulty
def _replicate(J, b_true, n_rep, seed):
    rng = np.random.default_rng(seed)
    theta = rng.normal(0, 1, J)                                           # SE is conditional on the abilities: keep them
    B, S = [], []
    for _ in range(n_rep):
        U = (rng.random((J, len(b_true))) < irt_probability(theta[:, None], b_true[None, :])).astype('int8')
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            r = fit_irt(U)
        fin = r.items.status.isin(['ok', 'out_of_range']).to_numpy()
        B.append(np.where(fin, r.items.difficulty, np.nan)); S.append(r.items.difficulty_se.to_numpy())
    B, S = np.array(B), np.array(S)
    ok = np.isfinite(B).all(0)
    return np.median(S[:, ok].mean(0)), np.median(B[:, ok].std(0, ddof=1))

def test_difficulty_se_shrinks_with_respondents_and_matches_the_sampling_sd():
    b_true = np.linspace(-2, 2, 80)
    out = {J: _replicate(J, b_true, 25, seed=100 + J) for J in (30, 120, 480)}
    se = [out[J][0] for J in (30, 120, 480)]
    assert se[0] > se[1] > se[2]
    assert 1.6 < se[0] / se[1] < 2.5 and 1.6 < se[1] / se[2] < 2.5      # ≈ 2 = √4
    for J, (s, sd) in out.items():
        assert 0.8 < s / sd < 1.25, (J, s, sd)

def test_difficulty_se_formula_and_extremes():
    U, _, _ = simulate_responses(200, 300, model='2PL', random_state=2)
    U.iloc[:, 0] = 0
    for model in ('1PL', '2PL'):
        r = fit_irt(U, model=model)
        it, th = r.items, r.abilities.ability.to_numpy()
        assert np.isnan(it.difficulty_se.iloc[0]) and it.status.iloc[0] == 'all_wrong'
        a, b = it.discrimination.to_numpy()[1:], it.difficulty.to_numpy()[1:]
        P = irt_probability(th[:, None], b[None, :], a[None, :])
        np.testing.assert_allclose(it.difficulty_se.to_numpy()[1:], 1 / np.sqrt(a**2 * (P * (1 - P)).sum(0)), rtol=1e-10)
    assert list(r.items.columns) == ['instance', 'difficulty', 'discrimination', 'p_correct', 'status', 'infit', 'outfit',
                                     'difficulty_se']
    assert 'difficulty_se' in difficulty_se_chart(r).to_dict()['encoding']['y']['field']


def test_as_response_matrix_checks_and_copies():
    "The response-matrix reader (moved from 10_irt): named errors for every bad input, no copy for int8 input."
    from robustdiff.irt import _as_response_matrix
    U_sim, _, _ = simulate_responses(40, 300, random_state=1)
    A, m, i = _as_response_matrix(U_sim)
    assert A.dtype == np.int8 and list(m[:2]) == ['m0', 'm1']
    for bad, msg in [(np.array([[0, 1, np.nan], [1, 0, 1]]), 'NaN'), (np.array([[0, 2], [1, 0]]), 'binary'),
                     (np.ones((1, 5)), 'at least 2 models'), (np.ones((5, 1)), 'at least 2 instances'),
                     (np.ones(5), '2-D'), ('abc', 'DataFrame or a 2-D array'),
                     (np.array([[0, 0.7], [1, 0]]), r'found values such as \[0.7\]'),
                     (np.array([[0, -1], [1, 0]], dtype='int8'), r'\[-1\]'),
                     (np.array([[0, 1, np.nan], [np.nan, 0, 1]]), '2 NaN')]:
        with pytest.raises((ValueError, TypeError), match=msg): _as_response_matrix(bad)
    A8 = U_sim.to_numpy()
    assert np.shares_memory(_as_response_matrix(A8)[0], A8)                 # int8 in: no copy
    np.testing.assert_array_equal(_as_response_matrix(A8.astype(bool))[0], A8)
    np.testing.assert_array_equal(_as_response_matrix(A8.astype(float))[0], A8)


# ---------------------------------------------------------------- issue 36: the 2PL EM from sufficient statistics
def test_unique_rows_groups_exactly_as_np_unique():
    "Distinct rows by sorting packed 64-bit words: the same groups as np.unique(axis=0), for widths around the word size."
    from robustdiff.irt import _unique_rows
    rng = np.random.default_rng(0)
    for I in (1, 7, 63, 64, 65, 130):
        A = (rng.random((300, I)) < 0.5).astype(np.int8)
        A = np.vstack([A, A[:40]])                                             # repeated rows
        u, inv, cnt = _unique_rows(A)
        np.testing.assert_array_equal(u[inv], A)                               # every row is its group's row
        assert len(u) == len(np.unique(A, axis=0)) and cnt.sum() == len(A)
        np.testing.assert_array_equal(cnt, np.bincount(inv))

def test_2pl_pinned_to_the_frozen_estimator_on_a_wide_spread():
    "Slopes near a_max, no slope prior, a wide ability spread: the new EM still gives the frozen estimator's numbers."
    U, _, _ = simulate_responses(80, 300, model='2PL', sigma=2.5, b_sd=3.0, random_state=21)
    _same_as_frozen(U, model='2PL', a_prior_sd=None, a_max=4.0, max_iter=80)


# ---------------------------------------------------------------- the continuous Rasch model (issue 48)
def _crm_sample(theta, b, rng):
    eta = theta[:, None] - b[None, :]
    return np.log1p(rng.random(eta.shape) * np.expm1(eta)) / eta        # inverse CDF of η e^{ηx}/(e^η − 1) on [0, 1]

def test_continuous_rasch_recovers_simulated_parameters():
    from robustdiff.irt import fit_continuous_rasch
    rng = np.random.default_rng(4)
    th, b = rng.normal(0, 1.2, 200), rng.normal(0.5, 1.5, 600)
    res = fit_continuous_rasch(_crm_sample(th, b, rng))
    assert res.model == 'CRM' and res.converged
    assert _corr(res.items.difficulty, b) > 0.97 and _corr(res.abilities.ability, th) > 0.97
    z = (res.items.difficulty - res.items.difficulty.mean() - (b - b.mean())) / res.items.difficulty_se
    assert 0.7 < np.std(z) < 1.5                                        # the standard errors are of the right size (JML: a little small)
    assert np.all(np.diff(res.loglik_trace) > -1e-6 * abs(res.loglik))  # the likelihood never falls

def test_continuous_rasch_by_hand_and_sufficiency():
    from robustdiff.irt import fit_continuous_rasch, continuous_rasch_difficulty, _crm_moments
    x1 = 2 - 1 / np.log(2)                                              # m(ln 2)
    res = fit_continuous_rasch(pd.DataFrame([[x1, .5], [x1, .5]], index=['m1', 'm2'], columns=['i1', 'i2']))
    assert np.allclose(res.items.difficulty, [-np.log(2), 0], atol=1e-6)
    assert list(res.items.instance) == ['i1', 'i2'] and list(res.abilities.model) == ['m1', 'm2']
    assert np.allclose(_crm_moments(np.array([0.0]))[1], 1 / 12)
    rng = np.random.default_rng(1)
    X = rng.random((30, 50)) ** rng.uniform(.3, 3, 50)
    d = continuous_rasch_difficulty(X)
    assert np.array_equal(np.argsort(d), np.argsort(-X.mean(0)))       # ordered by the mean response

@given(st.integers(2, 8), st.integers(2, 12), st.integers(0, 10_000))
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_continuous_rasch_any_matrix_any_extremes(J, I, seed):
    from robustdiff.irt import fit_continuous_rasch
    rng = np.random.default_rng(seed)
    X = np.round(rng.random((J, I)), 1)                                 # exact 0s and 1s, whole columns of them sometimes
    X[:, 0] = 1.0
    if (X == 1).all(0).all() or ((X == 1).all(0) | (X == 0).all(0)).all():
        with pytest.raises(ValueError, match='nothing to estimate'): fit_continuous_rasch(X)
        return
    it = fit_continuous_rasch(X).items
    assert it.status.iloc[0] == 'all_right' and it.difficulty.iloc[0] == -np.inf
    ok = it.status == 'ok'
    assert np.isfinite(it.difficulty[ok]).all() and np.isfinite(it.difficulty_se[ok]).all()

@pytest.mark.parametrize('X, err, msg', [
    (np.full((3, 3), 1.5), ValueError, r'\[0, 1\]'),
    (np.array([[0.1, np.nan], [0.2, 0.3]]), ValueError, 'NaN'),
    (np.array([0.1, 0.2]), ValueError, '2-D'),
    (np.array([[0.1, 0.2]]), ValueError, 'at least 2'),
    (np.array([['a', 'b'], ['c', 'd']]), TypeError, 'real numbers'),
    ('matrix', TypeError, 'DataFrame or a 2-D array'),
])
def test_continuous_rasch_bad_input(X, err, msg):
    from robustdiff.irt import fit_continuous_rasch
    with pytest.raises(err, match=msg): fit_continuous_rasch(X)
