"""The verdict (robustdiff.answer) against known ground truth: a model that ignores the perturbed feature is the robust one;
permuted labels give no model above the baseline and no robustness claim; identical models are indistinguishable; the
bootstrap intervals cover at their nominal rate; and the report page answers first and defines every term it uses."""
import os, re, sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier

from robustdiff.answer import (verdict, bootstrap_weights, percentile_interval, compare_to_rest, BASELINE,
                               perturbation_predictions)
from robustdiff.data import Dataset, make_synthetic
from robustdiff.ela import ela_predictions
from robustdiff.irt import fit_irt
from robustdiff.perturb import Perturbation
from robustdiff.responses import response_matrix
from robustdiff.scc import noisy_predictions, clean_predictions, difficulty_bins

REPO = Path(__file__).resolve().parents[1]
CALLS = ('more robust than the rest', 'less robust than the rest')


class OneFeature(ClassifierMixin, BaseEstimator):
    "Logistic regression on one column of the (scaled) feature matrix; ignores every other column."
    def __init__(self, col=0): self.col = col
    def fit(self, X, y):
        self.lr_ = LogisticRegression().fit(np.asarray(X)[:, [self.col]], y); self.classes_ = self.lr_.classes_
        return self
    def predict(self, X): return self.lr_.predict(np.asarray(X)[:, [self.col]])


class NoiseOnB(Perturbation):
    "Gaussian noise of `level` training sd on column 'b' only."
    def __init__(self, level=1.0): self.level = level
    def _fit(self, X, y): self.sd_ = float(X['b'].std())
    def _perturb(self, X, y, rng):
        X = X.copy(); X['b'] = X['b'] + rng.normal(0, self.level * self.sd_, len(X))
        return X, y


def _two_views(seed:int, n:int=240)->tuple:
    "y from a latent z; features a and b both measure z equally well; difficulty = closeness to the boundary."
    rng = np.random.default_rng(seed)
    z = rng.normal(size=n)
    X = pd.DataFrame({'a': z + rng.normal(0, 0.3, n), 'b': z + rng.normal(0, 0.3, n)})
    ds = Dataset(f'two_views_{seed}', X, pd.Series((z > 0).astype(int)))
    return ds, pd.Series(-np.abs(z), name='difficulty')


def _pp_from_noisy(noisy:pd.DataFrame)->pd.DataFrame:
    "Per-instance perturbation predictions from clean (level 0) and noisy (level 1) CV predictions."
    base = noisy[['model', 'repeat', 'fold', 'instance', 'y_true']]
    p0 = base.assign(level=0.0, rep=0, y_pred=noisy.y_pred.to_numpy())
    p1 = base.assign(level=1.0, rep=0, y_pred=noisy.y_noisy.to_numpy())
    pp = pd.concat([p0, p1], ignore_index=True)
    pp['correct'] = (pp.y_pred == pp.y_true).astype('int8')
    return pp


@pytest.mark.parametrize('seed', [0, 1, 2])
def test_a_model_that_ignores_the_perturbed_feature_is_the_robust_one(seed):
    ds, diff = _two_views(seed)
    models = {'uses_a': OneFeature(0), 'uses_b': OneFeature(1)}
    noisy = noisy_predictions(ds, models, NoiseOnB(1.0), 5, 1, seed, 1, None, False)
    bins = difficulty_bins(diff, 5, random_state=seed)
    v = verdict(noisy, bins, perturbation=_pp_from_noisy(noisy), n_boot=400, random_state=seed)
    assert v.call('uses_a', 'flip_hard') == 'more robust than the rest' and v.call('uses_b', 'flip_hard') == 'less robust than the rest'
    assert v.call('uses_a', 'flip_perturbed') == 'more robust than the rest' and v.call('uses_b', 'flip_perturbed') == 'less robust than the rest'
    assert v.value('uses_a', 'flip_hard') == 0 and v.value('uses_b', 'flip_hard') > 0.1
    # the reverse is never claimed, in the table, the pairs or the headline
    assert not ((v.table.model == 'uses_b') & (v.table.call == 'more robust than the rest')).any()
    assert not ((v.pairwise.a == 'uses_a') & (v.pairwise.call == 'worse')).any()
    assert not ((v.pairwise.b == 'uses_a') & (v.pairwise.call == 'better') & (v.pairwise.measure != 'accuracy')).any()
    robust = [s for s in v.headline if s.startswith('Most robust to feature noise') or s.startswith('Most robust to perturbation')]
    assert len(robust) == 2 and all(re.search(r': uses_a[ ,]', s) for s in robust), v.headline


