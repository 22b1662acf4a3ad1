"""A model's outputs are checked where they enter (issue 44, part B): probabilities finite, in [0, 1] and summing to 1
per row, labels among y's classes, one per row — on every prediction path (clean cross-validation, the report's one
pass, the label-noise refits in the pass and beside the stages, the risk stage's inputs, new rows). Each case is
refused in one line naming the model and the fold; each test failed on the code before the fix (exit 0, a silent
accuracy of 0.0, sets of one class, or a pandas message without the model's name)."""
import contextlib, io, sys, types, warnings
import numpy as np, pandas as pd, pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from robustdiff.cli import main
from robustdiff.data import Dataset
from robustdiff.report import build_report
from robustdiff.responses import ModelFitError, ModelOutputError, cv_predictions, predict_labels_proba

N = 120
_r = np.random.default_rng(0)
Y = np.resize(np.array(['a', 'b', 'c'], dtype=object), N)
TABLE = Dataset('table', pd.DataFrame({'x': _r.normal(size=N) + (Y == 'a'), 'z': _r.normal(size=N)}), Y)
WHERE = r"model 'bad' on repeat 0, fold \d of 'table': "


class Bad(ClassifierMixin, BaseEstimator):
    "A classifier whose outputs are broken as `mode` says; `truth` (labels by row): broken only once fitted on labels that differ from it."
    def __init__(self, mode='ok', truth=None): self.mode, self.truth = mode, truth

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        if self.mode == 'encoded_classes': self.classes_ = np.arange(len(self.classes_))
        y0 = np.asarray(y)
        self.noisy_ = self.truth is not None and bool((y0 != np.asarray(self.truth, dtype=object)[X.index.to_numpy()]).any())
        self.first_ = y0[0]
        return self

    def _on(self): return self.truth is None or self.noisy_

    def predict(self, X):
        n = len(X)
        if self._on() and self.mode == 'short': return np.repeat(self.first_, n - 1)
        if self._on() and self.mode == 'encoded': return np.arange(n) % len(self.classes_)
        return self.classes_.take(np.asarray(X.x > 0.5, int) % len(self.classes_))

    def predict_proba(self, X):
        n, k = len(X), len(self.classes_)
        P = np.full((n, k), 1 / k)
        if not self._on(): return P
        if self.mode == 'nan': P[:] = np.nan
        if self.mode == 'nan_rows': P[np.asarray(X.x > 1.5)] = np.nan
        if self.mode == 'inf': P[0, 0] = np.inf
        if self.mode == 'range': P[:, 0], P[:, 1] = 1.5, -0.5 - (k - 2) / k
        if self.mode == 'sum': P = P * 0.9
        if self.mode == 'one_col': P = P[:, :1]
        return P


