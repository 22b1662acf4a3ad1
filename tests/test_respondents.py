"The respondent population (issue 9): seeded and reproducible, shapes, standard errors, split-half reliability, bad input."
import warnings
import numpy as np, pandas as pd, pytest
from hypothesis import given, settings, strategies as st
from sklearn.base import clone
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LinearRegression
from sklearn.tree import DecisionTreeClassifier
from robustdiff.datasets import make_synthetic, load_sklearn
from robustdiff.irt import fit_irt, simulate_responses
from robustdiff.portfolio import get_models
from robustdiff.responses import response_matrix
from robustdiff.respondents import (get_respondents, respondent_predictions, SubsetClassifier, ArtificialLearner,
                                    difficulty_se, split_half_reliability, check_population, with_reliability)

warnings.filterwarnings('ignore', message='.*(converge|lbfgs).*')

@pytest.fixture(scope='module')
def moons(): return make_synthetic('moons', 200, random_state=2)

@pytest.fixture(scope='module')
def pop(): return get_respondents('ladder', n=30)

@pytest.fixture(scope='module')
def answers(moons, pop): return respondent_predictions(moons, pop, progress=False)

def test_seeded_and_reproducible(moons, pop, answers):
    assert list(get_respondents('ladder', n=30)) == list(pop)
    again = respondent_predictions(moons, get_respondents('ladder', n=30), progress=False)
    pd.testing.assert_frame_equal(answers, again)
    par = respondent_predictions(moons, pop, progress=False, n_jobs=2)
    pd.testing.assert_frame_equal(answers, par)                      # same result whatever n_jobs
    other = respondent_predictions(moons, pop, progress=False, random_state=1)
    assert not other.correct.equals(answers.correct)
    assert list(get_respondents('ladder', n=30, random_state=1)) != list(pop)

def test_response_matrix_shape(moons, pop, answers):
    U = response_matrix(answers)
    assert U.shape == (30, moons.n_instances) and list(U.index) == list(pop)
    assert set(np.unique(U.to_numpy())) <= {0, 1}
    acc = U.mean(1)
    assert acc.max() - acc.min() > .2                                 # a ladder of abilities, not one level

def test_population_is_diverse_and_cheap():
    pop = get_respondents('ladder', n=832)
    fams = {k.split('_')[0] for k in pop}
    assert fams == {'tree', 'knn', 'linear', 'nb', 'mlp'}
    assert len(set(pop)) == 832                                       # the whole grid, unique names
    for est in pop.values():
        assert isinstance(est, SubsetClassifier)
        inner = est.estimator
        if hasattr(inner, 'hidden_layer_sizes'): assert max(inner.hidden_layer_sizes) <= 8
    caps = {tuple(k.split('_')[:2]) for k in get_respondents('ladder', n=26)}
    assert len(caps) == 26

def test_user_list_of_estimators_works(moons):
    mine = [('stump', DecisionTreeClassifier(max_depth=1)), ('deep', DecisionTreeClassifier()), ('maj', DummyClassifier())]
    rp = respondent_predictions(moons, mine, progress=False)
    assert response_matrix(rp).shape == (3, moons.n_instances)
    rp2 = respondent_predictions(moons, dict(mine), progress=False)
    pd.testing.assert_frame_equal(rp, rp2)

def test_standard_errors_shrink_as_respondents_are_added():
    se = []
    for J in (20, 80, 320):
        U, true_items, _ = simulate_responses(J, 200, b_sd=1.0, random_state=5)
        fit = fit_irt(U)
        ok = fit.items.status.eq('ok').to_numpy()
        s = difficulty_se(fit).to_numpy()
        assert np.isinf(s[~ok]).all() and np.isfinite(s[ok]).all()
        se.append(np.median(s[ok]))
        err = np.abs(fit.items.difficulty.to_numpy()[ok] - true_items.difficulty.to_numpy()[ok])
        assert np.mean(err < 1.96 * s[ok]) > .85                       # the SEs are not just small: they cover
    assert se[0] > se[1] > se[2] and 2.5 < se[0] / se[2] < 6           # ≈ 1/√J: 4× from 20 to 320

def test_se_uses_an_existing_column():
    U, _, _ = simulate_responses(30, 50, random_state=0)
    fit = fit_irt(U)
    fit.items['difficulty_se'] = 7.0
    assert (difficulty_se(fit) == 7.0).all() and (with_reliability(fit).difficulty_se == 7.0).all()

