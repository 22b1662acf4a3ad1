"""Write the Weka fixtures that `tests/test_c45_weka.py` replays without Java: J48 and PART as Weka 3.6.14 builds them.

    python benchmarks/tools/weka_fixtures.py [--weka /usr/share/java/weka.jar] [--datasets yeast,vowel,...] [--models J48_R,...]

For each data set (from the repository's `data/` folder, subsampled deterministically where large) this writes
`tests/data/weka/<name>/`:
- `train.arff.gz`, `test.arff.gz`: a 2/3 : 1/3 split (seed 0) of the raw features (numbers rounded to 6 decimals so
  that Weka's printed thresholds are exact; nominal features as ARFF nominal attributes, levels sorted), class codes c0..;
- `<model>.txt` for each model in MODELS: the model as Weka prints it, then the per-instance predictions on the test
  split (`-p 0`, with `-distribution` for reduced-error pruning), each preceded by a `# command:` line; `versions.txt`: Weka and Java versions;
- for the data sets of FOLD_SETS, `folds_S<seed>_N<folds>.txt`: the pruning set of reduced-error pruning as Weka's
  `StratifiedRemoveFolds` writes the last of `<folds>` stratified folds after shuffling with `<seed>` (0: no shuffling,
  J48 -R's own split), after its `# command:` line.
Weka here: Debian's `apt-get install weka` (3.6.14) with a headless OpenJDK 17.
"""
import argparse, gzip, subprocess, sys
from pathlib import Path
import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT/'tests'/'data'/'weka'
MODELS = {'J48': 'weka.classifiers.trees.J48', 'J48_U': 'weka.classifiers.trees.J48 -U',
          'J48_B': 'weka.classifiers.trees.J48 -B', 'J48_S': 'weka.classifiers.trees.J48 -S',
          'PART': 'weka.classifiers.rules.PART',
          # reduced-error pruning: its defaults (3 folds, seed 1), and 5 folds with binary nominal splits
          'J48_R': 'weka.classifiers.trees.J48 -R', 'J48_R_N5_B': 'weka.classifiers.trees.J48 -R -N 5 -B'}
FOLD_SETS, FOLDS = ('yeast', 'nursery', 'compas'), ((0, 3), (42, 3), (7, 5))   # (seed, number of folds)
# name: (source, rows kept, nominal columns or 'metadata')
DATASETS = {
    'yeast': ('pmlb', 1479), 'vowel': ('pmlb', 990), 'segmentation': ('pmlb', 1500), 'waveform_21': ('pmlb', 1500),
    'page_blocks': ('pmlb', 1500), 'spambase': ('pmlb', 1500), 'mfeat_morphological': ('pmlb', 1500),
    'letter': ('pmlb', 2600), 'satimage': ('pmlb', 1500), 'texture': ('pmlb', 1500),
    'analcatdata_dmft': ('pmlb', 797), 'nursery': ('pmlb', 2000), 'compas': ('compas', 1500),
    # class noise as in [SLH16] (where pruning matters most): 10 % of the labels changed to another class (seed 0)
    'spambase_noise10': ('pmlb', 1500), 'segmentation_noise10': ('pmlb', 1500),
}


def load_compas(path=ROOT/'data'/'compas'/'compas-scores-two-years.csv.gz'):
    "COMPAS two-year recidivism: mixed numeric and nominal features, binary class."
    df = pd.read_csv(path)
    X = df[['sex', 'age', 'race', 'juv_fel_count', 'juv_misd_count', 'juv_other_count', 'priors_count',
            'c_charge_degree', 'age_cat']].copy()
    return X, df['two_year_recid'].to_numpy(), ['sex', 'race', 'c_charge_degree', 'age_cat']


def load(name):
    "Features (DataFrame; nominal columns as str), class codes 0..K-1, nominal column names."
    src, n = DATASETS[name]
    base = name.removesuffix('_noise10')
    if src == 'compas': X, y, nominal = load_compas()
    else:
        from robustdiff.datasets import load_pmlb, _pmlb_types
        folder = ROOT/'data'/'pmlb'   # nominal: PMLB's 'discrete' (<= 20 levels) and 'binary' features
        types = _pmlb_types(folder/f'{base}.metadata.yaml')
        df = pd.read_csv(folder/f'{base}.tsv.gz', sep='\t')
        nom = [c for c, t in types.items() if (t == 'binary' or t == 'discrete' and df[c].nunique() <= 20) and c in df]
        ds = load_pmlb(base, folder=folder, nominal=nom)
        X, y, nominal = ds.X.copy(), ds.y.to_numpy(), list(ds.nominal)
    rng = np.random.default_rng(0)
    keep = np.sort(rng.permutation(len(y))[:n]) if n < len(y) else np.arange(len(y))
    X, y = X.iloc[keep].reset_index(drop=True), y[keep]
    _, y = np.unique(y, return_inverse=True)
    if name.endswith('_noise10'):
        K = int(y.max()) + 1; r = np.random.default_rng(0)
        flip = r.permutation(len(y))[:round(0.1 * len(y))]
        y = y.copy(); y[flip] = (y[flip] + r.integers(1, K, len(flip))) % K
    for c in X.columns:
        if c in nominal:   # levels as their rank among the sorted distinct values (numerically if they are numbers)
            v = X[c].to_numpy()
            try: lev = sorted(set(v.astype(float)))
            except (TypeError, ValueError): v, lev = v.astype(str), sorted(set(v.astype(str)))
            rank = {l: str(i) for i, l in enumerate(lev)}
            X[c] = [rank[float(t) if not isinstance(lev[0], str) else t] for t in v]
        else: X[c] = np.round(X[c].astype(float), 6)
    return X, y, nominal


