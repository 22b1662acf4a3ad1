"""The verdict (robustdiff.answer) against known ground truth: a model that ignores the perturbed feature is the robust one;
permuted labels give no model above the baseline and no robustness claim; identical models are indistinguishable; the
bootstrap intervals cover at their nominal rate; and the report page answers first and defines every term it uses."""
import os, re, sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.datasets import make_moons
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis, QuadraticDiscriminantAnalysis
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.tree import DecisionTreeClassifier

from robustdiff.answer import (verdict, bootstrap_weights, fold_bootstrap_weights, fold_shrinkage, verdict_weights,
                               percentile_interval, compare_to_rest, BASELINE, perturbation_predictions)
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
    """Labels permuted at random, the whole pipeline (feature noise, IRT bins, label noise, perturbation), 20 data sets: the
    baseline comparison (family-wise 5 % one-sided over the models) may err on at most 2 (P(≥ 3 | 20, 0.05) = 0.08); where no
    model beats the baseline, the answer says so in one sentence and no robustness call or recommendation is made."""
    false_baseline, robustness_claims = 0, 0
    for seed in range(20):
        ds0 = make_synthetic('moons', 200, random_state=seed)
        y = pd.Series(np.random.default_rng(100 + seed).permutation(ds0.y.to_numpy()))
        ds = Dataset(f'permuted_{seed}', ds0.X, y)
        noisy = noisy_predictions(ds, 'quick', 0.2, 5, 1, seed, 1, None, False)
        items = fit_irt(response_matrix(clean_predictions(noisy)), '1PL').items
        bins = difficulty_bins(items, 5, random_state=seed)
        ela = ela_predictions(ds, 'quick', 0.1, 5, 1, seed, progress=False)
        v = verdict(noisy, bins, ela_preds=ela, perturbation=_pp_from_noisy(noisy), n_boot=300, random_state=seed)
        acc = v.table[(v.table.measure == 'accuracy') & (v.table.model != BASELINE)]
        beats = acc.beats_baseline.astype(bool)
        false_baseline += int(beats.any())
        robustness_claims += int(v.table.call.isin(CALLS).any())
        if not beats.any():
            assert len(v.headline) == 1 and v.headline[0].startswith('No model does better'), v.headline
            assert all('not recommended' in s for s in v.sentences.sentence)
            assert not v.table.call.isin(CALLS).any()
    assert false_baseline <= 2, false_baseline
    assert robustness_claims <= false_baseline, robustness_claims      # robustness is compared only among models above the baseline


def _eighteen(seed:int)->dict:
    "18 quick, varied classifiers (the size of the fabra18 portfolio)."
    return {**{f'tree{d}': DecisionTreeClassifier(max_depth=d, random_state=seed) for d in (1, 2, 3, 5, None)},
            **{f'knn{k}': KNeighborsClassifier(k) for k in (1, 3, 5, 9, 15)},
            **{f'logreg{c}': LogisticRegression(C=c) for c in (0.01, 1, 100)},
            'nb': GaussianNB(), 'lda': LinearDiscriminantAnalysis(), 'qda': QuadraticDiscriminantAnalysis(),
            'rf': RandomForestClassifier(10, random_state=seed), 'et': ExtraTreesClassifier(10, random_state=seed)}


def _cv_clean(X, y, models:dict, seed:int, k:int=5)->pd.DataFrame:
    "Clean out-of-fold predictions (the columns of clean_predictions) from stratified k-fold CV."
    rows = []
    for f, (tr, te) in enumerate(StratifiedKFold(k, shuffle=True, random_state=seed).split(X, y)):
        for name, m in models.items():
            p = clone(m).fit(X[tr], y[tr]).predict(X[te])
            rows.append(pd.DataFrame(dict(model=name, repeat=0, fold=f, instance=te, y_true=y[te], y_pred=p,
                                          correct=(p == y[te]).astype('int8'))))
    return pd.concat(rows, ignore_index=True)


