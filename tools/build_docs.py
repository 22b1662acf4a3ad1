#!/usr/bin/env python
"""Build the documentation website from the notebooks, offline: `nbs/` → `_docs/` (settings.ini `doc_path`).

    python tools/build_docs.py              # or: make docs
    python tools/build_docs.py --serve      # build, then serve on http://127.0.0.1:8000
    python tools/build_docs.py --help

Why not `nbdev_docs`: it drives Quarto, which is not available offline nor in CI.
`nbdev_docs` keeps working wherever Quarto is installed: it reads the same top-level `_quarto.yml`
(through the `nbs/_quarto.yml` symlink) and this script writes nothing into `nbs/`.

How (each step is a function below):
1. `nbdev.serve.proc_nbs` writes `_proc/`: the title cell becomes front matter, `show_doc` is rendered,
   hidden and exported cells are removed — exactly what Quarto would render.
2. Each processed notebook becomes a Sphinx page named after its `output-file`, so URLs match Quarto's
   (`00_data.ipynb` → `data.html`, the URLs in `robustdiff/_modidx.py`). Quarto cell options become myst-nb tags
   (`echo: false` → remove-input, `output: false` → remove-output, `include: false` → remove-cell),
   altair's CDN URLs point at the local copies, links to `.ipynb` files and to the published site become local.
3. The browser libraries (vega, vega-lite, vega-embed, MathJax 3, @jupyter-widgets/html-manager) come from the
   npm registry at build time (`npm pack` of pinned versions, checked against pinned sha512 integrity, cached in
   `.cache/docs-npm/`) and are served from the site's `_static/vendor/`: the site makes no external request.
4. Sphinx + myst-nb (`nb_execution_mode = 'off'`: the stored outputs are shown) + furo build the site;
   the sidebar follows the notebook order of `nbdev_sidebar` (or `nbs/sidebar.yml` if `custom_sidebar = True`),
   the title comes from `_quarto.yml` (`website: title:`) or else settings.ini `title` (what nbdev puts in nbdev.yml).
5. The HTML is post-processed: nbdev's `show_doc` anchors (`data.html#load_sklearn`, `#dataset.subset`) are added,
   absolute links to `doc_host`+`doc_baseurl` become relative.
6. `check_site` scans every page for external resources (`<script src="https://…">`, CDN URLs in inline scripts,
   remote stylesheets/fonts): any makes the build fail. The browser test (tests/test_docs_site.py) checks the rest.

`audit_notebook` (used by tests/test_notebooks_size.py) enforces the notebook output budget.
"""
from __future__ import annotations

import argparse, base64, contextlib, copy, hashlib, html, io, json, os, posixpath, re, shutil, subprocess
import sys, tarfile, time, warnings
from fnmatch import fnmatch
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
DOCS_ASSETS = TOOLS/'docs'          # conf.py template, CSS, the MathJax config/shim

# ---------------------------------------------------------------------------------------------------------------
# Browser libraries, from the npm registry. Versions match altair 6 (vega 6, vega-lite = alt.VEGALITE_VERSION,
# vega-embed 7), ipywidgets 8 (html-manager ^1.0.1) and MathJax 3 (the API html-manager's MathJax shim targets).
# `files`: which files of the package (paths inside `package/`) are served, and where under `_static/vendor/`.
VENDOR = {
    'vega': dict(version='6.4.0',
        integrity='sha512-rHXCq2LpEWCLMjXBEj7hocY9G0/i5TGYRayGGSj06VTF4+l2IG2Z7oeZKCjWbUh/7hTE/mVhbaOPB72wCElh6g==',
        files={'build/vega.min.js': 'vega/vega.min.js', 'LICENSE': 'vega/LICENSE'}),
    'vega-lite': dict(version='6.4.1',
        integrity='sha512-KO3ybHNouRK4A0al/+2fN9UqgTEfxrd/ntGLY933Hg5UOYotDVQdshR3zn7OfXwQ7uj0W96Vfa5R+QxO8am3IQ==',
        files={'build/vega-lite.min.js': 'vega-lite/vega-lite.min.js', 'LICENSE': 'vega-lite/LICENSE'}),
    'vega-embed': dict(version='7.3.0',
        integrity='sha512-wQ8s5GaSzqoKgmRfbRolgBrjE2CP7ZKHXqH7NijxMqPjpdWxSs4Dn8tvp9g0giQvh2cK+3p56sxjWWM0wNngGw==',
        files={'build/vega-embed.min.js': 'vega-embed/vega-embed.min.js', 'LICENSE': 'vega-embed/LICENSE'}),
    'mathjax': dict(version='3.2.2',
        integrity='sha512-Bt+SSVU8eBG27zChVewOicYs7Xsdt40qm4+UpHyX7k0/O9NliPc+x77k1/FEsPsjKPZGJvtRZM1vO+geW0OhGw==',
        # the combined component, plus what it loads on demand (TeX extensions, CHTML fonts, menu, a11y/speech)
        files={'es5/tex-mml-chtml.js': 'mathjax/tex-mml-chtml.js', 'es5/input/*': 'mathjax/input/',
               'es5/output/chtml/*': 'mathjax/output/chtml/', 'es5/ui/*': 'mathjax/ui/', 'es5/a11y/*': 'mathjax/a11y/',
               'es5/sre/*': 'mathjax/sre/', 'es5/adaptors/*': 'mathjax/adaptors/', 'LICENSE': 'mathjax/LICENSE'}),
    '@jupyter-widgets/html-manager': dict(version='1.0.15',
        integrity='sha512-5thBIV6ymNgmPVOHvzx+gGy8ZSKmSazhtGw4/c4xJDVzRhG9PTeQsRjF3FUTopvFi//SABeNz1yp47bCrJ3CQA==',
        # embed.js (not embed-amd.js: RequireJS breaks altair's vega loader) and the fonts its CSS points to
        # (woff2/woff/ttf; the eot/svg fallbacks are for browsers from before 2015)
        files={'dist/embed.js': 'html-manager/embed.js', 'dist/embed.js.LICENSE.txt': 'html-manager/LICENSE.txt',
               'dist/*.woff2': 'html-manager/', 'dist/*.woff': 'html-manager/', 'dist/*.ttf': 'html-manager/'}),
}
VEGA_LOCAL = {'vega': 'vega/vega.min.js', 'vega-lite': 'vega-lite/vega-lite.min.js',
              'vega-embed': 'vega-embed/vega-embed.min.js', 'vega-lib': 'vega/vega.min.js'}