def arff(X, y, n_classes, nominal, levels):
    "ARFF text (attribute names a0.., nominal levels as given, class c0..)."
    lines = ['@relation data']
    for j, c in enumerate(X.columns):
        lines.append(f"@attribute a{j} " + ('{' + ','.join(levels[c]) + '}' if c in nominal else 'numeric'))
    lines.append('@attribute class {' + ','.join(f'c{k}' for k in range(n_classes)) + '}')
    lines.append('@data')
    cols = [X[c].astype(str).to_numpy() if c in nominal else [repr(float(v)) for v in X[c]] for c in X.columns]
    for i in range(len(y)):
        lines.append(','.join([col[i] for col in cols] + [f'c{y[i]}']))
    return '\n'.join(lines) + '\n'


def split(n, seed=0):
    "Train and test positions: a random 2/3 : 1/3 split."
    p = np.random.default_rng(seed).permutation(n)
    k = (2 * n) // 3
    return np.sort(p[:k]), np.sort(p[k:])


def run(jar, cmd, train, test, extra):
    args = ['java', '-Xmx1g', '-cp', jar] + cmd.split() + ['-t', str(train), '-T', str(test)] + extra
    r = subprocess.run(args, capture_output=True, text=True, check=True)
    if 'Weka exception' in r.stdout + r.stderr or not r.stdout.strip(): raise RuntimeError(r.stdout + r.stderr)
    return ' '.join(['java', '-cp', 'weka.jar'] + cmd.split() + ['-t', train.name, '-T', test.name] + extra), r.stdout


def folds(jar, train, seed, k):
    "The command and the data rows of the last of k stratified folds, as Weka's StratifiedRemoveFolds writes them."
    out = train.parent/'fold.arff'
    cmd = f'weka.filters.supervised.instance.StratifiedRemoveFolds -c last -N {k} -F {k} -S {seed}'
    subprocess.run(['java', '-Xmx1g', '-cp', jar] + cmd.split() + ['-i', str(train), '-o', str(out)], check=True)
    lines = out.read_text().splitlines()
    rows = [l for l in lines[[l.strip().lower() for l in lines].index('@data') + 1:] if l.strip()]
    return f"java -cp weka.jar {cmd} -i {train.name}", rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--weka', default='/usr/share/java/weka.jar')
    ap.add_argument('--datasets', default=','.join(DATASETS))
    ap.add_argument('--models', default=','.join(MODELS), help='models to (re)write; the fold files come with J48_R')
    a = ap.parse_args()
    java = subprocess.run(['java', '-version'], capture_output=True, text=True).stderr.splitlines()[0]
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT/'versions.txt').write_text(f"Weka 3.6.14 (Debian package weka, {a.weka})\n{java}\n")
    import tempfile
    for name in a.datasets.split(','):
        X, y, nominal = load(name)
        K = int(y.max()) + 1
        levels = {c: sorted(X[c].unique(), key=int) for c in nominal}
        tr, te = split(len(y))
        d = OUT/name; d.mkdir(exist_ok=True)
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            for part, idx in (('train', tr), ('test', te)):
                text = arff(X.iloc[idx].reset_index(drop=True), y[idx], K, nominal, levels)
                (tmp/f'{part}.arff').write_text(text)
                with gzip.GzipFile(d/f'{part}.arff.gz', 'wb', mtime=0) as f: f.write(text.encode())
            for model in a.models.split(','):
                cmd = MODELS[model]
                c1, out1 = run(a.weka, cmd, tmp/'train.arff', tmp/'test.arff', ['-no-cv'])
                dist = ['-distribution'] if model.startswith('J48_R') else []   # and the class distributions
                c2, out2 = run(a.weka, cmd, tmp/'train.arff', tmp/'test.arff', ['-p', '0'] + dist)
                (d/f'{model}.txt').write_text(f"# command: {c1}\n{out1}\n# command: {c2}\n{out2}")
            if name in FOLD_SETS and 'J48_R' in a.models.split(','):
                for seed, k in FOLDS:
                    cmd, rows = folds(a.weka, tmp/'train.arff', seed, k)
                    (d/f'folds_S{seed}_N{k}.txt').write_text(f"# command: {cmd}\n" + '\n'.join(rows) + '\n')
        print(name, len(y), 'rows', K, 'classes', len(nominal), 'nominal', flush=True)


if __name__ == '__main__':
    main()
