"Taxonomy: DAN/DAD/DAND by hand and by brute force, clustering quality against definitions, losses, bad input."
import numpy as np, pandas as pd, pytest
from hypothesis import given, settings, strategies as st
from sklearn.metrics import silhouette_score
from robustdiff.taxonomy import (profiles, cluster_models, cluster_quality, prototypes, kappa_losses, loss_summary,
                                 complexity_groups, model_distances, dendrogram_chart, loss_scatter_chart, quality_table_chart)
from robustdiff.datasets import make_synthetic, load_sklearn

def _curves(seed=0, n_ds=3, models='abcdefg', K=5, lams=(0, .1, .2, .3, .4, .5)):
    rng = np.random.default_rng(seed)
    rows = []
    for d in range(n_ds):
        for m in models:
            slope = rng.uniform(.2, 1.5)
            for b in range(K):
                for l in lams:
                    rows.append((f'd{d}', m, b, l, 1 - slope * l * (1 + b / K) + rng.normal(0, .01) * (l > 0)))
    return pd.DataFrame(rows, columns=['dataset', 'model', 'bin', 'lam', 'kappa'])

def test_hand_example_two_models_two_bins_three_lambdas():
    rows = [('d', 'm1', 0, 0, 1.), ('d', 'm1', 0, .1, .9), ('d', 'm1', 0, .2, .7),
            ('d', 'm1', 1, 0, 1.), ('d', 'm1', 1, .1, .6), ('d', 'm1', 1, .2, .5),
            ('d', 'm2', 0, 0, 1.), ('d', 'm2', 0, .1, 1.), ('d', 'm2', 0, .2, .95),
            ('d', 'm2', 1, 0, 1.), ('d', 'm2', 1, .1, .8), ('d', 'm2', 1, .2, .4)]
    c = pd.DataFrame(rows, columns=['dataset', 'model', 'bin', 'lam', 'kappa'])
    dan, dad, dand = profiles(c, kind='DAN'), profiles(c, kind='DAD'), profiles(c, kind='DAND')
    # DAN (eq. 5): per bin, κ(λ_j) − κ(λ_{j−1})
    np.testing.assert_allclose(dan.loc['m1'], [-.1, -.2, -.4, -.1])
    np.testing.assert_allclose(dan.loc['m2'], [0, -.05, -.2, -.4])
    # DAD (eq. 6): per λ, κ(B_2) − κ(B_1)
    np.testing.assert_allclose(dad.loc['m1'], [0, -.3, -.2])
    np.testing.assert_allclose(dad.loc['m2'], [0, -.2, -.55])
    np.testing.assert_allclose(dand.to_numpy(), np.hstack([dan, dad]))
    assert list(dan.columns) == ['DAN b0 λ0→0.1', 'DAN b0 λ0.1→0.2', 'DAN b1 λ0→0.1', 'DAN b1 λ0.1→0.2']
    # losses (eqs. 8–11): m1 Δe = .3, Δh = .5; m2 Δe = .05, Δh = .6
    s = loss_summary(kappa_losses(c)).set_index('model')
    np.testing.assert_allclose(s.L_diff, [.2, .55]); np.testing.assert_allclose(s.L_noise, [.4, .325])

def test_profiles_against_brute_force():
    c = _curves(1)
    P = profiles(c, kind='DAND')
    lams = sorted(c.lam.unique()); K = c.bin.nunique()
    for m in 'aceg':
        k = c[c.model == m].set_index(['dataset', 'bin', 'lam']).kappa
        dan = [np.mean([k[d, b, lams[j]] - k[d, b, lams[j - 1]] for d in ['d0', 'd1', 'd2']]) for b in range(K) for j in range(1, len(lams))]
        dad = [np.mean([k[d, b, l] - k[d, b - 1, l] for d in ['d0', 'd1', 'd2']]) for b in range(1, K) for l in lams]
        np.testing.assert_allclose(P.loc[m].to_numpy(), dan + dad, atol=1e-12)

