"""The documentation website (tools/build_docs.py): built offline, self-contained, checked statically and in Chromium.

Two sites are built into temporary folders, once per test session:
- `demo`: tools/docs/demo_project.py's tiny project, which has one of everything (show_doc, math, an SVG chart,
  a CDN-renderer chart, a vega-lite mimebundle, saved widget state, a DataFrame, a sub-folder, a hidden cell...),
  so the site's features are checked whatever the real notebooks hold today;
- `repo`: this repository's own notebooks (every page there is, however many notebooks exist).
Browser tests drive Debian's Chromium through Playwright (tools/browser_check.py). Without Chromium they are
skipped on a developer's machine and fail in CI (CI=true): .ci/run installs it.
A deliberately broken copy of the demo site (a CDN script, a raw `$…$`, a visible `#|`, a missing library,
a missing anchor, lost widget state) must be flagged by both checkers.
"""
import ast, json, os, re, shutil, subprocess, sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO/'tools'), str(REPO/'tools'/'docs')]
import build_docs, browser_check                      # noqa: E402
from demo_project import make_demo_project           # noqa: E402

NPM_CACHE = REPO/'.cache'/'docs-npm'                # npm tarballs, shared by every build (git-ignored)


def _need_browser():
    if browser_check.chromium_path() is None:
        if os.environ.get('CI'): pytest.fail('Chromium is missing: .ci/run must apt-get install chromium')
        pytest.skip('no Chromium (apt-get install chromium)')


def _vendor_cached() -> bool:
    "Every pinned npm tarball is in .cache/docs-npm with its pinned integrity (the build then needs no network)."
    for name, spec in build_docs.VENDOR.items():
        tgz = NPM_CACHE/(name.lstrip('@').replace('/', '-') + f"-{spec['version']}.tgz")
        if not tgz.exists() or build_docs._sri(tgz) != spec['integrity']: return False
    return True


def _need_npm():
    "Skip (with the reason) when the browser libraries are neither cached nor fetchable: offline, or no npm."
    if _vendor_cached(): return
    npm = shutil.which('npm')
    if npm is None: pytest.skip(f'{NPM_CACHE} lacks the pinned browser libraries and npm is not installed')
    try: ok = subprocess.run([npm, 'ping'], capture_output=True, timeout=30).returncode == 0
    except subprocess.TimeoutExpired: ok = False
    if not ok: pytest.skip(f'the npm registry is unreachable (npm ping failed) and {NPM_CACHE} lacks the pinned '
                           f'browser libraries: run once online to fill the cache')


def _build(root, out=None, force=False) -> dict:
    """Build a site in a subprocess (nbdev re-runs notebook cells while processing them: keep their side effects,
    e.g. altair's renderer or pandas options, out of this test process). Returns the build summary."""
    _need_npm()
    summary = Path(out or root).parent/'summary.json'
    cmd = [sys.executable, str(REPO/'tools'/'build_docs.py'), '--root', str(root), '--vendor-cache', str(NPM_CACHE),
           '--summary', str(summary)] + (['--out', str(out)] if out else []) + (['--force'] if force else [])
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return json.loads(summary.read_text())


@pytest.fixture(scope='session')
def demo(tmp_path_factory):
    root = tmp_path_factory.mktemp('docsdemo')/'proj'
    facts = make_demo_project(root)
    summary = _build(root)
    return dict(facts, site=Path(summary['out']), summary=summary)


@pytest.fixture(scope='session')
def repo_site(tmp_path_factory):
    out = tmp_path_factory.mktemp('repo-docs')/'site'
    summary = _build(REPO, out=out, force=True)      # force: nbdev re-processes (and reports) every notebook
    return dict(site=out, summary=summary)


def _html(site, page): return (Path(site)/page).read_text(encoding='utf-8')


def _text(html):
    from bs4 import BeautifulSoup
    soup = BeautifulSoup(html, 'html.parser')
    main = soup.select_one('article[role="main"]') or soup
    return ' '.join(main.get_text(' ').split())