def test_split_half_near_one_with_many_respondents():
    U, _, _ = simulate_responses(600, 300, b_sd=1.5, random_state=3)
    rel = split_half_reliability(U, n_repeats=4, random_state=0)
    assert len(rel) == 4 and (rel.n_a + rel.n_b == 600).all()
    assert rel.spearman.min() > .95 and rel.spearman_brown.min() > rel.spearman.min()
    pd.testing.assert_frame_equal(rel, split_half_reliability(U, n_repeats=4, random_state=0))
    few, _, _ = simulate_responses(12, 300, b_sd=1.5, random_state=3)
    assert split_half_reliability(few, n_repeats=4).spearman.median() < rel.spearman.median()

def test_split_half_detail_table():
    U, _, _ = simulate_responses(40, 60, random_state=1)
    rel, pairs = split_half_reliability(U, n_repeats=2, detail=True)
    assert set(pairs.columns) == {'split', 'instance', 'half_a', 'half_b'} and len(pairs) == 120

def test_artificial_learners_off_by_default_and_stated_when_on(moons):
    assert not any(k.startswith('artificial') for k in get_respondents('ladder', n=100))
    pop = get_respondents('ladder', n=4, artificial=['optimal', 'pessimal'])
    with pytest.warns(UserWarning, match='artificial'):
        rp = respondent_predictions(moons, pop, progress=False)
    U = response_matrix(rp)
    assert U.loc['artificial_optimal'].eq(1).all() and U.loc['artificial_pessimal'].eq(0).all()
    assert (U.min() == 0).all() and (U.max() == 1).all()              # every difficulty finite by construction
    with pytest.raises(RuntimeError, match='true labels'):
        ArtificialLearner('optimal').fit(np.zeros((3, 1)), [0, 1, 1]).predict(np.zeros((3, 1)))

def test_pessimal_never_right_multiclass():
    al = ArtificialLearner('pessimal').fit(None, np.array(['a', 'b', 'c']))
    y = np.array(list('abcabcaab'))
    assert (al.respond(y, np.random.default_rng(0)) != y).all()

@settings(max_examples=30, deadline=None)
@given(rows=st.one_of(st.floats(0.01, 1.0), st.integers(1, 300)), cols=st.one_of(st.floats(0.01, 1.0), st.integers(1, 12)),
       balanced=st.booleans(), stream=st.integers(0, 1000))
def test_subset_classifier_any_budget_is_a_valid_classifier(rows, cols, balanced, stream):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 8)); y = np.array(['x', 'y', 'z'])[rng.integers(0, 3, 120)]
    sc = SubsetClassifier(DecisionTreeClassifier(random_state=0), max_samples=rows, max_features=cols, balanced=balanced, min_samples=2, random_state=0, stream=stream).fit(X, y)
    p = sc.predict(X)
    assert len(p) == 120 and set(p) <= {'x', 'y', 'z'}
    P = sc.predict_proba(X)
    assert P.shape == (120, 3) and np.allclose(P.sum(1), 1)
    assert np.array_equal(clone(sc).fit(X, y).predict(X), p)

@pytest.mark.parametrize('respondents, err, msg', [
    ({'only': DecisionTreeClassifier()}, ValueError, 'at least 2'),
    ({'a': DecisionTreeClassifier(), 'b': LinearRegression()}, TypeError, 'is a regressor'),
    ({'a': DecisionTreeClassifier(), 'b': DecisionTreeClassifier}, TypeError, 'is a class'),
    ([('a', DecisionTreeClassifier()), ('a', DecisionTreeClassifier())], ValueError, 'duplicate'),
    ('no_such_population', ValueError, 'unknown portfolio'),
])
def test_bad_populations(moons, respondents, err, msg):
    with pytest.raises(err, match=msg): respondent_predictions(moons, respondents, progress=False)

def test_identical_answers_refused(moons):
    rp = respondent_predictions(moons, {'m1': DummyClassifier(), 'm2': DummyClassifier(strategy='prior')}, progress=False)
    with pytest.raises(ValueError, match='identically'): check_population(response_matrix(rp))
    with pytest.raises(ValueError, match='identically'): split_half_reliability(pd.DataFrame(np.zeros((6, 9), int)))

