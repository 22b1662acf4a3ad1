"""The package's import graph, read from the source: no cycle, no private name across module lines, one address per name."""
import ast
from pathlib import Path
import pytest

PKG = Path(__file__).resolve().parents[1] / 'robustdiff'
MODULES = {p.stem: p for p in sorted(PKG.glob('*.py')) if p.stem not in ('__init__', '_modidx')}


def _imports(path:Path)->list:
    "(module imported from, names) for every `from robustdiff… import …` / `from . import …` in the file, nested ones too."
    out = []
    for n in ast.walk(ast.parse(path.read_text(encoding='utf-8'))):
        if not isinstance(n, ast.ImportFrom): continue
        if n.level == 0 and not (n.module or '').startswith('robustdiff'): continue
        mod = (n.module or '').split('.')[-1] if n.module and n.module != 'robustdiff' else None
        if mod is None:                                   # `from . import x` / `from robustdiff import x`: x is a module
            out += [(a.name, []) for a in n.names if a.name in MODULES]
        elif mod in MODULES: out.append((mod, [a.name for a in n.names]))
    return out


def _graph()->dict:
    return {m: {o for o, _ in _imports(p) if o != m} for m, p in MODULES.items()}


def _cycle(g:dict):
    "One cycle of `g` as a list of modules, or None (depth-first search with colours)."
    colour, stack = dict.fromkeys(g, 0), []
    def visit(u):
        colour[u] = 1; stack.append(u)
        for v in sorted(g[u]):
            if colour[v] == 1: return stack[stack.index(v):] + [v]
            if colour[v] == 0 and (c := visit(v)): return c
        colour[u] = 2; stack.pop(); return None
    for u in sorted(g):
        if colour[u] == 0 and (c := visit(u)): return c
    return None


def test_cycle_finder_finds_a_planted_cycle():
    assert _cycle({'a': {'b'}, 'b': {'c'}, 'c': {'a'}, 'd': set()}) == ['a', 'b', 'c', 'a']
    assert _cycle({'a': {'b'}, 'b': set()}) is None


def test_no_import_cycle():
    assert len(MODULES) > 30
    c = _cycle(_graph())
    assert c is None, 'import cycle: ' + ' → '.join(c)


def _crossings(mods:dict=MODULES)->set:
    "`importer <- module._name` for every private name a public module imports from another module."
    return {f"{m} <- {o}.{n}" for m, p in mods.items() if not m.startswith('_') for o, names in _imports(p)
            if o != m and not o.startswith('_') for n in names if n.startswith('_') and not n.startswith('__')}


def _inner_crossings(mods:dict=MODULES)->set:
    "`importer <- module._name` where a private module (the package's machinery) takes a public module's private name."
    return {f"{m} <- {o}.{n}" for m, p in mods.items() if m.startswith('_') for o, names in _imports(p)
            if o != m and not o.startswith('_') for n in names if n.startswith('_') and not n.startswith('__')}


# The one place the package's machinery reaches into a public module: the run (`_run`) extends and drives the fold
# plan behind `responses.map_folds`, which needs `responses`' public `cv_splits`, `FoldContext` and `ModelFitError`
# (a private home would import `responses` and be imported by it: a cycle).
INNER = {'_run <- responses._Plan', '_run <- responses._plan_folds'}


def test_no_public_module_imports_another_modules_private_name():
    "A public module imports another module's public names, or anything from a private module (`_x.py`), never `_name`."
    assert _crossings() == set(), f"private names across module lines: {sorted(_crossings())}"


def test_crossing_finder_sees_a_planted_crossing(tmp_path):
    src = 'from robustdiff.responses import map_folds, _Plan\nfrom ._folds import run_plans, _x\n'
    (tmp_path/'x.py').write_text(src); (tmp_path/'_y.py').write_text(src)
    mods = {'x': tmp_path/'x.py', '_y': tmp_path/'_y.py'}
    assert _crossings(mods) == {'x <- responses._Plan'}          # a private module's `_x` may be imported
    assert _inner_crossings(mods) == {'_y <- responses._Plan'}


def test_the_machinery_reaches_into_public_modules_only_where_listed():
    now = _inner_crossings()
    assert now == INNER, f"new: {sorted(now - INNER)}; gone (strike off INNER): {sorted(INNER - now)}"


def _defined(tree)->set:
    out = set()
    for n in tree.body:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)): out.add(n.name)
        elif isinstance(n, (ast.Assign, ast.AnnAssign)):
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                out |= {x.id for x in ast.walk(t) if isinstance(x, ast.Name)}
    return out


def _all(tree)->list:
    for n in tree.body:
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == '__all__' for t in n.targets):
            return [ast.literal_eval(e) for e in n.value.elts]
    return []


@pytest.mark.parametrize('mod', sorted(MODULES))
def test_all_names_are_defined_where_exported(mod):
    "Every name in a module's `__all__` is defined in that module (one address per name), and no module `__getattr__`."
    tree = ast.parse(MODULES[mod].read_text(encoding='utf-8'))
    defined = _defined(tree)
    assert '__getattr__' not in defined, f"{mod} has a module-level __getattr__"
    missing = [n for n in _all(tree) if n not in defined]
    assert not missing, f"{mod}.__all__ names defined elsewhere: {missing}"


def test_a_name_has_one_public_address():
    "No public name is in the `__all__` of two modules."
    seen = {}
    for m, p in MODULES.items():
        if m.startswith('_'): continue
        for n in _all(ast.parse(p.read_text(encoding='utf-8'))): seen.setdefault(n, []).append(m)
    room = {'NEEDS', 'PROVIDES', 'report_stage'}    # every stage room's interface (`report.STAGE_ROOMS`): one protocol, many rooms
    twice = {n: tuple(ms) for n, ms in seen.items() if len(ms) > 1 and not (n in room and all(m.endswith('_report') for m in ms))}
    # two different functions under one name, being renamed on branch `privates` (the list only shrinks)
    known = {'difficulty_chart': ('ela', 'irt'), 'reliability_chart': ('respondents', 'risk_report')}
    assert twice == {n: m for n, m in known.items() if n in twice} and set(twice) <= set(known), f"names exported by two modules: {twice}"
    assert set(known) <= set(twice), f"resolved, strike them off: {sorted(set(known) - set(twice))}"


def _layers()->dict:
    "module → layer number, from the ```text block under '## Layers' in CONTRIBUTING.md."
    text = (PKG.parent / 'CONTRIBUTING.md').read_text(encoding='utf-8')
    block = text.split('## Layers', 1)[1].split('```text', 1)[1].split('```', 1)[0]
    out = {}
    for line in block.strip().splitlines():
        n, _, mods = line.split('|')
        for m in mods.split(): out[m] = int(n)
    return out


def test_the_layer_diagram_holds():
    "Every module is in CONTRIBUTING's layer diagram, and every import goes to its own layer or a lower one."
    L, g = _layers(), _graph()
    assert sorted(set(g) - set(L)) == [], 'modules missing from the diagram'
    assert sorted(set(L) - set(g)) == [], 'the diagram names modules that do not exist'
    up = [f"{m} (layer {L[m]}) imports {o} (layer {L[o]})" for m in g for o in g[m] if L[o] > L[m]]
    assert not up, '; '.join(up)