def test_permuted_labels_give_no_claims_over_seeds():
    "Labels permuted at random: no model above the baseline, no robustness call, at most one false claim in six seeds."
    false_baseline, robustness_claims = 0, 0
    for seed in range(6):
        ds0 = make_synthetic('moons', 200, random_state=seed)
        y = pd.Series(np.random.default_rng(100 + seed).permutation(ds0.y.to_numpy()))
        ds = Dataset(f'permuted_{seed}', ds0.X, y)
        noisy = noisy_predictions(ds, 'quick', 0.2, 5, 1, seed, 1, None, False)
        items = fit_irt(response_matrix(clean_predictions(noisy)), '1PL').items
        bins = difficulty_bins(items, 5, random_state=seed)
        ela = ela_predictions(ds, 'quick', 0.1, 5, 1, seed, progress=False)
        v = verdict(noisy, bins, ela_preds=ela, perturbation=_pp_from_noisy(noisy), n_boot=400, random_state=seed)
        acc = v.table[(v.table.measure == 'accuracy') & (v.table.model != BASELINE)]
        false_baseline += int(acc.beats_baseline.astype(bool).any())
        robustness_claims += int(v.table.call.isin(CALLS).any())
        if not acc.beats_baseline.astype(bool).any():
            assert len(v.headline) == 1 and v.headline[0].startswith('No model does better'), v.headline
            assert all('not recommended' in s for s in v.sentences.sentence)
    assert false_baseline <= 1, false_baseline
    assert robustness_claims <= 1, robustness_claims


