"""The report's one pass: each model × fold fitted once serves every stage.

Accuracy, SCC and ELA tables are bit-identical to the stage-by-stage functions (`noisy_predictions`, `ela_experiment`)
with the same seed; the cross-validated perturbation tests and IH from the evaluated models are recomputed here
independently from the stored per-instance predictions (and those from direct refits); results do not depend on
n_jobs or on running through Dask."""
import math
import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_wine
from sklearn.linear_model import LogisticRegression, RidgeClassifier
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.tree import DecisionTreeClassifier

from robustdiff.data import from_frame
from robustdiff.datasets import make_synthetic
from robustdiff.report import build_report
from robustdiff._run import _Ctx
from robustdiff.perturbation_report import _top_in_groups
from robustdiff.scc import noisy_predictions, clean_predictions, scc_curves
from robustdiff.ela import ela_experiment
from robustdiff.responses import accuracy_table, cv_splits, _fold_seed, FoldContext
from robustdiff.portfolio import get_models, make_pipeline, needs_prep

def _models():
    "logreg (predict not the argmax of predict_proba: two passes), cart/knn (argmax), ridge (no predict_proba)."
    return {k: needs_prep(e) for k, e in {'logreg': LogisticRegression(max_iter=1000), 'cart': DecisionTreeClassifier(),
            'knn3': KNeighborsClassifier(3), 'nb': GaussianNB(), 'ridge': RidgeClassifier()}.items()}   # the package's preprocessing

def _wine_nominal():
    "wine (3 classes) with one nominal column: the perturbation copies resample it (the unstackable-dtype path)."
    X, y = load_wine(return_X_y=True, as_frame=True)
    X = X.iloc[:, :6].copy()
    X['hue_band'] = pd.cut(load_wine(as_frame=True).data.hue, 3, labels=['low', 'mid', 'high']).astype(str)
    return from_frame(X.assign(y=y.map({0: 'a', 1: 'b', 2: 'c'})), 'y', nominal=['hue_band'], name='wine_nominal')

KW = dict(respondents='models', progress=False, random_state=3)

@pytest.fixture(scope='module')
def moons():
    ds = make_synthetic('moons', 120, random_state=1)
    return ds, build_report(ds, models=_models(), n_jobs=1, **KW)

@pytest.fixture(scope='module', params=['moons', 'wine_nominal'])
def case(request):
    if request.param == 'moons': return request.getfixturevalue('moons')
    ds = _wine_nominal()
    return ds, build_report(ds, models=_models(), n_jobs=1, **KW)

def test_every_stage_ok(case):
    ds, rep = case
    assert {k: s.status for k, s in rep.stages.items()} == {k: 'ok' for k in rep.stages}, \
        {k: s.message for k, s in rep.stages.items() if s.status != 'ok'}

def test_accuracy_scc_ela_bit_identical_to_the_stage_functions(case):
    ds, rep = case
    c = rep.config
    noisy = noisy_predictions(ds, _models(), perturbation=c['nu'], n_splits=c['n_splits'], n_repeats=1, random_state=c['random_state'], n_jobs=1, backend=None, progress=False, noise_draws=c['noise_draws'])
    ctx = _Ctx(ds, dict(c, models=_models(), backend=None, cache_dir=None), {})
    pd.testing.assert_frame_equal(ctx.noisy(), noisy, check_exact=True)
    acc = accuracy_table(clean_predictions(noisy)).sort_values('accuracy', ascending=False, ignore_index=True)
    pd.testing.assert_frame_equal(rep.table('accuracy'), acc, check_exact=True)
    curves = scc_curves(noisy, rep.table('bins'), lambdas=c['lambdas'])
    curves.insert(0, 'dataset', ds.name)
    iv = ['kappa_lo', 'kappa_hi', 'acc_lo', 'acc_hi', 'score', 'score_lo', 'score_hi', 'break_rate', 'break_rate_lo', 'break_rate_hi']
    pd.testing.assert_frame_equal(rep.table('scc').drop(columns=iv), curves, check_exact=True)
    ela = ela_experiment([ds], _models(), noise=c['class_noise'], n_splits=c['n_splits'], n_repeats=1, random_state=c['random_state'], n_jobs=1, progress=False)
    ela = ela.drop(columns='dataset').sort_values('ela', ignore_index=True)
    ela_iv = ['rla_lo', 'rla_hi', 'ela_lo', 'ela_hi', 'break_rate', 'break_rate_lo', 'break_rate_hi', 'score_clean', 'score_noisy',
              'score_noisy_lo', 'score_noisy_hi']
    pd.testing.assert_frame_equal(rep.table('ela').drop(columns=ela_iv).sort_values('ela', ignore_index=True), ela, check_exact=True)
    ep = rep.extra['ela_predictions']
    from robustdiff.ela import ela_predictions
    old = ela_predictions(ds, _models(), noise=c['class_noise'], n_splits=c['n_splits'], n_repeats=1, random_state=c['random_state'], n_jobs=1, progress=False)
    keep = ['model', 'repeat', 'fold', 'noise', 'instance', 'y_true', 'correct_clean', 'correct_noisy', 'n_changed']
    assert list(ep.columns) == list(old.columns)
    pd.testing.assert_frame_equal(ep[keep], old[keep], check_exact=True)

