"""Issue 36: the 2PL EM before/after the sufficient-statistics rewrite, in one process, interleaved, best of 2.

    python benchmarks/timings/irt_2pl_before_after.py [--before 099f246]

"before" is `robustdiff/irt.py` of the commit `--before` (read with `git show`, imported from a temporary folder),
"after" this tree's. Simulated 2PL matrices 240 × 20 000 and 50 000 × 100 (seed 0), default spread and a wide one
(σ = 2.5, b sd = 3). Records wall and CPU seconds (best of 2), the load average, iterations, and the largest absolute
differences of b, a and the abilities. Writes benchmarks/results/irt_2pl_before_after.json.
"""
import argparse, subprocess, sys, tempfile
from pathlib import Path
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parents[1]/'tools'))
from harness import write_result
ap = argparse.ArgumentParser(); ap.add_argument('--before', default='099f246'); A = ap.parse_args()
_tmp = tempfile.mkdtemp()
code = subprocess.run(['git', 'show', f'{A.before}:robustdiff/irt.py'], cwd=ROOT, capture_output=True, text=True, check=True).stdout
(Path(_tmp)/'irt_prev.py').write_text(code.replace('from .charts import alt', 'from robustdiff.charts import alt'))
import os, sys, time, warnings, json
sys.path.insert(0, _tmp)
import numpy as np
import irt_prev
from robustdiff.irt import fit_irt, simulate_responses
warnings.simplefilter('ignore')
rows = []
for spread, kw in [('default', {}), ('wide', dict(sigma=2.5, b_sd=3.0))]:
    for J, I in [(240, 20000), (50000, 100)]:
        U = simulate_responses(J, I, model='2PL', random_state=0, **kw)[0].to_numpy()
        res = {}
        for rep in range(2):
            for name, f in ([('before', irt_prev.fit_irt), ('after', fit_irt)] if rep == 0 else [('after', fit_irt), ('before', irt_prev.fit_irt)]):
                l, c, t = os.getloadavg()[0], time.process_time(), time.perf_counter()
                r = f(U, model='2PL')
                w, cp = time.perf_counter() - t, time.process_time() - c
                res.setdefault(name, []).append((w, cp, l, r))
        b, a = res['before'], res['after']
        rb, ra = b[0][3], a[0][3]
        row = dict(spread=spread, shape=[J, I], n_iter=[rb.n_iter, ra.n_iter],
                   before_wall=round(min(x[0] for x in b), 2), after_wall=round(min(x[0] for x in a), 2),
                   before_cpu=round(min(x[1] for x in b), 2), after_cpu=round(min(x[1] for x in a), 2),
                   load=[round(x[2], 1) for x in b + a],
                   max_abs_diff_b=float(np.nanmax(np.abs(rb.items.difficulty - ra.items.difficulty))),
                   max_abs_diff_a=float(np.nanmax(np.abs(rb.items.discrimination - ra.items.discrimination))),
                   max_abs_diff_theta=float(np.max(np.abs(rb.abilities.ability - ra.abilities.ability))))
        row['speedup_cpu'] = round(row['before_cpu'] / row['after_cpu'], 2); row['speedup_wall'] = round(row['before_wall'] / row['after_wall'], 2)
        print(row, flush=True); rows.append(row)
write_result('irt_2pl_before_after.json', dict(command=f'python benchmarks/timings/irt_2pl_before_after.py --before {A.before}', rows=rows))
