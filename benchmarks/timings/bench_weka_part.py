"""Benchmark: how Weka 3.6.14's own PART and J48 grow on the data of `bench_c45.py` (needs Java and Weka).

    nice -n 10 python benchmarks/timings/bench_weka_part.py [--sizes 4000 10000 20000 40000] [--weka /usr/share/java/weka.jar]

For each size: the training rows of `bench_c45.data(n)` written as ARFF, then `weka.classifiers.rules.PART -t train.arff
-no-cv` and the same with `weka.classifiers.trees.J48` in a fresh JVM (one per fit). Reported: the JVM's CPU seconds
(user + system of the child, so the JIT and garbage collector count), Weka's own "Time taken to build model" (wall,
inside the JVM) and the number of rules / leaves it printed. The growth exponents (least-squares slope of log(value) on
log(training rows)) are the reference for `PARTClassifier`'s: the same rules are found, so the same rows are read.
Results: benchmarks/results/weka_part.json.
"""
import argparse, json, os, re, resource, subprocess, sys, tempfile, time
from pathlib import Path
import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT/'benchmarks'/'tools'))   # bench_c45 is beside this file
from harness import write_result
from bench_c45 import data, slope
from weka_fixtures import arff


def weka(jar, cls, train):
    "CPU seconds of the JVM, Weka's build time and its printed output of one fit."
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run(['java', '-Xmx4g', '-cp', jar, cls, '-t', str(train), '-no-cv'], capture_output=True, text=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    build = float(re.search(r'Time taken to build model: ([\d.]+) seconds', r.stdout).group(1))
    return cpu, build, r.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--sizes', type=int, nargs='*', default=[4000, 10000, 20000, 40000])
    ap.add_argument('--weka', default='/usr/share/java/weka.jar')
    ap.add_argument('--out', default=str(ROOT/'benchmarks'/'results'/'weka_part.json'))
    a = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in a.sizes:
            X, y = data(n)
            train = Path(tmp)/f'train{n}.arff'
            train.write_text(arff(pd.DataFrame(X), y, int(y.max()) + 1, [], {}))
            load = os.getloadavg()[0]
            p_cpu, p_build, p_out = weka(a.weka, 'weka.classifiers.rules.PART', train)
            j_cpu, j_build, j_out = weka(a.weka, 'weka.classifiers.trees.J48', train)
            rows.append(dict(train_rows=len(y), part_cpu_s=round(p_cpu, 2), part_build_s=p_build,
                             part_rules=int(re.search(r'Number of Rules\s*:\s*(\d+)', p_out).group(1)),
                             j48_cpu_s=round(j_cpu, 2), j48_build_s=j_build,
                             j48_leaves=int(re.search(r'Number of Leaves\s*:\s*(\d+)', j_out).group(1)), load_at_start=round(load, 2)))
            print(json.dumps(rows[-1]), flush=True)
    n = [r['train_rows'] for r in rows]
    res = dict(rows=rows, date=time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()),
               exponents={k: slope(n, [r[k] for r in rows]) for k in ('part_cpu_s', 'part_build_s', 'part_rules', 'j48_build_s')}
               if len(rows) > 1 else {})
    print(json.dumps(res['exponents']))
    write_result(a.out, res)


if __name__ == '__main__':
    main()