# altair's HTML output loads vega from these; anything else that loads vega from outside cannot be rewritten
_re_vega_cdn = re.compile(r'''(?:https?:)?//(?:cdn\.jsdelivr\.net/npm|unpkg\.com)/(vega-lite|vega-embed|vega-lib|vega)(?![\w\-])'''
                          r'''(?:@[\w.\-^~]+)?(?:/build/[\w.\-]+\.js|/[\w.\-]+\.js)?(?:\?noext)?''')
# hosts a page must never load from (checked in inline scripts, where a URL may be built at run time)
CDN_HOSTS = ('cdn.jsdelivr.net', 'unpkg.com', 'cdnjs.cloudflare.com', 'ajax.googleapis.com', 'code.jquery.com',
             'fonts.googleapis.com', 'fonts.gstatic.com', 'cdn.plot.ly', 'polyfill.io', 'stackpath.bootstrapcdn.com',
             'maxcdn.bootstrapcdn.com', 'use.fontawesome.com', 'kit.fontawesome.com', 'mathjax.org',
             'cdn.bokeh.org', 'esm.sh', 'cdn.skypack.dev', 'requirejs.org')

WIDGET_STATE = 'application/vnd.jupyter.widget-state+json'
WIDGET_VIEW = 'application/vnd.jupyter.widget-view+json'
_re_vl_mime = re.compile(r"^application/vnd\.(vegalite|vega)\.v\d+(?:\+|\.)json$")


def log(*args):
    print('[docs]', *args, flush=True)


# ---------------------------------------------------------------------------------------------------------------
# 1. configuration: settings.ini + _quarto.yml, one source of truth

@contextlib.contextmanager
def _cwd(path):
    "Work in `path`: nbdev finds settings.ini from the current directory and caches it (`get_config` is an lru_cache)."
    from nbdev.config import get_config
    from nbdev.doclinks import _build_lookup_table     # show_doc/backtick links: cached with the config's lib
    old = os.getcwd()
    os.chdir(path)
    get_config.cache_clear(); _build_lookup_table.cache_clear()
    try: yield
    finally:
        os.chdir(old)
        get_config.cache_clear(); _build_lookup_table.cache_clear()


def site_config(root: Path) -> dict:
    "The site's settings: from settings.ini (nbdev's config), with `_quarto.yml`'s website title/description first."
    import yaml
    from nbdev.config import get_config
    with _cwd(root): cfg = get_config()
    quarto = {}
    for p in (root/'_quarto.yml', cfg.nbs_path/'_quarto.yml'):
        if p.exists():
            quarto = yaml.safe_load(p.read_text()) or {}
            break
    website = quarto.get('website') or {}
    title = website.get('title') or cfg.get('title') or cfg.lib_name
    return dict(
        root=str(root), nbs_path=str(cfg.nbs_path), doc_path=str(cfg.doc_path), lib_name=cfg.lib_name,
        lib_path=str(cfg.lib_path), title=title, description=website.get('description') or cfg.get('description', ''),
        author=cfg.get('author', ''), copyright=cfg.get('copyright', ''), git_url=cfg.get('git_url', ''),
        site_url=(cfg.get('doc_host', '') + cfg.get('doc_baseurl', '')).rstrip('/'),
        resources=list((quarto.get('project') or {}).get('resources') or []),
        custom_sidebar=str(cfg.get('custom_sidebar', 'False')).lower() in ('true', '1', 'yes'),
        recursive=str(cfg.get('recursive', 'True')).lower() in ('true', '1', 'yes'))


def sidebar(cfg: dict) -> list:
    """Sidebar contents as Quarto would get them from `sidebar.yml`: a list of paths (relative to nbs/) and
    `{'section': name, 'contents': [...]}` dicts. Uses nbdev's own `nbdev_sidebar` so the order is nbdev's."""
    import yaml
    from nbdev.quarto import nbdev_sidebar
    nbs = Path(cfg['nbs_path'])
    if cfg['custom_sidebar']:
        yml = nbs/'sidebar.yml'
        if not yml.exists(): raise FileNotFoundError(f'custom_sidebar = True in settings.ini but {yml} does not exist')
        text = yml.read_text()
    else:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf), _cwd(cfg['root']):
            nbdev_sidebar.__wrapped__(path=str(nbs), printit=True, force=True)
        text = buf.getvalue()
    return ((yaml.safe_load(text) or {}).get('website', {}).get('sidebar', {}).get('contents')) or []


# ---------------------------------------------------------------------------------------------------------------
# 2. nbdev's processing (_proc/)

def _patch_execnb():
    """execnb's `nb2dict` splits every key called 'source' as if it were cell source, which crashes on the saved
    state of `ipywidgets.jslink`/`Link` widgets (their 'source' is a list). Only split strings."""
    import execnb.nbio as nbio
    if getattr(nbio.nb2dict, '_docs_patched', False): return
    orig = nbio.nb2dict
    def nb2dict(d, k=None):
        if k == 'source' and not isinstance(d, str): k = None
        return orig(d, k)
    nb2dict._docs_patched = True
    nbio.nb2dict = nb2dict


