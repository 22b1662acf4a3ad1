"""Notebook output budget (tools/build_docs.py `audit_notebook`): notebooks are committed with their outputs and the
docs site shows them, so they must stay small and self-contained.

Budget (documented in CONTRIBUTING's spirit: render charts as SVG, `alt.renderers.enable('svg')`):
- at most 2 MB per notebook file and 500 kB per single output;
- no inline-JS vega chart (altair's `inline=True` HTML, ~900 kB each);
- no HTML/JS output that loads a script from a CDN the site cannot rewrite to its local copy (altair's default
  renderer is fine: its vega/vega-lite/vega-embed CDN URLs are rewritten to the site's `_static/vendor/`);
- no widget view without saved widget state (execute with `--ExecutePreprocessor.store_widget_state=True`).
"""
import sys
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO/'tools'))
from build_docs import audit_notebook, NB_BUDGET_BYTES, OUTPUT_BUDGET_BYTES     # noqa: E402

NOTEBOOKS = sorted(p for p in (REPO/'nbs').rglob('*.ipynb') if '.ipynb_checkpoints' not in p.parts)


@pytest.mark.parametrize('nb', NOTEBOOKS, ids=[p.relative_to(REPO/'nbs').as_posix() for p in NOTEBOOKS])
def test_notebook_within_budget(nb):
    assert audit_notebook(nb) == []


def _write(tmp_path, outputs, metadata=None, name='x.ipynb'):
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell('chart')
    cell.outputs = [nbformat.from_dict({'output_type': 'execute_result', 'execution_count': 1, 'metadata': {}, 'data': d})
                    for d in outputs]
    nb.cells = [cell]
    nb.metadata.update(metadata or {})
    p = tmp_path/name
    nbformat.write(nb, p)
    return p


def _chart():
    import altair as alt, pandas as pd
    return alt.Chart(pd.DataFrame({'x': [1, 2], 'y': [2, 1]})).mark_line().encode(x='x', y='y')


def test_budget_accepts_svg_and_cdn_charts(tmp_path):
    import altair as alt
    c = _chart()
    with alt.renderers.enable('svg'): svg = c._repr_mimebundle_()
    with alt.renderers.enable('default'): cdn = c._repr_mimebundle_()
    assert 'image/svg+xml' in svg and 'cdn.jsdelivr.net' in cdn['text/html']
    assert audit_notebook(_write(tmp_path, [svg, cdn])) == []


def test_budget_flags_inline_js_chart(tmp_path):
    html = _chart().to_html(inline=True)           # vega, vega-lite and vega-embed pasted into the output
    probs = audit_notebook(_write(tmp_path, [{'text/html': html}]))
    assert any('inline-JS vega chart' in p for p in probs), probs
    assert any('an output of' in p for p in probs), probs


def test_budget_flags_unrewritable_cdn(tmp_path):
    html = '<div id="p"></div><script src="https://cdn.plot.ly/plotly-2.35.2.min.js"></script>'
    probs = audit_notebook(_write(tmp_path, [{'text/html': html}]))
    assert any('cdn.plot.ly' in p and 'cannot serve' in p for p in probs), probs
    js = {'application/javascript': 'require.config({paths: {d3: "https://cdnjs.cloudflare.com/ajax/libs/d3/7.8.5/d3.min"}})'}
    assert any('JavaScript output loads from a CDN' in p for p in audit_notebook(_write(tmp_path, [js], name='js.ipynb')))


def test_budget_flags_widget_without_state(tmp_path):
    view = {'application/vnd.jupyter.widget-view+json': {'version_major': 2, 'version_minor': 0, 'model_id': 'abc'},
            'text/plain': 'FloatSlider(value=0.3)'}
    assert any('no saved widget state' in p for p in audit_notebook(_write(tmp_path, [view])))
    state = {'widgets': {'application/vnd.jupyter.widget-state+json': {'version_major': 2, 'version_minor': 0,
             'state': {'abc': {'model_name': 'FloatSliderModel', 'model_module': '@jupyter-widgets/controls',
                               'model_module_version': '2.0.0', 'state': {'value': 0.3}}}}}}
    assert audit_notebook(_write(tmp_path, [view], state, name='ok.ipynb')) == []


def test_budget_flags_size(tmp_path):
    big = {'text/plain': 'x' * (OUTPUT_BUDGET_BYTES + 10)}
    probs = audit_notebook(_write(tmp_path, [big] * 5))
    assert any('MB > budget' in p for p in probs) == (5 * OUTPUT_BUDGET_BYTES > NB_BUDGET_BYTES)
    assert sum('an output of' in p for p in probs) == 5