def _recompute_perturbation(pp, alpha, hard):
    "PiML's scores from the stored predictions, one group at a time with robustness_test's own helpers."
    from robustdiff.robustness import _top_share, _metric_value
    rows = []
    for (model, fold, level, rep), g in pp.groupby(['model', 'fold', 'level', 'rep'], sort=False):
        y, pred = g.y_true.to_numpy(), g.y_pred.to_numpy()
        res = np.where(g.p_true.isna(), 1 - g.correct, 1 - g.p_true).astype(float)
        for label, mask in [('all', np.ones(len(g), bool)), (f'worst {100*alpha:.4g}%', _top_share(res, alpha)),
                            (f'hardest {100*alpha:.4g}%', _top_share(hard.loc[g.instance].to_numpy(), alpha))]:
            rows.append(dict(model=model, fold=fold, level=level, repeat=rep, subset=label,
                             value=_metric_value('ACC', y[mask], pred[mask], None, None)))
    return pd.DataFrame(rows)

def test_cross_validated_perturbation_from_the_stored_predictions(case):
    ds, rep = case
    c = rep.config
    pp, tab = rep.extra['perturbation_predictions'], rep.table('perturbation')
    assert list(pp.columns) == ['model', 'repeat', 'fold', 'instance', 'level', 'rep', 'y_true', 'y_pred', 'correct', 'p_true']
    # every instance is a test instance once, at every level and copy, for every model
    per = pp.groupby(['model', 'level', 'rep']).instance.agg(['size', 'nunique'])
    assert (per['size'] == ds.n_instances).all() and (per['nunique'] == ds.n_instances).all()
    assert sorted(pp.level.unique()) == [round(i * c['perturb_size'], 12) for i in range(5)]
    items = rep.table('difficulty')
    b = items.set_index('instance').difficulty
    hard = b.fillna(pd.Series(np.where(items.status.to_numpy() == 'all_wrong', np.inf, -np.inf), index=b.index))
    want = _recompute_perturbation(pp, c['worst_share'], hard)
    got = tab.merge(want, on=['model', 'fold', 'level', 'repeat', 'subset'], how='outer', validate='one_to_one', indicator=True)
    assert (got._merge == 'both').all() and len(got) == len(tab) == len(want)
    np.testing.assert_array_equal(got.value_x.to_numpy(), got.value_y.to_numpy())
    assert set(tab.subset) == {'all', 'worst 30%', 'hardest 30%'} and (tab.metric == 'ACC').all()
    assert tab.groupby('subset').value.mean()['worst 30%'] < tab.groupby('subset').value.mean()['all'], 'the worst subset must bite'

