#!/usr/bin/env python
"""Check the built docs site in a real browser: Playwright for Python driving Debian's Chromium.

    python tools/browser_check.py [_docs]                     # check every page, print the report
    python tools/browser_check.py _docs --shot index.html=/tmp/index.png --shot irt.html=/tmp/w.png@.widget-subarea

The site is served from a thread on 127.0.0.1 (an ephemeral port). Every request that is not to that server
(or a data:/blob: URL) is recorded and aborted. On every page: no console error, no page error, no failed or
4xx/5xx local request; every chart rendered (`.vega-embed` → `svg.marks` or `canvas`; SVG images loaded);
every saved widget view rendered with its saved values; math typeset (MathJax finished, every `.math` element
holds MathJax output, no raw `$…$`/`\\(…\\)` left in the text); no `#|` directive visible.
What a reader trips over is checked too (`reader_problems`, each problem starts with its class):
- `error output`: a traceback or an error in a rendered cell output (error outputs, `Traceback (most recent call
  last)`, a line `SomeError: …`, stderr naming an error);
- `broken anchor`: a link to a local page that does not exist, or to an `#anchor` missing on its page;
- `raw TeX`: TeX left as plain text outside math (`\\frac`, `B_{i-1}`, `SSB_j`, `x^2`);
- `page overflow`: the page scrolls sideways, or an element sticks out of the article without a scrolling box;
- `private name in the API`: a show_doc entry for a `_private` name, or a signature showing `NoneType`/`<factory>`;
- `project history`: words about the project's making in the prose (`HISTORY_WORDS`: "issue", "session",
  "load average", files that are not in the repository...).
Chromium: `/usr/bin/chromium` (Debian's package `chromium`; never `playwright install`), or $CHROMIUM.
"""
from __future__ import annotations

import argparse, contextlib, functools, html as htmllib, http.server, json, os, re, shutil, threading
from pathlib import Path
from urllib.parse import unquote, urlparse

CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
                 '--no-first-run', '--disable-quic', '--disable-component-update', '--disable-sync',
                 '--disable-default-apps', '--disable-extensions']


def chromium_path() -> str | None:
    for p in (os.environ.get('CHROMIUM'), '/usr/bin/chromium', shutil.which('chromium'), shutil.which('chromium-browser')):
        if p and Path(p).exists(): return p
    return None


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a): pass


@contextlib.contextmanager
def serve(folder):
    "Serve `folder` on 127.0.0.1 from a daemon thread; yields the base URL."
    handler = functools.partial(_Quiet, directory=str(folder))
    httpd = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    try: yield f'http://127.0.0.1:{httpd.server_address[1]}/'
    finally:
        httpd.shutdown()
        httpd.server_close()


@contextlib.contextmanager
def browser():
    "A headless Chromium (Playwright for Python, Debian's binary)."
    from playwright.sync_api import sync_playwright
    exe = chromium_path()
    if exe is None: raise FileNotFoundError('Chromium not found: apt-get install chromium (or set $CHROMIUM)')
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS)
        try: yield b
        finally: b.close()


def _local(url: str, base: str) -> bool:
    u = urlparse(url)
    if u.scheme in ('data', 'blob', 'about', 'javascript'): return True
    return url.startswith(base) or (u.hostname in ('127.0.0.1', 'localhost') and url.startswith(base[:-1]))


