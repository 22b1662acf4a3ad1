"""The long runs behind nbs/52_slh16.ipynb (besides the Table 3 run of bench_ela.py), cached in nbs/results/slh16/.

    nohup nice -n 10 python benchmarks/studies/slh16_study.py fabra18 --n_repeats 5 --n_jobs 2 > /tmp/slh16_fabra18.log 2>&1 &
    nohup nice -n 10 python benchmarks/studies/slh16_study.py curves  > /tmp/slh16_curves.log 2>&1 &
    nice -n 10 python benchmarks/studies/slh16_study.py difficulty                # after fb24_study.py / bench_respondents.py

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
- `weka`: Weka 3.6.14's own SMO with the Puk kernel (`weka.classifiers.functions.SMO -C 100 -K "...Puk -O 1.0 -S 1.0"`,
  everything else Weka's default: normalised inputs, tolerance 1e-3, no logistic models) against our `PukSVC(C=100,
  scale='minmax')` label on **the same folds and the same noisy training labels** (stratified 5-fold, --n_repeats
  repetitions, 10 % uniform class noise on the training fold), on KEEL sets whose SVM cells miss [SLH16] Table 3:
  `weka_smo_check.csv` (dataset, repeat, fold, noise, svm, accuracy, seconds). Needs java and /usr/share/java/weka.jar
  (`apt-get install weka`). Nominal attributes go to Weka as nominal (SMO's NominalToBinary) and to PukSVC one-hot.
- `smo_fixtures`: tests/data/weka_smo/<set>_<noise>/ — one training fold (with 10 % noisy labels or clean), its test
  fold and Weka 3.6.14's SMO-Puk labels for it, replayed by tests/test_estimators_weka.py against `PukSVC`.
- `svm_full`: the SVM (`PukSVC(C=100, scale='minmax')`, whose label is `ela2`'s SVM label) on the **full** large KEEL
  sets that Table 3's SVM column runs on 2 000-row subsamples, stratified 5-fold × --n_repeats, clean and 10 % noisy
  training labels: `svm_full.csv` (dataset, repeat, fold, noise, accuracy, fit_seconds, n_train), resumable per data set.

- `seeds`: the Table 3 run of `ela2` (10 % noise, 5 × 5 CV, as bench_ela.py) on the small KEEL sets with a miss, again
  with seeds 1 … --n_seeds (other folds, other noisy labels; the Table 3 run is seed 0): `seeds_ela2.csv` (ela_table
  rows + seed). How far the draw alone moves a cell is the test of the "noise draws" cause.

A dataset whose file exists is skipped (resumable); per-fold results are also cached in --cache.
"""
import argparse, sys, time, warnings
from pathlib import Path
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
FABRA_SETS = ['analcatdata_dmft', 'vowel', 'yeast', 'mfeat_morphological', 'segmentation', 'spambase', 'waveform_40']
CURVE_SETS = ['heart', 'sonar', 'pima', 'wdbc', 'vehicle']
LEVELS = [0.05, 0.1, 0.2, 0.3, 0.4]

WEKA_SETS = ['iris', 'wine', 'heart', 'ionosphere', 'monk-2', 'wdbc', 'german']
SMO = 'weka.classifiers.functions.SMO -C 100 -K weka.classifiers.functions.supportVector.Puk§-O§1.0§-S§1.0'

def _arff(X, y, classes):
    "ARFF text: numeric columns as numbers, categorical ones as nominal with their categories."
    lines = ['@relation d']
    for j, c in enumerate(X.columns):
        cat = isinstance(X[c].dtype, pd.CategoricalDtype)
        lines.append(f"@attribute a{j} " + ('{' + ','.join(f"'{v}'" for v in X[c].cat.categories) + '}' if cat else 'numeric'))
    lines.append('@attribute class {' + ','.join(f"'{v}'" for v in classes) + '}')
    lines.append('@data')
    cols = [[f"'{v}'" for v in X[c].astype(str)] if isinstance(X[c].dtype, pd.CategoricalDtype) else [repr(float(v)) for v in X[c]]
            for c in X.columns]
    for i, lab in enumerate(y):
        lines.append(','.join([col[i] for col in cols] + [f"'{lab}'"]))
    return '\n'.join(lines) + '\n'