def test_missing_points_are_skipped_in_the_mean():
    c = _curves(2)
    drop = (c.dataset == 'd0') & (c.model == 'a') & (c.bin == 0) & (c.lam == .1)
    P = profiles(c[~drop], kind='DAN')
    k = c.set_index(['dataset', 'model', 'bin', 'lam']).kappa
    exp = np.mean([k[d, 'a', 0, .1] - k[d, 'a', 0, 0] for d in ['d1', 'd2']])
    assert abs(P.loc['a', 'DAN b0 λ0→0.1'] - exp) < 1e-12
    only = c[(c.dataset == 'd0')]
    with pytest.raises(ValueError, match='no value'): profiles(only[~((only.model == 'a') & (only.bin == 0) & (only.lam == .1))], kind='DAN')

def test_clustering_recovers_planted_groups_and_quality_definitions():
    rng = np.random.default_rng(0)
    centres = rng.normal(0, 5, (3, 8))
    X = np.vstack([c + rng.normal(0, .1, (4, 8)) for c in centres])
    P = pd.DataFrame(X, index=[f'm{i}' for i in range(12)])
    for linkage in ('complete', 'average', 'ward', 'single'):
        tax = cluster_models(P, n_clusters=3, linkage=linkage)
        lab = tax.clusters.to_numpy()
        assert len(set(lab)) == 3 and all(len(set(lab[i*4:(i+1)*4])) == 1 for i in range(3))
    q = cluster_quality(P, ks=range(2, 11)).set_index('k')
    assert q.silw.idxmax() == 3
    D = model_distances(P).to_numpy()
    for k in (2, 3, 7):
        lab = cluster_models(P, n_clusters=k).clusters.to_numpy()
        assert abs(q.silw[k] - silhouette_score(P.to_numpy(), lab)) < 1e-12
        iu = np.triu_indices(12, 1)
        assert abs(q.avgbc[k] - D[iu][lab[iu[0]] != lab[iu[1]]].mean()) < 1e-12
    pr = prototypes(cluster_models(P, n_clusters=3))
    for _, r in pr.iterrows():
        members = r.members.split(', ')
        cen = P.loc[members].mean()
        d = ((P.loc[members] - cen)**2).sum(1)
        assert r.prototype == d.idxmin()

def test_cluster_numbering_follows_dendrogram():
    P = pd.DataFrame(np.arange(10.)[:, None] ** 2, index=list('abcdefghij'))
    lab = cluster_models(P, n_clusters=4).clusters
    assert sorted(lab.unique()) == [1, 2, 3, 4]

@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(2, 6))
def test_quality_bounds(seed, k):
    P = pd.DataFrame(np.random.default_rng(seed).normal(size=(8, 5)))
    q = cluster_quality(P, ks=[k])
    assert -1 <= q.silw.iloc[0] <= 1 and q.avgbc.iloc[0] > 0

def test_complexity_groups():
    dss = [make_synthetic('moons', 100), load_sklearn('wine')]
    g = complexity_groups(dss)
    assert g['moons'] == 'simple' and g['wine'] == ('complex' if 13 * 3 / 178 > .08 else 'simple')
    assert complexity_groups({'a': .09, 'b': .08}).tolist() == ['complex', 'simple']
    with pytest.raises(ValueError, match='missing'): complexity_groups({'a': np.nan})