def _report(model, stages='accuracy', n_jobs=1, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        return build_report(TABLE, models={'bad': model}, respondents='models', stages=stages, n_jobs=n_jobs,
                            progress=False, **kw)


CASES = [('nan', 'predict_proba returned values outside \\[0, 1\\]: NaN or infinite in \\d+ of \\d+ rows'),
         ('nan_rows', 'predict_proba returned values outside \\[0, 1\\]: NaN or infinite in \\d+ of \\d+ rows \\(first: row \\d+\\)'),
         ('inf', 'predict_proba returned values outside \\[0, 1\\]: NaN or infinite in 1 of'),
         ('range', 'predict_proba returned values outside \\[0, 1\\] \\(min -0.8333, max 1.5'),
         ('sum', 'predict_proba rows must sum to 1 \\(within 1e-05\\): row 0 sums to 0.9'),
         ('one_col', 'predict_proba returned shape \\(\\d+, 1\\), expected \\(\\d+, 3\\)'),
         ('encoded', "predict returned the label [012] \\(row \\d+ of \\d+\\), which is not a class of y \\(classes_: 'a', 'b', 'c'\\); "
                     "it looks like an encoded label"),
         ('encoded_classes', "its classes_ holds 0, which is not a label of y \\('a', 'b', 'c'\\); it looks like an encoded label"),
         ('short', 'predict returned shape \\(\\d+,\\), expected \\(\\d+,\\) \\(one label per row\\)')]


@pytest.mark.parametrize('mode,msg', CASES, ids=[c[0] for c in CASES])
def test_the_report_refuses_unusable_outputs_naming_model_and_fold(mode, msg):
    "The report's one pass (clean rows and their noisy and perturbed copies in one call)."
    with pytest.raises(ModelOutputError, match=WHERE + msg) as e:
        _report(Bad(mode), stages='accuracy,scc,perturbation')
    assert e.value.model == 'bad' and isinstance(e.value, ValueError) and isinstance(e.value, ModelFitError)
    assert '\n' not in str(e.value)


@pytest.mark.parametrize('mode', ['nan', 'encoded', 'short'])
def test_clean_cross_validation_refuses_them_too(mode):
    with pytest.raises(ModelOutputError, match=WHERE):
        cv_predictions(TABLE, {'bad': Bad(mode)}, n_splits=3, progress=False)


@pytest.mark.parametrize('n_jobs', [1, 2], ids=['refit-in-the-pass', 'refits-beside-the-stages'])
def test_a_model_broken_only_after_its_label_noise_refit_is_refused(n_jobs):
    "Fine on the clean labels, NaN probabilities once refitted on labels with 10 % flipped (ELA): the refit's outputs are checked too."
    with pytest.raises(ModelOutputError, match=WHERE + 'predict_proba returned values outside'):
        _report(Bad('nan', truth=Y), stages='accuracy,ela', n_jobs=n_jobs)


def test_a_good_model_passes_and_scores_as_before():
    rep = _report(Bad('ok'), stages='accuracy')
    acc = rep.stages['accuracy']
    assert acc.status == 'ok', acc.message
    t = next(v for k, v in acc.tables.items() if 'accuracy' in v.columns)
    want = np.mean(np.where(TABLE.X.x > 0.5, 'b', 'a') == Y)
    assert abs(float(t.set_index('model').accuracy['bad']) - want) < 1e-12


def test_new_rows_are_checked_too():
    "`predict_labels_proba` is what scoring new rows calls: the same checks, without a fold to name."
    m = Bad('nan').fit(TABLE.X, TABLE.y)
    with pytest.raises(ModelOutputError, match=r'^predict_proba returned values outside \[0, 1\]: NaN or infinite in 120 of 120 rows'):
        predict_labels_proba(m, TABLE.X)
    labels, P = predict_labels_proba(m, TABLE.X, check=False)     # (the unchecked values, for a caller that checks them itself)
    assert np.isnan(P).all() and len(labels) == N


def test_the_risk_stage_refuses_unchecked_inputs():
    "The stage never builds sets or its coverage check on NaN probabilities, even if they reach it another way."
    from robustdiff.risk_report import report_stage
    from robustdiff.report import Stage
    oof = pd.DataFrame({'model': 'bad', 'repeat': 0, 'fold': np.arange(N) % 5, 'instance': np.arange(N), 'y_true': Y,
                        'y_pred': 'a', 'correct': (Y == 'a').astype('int8'), 'p_true': 1 / 3, 'p_max': 1 / 3})
    oof.loc[7, ['p_true', 'p_max']] = np.nan
    noisy = pd.DataFrame({'model': 'bad', 'instance': np.arange(N), 'y_noisy': 'a', 'y_pred': 'a'})
    from robustdiff._stages import Settings
    ctx = types.SimpleNamespace(cfg=dict(models={'bad': Bad()}, n_bins=3, nu=0.2, metric='accuracy'), ds=TABLE, risk_model=None,
                                run=Settings(n_jobs=1, random_state=0, progress=False), extra={},
                                oof=lambda: oof, noisy=lambda: noisy, table=lambda s, n: None)
    with pytest.raises(ModelOutputError, match=r"model 'bad' on repeat 0, fold 2: 1 out-of-fold row\(s\) with probabilities that are NaN.*instance 7"):
        report_stage(ctx, Stage('risk'))
    assert ctx.risk_model is None and 'risk_model' not in ctx.extra


def test_cli_refuses_in_one_line_and_writes_nothing(tmp_path, monkeypatch):
    (tmp_path/'mymods_outputs.py').write_text(
        "import numpy as np\nfrom sklearn.linear_model import LogisticRegression\n"
        "class NaNProba(LogisticRegression):\n"
        "    def predict_proba(self, X): return np.full((len(X), len(self.classes_)), np.nan)\n"
        "nanmodel = NaNProba()\n")
    TABLE.X.assign(target=Y).to_csv(tmp_path/'d.csv', index=False)
    monkeypatch.chdir(tmp_path)
    err = io.StringIO()
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err), warnings.catch_warnings():
            warnings.simplefilter('ignore')
            code = main(['report', 'd.csv', '--model', 'mymods_outputs:nanmodel', '--respondents', 'models', '--stages',
                         'accuracy', '--out', 'r', '--n-jobs', '1', '--quiet'])
    finally: sys.modules.pop('mymods_outputs', None)
    e = err.getvalue()
    assert code == 1 and e.count('\n') == 1 and e.startswith('robustdiff: error: '), e
    assert "model 'nanmodel' on repeat 0, fold 0 of 'd': predict_proba returned values outside [0, 1]" in e and 'no report was written' in e, e
    assert not (tmp_path/'r'/'report.html').exists()


@pytest.mark.parametrize('mode', ['short', 'encoded'])
def test_respondents_outputs_are_checked_too(mode):
    "A population of respondents of yours (difficulty): their labels are checked as the evaluated models' are."
    from robustdiff.respondents import respondent_predictions
    from sklearn.tree import DecisionTreeClassifier
    with pytest.raises(ModelOutputError, match=WHERE + 'predict returned'):
        respondent_predictions(TABLE, {'bad': Bad(mode), 'tree': DecisionTreeClassifier(random_state=0)}, progress=False)