def test_stored_perturbed_predictions_equal_a_direct_refit(case):
    "One model × fold refitted here: its predictions of the raw-noise copies (same fold seed, spawned by 2) match the stored ones."
    from robustdiff.robustness import noise_parts; _parts = lambda method, features, X: noise_parts(method, X, features=features)
    from robustdiff._folds import stacked_copies as _stacked
    ds, rep = case
    c = rep.config
    pp = rep.extra['perturbation_predictions']
    name = 'knn3'
    est = get_models(_models(), random_state=c['random_state'])[name]
    r, f, tr, te = cv_splits(ds, n_splits=c['n_splits'], n_repeats=1, random_state=c['random_state'])[1]
    pipe = make_pipeline(est, ds).fit(ds.X.iloc[tr], ds.y.iloc[tr].to_numpy())
    ctx = FoldContext(name, pipe, ds, tr, te, r, f, _fold_seed(c['random_state'], r, f))
    parts = [p.fit(ds.X.iloc[tr]) for p in _parts('raw', None, ds.X.iloc[te])]
    i, lvl = 3, round(3 * c['perturb_size'], 12)
    R = c['perturb_repeats']
    X = _stacked(parts, ds.X.iloc[te], lvl, [[ctx.rng(2, i, k_r, k) for k in range(len(parts))] for k_r in range(R)])
    pred = pipe.predict(X).reshape(R, len(te))
    stored = pp[(pp.model == name) & (pp.fold == f) & (pp.level == lvl)].sort_values(['rep'], kind='stable')
    np.testing.assert_array_equal(stored.instance.to_numpy(), np.tile(te, R))
    np.testing.assert_array_equal(stored.y_pred.to_numpy(), pred.ravel())
    clean = pp[(pp.model == name) & (pp.fold == f) & (pp.level == 0) & (pp.rep == 0)]
    np.testing.assert_array_equal(clean.y_pred.to_numpy(), pipe.predict(ds.X.iloc[te]))

def test_ih_from_the_models_is_eq7_of_their_out_of_fold_probabilities(case):
    ds, rep = case
    oof = rep.extra['oof']
    assert 'evaluated models' in ' '.join(rep.stages['hardness'].notes) and rep.config['ih_pool'] == 'models'
    # eq. 7: IH(x) = 1 − (1/|M|) Σ_m p_m(y_x | x); a model without predict_proba votes one-hot
    W = oof.pivot(index='instance', columns='model', values='p_true')
    assert W['ridge'].isna().all() and W.drop(columns='ridge').notna().all().all()
    W['ridge'] = oof.pivot(index='instance', columns='model', values='correct')['ridge'].astype(float)
    ih = 1 - W.mean(axis=1)
    got = rep.table('instance_hardness').set_index('instance').ih
    np.testing.assert_allclose(got.loc[ih.index].to_numpy(), ih.to_numpy(), rtol=0, atol=1e-12)
    # the stored probabilities are each model's own out-of-fold predict_proba (fold 0 refitted here)
    c = rep.config
    r, f, tr, te = cv_splits(ds, n_splits=c['n_splits'], n_repeats=1, random_state=c['random_state'])[0]
    for name in ('cart', 'nb'):
        pipe = make_pipeline(get_models(_models(), random_state=c['random_state'])[name], ds).fit(ds.X.iloc[tr], ds.y.iloc[tr].to_numpy())
        P = pipe.predict_proba(ds.X.iloc[te])
        pos = pd.Index(pipe.classes_).get_indexer(ds.y.iloc[te])
        s = oof[(oof.model == name) & (oof.fold == f)]
        np.testing.assert_array_equal(s.p_true.to_numpy(), P[np.arange(len(te)), pos])

def test_pyhard7_pool_is_named(moons):
    ds, _ = moons
    rep = build_report(ds, models='quick', stages='hardness', ih_pool='pyhard7', n_jobs=1, **KW)
    assert rep.stages['hardness'].status == 'ok', rep.stages['hardness'].message
    assert "ih_pool='pyhard7'" in ' '.join(rep.stages['hardness'].notes)
    with pytest.raises(ValueError, match='ih_pool'): build_report(ds, models='quick', ih_pool='nope', **KW)

def test_top_in_groups_is_top_share_per_group():
    from robustdiff.robustness import _top_share
    rng = np.random.default_rng(0)
    g = np.repeat(np.arange(7), rng.integers(1, 30, 7))
    s = rng.integers(0, 4, len(g)).astype(float)        # many ties: broken by position
    got = _top_in_groups(g, s, 0.3)
    want = np.concatenate([_top_share(s[g == k], 0.3) for k in range(7)])
    np.testing.assert_array_equal(got, want)