# JavaScript run in each page once it has loaded
# chart containers: altair's HTML output (before and after vega-embed ran) and our vega mimebundle outputs
_CHARTS = '.vega-embed, div[id^="altair-viz-"], .vega-mime'
_JS_WAIT = r"""async (LIMIT) => {    // LIMIT (ms): everything renders within ~1 s on a healthy page
  const CHARTS = 'CHARTS_PLACEHOLDER';
  const sleep = ms => new Promise(r => setTimeout(r, ms));
  const t0 = Date.now();
  // charts: vega-embed containers get an svg.marks or a canvas
  const charts = () => [...document.querySelectorAll(CHARTS)];
  while (Date.now() - t0 < LIMIT && charts().some(c => !c.querySelector('svg.marks, canvas'))) await sleep(100);
  // widgets: html-manager puts each view in a .widget-subarea before its view script
  const views = () => document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]').length;
  const rendered = () => document.querySelectorAll('.widget-subarea .jupyter-widgets, .widget-subarea .lm-Widget').length;
  while (Date.now() - t0 < LIMIT && views() && document.querySelectorAll('.widget-subarea').length < views()) await sleep(100);
  // a subarea exists before its view has drawn, and a container draws its children after itself: wait until every
  // subarea holds a widget and the number of drawn widgets has not changed for 300 ms
  const filled = () => [...document.querySelectorAll('.widget-subarea')].every(s => s.querySelector('.jupyter-widgets, .lm-Widget'));
  for (let last = -1, still = 0; views() && Date.now() - t0 < LIMIT && still < 3; await sleep(100)) {
    const n = rendered();
    still = (filled() && n === last) ? still + 1 : 0;
    last = n;
  }
  // MathJax (3): wait for the initial typesetting and anything queued after it
  for (let i = 0; i < 2; i++) {
    while (Date.now() - t0 < LIMIT && window.MathJax && !(window.MathJax.startup && window.MathJax.startup.promise)) await sleep(100);
    if (window.MathJax && window.MathJax.startup && window.MathJax.startup.promise) {
      try { await window.MathJax.startup.promise; } catch (e) {}
    }
    await sleep(100);
  }
  // images (SVG charts are <img> files)
  while (Date.now() - t0 < LIMIT && [...document.images].some(i => !i.complete)) await sleep(100);
  return Date.now() - t0;
}"""

