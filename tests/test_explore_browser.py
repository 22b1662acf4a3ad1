"""The instance-space explorer in a real browser: Playwright drives Chromium against a JupyterLab server.

A notebook that builds a small instance space (moons, the `quick` pool, the real hardness measures) and shows
`explore(space)` is opened in JupyterLab and run. The test then checks that the widget rendered (controls, the SVG
chart, the selection summary), changes the colour (dropdown) and the selection (keyboard on the z₁ range slider's
lower handle), checks the chart and the summary follow, and re-runs a cell that reads `explorer.selected` in the
kernel to check the exported DataFrame has exactly the rows the summary reports. Screenshots before and after are
written to $ISA_SCREENSHOTS (default: the pytest tmp dir).

Skips with a reason when Chromium (/usr/bin/chromium, `apt-get install chromium`) or Playwright is absent.
"""
import json, os, re, shutil, socket, subprocess, sys, time
from pathlib import Path
import pytest

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which('chromium') or ('/usr/bin/chromium' if Path('/usr/bin/chromium').exists() else None)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason='chromium not installed (apt-get install chromium); CI installs it')

CELLS = [
    "import altair as alt\nalt.renderers.enable('svg')\nfrom robustdiff.datasets import make_synthetic\n"
    "from robustdiff.isa import instance_space\nfrom robustdiff.explore import explore\n"
    "ds = make_synthetic('moons', 150, noise=0.35, random_state=0)\n"
    "space = instance_space(ds, models='quick', n_features=6, random_state=0)\n"
    "explorer = explore(space, color='IH', footprint='good')\nexplorer",
    "print('SELECTED', len(explorer.selected), 'OF', len(explorer.df))",
]


def _free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0)); return s.getsockname()[1]


