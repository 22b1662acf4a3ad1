"""Benchmark: `RipperClassifier` (fabra18's `JRip`) vs the former wittgenstein wrapper vs Weka's JRip.

    python benchmarks/checks/bench_jrip.py [--datasets waveform_40,segmentation,vowel] [--seeds 5] [--witt_seeds 2]
                                    [--weka /usr/share/java/weka.jar] [--identity yeast,waveform_40,...] [--write-fixtures]

1. Accuracy and time on a stratified hold-out of each PMLB data set (1000 test rows when n >= 5000, else 20 %),
   preprocessed as `make_pipeline` does, one BLAS thread: `RipperClassifier` (seeds 0..), the wittgenstein-based
   wrapper that was fabra18's JRip before (if `wittgenstein` is installed; training capped at 2000 rows as it was),
   and Weka's JRip (`-S 1..`, if Java and weka.jar are there; its own "time taken to build model"). Also the fit time
   of `RipperClassifier` on all rows.
2. Identity with Weka: with Weka's random stream emulated (tests/test_ripper.py), `JRip -S 1 -O 2` and our
   `_ripper_fit` must give the same rule list (rows dropped first where two classes have the same frequency:
   Weka orders tied classes by an unstable quicksort, we by label).
3. `--write-fixtures`: the Weka outputs the tests replay (tests/data/jrip/).
Results go to benchmarks/results/jrip.json. Weka here: Debian's `apt-get install weka` (3.6.14) with OpenJDK 17.
"""
import argparse, json, os, re, subprocess, sys, tempfile, time, warnings
from pathlib import Path
import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from threadpoolctl import threadpool_limits

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT/'tests'))
from test_ripper import pmlb_arrays, weka_stream, parse_weka, ours_as_weka, assert_same_rules, FIXTURES
from robustdiff.ripper import RipperClassifier, _ripper_fit
from robustdiff._models import ProbaClassifier as _ProbaClassifier, local_rng as _rng

SEED_JAVA = """package weka.core;
import java.io.*;
public class SeedHelper {  // JRip's m_Random = getRandomNumberGenerator(S): re-seeded with hashCode(row) + S
  public static void main(String[] a) throws Exception {
    Instances d = new Instances(new BufferedReader(new FileReader(a[0])));
    d.setClassIndex(d.numAttributes() - 1);
    long s = Long.parseLong(a[1]);
    java.util.Random r = new java.util.Random(s);
    System.out.println(d.instance(r.nextInt(d.numInstances())).toStringNoWeight().hashCode() + s);
  }
}
"""


class WittgensteinJRip(_ProbaClassifier):
    "fabra18's former JRip: wittgenstein's binary RIPPER (binned features) per class as JRip, <= 2000 training rows."
    def __init__(self, max_samples=2000, random_state=None): self.max_samples, self.random_state = max_samples, random_state
    @staticmethod
    def _frame(X): return pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    @staticmethod
    def _cover(model, Xf):
        bt = model.bin_transformer_
        Xb = bt.transform(Xf) if bt is not None and not bt.isempty() else Xf
        out = []
        for rule in model.ruleset_.rules:
            m = np.ones(len(Xf), bool)
            for cond in rule.conds: m &= (Xb[cond.feature].to_numpy() == cond.val)
            out.append(m)
        return out
    def fit(self, X, y):
        import wittgenstein as lw
        X, y = self._fit_xy(X, y); K = len(self.classes_); rng = _rng(self.random_state)
        if self.max_samples is not None and len(X) > self.max_samples:
            sub, _ = train_test_split(np.arange(len(X)), train_size=self.max_samples, stratify=y, random_state=int(rng.integers(2**31)))
            X, y = X[np.sort(sub)], y[np.sort(sub)]
        Xf = self._frame(X); rest = np.arange(len(X)); self.rulesets_, dists = [], []
        for c in np.argsort(np.bincount(y, minlength=K), kind='stable')[:-1]:
            if not (y[rest] == c).any() or len(np.unique(y[rest])) < 2: continue
            Xr = Xf.iloc[rest].reset_index(drop=True)
            rip = lw.RIPPER(k=2, prune_size=0.33, n_discretize_bins=10, random_state=int(rng.integers(2**31)))
            with warnings.catch_warnings():
                warnings.simplefilter('ignore'); rip.fit(Xr, (y[rest] == c).astype(int), pos_class=1)
            free = np.ones(len(rest), bool)
            for cov in self._cover(rip, Xr):
                dists.append(np.bincount(y[rest][cov & free], minlength=K) + 1.0); free &= ~cov
            self.rulesets_.append(rip); rest = rest[free]
        self.rule_dists_ = np.array(dists).reshape(-1, K)
        self.default_ = np.bincount(y[rest] if len(rest) else y, minlength=K) + 1.0
        return self
    def predict_proba(self, X):
        Xf = self._frame(self._x(X))
        out = np.tile(self.default_ / self.default_.sum(), (len(Xf), 1)); free = np.ones(len(Xf), bool)
        for m, d in zip([m for rip in self.rulesets_ for m in self._cover(rip, Xf)], self.rule_dists_):
            hit = free & m; out[hit] = d / d.sum(); free &= ~m
        return out


