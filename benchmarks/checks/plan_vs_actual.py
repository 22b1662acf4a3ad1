"""The report's plan and ETA against the actual time (issue 45, part 2): whole `robustdiff report` runs, as a user runs
them, on tables of different shapes.

    python benchmarks/checks/plan_vs_actual.py                 # every case below (~60 min on 2 shared cores)
    python benchmarks/checks/plan_vs_actual.py --only vowel    # the cases whose name starts with one of these
    python benchmarks/checks/plan_vs_actual.py --cases mc50k_quick --out benchmarks/results/plan_vs_actual_mc50k.json   # exact names
    python benchmarks/checks/plan_vs_actual.py --summary-only             # the table of benchmarks/results/plan_vs_actual.json
    python benchmarks/checks/plan_vs_actual.py --summary-only --merge benchmarks/results/plan_vs_actual_mc50k.json   # drivers run side by side

Each case runs `robustdiff report SRC --models M --n-jobs 2 --out DIR --force` in a subprocess (not niced: the ETA must
hold under whatever load the shared machine has; the load is recorded) and reads its
log as it comes, time-stamping every line (the progress bars' '\\r' segments too) from the start of the process:
- the plan line ("plan: about 4.1 min on this machine (2 cores): ...") and when it came;
- every ETA line ("eta: about 2.5 min left (...)"), the first one at least 60 s into the run is "the ETA after the
  first minute": its predicted total is the time it came plus the time it says is left;
- the stage lines ("[4/10] scc: ok (34.8 s)") and the schedule's ("fits of every stage in one schedule: 47.8 s");
- the actual total: the process's wall time, from its start to its exit (the page written).
Errors are (predicted total ÷ actual total − 1) and, for the ETA, also (predicted time left ÷ actual time left − 1).
The load average (1 min) is recorded at the start, at each ETA line and at the end: the machine is shared.
The `hidden` cases set NPY_DISABLE_CPU_FEATURES=X86_V3 (numpy 2.4 groups AVX2 and FMA3 under X86_V3; this machine has
no AVX-512, so X86_V4 is off anyway) and OPENBLAS_CORETYPE=Sandybridge (OpenBLAS's kernels without AVX2/FMA3).
Writes benchmarks/results/plan_vs_actual.json (the runs done before are kept unless rerun; each run names the commit
it ran, `git describe --always --dirty`).
On a machine shared between login sessions, the kernel's autogroup scheduling (/proc/sys/kernel/sched_autogroup_enabled)
shares the CPU between sessions whatever their processes' nice: other sessions' `nice -n 19` jobs then take their
share from these runs. To give the runs the machine the way nice intends, start the driver in a session of its own
and lower that session's nice: `setsid python benchmarks/checks/plan_vs_actual.py ... &` then
`echo -19 > /proc/$(pgrep -f plan_vs_actual.py)/autogroup` (as the runs of 29 Nov from 10:40 UTC were). Write to the
driver's own PID: `$!` of a `cd … && setsid …  &` list is the shell's subshell, whose autogroup is the calling session's.
With `--trace`, each run also records its timeline (`benchmarks/tools/eta_trace/sitecustomize.py`) to
/tmp/plan_vs_actual/CASE.trace.json: `benchmarks/checks/eta_replay.py` replays it on the ETA code of the worktree.
"""
import argparse, json, os, platform, re, subprocess, sys, threading, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT/'benchmarks'/'results'
TMP = Path(os.environ.get('PLAN_VS_ACTUAL_TMP', '/tmp/plan_vs_actual'))
HIDDEN = {'NPY_DISABLE_CPU_FEATURES': 'X86_V3', 'OPENBLAS_CORETYPE': 'Sandybridge'}

def _mc50k()->list:
    "The 50 000-row table of `make_csv.py` (20 numeric columns, 3 classes), written once."
    p = TMP/'mc50k.csv'
    if not p.exists():
        TMP.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, str(ROOT/'benchmarks'/'tools'/'make_csv.py'), '--rows', '50000', '--out', str(p)], check=True)
    return [str(p), '--target', 'target']

