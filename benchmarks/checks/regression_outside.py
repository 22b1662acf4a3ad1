"""Acceptance of regression (#48) on tables from outside the repository: the command line, every stage, the answer, and the user's Pipeline.

    PYTHONPATH=/work/ext/mod nice python benchmarks/checks/regression_outside.py TABLE.csv [TABLE.csv ...] [--models regressors]
        [--model mine=regpipe:pipe] [--drop COLS] [--out NAME]

For each table: `robustdiff report TABLE.csv --target y --models M --model MINE --out DIR` (a child process; its exit
code and wall time), then from the report folder: every stage's status (summary.json), the headline sentences, and the
check that the user's model is used as given: its per-fold MAE (`accuracy_folds.csv`) equals scikit-learn's
`cross_val_predict` of the same Pipeline on the report's folds (`folds.csv`), the CSV read with pandas. Results:
benchmarks/results/regression_outside_<NAME>.json.
"""
import argparse, importlib, json, os, subprocess, sys, time
from pathlib import Path
import numpy as np, pandas as pd

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT/'benchmarks'/'tools'))
from harness import write_result

def run(table:Path, models:str, model:str|None, drop:str|None, out:Path)->dict:
    cmd = [sys.executable, '-c', 'import sys; from robustdiff._entry import run; sys.argv[0] = "robustdiff"; sys.exit(run())', 'report', str(table), '--target', 'y', '--models', models, '--out', str(out), '--force']
    if model: cmd += ['--model', model]
    if drop: cmd += ['--drop', drop]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    res = dict(table=table.name, command='robustdiff ' + ' '.join(cmd[3:]), exit=p.returncode, seconds=round(time.perf_counter() - t0, 1),
               log_head=p.stderr.splitlines()[:6], log_tail=p.stderr.splitlines()[-8:])
    if p.returncode or not (out/'summary.json').exists(): return res
    summ = json.loads((out/'summary.json').read_text())
    res['stages'] = {k: v['status'] + (f": {v['message'][:160]}" if v['message'] else '') for k, v in summ['stages'].items()}
    res['all_ok'] = all(v['status'] in ('ok', 'warn') for v in summ['stages'].values())
    h = out/'headline.csv'
    res['answer'] = pd.read_csv(h).sentence.tolist() if h.exists() else []
    if model:
        name, _, spec = model.partition('=')
        mod, _, attr = spec.partition(':')
        est = getattr(importlib.import_module(mod), attr)()
        from sklearn.model_selection import PredefinedSplit, cross_val_predict
        df = pd.read_csv(table)
        if drop: df = df.drop(columns=drop.split(','))
        X, y = df.drop(columns='y'), df.y.to_numpy(float)
        folds = pd.read_csv(out/'folds.csv')
        fold = folds.set_index('instance').fold.loc[np.arange(len(df))].to_numpy()
        pred = cross_val_predict(est, X, y, cv=PredefinedSplit(fold))
        ref = pd.Series(np.abs(pred - y)).groupby(fold).mean()
        af = pd.read_csv(out/'accuracy_folds.csv')
        ours = af[af.model == name].set_index('fold')['mae'].sort_index()
        res['own_model'] = dict(name=name, mae_per_fold_report=ours.round(6).tolist(), mae_per_fold_sklearn=ref.round(6).tolist(),
                                max_abs_difference=float(np.max(np.abs(ours.to_numpy() - ref.to_numpy()))))
    return res

if __name__ == '__main__':
    ap = argparse.ArgumentParser()
    ap.add_argument('tables', nargs='+')
    ap.add_argument('--models', default='regressors')
    ap.add_argument('--model', default=None)
    ap.add_argument('--drop', default=None)
    ap.add_argument('--out', default='ext')
    a = ap.parse_args()
    results = []
    for t in a.tables:
        t = Path(t)
        r = run(t, a.models, a.model, a.drop, Path('/tmp')/f'regression_outside_{t.stem}')
        print(json.dumps(r, indent=1), flush=True)
        results.append(r)
    write_result(f'regression_outside_{a.out}.json', dict(results=results))
