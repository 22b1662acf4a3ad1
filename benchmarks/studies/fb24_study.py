"""The full [FB24] study: 16 OpenML-CC18 benchmarks (PMLB copies) + appendix-A synthetic sets × fabra18 × 5-fold CV.

    python benchmarks/studies/fb24_study.py                      # everything, resumable (difficulty from the ladder population)
    python benchmarks/studies/fb24_study.py --datasets vowel yeast --n_jobs 2
    nohup nice -n 10 python benchmarks/studies/fb24_study.py --nus 0.2 > /tmp/fb24_study.log 2>&1 &
    python benchmarks/studies/fb24_study.py --respondents models --out nbs/results/fb24 --nus 0.1 0.2 0.5 1.0   # the 18 models as their own respondents

Who defines difficulty: by default the respondents are the generated population
`get_respondents('ladder', n=--n_respondents)`, fitted on the same folds with the same seed as the evaluated models,
and the results go to `nbs/results/fb24_population/`; `--respondents models` makes the 18 evaluated
models their own respondents, whose results are kept in `nbs/results/fb24/` for the comparison.

The run has two passes so that a time-limited run still answers the difficulty questions for every benchmark:
1. `difficulty`: the population's CV answers, 1PL fit, standard errors and split-half reliability of every dataset
   (cheap) → `items_<name>.csv.gz`, `reliability_<name>.csv.gz`, `respondents_<name>.csv.gz`, `popmeta_<name>.json`;
2. `scc`: the evaluated models' clean and perturbed predictions and the SCCs, smallest dataset first (heavy).

For each dataset: one fit per model × fold (`robustdiff.scc.robustness_by_difficulty`), the clean predictions give
the response matrix and the 1PL difficulties, the fully perturbed predictions (one per noise level ν) give every
λ by mixing. Results per dataset are written to `--out` (default `nbs/results/fb24/`), small and compressed:

- `curves_<name>.csv.gz`  κ / accuracy SCC points: model × ν × λ × bin (with fold sd)
- `bins_<name>.csv.gz`    instance, class, difficulty (after `extremes`), IRT status, bin
- `models_<name>.csv.gz`  per-model CV accuracy and IRT ability
- `meta_<name>.json`      sizes, complexity (eq. 12), IRT summary, wall time, respondents, reliability

With `--extremes drop` (all-right/all-wrong instances discarded, as the reference code's (−6, 6) filter does) the
files are named `curves_drop_<name>.csv.gz` etc.; run after the default study it reuses the cached fits.

With `--lambdas reference` the curves also hold λ = 0.05, 0.15, 0.25 — the reference code's taxonomy grid, which
`profiles(curves, kind, lambdas='reference')` then uses in full (the committed curves have 0.1 … 0.5 of it); files
tagged `ref_`. Not run yet: the committed Table 3 comparison (51_fb24) uses the λ > 0 of the default grid.

A dataset whose files exist is skipped (the run resumes); per model × fold results are also cached in
`--cache` (default `benchmarks/results/tmp/fb24_cache`, git-ignored), so an interrupted dataset restarts from its
finished fits.
"""
import argparse, json, os, sys, time, warnings
from pathlib import Path
import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]

PMLB16 = ['analcatdata_dmft', 'vowel', 'yeast', 'mfeat_morphological', 'mfeat_zernike', 'mfeat_karhunen',
          'mfeat_fourier', 'segmentation', 'spambase', 'waveform_40', 'page_blocks', 'texture', 'optdigits',
          'satimage', 'nursery', 'letter']   # smallest first, so a time-limited run finishes as many as possible
SYNTHETIC = ['moons', 'circles', 'linearly_separable']
NUS = (0.1, 0.2, 0.5, 1.0)                   # ν = 0.2 is the paper's; the others feed the notebook's ν widget

def load(name, n_synthetic):
    from robustdiff.datasets import load_pmlb, make_synthetic
    if name in SYNTHETIC: return make_synthetic(name, n_samples=n_synthetic, random_state=0)
    return load_pmlb(name)

def lambdas_of(a):
    "λ grid of the curves: [FB24]'s 0, 0.1, …, 0.5, or that plus the reference code's taxonomy grid (0.05, 0.10, 0.15, …, 0.50)."
    from robustdiff.scc import LAMBDAS
    from robustdiff.taxonomy import REFERENCE_LAMBDAS
    return LAMBDAS if a.lambdas == 'fb24' else tuple(sorted(set(LAMBDAS) | set(REFERENCE_LAMBDAS)))

def respondents_spec(a):
    if a.respondents == 'models': return 'models'
    from robustdiff.respondents import get_respondents
    return get_respondents(a.respondents, n=a.n_respondents)