_JS_FACTS = r"""() => {
  const CHARTS = 'CHARTS_PLACEHOLDER';
  const main = document.querySelector('article[role="main"]') || document.querySelector('article') || document.body;
  // visible text outside code, scripts and MathJax output
  const skip = new Set(['PRE', 'CODE', 'ABBR', 'SCRIPT', 'STYLE', 'MJX-CONTAINER', 'MJX-ASSISTIVE-MML', 'TEXTAREA', 'NOSCRIPT']);
  let prose = [];
  const walk = (el) => {
    for (const n of el.childNodes) {
      if (n.nodeType === 3) prose.push(n.textContent);
      else if (n.nodeType === 1 && !skip.has(n.tagName) && !n.classList.contains('highlight')
               && !n.classList.contains('dataframe') && !n.classList.contains('df') && !n.classList.contains('vega-embed') && n.tagName.toLowerCase() !== 'svg'
               && !n.classList.contains('widget-subarea') && n.tagName !== 'SELECT'
               && !(n.tagName === 'TABLE' && n.closest('.cell_output'))) {   // widgets, output tables: data, not prose
        const st = getComputedStyle(n);
        if (st.display !== 'none' && st.visibility !== 'hidden') walk(n);
      }
    }
  };
  walk(main);
  const vis = el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const charts = [...document.querySelectorAll(CHARTS)];
  const imgs = [...main.querySelectorAll('img')];
  const viewScripts = [...document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]')];
  const stateScript = document.querySelector('script[type="application/vnd.jupyter.widget-state+json"]');
  return {
    title: document.title,
    text: main.innerText,
    prose: prose.join(' '),
    charts: charts.length,
    chartsRendered: charts.filter(c => c.querySelector('svg.marks, canvas') && vis(c)).length,
    chartErrors: charts.map(c => (c.querySelector('.error, .vega-embed-error') || {}).innerText).filter(Boolean),
    svgImages: imgs.filter(i => /\.svg(\?|$)/.test(i.getAttribute('src') || '')).length,
    inlineSvgCharts: [...main.querySelectorAll('.cell_output svg.marks')].filter(vis).length,
    brokenImages: imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.getAttribute('src')),
    mathElements: main.querySelectorAll('.math').length,
    mathUntypeset: [...main.querySelectorAll('.math')].filter(m => !m.querySelector('mjx-container') && m.tagName !== 'MJX-CONTAINER').map(m => m.textContent.slice(0, 80)),
    mjx: document.querySelectorAll('mjx-container').length,
    widgetViews: viewScripts.length,
    widgetSubareas: [...document.querySelectorAll('.widget-subarea')].filter(w => w.children.length && vis(w)).length,
    widgetState: stateScript ? stateScript.textContent : null,
    widgetFacts: {
      readouts: [...document.querySelectorAll('.widget-readout')].map(e => (e.innerText || e.value || '').trim()),
      selects: [...document.querySelectorAll('.jupyter-widgets select')].map(s => s.selectedIndex >= 0 ? s.options[s.selectedIndex].text : null),
      inputs: [...document.querySelectorAll('.jupyter-widgets input')].map(i => i.type === 'checkbox' ? String(i.checked) : i.value),
      texts: [...document.querySelectorAll('.widget-subarea')].map(w => w.innerText),
    },
    ids: [...document.querySelectorAll('[id]')].map(e => e.id),
    // what a reader trips over (see reader_problems)
    outputs: [...main.querySelectorAll('.cell_output, .output_area, .cell-output')].map(o => ({
      classes: [...o.querySelectorAll('.output, pre')].map(e => e.className).concat([o.className]).join(' '),
      text: (o.innerText || '').slice(0, 4000)})),
    inlineCode: [...main.querySelectorAll('code')].filter(c => !c.closest('pre, .highlight')).map(c => c.textContent).join(' '),
    links: [...document.querySelectorAll('a[href]')].map(a => ({href: a.href, raw: a.getAttribute('href'), text: (a.innerText || '').trim().slice(0, 60)})),
    overflow: (() => {
      const SLACK = 12;   // px: furo's heading anchors and table borders reach a few px into the margin
      const de = document.documentElement;
      const page = Math.max(de.scrollWidth, document.body.scrollWidth) - de.clientWidth;
      const box = main.getBoundingClientRect();
      const scrolls = el => { for (let e = el.parentElement; e && e !== main; e = e.parentElement) {
          const o = getComputedStyle(e).overflowX; if (o !== 'visible') return true; } return false; };
      const wide = [];
      for (const el of main.querySelectorAll('*')) {
        const r = el.getBoundingClientRect();
        if (r.width === 0 || r.right <= box.right + SLACK) continue;
        if (scrolls(el)) continue;
        const st = getComputedStyle(el);
        if (st.position === 'fixed' || st.position === 'absolute') continue;
        wide.push({el: el.tagName.toLowerCase() + (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\s+/).slice(0, 2).join('.') : ''),
                   width: Math.round(r.width), over: Math.round(r.right - box.right)});
      }
      wide.sort((a, b) => b.over - a.over);
      return {page: page, article: Math.round(box.width), wide: wide.slice(0, 5)};
    })(),
    apiNames: [...document.querySelectorAll('div.tag_nbdev-showdoc')].map(c => {
      const h = c.querySelector('h1,h2,h3,h4,h5,h6,p.rubric');
      return {name: h ? h.innerText.replace(/[¶#]/g, '').trim() : '', text: (c.innerText || '').slice(0, 3000)};
    }),
  };
}"""


_JS_WAIT = _JS_WAIT.replace('CHARTS_PLACEHOLDER', _CHARTS)
_JS_FACTS = _JS_FACTS.replace('CHARTS_PLACEHOLDER', _CHARTS)


def _fmt_readout(value, fmt: str) -> str:
    "ipywidgets' readout_format is a d3-format string; the common ones ('.2f', 'd', '.3g') are Python's too."
    with contextlib.suppress(Exception): return format(value, fmt.replace('~', ''))
    return str(value)