@pytest.mark.parametrize('kw, msg', [(dict(n=1), 'n must be'), (dict(n=2.5), 'n must be'), (dict(kind='crowd'), 'unknown population'),
                                     (dict(artificial='oracle'), 'artificial learners')])
def test_get_respondents_bad_input(kw, msg):
    with pytest.raises(ValueError, match=msg): get_respondents(**kw)

def test_registered_as_a_portfolio():
    assert list(get_models('ladder')) == list(get_respondents('ladder'))


def test_subset_classifier_edge_cases():
    "SubsetClassifier (moved from 12_respondents): k-NN's k capped to the subset, a one-class subset, bad shares."
    from sklearn.neighbors import KNeighborsClassifier
    from robustdiff.respondents import SubsetClassifier
    rng0 = np.random.default_rng(0)
    Xt = rng0.normal(size=(200, 10)); yt = np.where(Xt[:, 0] + .3 * rng0.normal(size=200) > 0, 'a', 'b')
    knn = SubsetClassifier(KNeighborsClassifier(500), max_samples=.05, random_state=0).fit(Xt, yt)
    assert knn.estimator_.n_neighbors == 10
    one = SubsetClassifier(DecisionTreeClassifier(), max_samples=2, min_samples=1, random_state=0).fit(Xt, np.r_[['a'] * 199, ['b']])
    assert one.estimator_ is None and set(one.predict(Xt)) == {'a'}
    assert one.predict_proba(Xt)[:, 0].tolist() == [1.0] * 200
    with pytest.raises(ValueError, match='max_samples'):
        SubsetClassifier(DecisionTreeClassifier(), max_samples=1.5).fit(Xt, yt)


def test_subset_classifier_fits_int_codes_same_answers():
    "Issue 36: the wrapped model fits the labels' int codes (no sort of strings per fit); answers and probabilities are those of the labels themselves."
    from sklearn.neural_network import MLPClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 5)); y = np.array(['Good', 'Fair', 'Ideal', 'Premium'], dtype=object)[rng.integers(0, 4, 300)]
    for est in (DecisionTreeClassifier(random_state=0), LogisticRegression(C=.1, max_iter=200), GaussianNB(),
                MLPClassifier((3,), solver='lbfgs', max_iter=50, random_state=0)):
        sc = SubsetClassifier(est, max_samples=.5, max_features=.6, random_state=0, stream=4).fit(X, y)
        assert sc.classes_.tolist() == sorted(set(y)) and sc.classes_.dtype == y.dtype
        ref = clone(est).fit(X[np.ix_(np.sort(np.random.default_rng(np.random.SeedSequence([0, 4])).choice(300, 150, replace=False)),
                                    sc.features_)], y[np.sort(np.random.default_rng(np.random.SeedSequence([0, 4])).choice(300, 150, replace=False))])
        assert np.array_equal(sc.predict(X), ref.predict(X[:, sc.features_]))          # the same model as on the string labels
        P = sc.predict_proba(X)
        Q = np.zeros_like(P); Q[:, np.searchsorted(sc.classes_, ref.classes_)] = ref.predict_proba(X[:, sc.features_])
        np.testing.assert_array_equal(P, Q)