def modidx_anchors(root=REPO, private=False) -> dict:
    "page → {symbol: anchor} for the public (or all) symbols of `_modidx.py` (what nbdev's doc links point at)."
    from configparser import ConfigParser
    cp = ConfigParser(delimiters=['='])
    cp.read(root/'settings.ini')
    lib = cp['DEFAULT']['lib_path']
    src = (root/lib/'_modidx.py').read_text()
    d = ast.literal_eval(src[src.index('{'):])
    out = {}
    for mod, syms in d['syms'].items():
        for sym, (url, _) in syms.items():
            name = sym[len(mod) + 1:]
            if not private and any(p.startswith('_') for p in name.split('.')): continue   # private: not documented
            page, _, anchor = url.partition('#')
            out.setdefault(page, {})[name] = anchor
    return out


def _showdoc_names(html) -> set:
    "Names that show_doc rendered on a page (the heading of each show_doc block)."
    from bs4 import BeautifulSoup
    soup = BeautifulSoup(html, 'html.parser')
    return {h.get_text(' ', strip=True).rstrip('¶#').strip()
            for cell in soup.select('div.tag_nbdev-showdoc') for h in cell.select('h1,h2,h3,h4,h5,h6,p.rubric')[:1]}


def _ids(html): return set(re.findall(r'\bid="([^"]+)"', html))


def check_links(site, symbol_anchors=()) -> list:
    """Relative links between pages: the page exists and so does its #anchor. nbdev links every backticked symbol
    of `_modidx.py`, also those no show_doc documents (methods, private helpers): on Quarto's site too they land
    at the page's top, so `symbol_anchors` (page#anchor) are not required here (test_repo_showdoc_anchors
    checks the documented ones)."""
    from bs4 import BeautifulSoup
    site, bad, ids = Path(site), [], {}
    for f in sorted(site.rglob('*.html')):
        if '_static' in f.parts: continue
        for a in BeautifulSoup(f.read_text(encoding='utf-8'), 'html.parser').find_all('a', href=True):
            href = a['href']
            if re.match(r'^[a-z]+:|^//', href) or href.startswith('#') and len(href) == 1: continue
            path, _, frag = href.partition('#')
            target = (f.parent/path).resolve() if path else f
            if path and not target.exists(): bad.append(f'{f.relative_to(site)}: link to missing {href}'); continue
            if frag and target.suffix == '.html':
                if target not in ids: ids[target] = _ids(target.read_text(encoding='utf-8'))
                if frag not in ids[target] and f'{target.relative_to(site).as_posix()}#{frag}' not in symbol_anchors:
                    bad.append(f'{f.relative_to(site)}: link to missing anchor {href}')
    return bad


# ------------------------------------------------------------------ static checks of the demo site

def test_demo_pages_titles_sidebar(demo):
    site = demo['site']
    for page in demo['pages']: assert (site/page).exists(), page
    index = _html(site, 'index.html')
    assert f'<title>{demo["title"]}' in index, 'title from _quarto.yml website.title'
    nav = re.search(r'<div class="sidebar-tree">(.*?)</div>', index, re.S).group(1)
    order = [re.sub(r'<[^>]+>', '', m).strip() for m in re.findall(r'<a class="reference internal"[^>]*>(.*?)</a>', nav)]
    assert order == demo['sidebar'], order
    assert 'GUIDES' in nav.upper(), 'sub-folder notebooks form a sidebar section'


def test_demo_cells(demo):
    core = _html(demo['site'], 'core.html')
    text = _text(core)
    assert 'SOURCE-HIDDEN-CELL' not in core and 'output of a cell whose source is hidden' in text   # echo: false
    assert '#|' not in text and 'default_exp' not in text and 'from nbdev.showdoc' not in text    # hidden/export cells
    assert 'admonition note' in core                                                            # Quarto callout
    assert 'tag_hide-input' in core                                                             # code-fold: true
    assert 'class="dataframe"' in core
    assert core.count('class="math notranslate nohighlight"') >= 2
    assert 'docsdemo_hidden_import' not in _html(demo['site'], 'index.html')                    # #| hide


def test_demo_showdoc_anchors(demo):
    for page, anchors in demo['anchors'].items():
        html = _html(demo['site'], page)
        assert set(anchors) <= _ids(html), set(anchors) - _ids(html)
        assert {'add_noise', 'Curve', 'Curve.area'} <= _showdoc_names(html)