def test_bad_inputs():
    c = _curves(3)
    with pytest.raises(ValueError, match='kind'): profiles(c, kind='dan')
    with pytest.raises(ValueError, match='columns'): profiles(c.drop(columns='bin'))
    with pytest.raises(ValueError, match='numbers of bins'): profiles(c[~((c.dataset == 'd0') & (c.bin == 4))])
    with pytest.raises(ValueError, match='select one'): profiles(pd.concat([c.assign(level=.2), c.assign(level=.5)]))
    P = profiles(c)
    with pytest.raises(ValueError, match='k must lie'): cluster_quality(P, ks=[1])
    with pytest.raises(ValueError, match='n_clusters'): cluster_models(P, n_clusters=0)
    with pytest.raises(ValueError, match='linkage'): cluster_models(P, n_clusters=2, linkage='ward.D2')
    with pytest.raises(ValueError, match='missing'): cluster_models(P.assign(x=np.nan))
    with pytest.raises(ValueError, match='lam_max'): kappa_losses(c, lam_max=.9)

def test_charts_build():
    c = _curves(4)
    tax = cluster_models(profiles(c), n_clusters=3)
    assert 'layer' in dendrogram_chart(tax).to_dict()
    s = loss_summary(kappa_losses(c)).merge(tax.clusters.reset_index(), on='model')
    assert loss_scatter_chart(pd.concat([s.assign(datasets='all'), s.assign(datasets='simple')]), facet='datasets').to_dict()
    q = cluster_quality(profiles(c), ks=[2, 3]).assign(profile='DAND')
    assert quality_table_chart(q).to_dict()

def test_reference_lambda_grid_drops_the_trivial_lambda0_step():
    "[FB24] issue 35: κ(λ = 0) = 1 by construction; a class-pure bin's κ collapses at the first perturbed share, and with"
    " λ = 0 in the profiles that one step dominated the population's AvgBC. The reference code's taxonomy grid has no λ = 0."
    from robustdiff.taxonomy import REFERENCE_LAMBDAS
    assert 0 not in REFERENCE_LAMBDAS and min(REFERENCE_LAMBDAS) == 0.05 and max(REFERENCE_LAMBDAS) == 0.5
    c = _curves(seed=3)
    pure = (c.model.isin(['a', 'b', 'c'])) & (c.bin == 0) & (c.lam > 0)       # three models: a one-class easiest bin
    c.loc[pure, 'kappa'] -= 0.6
    every, ref = profiles(c, kind='DAN'), profiles(c, kind='DAN', lambdas='reference')
    assert not any('λ0→' in col for col in ref.columns) and sum('λ0→' in col for col in every.columns) == 5
    # the reference profile equals the full one without its λ = 0 steps (brute force)
    np.testing.assert_allclose(ref.to_numpy(), every[[col for col in every.columns if 'λ0→' not in col]].to_numpy())
    # the jump inflates the between-cluster distance only through the λ = 0 step
    q_every, q_ref = cluster_quality(every, ks=[2], linkage='ward'), cluster_quality(ref, ks=[2], linkage='ward')
    assert q_every.avgbc.iloc[0] > 0.3 > q_ref.avgbc.iloc[0]
    np.testing.assert_allclose(profiles(c, kind='DAD', lambdas=[.1, .2]).shape, (7, 8))
    with pytest.raises(ValueError, match="'reference'"): profiles(c, kind='DAN', lambdas='paper')
    with pytest.raises(ValueError, match='no row'): profiles(c, kind='DAN', lambdas=[.7])

def test_losses_on_a_rising_measure():
    "Regression (#48): the break rate rises with noise; its losses are the rise, the same numbers as κ = 1 − break."
    rng = np.random.default_rng(0)
    rows = [('d', m, b, l, float(rng.uniform(0, 1))) for m in 'ab' for b in range(3) for l in (0, .25, .5)]
    k = pd.DataFrame(rows, columns=['dataset', 'model', 'bin', 'lam', 'kappa'])
    br = k.assign(break_rate=1 - k.kappa).drop(columns='kappa')
    a, b = kappa_losses(k), kappa_losses(br, value='break_rate')
    np.testing.assert_allclose(a[['delta_easy', 'delta_hard']], b[['delta_easy', 'delta_hard']], atol=1e-12)
    with pytest.raises(ValueError, match='break_rate'): kappa_losses(k, value='break_rate')