def _same_tables(a, b):
    for name in ('accuracy', 'scc', 'ela', 'perturbation', 'instance_hardness', 'verdict', 'difficulty'):
        pd.testing.assert_frame_equal(a.table(name), b.table(name), check_exact=True, obj=name)

def test_identical_for_any_n_jobs(case):
    ds, rep = case
    _same_tables(rep, build_report(ds, models=_models(), n_jobs=2, **KW))

def test_identical_on_dask(moons):
    distributed = pytest.importorskip('distributed')
    ds, rep = moons
    from distributed import Client, LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, Client(cluster):
        _same_tables(rep, build_report(ds, models=_models(), n_jobs=2, backend='dask', **KW))

# ------------------------------------------------------------------ one schedule

def _population():
    "A small respondent population (8 models × 5 folds = 40 fits: batched 2 per task by the schedule)."
    from sklearn.ensemble import RandomForestClassifier
    return {**_models(), 'tree2': DecisionTreeClassifier(max_depth=2), 'knn15': KNeighborsClassifier(15),
            'rf10': RandomForestClassifier(10)}

def test_one_schedule_equals_the_stages_own_fits(moons, monkeypatch):
    "The report with every fit in one schedule (respondents batched, measures in a thread) = each stage fitting for itself."
    import robustdiff.report as r
    ds, _ = moons
    kw = dict(KW, respondents=_population())
    one = build_report(ds, models=_models(), n_jobs=2, **kw)
    assert one.config['fits_seconds'] > 0 and 'response_matrix' in one.extra
    monkeypatch.setattr(r, '_schedule', lambda ctx: 0.0)
    own = build_report(ds, models=_models(), n_jobs=2, **kw)
    assert 'response_matrix' not in own.extra
    _same_tables(one, own)
    pd.testing.assert_frame_equal(one.table('hardness'), own.table('hardness'), check_exact=True)

def test_batched_map_folds_equals_one_fit_per_task(moons):
    from robustdiff.responses import map_folds, _plan_folds
    from robustdiff.respondents import respond_fold as _respond_fold
    ds, _ = moons
    plan = _plan_folds(_respond_fold, ds, _population(), 5, 1, 0, None, None, batch=3)
    batches = [ks for _, ks in plan.todo()]
    assert all(len(ks) <= 3 for ks in batches) and sorted(k for ks in batches for k in ks) == list(range(40))
    assert all(len({plan.specs[k][3] for k in ks}) == 1 for ks in batches), 'a batch never mixes folds'
    a = map_folds(_respond_fold, ds, _population(), progress=False, n_jobs=2, batch=3)
    b = map_folds(_respond_fold, ds, _population(), progress=False, n_jobs=1)
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    with pytest.raises(ValueError, match='batch'): map_folds(_respond_fold, ds, _population(), progress=False, batch=0)

class _Broken(DecisionTreeClassifier):
    def fit(self, X, y, **kw): raise ArithmeticError('cannot fit')

def test_a_model_that_cannot_be_fitted_stops_the_report(moons):
    "An evaluated model that cannot be fitted: nothing to report on it — build_report raises at once, naming it (issue 33)."
    from robustdiff.responses import ModelFitError
    ds, _ = moons
    with pytest.raises(ModelFitError, match="model 'broken' failed to fit .*ArithmeticError: cannot fit"):
        build_report(ds, models={'cart': DecisionTreeClassifier(), 'broken': _Broken()}, stages='data,accuracy,hardness,verdict',
                     n_jobs=1, **KW)