def test_demo_local_libraries(demo):
    site = demo['site']
    core = _html(site, 'core.html')
    assert 'cdn.jsdelivr.net' not in core and '_static/vendor/vega-embed/vega-embed.min.js' in core
    widgets = _html(site, 'widgets.html')
    assert '_static/vendor/html-manager/embed.js' in widgets and 'require.min.js' not in widgets
    assert 'application/vnd.jupyter.widget-state+json' in widgets
    for f in ('vega/vega.min.js', 'vega-lite/vega-lite.min.js', 'vega-embed/vega-embed.min.js',
              'mathjax/tex-mml-chtml.js', 'mathjax/output/chtml/fonts/woff-v2', 'html-manager/embed.js'):
        assert (site/'_static'/'vendor'/f).exists(), f
    assert build_docs.check_site(site) == []
    assert check_links(site) == []


def test_links_between_pages(demo):
    howto = _html(demo['site'], 'guides/howto.html')
    assert 'href="../core.html#adding-noise"' in howto        # ../00_core.ipynb#adding-noise → page URL
    index = _html(demo['site'], 'index.html')
    assert 'href="core.html"' in index


def test_static_checker_flags_external_resources():
    ok = '<html><body><a href="https://example.org">a link is fine</a><script src="_static/x.js"></script></body></html>'
    assert build_docs.check_html(ok) == []
    for bad in ['<script src="https://cdn.jsdelivr.net/npm/vega@6"></script>',
                '<link rel="stylesheet" href="https://fonts.googleapis.com/css?family=Roboto">',
                '<img src="//example.org/x.png">',
                '<style>@import url("https://fonts.googleapis.com/css2");</style>',
                '<script>var paths = {"vega": "https://cdn.jsdelivr.net/npm/vega@5?noext"};</script>']:
        assert build_docs.check_html(bad), bad


def test_notebook_conversion_helpers():
    opts, body = build_docs._split_directives('#| echo: false\n#|output: asis\n\nx = 1\n#| not a directive here')
    assert opts == {'echo': 'false', 'output': 'asis'} and body.startswith('x = 1')
    assert build_docs._page_name('00_data.ipynb', {}) == 'data'
    assert build_docs._page_name('sub/01_how_to.ipynb', {'output-file': 'how_to.html'}) == 'sub/how_to'
    html = '<script>const paths = {"vega": "https://cdn.jsdelivr.net/npm/vega@6?noext", "vega-lite": ' \
           '"https://cdn.jsdelivr.net/npm/vega-lite@6.4.1?noext", "vega-embed": "https://cdn.jsdelivr.net/npm/vega-embed@7?noext"};</script>'
    out = build_docs.rewrite_vega_cdn(html, 'sub/page')
    assert 'jsdelivr' not in out
    assert '"../_static/vendor/vega/vega.min.js"' in out and '"../_static/vendor/vega-lite/vega-lite.min.js"' in out


# ------------------------------------------------------------------ static checks of this repository's site

def test_repo_site_builds(repo_site):
    site, s = repo_site['site'], repo_site['summary']
    nbs = sorted(p for p in (REPO/'nbs').rglob('*.ipynb') if not any(x.startswith(('.', '_')) for x in p.relative_to(REPO/'nbs').parts))
    assert len(s['pages']) == len(nbs), (s['pages'], nbs)
    for page in s['pages']: assert (site/f'{page}.html').exists(), page
    assert build_docs.check_site(site) == []
    assert check_links(site) == []      # nbdev's links to undocumented names were re-pointed or unlinked by the build


def test_repo_nbdev_can_process_every_notebook(repo_site):
    """What nbdev_docs (Quarto) would also need: nbdev re-runs the import/export/show_doc cells of each notebook,
    and stops at the first that fails (a cell mixing an import with code that uses earlier cells, or a
    signature show_doc cannot render)."""
    assert repo_site['summary']['nbdev_errors'] == []


def test_repo_showdoc_anchors(repo_site):
    """Every public symbol in _modidx.py that nbdev documents has its anchor (`data.html#load_sklearn`): top-level
    functions and classes always (nbdev adds show_doc for them), methods when a show_doc shows them."""
    site, missing = repo_site['site'], []
    for page, syms in modidx_anchors().items():
        if not (site/page).exists():
            missing.append(f'{page}: page missing for {sorted(syms)[:3]}'); continue
        html = _html(site, page)
        ids, shown = _ids(html), _showdoc_names(html)
        for name, anchor in syms.items():
            if ('.' not in name or name in shown) and anchor not in ids: missing.append(f'{page}#{anchor}')
    assert not missing, missing


