"""The planner's cost prior (issue 36): every model of every registered portfolio has one, it grows with the rows as
measured (PART overtakes the forest between 4 000 and 40 000 rows), wrappers are unwrapped, the schedule starts the
costliest tasks first, and the progress bar advances by planned cost while counting fits. The run's plan (issue 45):
it covers every selected stage and the page, its calibration factors are applied, its sentence is in user words, and
its ETA is the planned work left at the measured rate (synthetic sequences: nothing is timed)."""
import importlib, io
import numpy as np, pytest
from sklearn.calibration import CalibratedClassifierCV
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier
from robustdiff.datasets import load_sklearn, make_synthetic
from robustdiff.portfolio import PORTFOLIOS, REGRESSION_PORTFOLIOS, _LAZY_PORTFOLIOS, get_models, make_pipeline
from robustdiff.responses import _plan_folds, map_folds
from robustdiff.costs import _COST_PRIOR, _COST_PER_FIT, _cost_prior, _fit_prior, _cost_classes
from robustdiff.estimators import PARTClassifier

def _all_portfolios():
    for mod in set(_LAZY_PORTFOLIOS.values()): importlib.import_module(mod)
    return sorted(PORTFOLIOS)

def test_every_model_of_every_portfolio_has_a_prior():
    names = _all_portfolios()
    assert {'quick', 'fabra18', 'pyhard7', 'ela2', 'ladder'} <= set(names)
    for p in names:
        task = 'regression' if p in REGRESSION_PORTFOLIOS.values() else 'classification'
        for name, est in get_models(p, random_state=0, task=task).items():
            missing = [c for c in _cost_classes(est) if c not in _COST_PRIOR]
            assert not missing, f"portfolio {p!r}, model {name!r}: no cost prior for {missing}"
            assert _cost_prior(est, 4000) > 0

def test_cost_grows_with_rows_as_measured():
    rf, part = RandomForestClassifier(300), PARTClassifier()
    ratio = lambda n: _cost_prior(part, n) / _cost_prior(rf, n)
    assert ratio(4000) < 2 and ratio(40000) > 2.5 * ratio(4000)          # PART overtakes the forest as the rows grow
    # (plan_calibrate.json, diamonds-like: PART 0.6 / 7.0 CPU-s at 2 000 / 8 000 rows, the forest 0.9 / 2.7)
    assert max(get_models('fabra18', random_state=0).items(), key=lambda kv: _cost_prior(kv[1], 40000))[0] == 'PART' 
    for est in (rf, part, LogisticRegression()):
        c = [_cost_prior(est, n) for n in (100, 1000, 10000)]
        assert c[0] < c[1] < c[2]
    assert _cost_prior(make_pipeline(rf, load_sklearn("wine")), 5000) == _cost_prior(rf, 5000)   # a Pipeline: its final step

def test_wrappers_are_unwrapped():
    lr = LogisticRegression()
    cal = CalibratedClassifierCV(lr, cv=3, ensemble=False)
    np.testing.assert_allclose(_cost_prior(cal, 3000), 3 * _fit_prior(lr, 2000) + _fit_prior(lr, 3000) + _COST_PER_FIT)
    from robustdiff.respondents import SubsetClassifier
    sub = SubsetClassifier(DecisionTreeClassifier(), max_samples=0.1)
    np.testing.assert_allclose(_fit_prior(sub, 5000), _fit_prior(DecisionTreeClassifier(), 500))
    assert _cost_classes(sub) == ['DecisionTreeClassifier']
    capped = SubsetClassifier(DecisionTreeClassifier(), max_samples=0.5, max_rows=1000)     # the ladder's bound on rows (issue 36)
    np.testing.assert_allclose(_fit_prior(capped, 40000), _fit_prior(DecisionTreeClassifier(), 1000))
    np.testing.assert_allclose(_fit_prior(capped, 1000), _fit_prior(DecisionTreeClassifier(), 500))    # below the bound: its share
    cols = SubsetClassifier(DecisionTreeClassifier(), max_features=0.2)                  # a share of the columns: that share of the cost
    np.testing.assert_allclose(_fit_prior(cols, 5000), 0.2 * _fit_prior(DecisionTreeClassifier(), 5000))
    assert _cost_prior(sub, 5000) < _cost_prior(DecisionTreeClassifier(), 500)           # a respondent's bookkeeping is shared with its batch