def test_eighteen_models_on_permuted_labels_beat_no_baseline():
    """18 models on 20 data sets with permuted labels: the paired, Bonferroni-corrected baseline comparison (family-wise 5 %
    one-sided per data set) calls a model better than the majority class on at most 2 data sets (P(≥ 3 | 20, 0.05) = 0.08).
    The ANOVA-only fold stage (the instance bootstrap when folds do not differ) does not hold that rate: it cannot see the
    correlation between folds' errors."""
    n, claims, anova_claims = 200, 0, 0
    bins = pd.DataFrame(dict(instance=np.arange(n), bin=0, difficulty=0.0))
    import warnings
    for seed in range(20):
        ds = make_synthetic('moons', n, random_state=seed)
        y = np.random.default_rng(100 + seed).permutation(ds.y.to_numpy())
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')                   # QDA on noise: collinear warnings
            clean = _cv_clean(ds.X.to_numpy(), y, _eighteen(seed), seed)
        v = verdict(None, bins, clean=clean, n_boot=300, random_state=seed)
        assert v.config['fold_shrink'] >= 0.88                # at least Nadeau & Bengio's allowance for 5 folds
        claims += int(v.table.query('model != @BASELINE').beats_baseline.astype(bool).any())
        va = verdict(None, bins, clean=clean, n_boot=300, random_state=seed, shrink='anova')
        anova_claims += int(va.table.query('model != @BASELINE').beats_baseline.astype(bool).any())
    assert claims <= 2, claims
    assert anova_claims > claims, (anova_claims, claims)