def test_repo_index_is_the_readme(repo_site):
    "The index page shows the README's content (both come from nbs/index.ipynb)."
    text = _text(_html(repo_site['site'], 'index.html'))
    readme = (REPO/'README.md').read_text()
    pieces = [l.lstrip('#> ').strip() for l in readme.splitlines() if re.match(r'^(#+ |> )', l)]
    pieces = [re.sub(r'[`*_]', '', p) for p in pieces]
    missing = [p for p in pieces if ' '.join(p.split()) not in re.sub(r'[`*_]', '', text)]
    assert pieces and not missing, missing


def test_quarto_config_still_serves_nbdev_docs(tmp_path):
    """Where Quarto is installed, `nbdev_docs` renders from the same config: nbs/_quarto.yml is the top-level file,
    nbdev keeps it (it only writes one if there is none), writes the nbdev.yml/sidebar.yml it lists (git-ignored
    here), and the CSS it names exists."""
    import subprocess, yaml
    from nbdev.quarto import refresh_quarto_yml, nbdev_sidebar
    link = REPO/'nbs'/'_quarto.yml'
    assert link.is_symlink() and link.resolve() == (REPO/'_quarto.yml').resolve()
    q = yaml.safe_load((REPO/'_quarto.yml').read_text())
    assert q['project']['type'] == 'website' and set(q['metadata-files']) == {'nbdev.yml', 'sidebar.yml'}
    assert (REPO/'nbs'/q['format']['html']['css']).exists()
    # nbdev's own steps of nbdev_docs, on a copy of the configuration and notebooks
    proj = tmp_path/'proj'
    (proj/'nbs').mkdir(parents=True)
    for f in ('settings.ini', '_quarto.yml'): shutil.copy(REPO/f, proj/f)
    os.symlink('../_quarto.yml', proj/'nbs'/'_quarto.yml')
    for nb in (REPO/'nbs').glob('*.ipynb'): shutil.copy(nb, proj/'nbs'/nb.name)
    with build_docs._cwd(proj):
        refresh_quarto_yml()
        nbdev_sidebar.__wrapped__()
    assert (proj/'nbs'/'_quarto.yml').is_symlink() and (proj/'_quarto.yml').read_text() == (REPO/'_quarto.yml').read_text()
    nbdev_yml = yaml.safe_load((proj/'nbs'/'nbdev.yml').read_text())
    assert nbdev_yml['project']['output-dir'] == '_docs' and nbdev_yml['website']['title'] == 'robustdiff'
    contents = yaml.safe_load((proj/'nbs'/'sidebar.yml').read_text())['website']['sidebar']['contents']
    assert contents[0] == 'index.ipynb' and contents[1:] == sorted(contents[1:])
    ignored = subprocess.run(['git', 'check-ignore', 'nbs/nbdev.yml', 'nbs/sidebar.yml', '_docs', '_proc',
                              '.cache/docs-npm'], cwd=REPO, capture_output=True, text=True).stdout.split()
    assert ignored == ['nbs/nbdev.yml', 'nbs/sidebar.yml', '_docs', '_proc', '.cache/docs-npm']


# ------------------------------------------------------------------ in Chromium

def test_demo_site_in_browser(demo):
    _need_browser()
    rep = browser_check.check_site(demo['site'], expected_ids=demo['anchors'], search_term='noise')
    assert rep['problems'] == [] and rep['external'] == [], rep['problems']
    pages = rep['pages']
    assert set(demo['pages']) <= set(pages)
    core = pages['core.html']['facts']
    assert core['chartsRendered'] == demo['charts']['core.html']['vega']
    assert core['svgImages'] == demo['charts']['core.html']['svg']
    assert core['mjx'] >= 3 and not core['mathUntypeset']
    w = pages['widgets.html']['facts']
    assert w['widgetViews'] == w['widgetSubareas'] == demo['widgets']['widgets.html']
    assert '0.30' in w['widgetFacts']['readouts'] and 'tree' in w['widgetFacts']['selects']
    assert any('saved state works' in t for t in w['widgetFacts']['texts'])
    assert w['mjx'] >= 1, 'the slider label $\\lambda$ is typeset through the MathJax-2 shim'
    assert rep['search']['results'] >= 1


