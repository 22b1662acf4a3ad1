"""CONTRIBUTING.md's "Adding a stage" runs as written: its toy stage module and its registry line, on a tiny dataset."""
import importlib.util, re
from pathlib import Path

import numpy as np
import pytest

import robustdiff.report as R
from robustdiff.datasets import make_synthetic

DOC = Path(__file__).resolve().parents[1]/'CONTRIBUTING.md'


def _blocks():
    text = DOC.read_text()
    section = text[text.index('## Adding a stage'):]
    return re.findall(r"```python\n(.*?)```", section, re.S)


@pytest.fixture
def with_toy_stage(tmp_path, monkeypatch):
    module_src, registry_src = _blocks()[:2]
    path = tmp_path/'majority_report.py'
    path.write_text(module_src)
    spec = importlib.util.spec_from_file_location('majority_report', path)
    room = importlib.util.module_from_spec(spec); spec.loader.exec_module(room)
    lines = [l.strip().rstrip(',') for l in registry_src.splitlines() if re.fullmatch(r"\s*\w+=\w+,?", l)]
    order = [l.split('=')[0] for l in lines]
    assert 'majority' in order and lines[order.index('majority')] == 'majority=majority_report'
    rooms = dict(R.STAGE_ROOMS)
    after = order[order.index('majority') - 1]          # its place in the run order: after the line before it
    new = {}
    for k, v in rooms.items():
        new[k] = v
        if k == after: new['majority'] = room
    monkeypatch.setattr(R, 'STAGE_ROOMS', new)          # the one registry line: nothing else (the page shows it under its name)
    return room


def test_the_example_stage_lands_in_the_report(with_toy_stage, tmp_path):
    ds = make_synthetic('moons', 90, random_state=3)
    rep = R.build_report(ds, models='quick', respondents='models', stages='accuracy,majority', n_jobs=1, progress=False,
                         out=tmp_path/'rep')
    assert rep.stages['majority'].status == 'ok', rep.stages['majority'].message
    t = rep.table('majority')
    oof = rep.extra['oof']
    top = ds.y.value_counts().index[0]
    want = (oof.y_pred == top).groupby(oof.model, sort=False).mean()
    np.testing.assert_array_equal(t.set_index('model').share.loc[want.index].to_numpy(), want.to_numpy())
    assert set(t.model) == set(rep.table('accuracy').model)
    assert list(rep.stages) == ['data', 'accuracy', 'difficulty', 'scc', 'ela', 'perturbation', 'hardness', 'isa', 'verdict',
                                'majority', 'risk']
    assert (tmp_path/'rep'/'majority.csv').is_file()
    assert '<a href="#majority">Majority</a>' in (tmp_path/'rep'/'report.html').read_text()


def test_the_example_stage_is_skipped_without_what_it_needs(with_toy_stage):
    ds = make_synthetic('moons', 90, random_state=3)
    with pytest.raises(ValueError, match='unknown stage'): R.build_report(ds, stages='majorit', progress=False)
    rep = R.build_report(ds, models='quick', respondents='models', stages='majority', n_jobs=1, progress=False)
    assert rep.stages['majority'].status == 'skipped' and 'accuracy' in rep.stages['majority'].message
