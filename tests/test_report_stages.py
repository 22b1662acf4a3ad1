"""The report's stage rooms (robustdiff.report only wires): each stage a module with NEEDS, PROVIDES and report_stage;
the context they share is typed; the run settings travel as one object; options are keyword-only."""
import ast, inspect
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import robustdiff.report as R
from robustdiff import ela_report, verdict_report
from robustdiff.datasets import make_synthetic
from robustdiff._run import _Ctx
from robustdiff._stages import Settings

PKG = Path(R.__file__).parent
QUICK = dict(models='quick', respondents='models', n_jobs=1, progress=False, random_state=0)


@pytest.fixture(scope='module')
def tiny():
    return make_synthetic('moons', 120, random_state=2)


@pytest.fixture(scope='module')
def full(tiny):
    return build(tiny)


def build(ds, **kw):
    return R.build_report(ds, **{**QUICK, **kw})


def test_every_room_says_what_it_needs_and_provides():
    names = list(R.STAGE_ROOMS)
    assert tuple(names) == R.STAGES and names[0] == 'data'
    provided = {}
    for name, room in R.STAGE_ROOMS.items():
        assert isinstance(room.NEEDS, tuple) and isinstance(room.PROVIDES, tuple) and room.PROVIDES, name
        assert all(names.index(n) < names.index(name) for n in room.NEEDS), f"{name} needs a later stage: {room.NEEDS}"
        assert list(inspect.signature(room.report_stage).parameters) == ['ctx', 'st'], name
        for t in room.PROVIDES:
            assert t not in provided, f"table {t!r} provided by both {provided.get(t)} and {name}"
            provided[t] = name


def test_each_stage_adds_only_the_tables_it_provides(full):
    assert {k: s.status for k, s in full.stages.items()} == {k: 'ok' for k in R.STAGES}, \
        {k: s.message for k, s in full.stages.items() if s.status != 'ok'}
    for name, st in full.stages.items():
        extra = set(st.tables) - set(R.STAGE_ROOMS[name].PROVIDES)
        assert not extra, f"stage {name} adds tables its room does not declare: {sorted(extra)}"


def test_report_py_only_wires():
    src = (PKG/'report.py').read_text()
    assert len(src.splitlines()) <= 360
    tree = ast.parse(src)
    defs = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
    assert not [d for d in defs if d.startswith('_stage_')], defs
    for room in R.STAGE_ROOMS.values():       # a room imports neither the wiring nor the runner
        rsrc = Path(room.__file__).read_text()
        mods = {n.module for n in ast.walk(ast.parse(rsrc)) if isinstance(n, ast.ImportFrom) and n.module}
        assert not mods & {'report', 'run', 'robustdiff.report', 'robustdiff.run'}, (room.__name__, mods)
        assert ".get('metric'" not in rsrc and "ctx.extra" not in rsrc, room.__name__


def test_the_context_is_typed_and_its_extra_a_view(full, tiny):
    ctx = _Ctx(tiny, dict(metric='accuracy', n_jobs=3, random_state=7), {})
    assert ctx.run == Settings(n_jobs=3, random_state=7)          # the settings of the options, as one object
    with pytest.raises(AttributeError): ctx.extra = {}             # a read-only view: stages set typed fields
    ctx.measures = 'x'
    assert ctx.extra == {'measures': 'x'}
    assert {'oof', 'ela_predictions', 'perturbation_predictions', 'risk_model', 'risk_inputs', 'files'} <= set(full.extra)
    assert 'noise_reps' not in full.extra and 'perturbation_reps' not in full.extra   # kept for the verdict only


def test_run_settings_travel_as_one_object(tiny, monkeypatch):
    seen = []
    def spy(ctx, st):
        seen.append(ctx.run); st.tables['ela'] = pd.DataFrame()
    monkeypatch.setattr(ela_report, 'report_stage', spy)
    rep = build(tiny, stages='ela', random_state=4)
    assert seen == [Settings(n_jobs=1, random_state=4, backend=None, progress=False, cache_dir=None, n_splits=5)]
    assert rep.config['random_state'] == 4


def test_a_room_that_raises_fails_alone_and_a_stage_whose_needs_did_not_run_is_skipped(tiny, monkeypatch):
    def boom(ctx, st): raise ArithmeticError('boom')
    monkeypatch.setattr(ela_report, 'report_stage', boom)
    rep = build(tiny, stages='accuracy,ela,scc,verdict')
    assert (rep.stages['ela'].status, rep.stages['ela'].message) == ('failed', 'ArithmeticError: boom')
    assert rep.stages['scc'].status == 'skipped' and 'difficulty' in rep.stages['scc'].message   # scc needs difficulty
    assert rep.stages['verdict'].status == 'ok'


def test_options_are_keyword_only():
    from robustdiff.risk_fit import fit_risk
    for f in (R.build_report, fit_risk):
        ps = list(inspect.signature(f).parameters.values())
        assert ps[0].kind == ps[0].POSITIONAL_OR_KEYWORD and all(p.kind in (p.KEYWORD_ONLY, p.VAR_KEYWORD) for p in ps[1:]), f.__name__
    with pytest.raises(TypeError, match='positional'): R.build_report('sklearn:iris', 'target')


def test_the_risk_model_does_not_import_the_runner():
    src = (PKG/'risk.py').read_text()
    mods = {n.module for n in ast.walk(ast.parse(src)) if isinstance(n, ast.ImportFrom) and n.module}
    assert not mods & {'report', 'run', 'robustdiff.report', 'robustdiff.run'}, mods
    import robustdiff.risk as risk
    assert not hasattr(risk, 'fit_risk')


def test_the_verdict_takes_the_replicates_the_scc_stage_left(tiny, monkeypatch):
    got = []
    real = verdict_report.report_stage
    def spy(ctx, st):
        got.append(ctx.noise_reps is not None); real(ctx, st); got.append(ctx.noise_reps is None)
    monkeypatch.setattr(verdict_report, 'report_stage', spy)
    build(tiny, stages='accuracy,difficulty,scc,verdict')
    assert got == [True, True]
