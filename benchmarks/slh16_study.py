"""The long runs behind nbs/52_slh16.ipynb (besides the Table 3 run of bench_ela.py), cached in nbs/results/slh16/.

    nohup nice -n 10 python benchmarks/slh16_study.py fabra18 --n_repeats 5 --n_jobs 2 > /tmp/slh16_fabra18.log 2>&1 &
    nohup nice -n 10 python benchmarks/slh16_study.py curves  > /tmp/slh16_curves.log 2>&1 &
    nice -n 10 python benchmarks/slh16_study.py difficulty                # after fb24_study.py / bench_respondents.py

- `fabra18`: the fabra18 portfolio (18 models), x = 10 %, 5-fold × --n_repeats (the committed files: 5, the paper's 5 × 5), on the PMLB benchmarks of [FB24] whose
  κ losses are cached in nbs/results/fb24/ (smallest first). Writes per dataset `fabra18_<name>.csv.gz` (per-instance
  clean / noisy correctness: feeds the Table 3 analogue, ELA by IRT difficulty and the κ-loss rank agreement).
- `difficulty`: the 1PL difficulty of every instance of the fabra18 sets from the separate respondent population of
  issue 9 (`get_respondents('ladder')`, default n = 240), fitted on the same 5 folds with the same seed (0) as
  repetition 0 of `fabra18`: `population_difficulty_<name>.csv.gz` (instance, difficulty, difficulty_se, status,
  p_correct). The population's fits are cached per respondent × fold; the default --cache of this step is the cache
  of `fb24_study.py` / `bench_respondents.py` (`benchmarks/results/tmp/fb24_cache`), so it only reads their fits
  when they exist (the cache key includes a hash of the package source: after a code change it refits).
- `curves`: ela2 with x ∈ {5, 10, 20, 30, 40 %}, 5-fold × 2 repeats, on the smaller [SLH16] KEEL sets: `curves_ela2.csv`.

A dataset whose file exists is skipped (resumable); per-fold results are also cached in --cache.
"""
import argparse, sys, time, warnings
from pathlib import Path
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
FABRA_SETS = ['analcatdata_dmft', 'vowel', 'yeast', 'mfeat_morphological', 'segmentation', 'spambase', 'waveform_40']
CURVE_SETS = ['heart', 'sonar', 'pima', 'wdbc', 'vehicle']
LEVELS = [0.05, 0.1, 0.2, 0.3, 0.4]

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('what', choices=['fabra18', 'difficulty', 'curves'])
    ap.add_argument('--datasets', nargs='*', default=None)
    ap.add_argument('--n_jobs', type=int, default=1)
    ap.add_argument('--n_repeats', type=int, default=2)
    ap.add_argument('--cache', default=None, help="per-fold cache (default: /tmp/robustdiff_slh16_cache; for 'difficulty' benchmarks/results/tmp/fb24_cache)")
    ap.add_argument('--out', default=str(ROOT/'nbs'/'results'/'slh16'))
    a = ap.parse_args()
    from robustdiff.data import load_pmlb, load_keel
    from robustdiff.ela import ela_predictions, ela_table
    out = Path(a.out); out.mkdir(parents=True, exist_ok=True)
    if a.cache is None: a.cache = str(ROOT/'benchmarks'/'results'/'tmp'/'fb24_cache') if a.what == 'difficulty' else '/tmp/robustdiff_slh16_cache'
    warnings.simplefilter('ignore')
    if a.what == 'fabra18':
        for name in a.datasets or FABRA_SETS:
            f = out/f'fabra18_{name}.csv.gz'
            if f.exists(): print(f'[{name}] cached', flush=True); continue
            t0 = time.perf_counter()
            p = ela_predictions(load_pmlb(name), 'fabra18', 0.1, 5, a.n_repeats, 0, a.n_jobs, cache_dir=Path(a.cache)/name, progress=False)
            p[['model', 'repeat', 'fold', 'noise', 'instance', 'correct_clean', 'correct_noisy']].to_csv(f, index=False, compression='gzip')
            print(f'[{name}] {time.perf_counter() - t0:.0f} s', flush=True)
    elif a.what == 'difficulty':
        from robustdiff.irt import fit_irt
        from robustdiff.responses import response_matrix
        from robustdiff.respondents import get_respondents, respondent_predictions, check_population, with_reliability
        for name in a.datasets or FABRA_SETS:
            f = out/f'population_difficulty_{name}.csv.gz'
            if f.exists(): print(f'[{name}] cached', flush=True); continue
            t0 = time.perf_counter()
            rp = respondent_predictions(load_pmlb(name), get_respondents('ladder'), n_splits=5, random_state=0, n_jobs=a.n_jobs,
                                        progress=False, cache_dir=Path(a.cache)/name)
            U = check_population(response_matrix(rp))
            it = with_reliability(fit_irt(U, model='1PL'))[['instance', 'difficulty', 'difficulty_se', 'status', 'p_correct']]
            for col in ('difficulty', 'difficulty_se', 'p_correct'): it[col] = it[col].astype(float).round(5)
            it.to_csv(f, index=False, compression='gzip')
            print(f'[{name}] {len(U)} respondents, {U.shape[1]} instances, {time.perf_counter() - t0:.0f} s', flush=True)
    else:
        f = out/'curves_ela2.csv'
        tabs = []
        for name in a.datasets or CURVE_SETS:
            t0 = time.perf_counter()
            p = ela_predictions(load_keel(name), 'ela2', LEVELS, 5, a.n_repeats, 0, a.n_jobs, cache_dir=Path(a.cache)/name, progress=False)
            tabs.append(ela_table(p).assign(dataset=name))
            pd.concat(tabs, ignore_index=True).round(6).to_csv(f, index=False)
            print(f'[{name}] {time.perf_counter() - t0:.0f} s', flush=True)

if __name__ == '__main__':
    main()