def widget_expectations(state_json: str | None) -> list[tuple[str, str, str]]:
    "(kind, description, expected text) for the saved widget models whose value the DOM must show."
    if not state_json: return []
    state = json.loads(state_json).get('state', {})
    # widgets tied by jslink/jsdlink: the browser syncs them on render, so their saved value may not show
    linked = {ref.replace('IPY_MODEL_', '') for m in state.values() if 'Link' in (m.get('model_name') or '')
              for key in ('source', 'target') for ref in (m.get('state', {}).get(key) or [])[:1]}
    exp = []
    for mid, m in state.items():
        if mid in linked: continue
        s, view = m.get('state', {}), m.get('state', {}).get('_view_name') or m.get('model_name', '')
        if view in ('FloatSliderView', 'IntSliderView') and s.get('readout', True) and 'value' in s:
            exp.append(('readouts', mid, _fmt_readout(s['value'], s.get('readout_format') or ('d' if 'Int' in view else '.2f'))))
        elif view in ('DropdownView', 'SelectView') and s.get('index') is not None and '_options_labels' in s:
            exp.append(('selects', mid, s['_options_labels'][s['index']]))
        elif view in ('FloatTextView', 'IntTextView', 'BoundedFloatTextView', 'BoundedIntTextView', 'TextView') and 'value' in s:
            exp.append(('inputs', mid, str(s['value'])))
        elif view in ('HTMLView', 'LabelView') and s.get('value'):
            txt = re.sub(r'\s+', ' ', htmllib.unescape(re.sub(r'<[^>]+>', ' ', s['value']))).strip()
            if txt and '$' not in txt: exp.append(('texts', mid, txt))
    return exp


def _widget_problems(facts: dict) -> list[str]:
    bad = []
    wf = facts['widgetFacts']
    for kind, mid, want in widget_expectations(facts['widgetState']):
        have = [h.replace('\xa0', ' ') if isinstance(h, str) else h for h in wf[kind]]   # widgets render spaces as &nbsp;
        if kind == 'inputs':
            def same(v):
                with contextlib.suppress(ValueError): return abs(float(v) - float(want)) < 1e-9
                return v == want
            ok = any(same(v) for v in have)
        elif kind == 'texts': ok = any(want in re.sub(r'\s+', ' ', t) for t in have)
        else: ok = want in have
        if not ok: bad.append(f'widget {mid[:8]}: saved value {want!r} not shown (found {have[:6]})')
    return bad


_re_raw_math = re.compile(r'(?<![\\\w])\$(?!\s)[^$\n]{1,300}?(?<![\s\\])\$(?!\w)|\$\$|\\\(|\\\[')


# --- what a reader trips over ---------------------------------------------------------------------------------
# words about how the project was made, not about what it is (matched in the prose: code and math are left out)
HISTORY_WORDS = [r'\bissues?\b(?! (?:a|an|the) (?:warning|error))', r'\bsessions?\b', r'load average', r'PAPERS\.md',
                 r'TOOLCHAIN\.md', r'BRIEF\w*\.md', r'OWNERS\.md', r'\bearlier version', r'\bused to (?:hold|be|use|compute)',
                 r'shared (?:2|two)-core machine', r'\.\./shared/', r'/work/', r'\bthe lead\b', r'\bhelpers? (?:branch|worktree)']
_re_history = re.compile('|'.join(f'(?:{w})' for w in HISTORY_WORDS), re.IGNORECASE)
# TeX written as text: a backslash command, a braced sub/superscript, or a short symbol with a one-character
# subscript (`n_f`, `SSB_j`, `A_0`, `λ_j`; `n_jobs` or `random_state` are names, not maths)
_re_raw_tex = re.compile(r'\\(?:frac|mathrm|mathbf|operatorname|sum|prod|int|sqrt|lambda|kappa|alpha|beta|sigma|mu|'
                         r'theta|hat|bar|tilde|cdot|times|leq|geq|le|ge|ne|in|left|right|begin|end)\b'
                         r'|(?<![\w/.])[^\W\d_]{1,4}[_^]\{[^}\s]{1,30}\}'
                         r'|(?<![\w/.\-])[^\W\d_]{1,4}_[^\W_]{1,2}(?![\w(])'
                         r'|(?<![\w/.\-])[^\W\d_]{1,3}\^[^\W_]{1,2}(?![\w(])'
                         r'|(?<![\w/.\-])(?:[\u0370-\u03ff]|[A-Z])_[^\W_]{1,6}(?![\w(])')
