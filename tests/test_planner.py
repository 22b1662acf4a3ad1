"""The planner's cost prior (issue 36): every model of every registered portfolio has one, it grows with the rows as
measured (PART overtakes the forest between 4 000 and 40 000 rows), wrappers are unwrapped, the schedule starts the
costliest tasks first, and the progress bar advances by planned cost while counting fits."""
import importlib, io
import numpy as np, pytest
from sklearn.calibration import CalibratedClassifierCV
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier
from robustdiff.data import load_sklearn
from robustdiff.portfolio import PORTFOLIOS, _LAZY_PORTFOLIOS, get_models, make_pipeline
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
        for name, est in get_models(p, 0).items():
            missing = [c for c in _cost_classes(est) if c not in _COST_PRIOR]
            assert not missing, f"portfolio {p!r}, model {name!r}: no cost prior for {missing}"
            assert _cost_prior(est, 4000) > 0

def test_cost_grows_with_rows_as_measured():
    rf, part = RandomForestClassifier(300), PARTClassifier()
    ratio = lambda n: _cost_prior(part, n) / _cost_prior(rf, n)
    assert ratio(4000) < 2 and ratio(40000) > 2.5 * ratio(4000)          # PART overtakes the forest as the rows grow
    # (plan_calibrate.json, diamonds-like: PART 0.6 / 7.0 CPU-s at 2 000 / 8 000 rows, the forest 0.9 / 2.7)
    assert max(get_models('fabra18', 0).items(), key=lambda kv: _cost_prior(kv[1], 40000))[0] == 'PART' 
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

def test_report_logs_the_plan_and_runs_on_the_sample(capsys):
    from robustdiff.report import build_report
    rep = build_report('sklearn:breast_cancer', models='quick', stages='data,accuracy', max_rows=150, n_jobs=1)
    err = capsys.readouterr().err
    assert 'plan: 20 fits in 20 tasks, about' in err and 'by the cost prior' in err
    assert rep.table('data_summary').instances.iloc[0] == 150
    with pytest.raises(ValueError, match='max_rows'): build_report('sklearn:breast_cancer', models='quick', max_rows=3)

def test_quadratic_stage_named_with_its_estimate():
    from robustdiff.report import _Ctx, _plan_lines
    from robustdiff.data import make_synthetic
    big = make_synthetic('moons', n_samples=60_000)
    lines = []
    ctx = _Ctx(big, dict(n_jobs=1), {}, names=('hardness',), log=lines.append)
    out = _plan_lines(ctx, {})
    assert len(out) == 1 and 'grows as n²' in out[0] and 'about 1.8 CPU-min' in out[0] and '--max-rows' in out[0]

def test_cli_max_rows(tmp_path, capsys):
    from robustdiff.cli import main
    args = ['report', 'sklearn:breast_cancer', '--models', 'quick', '--respondents', 'models', '--stages', 'data,accuracy',
            '--n-jobs', '1', '--quiet']
    assert main(args + ['--max-rows', '150', '--out', str(tmp_path/'r')]) == 0
    assert 'stratified sample of 150 of the table' in (tmp_path/'r'/'report.html').read_text()   # the data stage's note
    assert main(args + ['--max-rows', '3', '--out', str(tmp_path/'r2')]) == 2
    assert 'max_rows must be' in capsys.readouterr().err
