"""A tiny nbdev project exercising everything the docs build must render, for the tests of tools/build_docs.py.

`make_demo_project(dest)` writes settings.ini, a top-level `_quarto.yml` (with `nbs/_quarto.yml` linking to it)
and four notebooks whose stored outputs are produced here, in-process, without a kernel:
- `index.ipynb`: README-like text, inline math, a link to a notebook, a DataFrame, a stdout stream, a hidden cell;
- `00_core.ipynb`: display math, exported function/class/method with `show_doc`, `#| echo: false`, `#| code-fold`,
  a Quarto callout, an SVG altair chart, an interactive (CDN-renderer) altair chart, a vega-lite mimebundle;
- `01_widgets.ipynb`: saved ipywidgets state (a slider with a math label jslinked to a text box, an HTML widget,
  a dropdown);
- `guides/01_howto.ipynb`: a notebook in a sub-folder (a sidebar section).
Returns what a correct site must show (pages, anchors, charts, widget values) for the tests to compare.
"""
from __future__ import annotations

import json, os, textwrap
from pathlib import Path

SETTINGS = """[DEFAULT]
repo = docsdemo
lib_name = docsdemo
version = 0.0.1
min_python = 3.11
license = apache2
black_formatting = False
doc_path = _docs
lib_path = docsdemo
nbs_path = nbs
recursive = True
clear_all = False
readme_nb = index.ipynb
tst_flags = slow
put_version_in_init = True
branch = main
custom_sidebar = False
doc_host = https://docsdemo.example.org
doc_baseurl = /docsdemo
git_url = https://example.org/docsdemo/docsdemo
title = docsdemo
audience = Developers
author = docs tests
author_email = docs@example.org
copyright = 2026 docs tests
description = A tiny project to test the docs build.
keywords = test
language = English
status = 3
user = docsdemo
"""

QUARTO = """project:
  type: website

format:
  html:
    theme: cosmo
    css: styles.css
    toc: true
    keep-md: true
  commonmark: default

website:
  title: "Docs demo"
  navbar:
    background: primary
    search: true
  sidebar:
    style: floating

metadata-files: [nbdev.yml, sidebar.yml]
"""


def _nb(cells, metadata=None):
    import nbformat
    nb = nbformat.v4.new_notebook()
    nb.metadata = {'kernelspec': {'display_name': 'Python 3', 'language': 'python', 'name': 'python3'},
                   **(metadata or {})}
    nb.cells = cells
    for i, c in enumerate(nb.cells): c['id'] = f'cell{i}'
    return nb


def _md(src): 
    import nbformat
    return nbformat.v4.new_markdown_cell(textwrap.dedent(src).strip())


def _code(src, outputs=()):
    import nbformat
    c = nbformat.v4.new_code_cell(textwrap.dedent(src).strip())
    c.outputs = [nbformat.from_dict(o) for o in outputs]
    c.execution_count = 1 if outputs else None
    return c


def _result(data):
    return {'output_type': 'execute_result', 'execution_count': 1, 'metadata': {}, 'data': data}


def _stdout(text):
    return {'output_type': 'stream', 'name': 'stdout', 'text': text}