def write_arff(path, X, y, n_classes):
    with open(path, 'w') as f:
        f.write('@relation r\n' + ''.join(f'@attribute x{j} numeric\n' for j in range(X.shape[1])))
        f.write('@attribute class {' + ','.join(f'c{c}' for c in range(n_classes)) + '}\n@data\n')
        for row, c in zip(X, y): f.write(','.join(repr(float(v)) for v in row) + f',c{c}\n')


def weka(jar, *args):
    return subprocess.run(['java', '-Xmx4g', '-cp', str(jar), 'weka.classifiers.rules.JRip', *map(str, args)],
                          capture_output=True, text=True, check=True).stdout


def hash_seed(jar, helper_dir, arff, seed):
    return int(subprocess.run(['java', '-cp', f'{jar}:{helper_dir}', 'weka.core.SeedHelper', str(arff), str(seed)],
                              capture_output=True, text=True, check=True).stdout)


def untie(X, y):
    "Drop the first rows of classes whose frequency equals another's until all frequencies differ."
    cnt, drop = np.bincount(y), []
    for c in np.argsort(cnt, kind='stable'):
        rows, k = np.flatnonzero(y == c), 0
        while (cnt == cnt[c]).sum() > 1 and cnt[c] > 1:
            drop.append(rows[k]); k += 1; cnt[c] -= 1
    keep = np.setdiff1d(np.arange(len(y)), drop)
    return X[keep], y[keep]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--datasets', default='waveform_40,segmentation,vowel')
    ap.add_argument('--seeds', type=int, default=5)
    ap.add_argument('--witt_seeds', type=int, default=2)
    ap.add_argument('--weka', default='/usr/share/java/weka.jar')
    ap.add_argument('--identity', default='yeast,waveform_40,page_blocks,segmentation,vowel,spambase,satimage')
    ap.add_argument('--write-fixtures', action='store_true')
    a = ap.parse_args()
    jar = Path(a.weka); have_weka = jar.exists() and subprocess.run(['which', 'javac'], capture_output=True).returncode == 0
    try: import wittgenstein  # noqa: F401
    except ImportError: a.witt_seeds = 0
    tmp = Path(tempfile.mkdtemp(prefix='bench_jrip_'))
    if have_weka:
        (tmp/'weka'/'core').mkdir(parents=True); (tmp/'weka'/'core'/'SeedHelper.java').write_text(SEED_JAVA)
        subprocess.run(['javac', '-cp', str(jar), str(tmp/'weka'/'core'/'SeedHelper.java')], check=True)
    rows = []
    with threadpool_limits(1):
        for name in a.datasets.split(','):
            X, y, classes = pmlb_arrays(name)
            tr, te = train_test_split(np.arange(len(y)), test_size=1000 if len(y) >= 5000 else 0.2, stratify=y, random_state=0)
            for s in range(a.seeds):
                t0 = time.perf_counter(); RipperClassifier(random_state=s).fit(X, y); t_all = time.perf_counter() - t0
                t0 = time.perf_counter(); m = RipperClassifier(random_state=s).fit(X[tr], y[tr]); t = time.perf_counter() - t0
                rows.append(dict(dataset=name, model='RipperClassifier', seed=s, fit_s=t, fit_s_all_rows=t_all,
                                 rules=m.n_rules_, acc=(m.predict(X[te]) == y[te]).mean()))
            for s in range(a.witt_seeds):
                t0 = time.perf_counter(); m = WittgensteinJRip(random_state=s).fit(X[tr], y[tr]); t = time.perf_counter() - t0
                rows.append(dict(dataset=name, model='wittgenstein wrapper', seed=s, fit_s=t,
                                 rules=len(m.rule_dists_) + 1, acc=(m.predict(X[te]) == y[te]).mean()))
            if have_weka:
                write_arff(tmp/'tr.arff', X[tr], y[tr], len(classes)); write_arff(tmp/'te.arff', X[te], y[te], len(classes))
                for s in range(1, a.seeds + 1):
                    out = weka(jar, '-S', s, '-t', tmp/'tr.arff', '-T', tmp/'te.arff')
                    rows.append(dict(dataset=name, model='Weka 3.6.14 JRip', seed=s,
                                     fit_s=float(re.findall(r'Time taken to build model: ([\d.]+)', out)[0]),
                                     rules=int(re.findall(r'Number of Rules : (\d+)', out)[0]),
                                     acc=float(re.findall(r'Correctly Classified Instances\s+\d+\s+([\d.]+)', out)[-1]) / 100))
            print(f'{name} done', flush=True)
    res = pd.DataFrame(rows)
    summary = (res.groupby(['dataset', 'model'], sort=False)
                  .agg(n=('acc', 'size'), acc_mean=('acc', 'mean'), acc_sd=('acc', 'std'), fit_s=('fit_s', 'mean'),
                       fit_s_all_rows=('fit_s_all_rows', 'mean'), rules=('rules', 'mean')).round(3).reset_index())
    pd.set_option('display.width', 160); load = round(os.getloadavg()[0], 1)
    print(f'load average {load} (2 cores)\n' + summary.to_string(index=False))
    identity = {}
    if have_weka:
        for name in a.identity.split(','):
            X, y = untie(*pmlb_arrays(name)[:2])
            write_arff(tmp/'all.arff', X, y, len(np.unique(y)))
            _, wk = parse_weka(weka(jar, '-S', 1, '-O', 2, '-t', tmp/'all.arff', '-no-cv'))
            ours = ours_as_weka(*_ripper_fit(X, y, int(y.max()) + 1, rng=weka_stream(hash_seed(jar, tmp, tmp/'all.arff', 1))))
            try: assert_same_rules(ours, wk); identity[name] = f'identical ({len(wk)} rules)'
            except AssertionError as e: identity[name] = f'DIFFERENT: {str(e)[:200]}'
            print(f'identity with Weka JRip -S 1 -O 2, {name} ({len(y)} rows): {identity[name]}', flush=True)
    if a.write_fixtures:
        if not have_weka: raise SystemExit('--write-fixtures needs Java (javac) and weka.jar')
        FIXTURES.mkdir(parents=True, exist_ok=True)
        for name, args, tag in [('yeast', ['-S', 1, '-O', 2], 'S1_O2'), ('waveform_40', ['-S', 1, '-O', 2], 'S1_O2'),
                                ('yeast', ['-P'], 'P')]:
            X, y, classes = pmlb_arrays(name)
            assert len(set(np.bincount(y))) == len(classes), f'{name}: tied class frequencies'
            write_arff(tmp/'all.arff', X, y, len(classes))
            out = weka(jar, *args, '-t', tmp/'all.arff', '-no-cv')
            model = out[out.index('JRIP rules:'):out.index('Number of Rules')]
            n_rules = re.findall(r'Number of Rules : (\d+)', out)[0]
            head = (f"# Weka 3.6.14 (Debian), OpenJDK 17: java weka.classifiers.rules.JRip {' '.join(map(str, args))} -t {name}.arff -no-cv\n"
                    f"# data: pmlb {name} preprocessed as robustdiff.portfolio.make_pipeline does, class codes c0..c{len(classes) - 1}\n")
            if tag != 'P': head += f"# hash seed: {hash_seed(jar, tmp, tmp/'all.arff', args[1])}\n"
            (FIXTURES/f'{name}_{tag}.txt').write_text(head + model + f'Number of Rules : {n_rules}\n')
            print('wrote', FIXTURES/f'{name}_{tag}.txt')
    out = ROOT/'benchmarks'/'results'; out.mkdir(exist_ok=True)
    (out/'jrip.json').write_text(json.dumps(dict(load_average=load,
        summary=summary.replace({np.nan: None}).to_dict('records'), identity_with_weka=identity), indent=2))


if __name__ == '__main__':
    main()