def test_schedule_starts_with_the_costliest_and_the_bar_counts_fits(capsys):
    ds = load_sklearn('breast_cancer')
    models = {'lr': LogisticRegression(max_iter=200), 'rf': RandomForestClassifier(20), 'tree': DecisionTreeClassifier()}
    fn = lambda ctx: __import__('pandas').DataFrame({'n': [len(ctx.train)]})
    plan = _plan_folds(fn, ds, models, 3, 1, 0, None, None)
    todo = sorted(plan.todo(), key=lambda t: -t[0])                   # as `_run_plans` submits them
    first = {plan.specs[k][0] for _, ks in todo[:3] for k in ks}
    assert first == {'rf'}, first                                       # the forest's three folds go first
    out = map_folds(fn, ds, models, n_splits=3, n_jobs=1, progress=True)
    assert len(out) == 9
    err = capsys.readouterr().err
    assert '9/9 fits' in err and '100%' in err

# ------------------------------------------------------------------ the log before the schedule, and max_rows
def test_sample_rows_is_stratified_and_says_so():
    from robustdiff.report import _sample_rows
    ds = load_sklearn('breast_cancer')
    assert _sample_rows(ds, None, 0) is ds and _sample_rows(ds, 10_000, 0) is ds
    s = _sample_rows(ds, 200, 0)
    assert s.n_instances == 200 and 'stratified sample of 200' in s.notes[-1]
    share = lambda d: d.y.value_counts(normalize=True).sort_index().to_numpy()
    np.testing.assert_allclose(share(s), share(ds), atol=0.01)
    np.testing.assert_array_equal(_sample_rows(ds, 200, 0).X.to_numpy(), s.X.to_numpy())     # same seed, same rows
    assert not np.array_equal(_sample_rows(ds, 200, 1).X.to_numpy(), s.X.to_numpy())
    for bad in (10, 2.5, True, '100'):
        with pytest.raises(ValueError, match='max_rows'): _sample_rows(ds, bad, 0)


def test_a_sample_of_a_table_with_gaps_imputes():
    "The sample keeps a Dataset's notes a tuple, so its whole-table imputed view (the hardness measures') still builds."
    from robustdiff.report import _sample_rows
    from robustdiff.data import from_frame
    df = load_sklearn('breast_cancer').X.iloc[:, :4].assign(y=load_sklearn('breast_cancer').y)
    df.iloc[::7, 0] = np.nan
    s = _sample_rows(from_frame(df, 'y'), 200, 0)
    imp = s.imputed()
    assert not imp.X.isna().any().any() and imp.notes[:len(s.notes)] == s.notes

def test_report_logs_the_plan_and_runs_on_the_sample(capsys):
    from robustdiff.report import build_report
    rep = build_report('sklearn:breast_cancer', models='quick', stages='data,accuracy', max_rows=150, n_jobs=1)
    err = capsys.readouterr().err
    import re
    assert re.search(r'plan: about [\d.]+ (s|min) on this machine \(1 core\): (18|19|20) fits in (18|19|20) tasks', err) and 'developers' not in err   # (up to two may be timed before)
    assert rep.table('data_summary').instances.iloc[0] == 150
    with pytest.raises(ValueError, match='max_rows'): build_report('sklearn:breast_cancer', models='quick', max_rows=3)

