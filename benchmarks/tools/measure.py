"""Run any command and measure it: wall time, CPU time of its process tree, peak summed RSS of the tree.

    python benchmarks/tools/measure.py [--out NAME] -- robustdiff report pmlb:letter --n-jobs 2 --out /tmp/letter-report

The summed RSS is polled every second with psutil over the command and all its descendants (loky workers
included); pages shared between processes are counted once per process, so it is an upper bound. The summed
PSS (proportional set size: each shared page divided among the processes that map it) is polled too: it is what
the process tree really holds. CPU time is
`getrusage(RUSAGE_CHILDREN)` after the command ends (it counts descendants once they are reaped).
With `--out NAME` the result is also written to benchmarks/results/NAME.json; with `--trace FILE` every poll is
written to FILE as CSV (seconds, PSS of the command's own process and of its descendants, in MiB), to see which stage
holds the memory.
"""
import json, os, resource, subprocess, sys, time
from pathlib import Path
import psutil
from harness import write_result

def main():
    args = sys.argv[1:]
    out = trace = None
    while args[:1] in (['--out'], ['--trace']):
        if args[0] == '--out': out = args[1]
        else: trace = open(args[1], 'w'); trace.write('t,pss_main_mib,pss_children_mib,n_children\n')
        args = args[2:]
    if args[:1] == ['--']: args = args[1:]
    if not args: sys.exit(__doc__)
    t0 = time.time(); p = subprocess.Popen(args); pp = psutil.Process(p.pid); peak = peak_pss = 0
    while p.poll() is None:
        try:
            procs = [q for q in [pp] + pp.children(recursive=True) if q.is_running()]
            peak = max(peak, sum(q.memory_info().rss for q in procs))
            pss = [q.memory_full_info().pss for q in procs]
            peak_pss = max(peak_pss, sum(pss))
            if trace: trace.write(f'{time.time() - t0:.1f},{pss[0] / 2**20:.0f},{sum(pss[1:]) / 2**20:.0f},{len(pss) - 1}\n'); trace.flush()
        except psutil.Error: pass
        time.sleep(1)
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    res = dict(command=' '.join(args), returncode=p.returncode, wall_s=round(time.time() - t0, 1),
               cpu_s=round(ru.ru_utime + ru.ru_stime, 1), peak_rss_sum_mib=round(peak / 2**20), peak_pss_sum_mib=round(peak_pss / 2**20),
               date=time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()), load_after=os.getloadavg())
    print(json.dumps(res), flush=True)
    if out: write_result(f'{out}.json', res)
    sys.exit(p.returncode)

if __name__ == '__main__':
    main()
