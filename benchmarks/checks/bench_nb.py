"""Benchmark: fabra18's naive Bayes (`GaussianNBFloor`) vs scikit-learn's `GaussianNB` vs Weka's `NaiveBayes`.

    python benchmarks/checks/bench_nb.py [--datasets yeast,vowel,...] [--weka /usr/share/java/weka.jar]

5-fold CV with the folds of `robustdiff.responses.cv_splits` (random_state 0). Models:
- `GaussianNB`, `floor only` (= `GaussianNBFloor(binary='gaussian')`) and `GaussianNBFloor` on the matrix that
  `make_pipeline` gives (standardised numeric, one-hot nominal; fitted on the training fold);
- `Weka NB, same matrix`: Weka's NaiveBayes on that same matrix (every column numeric, so every column gets a
  NormalEstimator with its precision and sd floor; values rounded to the precision, interval probabilities);
- `Weka NB, nominal`: Weka's NaiveBayes on the raw table with nominal features declared nominal (frequency tables),
  as a Weka user would run it.
Reported: accuracy and, for `floor only` vs `Weka NB, same matrix`, the share of test rows with the same predicted
class (the floor is Weka's; the rest of Weka's estimator differs, see nbs/01_portfolio.ipynb).
Weka here: Debian's `apt-get install weka` (3.6.14) with OpenJDK 17; without it only the Python models run.
Results go to benchmarks/results/nb.json.
"""
import argparse, json, os, re, subprocess, sys, tempfile, time, warnings
from pathlib import Path
import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
from sklearn.naive_bayes import GaussianNB
from robustdiff.datasets import load_pmlb
from robustdiff.portfolio import make_pipeline
from robustdiff.estimators import GaussianNBFloor
from robustdiff.responses import cv_splits

PMLB16 = ['analcatdata_dmft', 'vowel', 'yeast', 'mfeat_morphological', 'mfeat_zernike', 'mfeat_karhunen',
          'mfeat_fourier', 'segmentation', 'spambase', 'waveform_40', 'page_blocks', 'texture', 'optdigits',
          'satimage', 'nursery', 'letter']


def _q(v): return "'" + str(v).replace('\\', '\\\\').replace("'", "\\'") + "'"


def write_arff(path, X:pd.DataFrame, y, classes, nominal=()):
    "An ARFF file: numeric columns, nominal columns with every category of the data set, the class last."
    with open(path, 'w') as f:
        f.write('@relation r\n')
        for j, c in enumerate(X.columns):
            kind = '{' + ','.join(_q(v) for v in X[c].cat.categories) + '}' if c in nominal else 'numeric'
            f.write(f'@attribute x{j} {kind}\n')
        f.write('@attribute class {' + ','.join(f'c{k}' for k in range(len(classes))) + '}\n@data\n')
        cols = [X[c].astype(str).map(_q).to_numpy() if c in nominal else X[c].to_numpy(float) for c in X.columns]
        for i in range(len(X)):
            f.write(','.join(str(col[i]) if isinstance(col[i], str) else repr(float(col[i])) for col in cols) + f',c{y[i]}\n')


def weka_predict(jar, train, test):
    "Predicted class codes of Weka's NaiveBayes trained on `train`, for the rows of `test` (in order)."
    out = subprocess.run(['java', '-Xmx4g', '-cp', str(jar), 'weka.classifiers.bayes.NaiveBayes', '-t', str(train),
                          '-T', str(test), '-p', '0'], capture_output=True, text=True, check=True).stdout
    return np.array([int(m) for m in re.findall(r'^\s*\d+\s+\d+:\S+\s+\d+:c(\d+)', out, re.M)])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--datasets', default=','.join(PMLB16))
    ap.add_argument('--weka', default='/usr/share/java/weka.jar')
    ap.add_argument('--out', default=str(ROOT/'benchmarks'/'results'/'nb.json'))
    a = ap.parse_args()
    jar = Path(a.weka); have_weka = jar.exists() and subprocess.run(['which', 'java'], capture_output=True).returncode == 0
    tmp = Path(tempfile.mkdtemp(prefix='bench_nb_'))
    models = {'GaussianNB': GaussianNB(), 'floor only': GaussianNBFloor(binary='gaussian'), 'GaussianNBFloor': GaussianNBFloor()}
    rows, t0 = [], time.perf_counter()
    for name in a.datasets.split(','):
        ds = load_pmlb(name)
        classes, y = np.unique(ds.y, return_inverse=True)
        for _, fold, tr, te in cv_splits(ds, n_splits=5, random_state=0):
            prep = make_pipeline(GaussianNB(), ds).named_steps['prep'].fit(ds.X.iloc[tr])
            Xtr, Xte = prep.transform(ds.X.iloc[tr]), prep.transform(ds.X.iloc[te])
            pred = {}
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                for m, est in models.items(): pred[m] = est.fit(Xtr, y[tr]).predict(Xte)
            if have_weka:
                cols = [f'f{j}' for j in range(Xtr.shape[1])]
                write_arff(tmp/'tr.arff', pd.DataFrame(Xtr, columns=cols), y[tr], classes)
                write_arff(tmp/'te.arff', pd.DataFrame(Xte, columns=cols), y[te], classes)
                pred['Weka NB, same matrix'] = weka_predict(jar, tmp/'tr.arff', tmp/'te.arff')
                write_arff(tmp/'trn.arff', ds.X.iloc[tr].reset_index(drop=True), y[tr], classes, ds.nominal)
                write_arff(tmp/'ten.arff', ds.X.iloc[te].reset_index(drop=True), y[te], classes, ds.nominal)
                pred['Weka NB, nominal'] = weka_predict(jar, tmp/'trn.arff', tmp/'ten.arff')
            for m, p in pred.items():
                if len(p) != len(te): raise RuntimeError(f'{name} fold {fold} {m}: {len(p)} predictions for {len(te)} rows')
                rows.append(dict(dataset=name, fold=fold, model=m, n=len(te), correct=int((p == y[te]).sum()),
                                 same_as_weka=(int((p == pred['Weka NB, same matrix']).sum()) if have_weka else None)))
        acc = pd.DataFrame([r for r in rows if r['dataset'] == name]).groupby('model', sort=False)[['correct', 'n']].sum()
        print(f"{name:20s} " + '  '.join(f"{m}: {c / n:.3f}" for m, (c, n) in acc.iterrows())
              + f"  (elapsed {time.perf_counter() - t0:.0f} s)", flush=True)
    df = pd.DataFrame(rows)
    tot = df.groupby(['dataset', 'model'], sort=False)[['correct', 'n', 'same_as_weka']].sum()
    table = (tot.correct / tot.n).unstack('model').round(3)
    table.insert(0, 'majority', [round(load_pmlb(d).y.value_counts(normalize=True).max(), 3)
                                 for d in table.index])
    if have_weka: table['floor only = Weka (same matrix) predictions'] = (tot.same_as_weka / tot.n).xs('floor only', level='model').round(3)
    print(table.to_string())
    Path(a.out).write_text(json.dumps(dict(
        note='5-fold CV (cv_splits, random_state 0) accuracy; Weka 3.6.14 NaiveBayes (Debian) via java; see the docstring',
        weka=str(jar) if have_weka else None, seconds=round(time.perf_counter() - t0, 1),
        accuracy=table.reset_index().to_dict(orient='records')), indent=1))


if __name__ == '__main__':
    main()