CASES = {   # name: (source arguments, models, hidden vector features); the small ones first
    'vowel_default': (lambda: ['pmlb:vowel'], 'fabra18', False),
    'waveform_21_quick': (lambda: ['pmlb:waveform_21'], 'quick', False),
    'vowel_default_hidden': (lambda: ['pmlb:vowel'], 'fabra18', True),
    'waveform_21_quick_hidden': (lambda: ['pmlb:waveform_21'], 'quick', True),
    'mfeat_fourier_default': (lambda: ['pmlb:mfeat_fourier'], 'fabra18', False),
    'letter_quick': (lambda: ['pmlb:letter'], 'quick', False),
    'mc50k_quick': (_mc50k, 'quick', False),
    'mfeat_fourier_default_hidden': (lambda: ['pmlb:mfeat_fourier'], 'fabra18', True),
    'letter_quick_hidden': (lambda: ['pmlb:letter'], 'quick', True),
    'mc50k_quick_hidden': (_mc50k, 'quick', True),
    # regression tables (issue 48): the bundled ones, the default regressors and the quick ones
    'reg_college_default': (lambda: ['reg:college'], 'regressors', False),
    'reg_wage_default': (lambda: ['reg:wage'], 'regressors', False),
    'reg_computers_quick': (lambda: ['reg:computers'], 'quick', False),
}

_UNIT = {'s': 1.0, 'min': 60.0, 'h': 3600.0}
def seconds(text:str)->float:
    "'40 s', '3.5 min', '1.4 h' → seconds."
    m = re.match(r'\s*([\d.]+)\s*(s|min|h)\b', text)
    if not m: raise ValueError(f"not a duration: {text!r}")
    return float(m.group(1)) * _UNIT[m.group(2)]

def parse(segments:list)->dict:
    "The plan, ETA, stage and schedule lines of a time-stamped log [(seconds, text)]."
    out = dict(plan=None, etas=[], stages={}, schedule_s=None)
    for t, s in segments:
        m = re.search(r'plan: about (.+?) on this machine', s)
        if m and out['plan'] is None: out['plan'] = dict(t=round(t, 1), planned_s=seconds(m.group(1)), line=s.strip())
        m = re.search(r'eta: about (.+?) left', s)
        if m: out['etas'].append(dict(t=round(t, 1), left_s=seconds(m.group(1)), line=s[m.start():].strip()))
        for name, sec in re.findall(r'\[\d+/\d+\] (\w+): \w+ \(([\d.]+) s\)', s): out['stages'][name] = float(sec)
        m = re.search(r'fits of every stage in one schedule: ([\d.]+) s', s)
        if m: out['schedule_s'] = float(m.group(1))
    return out

def run_case(name:str, trace:bool=False)->dict:
    src, models, hidden = CASES[name]
    args = src()
    out_dir = TMP/name
    cmd = [str(Path(sys.executable).parent/'robustdiff'), 'report', *args, '--models', models, '--n-jobs', '2',
           '--out', str(out_dir), '--force']
    env = {**os.environ, 'PYTHONPATH': str(ROOT) + os.pathsep + os.environ.get('PYTHONPATH', ''), **(HIDDEN if hidden else {})}
    if trace:   # the timeline recorded for benchmarks/checks/eta_replay.py
        env['PYTHONPATH'] = str(ROOT/'benchmarks'/'tools'/'eta_trace') + os.pathsep + env['PYTHONPATH']
        env['ETA_TRACE_OUT'] = str(TMP/f'{name}.trace.json')
    commit = subprocess.run(['git', 'describe', '--always', '--dirty'], capture_output=True, text=True, cwd=str(ROOT)).stdout.strip()   # the code it runs
    load0 = os.getloadavg()[0]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=str(ROOT))
    segments, loads, buf = [], [], b''
    while True:
        chunk = os.read(proc.stdout.fileno(), 65536)
        if not chunk: break
        now = time.perf_counter() - t0
        buf += chunk
        parts = re.split(rb'[\r\n]', buf)
        buf = parts.pop()
        for p in parts:
            text = p.decode('utf-8', 'replace')
            if text.strip():
                segments.append((now, text))
                if 'eta: about' in text or 'plan: about' in text: loads.append((round(now, 1), os.getloadavg()[0]))
    if buf.strip(): segments.append((time.perf_counter() - t0, buf.decode('utf-8', 'replace')))
    rc = proc.wait()
    actual = time.perf_counter() - t0
    (TMP/f'{name}.log').write_text('\n'.join(f'{t:8.1f} {s}' for t, s in segments))
    r = parse(segments)
    res = dict(case=name, command='robustdiff ' + ' '.join(cmd[1:]), commit=commit, models=models, hidden=HIDDEN if hidden else None, rc=rc,
               actual_s=round(actual, 1), load_start=round(load0, 2), load_end=round(os.getloadavg()[0], 2),
               load_at_lines=loads, **r, date=time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()))
    if r['plan']:
        res['plan_total_s'] = round(r['plan']['t'] + r['plan']['planned_s'], 1)
        res['plan_error'] = round(res['plan_total_s'] / actual - 1, 3)
    first = next((e for e in r['etas'] if e['t'] >= 60), None)
    if first:
        res['eta_after_1min'] = dict(t=first['t'], left_s=first['left_s'], predicted_total_s=round(first['t'] + first['left_s'], 1),
                                     total_error=round((first['t'] + first['left_s']) / actual - 1, 3),
                                     left_error=round(first['left_s'] / max(actual - first['t'], 1e-9) - 1, 3),
                                     load=next((l for t, l in loads if t == first['t']), None))
    for e in r['etas']: e['total_error'] = round((e['t'] + e['left_s']) / actual - 1, 3)
    return res

