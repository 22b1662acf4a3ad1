# Sphinx configuration of the docs site. tools/build_docs.py copies this file next to the generated sources and
# writes `_site.json` beside it (title, description, paths) from settings.ini and _quarto.yml: edit those, not this.
import json
from pathlib import Path

_site = json.loads((Path(__file__).parent/'_site.json').read_text())

project = _site['title']
author = _site['author']
copyright = _site['copyright']
html_title = _site['title']
html_short_title = _site['title']

extensions = ['myst_nb', 'sphinx.ext.mathjax']
root_doc = 'index'
exclude_patterns = ['_build', '**.ipynb_checkpoints', '_site.json']

# MyST: Quarto-style markdown. Links are left as written (the build already made them point at .html pages).
myst_enable_extensions = ['dollarmath', 'amsmath', 'colon_fence', 'attrs_inline', 'deflist', 'html_image',
                          'strikethrough', 'tasklist']
myst_all_links_external = True
myst_heading_anchors = 4
myst_dmath_double_inline = True

# myst-nb: show the stored outputs, never execute.
nb_execution_mode = 'off'
nb_render_markdown_format = 'myst'         # show_doc and Markdown outputs: MyST, with math
nb_merge_streams = True
nb_output_stderr = 'show'
# html-manager's embed.js, served locally (not the default RequireJS + CDN embed-amd.js)
nb_ipywidgets_js = {'vendor/html-manager/embed.js': {}}

# MathJax 3 from the site; its config adds the MathJax-2 API html-manager calls for widget labels.
mathjax_path = 'vendor/mathjax/tex-mml-chtml.js'
mathjax_config_path = _site['mathjax_config']

html_theme = 'furo'
html_static_path = _site['static_paths']
html_css_files = ['docs.css']
html_copy_source = False
html_show_sourcelink = False
html_use_index = False           # no general index: the API is documented page by page (show_doc)
html_theme_options = {
    'navigation_with_keys': True,
    'top_of_page_buttons': [],
}
html_context = {'docs_description': _site['description']}
suppress_warnings = ['myst.header', 'mystnb.unknown_mime_type', 'misc.highlighting_failure']


def setup(app):
    # MathJax on every page: widget labels ($\lambda$) are typeset by html-manager through MathJax, on pages
    # that have no other math.
    app.set_html_assets_policy('always')