def test_repo_site_in_browser(repo_site):
    "Every page of this repository's site: no error, no external request, charts, widgets and math rendered."
    _need_browser()
    site = repo_site['site']
    expected = {}
    for page, syms in modidx_anchors().items():
        if (site/page).exists():
            shown = _showdoc_names(_html(site, page))
            expected[page] = [a for n, a in syms.items() if '.' not in n or n in shown]
    rep = browser_check.check_site(site, expected_ids=expected, search_term='robustdiff')
    assert set(browser_check.site_pages(site)) == set(rep['pages'])
    assert rep['problems'] == [] and rep['external'] == [], '\n'.join(rep['problems'])


def _break_site(site, dest):
    "A copy of the demo site with one breakage per page (see test_broken_site_is_flagged)."
    shutil.copytree(site, dest)
    core = dest/'core.html'
    html = core.read_text()
    html = html.replace('</head>', '<script src="https://cdn.jsdelivr.net/npm/vega@6"></script></head>', 1)  # CDN left in
    html = html.replace('id="curve.area"', 'id="curve-area-renamed"')                                          # anchor lost
    core.write_text(html)
    index = dest/'index.html'
    html = index.read_text()
    html = html.replace('<h2>Install', '<p>#| echo: false</p><p>raw math $x^2$ left</p><h2>Install', 1)  # visible directive, raw math
    index.write_text(html)
    widgets = dest/'widgets.html'
    html = widgets.read_text()
    html = re.sub(r'<script type="application/vnd.jupyter.widget-state\+json">.*?</script>', '', html, flags=re.S)  # state lost
    widgets.write_text(html)
    (dest/'_static'/'vendor'/'vega-lite'/'vega-lite.min.js').unlink()                                       # library missing
    return dest


def test_broken_site_is_flagged(demo, tmp_path):
    "The deliberate-breakage proof: each breakage of a copy of the demo site is reported."
    broken = _break_site(demo['site'], tmp_path/'broken')
    static = build_docs.check_site(broken)
    assert any('cdn.jsdelivr.net/npm/vega@6' in p for p in static), static
    _need_browser()
    rep = browser_check.check_site(broken, pages=['core.html', 'index.html', 'widgets.html'], expected_ids=demo['anchors'],
                                   limit_ms=3000)
    probs = rep['pages']
    assert rep['external'] == ['https://cdn.jsdelivr.net/npm/vega@6']
    core = ' | '.join(probs['core.html']['problems'])
    assert 'external request blocked: https://cdn.jsdelivr.net/npm/vega@6' in core
    assert 'vega-lite.min.js' in core and 'HTTP 404' in core                   # the missing library
    assert 'charts did not render' in core
    assert "show_doc anchors missing: ['curve.area']" in core
    index = ' | '.join(probs['index.html']['problems'])
    assert '`#|` directive is visible' in index and 'raw math' in index
    assert 'widget views did not render' in ' | '.join(probs['widgets.html']['problems'])


# ------------------------------------------------------------------ what a reader trips over: small bad pages

_PAGE = '''<!doctype html><html><head><meta charset="utf-8"><title>{name}</title>
<style>body {{ margin: 0; }} article {{ width: 600px; margin: 0 auto; }}
.output.text_html {{ overflow-x: auto; }}</style></head>
<body><article role="main"><h1 id="top">{name}</h1>{body}</article></body></html>'''

# one page per defect class (and the words the check must report for it); `good.html` has none but looks like
# the real pages: code with `n_jobs`, a scrolling wide table, a dunder and a public method in the API, links
_GOOD = '''<p>Each call takes <code>n_jobs</code> and <code>random_state</code>; tissue samples; the paper's
<a href="#top">first section</a> and <a href="other.html#part-2">another page</a>.</p>
<div class="cell tag_nbdev-showdoc"><div class="cell_output"><div class="output text_markdown">
<h3>Report.save</h3><p>Report.save (path:str, overwrite:bool=False)</p></div></div></div>
<div class="cell tag_nbdev-showdoc"><div class="cell_output"><div class="output text_markdown">
<h3>Curve.__call__</h3><p>Curve.__call__ (x:float|None=None)</p></div></div></div>
<div class="cell_output"><div class="output text_html"><table class="dataframe" style="width: 2000px">
<tr><td>a wide table scrolls in its own box</td></tr></table></div></div>
<div class="cell_output"><div class="output stream highlight-myst-ansi"><pre>fitted 3 models</pre></div></div>'''