def test_quadratic_stage_named_with_its_estimate():
    from robustdiff._run import _Ctx, _plan_lines
    from robustdiff.datasets import make_synthetic
    big = make_synthetic('moons', n_samples=60_000)
    lines = []
    ctx = _Ctx(big, dict(n_jobs=1), {}, names=('hardness',), log=lines.append)
    out = _plan_lines(ctx, {})
    assert len(out) == 2 and out[0].startswith('plan: about') and 'the longest, hardness' in out[0]
    assert 'grows as n²' in out[1] and 'about 1.8 CPU-min' in out[1] and '--max-rows' in out[1]

def test_cli_max_rows(tmp_path, capsys):
    from robustdiff.cli import main
    args = ['report', 'sklearn:breast_cancer', '--models', 'quick', '--respondents', 'models', '--stages', 'data,accuracy',
            '--n-jobs', '1', '--quiet']
    assert main(args + ['--max-rows', '150', '--out', str(tmp_path/'r')]) == 0
    assert 'stratified sample of 150 of the table' in (tmp_path/'r'/'report.html').read_text()   # the data stage's note
    assert main(args + ['--max-rows', '3', '--out', str(tmp_path/'r2')]) == 2
    assert 'max_rows must be' in capsys.readouterr().err

# ------------------------------------------------------------------ the run's plan and its ETA (issue 45)
from robustdiff._run import _Ctx, _Timeline, _timeline, _plan_lines, _calibrate, _about, _OWN_SHARE
from robustdiff.costs import remaining_seconds

def _ctx_plans(names, ds=None, models='quick', n_jobs=2):
    "A report's context and its one pass's plan, as `_schedule` builds them (nothing run)."
    ds = ds if ds is not None else load_sklearn('breast_cancer')
    cfg = dict(models=models, n_jobs=n_jobs, nu=0.2, class_noise=0.1, perturb_size=0.1, perturb_repeats=3, noise_draws=5,
               n_splits=5, random_state=0, cache_dir=None, model_names=tuple(get_models(models, random_state=0)))
    ctx = _Ctx(ds, cfg, {}, names=names)
    fn, key = ctx.pass_task()
    return ctx, {'pass': _plan_folds(fn, ds, models, 5, 1, 0, None, key)}

def test_plan_covers_every_selected_stage_and_the_page():
    from robustdiff.report import STAGES
    for names in (STAGES, ('data', 'accuracy'), ('data', 'accuracy', 'difficulty', 'scc', 'hardness', 'isa', 'verdict')):
        ctx, plans = _ctx_plans(names)
        tl = _timeline(ctx, plans)
        assert list(tl.pieces) == ['fits', *names, 'page'], list(tl.pieces)
        assert all(v > 0 for v in tl.pieces.values()), tl.pieces
        np.testing.assert_allclose(tl.total, sum(tl.pieces.values()))
    ctx, plans = _ctx_plans(STAGES)
    from robustdiff._run import _refit_plan
    tl = _timeline(ctx, plans, _refit_plan(ctx))        # the refits beside the stages: ELA and the verdict last
    assert list(tl.pieces)[-3:] == ['ela', 'verdict', 'page']
    small, big = (_timeline(*_ctx_plans(('data', 'scc'), ds=make_synthetic('moons', n_samples=n))) for n in (500, 5000))
    assert big.pieces['scc'] > small.pieces['scc'] and big.pieces['fits'] > small.pieces['fits']