_re_traceback = re.compile(r'Traceback \(most recent call last\)|^\s*(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception):',
                           re.MULTILINE)


def _is_private(name: str) -> bool:
    "`_x`, `A._x`, `__x` are private; dunders (`A.__call__`) are not."
    parts = name.split('(')[0].strip().split('.')
    return any(p.startswith('_') and not (p.startswith('__') and p.endswith('__') and len(p) > 4) for p in parts)


def _anchor_ids(path: Path, cache: dict) -> set | None:
    "The ids (and a names) of an HTML file, read from disk once."
    if path not in cache:
        cache[path] = (set(re.findall(r'\b(?:id|name)=["\']([^"\']+)["\']', path.read_text(encoding='utf-8', errors='replace')))
                       if path.is_file() else None)
    return cache[path]


def link_problems(links: list, page_url: str, base: str, site: Path | None, page_ids=(), cache=None) -> list[str]:
    """Internal links that lead nowhere: a missing local page, or an `#anchor` its page lacks. `links`: dicts with
    `href` (absolute, as the browser resolved it) and `raw` (as written). `page_ids`: the ids of the page itself
    once its scripts ran (MathJax, widgets and vega add some); other pages are read from `site` on disk."""
    cache = {} if cache is None else cache
    bad, seen = [], set()
    for l in links:
        href, raw = l.get('href') or '', l.get('raw') or ''
        if not href.startswith(base) or raw.startswith(('javascript:', 'mailto:')) or raw in ('#', ''): continue
        u = urlparse(href)
        rel = u.path[len(urlparse(base).path):] or 'index.html'
        if rel.endswith('/'): rel += 'index.html'
        same = href.split('#')[0] == page_url.split('#')[0]
        if rel.startswith('_static/') or rel.startswith('_sources/') or (site is None and not same): continue
        if (href, raw) in seen: continue
        seen.add((href, raw))
        frag = unquote(u.fragment)
        if same:
            if frag and frag not in page_ids: bad.append(f'broken anchor: {raw} ({l.get("text")!r}) — no #{frag} on this page')
            continue
        ids = _anchor_ids(site/rel, cache)
        if ids is None: bad.append(f'broken anchor: {raw} ({l.get("text")!r}) — page {rel} does not exist')
        elif frag and frag not in ids: bad.append(f'broken anchor: {raw} ({l.get("text")!r}) — no #{frag} on {rel}')
    return bad


def reader_problems(facts: dict) -> list[str]:
    "Error outputs, raw TeX, page overflow, private names in the API, project history (see the module docstring)."
    bad = []
    for o in facts.get('outputs', []):
        text, cls = o.get('text') or '', o.get('classes') or ''
        m = _re_traceback.search(text)
        if m or re.search(r'\b(?:traceback|error)\b', cls):
            line = m.group(0).strip() if m else text.strip().splitlines()[0] if text.strip() else cls
            bad.append(f'error output in a cell: {line[:120]!r}')
    prose = ' '.join((facts.get('prose') or '').split())
    tex = sorted(set(m.group(0) for m in _re_raw_tex.finditer(prose)))
    if tex: bad.append(f'raw TeX outside math: {tex[:6]}')
    ov = facts.get('overflow') or {}
    if ov.get('page', 0) > 1 or ov.get('wide'):
        what = ', '.join(f"{w['el']} {w['width']} px (+{w['over']})" for w in ov.get('wide', [])[:3])
        bad.append(f"page overflow: the page is {ov.get('page', 0)} px wider than the window; sticking out of the "
                   f"{ov.get('article')} px article: {what or 'nothing in the article'}")
    for api in facts.get('apiNames', []):
        name = api.get('name') or ''
        if _is_private(name): bad.append(f'private name in the API listing: {name!r}')
        for word in ('NoneType', '<factory>'):
            if word in (api.get('text') or ''): bad.append(f'signature shows {word}: {name!r}')
    hist = []
    words = prose + ' ' + ' '.join((facts.get('inlineCode') or '').split())      # `PAPERS.md` in backticks too
    for m in _re_history.finditer(words):
        ctx = words[max(0, m.start() - 40): m.end() + 40]
        hist.append(f'…{ctx}…')
    if hist: bad.append(f'project history in the prose: {hist[:4]}')
    return bad


