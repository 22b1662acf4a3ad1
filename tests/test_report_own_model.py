"""Your own model as the subject of the report (issue 33, item 1).

A user's `Pipeline` that selects columns by name runs through `build_report` and the command line as given, on the raw
columns of the CSV; its out-of-fold predictions are scikit-learn's `cross_val_predict` on the report's folds (read from
the report's tables); a model that cannot be fitted stops the run naming it; skops files are loaded only with trusted
types; `module:attribute` works; a model marked with `needs_prep` gets the package's preprocessing."""
import contextlib, io, sys
import numpy as np
import pandas as pd
import pytest
import skops.io as sio
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import PredefinedSplit, cross_val_predict
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder

from robustdiff.cli import main
from robustdiff.tables import from_file
from robustdiff.portfolio import make_pipeline, needs_prep
from robustdiff.report import build_report
from robustdiff.responses import ModelFitError

FAST = dict(n_jobs=1, progress=False, random_state=0)


def _pipeline():
    "The user's model: a ColumnTransformer selecting columns BY NAME (numbers with gaps passed through, text one-hot), then HGB."
    ct = ColumnTransformer([('num', 'passthrough', ['size', 'weight']),
                            ('cat', OneHotEncoder(handle_unknown='ignore'), ['colour'])])
    return Pipeline([('ct', ct), ('hgb', HistGradientBoostingClassifier(max_iter=20, random_state=0))])


@pytest.fixture(scope='module')
def csv(tmp_path_factory):
    "150 rows: two numbers (one with gaps), a text column, a yes/no target that depends on both kinds."
    rng = np.random.default_rng(7)
    n = 150
    df = pd.DataFrame({'size': rng.normal(size=n).round(3), 'weight': rng.normal(size=n).round(3),
                       'colour': rng.choice(['red', 'green', 'blue'], n)})
    df.loc[::13, 'weight'] = np.nan
    df['y'] = np.where((df['size'] + 0.6 * rng.normal(size=n) > 0) ^ (df.colour == 'red'), 'yes', 'no')
    path = tmp_path_factory.mktemp('own') / 'table.csv'
    df.to_csv(path, index=False)
    return path


def _reference(csv, model, folds:pd.DataFrame)->tuple:
    "scikit-learn alone: the CSV read with pandas, `cross_val_predict` on the report's folds → (predictions, per-fold accuracy)."
    df = pd.read_csv(csv)
    X, y = df.drop(columns='y'), df.y.to_numpy()
    fold = folds.set_index('instance').fold.loc[np.arange(len(df))].to_numpy()
    pred = cross_val_predict(model, X, y, cv=PredefinedSplit(fold))
    return pred, pd.Series(pred == y).groupby(fold).mean()


def _check_against_sklearn(csv, model, folds, acc_folds, name):
    pred, per_fold = _reference(csv, model, folds)
    mine = acc_folds[acc_folds.model == name].set_index('fold').accuracy.sort_index()
    np.testing.assert_allclose(mine.to_numpy(), per_fold.sort_index().to_numpy(), rtol=0, atol=1e-12)
    return pred


def test_a_pipeline_by_column_names_runs_as_given(csv):
    rep = build_report(csv, target='y', models={'mine': _pipeline()}, respondents='models', stages='accuracy', **FAST)
    assert rep.stages['accuracy'].status == 'ok', rep.stages['accuracy'].message
    assert rep.table('accuracy').model.tolist() == ['mine']
    pred = _check_against_sklearn(csv, _pipeline(), rep.table('folds'), rep.table('accuracy_folds'), 'mine')
    np.testing.assert_array_equal(rep.extra['oof'].sort_values('instance').y_pred.to_numpy(), pred)   # every prediction
    assert rep.stages['accuracy'].notes[0].startswith('Used as given: mine')
    assert rep.config['models'] == 'mine' and rep.config['as_given'] == ('mine',)


def test_a_single_estimator_is_named_after_its_last_step(csv):
    rep = build_report(csv, target='y', models=_pipeline(), respondents='models', stages='accuracy', **FAST)
    assert rep.table('accuracy').model.tolist() == ['HistGradientBoostingClassifier']


def test_the_stages_that_perturb_features_run_on_it(csv):
    "Feature noise (SCC), the PiML perturbations and the ELA refit hand the pipeline frames with the CSV's columns and dtypes."
    rep = build_report(csv, target='y', models=[('mine', _pipeline())], respondents='quick',
                       stages='accuracy,difficulty,scc,ela,perturbation,verdict', **FAST)
    bad = {k: s.message for k, s in rep.stages.items() if s.status not in ('ok', 'off')}
    assert not bad, bad
    assert set(rep.table('perturbation').model) == {'mine'} and set(rep.table('scc').model) == {'mine'}
    assert set(rep.table('ela').model) == {'mine'}
    assert any('mine' in s for s in rep.answer), rep.answer                  # the answer names the user's model
    pp = rep.extra['perturbation_predictions']
    assert pp.level.nunique() == 5 and pp.y_pred.isin(['yes', 'no']).all()