NBDEV_ERRORS: list[str] = []     # cells nbdev's processing could not run (nbdev_docs would stop at the first one)


def _patch_exec_show_docs():
    """nbdev re-executes the cells with imports, exports or show_doc to render the API docs; a cell that mixes an
    import with code using earlier (not re-executed) cells fails, and `nbdev_docs` stops there. Here the build goes
    on: the cell keeps its stored outputs and the failure is recorded in `NBDEV_ERRORS` (tests fail on it)."""
    from nbdev.processors import exec_show_docs
    if getattr(exec_show_docs.__call__, '_docs_patched', False): return
    orig = exec_show_docs.__call__
    def __call__(self, cell):
        saved = copy.deepcopy(cell.get('outputs'))
        try: return orig(self, cell)
        except Exception as e:
            if saved is not None: cell['outputs'] = saved
            if hasattr(self, 'k'): self.k.exc = None
            cause = e.__cause__ or e
            title = getattr(self.nb, 'frontmatter_', {}).get('title', '?')
            first = next((l for l in cell.source.splitlines() if l.strip() and not l.startswith('#|')), '')
            NBDEV_ERRORS.append(f'{title!r} cell {cell.idx_} ({first.strip()[:60]}): {type(cause).__name__}: {cause}')
    __call__._docs_patched = True
    exec_show_docs.__call__ = __call__
    # nbdev saves the state of every live widget into each notebook it processes; in one process (n_workers=0)
    # widgets made by one notebook's re-executed cells would leak into the next: close them after each notebook
    orig_end = exec_show_docs.end
    def end(self):
        orig_end(self)
        with contextlib.suppress(ImportError):
            from ipywidgets import Widget
            Widget.close_all()
    exec_show_docs.end = end


def _remember_nbdev_errors(proc: Path, before: dict):
    """proc_nbs skips notebooks older than their `_proc/` copy: keep the errors of those from the build that
    processed them (`_proc/.docs-nbdev-errors.json`, by notebook), so that every build reports them."""
    import nbformat
    store = proc/'.docs-nbdev-errors.json'
    old = json.loads(store.read_text()) if store.exists() and before else {}
    titles = {}
    for p in proc.glob('**/*.ipynb'):
        rel = p.relative_to(proc).as_posix()
        if p in before and before[p] == p.stat().st_mtime: continue        # not re-processed: keep its errors
        old.pop(rel, None)
        titles[str(_front_matter(nbformat.read(p, as_version=4))[0].get('title', '?'))] = rel
    for e in NBDEV_ERRORS:
        t = e.split(' cell ', 1)[0].strip("'\"")
        old.setdefault(titles.get(t, t), []).append(e)
    old = {k: sorted(set(v)) for k, v in old.items() if (proc/k).exists() or k not in titles.values()}
    store.write_text(json.dumps(old, indent=1, sort_keys=True))
    NBDEV_ERRORS[:] = [e for v in old.values() for e in v]


def process_notebooks(cfg: dict, force: bool = False) -> Path:
    "Run nbdev's `proc_nbs` (in this process: `n_workers=0`) and return the `_proc` folder."
    _patch_execnb()
    _patch_exec_show_docs()
    from nbdev.serve import proc_nbs
    with _cwd(cfg['root']), warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        warnings.filterwarnings('ignore', message='Found cells containing imports')
        return Path(proc_nbs(path=cfg['nbs_path'], n_workers=0, force=force)).resolve()


# ---------------------------------------------------------------------------------------------------------------
# 3. browser libraries from the npm registry

def _sri(path: Path) -> str:
    return 'sha512-' + base64.b64encode(hashlib.sha512(path.read_bytes()).digest()).decode()


def fetch_vendor(cache: Path) -> Path:
    """`npm pack` each pinned package into `cache` (once), check its integrity and unpack the served files into
    `cache/static/vendor/`. Returns `cache/static` (a Sphinx `html_static_path` entry)."""
    cache.mkdir(parents=True, exist_ok=True)
    static = cache/'static'
    stamp = static/'vendor'/'.vendor.json'
    want = json.dumps({k: (v['version'], v['integrity'], v['files']) for k, v in VENDOR.items()}, sort_keys=True)
    if stamp.exists() and stamp.read_text() == want: return static
    shutil.rmtree(static, ignore_errors=True)
    for name, spec in VENDOR.items():
        tgz = cache/(name.lstrip('@').replace('/', '-') + f"-{spec['version']}.tgz")
        if not tgz.exists() or _sri(tgz) != spec['integrity']:
            npm = shutil.which('npm')
            if npm is None: raise RuntimeError('npm is needed to fetch the browser libraries (apt-get install npm)')
            log(f"npm pack {name}@{spec['version']}")
            subprocess.run([npm, 'pack', f"{name}@{spec['version']}", '--pack-destination', str(cache), '--silent'],
                           check=True, stdout=subprocess.DEVNULL)
        if _sri(tgz) != spec['integrity']:
            raise RuntimeError(f'{tgz.name}: integrity {_sri(tgz)} != pinned {spec["integrity"]}')
        with tarfile.open(tgz) as tar:
            for m in tar.getmembers():
                if not m.isfile() or not m.name.startswith('package/'): continue
                rel = m.name[len('package/'):]
                for pat, dest in spec['files'].items():
                    if pat == rel: out = dest                                     # one file
                    elif pat.endswith('/*') and rel.startswith(pat[:-1]):        # a folder, recursively
                        out = dest + rel[len(pat) - 1:]
                    elif '*' in pat and fnmatch(rel, pat) and posixpath.dirname(rel) == posixpath.dirname(pat):
                        out = dest + posixpath.basename(rel)                     # files matching a glob
                    else: continue
                    target = static/'vendor'/out
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(tar.extractfile(m).read())
                    break
    stamp.write_text(want)
    return static