def check_page(page, url: str, expected_ids=(), limit_ms: int = 8000) -> tuple[dict, list[str]]:
    "Load `url` in `page` and return (facts, problems) — see the module docstring."
    page.goto(url, wait_until='load', timeout=30000)
    waited = page.evaluate(_JS_WAIT, limit_ms)
    facts = page.evaluate(_JS_FACTS)
    facts['waited_ms'] = waited
    bad = []
    if facts['charts'] != facts['chartsRendered']:
        bad.append(f"{facts['charts'] - facts['chartsRendered']} of {facts['charts']} vega-embed charts did not render "
                   f"{facts['chartErrors']}")
    if facts['brokenImages']: bad.append(f"images not loaded: {facts['brokenImages'][:5]}")
    if facts['mathUntypeset']: bad.append(f"math not typeset: {facts['mathUntypeset'][:3]}")
    raw = _re_raw_math.findall(facts['prose'])
    if raw: bad.append(f'raw math in the text: {raw[:3]}')
    if '#|' in facts['text']: bad.append('a `#|` directive is visible: ' + facts['text'][facts['text'].find('#|'):][:60])
    if facts['widgetViews'] and facts['widgetSubareas'] < facts['widgetViews']:
        bad.append(f"{facts['widgetViews'] - facts['widgetSubareas']} of {facts['widgetViews']} widget views did not render")
    bad += _widget_problems(facts)
    ids = set(facts['ids'])
    missing = [a for a in expected_ids if a not in ids]
    if missing: bad.append(f'show_doc anchors missing: {missing[:10]}')
    bad += reader_problems(facts)
    return facts, bad


# files served as they are, not pages of the site: its libraries, and the gallery's resources (an example report)
NOT_PAGES = ('_static/', 'gallery/')


def site_pages(site: Path) -> list[str]:
    return sorted(p.relative_to(site).as_posix() for p in site.rglob('*.html')
                  if not p.relative_to(site).as_posix().startswith(NOT_PAGES))