def test_the_command_line_takes_a_skops_file(csv, tmp_path):
    sio.dump(_pipeline(), tmp_path / 'mine.skops')
    out = tmp_path / 'r'
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = main(['report', str(csv), '--target', 'y', '--model', str(tmp_path / 'mine.skops'), '--respondents', 'models',
                     '--stages', 'accuracy', '--out', str(out), '--n-jobs', '1'])
    assert code == 0
    assert pd.read_csv(out / 'accuracy.csv').model.tolist() == ['mine']
    _check_against_sklearn(csv, _pipeline(), pd.read_csv(out / 'folds.csv'), pd.read_csv(out / 'accuracy_folds.csv'), 'mine')
    assert 'mine' in (out / 'report.html').read_text()


def test_a_fitted_skops_model_is_refitted_on_every_fold(csv, tmp_path):
    df = pd.read_csv(csv)
    sio.dump(_pipeline().fit(df.drop(columns='y'), df.y), tmp_path / 'fitted.skops')   # fitted on all rows: would leak if reused
    out = tmp_path / 'r'
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = main(['report', str(csv), '--target', 'y', '--model', f"best={tmp_path / 'fitted.skops'}", '--models', 'quick',
                     '--respondents', 'models', '--stages', 'accuracy', '--out', str(out), '--n-jobs', '1'])
    assert code == 0
    acc = pd.read_csv(out / 'accuracy.csv')
    assert set(acc.model) == {'best', 'logreg', 'cart', 'knn3', 'nb'}
    _check_against_sklearn(csv, _pipeline(), pd.read_csv(out / 'folds.csv'), pd.read_csv(out / 'accuracy_folds.csv'), 'best')


def test_a_model_that_cannot_be_fitted_stops_the_report(csv, tmp_path):
    "A bare LogisticRegression cannot read the text column as given: Python raises naming it; the CLI exits 1; no page."
    with pytest.raises(ModelFitError, match=r"model 'bare' failed to fit on repeat 0, fold \d of 'table': ValueError: .*needs_prep") as e:
        build_report(csv, target='y', models={'bare': LogisticRegression(), 'ok': _pipeline()}, respondents='models',
                     stages='accuracy', out=tmp_path / 'py', **FAST)
    assert e.value.model == 'bare' and not (tmp_path / 'py' / 'report.html').exists()
    sio.dump(GaussianNB(), tmp_path / 'nb.skops')
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(['report', str(csv), '--target', 'y', '--model', str(tmp_path / 'nb.skops'), '--respondents', 'models',
                     '--stages', 'accuracy', '--out', str(tmp_path / 'cli'), '--n-jobs', '1', '--quiet'])
    assert code == 1 and "model 'nb' failed to fit" in err.getvalue() and 'no report was written' in err.getvalue(), err.getvalue()
    assert not (tmp_path / 'cli' / 'report.html').exists()


class Homemade(GaussianNB):
    "A classifier from outside scikit-learn, numpy and robustdiff: its skops file needs --trust."


def test_a_skops_file_with_an_untrusted_type_is_refused(csv, tmp_path):
    sio.dump(Homemade(), tmp_path / 'home.skops')
    typ = f"{Homemade.__module__}.Homemade"
    args = ['report', str(csv), '--target', 'y', '--model', str(tmp_path / 'home.skops'), '--respondents', 'models',
            '--stages', 'accuracy', '--n-jobs', '1', '--quiet']
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(args + ['--out', str(tmp_path / 'r1')])
    assert code == 2 and typ in err.getvalue() and f'--trust {typ}' in err.getvalue(), err.getvalue()
    assert not (tmp_path / 'r1').exists()                                   # refused before any work
    (tmp_path / 'm.pkl').write_bytes(b'not loaded')
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        assert main(args[:4] + ['--model', str(tmp_path / 'm.pkl'), '--out', str(tmp_path / 'r0')]) == 2
    assert 'never pickles' in err.getvalue()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = main(args + ['--trust', typ, '--out', str(tmp_path / 'r2')])
    assert code == 1                        # trusted and loaded; a bare naive Bayes then fails on the text column, as given


def test_module_attribute(csv, tmp_path, monkeypatch):
    (tmp_path / 'mymodels.py').write_text(
        "from sklearn.compose import ColumnTransformer\nfrom sklearn.pipeline import Pipeline\n"
        "from sklearn.preprocessing import OneHotEncoder\nfrom sklearn.ensemble import HistGradientBoostingClassifier\n"
        "pipe = Pipeline([('ct', ColumnTransformer([('num', 'passthrough', ['size', 'weight']), "
        "('cat', OneHotEncoder(handle_unknown='ignore'), ['colour'])])), "
        "('hgb', HistGradientBoostingClassifier(max_iter=20, random_state=0))])\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, 'mymodels', raising=False)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = main(['report', str(csv), '--target', 'y', '--model', 'mymodels:pipe', '--respondents', 'models',
                     '--stages', 'accuracy', '--out', str(tmp_path / 'r'), '--n-jobs', '1'])
    sys.modules.pop('mymodels', None)
    assert code == 0
    _check_against_sklearn(csv, _pipeline(), pd.read_csv(tmp_path / 'r' / 'folds.csv'),
                           pd.read_csv(tmp_path / 'r' / 'accuracy_folds.csv'), 'pipe')