def test_robustness_comparison_error_rate_among_equal_models():
    "Four models with the same flip probability, the verdict's resamples: the family-wise error rate of 'more/less robust' stays ≤ 10 %."
    rng = np.random.default_rng(3)
    n, k, sims, wrong = 150, 4, 150, 0
    folds, cls = np.repeat(np.arange(5), n // 5), np.tile([0, 1], n // 2)
    for s in range(sims):
        flips = (rng.random((n, k)) < 0.2).astype(float)
        Wr = np.vstack([np.ones((1, n), np.float32), fold_bootstrap_weights(folds, cls, 300, s, 'auto', flips)])
        R = (Wr @ flips) / Wr.sum(1, keepdims=True)
        wrong += (compare_to_rest(R, 'lower', 0.9).call != 'indistinguishable').any()
    assert wrong / sims <= 0.10, wrong / sims


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


def _layers(chart)->list:
    "Every layer spec of an altair chart (faceted or not), flattened."
    d = chart.to_dict()
    d = d.get('spec', d)
    return d.get('layer', [d])


def test_stage_tables_and_charts_carry_the_verdicts_intervals(page_report):
    "The SCC, ELA and perturbation tables hold lo ≤ value ≤ hi from the verdict's resamples, and their charts draw them."
    rep, _ = page_report
    ok = lambda v, lo, hi: ((lo <= v + 1e-9) & (v <= hi + 1e-9)).all()
    scc = rep.table('scc')
    assert ok(scc.kappa, scc.kappa_lo, scc.kappa_hi) and ok(scc.acc, scc.acc_lo, scc.acc_hi)
    assert (scc.kappa_hi - scc.kappa_lo)[scc.lam > 0].max() > 0          # not degenerate
    ela = rep.table('ela')
    assert ok(ela.ela, ela.ela_lo, ela.ela_hi) and ok(ela.rla, ela.rla_lo, ela.rla_hi)
    pi = rep.table('perturbation_intervals')
    assert set(pi.subset) == set(rep.table('perturbation').subset) and ok(pi.value, pi.lo, pi.hi)
    # consistent with the verdict: the same resamples give the same interval for the same figure
    v = rep.verdict.set_index(['model', 'measure'])
    e = ela.set_index('model')
    np.testing.assert_allclose(e.rla_lo.loc[v.xs('rla', level='measure').index], v.xs('rla', level='measure').lo, atol=1e-9)
    fl = rep.table('verdict_bins').query("measure == 'acc_noisy'").set_index(['model', 'bin'])
    top = scc[np.isclose(scc.lam, scc.lam.max())].set_index(['model', 'bin'])
    np.testing.assert_allclose(top.acc_lo.loc[fl.index], fl.lo, atol=1e-9)
    charts = {k: _layers(rep.stages[s].charts[k]) for s, k in (('scc', 'scc'), ('scc', 'scc_acc'), ('ela', 'ela'), ('perturbation', 'perturbation'))}
    assert any(l['mark']['type'] == 'area' and l['encoding']['y']['field'] == 'kappa_lo' for l in charts['scc'])
    assert any(l['mark']['type'] == 'area' and l['encoding']['y']['field'] == 'acc_lo' for l in charts['scc_acc'])
    assert any(l['mark']['type'] == 'rule' and l['encoding']['x']['field'] == 'ela_lo' for l in charts['ela'])
    assert any(l['mark']['type'] == 'rule' and l['encoding']['y']['field'] == 'lo' for l in charts['perturbation'])


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
        drawn = page.evaluate("""() => Object.fromEntries(['scc', 'scc_acc', 'ela', 'perturbation'].map(k => {
            const s = document.querySelector('#chart-' + k + ' svg'); if (!s) return [k, null];
            const sel = k.startsWith('scc') ? '.mark-area path' : '.mark-rule line, .mark-rule path';
            return [k, [...s.querySelectorAll(sel)].filter(l => { const r = l.getBoundingClientRect(); return r.width > 1 || r.height > 1; }).length]; }))""")
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
    assert all(drawn[k] and drawn[k] >= n_models for k in drawn), drawn   # interval bands / bars on the stage charts
    assert '−' in text and not re.search(r'\d\.\d+e-\d', text)


@pytest.mark.parametrize('fold_sd', [0.0, 0.05])
def test_anova_fold_stage_covers_independent_instances(fold_sd):
    """Independent instances (Bernoulli(0.8), each fold's model right with its own probability, sd `fold_sd`): the two-stage
    bootstrap shrunk by the ANOVA estimate covers 85–95 % with and without a fold effect; the instance bootstrap undercovers with
    one; 'auto' (which adds Nadeau & Bengio's allowance for correlated folds) does not undercover."""
    rng = np.random.default_rng(11)
    n, k, sims = 200, 5, 300
    folds = np.repeat(np.arange(k), n // k)
    hits = {s: 0 for s in (0.0, 'anova', 'auto')}
    for i in range(sims):
        x = (rng.random(n) < np.clip(0.8 + rng.normal(0, fold_sd, k), 0, 1)[folds]).astype(float)
        for s in hits:
            W = fold_bootstrap_weights(folds, None, 400, i, s, x if isinstance(s, str) else None)
            lo, hi = percentile_interval((W @ x) / W.sum(1), 0.9)
            hits[s] += lo <= 0.8 <= hi
    cov = {s: h / sims for s, h in hits.items()}
    assert 0.85 <= cov['anova'] <= 0.95, cov
    assert cov['auto'] >= 0.9, cov
    if fold_sd: assert cov[0.0] < 0.87, cov


def test_fold_shrinkage_sees_a_fold_effect():
    rng = np.random.default_rng(0)
    folds = np.repeat(np.arange(5), 100)
    none = np.array([fold_shrinkage((rng.random(500) < 0.8).astype(float), folds) for _ in range(200)])
    strong = [fold_shrinkage((rng.random(500) < np.array([.6, .7, .8, .9, .95])[folds]).astype(float), folds) for _ in range(10)]
    assert (none == 0).mean() > 0.45 and min(strong) > 0.8, ((none == 0).mean(), min(strong))   # no effect: MSB > MSW about 42 % of the time
    with pytest.raises(ValueError, match='shrink'): fold_bootstrap_weights(folds, None, 10, 0, 1.5)
    with pytest.raises(ValueError, match='values'): fold_bootstrap_weights(folds, None, 10, 0, 'auto')
    W1 = fold_bootstrap_weights(folds, None, 200, 0)                      # default: the plain two-stage bootstrap
    assert set(np.unique(W1.reshape(200, 5, 100).sum(2))) <= {0.0, 100.0, 200.0, 300.0, 400.0, 500.0}
    W0 = fold_bootstrap_weights(folds, None, 200, 0, 0.0)                 # c = 0: instances within folds only
    assert (W0.reshape(200, 5, 100).sum(2) == 100).all()


@pytest.mark.parametrize('learner', ['knn1', 'knn5', 'tree3', 'logreg'])
def test_verdict_intervals_cover_in_cross_validation(learner):
    """Real 5-fold CV on labels permuted at random (true accuracy 0.5): the verdict's own resamples (`verdict_weights`) cover
    at about the nominal 90 % (measured 0.935–0.96: slightly conservative by design), where the instance bootstrap covers
    0.80–0.87."""
    est = dict(knn1=KNeighborsClassifier(1), knn5=KNeighborsClassifier(5), tree3=DecisionTreeClassifier(max_depth=3, random_state=0),
               logreg=LogisticRegression(solver='liblinear'))[learner]
    rng = np.random.default_rng(5)
    n, sims, hits, hits0 = 200, 150, 0, 0
    for s in range(sims):
        X, y = make_moons(n, noise=0.3, random_state=int(rng.integers(1 << 30)))
        clean = _cv_clean(X, rng.permutation(y), {learner: est}, s)
        inst = np.arange(n)
        acc = clean.set_index('instance').correct.loc[inst].to_numpy(float)
        for shrink in ('auto', 0.0):
            W, _ = verdict_weights(clean, inst, 400, s, shrink=shrink)
            lo, hi = percentile_interval((W @ acc) / W.sum(1), 0.9)
            if shrink == 'auto': hits += lo <= 0.5 <= hi
            else: hits0 += lo <= 0.5 <= hi
    assert 0.85 <= hits / sims <= 0.97, hits / sims
    assert hits0 < hits, (hits0, hits)


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