def test_subset_classifier_max_rows():
    "max_rows bounds the training rows by a class-stratified sample of the draw; the columns are those of the unbounded respondent; below the bound nothing changes."
    rng = np.random.default_rng(5)
    X = rng.normal(size=(3000, 6)); y = np.array(['a', 'b', 'c'])[np.searchsorted([.6, .9], rng.random(3000))]   # 60/30/10 %
    free = SubsetClassifier(DecisionTreeClassifier(random_state=0), max_samples=0.8, max_features=0.5, random_state=0, stream=7).fit(X, y)
    cap = SubsetClassifier(DecisionTreeClassifier(random_state=0), max_samples=0.8, max_features=0.5, random_state=0, stream=7, max_rows=500).fit(X, y)
    assert free.n_samples_ == 2400 and abs(cap.n_samples_ - 500) <= 3
    assert np.array_equal(cap.features_, free.features_)
    big = SubsetClassifier(DecisionTreeClassifier(random_state=0), max_samples=0.8, max_features=0.5, random_state=0, stream=7, max_rows=5000).fit(X, y)
    assert np.array_equal(big.predict(X), free.predict(X)) and big.n_samples_ == free.n_samples_   # bound not reached: the same respondent
    assert not np.array_equal(cap.predict(X), free.predict(X))
    assert np.array_equal(clone(cap).fit(X, y).predict(X), cap.predict(X))                            # seeded
    # the bounded rows keep the class shares
    from robustdiff.respondents import _stratified_cap
    codes = pd.factorize(y, sort=True)[0]
    rows = _stratified_cap(codes, np.arange(3000), 500, np.random.default_rng(0))
    assert len(rows) == 500 and len(np.unique(rows)) == 500
    np.testing.assert_allclose(np.bincount(codes[rows]) / 500, np.bincount(codes) / 3000, atol=1 / 500)
    rows = _stratified_cap(np.r_[np.zeros(997, int), [1, 2, 2]], np.arange(1000), 10, np.random.default_rng(0))
    assert set(np.r_[np.zeros(997, int), [1, 2, 2]][rows]) == {0, 1, 2}                             # a rare class keeps a row
    for bad in (1, 2.5, True, '10'):
        with pytest.raises(ValueError, match='max_rows'):
            SubsetClassifier(DecisionTreeClassifier(), max_rows=bad).fit(X, y)

def test_ladder_bounds_rows_by_default():
    from robustdiff.respondents import MAX_ROWS
    pop = get_respondents('ladder', n=26)
    inner = [e.steps[-1][1] if hasattr(e, 'steps') else e for e in pop.values()]
    assert {s.max_rows for s in inner} == {MAX_ROWS}
    assert {s.max_rows for s in (e.steps[-1][1] if hasattr(e, 'steps') else e for e in get_respondents('ladder', n=26, max_rows=None).values())} == {None}
    assert list(get_respondents('ladder', n=26, max_rows=None)) == list(pop)                           # the same names


def test_chart_functions_work_from_the_installed_module():
    "The exported chart functions need altair inside the module, not only in the notebook (a NameError before)."
    import subprocess, sys
    code = ("import pandas as pd\n"
            "from robustdiff.respondents import reliability_chart, split_half_chart, population_chart\n"
            "reliability_chart(pd.DataFrame({'difficulty': [0., 1.], 'difficulty_se': [.1, .2]})).to_dict()\n"
            "split_half_chart(pd.DataFrame({'split': [0, 0], 'half_a': [0., 1.], 'half_b': [.1, .9]})).to_dict()\n"
            "population_chart(pd.DataFrame({'model': ['nb_1', 'nb_1', 'tree_2'], 'correct': [1, 0, 1]})).to_dict()\n")
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


# ---------------------------------------------------------------- regression respondents (issue 48)
@pytest.fixture(scope='module')
def reg_ds():
    from robustdiff.data import from_frame
    rng = np.random.default_rng(3)
    df = pd.DataFrame(rng.normal(size=(160, 5)), columns=list('abcde'))
    df['kind'] = np.array(['u', 'v', 'w'])[rng.integers(0, 3, 160)]
    df['y'] = 2 * df.a - df.b ** 2 + (df.kind == 'u') * 1.5 + rng.normal(scale=.4, size=160)
    return from_frame(df, 'y', task='regression', name='toy_regression')

def test_regression_ladder_answers_within_tolerance(reg_ds):
    rp = respondent_predictions(reg_ds, 'ladder:30', n_splits=3, progress=False)
    assert rp.model.nunique() == 30 and len(rp) == 30 * reg_ds.n_instances
    assert rp.y_pred.dtype == float
    assert np.array_equal(rp.correct.to_numpy(), (np.abs(rp.y_true - rp.y_pred) <= reg_ds.tolerance).astype('int8'))
    U = response_matrix(rp)
    acc = U.mean(1)
    assert acc.max() - acc.min() > 0.2                                  # graded capacity: weak and strong respondents
    again = respondent_predictions(reg_ds, 'ladder:30', n_splits=3, progress=False)
    pd.testing.assert_frame_equal(rp, again)                            # seeded
    wider = respondent_predictions(reg_ds.with_task('regression', tolerance=4 * reg_ds.tolerance), 'ladder:30', n_splits=3, progress=False)
    assert wider.correct.mean() > rp.correct.mean()                     # τ decides what is right, nothing else changes
    assert np.allclose(wider.y_pred, rp.y_pred)