def check_site(site, pages=None, expected_ids: dict | None = None, search_term: str | None = None,
               shots: dict | None = None, full_page: bool = False, limit_ms: int = 8000) -> dict:
    """Visit `pages` (default: every .html page of `site`) and return a report:
    {'pages': {page: {'problems': [...], 'facts': {...}}}, 'external': [...], 'problems': [...all, prefixed]}.
    `expected_ids`: page → anchors that must exist there. `search_term`: a word the search page must find.
    `shots`: page → list of 'file.png' or 'file.png@selector' screenshots. `limit_ms`: how long a page may take
    to draw its charts and widgets."""
    site = Path(site)
    pages = pages or site_pages(site)
    expected_ids = expected_ids or {}
    report = {'pages': {}, 'external': [], 'problems': []}
    id_cache = {}
    with serve(site) as base, browser() as b:
        ctx = b.new_context(viewport={'width': 1280, 'height': 900}, service_workers='block')
        external = report['external']
        def route(r):
            if _local(r.request.url, base): r.continue_()
            else:
                external.append(r.request.url)
                r.abort()
        ctx.route('**/*', route)
        for name in pages:
            page = ctx.new_page()
            log = []
            page.on('console', lambda m, log=log: log.append(f'console.{m.type}: {m.text}') if m.type == 'error' else None)
            page.on('pageerror', lambda e, log=log: log.append(f'page error: {e}'))
            page.on('requestfailed', lambda r, log=log: log.append(f'request failed: {r.url} {r.failure}') if _local(r.url, base) else None)
            page.on('response', lambda r, log=log: log.append(f'HTTP {r.status}: {r.url}') if r.status >= 400 else None)
            n_ext = len(external)
            try:
                facts, bad = check_page(page, base + name, expected_ids.get(name, ()), limit_ms)
                bad += link_problems(facts.get('links', []), base + name, base, site, set(facts.get('ids', [])), id_cache)
            except Exception as e:
                facts, bad = {}, [f'could not check: {type(e).__name__}: {e}']
            bad = log + bad + [f'external request blocked: {u}' for u in external[n_ext:]]
            for spec in (shots or {}).get(name, []):    # 'file.png' or 'file.png@css selector' (scrolled to the top)
                path, _, sel = spec.partition('@')
                if sel:
                    page.locator(sel).first.evaluate('e => e.scrollIntoView({block: "start", behavior: "instant"})')
                    page.evaluate('window.scrollBy({top: -60, behavior: "instant"})')
                    page.wait_for_timeout(300)
                page.screenshot(path=path, full_page=full_page and not sel)
            for k in ('ids', 'widgetState', 'text', 'prose', 'outputs', 'links', 'apiNames', 'inlineCode'): facts.pop(k, None)
            report['pages'][name] = {'problems': bad, 'facts': facts}
            report['problems'] += [f'{name}: {p}' for p in bad]
            page.close()
        if search_term and (site/'search.html').exists():
            page = ctx.new_page()
            page.goto(base + 'search.html?q=' + search_term, wait_until='load')
            with contextlib.suppress(Exception):
                page.wait_for_selector('#search-results ul.search li, ul.search li', timeout=15000)
            n = page.locator('ul.search li').count()
            report['search'] = {'term': search_term, 'results': n}
            if not n: report['problems'].append(f'search.html: no result for {search_term!r}')
            page.close()
        ctx.close()
    return report


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('site', nargs='?', default=str(Path(__file__).resolve().parent.parent/'_docs'))
    ap.add_argument('--page', action='append', help='check only these pages (default: all)')
    ap.add_argument('--shot', action='append', default=[],
                    help='PAGE=FILE.png[@CSS-SELECTOR]: screenshot a page (scrolled to the element)')
    ap.add_argument('--full', action='store_true', help='full-page screenshots')
    ap.add_argument('--search', default=None, help='a word the search page must find')
    ap.add_argument('--json', default=None, help='also write the report (page → problems, facts) to this JSON file')
    a = ap.parse_args(argv)
    shots = {}
    for s in a.shot:
        page, _, spec = s.partition('=')
        shots.setdefault(page, []).append(spec)
    pages = a.page or None
    if pages and shots: pages = list(dict.fromkeys(pages + list(shots)))
    rep = check_site(a.site, pages=pages, search_term=a.search, shots=shots, full_page=a.full)
    for name, r in rep['pages'].items():
        f = r['facts']
        print(f"{name}: charts {f.get('chartsRendered')}/{f.get('charts')}, svg images {f.get('svgImages')}, "
              f"math {f.get('mjx')}, widgets {f.get('widgetSubareas')}/{f.get('widgetViews')}, {f.get('waited_ms')} ms"
              + ''.join(f'\n   PROBLEM {p}' for p in r['problems']))
    if 'search' in rep: print('search:', rep['search'])
    if a.json: Path(a.json).write_text(json.dumps(rep, indent=1, default=str))
    n_pages = sum(bool(r['problems']) for r in rep['pages'].values())
    print(f"{len(rep['problems'])} problems on {n_pages} of {len(rep['pages'])} pages, "
          f"{len(rep['external'])} external requests blocked")
    return 1 if rep['problems'] else 0


if __name__ == '__main__':
    raise SystemExit(main())
