"""The one record and JSON writer of the timings: what ran, where, and how loaded the machine was.

    sys.path.insert(0, str(ROOT/'benchmarks'/'tools'))
    from harness import load_average, write_result
    load0 = load_average()
    ...                                                   # the timing
    write_result('c45.json', res)                         # → benchmarks/results/c45.json, with res['machine']

`machine()` is the record: the commit of the checkout the script runs from (`git describe --always --dirty`; a
script that times other commits names them in its own fields), host, CPU model, cores, the vector features the CPU
offers (`avx`, `avx2`, `fma`, `avx512f` from the flags of /proc/cpuinfo) and the variables that hide some of them from
NumPy and OpenBLAS (`NPY_DISABLE_CPU_FEATURES`, `OPENBLAS_CORETYPE`), the Python version, the load average (1, 5,
15 min) when the result is written, the date and the command line. `write_result` adds it to a result under the key
`machine` (beside the fields a script puts there itself) and writes the JSON; every other field is the script's own,
so the readers of a results file find the keys they read.

    python benchmarks/tools/harness.py        # prints the record of this machine
"""
import json, os, platform, shlex, subprocess, sys, time
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1]
ROOT, RESULTS = BENCH.parent, BENCH/'results'
VECTOR_FLAGS = ('avx', 'avx2', 'fma', 'avx512f')
HIDING = ('NPY_DISABLE_CPU_FEATURES', 'OPENBLAS_CORETYPE')

def load_average()->list:
    "The load average over 1, 5 and 15 minutes, rounded to 0.01."
    return [round(x, 2) for x in os.getloadavg()]

def cpu(path:str='/proc/cpuinfo')->dict:
    "The CPU model, {feature: present} for `VECTOR_FLAGS` (its first processor's entry) and the variables hiding some."
    model, flags = None, None
    try:
        with open(path) as f:
            for line in f:
                key, _, value = line.partition(':')
                key = key.strip()
                if key == 'model name' and model is None: model = value.strip()
                elif key == 'flags' and flags is None: flags = set(value.split())
                if model is not None and flags is not None: break
    except OSError: pass
    return dict(cpu=model or platform.processor() or platform.machine(),
                vector={v: v in (flags or ()) for v in VECTOR_FLAGS},
                hidden={k: os.environ[k] for k in HIDING if os.environ.get(k)})

def commit(root:Path=ROOT)->str:
    "The commit of the checkout at `root` (`-dirty` when it has uncommitted changes)."
    try: r = subprocess.run(['git', 'describe', '--always', '--dirty'], cwd=root, capture_output=True, text=True)
    except OSError: return 'unknown'
    return r.stdout.strip() or 'unknown'

def machine(*, root:Path=ROOT)->dict:
    "The record of this run: code, machine, CPU features, load average now, date, command."
    return dict(commit=commit(root), host=platform.node(), **cpu(), cores=os.cpu_count(),
                python=platform.python_version(), load_average=load_average(),
                date=time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()),
                command=' '.join(shlex.quote(a) for a in [Path(sys.executable).name, *sys.argv]))

def write_result(dest, res:dict, *, indent:int=1, root:Path=ROOT)->Path:
    "Write `res` with `machine()` under `machine` to `dest` (a file name: in benchmarks/results/; a path: as given)."
    dest = Path(dest)
    if dest.parent == Path('.'): dest = RESULTS/dest
    if not isinstance(res, dict): raise TypeError(f"write_result({str(dest)!r}): the result must be a dict, not {type(res).__name__}")
    mine = res.get('machine')
    out = {**res, 'machine': {**(mine if isinstance(mine, dict) else {}), **machine(root=root)}}   # a stale record (a result read back and updated) gives way
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(json.dumps(out, indent=indent, default=str) + '\n')
    return dest

if __name__ == '__main__':
    print(json.dumps(machine(), indent=1))
