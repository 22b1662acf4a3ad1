"""The ETA of the code in this worktree, replayed on recorded runs (`plan_vs_actual.py --trace`): no model is fitted.

    python benchmarks/eta_replay.py /tmp/plan_vs_actual/letter_quick.trace.json ...   # every 60 s of each run
    python benchmarks/eta_replay.py --step 30 TRACE ...
    python benchmarks/eta_replay.py benchmarks/results/eta_traces/*.json.gz          # the runs of plan_vs_actual.json

A trace holds the run's plan (the batches in submission order with their planned seconds on that machine, their keys,
the tasks timed in the first seconds, the stages' plan) and every task as the ETA's watcher saw it stored (when, and
the worker's seconds), then when each stage started and how long it took. The replay builds a `_Timeline` from the
plan, feeds it what had happened by time t, and asks for the time left: the ETA the run would have logged at t with
this code. Errors are (t + ETA) ÷ the run's actual time − 1, t counted from the process's start as
`plan_vs_actual.py` counts it (the actual time here ends at the process's exit handler, a fraction of a second before
the process ends)."""
import argparse, gzip, json, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from robustdiff._run import _Timeline

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
    a = ap.parse_args()
    for path in a.traces:
        raw = Path(path).read_bytes()
        r = replay(json.loads(gzip.decompress(raw) if path.endswith('.gz') else raw), a.step)
        first = r['etas'][0] if r['etas'] else None
        print(f"{path}: actual {r['actual_s']} s" + (f"; ETA after the first minute {first[2]:+.0%}" if first else ''))
        for t, left, err in r['etas']: print(f"  {t:7.1f} s: {left:7.1f} s left, total {err:+.0%}")

if __name__ == '__main__':
    main()
