"""Re-run notebooks as a reader would (all cells, from the notebook's folder, with the installed kernel) and compare
the fresh text outputs with the stored ones, cell by cell.

    python tools/check_outputs.py nbs/00_data.ipynb nbs/10_irt.ipynb [--all-cells] [--timeout 1200]

By default only cells that read the repository's real data (`load_pmlb`, `read_responses`, `data_dir`, `load_keel`,
`irt_names`, `compas`) are compared: those are the cells that printed nothing before the data moved into the
repository. Numbers that measure time (`1.23 s`, `00:05`, `it/s`) are masked before comparing. Exit code 1 when any
compared cell differs, with a short diff per cell.
"""
import argparse, difflib, re, sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

DATA_CALLS = ('load_pmlb', 'read_responses', 'data_dir', 'load_keel', 'irt_names', 'compas')
_MASK = [(re.compile(r'\d+(\.\d+)?\s*(s|ms|seconds|sec)\b'), '<time>'), (re.compile(r'\d\d:\d\d(:\d\d)?'), '<clock>'),
         (re.compile(r'[\d.]+\s*(it/s|s/it)'), '<rate>'), (re.compile(r'0x[0-9a-f]+'), '<addr>')]


def _text(cell) -> str:
    parts = []
    for o in cell.get('outputs', []):
        if o.output_type == 'stream' and o.name == 'stdout': parts.append(o.text)
        elif o.output_type in ('execute_result', 'display_data'):
            d = o.get('data', {})
            if 'text/plain' in d and not any(k.startswith(('image/', 'application/vnd')) for k in d): parts.append(d['text/plain'])
        elif o.output_type == 'error': parts.append(f"{o.ename}: {o.evalue}")
    s = '\n'.join(parts)
    for rx, rep in _MASK: s = rx.sub(rep, s)
    return s.strip()


def check(path: Path, all_cells=False, timeout=1200) -> list:
    stored = nbformat.read(path, as_version=4)
    fresh = nbformat.read(path, as_version=4)
    NotebookClient(fresh, timeout=timeout, kernel_name='python3', resources={'metadata': {'path': str(path.parent)}}).execute()
    problems = []
    for i, (a, b) in enumerate(zip(stored.cells, fresh.cells)):
        if a.cell_type != 'code': continue
        if not all_cells and not any(k in a.source for k in DATA_CALLS): continue
        ta, tb = _text(a), _text(b)
        if ta != tb:
            diff = '\n'.join(list(difflib.unified_diff(ta.splitlines(), tb.splitlines(), 'stored', 'fresh', lineterm=''))[:12])
            problems.append(f"{path.name} cell {i}:\n{diff}")
    return problems


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('notebooks', nargs='+', type=Path)
    ap.add_argument('--all-cells', action='store_true')
    ap.add_argument('--timeout', type=int, default=1200)
    a = ap.parse_args(argv)
    bad = []
    for nb in a.notebooks:
        p = check(nb, a.all_cells, a.timeout)
        print(f"{nb}: {'same outputs' if not p else f'{len(p)} cell(s) differ'}", flush=True)
        bad += p
    for p in bad: print(p)
    return 1 if bad else 0


if __name__ == '__main__': sys.exit(main())