def run_difficulty(name, a, out:Path):
    "Pass 1: the population's difficulties, standard errors and split-half reliability for one dataset."
    from robustdiff.irt import fit_irt
    from robustdiff.responses import response_matrix
    from robustdiff.respondents import respondent_predictions, with_reliability, split_half_reliability, check_population
    files = {k: out/f'{k}_{name}.{ext}' for k, ext in [('items', 'csv.gz'), ('reliability', 'csv.gz'), ('respondents', 'csv.gz'), ('popmeta', 'json')]}
    if all(f.exists() for f in files.values()) and not a.force:
        print(f'[{name}] population difficulty cached, skipped', flush=True); return json.loads(files['popmeta'].read_text())
    ds = load(name, a.n_synthetic)
    t0, c0 = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        rp = respondent_predictions(ds, respondents_spec(a), n_splits=5, random_state=0, n_jobs=a.n_jobs,
                                    progress=True, cache_dir=Path(a.cache)/name)
    t_fit = time.perf_counter() - t0
    U = check_population(response_matrix(rp))
    irt = fit_irt(U, model=a.irt_model)
    it = with_reliability(irt)
    rel = split_half_reliability(U, n_repeats=a.reliability, model=a.irt_model, random_state=0)
    wall = time.perf_counter() - t0
    it = it[['instance', 'difficulty', 'difficulty_se', 'status', 'p_correct']].copy()
    it['y'] = ds.y.iloc[it.instance.to_numpy()].to_numpy()
    for col in ('difficulty', 'difficulty_se', 'p_correct'): it[col] = it[col].astype(float).round(4)
    it.to_csv(files['items'], index=False, compression='gzip')
    rel.round(5).to_csv(files['reliability'], index=False, compression='gzip')
    acc = rp.groupby('model', sort=False).correct.mean().rename('accuracy').reset_index()
    acc.merge(irt.abilities[['model', 'ability']], on='model').round(5).to_csv(files['respondents'], index=False, compression='gzip')
    st = it.status.astype(str).value_counts().to_dict()
    meta = dict(dataset=name, n_instances=ds.n_instances, respondents=a.respondents, n_respondents=int(len(U)),
                irt_status=st, finite_share=float(np.mean(st.get('ok', 0) + st.get('out_of_range', 0)) / ds.n_instances),
                split_half_spearman_median=float(rel.spearman.median()),
                split_half_spearman_finite_median=float(rel.spearman_finite.median()),
                spearman_brown_median=float(rel.spearman_brown.median()),
                median_difficulty_se=float(np.median(it.difficulty_se[np.isfinite(it.difficulty_se)])),
                fit_wall_seconds=round(t_fit, 1), wall_seconds=round(wall, 1), n_jobs=a.n_jobs)
    files['popmeta'].write_text(json.dumps(meta, indent=1))
    print(f'[{name}] population: finite {meta["finite_share"]:.4f}, split-half ρ {meta["split_half_spearman_median"]:.3f}, '
          f'{wall:.0f} s', flush=True)
    return meta

