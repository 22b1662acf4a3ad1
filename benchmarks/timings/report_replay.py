"""Benchmark: the report's stages (the main process's share of a report) replayed from a saved context, one thread, CPU-seconds per stage.

    python benchmarks/timings/report_replay.py --save /tmp/ctx.pkl [--data pmlb:waveform_40] [--models fabra18] [--n-jobs 2]
    python benchmarks/timings/report_replay.py --replay /tmp/ctx.pkl [--tables /tmp/tables.pkl] [--compare /tmp/reference.pkl]

`--save` runs `build_report`'s one schedule (the fits, the respondents, the label-noise refits and the hardness measures
joined) and pickles the context the stages read (`robustdiff._run._Ctx`). `--replay` runs every stage on it in this
process, in the report's order, and prints each stage's CPU time (`time.process_time`: this process only, so it does not
depend on the other jobs of a shared machine the way a report's wall time does); `--tables` keeps every table, and
`--compare` checks them against the tables of an earlier replay (bit for bit, else to 1e-12): a change to the stages'
code can be measured and checked in seconds, without rerunning the fits. Written for issue 36 (the report's ratio to a
plain `cross_val_predict`): the stages run in the main process beside the workers' refits, so their CPU adds to the
report's.
"""
import argparse, os, pickle, sys, time, warnings
from concurrent.futures import Future


def save(a):
    import robustdiff.report as R
    from robustdiff.datasets import load_dataset
    class _Saved(BaseException): pass
    schedule = R._schedule
    def stop_after_schedule(ctx):
        seconds = schedule(ctx)
        ctx.join_refit()                                    # the refits beside the stages, joined
        m = ctx.extra.get('measures')
        if isinstance(m, Future): ctx.extra['measures'] = m.result()
        ctx._beside, ctx.log = False, None
        with open(a.save, 'wb') as f: pickle.dump(ctx, f)
        print(f"schedule {seconds:.1f} s; context saved to {a.save}")
        raise _Saved()
    R._schedule = stop_after_schedule
    try: R.build_report(load_dataset(a.data), models=a.models, respondents=a.respondents, n_jobs=a.n_jobs, progress=False)
    except _Saved: pass
    finally: R._schedule = schedule


def replay(a):
    import pandas as pd
    import robustdiff.report as R
    from robustdiff._run import _stage_order
    from threadpoolctl import threadpool_limits
    with open(a.replay, 'rb') as f: ctx = pickle.load(f)
    ctx.log = lambda m: None
    limits = threadpool_limits(1)                           # as `build_report`
    total = time.process_time()
    try:
        for name in _stage_order(ctx, R.STAGES):
            t0, w0 = time.process_time(), time.perf_counter()
            st = R._run_stage(ctx, name, name in ctx.names, ctx.log)
            ctx.stages[name] = st
            if st.status != 'off':
                print(f"{name:<13} {st.status:<7} CPU {time.process_time() - t0:6.2f} s  wall {time.perf_counter() - w0:6.2f} s {st.message[:80]}")
    finally: limits.restore_original_limits()
    print(f"{'stages':<21} CPU {time.process_time() - total:6.2f} s")
    tables = {f'{s}/{k}': v for s, st in ctx.stages.items() for k, v in st.tables.items()}
    if a.tables:
        with open(a.tables, 'wb') as f: pickle.dump(tables, f)
    if a.compare:
        with open(a.compare, 'rb') as f: ref = pickle.load(f)
        if set(ref) != set(tables): print(f"tables differ in name: {sorted(set(ref) ^ set(tables))}")
        exact = close = 0; bad = []
        for k in sorted(set(ref) & set(tables)):
            try: pd.testing.assert_frame_equal(ref[k], tables[k], check_exact=True); exact += 1
            except AssertionError:
                try: pd.testing.assert_frame_equal(ref[k], tables[k], check_exact=False, rtol=1e-12, atol=1e-12); close += 1
                except AssertionError as e: bad.append((k, str(e).splitlines()[0]))
        print(f"tables: {exact} identical, {close} equal to 1e-12, {len(bad)} different")
        for k, m in bad: print(f"  {k}: {m}")
        if bad or set(ref) != set(tables): sys.exit(1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--save', default='', help='run the schedule and save the context here')
    ap.add_argument('--replay', default='', help='replay the stages from this saved context')
    ap.add_argument('--tables', default='', help='(replay) keep the tables here')
    ap.add_argument('--compare', default='', help='(replay) compare the tables with those of an earlier replay')
    ap.add_argument('--data', default='pmlb:waveform_40')
    ap.add_argument('--models', default='fabra18')
    ap.add_argument('--respondents', default='ladder')
    ap.add_argument('--n-jobs', type=int, default=2)
    a = ap.parse_args()
    if bool(a.save) == bool(a.replay): ap.error('give one of --save or --replay')
    warnings.simplefilter('ignore')
    save(a) if a.save else replay(a)


if __name__ == '__main__':
    main()