def test_regression_artificial_respondents(reg_ds):
    pop = get_respondents('ladder', n=3, artificial=True, task='regression')
    with pytest.warns(UserWarning, match='artificial'):
        U = response_matrix(respondent_predictions(reg_ds, pop, n_splits=3, progress=False))
    assert U.loc['artificial_optimal'].eq(1).all() and U.loc['artificial_pessimal'].eq(0).all()
    big = reg_ds.with_task('regression', tolerance=1e6)                 # pessimal stays outside even a huge τ
    with pytest.warns(UserWarning, match='artificial'):
        Ub = response_matrix(respondent_predictions(big, pop, n_splits=3, progress=False))
    assert Ub.loc['artificial_pessimal'].eq(0).all()

@settings(max_examples=25, deadline=None)
@given(rows=st.one_of(st.floats(0.01, 1.0), st.integers(1, 300)), cols=st.one_of(st.floats(0.01, 1.0), st.integers(1, 8)),
       balanced=st.booleans(), fam=st.sampled_from(['tree', 'knn', 'linear', 'pls', 'mlp']), cap=st.integers(0, 3))
def test_subset_regressor_any_budget_is_a_valid_regressor(rows, cols, balanced, fam, cap):
    from robustdiff.respondents import SubsetRegressor, _REG_FAMILIES
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 8)); X[:, 3] = 1.0                        # a constant column among them
    y = X[:, 0] * 1e4 + rng.normal(size=120)
    est = _REG_FAMILIES[fam][2](_REG_FAMILIES[fam][1][cap])
    if 'random_state' in est.get_params(): est.set_params(random_state=0)   # as `get_models` seeds it
    sr = SubsetRegressor(est, max_samples=rows, max_features=cols, balanced=balanced, min_samples=2, random_state=0).fit(X, y)
    p = sr.predict(X)
    assert p.shape == (120,) and np.isfinite(p).all()
    assert np.array_equal(clone(sr).fit(X, y).predict(X), p)

def test_check_respondents_reads_the_task():
    from robustdiff.respondents import check_respondents
    from sklearn.base import is_regressor
    pop = check_respondents('ladder:40', task='regression')
    assert len(pop) == 40 and all(is_regressor(e) for e in pop.values())
    assert list(pop) == list(get_respondents('ladder', n=40, task='regression'))
    assert len(check_respondents('ladder', task='regression')) == 240
    assert list(get_models('regression_ladder', task='regression')) == list(check_respondents('ladder', task='regression'))
    with pytest.raises(TypeError, match='is a classifier'):
        check_respondents({'a': DecisionTreeClassifier(), 'b': DecisionTreeClassifier(max_depth=2)}, task='regression')
    with pytest.raises(TypeError, match='is a regressor'):
        check_respondents({'a': LinearRegression(), 'b': DecisionTreeClassifier()})
    with pytest.raises(ValueError, match='task must be'): check_respondents('ladder', task='ranking')

def test_auto_respondents_names_the_regression_ladder():
    from types import SimpleNamespace as NS
    from robustdiff.respondents import auto_respondents
    spec, why = auto_respondents('auto', 1, NS(n_instances=500, n_features=10, task='regression'))
    assert spec == 'ladder:120' and 'regression ladder' in why and 'τ' in why
    assert 'regression' not in auto_respondents('auto', 1, NS(n_instances=500, n_features=10))[1]

def test_split_half_reliability_of_graded_responses():
    rng = np.random.default_rng(7)
    eta = rng.normal(size=(60, 1)) - rng.normal(0, 2, size=(1, 200))
    X = np.log1p(rng.random(eta.shape) * np.expm1(eta)) / eta           # graded answers drawn from the continuous Rasch model
    rel = split_half_reliability(X, model='CRM', n_repeats=3)
    assert rel.spearman.min() > 0.8
    U = pd.DataFrame((X > np.median(X)).astype(int))
    same = split_half_reliability(U, n_repeats=3)                       # the same halves: the same seed and J
    assert list(rel.n_a) == list(same.n_a)
    with pytest.raises(ValueError, match='model must be'): split_half_reliability(U, model='3PL')
    with pytest.raises(ValueError, match=r'\[0, 1\]'): split_half_reliability(X * 3, model='CRM')