def _weka_predict(jar, train, test, classes):
    "Weka SMO-Puk trained on `train`, its labels for `test` (from `-p 0`: class index:truncated label)."
    import subprocess
    args = ['java', '-Xmx1g', '-cp', jar] + [t.replace('§', ' ') for t in SMO.split()] + ['-t', str(train), '-T', str(test), '-p', '0']
    r = subprocess.run(args, capture_output=True, text=True, check=True)
    preds = []
    for line in r.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[0].isdigit() and ':' in parts[2]:
            preds.append(classes[int(parts[2].split(':', 1)[0]) - 1])
    return preds

def weka_check(datasets, n_repeats, f, jar='/usr/share/java/weka.jar'):
    import tempfile
    rows = pd.read_csv(f).to_dict('records') if f.exists() else []
    done = {r['dataset'] for r in rows}
    with tempfile.TemporaryDirectory() as t:
        _weka_sets(datasets, n_repeats, f, jar, rows, done, Path(t))

def _weka_sets(datasets, n_repeats, f, jar, rows, done, tmp):
    import numpy as np
    from robustdiff.datasets import load_keel
    from robustdiff.responses import cv_splits
    from robustdiff.ela import class_noise
    from robustdiff.estimators import PukSVC
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder
    for name in datasets:
        if name in done: print(f'[{name}] cached', flush=True); continue
        ds = load_keel(name)
        X, y = ds.X, ds.y.astype(str).to_numpy()
        classes = sorted(set(y))
        nominal = [c for c in X.columns if isinstance(X[c].dtype, pd.CategoricalDtype)]
        prep = lambda: ColumnTransformer([('nom', OneHotEncoder(handle_unknown='ignore', sparse_output=False), nominal)],
                                         remainder='passthrough')
        for repeat, fold, tr, te in cv_splits(ds, n_splits=5, n_repeats=n_repeats, random_state=0):
            rng = np.random.default_rng([repeat, fold])
            for noise in (0.0, 0.1):
                y_tr = class_noise(y[tr], noise, random_state=rng) if noise else y[tr]
                (tmp/'train.arff').write_text(_arff(X.iloc[tr].reset_index(drop=True), y_tr, classes))
                (tmp/'test.arff').write_text(_arff(X.iloc[te].reset_index(drop=True), y[te], classes))
                t0 = time.perf_counter(); pw = np.asarray(_weka_predict(jar, tmp/'train.arff', tmp/'test.arff', classes)); t1 = time.perf_counter()
                ours = make_pipeline(prep(), PukSVC(C=100.0, sigma=1.0, omega=1.0, scale='minmax')).fit(X.iloc[tr], y_tr)
                po = ours.predict(X.iloc[te]); t2 = time.perf_counter()
                if len(pw) != len(te): raise RuntimeError(f'{name}: Weka returned {len(pw)} predictions for {len(te)} rows')
                rows += [dict(dataset=name, repeat=repeat, fold=fold, noise=noise, svm='Weka SMO (Puk)', accuracy=float((pw == y[te]).mean()), seconds=t1 - t0),
                         dict(dataset=name, repeat=repeat, fold=fold, noise=noise, svm='PukSVC', accuracy=float((po == y[te]).mean()), seconds=t2 - t1)]
        pd.DataFrame(rows).to_csv(f, index=False)
        g = pd.DataFrame(rows); g = g[g.dataset == name].groupby(['noise', 'svm']).accuracy.mean().unstack()
        print(f'[{name}]', g.round(4).to_dict(), flush=True)

