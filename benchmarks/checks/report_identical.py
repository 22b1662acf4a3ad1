"""Check: every table of whole reports is bit-identical between two commits (a redesign must not move a number).

    python benchmarks/checks/report_identical.py --save DIR [--csv credit.csv --target y --pipeline mod.py:pipe]
    python benchmarks/checks/report_identical.py --compare DIR [same options]

Runs `build_report` end to end on three cases — waveform_40 with the default portfolio; a real CSV with missing cells and
text columns with the default portfolio; the same CSV with the user's own Pipeline beside the quick portfolio — and keeps
every table of every stage, the per-row frames behind them (`Report.extra`), each stage's status and notes. `--compare`
checks them against an earlier `--save` bit for bit (`pandas.testing.assert_frame_equal(check_exact=True)`, dtypes and
index included) and prints one line per case; it exits 1 on any difference.
"""
import argparse, importlib.util, os, pickle, sys, warnings
import numpy as np, pandas as pd

def _pipeline(spec):
    path, name = spec.rsplit(':', 1)
    s = importlib.util.spec_from_file_location('user_module', path); m = importlib.util.module_from_spec(s); s.loader.exec_module(m)
    return getattr(m, name)

def cases(a):
    out = {'waveform_40': dict(dataset='pmlb:waveform_40')}
    if a.csv:
        out['csv_default'] = dict(dataset=a.csv, target=a.target)
        if a.pipeline: out['csv_pipeline'] = dict(dataset=a.csv, target=a.target, models=[('mine', _pipeline(a.pipeline)), 'quick'])
    return out

def run(kw, n_jobs):
    from robustdiff.report import build_report
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        r = build_report(**kw, n_jobs=n_jobs, random_state=0, progress=False)
    return dict(tables=r.tables, status={k: (s.status, s.message) for k, s in r.stages.items()},
                notes={k: list(s.notes) for k, s in r.stages.items()},
                extra={k: v for k, v in r.extra.items() if isinstance(v, (pd.DataFrame, pd.Series, np.ndarray))})

def diff(a, b)->list:
    bad = []
    if set(a['tables']) != set(b['tables']): bad.append(f"table names {sorted(set(a['tables']) ^ set(b['tables']))}")
    for k in sorted(set(a['tables']) & set(b['tables'])):
        try: pd.testing.assert_frame_equal(a['tables'][k], b['tables'][k], check_exact=True)
        except AssertionError as e: bad.append(f"table {k}: {str(e).splitlines()[0]}")
    if a['status'] != b['status']: bad.append(f"stage status {a['status']} vs {b['status']}")
    for k in sorted(set(a['extra']) & set(b['extra'])):
        x, y = a['extra'][k], b['extra'][k]
        try:
            if isinstance(x, pd.DataFrame): pd.testing.assert_frame_equal(x, y, check_exact=True)
            elif isinstance(x, pd.Series): pd.testing.assert_series_equal(x, y, check_exact=True)
            else: np.testing.assert_array_equal(x, y)
        except AssertionError as e: bad.append(f"extra {k}: {str(e).splitlines()[0]}")
    nd = [k for k in a['notes'] if a['notes'][k] != b['notes'].get(k)]
    if nd: bad.append(f"notes differ in stages {nd} (informational: sentences may carry timings)")
    return bad

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--save', default=''); ap.add_argument('--compare', default='')
    ap.add_argument('--csv', default=''); ap.add_argument('--target', default='y'); ap.add_argument('--pipeline', default='')
    ap.add_argument('--only', nargs='*', default=None); ap.add_argument('--n-jobs', type=int, default=2)
    a = ap.parse_args(); folder = a.save or a.compare; os.makedirs(folder, exist_ok=True); failed = False
    for name, kw in cases(a).items():
        if a.only and name not in a.only: continue
        got = run(kw, a.n_jobs); f = os.path.join(folder, f'{name}.pkl')
        if a.save:
            with open(f, 'wb') as fh: pickle.dump(got, fh)
            print(f"{name}: {len(got['tables'])} tables, {len(got['extra'])} per-row frames saved to {f}", flush=True)
        else:
            with open(f, 'rb') as fh: ref = pickle.load(fh)
            bad = diff(ref, got); hard = [b for b in bad if not b.startswith('notes')]
            failed |= bool(hard)
            print(f"{name}: {len(got['tables'])} tables, {len(got['extra'])} per-row frames: "
                  + ('bit-identical' if not bad else 'DIFFERENT\n  ' + '\n  '.join(bad)), flush=True)
    sys.exit(1 if failed else 0)

if __name__ == '__main__': main()