READER_DEFECTS = {
    'traceback.html': ('<div class="cell_output"><div class="output traceback highlight-ipythontb"><pre>'
                       'Traceback (most recent call last):\n  File "x.py", line 1\nMaxRowsError: too many rows</pre></div></div>',
                       'error output in a cell'),
    'error_text.html': ('<div class="cell_output"><div class="output text_plain"><pre>altair.utils.schemapi.SchemaValidationError: '
                        'bad spec</pre></div></div>', 'error output in a cell'),
    'anchor_here.html': ('<p>See <a href="#_plattsvmlabels"><code>_PlattSVMLabels</code></a>.</p>', 'broken anchor'),
    'anchor_other.html': ('<p>See <a href="other.html#footprints.contains">Footprints.contains</a>.</p>', 'broken anchor'),
    'anchor_page.html': ('<p>See <a href="missing.html">the explorer</a>.</p>', 'broken anchor'),
    'tex_sub.html': ('<p>The kappa loss κ(m, d, B_{i−1}, λ_j) of a model.</p>', 'raw TeX outside math'),
    'tex_var.html': ('<p>The paper keeps n_f = 10 features; RLA_x = (A_0 − A_x)/A_0.</p>', 'raw TeX outside math'),
    'tex_cmd.html': ('<p>The mean \\frac{1}{n} of the losses.</p>', 'raw TeX outside math'),
    'overflow.html': ('<div class="cell_output"><div class="output text_plain"><table class="dataframe" style="width: 2000px">'
                      '<tr><td>wide</td></tr></table></div></div>', 'page overflow'),
    'private.html': ('<div class="cell tag_nbdev-showdoc"><div class="cell_output"><div class="output text_markdown">'
                     '<h3>_report_save</h3><p>_report_save (self, path)</p></div></div></div>', 'private name in the API listing'),
    'nonetype.html': ('<div class="cell tag_nbdev-showdoc"><div class="cell_output"><div class="output text_markdown">'
                      '<h3>space_chart</h3><p>space_chart (space, color:NoneType=None)</p></div></div></div>',
                      'signature shows NoneType'),
    'factory.html': ('<div class="cell tag_nbdev-showdoc"><div class="cell_output"><div class="output text_markdown">'
                     '<h3>Stage</h3><p>Stage (name:str, tables:dict=&lt;factory&gt;)</p></div></div></div>',
                     'signature shows <factory>'),
    'history.html': ('<p>Since issue 9 the difficulty comes from a population.</p>', 'project history in the prose'),
    'history2.html': ('<p>Timed on the shared 2-core machine (load average 7).</p>', 'project history in the prose'),
    'history3.html': ('<p>The paper tables are in <code>PAPERS.md</code>.</p>', 'project history in the prose'),
    'history4.html': ('<p>An earlier version of this section used 2 repetitions.</p>', 'project history in the prose'),
}


def _reader_site(folder) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    pages = {'good.html': _GOOD, 'other.html': '<h2 id="part-2">Part 2</h2><p>Plain text.</p>',
             **{k: v for k, (v, _) in READER_DEFECTS.items()}}
    for name, body in pages.items(): (folder/name).write_text(_PAGE.format(name=name, body=body), encoding='utf-8')
    return folder