def test_calibration_factors_are_applied():
    ctx, plans = _ctx_plans(('data', 'accuracy', 'scc', 'verdict'))
    one, two = _timeline(ctx, plans), _timeline(ctx, plans, fit_factor={'pass': 2.0}, stage_factor=3.0)
    fits = lambda tl: tl.pieces['fits'] - tl.stage_plan['gather']     # the fits' piece holds the gathering of their results
    np.testing.assert_allclose(fits(two), 2 * fits(one))
    for s in ('gather', 'accuracy', 'scc', 'verdict', 'page'): np.testing.assert_allclose(two.stage_plan[s], 3 * one.stage_plan[s])
    for s in ('accuracy', 'scc', 'verdict', 'page'): np.testing.assert_allclose(two.pieces[s], 3 * one.pieces[s])
    todo = len(plans['pass'].todo())
    factors, words, each = _calibrate(ctx, plans, budget=60.0)  # whole tasks of the first fold fit the budget (even on a loaded machine, where
                                                                # the first small fit, imports and all, takes seconds): their results are kept
    assert set(factors) == {'pass'} and 0.2 <= factors['pass'] <= 30 and words.startswith('timed here on one fold of ')
    assert 1 <= len(each) <= 2 and all(m in words for m in each) and all(s > 0 and c > 0 for s, c in each.values())
    assert len(plans['pass'].todo()) == todo - len(each)                       # one task per model timed, not run again
    assert _calibrate(ctx, plans, budget=0.05) == ({}, '', {})   # too short a run: not timed

def test_plan_sentence_in_user_words():
    ctx, plans = _ctx_plans(('data', 'accuracy', 'scc'))
    tl = _timeline(ctx, plans, fit_factor={'pass': 1.5}, timed='timed here on one fold of cart (0.1 s)')
    ctx.log = lambda m: None
    line, = _plan_lines(ctx, plans, tl)
    assert line.startswith(f"plan: about {_about(tl.total)} on this machine (2 cores): 20 fits in 20 tasks")
    assert 'the longest, scc' in line and 'the page' in line and 'timed here on one fold of cart' in line
    assert 'developers' not in line and 'CPU-' not in line
    test = [(3, '3 s'), (42, '40 s'), (150, '2.5 min'), (900, '15 min'), (7200, '2.0 h')]
    assert [_about(s) for s, _ in test] == [w for _, w in test]

def _tl(costs, cores=2, keys=None, stages=None, **kw):
    "A timeline of batches of `costs` planned seconds (one spec each), then `stages` (default 30 s of SCC) and a 10-s page."
    stages = {'scc': 30.0} if stages is None else stages
    fits = max(sum(costs) / cores, max(costs))
    return _Timeline({'fits': fits, **stages, 'page': 10.0}, [(c, 'pass', [k]) for k, c in enumerate(costs)], cores=cores,
                     t0=0.0, keys=keys, **kw)

def _finish(tl, k, seconds, now):
    "Task k stored at `now`, having taken `seconds` in its worker (as `_Timeline.watch` records it)."
    tl.done.add(('pass', k)); tl.seconds[('pass', k)] = seconds; tl.mark(now)

def test_eta_before_any_evidence_is_the_plan():
    tl = _tl([40, 20, 10, 10]); tl.mark(0.0)
    np.testing.assert_allclose(tl.fits_left(0.0), 40)           # 40 | 20 + 10 + 10 on two cores
    np.testing.assert_allclose(tl.eta(0.0), tl.total)            # the fits, the stage and the page, as planned
    tl.end_fits(0.0)
    np.testing.assert_allclose(tl.eta(0.0), 40)                  # no fits left: the stage and the page

def test_a_task_past_its_plan_raises_the_eta_before_it_ends():
    # two 30-s tasks of one model on two cores and two more queued; after 60 s none has ended
    tl = _tl([30, 30, 30, 30], keys=['knn'] * 4); tl.mark(0.0)
    on_plan = tl.eta(20.0)
    np.testing.assert_allclose(on_plan, tl.total - 20)           # on time so far: the plan less the time spent
    rates, g = tl.rates(60.0)
    w = tl.weight
    np.testing.assert_allclose(g, 1.0)                            # nothing done: the overall ratio is the plan's ...
    wk = min(w, _OWN_SHARE * 30)                                  # ... the model's: each running one takes at least the 60 s it has run,
    np.testing.assert_allclose(rates['knn'], (2 * 60 + wk) / (2 * 30 + wk))   # against its 30 planned (shrunk by `wk` toward the plan)
    late = tl.fits_left(60.0)
    # each running one: 1.25 × the time it has run, less that time; the two queued at the model's rate
    np.testing.assert_allclose(late, max(30 * rates['knn'], 1.25 * 60) - 60 + 30 * rates['knn'])
    assert late > 60 - 60 + 30                                  # more left than the plan says

