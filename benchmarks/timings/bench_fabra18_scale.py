"""Benchmark (issue 16, item 4): how the fit time of the fabra18 models grows with the training rows, and the full
fabra18 robustness pipeline on a large generated data set.

    nice -n 10 python benchmarks/timings/bench_fabra18_scale.py [--models PART,JRip,...] [--sizes 4000,16000,40000]
        [--before af743a7] [--before-models JRip] [--skip-before-above 16000] [--variants JSON] [--pipeline 50000]
        [--n_jobs 2] [--out fabra18_scale]

Data: sklearn `make_classification(n, 40, n_informative=10, n_redundant=5, n_classes=3, flip_y=0.05, random_state=0)`,
standardised (what `make_pipeline` feeds the models). Every fit runs in a fresh child process with one BLAS thread;
the child reports CPU seconds (`time.process_time`), wall seconds, peak RSS and the number of rules. `--before COMMIT`
also fits the code of that commit (`git archive` into a temporary folder, first in each pair: interleaved). The
growth exponent of each model is the least-squares slope of log CPU time on log rows over `--sizes`.
`--pipeline N [--respondents models]`: `robustness_by_difficulty(make_classification(N, 40, ...), models='fabra18', n_jobs=2)` in a child
process; wall time, CPU time of the child and all its descendants (`getrusage(RUSAGE_CHILDREN)`, which counts the
loky workers once they are reaped) and the peak of the summed RSS of the process tree (psutil, polled every 0.5 s).
Results: benchmarks/results/fabra18_scale.json (and the raw rows in fabra18_scale.jsonl, appended as they come).
"""
import argparse, json, os, subprocess, sys, tarfile, tempfile, time, resource, io
from pathlib import Path
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
RES = ROOT/'benchmarks'/'results'
sys.path.insert(0, str(Path(__file__).resolve().parents[1]/'tools'))
from harness import write_result
MODELS = 'PART,JRip,C5.0,rpart,ctree,lvq,fda,rbf,rfRules,svmPoly'


def data(n, n_features=40):
    from sklearn.datasets import make_classification
    X, y = make_classification(n, n_features, n_informative=10, n_redundant=5, n_classes=3, flip_y=0.05, random_state=0)
    return X, y


def one(name, n, params):
    "Child: fit one fabra18 model on n rows, print a JSON line."
    import warnings
    from threadpoolctl import threadpool_limits
    from robustdiff.portfolio import get_models
    X, y = data(n); X = (X - X.mean(0)) / X.std(0)
    m = get_models('fabra18', random_state=0)[name]
    if params: m.set_params(**json.loads(params))
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter('ignore')
        c0, t0 = time.process_time(), time.perf_counter(); m.fit(X, y)
        cpu, wall = time.process_time() - c0, time.perf_counter() - t0
    rules = getattr(m, 'n_rules_', None)
    if rules is None and hasattr(m, 'rules_'): rules = len(m.rules_)
    print(json.dumps(dict(model=name, n=n, cpu_s=round(cpu, 3), wall_s=round(wall, 3), rules=rules,
                          peak_rss_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1))))


def pipeline(n, n_jobs, respondents=None):
    "Child: the whole fabra18 robustness pipeline on n generated rows."
    import pandas as pd
    from robustdiff.data import from_frame
    from robustdiff.scc import robustness_by_difficulty
    X, y = data(n)
    df = pd.DataFrame(X, columns=[f'x{j}' for j in range(X.shape[1])]); df['label'] = y
    t0 = time.perf_counter()
    res = robustness_by_difficulty(from_frame(df, target='label', name=f'mc{n}'), models='fabra18', n_jobs=n_jobs, progress=False,
                                   respondents=respondents)
    print(json.dumps(dict(pipeline_rows=n, respondents=respondents or 'ladder (default)', n_respondents=len(res.respondents),
                          wall_in_child_s=round(time.perf_counter() - t0, 1), curves=len(res.curves))))


def run_child(args, pythonpath):
    env = dict(os.environ, PYTHONPATH=str(pythonpath), OMP_NUM_THREADS='1', OPENBLAS_NUM_THREADS='1', MKL_NUM_THREADS='1')
    out = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, env=env)
    if out.returncode: raise RuntimeError(out.stderr[-2000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_pipeline(n, n_jobs, pythonpath, respondents=''):
    import psutil
    env = dict(os.environ, PYTHONPATH=str(pythonpath), OMP_NUM_THREADS='1', OPENBLAS_NUM_THREADS='1', MKL_NUM_THREADS='1')
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN); t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, __file__, '--pipeline-child', str(n), '--n_jobs', str(n_jobs)] + (['--respondents', respondents] if respondents else []),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    ps, peak = psutil.Process(proc.pid), 0
    while proc.poll() is None:
        try:
            tree = [ps] + ps.children(recursive=True)
            peak = max(peak, sum(p.memory_info().rss for p in tree if p.is_running()))
        except psutil.Error: pass
        time.sleep(0.5)
    out, err = proc.communicate(); wall = time.perf_counter() - t0
    if proc.returncode: raise RuntimeError(err[-2000:])
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return dict(json.loads(out.strip().splitlines()[-1]), n_jobs=n_jobs, wall_s=round(wall, 1), cpu_s_all_processes=round(cpu, 1),
                peak_rss_sum_mb=round(peak / 2**20), load_average=round(os.getloadavg()[0], 1),
                wall_s_on_idle_cores_estimate=round(cpu / n_jobs, 1))


