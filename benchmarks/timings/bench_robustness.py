"""Benchmark: batched PiML robustness test vs the one-repeat-at-a-time loop (issue 11).

    nice -n 10 python benchmarks/timings/bench_robustness.py [--rounds 5] [--trees 100]

breast_cancer (70/30 stratified split, seed 0), RandomForestClassifier(100 trees, n_jobs=1), raw noise, size 0.1,
5 levels × 10 repeats, all features, ACC. Both sides run in the same process, interleaved round by round (the
order alternates), so load from other jobs on a shared machine hits both alike:

- batched: `robustdiff.robustness.robustness_test` — all repeats of a level stacked into one `predict` call
  (level 0 is the clean test set, predicted once);
- loop: what PiML does — for every level × repeat, perturb a copy of the test set and call `predict` on it
  (50 calls); `loop_skip0` is the same loop predicting the clean level once (41 calls), a stricter baseline.

The perturbed copies are identical on both sides (same per level × repeat seeds), which is checked.
Target: loop / batched ≥ 3. Writes benchmarks/results/robustness.json.
"""
import argparse, json, os, platform, sys, time
from pathlib import Path
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parents[1]/'tools'))
from harness import write_result

def loop(model, X, y, X_train, size, levels, n_repeats, random_state, skip0=False):
    "PiML's way: one perturbed copy and one predict call per level × repeat."
    from robustdiff.robustness import RawNoise, _rng
    p = RawNoise(features=list(X.columns)).fit(X_train)
    ent = np.random.SeedSequence(random_state).entropy
    y, out = np.asarray(y), []
    for i in range(levels):
        lvl = round(i * size, 12)
        clean = None
        for r in range(n_repeats):
            if i == 0:
                if clean is None or not skip0: clean = np.mean(model.predict(X) == y)
                out.append(clean); continue
            Xp = p.set_params(size=lvl).transform(X, random_state=_rng(ent, 0, i, r, 0))
            out.append(np.mean(model.predict(Xp) == y))
    return np.array(out)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--rounds', type=int, default=5)
    ap.add_argument('--trees', type=int, default=100)
    a = ap.parse_args()
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.model_selection import train_test_split
    from robustdiff.datasets import load_sklearn
    from robustdiff.robustness import robustness_test
    ds = load_sklearn('breast_cancer')
    Xtr, Xte, ytr, yte = train_test_split(ds.X, ds.y, test_size=0.3, stratify=ds.y, random_state=0)
    rf = RandomForestClassifier(n_estimators=a.trees, random_state=0, n_jobs=1).fit(Xtr, ytr)
    kw = dict(size=0.1, levels=5, n_repeats=10, random_state=0)
    rt_kw = {('perturb_size' if k == 'size' else k): v for k, v in kw.items()}   # robustness_test names PiML's step perturb_size
    batched = lambda: robustness_test(rf, Xte, yte, X_train=Xtr, method='raw', **rt_kw).value.to_numpy()
    looped = lambda: loop(rf, Xte, yte, Xtr, **kw)
    looped0 = lambda: loop(rf, Xte, yte, Xtr, **kw, skip0=True)
    np.testing.assert_array_equal(batched(), looped())          # warm-up and the equality check
    load_before = os.getloadavg()
    times = {'batched': [], 'loop': [], 'loop_skip0': []}
    fns = {'batched': batched, 'loop': looped, 'loop_skip0': looped0}
    for k in range(a.rounds):
        order = list(fns) if k % 2 == 0 else list(fns)[::-1]
        for name in order:
            t0 = time.perf_counter(); fns[name](); times[name].append(time.perf_counter() - t0)
        print(f"round {k}: " + ', '.join(f"{n} {times[n][-1]:.3f} s" for n in fns), flush=True)
    med = {n: float(np.median(t)) for n, t in times.items()}
    res = {'dataset': 'breast_cancer', 'n_test': len(Xte), 'model': f'RandomForestClassifier({a.trees}, n_jobs=1)',
           'levels': 5, 'n_repeats': 10, 'method': 'raw', 'size': 0.1, 'rounds': a.rounds,
           'seconds_median': med, 'seconds_all': times,
           'ratio_loop_over_batched': med['loop'] / med['batched'],
           'ratio_loop_skip0_over_batched': med['loop_skip0'] / med['batched'],
           'target_ratio': 3.0, 'identical_results': True,
           'load_avg_before': load_before, 'load_avg_after': os.getloadavg(), 'cpus': os.cpu_count(),
           'python': platform.python_version(),
           'command': 'nice -n 10 python benchmarks/timings/bench_robustness.py --rounds %d --trees %d' % (a.rounds, a.trees)}
    print(json.dumps({k: res[k] for k in ('seconds_median', 'ratio_loop_over_batched', 'ratio_loop_skip0_over_batched')}, indent=1))
    out = ROOT / 'benchmarks' / 'results' / 'robustness.json'
    write_result(out, res)
    print('wrote', out)

if __name__ == '__main__': main()
