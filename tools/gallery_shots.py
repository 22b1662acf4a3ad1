#!/usr/bin/env python
"""Pictures for the gallery page (nbs/95_gallery.ipynb): one screenshot-sized PNG per method, cut from a built site.

    python tools/build_docs.py && python tools/gallery_shots.py _docs     # writes nbs/gallery/<page>.png
    python tools/gallery_shots.py _docs --report robustdiff-report/report.html   # also ship an example report

Each picture is the chart of `SHOTS` (the n-th chart image of a page), drawn by Chromium at half scale and cut to at
most 720 × 460 CSS pixels, so the gallery shows what the page shows. Re-run after a notebook's figure changes.
"""
from __future__ import annotations

import argparse, shutil
from pathlib import Path

import browser_check

ROOT = Path(__file__).resolve().parent.parent
# page → which chart image (0 = the first `.cell_output img` of an SVG chart) shows the method best
SHOTS = {'irt.html': 0, 'difficulty_model.html': 0, 'respondents.html': 0, 'scc.html': 0, 'taxonomy.html': 1,
         'ela.html': 0, 'robustness.html': 0, 'hardness.html': 0, 'isa.html': 0}


def shoot(site: Path, dest: Path, shots: dict = SHOTS, scale: float = 0.5, max_w: int = 720, max_h: int = 460) -> list[Path]:
    "Write `dest/<page>.png` for each page of `shots`; returns the files written."
    dest.mkdir(parents=True, exist_ok=True)
    written = []
    with browser_check.serve(site) as base, browser_check.browser() as b:
        ctx = b.new_context(viewport={'width': 1280, 'height': 900}, device_scale_factor=scale)
        for page, nth in shots.items():
            p = ctx.new_page()
            p.goto(base + page, wait_until='load')
            p.evaluate(browser_check._JS_WAIT, 8000)
            img = p.locator('.cell_output img[src$=".svg"], .cell_output svg.marks').nth(nth)
            img.scroll_into_view_if_needed()
            box = img.bounding_box()
            clip = dict(x=box['x'], y=box['y'], width=min(box['width'], max_w), height=min(box['height'], max_h))
            out = dest/(page.replace('.html', '.png'))
            p.screenshot(path=str(out), clip=clip)
            written.append(out)
            p.close()
        ctx.close()
    return written


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('site', nargs='?', default=str(ROOT/'_docs'))
    ap.add_argument('--dest', default=str(ROOT/'nbs'/'gallery'))
    ap.add_argument('--report', default=None, help="a report.html to ship as the gallery's example report")
    a = ap.parse_args(argv)
    for f in shoot(Path(a.site), Path(a.dest)): print('wrote', f)
    if a.report:
        shutil.copy(a.report, Path(a.dest)/'report.html'); print('copied', a.report)


if __name__ == '__main__':
    main()