def test_each_model_at_its_own_rate():
    # models a and b alternate, 4 tasks of 10 planned s each, on one core: a takes 3× its plan, b its plan
    tl = _tl([10] * 8, cores=1, keys=['a', 'b'] * 4); tl.mark(0.0)
    _finish(tl, 0, 30.0, 30.0); _finish(tl, 1, 10.0, 40.0)
    rates, g = tl.rates(40.0)
    assert rates['a'] > g > rates['b'] and rates['a'] > 2 * rates['b'], rates
    np.testing.assert_allclose(tl.fits_left(40.0), 3 * 10 * rates['a'] + 3 * 10 * rates['b'])   # 3 of each left (one just started)

def test_eta_within_30_percent_after_a_minute_on_synthetic_runs():
    # runs 0.5×, 2× and 3× slower than planned all along: after the first minute the ETA is within 30 % of the truth
    for rate in (0.5, 2.0, 3.0):
        tl = _tl([1.0] * 400, stages={'scc': 100.0}); tl.mark(0.0)
        for k in range(400):
            t = (k // 2 + 1) * rate                    # two cores: tasks k and k+1 end together
            _finish(tl, k, rate, t)
            if t >= 60: break
        truth = 200 * rate + 110 - t                   # the fits at that rate, the stage and the page as planned
        assert abs(tl.eta(t) / truth - 1) < 0.3, (rate, tl.eta(t), truth)
    line = tl.eta_line(t)
    assert line.startswith('eta: about') and 'planned' in line and 'developers' not in line

def test_the_stage_hook_counts_finished_stages_at_their_rate():
    tl = _tl([10, 10], stages={'accuracy': 10.0, 'scc': 20.0}); tl.mark(0.0)
    _finish(tl, 0, 10.0, 10.0); _finish(tl, 1, 10.0, 10.0); tl.end_fits(10.0)
    np.testing.assert_allclose(tl.eta(10.0), 40)                 # the stages and the page as planned
    tl.stage_start('accuracy', 10.0); tl.stage_end('accuracy', 30.0)   # 30 s for 10 planned
    r = tl.stage_rate()
    np.testing.assert_allclose(r, (30 + tl.weight) / (10 + tl.weight))
    np.testing.assert_allclose(tl.eta(40.0), 20 * r + 10 * r)    # scc and the page at that rate
    tl.stage_start('scc', 40.0)
    np.testing.assert_allclose(tl.eta(45.0), 20 * r - 5 + 10 * r)   # the running stage: less the time it has run
    assert 'accuracy' in tl.stage_seconds and tl.planned_done(45.0) >= tl.pieces['fits'] + tl.pieces['accuracy']

def test_refits_beside_the_stages_at_their_models_rates():
    # one model's fits took 3× their plan: its refits beside the stages are expected 3× too
    bg = [(20.0, 'refit', [0], 'svm'), (20.0, 'refit', [1], 'svm')]
    tl = _tl([10, 10], cores=2, keys=['svm', 'svm'], background=bg); tl.mark(0.0)
    plan_left = tl.stages_left(0.0)
    _finish(tl, 0, 30.0, 30.0); _finish(tl, 1, 30.0, 30.0); tl.end_fits(30.0)
    rates, _ = tl.rates(30.0)
    S, B = 30.0, 40 * rates['svm']
    np.testing.assert_allclose(tl.stages_left(30.0), max(S, (S + B) / 2) + 10)   # the stages on one core, the refits sharing both with them
    assert tl.stages_left(30.0) > plan_left
    tl.done |= {('refit', 0), ('refit', 1)}
    np.testing.assert_allclose(tl.stages_left(31.0), 40)          # the refits done: the stage and the page

def test_the_fits_bar_shows_the_planners_time_left(capsys):
    from robustdiff._folds import run_plans as _run_plans
    ds = load_sklearn('breast_cancer')
    fn = lambda ctx: __import__('pandas').DataFrame({'n': [len(ctx.train)]})
    plan = _plan_folds(fn, ds, {'tree': DecisionTreeClassifier()}, 3, 1, 0, None, None)
    _run_plans([plan], 1, None, True, 'bar', postfix=lambda: 'about 7 s left')
    err = capsys.readouterr().err
    assert '3/3 fits, about 7 s left' in err
    _run_plans([_plan_folds(fn, ds, {'tree': DecisionTreeClassifier()}, 3, 1, 0, None, None)], 1, None, True, 'bar',
               postfix=lambda: 1 / 0)                               # a failing postfix never stops the schedule
    assert '3/3 fits' in capsys.readouterr().err

def test_each_task_returns_its_worker_seconds():
    from robustdiff.responses import _run_batch
    import pandas as pd
    p = _plan_folds(lambda ctx: pd.DataFrame({'n': [len(ctx.test)]}), 'sklearn:iris', {'cart': DecisionTreeClassifier()}, 3, 1, 0, None, None)
    _, [(k, out)] = _run_batch('t', p.fn, p.dataset, p.entropy, [(0,) + tuple(p.specs[0])])
    assert out.attrs['seconds'] > 0
    tl = _Timeline({'fits': 1.0, 'page': 1.0}, [(1.0, 'pass', [0])], cores=1, t0=0.0)
    tl.watch({'pass': p})
    p.store(k, out)
    assert ('pass', 0) in tl.done and tl.seconds[('pass', 0)] > 0 and 'seconds' not in p.results[0].attrs

def test_models_timed_in_the_first_seconds_are_evidence_of_their_rates():
    tl = _tl([10, 10, 10], cores=1, keys=['svm', 'nb', 'svm'], evidence={'svm': (30.0, 10.0), 'nb': (5.0, 10.0)}); tl.mark(0.0)
    rates, g = tl.rates(0.0)
    assert rates['svm'] > g > rates['nb'], rates
    np.testing.assert_allclose(tl.fits_left(0.0), 20 * rates['svm'] + 10 * rates['nb'])

def test_the_workers_start_up_is_not_the_first_tasks_time():
    tl = _tl([30] * 4, keys=['knn'] * 4); tl.mark(0.0)
    before = tl.fits_left(60.0)                        # the first two seem to have run 60 s of their 30
    tl.workers_ready(30.0)                             # the workers were up at 30 s: they have run 30 s, on plan
    rates, g = tl.rates(60.0)
    np.testing.assert_allclose(rates['knn'], 1.0)
    np.testing.assert_allclose(tl.fits_left(60.0), max(30, 1.25 * 30) - 30 + 30)
    assert tl.fits_left(60.0) < before

def test_the_first_fold_of_every_model_goes_first_and_the_timeline_knows_the_order():
    from robustdiff._run import _first_folds_first
    from robustdiff._folds import costliest_first as _costliest_first
    ctx, plans = _ctx_plans(('data', 'accuracy', 'scc'))
    order = _first_folds_first(list(plans.values()))
    p = plans['pass']
    models = {s[0] for s in p.specs}
    head = order[:len(models)]
    assert {p.specs[ks[0]][0] for _, _, ks in head} == models and all(p.specs[ks[0]][2:4] == (0, 0) for _, _, ks in head)
    assert [c for c, _, _ in head] == sorted((c for c, _, _ in head), reverse=True)        # the costliest first among them
    assert sorted(map(str, order)) == sorted(map(str, _costliest_first(list(plans.values()))))   # the same batches
    tl = _timeline(ctx, plans)
    assert [ks for _, _, ks in tl.batches] == [ks for _, _, ks in order]                    # the ETA's order is the schedule's
    assert tl.keys[:len(models)] == [p.specs[ks[0]][0] for _, _, ks in head]

def test_one_slow_model_running_is_no_evidence_about_the_others():
    tl = _tl([30, 30, 10, 10], keys=['svm', 'svm2', 'nb', 'nb']); tl.mark(0.0)
    rates, g = tl.rates(60.0)                          # both svms past their plan, nothing done
    np.testing.assert_allclose(g, 1.0)
    assert rates['svm'] > 1.5 and rates.get('nb', g) == g

def test_a_plan_without_evidence_keeps_its_calibrated_rate():
    # the models' first folds ran 4× their plan; the respondents' batches have not started: they stay at their plan
    tl = _Timeline({'fits': 60.0, 'page': 10.0}, [(10.0, 'pass', [0]), (10.0, 'pass', [1]), (20.0, 'respondents', [0])],
                   cores=1, t0=0.0, keys=['svm', 'rf', 'respondents']); tl.mark(0.0)
    _finish(tl, 0, 40.0, 40.0); _finish(tl, 1, 40.0, 80.0)
    rates, g = tl.rates(80.0)
    assert g > 2 and rates['svm'] > 2 and rates['rf'] > 2
    np.testing.assert_allclose(rates['respondents'], 1.0)
    np.testing.assert_allclose(tl.fits_left(80.0), 20.0)

def test_a_running_task_bounds_its_models_rate_from_below():
    # a model planned at 2 s a fold: its first fold has run 50 s and not ended; its four other folds take about as long
    tl = _tl([2, 2, 2, 2, 2, 1], cores=1, keys=['logreg'] * 5 + ['nb']); tl.mark(0.0)
    rates, g = tl.rates(50.0)
    assert 2 * rates['logreg'] > 40 and rates['nb'] == pytest.approx(1.0) and g == pytest.approx(1.0)
    assert tl.fits_left(50.0) > 4 * 40 + 1                        # the queued folds at ≥ 40 s each (the plan: 2 s), then nb
    tl.stop()

def test_a_running_task_within_the_rate_of_its_models_done_tasks_says_nothing():
    # two folds of a model done at half their plan; a third has run 30 s of its 100 planned: the model stays at half
    tl = _tl([100, 100, 100, 100], cores=1, keys=['rf'] * 4); tl.mark(0.0)
    _finish(tl, 0, 50.0, 50.0); _finish(tl, 1, 50.0, 100.0)
    r_done, _ = tl.rates(100.0)
    r_run, _ = tl.rates(130.0)
    np.testing.assert_allclose(r_run['rf'], r_done['rf'])        # 30 s of a task expected to take 50: no news
    assert tl.rates(200.0)[0]['rf'] > r_done['rf']               # 100 s of it: slower than the folds done

def test_one_fold_done_outweighs_the_other_models_ratio():
    # the first folds of three models: a and b on plan, c 10× its small plan; c's other folds at c's rate, nearly 10×
    tl = _tl([10, 10, 1, 10, 10, 1], cores=1, keys=['a', 'b', 'c'] * 2); tl.mark(0.0)
    _finish(tl, 0, 10.0, 10.0); _finish(tl, 1, 10.0, 20.0); _finish(tl, 2, 10.0, 30.0)
    rates, g = tl.rates(30.0)
    assert rates['c'] > 8 and abs(rates['a'] - 1) < 0.1 and g < 2   # (the old shrinkage by `weight` planned seconds: c at 3.9)

def test_a_batch_of_respondents_runs_among_the_first():
    # after the first fold of every model, the costliest batch of the respondents: the first minute times them too
    from robustdiff._run import _first_folds_first
    from robustdiff.respondents import respond_fold as _respond_fold, get_respondents
    ctx, plans = _ctx_plans(('data', 'accuracy', 'scc'))
    resp = _plan_folds(_respond_fold, ctx.ds, get_respondents('ladder', n=12), 5, 1, 0, None, 'respondents', batch=4)
    order = _first_folds_first([plans['pass'], resp])
    n = len({s[0] for s in plans['pass'].specs})
    assert all(i == 0 for _, i, _ in order[:n]) and order[n][1] == 1
    assert order[n][0] == max(c for c, _ in resp.todo())
    assert sorted(map(str, order)) == sorted(map(str, __import__('robustdiff._folds', fromlist=['x']).costliest_first([plans['pass'], resp])))

def test_gathering_the_results_runs_from_the_schedules_end_to_the_first_stage():
    tl = _tl([10, 10], stage_plan={'gather': 20.0, 'scc': 30.0, 'page': 10.0}); tl.mark(0.0)
    np.testing.assert_allclose(tl.stages_left(5.0), 60)           # the fits running: the gathering whole, the stage and the page
    _finish(tl, 0, 10.0, 10.0); _finish(tl, 1, 10.0, 10.0); tl.end_fits(10.0)
    np.testing.assert_allclose(tl.stages_left(15.0), 15 + 40)     # 5 s into it: 15 s of it left
    np.testing.assert_allclose(tl.stages_left(60.0), 2 + 40)      # past its plan: a tenth of it, until the first stage starts
    tl.stage_start('scc', 60.0)
    np.testing.assert_allclose(tl.stages_left(60.0), 40)          # a stage started: the results are gathered
    assert tl.stage_rate() == 1.0                                 # the gathering is no stage: it says nothing of their rate

def test_stage_plan_grows_with_models_and_rows_and_the_gathering_with_the_measures():
    from robustdiff._run import _stage_plan
    from robustdiff.costs import stage_costs
    cfg = dict(noise_draws=5, perturb_repeats=3)
    few, many = (stage_costs(['scc', 'isa', 'risk'], rows=2000, models=m, noise_draws=5) for m in (4, 18))
    assert all(many[s] > few[s] for s in few), (few, many)                 # each stage has a part per model
    p = _stage_plan(['data', 'scc'], 50_000, 4, cfg, 2.0, measures=True)
    assert list(p) == ['gather', 'data', 'scc', 'page']
    np.testing.assert_allclose(p['scc'], 2 * stage_costs(['scc'], rows=50_000, models=4, noise_draws=5)['scc'])
    q = _stage_plan(['data', 'scc'], 50_000, 4, cfg, 2.0, measures=False)
    assert q['gather'] < p['gather'] / 10 and q['scc'] == p['scc']       # rows² only while the hardness measures start beside it
    assert 'gather' not in _stage_plan(['data'], 50_000, 4, cfg, schedule=False)   # no schedule: nothing to gather

def test_the_stages_probe_leaves_the_global_random_state_alone():
    from robustdiff.costs import probe_seconds
    state = np.random.get_state()[1].copy()
    assert probe_seconds(repeats=1) > 0
    np.testing.assert_array_equal(np.random.get_state()[1], state)

def test_the_stages_factor_ignores_the_probes_spread_on_one_machine():
    from robustdiff._run import _stage_factor, _PROBE_SPREAD
    from robustdiff._costs import _PROBE_REF
    assert _stage_factor(_PROBE_REF) == 1.0 and _stage_factor(_PROBE_REF * _PROBE_SPREAD * 0.99) == 1.0
    assert _stage_factor(_PROBE_REF / _PROBE_SPREAD * 1.01) == 1.0             # within the spread: no news
    np.testing.assert_allclose(_stage_factor(_PROBE_REF * 3 * _PROBE_SPREAD), 3.0)    # beyond it: the part past the spread
    np.testing.assert_allclose(_stage_factor(_PROBE_REF / (2 * _PROBE_SPREAD)), 0.5)
    assert _stage_factor(_PROBE_REF * 1e3) == 10.0 and _stage_factor(0.0) == 0.2
