#!/usr/bin/env python
"""Write README.md from the README notebook (settings.ini `readme_nb`, i.e. nbs/index.ipynb).

    python tools/make_readme.py            # write README.md
    python tools/make_readme.py --check    # exit 1 if README.md is not what the notebook gives

`nbdev_readme` needs Quarto, which is not available offline nor in CI: this renders the notebook
with its stored outputs into GitHub Markdown itself.
- Markdown cells as they are; links to notebooks (`00_data.ipynb`) point at `nbs/00_data.ipynb`.
- Code cells as ```python blocks, except cells nbdev hides (`#| hide`, `#| export…`, `#| default_exp`,
  `#| include: false`); `#|` lines are dropped; `#| echo: false` drops the source, `#| output: false` the outputs.
- Outputs: Markdown as is; pandas DataFrames (HTML tables) as Markdown tables; stdout and other text as ``` blocks;
  images into `README_files/`; stderr (warnings) and HTML/JS that Markdown cannot show are left out.
"""
from __future__ import annotations

import argparse, base64, json, re, sys
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_re_dir = re.compile(r'^\s*#\|\s*([\w\-]+)\s*:?\s*(.*?)\s*$')
_HIDE = {'hide', 'export', 'exports', 'exporti', 'default_exp', 'hide_input'}


def _src(x) -> str:
    return ''.join(x) if isinstance(x, list) else (x or '')


def _directives(src: str) -> tuple[dict, str]:
    lines, opts, i = src.splitlines(), {}, 0
    while i < len(lines) and (not lines[i].strip() or _re_dir.match(lines[i])):
        m = _re_dir.match(lines[i])
        if m: opts[m.group(1).lower()] = m.group(2).strip().strip('"\'').lower()
        i += 1
    return opts, '\n'.join(lines[i:]).strip('\n')


class _Table(HTMLParser):
    "The first <table> of an HTML snippet as header rows and body rows of (text, colspan, rowspan, is_th)."
    def __init__(self):
        super().__init__()
        self.head, self.body, self.section, self.row, self.cell, self.done, self.depth = [], [], None, None, None, False, 0
    def handle_starttag(self, tag, attrs):
        if self.done: return
        a = dict(attrs)
        if tag == 'table': self.depth += 1
        elif tag in ('thead', 'tbody'): self.section = tag
        elif tag == 'tr': self.row = []
        elif tag in ('td', 'th') and self.row is not None:
            self.cell = [[], int(a.get('colspan') or 1), int(a.get('rowspan') or 1), tag == 'th']
        elif tag == 'br' and self.cell is not None: self.cell[0].append(' ')
    def handle_endtag(self, tag):
        if self.done: return
        if tag in ('td', 'th') and self.cell is not None:
            self.row.append((' '.join(''.join(self.cell[0]).split()), *self.cell[1:]))
            self.cell = None
        elif tag == 'tr' and self.row is not None:
            (self.head if self.section == 'thead' else self.body).append(self.row)
            self.row = None
        elif tag == 'table':
            self.depth -= 1
            if self.depth == 0: self.done = True
    def handle_data(self, data):
        if self.cell is not None: self.cell[0].append(data)


def _grid(rows, repeat_colspan=False):
    "Expand colspan/rowspan into a rectangular grid of (text, is_th); header labels repeat over their colspan."
    grid, carry = [], {}
    for row in rows:
        out, col, it = [], 0, iter(row)
        while True:
            if col in carry and carry[col][1] > 0:
                out.append(('', carry[col][2]))
                carry[col][1] -= 1
                col += 1
                continue
            try: text, cs, rs, th = next(it)
            except StopIteration: break
            for k in range(cs):
                out.append((text if k == 0 or repeat_colspan else '', th))
                if rs > 1: carry[col] = [text, rs - 1, th]
                col += 1
        while col in carry and carry[col][1] > 0:
            out.append(('', carry[col][2])); carry[col][1] -= 1; col += 1
        grid.append(out)
    return grid


def html_table_to_markdown(h: str) -> str | None:
    "A pandas DataFrame's HTML (`<table class=\"dataframe\">`) as a Markdown pipe table (None if there is none)."
    if '<table' not in h: return None
    p = _Table()
    p.feed(h)
    head, body = _grid(p.head, repeat_colspan=True), _grid(p.body)
    if not body and not head: return None
    width = max(len(r) for r in head + body)
    pad = lambda r: [t for t, _ in r] + [''] * (width - len(r))
    head, body_th = [pad(r) for r in head], [[th for _, th in r] + [False] * (width - len(r)) for r in body]
    body = [pad(r) for r in body]
    n_index = 0       # leading columns that are row labels (<th> in the body)
    while n_index < width and body and all(r[n_index] for r in body_th): n_index += 1
    if head:
        cols = []
        for j in range(width):
            parts = [r[j] for r in head if r[j]]
            if j < n_index and len(parts) > 1: cols.append(' / '.join(reversed(parts)))  # "index / columns" names
            else: cols.append(' '.join(parts))
    else:
        cols = [''] * width
    def esc(t): return t.replace('|', '\\|') or ' '
    def numeric(j): return all(re.fullmatch(r'[-+]?(\d[\d,]*\.?\d*|\.\d+)(e[-+]?\d+)?%?|nan|NaN|…|\.\.\.|', r[j]) for r in body)
    align = ['---' if j < n_index or not numeric(j) else '---:' for j in range(width)]
    lines = ['| ' + ' | '.join(esc(c) for c in cols) + ' |', '|' + '|'.join(align) + '|']
    lines += ['| ' + ' | '.join(esc(c) for c in r) + ' |' for r in body]
    return '\n'.join(lines)