def table(runs:dict)->str:
    rows = ['| case | commit | rows × models | plan (s) | ETA after 1 min → total (s) | actual (s) | plan err | ETA err (total / left) | load 1-min (start, ETA, end; max) |',
            '|---|---|---|---|---|---|---|---|---|']
    for name, r in runs.items():
        e = r.get('eta_after_1min') or {}
        top = max([r['load_start'], r['load_end'], *(l for _, l in r.get('load_at_lines', []))])
        err = f"{e['total_error']:+.0%} / {e['left_error']:+.0%}" if e else '– (no ETA line: the run ends first)'
        at = f"{e['load']:.1f}" if e.get('load') is not None else '–'
        rows.append(f"| {name} | {r.get('commit', '?')} | {r.get('rows', '?')} × {r['models']} | {r.get('plan_total_s', '–')} | "
                    f"{e.get('predicted_total_s', '–')} (at {e.get('t', '–')} s) | {r['actual_s']} | {r.get('plan_error', float('nan')):+.0%} | "
                    f"{err} | {r['load_start']:.1f}, {at}, {r['load_end']:.1f}; {top:.1f} |")
    return '\n'.join(rows)

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--only', nargs='*', default=None)
    ap.add_argument('--cases', nargs='*', default=None, help='exact case names, run in this order')
    ap.add_argument('--out', default=str(RESULTS/'plan_vs_actual.json'))
    ap.add_argument('--summary-only', action='store_true')
    ap.add_argument('--trace', action='store_true', help='also record each run\'s timeline to /tmp/plan_vs_actual/CASE.trace.json (benchmarks/checks/eta_replay.py)')
    ap.add_argument('--merge', nargs='*', default=None, help="other result files (of drivers run side by side): their runs join --out's, and the files are removed")
    a = ap.parse_args()
    old = json.loads(Path(a.out).read_text()) if Path(a.out).exists() else {}
    runs = old.get('runs', {})
    if a.merge:
        for f in a.merge:
            runs.update(json.loads(Path(f).read_text()).get('runs', {}))
        Path(a.out).write_text(json.dumps(dict(old, runs=runs), indent=1))
        for f in a.merge: Path(f).unlink()
    if not a.summary_only:
        TMP.mkdir(parents=True, exist_ok=True)
        cpu = next((l.split(':', 1)[1].strip() for l in subprocess.run(['lscpu'], capture_output=True, text=True).stdout.splitlines()
                    if l.startswith('Model name')), platform.processor())
        for name in (a.cases or CASES):
            if name not in CASES: raise SystemExit(f"no case {name!r}: one of {', '.join(CASES)}")
            if a.only and not any(name.startswith(o) for o in a.only): continue
            print(f"{name} ...", flush=True)
            r = run_case(name, a.trace)
            r['rows'], r['classes'] = _shape(name)
            r['n_models'] = {'quick': 4, 'fabra18': 18, 'regressors': 12}[CASES[name][1]]
            runs[name] = r
            print(f"  plan {r.get('plan_total_s')} s, ETA after 1 min {r.get('eta_after_1min')}, actual {r['actual_s']} s, rc {r['rc']}", flush=True)
            Path(a.out).write_text(json.dumps(dict(old, cpu=cpu, cores=os.cpu_count(), python=sys.version.split()[0],   # other keys kept
                                                   command='python benchmarks/checks/plan_vs_actual.py ' + ' '.join(sys.argv[1:]),
                                                   runs=runs), indent=1))
    print(table(runs))

def _shape(name:str)->tuple:
    "(rows, classes) of a case's table (classes None for a regression table)."
    sys.path.insert(0, str(ROOT))
    from robustdiff.datasets import load_dataset
    src = CASES[name][0]()
    if src[0].startswith(('pmlb:', 'reg:')):
        ds = load_dataset(src[0])
        return ds.n_instances, (None if ds.regression else ds.n_classes)
    import pandas as pd
    y = pd.read_csv(src[0], usecols=[src[2]])[src[2]]
    return len(y), int(y.nunique())

if __name__ == '__main__':
    main()