def exponent(rows):
    "Least-squares slope of log CPU seconds on log rows."
    n = np.array([r['n'] for r in rows], float); c = np.array([r['cpu_s'] for r in rows], float)
    return round(float(np.polyfit(np.log(n), np.log(c), 1)[0]), 2) if len(rows) >= 2 and (c > 0).all() else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--one', nargs=2); ap.add_argument('--params', default='')
    ap.add_argument('--pipeline-child', type=int); ap.add_argument('--n_jobs', type=int, default=2)
    ap.add_argument('--models', default=MODELS); ap.add_argument('--sizes', default='4000,16000,40000')
    ap.add_argument('--variants', default='', help='JSON {label: [model, params]} of extra fits, e.g. PART with rows_per_rule')
    ap.add_argument('--before', default=''); ap.add_argument('--before-models', default='')
    ap.add_argument('--skip-before-above', type=int, default=10**9)
    ap.add_argument('--pipeline', type=int, default=0)
    ap.add_argument('--respondents', default='', help="respondents of the --pipeline run: '' = the default population, 'models' = fabra18 itself")
    ap.add_argument('--out', default='fabra18_scale', help='results file stem in benchmarks/results')
    ap.add_argument('--merge', default='', help='comma-separated result stems whose fits (.jsonl) and pipeline (.json) are merged into --out')
    a = ap.parse_args()
    if a.one: return one(a.one[0], int(a.one[1]), a.params)
    if a.pipeline_child: return pipeline(a.pipeline_child, a.n_jobs, a.respondents or None)
    RES.mkdir(exist_ok=True); raw = RES/f'{a.out}.jsonl'
    before_dir = None
    if a.before:
        before_dir = Path(tempfile.mkdtemp(prefix='bench_before_'))
        tar = subprocess.run(['git', '-C', str(ROOT), 'archive', a.before, 'robustdiff'], capture_output=True, check=True).stdout
        tarfile.open(fileobj=io.BytesIO(tar)).extractall(before_dir)
    sizes = [int(s) for s in a.sizes.split(',') if s]
    before_models = set(a.before_models.split(',')) if a.before_models else set(a.models.split(','))
    jobs = [(name, name, '') for name in a.models.split(',')]
    jobs += [(label, m, json.dumps(p)) for label, (m, p) in (json.loads(a.variants) if a.variants else {}).items()]
    rows, pipelines = [], None
    if a.merge:                                            # combine runs made in parallel (one per model group)
        for stem in a.merge.split(','):
            if (RES/f'{stem}.jsonl').exists(): rows += [json.loads(l) for l in (RES/f'{stem}.jsonl').read_text().splitlines() if l.strip()]
            old = json.loads((RES/f'{stem}.json').read_text()) if (RES/f'{stem}.json').exists() else {}
            if 'pipeline' in old: pipelines = old['pipeline']
        sizes, jobs = sorted({r['n'] for r in rows}), []
    for n in sizes:
        for label, name, params in jobs:
            versions = ([('before', before_dir)] if before_dir and name in before_models and label == name and n <= a.skip_before_above else [])
            for version, path in versions + [('after', ROOT)]:
                r = dict(run_child(['--one', name, str(n), '--params', params], path), label=label, version=version,
                         commit=a.before if version == 'before' else 'working tree', load_average=round(os.getloadavg()[0], 1))
                rows.append(r); print(json.dumps(r), flush=True)
                with open(raw, 'a') as f: f.write(json.dumps(r) + '\n')
    summary = []
    for label in dict.fromkeys(r['label'] for r in rows):
        for version in ('before', 'after'):
            rs = [r for r in rows if r['label'] == label and r['version'] == version]
            if rs: summary.append(dict(label=label, version=version, exponent_cpu=exponent(rs),
                                       **{f'cpu_s_{r["n"]}': r['cpu_s'] for r in rs}, **{f'rules_{r["n"]}': r['rules'] for r in rs}))
    out = dict(date=time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()), sizes=sizes, summary=summary, fits=rows)
    if a.pipeline: out['pipeline'] = run_pipeline(a.pipeline, a.n_jobs, ROOT, a.respondents); print(json.dumps(out['pipeline']), flush=True)
    elif pipelines: out['pipeline'] = pipelines
    write_result(RES/f'{a.out}.json', out)
    for s in summary: print(s)


if __name__ == '__main__':
    main()