# ---------------------------------------------------------------------------------------------------------------
# 4. processed notebooks → Sphinx sources

_re_directive = re.compile(r'^\s*#\|\s*([\w\-]+)\s*:?\s*(.*?)\s*$')
_re_showdoc = re.compile(r'^\s*show_doc\s*\(', re.MULTILINE)
_re_md_link = re.compile(r'(\]\(\s*<?)([^)\s>]+?\.(?:ipynb|qmd))((?:#[^)\s>]*)?>?(?:\s+"[^"]*")?\s*\))')
_re_html_link = re.compile(r'''((?:href|src)=["'])([^"':]+?\.(?:ipynb|qmd))((?:#[^"']*)?["'])''')
_re_callout = re.compile(r'^(\s*):::+\s*\{\s*\.callout-(note|tip|warning|important|caution)[^}]*\}\s*$', re.MULTILINE)


def _page_name(nb_rel: str, meta: dict) -> str:
    "Quarto's output name: the `output-file` nbdev writes (`00_data.ipynb` → `data.html`), without .html."
    folder = posixpath.dirname(nb_rel)
    out = meta.get('output-file')
    if not out: out = re.sub(r'^\d+[a-zA-Z0-9]*_', '', posixpath.basename(nb_rel).lower())
    return posixpath.join(folder, posixpath.splitext(out)[0])


def _front_matter(nb) -> tuple[dict, int]:
    "The YAML front matter nbdev's FrontmatterProc put in the first raw cell, and the index of that cell."
    import yaml
    for i, c in enumerate(nb.cells[:2]):
        if c.cell_type == 'raw' and c.source.strip().startswith('---'):
            body = c.source.strip().strip('-').strip()
            with contextlib.suppress(yaml.YAMLError):
                return (yaml.safe_load(body) or {}), i
    return {}, -1


def _split_directives(src: str) -> tuple[dict, str]:
    "Quarto/nbdev `#|` options at the top of a code cell, and the source without them."
    lines, opts = src.splitlines(), {}
    i = 0
    while i < len(lines) and (not lines[i].strip() or _re_directive.match(lines[i])):
        m = _re_directive.match(lines[i])
        if m: opts[m.group(1).lower()] = m.group(2).strip().strip('"\'').lower()
        i += 1
    return opts, '\n'.join(lines[i:])


def _rel(page: str, target: str) -> str:
    "URL of `target` (a path from the site root) relative to the page `page` (a docname)."
    return posixpath.relpath(target, posixpath.dirname(page) or '.')


def rewrite_vega_cdn(text: str, page: str) -> str:
    "Point altair's CDN URLs at the site's copies under _static/vendor/."
    return _re_vega_cdn.sub(lambda m: _rel(page, '_static/vendor/' + VEGA_LOCAL[m.group(1)]), text)


_vl_count = 0
def _vegalite_html(spec: dict, mime: str, page: str) -> str:
    "An HTML output that renders a vega(-lite) mimebundle with the local vega-embed."
    global _vl_count
    _vl_count += 1
    div = f'vl-mime-{_vl_count}'
    mode = 'vega-lite' if 'vegalite' in mime else 'vega'
    loader = _rel(page, '_static/docs-vega.js')
    return (f'<div id="{div}" class="vega-mime"></div>\n<script src="{loader}"></script>\n'
            f'<script>docsVegaEmbed("#{div}", {json.dumps(spec)}, {{"mode": "{mode}"}});</script>')


def _convert_outputs(cell, page: str, has_widget_state: bool, warn) -> None:
    for out in cell.get('outputs', []):
        data = out.get('data')
        if not data: continue
        for mime in list(data):
            if _re_vl_mime.match(mime) and 'text/html' not in data:
                spec = data[mime] if isinstance(data[mime], dict) else json.loads(data[mime])
                data['text/html'] = _vegalite_html(spec, mime, page)
                del data[mime]
            elif mime == WIDGET_VIEW and not has_widget_state:
                warn(f'widget view without saved widget state (save the notebook with widget state): shown as text')
                del data[mime]
        if 'text/html' in data:
            h = data['text/html']
            h = ''.join(h) if isinstance(h, list) else h
            data['text/html'] = rewrite_vega_cdn(h, page)


def _md_links(src: str, page: str, pages: dict) -> str:
    "Links to notebooks → links to their pages; Quarto callouts → MyST admonitions."
    def target(path):
        base = posixpath.normpath(posixpath.join(posixpath.dirname(page), path))
        key = posixpath.splitext(base)[0]
        dest = pages.get(key)
        if dest is None: dest = _page_name(base, {})
        return _rel(page, dest + '.html')
    src = _re_md_link.sub(lambda m: m.group(1) + target(m.group(2)) + m.group(3), src)
    src = _re_html_link.sub(lambda m: m.group(1) + target(m.group(2)) + m.group(3), src)
    return _re_callout.sub(lambda m: f'{m.group(1)}:::{{{m.group(2)}}}', src)


def _clean_signature(code: str) -> str:
    """show_doc's signature as a reader writes it: an unannotated `x=None` is not `x:NoneType=None`, and a dataclass
    field's `default_factory` shows its value (`tags:dict=dict()`, not `=<factory>`)."""
    code = re.sub(r'(\w+):NoneType(\s*=\s*None)', r'\1\2', code)
    code = re.sub(r':\s*(dict|list|set)(\s*\|\s*None)?\s*=\s*<factory>', lambda m: f':{m.group(1)}{m.group(2) or ""}={m.group(1)}()', code)
    return code.replace('=<factory>', '=…')