def test_reader_patterns_without_browser():
    "The text patterns behind the reader checks, with the false positives they must not raise."
    facts = lambda prose='', **kw: {**dict(prose=prose, outputs=[], apiNames=[], overflow={}), **kw}
    assert browser_check.reader_problems(facts('n_jobs, random_state, top-k, tissue, sklearn.metrics_x, issue a warning')) == []
    for prose in ('SSB_j', 'n_f = 10', 'B_{i−1}', 'x^2 + 1', '\\mathrm{MI}', 'Δ_easy', 'L_diff'):
        assert any(p.startswith('raw TeX') for p in browser_check.reader_problems(facts(prose))), prose
    for prose in ('issue 9', 'this session', 'load average 4', 'TOOLCHAIN.md', 'used to hold the charts'):
        assert any(p.startswith('project history') for p in browser_check.reader_problems(facts(prose))), prose
    assert browser_check._is_private('_report_save') and browser_check._is_private('Footprints._hull')
    assert not browser_check._is_private('Report.save') and not browser_check._is_private('Curve.__call__')
    out = lambda text, classes='output text_plain': facts(outputs=[dict(text=text, classes=classes)])
    assert browser_check.reader_problems(out('ValueError: x must be positive'))
    assert browser_check.reader_problems(out('', 'output traceback'))
    assert browser_check.reader_problems(out('Error rate 0.3; errors are rare')) == []
    links = [dict(href='http://h/a.html#x', raw='#x', text='x'), dict(href='http://h/b.html', raw='b.html', text='b')]
    assert browser_check.link_problems(links, 'http://h/a.html', 'http://h/', None, {'x'}) == []
    assert browser_check.link_problems(links, 'http://h/a.html', 'http://h/', None, set())[0].startswith('broken anchor')


def test_reader_checks_flag_small_bad_pages(tmp_path):
    "Each defect class a reader trips over fails the site check on a small page; a clean page passes."
    _need_browser()
    site = _reader_site(tmp_path/'site')
    rep = browser_check.check_site(site, limit_ms=1000)
    probs = {page: ' | '.join(r['problems']) for page, r in rep['pages'].items()}
    assert probs['good.html'] == '' and probs['other.html'] == '', probs
    for page, (_, what) in READER_DEFECTS.items():
        assert what in probs[page], (page, probs[page])
    assert 'MaxRowsError' in probs['traceback.html'] or 'Traceback' in probs['traceback.html']
    assert "['B_{i−1}', 'λ_j']" in probs['tex_sub.html']
    assert 'table.dataframe' in probs['overflow.html']


def test_signatures_and_symbol_links_cleaned(tmp_path):
    "show_doc signatures without `NoneType`/`<factory>`; nbdev links to undocumented names go to the class or unlink."
    sig = '```python\ndef f(\n    x:NoneType=None, # a thing\n    tags:dict=<factory>, y:list | None=<factory>, z:Foo=<factory>\n)->None:\n```'
    out = build_docs._clean_signature(sig)
    assert 'NoneType' not in out and '<factory>' not in out
    assert 'x=None, # a thing' in out and 'tags:dict=dict()' in out and 'y:list | None=list()' in out and 'z:Foo=…' in out
    (tmp_path/'a.html').write_text('<p id="footprints">F</p><p id="report.save">S</p>'
        '<a href="#_plattsvmlabels"><code>_PlattSVMLabels</code></a> <a href="#footprints.contains"><code>Footprints.contains</code></a>'
        '<a href="b.html#report.save"><code>Report.save</code></a><a href="#prose-link">prose</a>')
    (tmp_path/'b.html').write_text('<p id="report.save">x</p><a href="a.html#report.save"><code>Report.save</code></a>')
    assert build_docs.fix_symbol_links(tmp_path) == 2
    a = (tmp_path/'a.html').read_text()
    assert '<code>_PlattSVMLabels</code>' in a and 'href="#_plattsvmlabels"' not in a      # undocumented: plain code
    assert 'href="#footprints"' in a                                                      # method → its class
    assert 'href="b.html#report.save"' in a and 'href="#prose-link"' in a                  # good link, prose link kept


def test_resources_copied(tmp_path):
    "`_quarto.yml` project resources (the gallery's example report) are copied into the site as they are."
    (tmp_path/'nbs'/'examples').mkdir(parents=True)
    (tmp_path/'nbs'/'examples'/'report.html').write_text('<html>report</html>')
    out = tmp_path/'site'; out.mkdir()
    got = build_docs.copy_resources({'nbs_path': str(tmp_path/'nbs'), 'resources': ['examples/*.html']}, out)
    assert got == ['examples/report.html'] and (out/'examples'/'report.html').read_text() == '<html>report</html>'