def test_a_model_marked_needs_prep_is_wrapped(csv):
    "needs_prep: impute, scale and one-hot inside each training fold — the predictions of make_pipeline's pipeline."
    rep = build_report(csv, target='y', models={'lr': needs_prep(LogisticRegression())}, respondents='models',
                       stages='accuracy', **FAST)
    assert rep.stages['accuracy'].status == 'ok', rep.stages['accuracy'].message
    assert not rep.config['as_given']
    ds = from_file(csv, 'y')
    folds = rep.table('folds')
    fold = folds.set_index('instance').fold.loc[np.arange(ds.n_instances)].to_numpy()
    ref = cross_val_predict(make_pipeline(LogisticRegression(), ds), ds.X, ds.y, cv=PredefinedSplit(fold))
    np.testing.assert_array_equal(rep.extra['oof'].sort_values('instance').y_pred.to_numpy(), ref)


def test_few_models_get_a_shorter_ladder(csv):
    "respondents left at 'auto' with one model: the ladder's first 120 respondents, said in the difficulty stage's notes."
    rep = build_report(csv, target='y', models={'mine': _pipeline()}, stages='accuracy,difficulty', n_splits=3, **FAST)
    assert rep.config['respondents'] == 'ladder:120'
    assert rep.table('respondent_abilities').shape[0] == 120
    assert any("first 120 of the ladder's 240 respondents" in n for n in rep.stages['difficulty'].notes)


def test_module_attribute_may_name_an_estimator_class():
    "`--model lr=sklearn.linear_model:LogisticRegression`: a shell cannot pass an instance, so a class is built with its defaults."
    from robustdiff.portfolio import load_model
    from sklearn.linear_model import LogisticRegression
    name, est = load_model('lr=sklearn.linear_model:LogisticRegression')
    assert name == 'lr' and type(est) is LogisticRegression and est.get_params() == LogisticRegression().get_params()


# a regression target ---------------------------------------------------------------------------------------------
def _regression_pipeline():
    "The user's regressor: numbers with gaps passed through (HGB reads NaN), text one-hot, by column name."
    from sklearn.ensemble import HistGradientBoostingRegressor
    ct = ColumnTransformer([('num', 'passthrough', ['size', 'weight']),
                            ('cat', OneHotEncoder(handle_unknown='ignore'), ['colour'])])
    return Pipeline([('ct', ct), ('hgb', HistGradientBoostingRegressor(max_iter=30, random_state=0))])


@pytest.fixture(scope='module')
def price_csv(tmp_path_factory):
    "200 rows: two numbers (one with gaps), a text column, a continuous target that depends on both kinds."
    rng = np.random.default_rng(11)
    n = 200
    df = pd.DataFrame({'size': rng.normal(size=n).round(3), 'weight': rng.normal(size=n).round(3),
                       'colour': rng.choice(['red', 'green', 'blue'], n)})
    df.loc[::11, 'weight'] = np.nan
    df['y'] = (10 + 3 * df['size'] + 2 * (df.colour == 'red') + rng.normal(size=n)).round(3)
    path = tmp_path_factory.mktemp('own_reg') / 'prices.csv'
    df.to_csv(path, index=False)
    return path


def test_a_regression_pipeline_runs_as_given(price_csv):
    "A continuous target takes the regression path; the user's Pipeline's per-fold MAE is scikit-learn's cross_val_predict on the report's folds."
    rep = build_report(price_csv, target='y', models={'mine': _regression_pipeline()}, respondents='models', stages='accuracy', **FAST)
    assert rep.config['task'] == 'regression' and rep.config['metric'] == 'mae'
    df = pd.read_csv(price_csv)
    X, y = df.drop(columns='y'), df.y.to_numpy()
    fold = rep.table('folds').set_index('instance').fold.loc[np.arange(len(df))].to_numpy()
    pred = cross_val_predict(_regression_pipeline(), X, y, cv=PredefinedSplit(fold))
    np.testing.assert_allclose(rep.extra['oof'].sort_values('instance').y_pred.to_numpy(), pred, rtol=0, atol=1e-12)
    af = rep.table('accuracy_folds')
    mine = af[af.model == 'mine'].set_index('fold').mae.sort_index().to_numpy()
    np.testing.assert_allclose(mine, pd.Series(np.abs(pred - y)).groupby(fold).mean().sort_index().to_numpy(), rtol=0, atol=1e-12)
