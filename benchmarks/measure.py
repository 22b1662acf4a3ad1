"""Run any command and measure it: wall time, CPU time of its process tree, peak summed RSS of the tree.

    python benchmarks/measure.py [--out NAME] -- robustdiff report pmlb:letter --n-jobs 2 --out /tmp/letter-report

The summed RSS is polled every second with psutil over the command and all its descendants (loky workers
included); pages shared between processes are counted once per process, so it is an upper bound. The summed
PSS (proportional set size: each shared page divided among the processes that map it) is polled too: it is what
the process tree really holds. CPU time is
`getrusage(RUSAGE_CHILDREN)` after the command ends (it counts descendants once they are reaped).
With `--out NAME` the result is also written to benchmarks/results/NAME.json.
"""
import json, os, resource, subprocess, sys, time
from pathlib import Path
import psutil

def main():
    args = sys.argv[1:]
    out = None
    if args[:1] == ['--out']: out, args = args[1], args[2:]
    if args[:1] == ['--']: args = args[1:]
    if not args: sys.exit(__doc__)
    t0 = time.time(); p = subprocess.Popen(args); pp = psutil.Process(p.pid); peak = peak_pss = 0
    while p.poll() is None:
        try:
            procs = [q for q in [pp] + pp.children(recursive=True) if q.is_running()]
            peak = max(peak, sum(q.memory_info().rss for q in procs))
            peak_pss = max(peak_pss, sum(q.memory_full_info().pss for q in procs))
        except psutil.Error: pass
        time.sleep(1)
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    res = dict(command=' '.join(args), returncode=p.returncode, wall_s=round(time.time() - t0, 1),
               cpu_s=round(ru.ru_utime + ru.ru_stime, 1), peak_rss_sum_mib=round(peak / 2**20), peak_pss_sum_mib=round(peak_pss / 2**20),
               date=time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()), load_after=os.getloadavg())
    print(json.dumps(res), flush=True)
    if out: (Path(__file__).resolve().parent/'results'/f'{out}.json').write_text(json.dumps(res, indent=1))
    sys.exit(p.returncode)

if __name__ == '__main__':
    main()