def make_demo_project(dest) -> dict:
    "Write the demo project into `dest` (a new folder) and return the facts its site must show."
    import altair as alt, nbformat, pandas as pd
    import ipywidgets as widgets
    from ipywidgets.embed import embed_data
    dest = Path(dest)
    (dest/'nbs'/'guides').mkdir(parents=True)
    (dest/'settings.ini').write_text(SETTINGS)
    (dest/'_quarto.yml').write_text(QUARTO)
    os.symlink('../_quarto.yml', dest/'nbs'/'_quarto.yml')
    (dest/'nbs'/'styles.css').write_text('.cell { margin-bottom: 1rem; }\n')

    scores = pd.DataFrame({'model': ['knn', 'tree'], 'accuracy': [0.91, 0.87]}).set_index('model')
    index = _nb([
        _md("""
            # docsdemo

            > A tiny project to test the docs build.
            """),
        _md("""
            This README source has **bold** text, a link to [the core module](00_core.ipynb) and Euler's identity
            $e^{i\\pi} + 1 = 0$.

            ## Install

            ```sh
            pip install docsdemo
            ```
            """),
        _code("""
            #| hide
            import docsdemo_hidden_import_that_does_not_exist
            """),
        _code("scores", [_result({'text/html': scores._repr_html_(), 'text/plain': repr(scores)})]),
        _code("print('hello from stdout')", [_stdout('hello from stdout\n')]),
    ])

    kappa = pd.DataFrame({'level': [0, .1, .2, .3] * 2, 'model': ['knn'] * 4 + ['tree'] * 4,
                          'kappa': [1, .9, .8, .7, 1, .8, .6, .5]})
    line = alt.Chart(kappa).mark_line(point=True).encode(x='level', y='kappa', color='model')
    alt.renderers.enable('svg')
    svg = line._repr_mimebundle_()['image/svg+xml']
    alt.renderers.enable('default')
    cdn_html = line.mark_point().encode(tooltip=['model', 'kappa']).interactive()._repr_mimebundle_()['text/html']
    alt.renderers.enable('mimetype')
    # JupyterLab's altair mimebundle; 'application/vnd.vegalite.v6.json' is no '+json' type: nbformat wants a string
    mime = {k: (json.dumps(v) if isinstance(v, dict) else v) for k, v in line.mark_bar()._repr_mimebundle_()[0].items()}
    alt.renderers.enable('default')
    core = _nb([
        _md("""
            # Core

            > Noise, difficulty and charts.
            """),
        _code("#| default_exp core"),
        _code("""
            #| export
            import numpy as np
            """),
        _code("""
            #| hide
            from nbdev.showdoc import show_doc
            """),
        _md("""
            ## Adding noise

            Gaussian noise scaled by each feature's standard deviation (eq. 3):

            $$\\tilde x_{ij} = x_{ij} + \\varepsilon_{ij}, \\qquad \\varepsilon_{ij} \\sim \\mathcal N\\left(0, (\\lambda\\,\\sigma_j)^2\\right)$$

            where $\\lambda \\ge 0$ is the noise level.

            ::: {.callout-note}
            A Quarto callout becomes an admonition.
            :::
            """),
        _code("""
            #| export
            def add_noise(X:np.ndarray, # data, n × p
                          level:float=0.1, # noise level
                          random_state:int=0, # seed
                         )->np.ndarray: # the noisy copy
                "Add Gaussian noise of sd $\\\\lambda\\\\sigma_j$ to column $j$."
                rng = np.random.default_rng(random_state)
                return X + rng.normal(0, 1, X.shape) * level * X.std(axis=0)
            """),
        _code("show_doc(add_noise)"),
        _code("""
            #| export
            class Curve:
                "A robustness curve."
                def __init__(self, levels:list): self.levels = levels
                def area(self)->float:
                    "Area under the curve by the trapezoid rule."
                    return float(np.trapezoid(self.levels))
            """),
        _code("show_doc(Curve)"),
        _code("show_doc(Curve.area)"),
        _code("""
            #| echo: false
            print('SOURCE-HIDDEN-CELL')
            """, [_stdout('output of a cell whose source is hidden\n')]),
        _code("""
            #| code-fold: true
            folded = 'a folded cell'
            """),
        _code("kappa.head(3)", [_result({'text/html': kappa.head(3)._repr_html_(), 'text/plain': repr(kappa.head(3))})]),
        _code("line", [_result({'image/svg+xml': svg, 'text/plain': 'alt.Chart(...)'})]),
        _md("An interactive chart, with altair's default (CDN) renderer:"),
        _code("line.mark_point().interactive()", [_result({'text/html': cdn_html, 'text/plain': 'alt.Chart(...)'})]),
        _code("line.mark_bar()  # mimetype renderer", [_result(mime)]),
    ])

    slider = widgets.FloatSlider(value=0.3, min=0, max=1, step=0.1, description=r'$\lambda$')
    text = widgets.FloatText()
    link = widgets.jslink((slider, 'value'), (text, 'value'))
    note = widgets.HTML('<b>saved state works</b>')
    box = widgets.VBox([slider, text, note])
    drop = widgets.Dropdown(options=['knn', 'tree', 'svm'], value='tree', description='model')
    # the full state, as nbconvert's store_widget_state saves it (html-manager's defaults differ from Python's:
    # FloatSlider's JS step is 1, so a dropped step=0.1 would round 0.3 to 0); jslink is no view's dependency
    state = embed_data(views=[box, drop], drop_defaults=False)['manager_state']
    state['state'][link.model_id] = link._get_embed_state(drop_defaults=False)
    def view(w):
        return _result({'application/vnd.jupyter.widget-view+json': {'version_major': 2, 'version_minor': 0,
                        'model_id': w.model_id}, 'text/plain': repr(w)[:80]})
    widget_nb = _nb([
        _md("""
            # Widgets

            > Saved widget state.
            """),
        _code("import ipywidgets as widgets"),
        _md("A slider linked to a text box, with a math label:"),
        _code("""
            s = widgets.FloatSlider(value=0.3, min=0, max=1, step=0.1, description=r'$\\lambda$')
            t = widgets.FloatText()
            widgets.jslink((s, 'value'), (t, 'value'))
            widgets.VBox([s, t, widgets.HTML('<b>saved state works</b>')])
            """, [view(box)]),
        _code("widgets.Dropdown(options=['knn', 'tree', 'svm'], value='tree', description='model')", [view(drop)]),
    ], metadata={'widgets': {'application/vnd.jupyter.widget-state+json': state}})
    for w in (slider, text, link, note, box, drop): w.close()

    howto = _nb([_md("""
        # How-to

        > A page in a sub-folder.
        """), _md("Back to the [core module](../00_core.ipynb#adding-noise).")])

    for name, nb in [('index', index), ('00_core', core), ('01_widgets', widget_nb), ('guides/01_howto', howto)]:
        nbformat.write(nb, dest/'nbs'/f'{name}.ipynb')
    return dict(
        root=str(dest), title='Docs demo',
        pages=['index.html', 'core.html', 'widgets.html', 'guides/howto.html'],
        sidebar=['Core', 'Widgets', 'How-to'],
        anchors={'core.html': ['add_noise', 'curve', 'curve.area']},
        charts={'core.html': dict(vega=2, svg=1)},
        widgets={'widgets.html': 2},
        readme_lines=['A tiny project to test the docs build.', 'Install', 'pip install docsdemo'],
    )
