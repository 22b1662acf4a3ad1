"""The run's timeline, recorded for `benchmarks/checks/eta_replay.py` (not part of the package): `plan_vs_actual.py --trace` puts
this directory on the PYTHONPATH of the `robustdiff report` process it starts, so Python imports it at start-up. In that
process only (not in its workers), it records each task the ETA's watcher sees stored (plan, spec number, time, the
worker's seconds) and, at exit, the timeline's plan (batches, keys, evidence, stages) to $ETA_TRACE_OUT as JSON."""
import atexit, json, os, sys, time
if os.environ.get('ETA_TRACE_OUT') and sys.argv and sys.argv[0].endswith('robustdiff') and 'report' in sys.argv:
    import robustdiff._run as _run
    _T, _rec, _state, _T0 = _run._Timeline, {'stores': [], 'etas': []}, {}, time.perf_counter()
    _watch, _eta_line = _T.watch, _T.eta_line

    def _watch_recorded(self, plans):
        _state['tl'] = self
        for name, p in plans.items():
            def wrap(store, name=name):
                def stored(k, out):
                    _rec['stores'].append((name, int(k), time.perf_counter(), getattr(out, 'attrs', {}).get('seconds')))
                    store(k, out)
                return stored
            p.store = wrap(p.store)
        return _watch(self, plans)

    def _eta_line_recorded(self, now=None):
        line = _eta_line(self, now)
        _rec['etas'].append((time.perf_counter() if now is None else now, line))
        return line

    def _dump():
        tl = _state.get('tl')
        if tl is None: return
        out = dict(T0=_T0, t0=tl.t0, end=time.perf_counter(), cores=tl.cores, pieces=tl.pieces,
                   batches=[(c, p, [int(k) for k in ks]) for c, p, ks in tl.batches], keys=tl.keys, fit_factor=tl.fit_factor,
                   stage_factor=tl.stage_factor, stage_plan=tl.stage_plan, measures=tl.measures, timed=tl.timed,
                   background=[(c, p, [int(k) for k in ks], key) for c, p, ks, key in tl.background],
                   evidence=tl.evidence, started=tl.started, stage_started=tl.stage_started, stage_seconds=tl.stage_seconds,
                   load=os.getloadavg(), **_rec)
        with open(os.environ['ETA_TRACE_OUT'], 'w') as f: json.dump(out, f, default=str)

    _T.watch, _T.eta_line = _watch_recorded, _eta_line_recorded
    atexit.register(_dump)