def convert_notebook(src: Path, nb_rel: str, page: str, pages: dict, extra_md: str = '') -> 'nbformat.NotebookNode':
    "A processed notebook (`_proc/`) → the notebook Sphinx renders."
    import nbformat
    nb = nbformat.read(src, as_version=4)
    problems = []
    def warn(msg): problems.append(msg)
    fm, fm_idx = _front_matter(nb)
    cells = [c for i, c in enumerate(nb.cells) if i != fm_idx]
    title = fm.get('title') or posixpath.basename(page)
    head = f'# {title}\n'
    if fm.get('description'): head += f"\n```{{container}} page-description\n{fm['description']}\n```\n"
    new = [nbformat.v4.new_markdown_cell(head)]
    has_state = bool(((nb.metadata.get('widgets') or {}).get(WIDGET_STATE) or {}).get('state'))
    for c in cells:
        src_text = c.get('source', '')
        if c.cell_type == 'markdown':
            if src_text.strip().startswith('<!-- WARNING: THIS FILE WAS AUTOGENERATED'): continue
            c.source = _md_links(src_text, page, pages)
        elif c.cell_type == 'code':
            opts, body = _split_directives(src_text)
            tags = list(c.metadata.get('tags', []))
            if opts.get('include') == 'false': tags.append('remove-cell')
            if opts.get('echo') == 'false': tags.append('remove-input')
            if opts.get('output') == 'false': tags.append('remove-output')
            if opts.get('code-fold') in ('true', 'hide'): tags.append('hide-input')
            if _re_showdoc.search(body):
                tags.append('nbdev-showdoc')
                for out in c.get('outputs', []):     # show_doc starts with a `---` rule: CSS draws it instead
                    md = (out.get('data') or {}).get('text/markdown')
                    if isinstance(md, str):
                        md = re.sub(r'^\s*---\s*\n', '', md)
                        # nbdev links backticked names even inside the signature's code block: unlink them there
                        md = re.sub(r'```.*?```', lambda m: _clean_signature(re.sub(r'\[`([^`]+)`\]\([^)\s]+\)', r'\1', m.group(0))), md, flags=re.S)
                        out['data']['text/markdown'] = md
            if not body.strip() and 'remove-input' not in tags: tags.append('remove-input')
            c.source = body
            c.metadata = {'tags': tags} if tags else {}
            _convert_outputs(c, page, has_state, warn)
        elif c.cell_type == 'raw':
            continue    # raw cells are for other output formats (nbdev writes none of its own here)
        new.append(c)
    if extra_md: new.append(nbformat.v4.new_markdown_cell(extra_md))
    keep = {'cell_type', 'source', 'metadata', 'outputs', 'execution_count', 'attachments'}
    for i, c in enumerate(new):      # nbdev leaves its own keys (has_sd, ...) that nbformat rejects
        for k in [k for k in c if k not in keep]: del c[k]
        c['id'] = f'c{i}'
    nb.cells = new
    nb.metadata.setdefault('kernelspec', {'name': 'python3', 'display_name': 'Python 3', 'language': 'python'})
    nb.metadata.setdefault('language_info', {'name': 'python'})
    for p in problems: log(f'{nb_rel}: {p}')
    return nb


def _toctree(entries: list, caption: str | None = None) -> str:
    lines = ['```{toctree}', ':hidden:', ':maxdepth: 2']
    if caption: lines.append(f':caption: {caption}')
    return '\n'.join(lines + [''] + entries + ['```', ''])


def write_sources(cfg: dict, proc: Path, dest: Path) -> list[str]:
    """Write the Sphinx source tree (`dest`) from `_proc/`. Returns the page names in sidebar order."""
    import nbformat
    nbs = Path(cfg['nbs_path'])
    found = sorted(p.relative_to(proc).as_posix() for p in proc.rglob('*')
                   if p.suffix in ('.ipynb', '.md', '.qmd') and not any(part.startswith(('.', '_')) for part in p.relative_to(proc).parts))
    metas = {}
    for rel in found:
        if rel.endswith('.ipynb'): metas[rel] = _front_matter(nbformat.read(proc/rel, as_version=4))[0]
        else: metas[rel] = {}
    pages = {posixpath.splitext(rel)[0]: _page_name(rel, metas[rel]) for rel in found}

    # sidebar order (nbdev_sidebar: index first, then file order; folders as sections)
    order, sections = [], []
    def walk(items, section):
        for it in items:
            if isinstance(it, dict):
                sub = []
                sections.append((it.get('section') or it.get('text') or '', sub))
                if it.get('href'): sub.append(it['href'])
                walk(it.get('contents') or [], sub)
            elif isinstance(it, str): (section if section is not None else order).append(it)
    walk(sidebar(cfg), None)
    def resolve(entry):
        key = posixpath.splitext(posixpath.normpath(entry))[0]
        return key if key in pages else None
    top = [k for k in map(resolve, order) if k]
    secs = [(name, [k for k in map(resolve, items) if k]) for name, items in sections]
    listed = set(top) | {k for _, items in secs for k in items}
    rest = [posixpath.splitext(rel)[0] for rel in found if posixpath.splitext(rel)[0] not in listed]
    if rest: log('not in the sidebar, appended:', ', '.join(rest))
    top += rest
    index_key = next((k for k in top if pages[k] == 'index'), None)
    if index_key is None: raise FileNotFoundError(f'no index notebook (index.ipynb) in {nbs}')
    toc = _toctree([pages[k] for k in top if k != index_key])
    for name, items in secs:
        if items: toc += '\n' + _toctree([pages[k] for k in items], caption=name)

    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    for rel in found:
        key = posixpath.splitext(rel)[0]
        page = pages[key]
        out = dest/(page + ('.ipynb' if rel.endswith('.ipynb') else '.md'))
        out.parent.mkdir(parents=True, exist_ok=True)
        if rel.endswith('.ipynb'):
            nb = convert_notebook(proc/rel, rel, page, pages, extra_md=toc if key == index_key else '')
            nbformat.write(nb, out)
        else:
            text = (proc/rel).read_text()
            fm = re.match(r'^---\n(.*?)\n---\n', text, re.S)
            if fm:
                import yaml
                meta = yaml.safe_load(fm.group(1)) or {}
                text = f"# {meta.get('title', posixpath.basename(page))}\n\n" + text[fm.end():]
            out.write_text(_md_links(text, page, pages) + ('\n\n' + toc if key == index_key else ''))
    return [pages[k] for k in top] + [pages[k] for _, items in secs for k in items]