def test_robustness_comparison_error_rate_among_equal_models():
    "Four models with the same flip probability: the Bonferroni family-wise error rate of 'more/less robust' stays near 10 %."
    rng = np.random.default_rng(3)
    n, k, sims, wrong = 150, 4, 150, 0
    W = bootstrap_weights(np.repeat(np.arange(5), n // 5), 300, 0)
    Wr = np.vstack([np.ones((1, n), np.float32), W])
    for _ in range(sims):
        flips = (rng.random((n, k)) < 0.2).astype(float)
        R = (Wr @ flips) / Wr.sum(1, keepdims=True)
        wrong += (compare_to_rest(R, 'lower', 0.9).call != 'indistinguishable').any()
    assert wrong / sims <= 0.15, wrong / sims


def test_identical_models_are_indistinguishable():
    ds = make_synthetic('moons', 150, random_state=2)
    twins = {'tree_a': DecisionTreeClassifier(max_depth=4, random_state=0), 'tree_b': DecisionTreeClassifier(max_depth=4, random_state=0)}
    noisy = noisy_predictions(ds, twins, 0.2, 5, 1, 0, 1, None, False)
    bins = difficulty_bins(pd.Series(np.random.default_rng(0).normal(size=150)), 5)   # IRT needs differing respondents
    ela = ela_predictions(ds, twins, 0.1, 5, 1, 0, progress=False)
    pp = perturbation_predictions(ds, twins, 0.4, 3)
    v = verdict(noisy, bins, ela_preds=ela, perturbation=pp, n_boot=300)
    compared = v.table[v.table.call != '']
    assert set(compared.measure) == {'accuracy', 'flip_hard', 'rla', 'flip_perturbed'}
    assert (compared[compared.model != BASELINE].call.isin(['indistinguishable from the rest'])).all(), compared
    assert (v.pairwise.call == 'indistinguishable').all() and (v.pairwise['diff'] == 0).all()
    t = v.table.set_index(['model', 'measure'])
    np.testing.assert_array_equal(t.xs('tree_a').value.to_numpy(), t.xs('tree_b').value.to_numpy())


@pytest.mark.parametrize('p, strata', [(0.8, 1), (0.95, 5)])
def test_bootstrap_interval_coverage(p, strata):
    "Nominal 90 % percentile intervals of an accuracy (plain and stratified) cover the true value 85–95 % of the time."
    rng = np.random.default_rng(int(p * 100) + strata)
    n, sims = 200, 400
    W = bootstrap_weights(np.repeat(np.arange(strata), n // strata), 500, 1)
    hits = 0
    for _ in range(sims):
        x = (rng.random(n) < p).astype(float)
        lo, hi = percentile_interval((W @ x) / W.sum(1), 0.9)
        hits += lo <= p <= hi
    assert 0.85 <= hits / sims <= 0.95, hits / sims


def test_paired_difference_coverage():
    "The interval of a paired difference of two correlated accuracies covers the true difference at about its nominal rate."
    rng = np.random.default_rng(7)
    n, sims, hits = 200, 400, 0
    W = bootstrap_weights(np.zeros(n), 500, 2)
    for _ in range(sims):
        u = rng.random(n)
        a, b = (u < 0.8).astype(float), (u < 0.75).astype(float)     # nested: true difference 0.05
        lo, hi = percentile_interval((W @ (a - b)) / n, 0.9)
        hits += lo <= 0.05 <= hi
    assert 0.85 <= hits / sims <= 0.95, hits / sims


def test_bad_input_is_named():
    ds = make_synthetic('moons', 60, random_state=0)
    noisy = noisy_predictions(ds, 'quick', 0.2, 3, 1, 0, 1, None, False)
    bins = difficulty_bins(pd.Series(np.arange(60.0)), 3)
    with pytest.raises(ValueError, match='bins'): verdict(noisy, None)
    with pytest.raises(ValueError, match='level'): verdict(noisy, bins, level=90)
    with pytest.raises(ValueError, match='noisy_predictions'): verdict(noisy.drop(columns='y_noisy'), bins)
    with pytest.raises(ValueError, match='n_boot'): bootstrap_weights([0, 1], 0)


# ------------------------------------------------------------------ the page in Chromium

@pytest.fixture(scope='module')
def page_report(tmp_path_factory):
    from robustdiff.report import build_report
    out = tmp_path_factory.mktemp('ans')/'report'
    rep = build_report(make_synthetic('moons', 150, random_state=1), models='quick', respondents='models', n_jobs=1, progress=False,
                       stages='accuracy,difficulty,scc,ela,perturbation,hardness,verdict', hardness_models='quick', out=out)
    return rep, out


def test_report_answer_and_verdict(page_report):
    rep, out = page_report
    assert 1 <= len(rep.answer) <= 5 and rep.answer[0].startswith('Most accurate')
    v = rep.verdict
    assert {'model', 'measure', 'value', 'lo', 'hi', 'call'} <= set(v.columns)
    assert ((v.lo <= v.value + 1e-9) & (v.value <= v.hi + 1e-9)).all()
    assert (out/'verdict.csv').is_file() and (out/'headline.csv').is_file()


def test_cli_prints_the_headline_last(page_report, tmp_path, capsys):
    from robustdiff.cli import main
    code = main(['report', 'synthetic:moons', '--models', 'quick', '--respondents', 'models', '--stages',
                 'accuracy,difficulty,scc,verdict', '--out', str(tmp_path/'r'), '--n-jobs', '1', '--quiet'])
    assert code == 0
    lines = [l for l in capsys.readouterr().out.splitlines() if l.strip()]
    head = pd.read_csv(tmp_path/'r'/'headline.csv').sentence.tolist()
    assert 1 <= len(head) <= 5 and lines[-len(head):] == head        # the headline, last


def test_page_answers_first_and_defines_every_term(page_report):
    sys.path.insert(0, str(REPO/'tools'))
    import browser_check
    from robustdiff.page import GLOSSARY
    from robustdiff.hardness import MEASURES
    if browser_check.chromium_path() is None:
        if os.environ.get('CI'): pytest.fail('Chromium is missing: .ci/run must apt-get install chromium')
        pytest.skip('no Chromium (apt-get install chromium)')
    rep, out = page_report
    res = browser_check.check_site(out, pages=['report.html'])
    assert res['problems'] == [] and res['external'] == [], res['problems']
    n_models = rep.verdict.model.nunique() - 1
    with browser_check.serve(out) as base, browser_check.browser() as b:
        page = b.new_page()
        page.goto(base + 'report.html')
        order = page.evaluate("""() => { const h = document.querySelector('ol.headline'), c = document.querySelector('.chart');
            return h && c ? (h.compareDocumentPosition(c) & Node.DOCUMENT_POSITION_FOLLOWING) > 0 : null; }""")
        n_head = page.evaluate("() => document.querySelectorAll('ol.headline li').length")
        defined = page.evaluate("() => [...document.querySelectorAll('#glossary dt')].map(d => d.innerText.trim())")
        text = page.evaluate("() => document.body.innerText")
        body = page.evaluate("() => [...document.querySelectorAll('header, main > section:not(#glossary)')].map(s => s.textContent).join(' ')")
        abbrs = page.evaluate("() => [...document.querySelectorAll('abbr')].map(a => [a.innerText, a.title])")
        bars = page.evaluate("""() => { const s = document.querySelector('#chart-tradeoff svg'); if (!s) return null;
            return [...s.querySelectorAll('.mark-rule line, .mark-rule path')].filter(l => {
                const r = l.getBoundingClientRect(); return r.width > 1 || r.height > 1; }).length; }""")
    assert order is True, 'the headline must come before the first chart'
    assert 1 <= n_head <= 5
    used = {t for t in GLOSSARY if re.search(r'(?<!\w)' + re.escape(t) + r'(?!\w)', body)}
    assert used and used <= set(defined), used - set(defined)
    codes = {m for m in MEASURES if re.search(r'(?<!\w)' + re.escape(m) + r'(?!\w)', body)}
    assert codes and codes <= set(defined), codes - set(defined)        # the hardness codes the page shows are defined
    assert abbrs and all(t and len(t) > 20 for _, t in abbrs)
    assert {'κ', 'ELA', 'RLA'} <= {a for a, _ in abbrs}
    assert bars is not None and bars >= 2 * n_models, bars          # one horizontal and one vertical interval bar per model
    assert '−' in text and not re.search(r'\d\.\d+e-\d', text)


def test_fold_bootstrap_covers_when_folds_are_correlated():
    "With a fold effect (each fold's model right with its own probability) the instance bootstrap is too narrow; the two-stage one is not."
    from robustdiff.answer import fold_bootstrap_weights
    rng = np.random.default_rng(11)
    n, k, sims = 200, 5, 300
    folds = np.repeat(np.arange(k), n // k)
    Wi, Wf = bootstrap_weights(np.zeros(n), 400, 1), fold_bootstrap_weights(folds, None, 400, 1)
    hit_i = hit_f = 0
    for _ in range(sims):
        x = (rng.random(n) < np.clip(0.8 + rng.normal(0, 0.05, k), 0, 1)[folds]).astype(float)
        lo, hi = percentile_interval((Wi @ x) / n, 0.9); hit_i += lo <= 0.8 <= hi
        lo, hi = percentile_interval((Wf @ x) / n, 0.9); hit_f += lo <= 0.8 <= hi
    assert hit_f / sims >= 0.88 and hit_f > hit_i, (hit_i / sims, hit_f / sims)


@pytest.mark.parametrize('robust_acc, recommended', [(0.30, False), (0.90, True)])
def test_a_stable_but_inaccurate_model_is_not_recommended_for_noisy_inputs(robust_acc, recommended):
    "A model that flips less under noise is recommended for noisy inputs only if its accuracy under that noise is higher."
    from robustdiff.answer import _tradeoff
    rows = [dict(model='best', measure='accuracy', value=0.95), dict(model='stable', measure='accuracy', value=robust_acc),
            dict(model='best', measure='flip_hard', value=0.30), dict(model='stable', measure='flip_hard', value=0.05),
            dict(model='best', measure='acc_hard', value=0.80), dict(model='stable', measure='acc_hard', value=robust_acc),
            dict(model='best', measure='acc_change_hard', value=-0.20), dict(model='stable', measure='acc_change_hard', value=0.0)]
    tab = pd.DataFrame(rows).assign(lo=lambda d: d.value - 0.01, hi=lambda d: d.value + 0.01, call='')
    pw = pd.DataFrame([dict(measure='flip_hard', a='stable', b='best', diff=-0.25, lo=-0.3, hi=-0.2, call='better')])
    s = _tradeoff(tab, pw, dict(model='best'), {'flip_hard': 'stable'})
    assert ('prefer best for clean inputs, stable where inputs are noisy' in s) == recommended, s
    assert s.startswith('No real trade-off') != recommended, s
    assert '0.60' in s                                  # the most accurate model's accuracy on the hardest bin under noise