def smo_fixtures(cases=(('iris', 0.1), ('wdbc', 0.1), ('monk-2', 0.0)), jar='/usr/share/java/weka.jar'):
    import gzip, json
    import numpy as np
    from robustdiff.datasets import load_keel
    from robustdiff.responses import cv_splits
    from robustdiff.ela import class_noise
    for name, noise in cases:
        ds = load_keel(name)
        X, y = ds.X, ds.y.astype(str).to_numpy()
        classes = sorted(set(y))
        repeat, fold, tr, te = cv_splits(ds, n_splits=5, n_repeats=1, random_state=0)[0]
        y_tr = class_noise(y[tr], noise, random_state=np.random.default_rng([repeat, fold])) if noise else y[tr]
        d = ROOT/'tests'/'data'/'weka_smo'/f'{name}_{int(noise * 100)}'
        d.mkdir(parents=True, exist_ok=True)
        for part, rows, labels in (('train', tr, y_tr), ('test', te, y[te])):
            text = _arff(X.iloc[rows].reset_index(drop=True), labels, classes)
            (d/f'{part}.arff').write_text(text)
            with gzip.GzipFile(d/f'{part}.arff.gz', 'wb', mtime=0) as fh: fh.write(text.encode())
        preds = _weka_predict(jar, d/'train.arff', d/'test.arff', classes)
        (d/'train.arff').unlink(); (d/'test.arff').unlink()
        (d/'SMO_Puk.json').write_text(json.dumps({'command': SMO.replace('§', ' ') + ' -t train.arff -T test.arff -p 0',
                                                  'weka': '3.6.14', 'classes': classes, 'predictions': preds}, indent=0))
        print(f'[{name}] {len(preds)} predictions, accuracy {np.mean(np.asarray(preds) == y[te]):.4f}', flush=True)

FULL_SETS = ['spambase', 'banana', 'phoneme', 'ring', 'twonorm', 'magic']
SEED_SETS = ['iris', 'hayes-roth', 'wine', 'sonar', 'heart', 'ionosphere', 'monk-2', 'wdbc', 'vehicle', 'german']

def seeds(datasets, n_seeds, n_jobs, cache, f):
    "The Table 3 run (ela2, 10 % noise, 5 × 5 CV) again with other seeds (folds and noisy labels): how far the draw moves A₀, A₁₀."
    from robustdiff.datasets import load_keel
    from robustdiff.ela import ela_predictions, ela_table
    rows = pd.read_csv(f) if f.exists() else pd.DataFrame(columns=['dataset', 'seed'])
    for name in datasets:
        ds = load_keel(name)
        for seed in range(1, n_seeds + 1):
            if ((rows.dataset == name) & (rows.seed == seed)).any(): continue
            t0 = time.perf_counter()
            p = ela_predictions(ds, 'ela2', noise=0.1, n_splits=5, n_repeats=5, random_state=seed, n_jobs=n_jobs, cache_dir=Path(cache)/f'{name}_seed{seed}', progress=False)
            rows = pd.concat([rows, ela_table(p).assign(dataset=name, seed=seed)], ignore_index=True)
            rows.round(6).to_csv(f, index=False)
            print(f'[{name}] seed {seed}: {time.perf_counter() - t0:.0f} s', flush=True)

