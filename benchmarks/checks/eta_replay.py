"""The ETA of the code in this worktree, replayed on recorded runs (`plan_vs_actual.py --trace`): no model is fitted.

    python benchmarks/checks/eta_replay.py /tmp/plan_vs_actual/letter_quick.trace.json ...   # every 60 s of each run
    python benchmarks/checks/eta_replay.py --step 30 TRACE ...
    python benchmarks/checks/eta_replay.py benchmarks/results/eta_traces/*.json.gz          # the runs of plan_vs_actual.json
    python benchmarks/checks/eta_replay.py --replan benchmarks/results/eta_traces/*.json.gz # the stages planned by this checkout's cost tables

A trace holds the run's plan (the batches in submission order with their planned seconds on that machine, their keys,
the tasks timed in the first seconds, the stages' plan) and every task as the ETA's watcher saw it stored (when, and
the worker's seconds), then when each stage started and how long it took. The replay builds a `_Timeline` from the
plan, feeds it what had happened by time t, and asks for the time left: the ETA the run would have logged at t with
this code. Errors are (t + ETA) ÷ the run's actual time − 1, t counted from the process's start as
`plan_vs_actual.py` counts it (the actual time here ends at the process's exit handler, a fraction of a second before
the process ends).
With `--replan`, the stages' plan (and the hardness measures') is the one this checkout's cost tables give
(`robustdiff._run._stage_plan`) for the run's rows and models (from plan_vs_actual.json, by the trace's case name), at
`--stage-factor` × the reference's time (default 1: a trace recorded before the stages' probe changed holds no reading of
the probe this checkout takes), instead of the plan the run made; the fits' plan is the run's."""
import argparse, gzip, json, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from robustdiff._run import _Timeline, _stage_plan
from robustdiff.costs import hardness_cost
RESULTS = Path(__file__).resolve().parents[1]/'results'

def timeline_at(tr:dict, t:float)->_Timeline:
    "The timeline of trace `tr` with what had happened by perf_counter time `t`."
    tl = _Timeline(dict(tr['pieces']), [(c, p, ks) for c, p, ks in tr['batches']], cores=tr['cores'], fit_factor=tr['fit_factor'],
                   stage_factor=tr['stage_factor'], timed=tr['timed'], t0=tr['t0'], keys=tr['keys'], stage_plan=dict(tr['stage_plan']),
                   background=[(c, p, ks, k) for c, p, ks, k in tr['background']], measures=tr['measures'],
                   evidence={k: tuple(v) for k, v in tr['evidence'].items()})
    tl.mark(tr['t0'])
    ready = min(tr['started'].values(), default=tr['t0'])    # the workers were up when the first batches started
    if ready <= t: tl.workers_ready(ready)
    plans = {p for _, p, _ in tr['batches']}
    last = max((ts for n, _, ts, _ in tr['stores'] if n in plans), default=tr['t0'])
    for n, k, ts, s in tr['stores']:
        if ts > t: break
        with tl._lock:
            tl.done.add((n, k))
            if s is not None: tl.seconds[(n, k)] = float(s)
        tl.mark(ts)
    if last <= t: tl.end_fits(last)
    for s, st in tr['stage_started'].items():
        if st <= t:
            tl.stage_start(s, st)
            sec = tr['stage_seconds'].get(s)
            if sec is not None and st + sec <= t: tl.stage_end(s, sec)
    return tl

def replan(tr:dict, rows:int, models:int, stage_factor:float=1.0, noise_draws:int=5, perturb_repeats:int=3)->dict:
    "Trace `tr` with its stages' plan and its hardness measures' from this checkout's cost tables (`_stage_plan`), for `rows` × `models`, at `stage_factor`; the report's defaults of noise draws and perturbed copies."
    names = [s for s in dict(tr['stage_plan']) if s not in ('gather', 'page')]
    measures = stage_factor * hardness_cost(rows) if tr['measures'] > 0 else 0.0
    plan = _stage_plan(names, rows, models, dict(noise_draws=noise_draws, perturb_repeats=perturb_repeats), stage_factor,
                       schedule=bool(tr['batches']), measures=measures > 0)
    return dict(tr, stage_plan=plan, measures=measures, stage_factor=stage_factor)

def replay(tr:dict, step:float=60.0)->dict:
    "The ETA every `step` seconds from the schedule's start + 60 s (as the run logs them): [(t from the process's start, seconds left, error of the total)]."
    actual = tr['end'] - tr['T0']
    rows, t = [], tr['t0'] + 60.0
    while t < tr['end']:
        left = timeline_at(tr, t).eta(t)
        rows.append((round(t - tr['T0'], 1), round(left, 1), round((t - tr['T0'] + left) / actual - 1, 3)))
        t += step
    return dict(actual_s=round(actual, 1), etas=rows)

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('traces', nargs='+')
    ap.add_argument('--step', type=float, default=60.0)
    ap.add_argument('--replan', action='store_true', help="the stages planned by this checkout's cost tables (rows and models from --runs)")
    ap.add_argument('--stage-factor', type=float, default=1.0, help='with --replan: the stages at this × the reference time')
    ap.add_argument('--runs', default=str(RESULTS/'plan_vs_actual.json'), help='with --replan: the runs (rows, n_models) by case name')
    a = ap.parse_args()
    runs = json.loads(Path(a.runs).read_text())['runs'] if a.replan else {}
    for path in a.traces:
        raw = Path(path).read_bytes()
        tr = json.loads(gzip.decompress(raw) if path.endswith('.gz') else raw)
        if a.replan:
            case = Path(path).name.split('.trace.json')[0]
            if case not in runs: print(f"{path}: no run {case!r} in {a.runs} (its rows and models): not replanned"); continue
            tr = replan(tr, runs[case]['rows'], runs[case]['n_models'], a.stage_factor)
        r = replay(tr, a.step)
        first = r['etas'][0] if r['etas'] else None
        print(f"{path}: actual {r['actual_s']} s" + (f"; ETA after the first minute {first[2]:+.0%}" if first else ''))
        for t, left, err in r['etas']: print(f"  {t:7.1f} s: {left:7.1f} s left, total {err:+.0%}")

if __name__ == '__main__':
    main()