def run_one(name, a, out:Path):
    from robustdiff.scc import robustness_by_difficulty, clean_predictions
    tag = ('' if a.extremes == 'clip' else f'{a.extremes}_') + ('' if a.lambdas == 'fb24' else 'ref_')   # the default variant has no tag
    files = {k: out/f'{k}_{tag}{name}.{ext}' for k, ext in [('curves', 'csv.gz'), ('bins', 'csv.gz'), ('models', 'csv.gz'), ('meta', 'json')]}
    if all(f.exists() for f in files.values()) and not a.force:
        print(f'[{name}] cached, skipped', flush=True); return json.loads(files['meta'].read_text())
    ds = load(name, a.n_synthetic)
    print(f'[{name}] {ds.n_instances} × {ds.n_features}, {ds.n_classes} classes, nominal {len(ds.nominal)}', flush=True)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        res = robustness_by_difficulty(ds, a.models, perturbation=list(a.nus), n_bins=a.n_bins, extremes=a.extremes, lambdas=lambdas_of(a),
                                       respondents=respondents_spec(a), reliability=a.reliability,
                                       n_jobs=a.n_jobs, progress=True, cache_dir=Path(a.cache)/name)
    wall = time.perf_counter() - t0
    c = res.curves.copy()
    for col in ('difficulty', 'agree', 'kappa', 'acc', 'kappa_sd', 'acc_sd', 'n'): c[col] = c[col].astype(float).round(5)
    c.to_csv(files['curves'], index=False, compression='gzip')
    it = res.items[['instance', 'difficulty', 'status', 'p_correct']].rename(columns={'difficulty': 'b_irt'})
    b = res.bins.merge(it, on='instance', how='right')
    b['y'] = ds.y.iloc[b.instance.to_numpy()].to_numpy()
    b = b[['instance', 'y', 'b_irt', 'status', 'p_correct', 'difficulty', 'bin']]
    for col in ('b_irt', 'difficulty', 'p_correct'): b[col] = b[col].round(4)
    b.to_csv(files['bins'], index=False, compression='gzip')
    cp = clean_predictions(res.predictions)
    per_fold = cp.groupby(['model', 'fold'], sort=False).correct.mean()
    acc = pd.DataFrame({'accuracy': cp.groupby('model', sort=False).correct.mean(),
                        'accuracy_sd_folds': per_fold.groupby('model', sort=False).std()}).reset_index()
    fit = res.irt
    if a.respondents == 'models': acc = acc.merge(fit.abilities[['model', 'ability']], on='model', how='left')
    else:   # the evaluated models are not respondents: their ability on the population's 1PL scale (EAP from their responses)
        from robustdiff.irt import _eap
        from robustdiff.responses import response_matrix
        U = response_matrix(cp)
        ok = fit.items.set_index('instance').reindex(U.columns)
        keep = ok.status.isin(['ok', 'out_of_range']).to_numpy()
        AT = np.ascontiguousarray(U.to_numpy()[:, keep].T.astype('int8'))   # instances × models, as `_eap` reads it
        theta, _ = _eap(AT, np.arange(AT.shape[0]), ok.discrimination.to_numpy()[keep], ok.difficulty.to_numpy()[keep], fit.sigma, 121, 6.0)
        acc = acc.merge(pd.DataFrame({'model': U.index, 'ability': theta}), on='model', how='left')
    acc = acc.round(5)
    acc.to_csv(files['models'], index=False, compression='gzip')
    st = res.items.status.astype(str).value_counts().to_dict()
    rel = res.reliability
    meta = dict(dataset=name, n_instances=ds.n_instances, n_features=ds.n_features, n_classes=ds.n_classes,
                n_nominal=len(ds.nominal), complexity=ds.complexity, models=a.models, nus=list(a.nus), n_bins=a.n_bins,
                extremes=a.extremes, irt_model=a.irt_model, irt_status=st, irt_sigma=fit.sigma,
                irt_converged=fit.converged, wall_seconds=round(wall, 1), n_jobs=a.n_jobs,
                respondents=a.respondents, n_respondents=len(res.respondents),
                split_half_spearman_median=None if rel is None else float(rel.spearman.median()))
    files['meta'].write_text(json.dumps(meta, indent=1))
    print(f'[{name}] done in {wall:.0f} s; IRT status {st}', flush=True)
    return meta

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--datasets', nargs='*', default=SYNTHETIC + PMLB16)
    ap.add_argument('--models', default='fabra18')
    ap.add_argument('--nus', type=float, nargs='*', default=list(NUS))
    ap.add_argument('--n_bins', type=int, default=5)
    ap.add_argument('--extremes', default='clip', choices=['clip', 'drop'])
    ap.add_argument('--irt_model', default='1PL')
    ap.add_argument('--n_synthetic', type=int, default=500)
    ap.add_argument('--n_jobs', type=int, default=2)
    ap.add_argument('--respondents', default='ladder', help="'ladder' (the generated population) or 'models' (the 18 evaluated models as their own respondents)")
    ap.add_argument('--n_respondents', type=int, default=None, help='population size (default: get_respondents default)')
    ap.add_argument('--reliability', type=int, default=10, help='random splits for the split-half reliability')
    ap.add_argument('--passes', nargs='*', default=['difficulty', 'scc'], choices=['difficulty', 'scc'])
    ap.add_argument('--out', default=None, help='default nbs/results/fb24_population (ladder) or nbs/results/fb24 (models)')
    ap.add_argument('--cache', default=str(ROOT/'benchmarks'/'results'/'tmp'/'fb24_cache'))
    ap.add_argument('--lambdas', default='fb24', choices=['fb24', 'reference'],
                    help="'reference': also the reference code's taxonomy λ (0.05, 0.15, 0.25; files tagged ref_), for profiles(..., lambdas='reference')")
    ap.add_argument('--force', action='store_true', help='recompute datasets whose results exist')
    a = ap.parse_args()
    if a.out is None: a.out = str(ROOT/'nbs'/'results'/('fb24' if a.respondents == 'models' else 'fb24_population'))
    if a.n_respondents is None:
        import inspect
        from robustdiff.respondents import get_respondents
        a.n_respondents = inspect.signature(get_respondents).parameters['n'].default
    out = Path(a.out); out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter(); metas = []
    if 'difficulty' in a.passes and a.respondents != 'models':
        for i, name in enumerate(a.datasets):
            print(f'== difficulty {i + 1}/{len(a.datasets)} {name} (elapsed {time.perf_counter() - t0:.0f} s)', flush=True)
            run_difficulty(name, a, out)
    if 'scc' not in a.passes: return
    for i, name in enumerate(a.datasets):
        print(f'== {i + 1}/{len(a.datasets)} {name} (elapsed {time.perf_counter() - t0:.0f} s)', flush=True)
        metas.append(run_one(name, a, out))
    total = sum(m['wall_seconds'] for m in metas)
    pmlb_total = sum(m['wall_seconds'] for m in metas if m['dataset'] in PMLB16)
    print(f'total compute (sum of per-dataset wall times): {total:.0f} s; the PMLB benchmarks: {pmlb_total:.0f} s '
          f'({sum(m["dataset"] in PMLB16 for m in metas)} datasets); this invocation: {time.perf_counter() - t0:.0f} s')

if __name__ == '__main__':
    main()