def svm_full(datasets, n_repeats, f):
    import numpy as np
    from robustdiff.datasets import load_keel
    from robustdiff.responses import cv_splits
    from robustdiff.ela import class_noise
    from robustdiff.estimators import PukSVC
    rows = pd.read_csv(f).to_dict('records') if f.exists() else []
    done = {r['dataset'] for r in rows}
    for name in datasets:
        if name in done: print(f'[{name}] cached', flush=True); continue
        ds = load_keel(name)
        X, y = ds.X.to_numpy(float), ds.y.astype(str).to_numpy()
        new = []
        for repeat, fold, tr, te in cv_splits(ds, n_splits=5, n_repeats=n_repeats, random_state=0):
            rng = np.random.default_rng([repeat, fold])
            for noise in (0.0, 0.1):
                y_tr = class_noise(y[tr], noise, random_state=rng) if noise else y[tr]
                t0 = time.process_time()
                m = PukSVC(C=100.0, sigma=1.0, omega=1.0, scale='minmax').fit(X[tr], y_tr)
                t1 = time.process_time()
                new.append(dict(dataset=name, repeat=repeat, fold=fold, noise=noise, accuracy=float((m.predict(X[te]) == y[te]).mean()),
                                fit_cpu_seconds=t1 - t0, predict_cpu_seconds=time.process_time() - t1, n_train=len(tr)))
                print(f'[{name}] repeat {repeat} fold {fold} noise {noise}: {new[-1]["accuracy"]:.4f} ({t1 - t0:.0f} CPU-s fit)', flush=True)
        rows += new
        pd.DataFrame(rows).to_csv(f, index=False)

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('what', choices=['fabra18', 'difficulty', 'curves', 'weka', 'svm_full', 'smo_fixtures', 'seeds'])
    ap.add_argument('--n_seeds', type=int, default=8)
    ap.add_argument('--datasets', nargs='*', default=None)
    ap.add_argument('--n_jobs', type=int, default=1)
    ap.add_argument('--n_repeats', type=int, default=2)
    ap.add_argument('--cache', default=None, help="per-fold cache (default: /tmp/robustdiff_slh16_cache; for 'difficulty' benchmarks/results/tmp/fb24_cache)")
    ap.add_argument('--out', default=str(ROOT/'nbs'/'results'/'slh16'))
    a = ap.parse_args()
    from robustdiff.datasets import load_pmlb, load_keel
    from robustdiff.ela import ela_predictions, ela_table
    out = Path(a.out); out.mkdir(parents=True, exist_ok=True)
    if a.cache is None: a.cache = str(ROOT/'benchmarks'/'results'/'tmp'/'fb24_cache') if a.what == 'difficulty' else '/tmp/robustdiff_slh16_cache'
    warnings.simplefilter('ignore')
    if a.what == 'fabra18':
        for name in a.datasets or FABRA_SETS:
            f = out/f'fabra18_{name}.csv.gz'
            if f.exists(): print(f'[{name}] cached', flush=True); continue
            t0 = time.perf_counter()
            p = ela_predictions(load_pmlb(name), 'fabra18', noise=0.1, n_splits=5, n_repeats=a.n_repeats, random_state=0, n_jobs=a.n_jobs, cache_dir=Path(a.cache)/name, progress=False)
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
    elif a.what == 'smo_fixtures':
        smo_fixtures()
    elif a.what == 'seeds':
        seeds(a.datasets or SEED_SETS, a.n_seeds, a.n_jobs, a.cache, out/'seeds_ela2.csv')
    elif a.what == 'svm_full':
        svm_full(a.datasets or FULL_SETS, a.n_repeats, out/'svm_full.csv')
    elif a.what == 'weka':
        weka_check(a.datasets or WEKA_SETS, a.n_repeats, out/'weka_smo_check.csv')
    else:
        f = out/'curves_ela2.csv'
        tabs = []
        for name in a.datasets or CURVE_SETS:
            t0 = time.perf_counter()
            p = ela_predictions(load_keel(name), 'ela2', noise=LEVELS, n_splits=5, n_repeats=a.n_repeats, random_state=0, n_jobs=a.n_jobs, cache_dir=Path(a.cache)/name, progress=False)
            tabs.append(ela_table(p).assign(dataset=name))
            pd.concat(tabs, ignore_index=True).round(6).to_csv(f, index=False)
            print(f'[{name}] {time.perf_counter() - t0:.0f} s', flush=True)

if __name__ == '__main__':
    main()
