"""The instance-space explorer at 20 000 instances: in the kernel (every colour, the box plots, the selection) and in
JupyterLab (Playwright + Chromium), as test_explore_browser.py at 150.

Above 5 000 instances the chart is a 60 × 45 grid of mean colours (or a stratified sample for the class colour): the
test checks that the widget renders with no error, that colouring by class switches to the sample, that moving the
z₁ selection updates the summary and the box plots, and that `explorer.selected` in the kernel has the rows the
summary reports. The instance space is computed once, in this process; the notebook loads it (pickle). The browser
test skips when Chromium or Playwright is absent (and fails in CI).
"""
import json, os, pickle, re, subprocess, sys, time, urllib.request
import numpy as np, pandas as pd
from pathlib import Path
import pytest
from test_explore_browser import CHROMIUM, _HAS_TITLE, _summary, jupyter_lab, open_notebook

REPO = Path(__file__).resolve().parents[1]
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason='chromium not installed (apt-get install chromium); CI installs it')
N = 20_000
CELLS = [
    "import altair as alt, pickle\nalt.renderers.enable('svg')\nfrom robustdiff.explore import explore\n"
    "space = pickle.load(open('space.pkl', 'rb'))   # the test's instance space of the 20 000 instances\n"
    "explorer = explore(space, color='IH', footprint='good')\nexplorer",
    f"print('SELECTED', len(explorer.selected), 'OF', len(explorer.df))",
]


def _big(n=N, seed=0):
    from sklearn.datasets import make_classification
    from robustdiff.data import Dataset
    X, y = make_classification(n, n_features=6, n_informative=4, n_redundant=0, flip_y=0.05, random_state=seed)
    return Dataset('big', pd.DataFrame(X, columns=[f'f{i}' for i in range(6)]), np.array(['a', 'b'])[y])


@pytest.fixture(scope='module')
def space():
    "The instance space of the 20 000 instances, computed once: the kernel-side test reads it, the notebook loads it."
    from robustdiff.isa import instance_space
    return instance_space(_big(), models='quick', n_features=6, random_state=0, n_jobs=2)


@pytest.fixture(scope='module')
def lab(tmp_path_factory, space):
    pytest.importorskip('playwright.sync_api', reason='playwright not installed (pip install playwright)')
    root = tmp_path_factory.mktemp('lab')
    (root/'space.pkl').write_bytes(pickle.dumps(space))
    yield from jupyter_lab(root, CELLS, 'large.ipynb', 'explorer-large-test')


@needs_chromium
def test_explorer_20000_in_jupyterlab(lab, tmp_path):
    from playwright.sync_api import sync_playwright
    url, token = lab
    shots = Path(os.environ.get('ISA_SCREENSHOTS', tmp_path)); shots.mkdir(parents=True, exist_ok=True)
    errors = []
    with sync_playwright() as p:
        browser, page = open_notebook(p, url, token, 'large.ipynb', errors)
        try:
            page.locator('.jp-Cell').first.click()
            page.keyboard.press('Shift+Enter')
            page.wait_for_selector('.jp-OutputArea .widget-dropdown select', timeout=600_000)
            page.wait_for_function(_HAS_TITLE % 'grid; colour: mean IH per cell', timeout=120_000)
        except Exception:
            page.screenshot(path=str(shots/'explorer_large_failed.png'), full_page=True); raise
        assert _summary(page) == (N, N)
        body = page.inner_text('body')
        assert 'Traceback' not in body and 'MaxRowsError' not in body
        page.screenshot(path=str(shots/'explorer_large_before.png'), full_page=True)
        page.locator('.jp-OutputArea .widget-dropdown select').first.select_option('class')
        page.wait_for_function(_HAS_TITLE % 'stratified random sample of 5,000 of 20,000', timeout=120_000)
        handle = page.locator('.jp-OutputArea .widget-hslider').filter(has_text='select z₁').locator('.noUi-handle').first
        handle.focus()
        for _ in range(80): page.keyboard.press('ArrowRight')
        page.wait_for_function(f"() => !/\\b{N} of {N} instances/.test(document.body.innerText)", timeout=120_000)
        time.sleep(2)
        n_sel, _ = _summary(page)
        assert 0 < n_sel < N
        assert 'Traceback' not in page.inner_text('body')
        page.screenshot(path=str(shots/'explorer_large_after.png'), full_page=True)
        page.locator('.jp-Cell').nth(1).click()
        page.keyboard.press('Shift+Enter')
        page.wait_for_function(f"() => /SELECTED \\d+ OF {N}/.test(document.body.innerText)", timeout=120_000)
        # the kernel handles the slider's updates before this cell: the summary now shows the final selection
        n_final, _ = _summary(page)
        assert 0 < n_final < N
        assert int(re.search(rf'SELECTED (\d+) OF {N}', page.inner_text('body')).group(1)) == n_final
        browser.close()
    assert not errors, errors



def test_explorer_20000_instances(space):
    pytest.importorskip('ipywidgets')
    import vl_convert as vlc
    from robustdiff.explore import explore
    ex = explore(space, color='IH', footprint='good')
    assert len(ex.df) == 20_000 and len(ex.selected) == 20_000
    for color in ('IH', 'class', 'IRT difficulty', 'x_f0'):
        ex.color.value = color
        spec = ex.chart().to_dict()
        svg = vlc.vegalite_to_svg(spec)
        assert len(svg) <= 2_000_000, (color, len(svg))
        sub = spec['title']['subtitle']
        assert ('stratified random sample of 5,000 of 20,000' in sub) if color == 'class' else ('60 × 45 grid' in sub), sub
    ex.z1.value = (ex.z1.min, float(space.coords.z1.median()))
    sel = ex.selected
    assert 0 < len(sel) < 20_000 and (sel.z1 <= ex.z1.value[1] + 1e-9).all()
    for by in ('selected measures', 'all measures', 'log-losses'):
        ex.dist_by.value = by
        d = ex.distribution_chart()
        assert len(vlc.vegalite_to_svg(d.to_dict())) <= 2_000_000
    assert 'instances selected' in ex.info.value