# ---------------------------------------------------------------------------------------------------------------
# 5. Sphinx

def run_sphinx(src: Path, out: Path, doctrees: Path, cfg: dict, static: Path, quiet: bool = True) -> list[str]:
    "Build HTML with Sphinx (in this process). Returns the warnings."
    from sphinx.cmd.build import build_main
    shutil.copy(DOCS_ASSETS/'conf.py', src/'conf.py')
    site = dict(cfg, static_paths=[str(static), str(DOCS_ASSETS/'static')], mathjax_config=str(DOCS_ASSETS/'mathjax_config.js'))
    (src/'_site.json').write_text(json.dumps(site, indent=1))
    warn_file = doctrees.parent/'sphinx-warnings.log'
    doctrees.parent.mkdir(parents=True, exist_ok=True)
    args = ['-b', 'html', '-E', '-d', str(doctrees), '-w', str(warn_file), '-j', '1']
    if quiet: args.append('-q')
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        rc = build_main(args + [str(src), str(out)])
    msgs = [l for l in warn_file.read_text().splitlines() if l.strip()] if warn_file.exists() else []
    if rc: raise RuntimeError(f'sphinx-build failed (exit {rc}):\n' + '\n'.join(msgs[-30:]))
    return msgs


# ---------------------------------------------------------------------------------------------------------------
# 6. HTML post-processing and the external-resource check