def _fence(text: str, lang: str = '') -> str:
    ticks = '```'
    while ticks in text: ticks += '`'
    return f'{ticks}{lang}\n{text.rstrip()}\n{ticks}'


def _nb_link(md: str) -> str:
    """Relative links and images of the notebook (notebooks, `gallery/…` files in nbs/) point at them from the
    repository root: `[x](00_data.ipynb)` → `nbs/00_data.ipynb`, `<img src="gallery/a.svg">` → `nbs/gallery/a.svg`."""
    rel = r'(?![a-z][\w+.\-]*:|/|nbs/|#|\.\./)'
    md = re.sub(r'(\]\(\s*<?)' + rel + r'([^)\s>]+)', r'\1nbs/\2', md)
    return re.sub(r'((?:src|href)=["\'])' + rel + r'([^"\']+)', r'\1nbs/\2', md)


def render_readme(nb_path: Path, files_dir: Path | None = None) -> tuple[str, dict]:
    """The README text and the image files it refers to ({relative path: bytes})."""
    nb = json.loads(Path(nb_path).read_text(encoding='utf-8'))
    parts, files, n_img = [], {}, 0
    rel_files = 'README_files'
    for i, c in enumerate(nb['cells']):
        src = _src(c.get('source'))
        if c['cell_type'] == 'markdown':
            if src.strip(): parts.append(_nb_link(src.strip()))
            if i == 0:
                parts.append('<!-- WARNING: generated from nbs/index.ipynb by tools/make_readme.py; '
                             'edit the notebook, then run `python tools/make_readme.py` -->')
            continue
        if c['cell_type'] != 'code': continue
        opts, body = _directives(src)
        if opts.keys() & _HIDE or opts.get('include') == 'false': continue
        if body.strip() and opts.get('echo') != 'false': parts.append(_fence(body, 'python'))
        if opts.get('output') == 'false': continue
        for out in c.get('outputs', []):
            t = out.get('output_type')
            if t == 'stream':
                if out.get('name') == 'stdout' and _src(out.get('text')).strip(): parts.append(_fence(_src(out['text'])))
                continue
            if t not in ('execute_result', 'display_data'): continue
            data = out.get('data', {})
            if 'text/markdown' in data:
                parts.append(_src(data['text/markdown']).strip()); continue
            if 'text/html' in data:
                table = html_table_to_markdown(_src(data['text/html']))
                if table: parts.append(table); continue
            img = next((m for m in ('image/png', 'image/svg+xml', 'image/jpeg') if m in data), None)
            if img:
                n_img += 1
                ext = {'image/png': 'png', 'image/svg+xml': 'svg', 'image/jpeg': 'jpg'}[img]
                name = f'{rel_files}/output-{n_img}.{ext}'
                raw = _src(data[img])
                files[name] = raw.encode() if ext == 'svg' else base64.b64decode(raw)
                parts.append(f'![output {n_img}]({name})'); continue
            if 'text/html' in data: continue      # charts/widgets: not representable in Markdown
            if 'text/plain' in data and 'application/vnd.jupyter.widget-view+json' not in data:
                parts.append(_fence(_src(data['text/plain'])))
    return '\n\n'.join(parts).strip() + '\n', files


def readme_paths(root: Path = ROOT):
    from configparser import ConfigParser
    cp = ConfigParser(delimiters=['='])
    cp.read(root/'settings.ini', encoding='utf-8')
    d = cp['DEFAULT']
    return root/d.get('nbs_path', 'nbs')/d.get('readme_nb', 'index.ipynb'), root/'README.md'


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--root', default=str(ROOT))
    ap.add_argument('--check', action='store_true', help='only check README.md is up to date (exit 1 if not)')
    a = ap.parse_args(argv)
    root = Path(a.root)
    nb, readme = readme_paths(root)
    text, files = render_readme(nb)
    stale = [p for p, b in files.items() if not (root/p).exists() or (root/p).read_bytes() != b]
    if a.check:
        if not readme.exists() or readme.read_text(encoding='utf-8') != text or stale:
            print(f'{readme.name} is out of date with {nb.relative_to(root)}: run python tools/make_readme.py', file=sys.stderr)
            return 1
        print(f'{readme.name} is up to date')
        return 0
    readme.write_text(text, encoding='utf-8')
    for p, b in files.items():
        (root/p).parent.mkdir(parents=True, exist_ok=True)
        (root/p).write_bytes(b)
    print(f'wrote {readme} ({len(text)} characters{", %d images" % len(files) if files else ""})')
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