def test_fold_cache_is_shared_by_copies_of_a_dataset():
    "A worker gets a new copy of the dataset with every task: the copies share one entry per fold; other datasets never hit; the cache stays bounded."
    import copy, pickle
    from robustdiff._folds import FoldNoise as _FoldNoise
    from robustdiff.responses import FoldContext
    ds = make_synthetic('moons', n_samples=60, random_state=0)
    cache, made = _FoldNoise(), []
    def ctx_of(d, i=0, test=np.arange(40, 60)): return FoldContext('m', None, d, np.arange(40), test, 0, i, np.random.SeedSequence(0, spawn_key=(0, i)))
    def make():
        made.append(1); return [ds.X.iloc[40:60]], np.zeros(20)
    first = cache.get(ctx_of(ds), ['p'], make)
    for copy_of in (copy.deepcopy, lambda d: pickle.loads(pickle.dumps(d))):   # the copies a task receives
        assert cache.get(ctx_of(copy_of(ds)), ['p'], make) is first
    assert len(made) == 1 and len(cache.store) == 1
    cache.get(ctx_of(make_synthetic('moons', n_samples=60, random_state=0)), ['p'], make)   # equal rows, another dataset
    assert len(made) == 2
    cache.get(ctx_of(ds, test=np.arange(20, 40)), ['p'], make)      # same key, other test rows: never a stale hit
    assert len(made) == 3
    cache.get(ctx_of(ds), ['q'], make); assert len(made) == 4      # other perturbations: their own entry
    for i in range(_FoldNoise.max_entries + 5): cache.get(ctx_of(ds, i + 1), ['p'], make)
    assert len(cache.store) == _FoldNoise.max_entries              # bounded: the oldest entries go

def test_answers_only_keeps_the_response_matrix():
    from robustdiff.responses import response_matrix, cv_predictions
    from robustdiff._folds import answers_only as _answers_only
    ds = make_synthetic('moons', n_samples=80, random_state=0)
    p = cv_predictions(ds, models='quick', n_jobs=1, progress=False)
    slim = _answers_only(p)
    assert list(slim.columns) == ['model', 'repeat', 'instance', 'correct'] and slim.memory_usage(deep=False).sum() < p.memory_usage(deep=False).sum()
    pd.testing.assert_frame_equal(response_matrix(slim), response_matrix(p))

def test_batched_fits_share_the_prep_step_and_change_nothing(monkeypatch):
    "A batch fits `make_pipeline`'s prep (imputing, scaling, one-hot) once and transforms its test rows once: answers identical to one fit per task."
    from sklearn.compose import ColumnTransformer
    from robustdiff.responses import map_folds
    from robustdiff.respondents import respond_fold as _respond_fold, get_respondents
    from robustdiff.data import from_frame
    from robustdiff.datasets import load_dataset
    df = load_dataset('sklearn:wine').X.copy(); rng = np.random.default_rng(0)
    df['colour'] = rng.choice(['red', 'white', 'rose'], len(df))
    df.iloc[rng.integers(0, len(df), 30), 0] = np.nan
    df['target'] = load_dataset('sklearn:wine').y.to_numpy()
    ds = from_frame(df, 'target', nominal=['colour'], missing='impute', name='wine_gaps')
    pop = dict(list(get_respondents('ladder').items())[:24])
    calls = {'fit_transform': 0, 'transform': 0}
    for meth in calls:
        orig = getattr(ColumnTransformer, meth)
        def counted(self, *a, _orig=orig, _m=meth, **k): calls[_m] += 1; return _orig(self, *a, **k)
        monkeypatch.setattr(ColumnTransformer, meth, counted)
    a = map_folds(_respond_fold, ds, pop, progress=False, n_jobs=1, batch=8)
    assert calls == {'fit_transform': 15, 'transform': 15}, calls    # 24 respondents × 5 folds in 15 batches of 8
    b = map_folds(_respond_fold, ds, pop, progress=False, n_jobs=1, batch=1)
    pd.testing.assert_frame_equal(a, b, check_exact=True)

def test_fitting_processes_do_not_import_altair():
    "The modules a worker process loads to fit models import altair only when a chart is drawn (it cost each worker ~2.8 s)."
    import subprocess, sys
    code = ("import sys, robustdiff.report, robustdiff.respondents, robustdiff.responses\n"
            "assert 'altair' not in sys.modules, 'altair imported'\n"
            "from robustdiff.charts import alt, histogram\n"
            "import numpy as np\n"
            "c = histogram(np.arange(10.0), field='x')\n"
            "import altair\n"
            "assert alt.Chart is altair.Chart and isinstance(c, altair.TopLevelMixin)\n")
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