def postprocess(out: Path, cfg: dict) -> int:
    """Add nbdev's show_doc anchors (`#load_sklearn`, `#dataset.subset`: the symbol, lower-cased, as in
    `_modidx.py`) and make absolute links to the published site relative. Returns the number of show_doc blocks."""
    from bs4 import BeautifulSoup
    site_url = cfg['site_url']
    n = 0
    for f in sorted(out.rglob('*.html')):
        page = f.relative_to(out).as_posix()
        text = f.read_text(encoding='utf-8')
        if 'tag_nbdev-showdoc' not in text and (not site_url or site_url not in text): continue
        soup = BeautifulSoup(text, 'html.parser')
        ids = {t['id'] for t in soup.find_all(id=True)}
        for cell in soup.select('div.tag_nbdev-showdoc'):
            for h in cell.find_all(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']) + cell.select('p.rubric'):
                name = h.get_text(' ', strip=True).rstrip('¶#').strip()
                anchor = name.lower()
                if not anchor: continue
                n += 1
                if anchor in ids: break       # MyST's heading slug may already be it (`load_sklearn`)
                span = soup.new_tag('span', id=anchor)
                span['class'] = 'nbdev-anchor'
                h.insert(0, span)
                ids.add(anchor)
                break
        if site_url:
            for a in soup.find_all('a', href=True):
                href = a['href']
                if href.startswith(site_url + '/') or href == site_url:
                    path = href[len(site_url):].lstrip('/') or 'index.html'
                    frag = ''
                    if '#' in path: path, frag = path.split('#', 1); frag = '#' + frag
                    if not path: path = 'index.html'
                    a['href'] = _rel(page, path) + frag
                    a['class'] = [c for c in a.get('class', []) if c != 'external'] + ['internal']
                    a.attrs.pop('target', None)
        f.write_text(str(soup), encoding='utf-8')
    return n


def copy_resources(cfg: dict, out: Path) -> list[str]:
    """Copy the files named by `_quarto.yml`'s `project: resources:` (globs relative to nbs/, as Quarto reads them)
    into the site unchanged: e.g. the example report the gallery page links to. Returns the copied paths."""
    nbs, copied = Path(cfg['nbs_path']), []
    for pattern in cfg.get('resources') or []:
        for f in sorted(nbs.glob(pattern)):
            if not f.is_file(): continue
            rel = f.relative_to(nbs).as_posix()
            (out/rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(f, out/rel)
            copied.append(rel)
    return copied


def fix_symbol_links(out: Path) -> int:
    """nbdev links every backticked name of `_modidx.py`, also those no show_doc documents (private helpers,
    methods without their own show_doc): such a link leads to a missing anchor. A method's link goes to its class
    (`Footprints.contains` → `#footprints`); a link to something undocumented becomes plain code. Links written in
    the prose (no `<code>` inside) are left alone: the site check reports them. Returns the number of links changed."""
    from bs4 import BeautifulSoup
    files = [f for f in sorted(out.rglob('*.html')) if '_static' not in f.relative_to(out).parts]
    ids = {f.resolve(): set(re.findall(r'\bid="([^"]+)"', f.read_text(encoding='utf-8'))) for f in files}
    n = 0
    for f in files:
        text = f.read_text(encoding='utf-8')
        if '<code' not in text: continue
        soup, changed = BeautifulSoup(text, 'html.parser'), False
        for a in soup.select('a[href]'):
            href = a['href']
            if re.match(r'^[a-z]+:|^//', href) or '#' not in href or a.find('code') is None: continue
            path, frag = href.split('#', 1)
            target = (f.parent/path).resolve() if path else f.resolve()
            have = ids.get(target)
            if have is None or frag in have: continue
            parent = frag
            while '.' in parent and parent not in have: parent = parent.rsplit('.', 1)[0]
            if parent in have and not parent.startswith('_'): a['href'] = f'{path}#{parent}'
            else: a.unwrap()
            n += 1; changed = True
        if changed: f.write_text(str(soup), encoding='utf-8')
    return n


_re_url = re.compile(r'''(?:https?:)?//[A-Za-z0-9.\-]+\.[A-Za-z]{2,}[^\s"'<>)]*''')
_SCRIPT_URL_OK = ('vega.github.io/schema/', 'www.w3.org/')


def check_html(text: str, where: str = '') -> list[str]:
    """External resources a page would load: script/img/iframe/... `src`, stylesheet/preload/icon links,
    CSS `url()`/`@import`, and CDN hosts or `src`/`paths` URLs inside inline scripts. (Plain hyperlinks are fine.)"""
    from bs4 import BeautifulSoup
    soup = BeautifulSoup(text, 'html.parser')
    bad = []
    def is_ext(u): return bool(re.match(r'^\s*(?:https?:)?//', u or ''))
    for t in soup.find_all(['script', 'img', 'iframe', 'embed', 'source', 'video', 'audio', 'track', 'input', 'object']):
        for attr in ('src', 'data', 'poster', 'srcset'):
            if is_ext(t.get(attr)): bad.append(f'<{t.name} {attr}="{t.get(attr)}">')
    for t in soup.find_all('link', href=True):
        rel = ' '.join(t.get('rel', []))
        if is_ext(t['href']) and re.search(r'stylesheet|preload|modulepreload|icon|manifest|prefetch', rel):
            bad.append(f'<link rel="{rel}" href="{t["href"]}">')
    for t in soup.find_all(style=True):
        if re.search(r'url\(\s*["\']?\s*(?:https?:)?//', t['style']): bad.append(f'style url(): {t["style"][:80]}')
    for t in soup.find_all('style'):
        for m in re.finditer(r'(?:url\(|@import)\s*["\']?\s*((?:https?:)?//[^"\')\s]+)', t.get_text()):
            bad.append(f'CSS url: {m.group(1)}')
    for t in soup.find_all('script'):
        typ = (t.get('type') or 'text/javascript').lower()
        if typ not in ('text/javascript', 'module', 'application/javascript'): continue
        body = t.get_text()
        for m in _re_url.finditer(body):
            u = m.group(0)
            if any(ok in u for ok in _SCRIPT_URL_OK): continue
            host = re.sub(r'^(?:https?:)?//', '', u).split('/')[0].lower()
            if any(host == h or host.endswith('.' + h) for h in CDN_HOSTS): bad.append(f'inline script loads {u}')
    return [f'{where}: {b}' if where else b for b in bad]


def check_site(out: Path) -> list[str]:
    "Every page's external resources (see `check_html`), and CSS files with remote `url()`/`@import`."
    bad = []
    for f in sorted(out.rglob('*.html')):
        bad += check_html(f.read_text(encoding='utf-8'), f.relative_to(out).as_posix())
    for f in sorted(out.rglob('*.css')):
        if 'vendor' in f.parts: continue
        for m in re.finditer(r'(?:url\(|@import)\s*["\']?\s*((?:https?:)?//[^"\')\s]+)', f.read_text(errors='ignore')):
            bad.append(f'{f.relative_to(out).as_posix()}: CSS url {m.group(1)}')
    return bad


# ---------------------------------------------------------------------------------------------------------------
# notebook output budget (tests/test_notebooks_size.py)

NB_BUDGET_BYTES = 2_000_000        # per notebook file, outputs included
OUTPUT_BUDGET_BYTES = 500_000      # per single output (one chart, table or image)


def audit_notebook(path: Path, budget: int = NB_BUDGET_BYTES, output_budget: int = OUTPUT_BUDGET_BYTES) -> list[str]:
    """Problems with a notebook's stored outputs, as the docs site would show them:
    - the file is larger than `budget` bytes, or one output is larger than `output_budget` bytes;
    - an HTML output loads a script from outside that the site cannot rewrite to its local copy (altair's
      vega/vega-lite/vega-embed CDN URLs are rewritten; anything else, e.g. a plotly or bokeh CDN, is not);
    - an inline-JS vega chart (altair's `inline=True`/'html' with the libraries embedded, ~900 kB each);
    - a widget view whose notebook has no saved widget state (it would render as nothing)."""
    import nbformat
    path = Path(path)
    problems = []
    size = path.stat().st_size
    if size > budget: problems.append(f'{size/1e6:.2f} MB > budget {budget/1e6:.1f} MB')
    nb = nbformat.read(path, as_version=4)
    has_state = bool(((nb.metadata.get('widgets') or {}).get(WIDGET_STATE) or {}).get('state'))
    for i, c in enumerate(nb.cells):
        for out in c.get('outputs', []):
            data = out.get('data') or {}
            n = len(json.dumps(data))
            if n > output_budget: problems.append(f'cell {i}: an output of {n/1e3:.0f} kB > {output_budget/1e3:.0f} kB')
            h = data.get('text/html', '')
            h = ''.join(h) if isinstance(h, list) else h
            if h:
                if re.search(r'vega-embed|vegaEmbed', h) and len(h) > 200_000:
                    problems.append(f'cell {i}: inline-JS vega chart ({len(h)/1e3:.0f} kB): render charts as SVG '
                                    "(alt.renderers.enable('svg')) or with the default CDN renderer")
                left = check_html(rewrite_vega_cdn(h, 'x'))
                problems += [f'cell {i}: {b} (the site cannot serve this locally)' for b in left]
            js = data.get('application/javascript', '')
            js = ''.join(js) if isinstance(js, list) else js
            if js and any(host in js for host in CDN_HOSTS):
                problems.append(f'cell {i}: JavaScript output loads from a CDN')
            if WIDGET_VIEW in data and not has_state:
                problems.append(f'cell {i}: widget view but no saved widget state '
                                '(execute with --ExecutePreprocessor.store_widget_state=True)')
    return problems


# ---------------------------------------------------------------------------------------------------------------

def build(root='.', out=None, force: bool = False, quiet: bool = True, check: bool = True, strict: bool = False,
          vendor_cache=None) -> dict:
    """Build the site of the project in `root` into `out` (default: its doc_path). `vendor_cache`: where the npm
    tarballs are kept (default: `root/.cache/docs-npm`). Returns a summary (pages, seconds, bytes, warnings, ...)."""
    t0 = time.time()
    root = Path(root).resolve()
    cfg = site_config(root)
    out = Path(out).resolve() if out else Path(cfg['doc_path'])
    # Sphinx sources and doctrees: beside a custom `out` (so that parallel builds do not share them)
    work = root/'.cache'/'docs-build' if out == Path(cfg['doc_path']) else out.with_name(out.name + '-build')
    static = fetch_vendor(Path(vendor_cache) if vendor_cache else root/'.cache'/'docs-npm')
    t1 = time.time()
    NBDEV_ERRORS.clear()
    proc_dir = root/'_proc'
    before = {p: p.stat().st_mtime for p in proc_dir.glob('**/*.ipynb')} if proc_dir.exists() and not force else {}
    proc = process_notebooks(cfg, force=force)
    _remember_nbdev_errors(proc, before)
    if NBDEV_ERRORS:
        msg = ('nbdev could not run these cells: nbdev_docs would stop at the first (imports belong in their own '
               'cells; show_doc needs signatures fastcore can render):\n  ')
        if strict: raise RuntimeError(msg + '\n  '.join(NBDEV_ERRORS))
        log('WARNING ' + msg + '\n  '.join(NBDEV_ERRORS))
    t2 = time.time()
    pages = write_sources(cfg, proc, work/'src')
    copy_resources(cfg, work/'src')          # `<img src="gallery/x.svg">` in Markdown: Sphinx reads the file too
    html_tmp = work/'html'
    shutil.rmtree(html_tmp, ignore_errors=True)
    msgs = run_sphinx(work/'src', html_tmp, work/'doctrees', cfg, static, quiet=quiet)
    t3 = time.time()
    n_anchors = postprocess(html_tmp, cfg)
    n_unlinked = fix_symbol_links(html_tmp)
    copy_resources(cfg, html_tmp)
    for junk in ('.buildinfo', '.doctrees', '.buildinfo.bak', '_sources'):
        p = html_tmp/junk
        if p.is_dir(): shutil.rmtree(p)
        elif p.exists(): p.unlink()
    (html_tmp/'.nojekyll').touch()
    problems = check_site(html_tmp) if check else []
    if problems:
        raise RuntimeError('the site would load external resources:\n  ' + '\n  '.join(problems[:50]))
    if out.exists(): shutil.rmtree(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(html_tmp), str(out))
    size = sum(f.stat().st_size for f in out.rglob('*') if f.is_file())
    summary = dict(out=str(out), pages=pages, warnings=msgs, anchors=n_anchors, unlinked=n_unlinked, bytes=size, nbdev_errors=list(NBDEV_ERRORS),
                   seconds=round(time.time() - t0, 1), vendor_s=round(t1 - t0, 1), proc_s=round(t2 - t1, 1),
                   sphinx_s=round(t3 - t2, 1))
    return summary


def serve(folder, port=8000):
    import functools, http.server
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    with http.server.ThreadingHTTPServer(('127.0.0.1', port), handler) as httpd:
        log(f'serving {folder} on http://127.0.0.1:{port}/ (Ctrl-C to stop)')
        httpd.serve_forever()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--root', default=str(TOOLS.parent), help='project folder (with settings.ini)')
    ap.add_argument('--out', default=None, help='output folder (default: settings.ini doc_path)')
    ap.add_argument('--force', action='store_true', help="re-process every notebook (ignore nbdev's _proc cache)")
    ap.add_argument('--verbose', action='store_true', help="show Sphinx's progress")
    ap.add_argument('--strict', action='store_true', help='fail if nbdev cannot process a notebook cell')
    ap.add_argument('--vendor-cache', default=None, help='folder for the npm tarballs (default: ROOT/.cache/docs-npm)')
    ap.add_argument('--summary', default=None, help='write the build summary (JSON) to this file')
    ap.add_argument('--serve', action='store_true', help='serve the site on 127.0.0.1 after building')
    ap.add_argument('--port', type=int, default=8000)
    a = ap.parse_args(argv)
    s = build(a.root, a.out, force=a.force, quiet=not a.verbose, strict=a.strict, vendor_cache=a.vendor_cache)
    if a.summary: Path(a.summary).write_text(json.dumps(s, indent=1))
    for w in s['warnings']: log('warning:', w)
    log(f"{len(s['pages'])} pages, {s['anchors']} show_doc anchors, {s['bytes']/1e6:.1f} MB in {s['out']} "
        f"({s['seconds']} s: npm {s['vendor_s']} s, nbdev proc {s['proc_s']} s, sphinx {s['sphinx_s']} s)")
    if a.serve: serve(s['out'], a.port)


if __name__ == '__main__':
    main()