def jupyter_lab(root:Path, cells:list, name:str, token:str):
    "A JupyterLab server on 127.0.0.1 serving one notebook made of `cells` (in `root`): yields (url, token), then stops it."
    nb = {'cells': [{'cell_type': 'code', 'metadata': {}, 'source': c, 'outputs': [], 'execution_count': None} for c in cells],
          'metadata': {'kernelspec': {'name': 'python3', 'display_name': 'Python 3', 'language': 'python'}},
          'nbformat': 4, 'nbformat_minor': 5}
    (root/name).write_text(json.dumps(nb))
    port = _free_port()
    env = {**os.environ, 'PYTHONPATH': str(REPO), 'JUPYTER_CONFIG_DIR': str(root/'.jupyter'),
           'JUPYTERLAB_WORKSPACES_DIR': str(root/'.ws'), 'OMP_NUM_THREADS': '1'}
    proc = subprocess.Popen([sys.executable, '-m', 'jupyter', 'lab', '--allow-root', '--no-browser', f'--port={port}',
                             '--ip=127.0.0.1', f'--ServerApp.token={token}', f'--ServerApp.root_dir={root}',
                             '--LabApp.news_url=', '--ServerApp.open_browser=False'],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f'http://127.0.0.1:{port}'
    import urllib.request
    for _ in range(240):
        try:
            urllib.request.urlopen(f'{url}/api/status?token={token}', timeout=2); break
        except Exception: time.sleep(0.5)
    else:
        proc.kill(); pytest.fail('JupyterLab did not start: ' + (proc.stdout.read() if proc.stdout else ''))
    yield url, token
    proc.terminate()
    try: proc.wait(20)
    except subprocess.TimeoutExpired: proc.kill()


@pytest.fixture(scope='module')
def lab(tmp_path_factory):
    pytest.importorskip('playwright.sync_api', reason='playwright not installed (pip install playwright)')
    yield from jupyter_lab(tmp_path_factory.mktemp('lab'), CELLS, 'explorer.ipynb', 'isa-explorer-test')


def open_notebook(p, url:str, token:str, name:str, errors:list):
    "Chromium (Playwright `p`) on the JupyterLab notebook `name`, its kernel idle: (browser, page); page errors go to `errors`."
    browser = p.chromium.launch(executable_path=CHROMIUM, args=['--headless', '--no-sandbox', '--disable-gpu',
                                '--disable-background-networking', '--no-first-run'])
    page = browser.new_page(viewport={'width': 1500, 'height': 1100})
    page.on('pageerror', lambda e: errors.append(str(e)))
    page.goto(f'{url}/lab/tree/{name}?token={token}', timeout=120_000)
    page.wait_for_selector('.jp-NotebookPanel .jp-Cell', timeout=120_000)
    page.wait_for_function("() => /\\| Idle/.test(document.body.innerText)", timeout=120_000)   # kernel started
    return browser, page


_HAS_TITLE = ("() => [...document.querySelectorAll('.jp-OutputArea img, .jp-OutputArea svg')].some(e => "
              "(e.tagName === 'IMG' ? decodeURIComponent(e.src.startsWith('data:image/svg+xml;base64,') ? "
              "atob(e.src.split(',')[1]) : e.src) : e.textContent).includes('%s'))")


def _summary(page):
    txt = page.locator('.jp-OutputArea .widget-html-content').filter(has_text='instances selected').first.inner_text()
    m = re.search(r'(\d+) of (\d+) instances selected', txt)
    return int(m.group(1)), int(m.group(2))


def _settled(page, quiet=2.0, timeout=60.0):
    "The selected count once it has not changed for `quiet` seconds (each key press is a round trip to the kernel)."
    t0 = time.time(); last, since = _summary(page)[0], time.time()
    while time.time() - t0 < timeout:
        time.sleep(0.25); now = _summary(page)[0]
        if now != last: last, since = now, time.time()
        elif time.time() - since >= quiet: return last
    raise AssertionError(f'the selection kept changing for {timeout:.0f} s')


def test_explorer_in_jupyterlab(lab, tmp_path):
    from playwright.sync_api import sync_playwright
    url, token = lab
    shots = Path(os.environ.get('ISA_SCREENSHOTS', tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    errors = []
    with sync_playwright() as p:
        browser, page = open_notebook(p, url, token, 'explorer.ipynb', errors)
        try:
            page.locator('.jp-Cell').first.click()
            page.keyboard.press('Shift+Enter')                     # run the explorer cell
            page.wait_for_selector('.jp-OutputArea .widget-dropdown select', timeout=240_000)
        except Exception:
            page.screenshot(path=str(shots / 'isa_explorer_failed.png'), full_page=True); raise
        # JupyterLab shows image/svg+xml outputs as <img> with a data URL: read the chart title from it
        page.wait_for_function(_HAS_TITLE % 'coloured by IH', timeout=60_000)
        n_sel, n_all = _summary(page)
        assert (n_sel, n_all) == (150, 150)
        page.screenshot(path=str(shots / 'isa_explorer_before.png'), full_page=True)

        # colour by class
        page.locator('.jp-OutputArea .widget-dropdown select').first.select_option('class')
        page.wait_for_function(_HAS_TITLE % 'coloured by class', timeout=60_000)
        # selection: move the lower handle of the z1 range slider right with the keyboard
        handle = page.locator('.jp-OutputArea .widget-hslider').filter(has_text='select z₁').locator('.noUi-handle').first
        handle.focus()
        for _ in range(80): page.keyboard.press('ArrowRight')
        page.wait_for_function("() => !/\\b150 of 150 instances/.test(document.body.innerText)", timeout=60_000)
        n_sel = _settled(page)                                     # the key presses reach the kernel one by one
        assert 0 < n_sel < 150
        page.screenshot(path=str(shots / 'isa_explorer_after.png'), full_page=True)

        # the kernel's explorer.selected holds the same rows
        page.locator('.jp-Cell').nth(1).click()
        page.keyboard.press('Shift+Enter')
        page.wait_for_function("() => /SELECTED \\d+ OF 150/.test(document.body.innerText)", timeout=60_000)
        m = re.search(r'SELECTED (\d+) OF 150', page.inner_text('body'))
        assert int(m.group(1)) == n_sel
        browser.close()
    assert not errors, errors
