"README.md is generated from nbs/index.ipynb by tools/make_readme.py (nbdev_readme needs Quarto): it must be in sync."
import json, sys
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO/'tools'))
import make_readme                       # noqa: E402


def test_readme_in_sync():
    nb, readme = make_readme.readme_paths(REPO)
    text, files = make_readme.render_readme(nb)
    assert readme.exists(), 'README.md is missing: run python tools/make_readme.py'
    assert readme.read_text(encoding='utf-8') == text, 'README.md is out of date: run python tools/make_readme.py'
    for path, data in files.items():
        assert (REPO/path).exists() and (REPO/path).read_bytes() == data, f'{path} out of date: run python tools/make_readme.py'


def test_readme_check_command():
    assert make_readme.main(['--check']) == 0


def _df_table(df):
    return make_readme.html_table_to_markdown(df._repr_html_())


def test_dataframe_tables():
    t = _df_table(pd.DataFrame({'model': ['knn', 'tree'], 'acc': [0.91, 0.87]}))
    assert t.splitlines() == ['|   | model | acc |', '|---|---|---:|', '| 0 | knn | 0.91 |', '| 1 | tree | 0.87 |']
    # named index and columns (a response matrix): "index / columns" in the corner
    U = pd.DataFrame([[1, 0], [1, 1]], index=pd.Index(['C4.5', 'SVM'], name='model'),
                     columns=pd.Index([0, 1], name='instance'))
    lines = _df_table(U).splitlines()
    assert lines[0] == '| model / instance | 0 | 1 |' and lines[2] == '| C4.5 | 1 | 0 |'
    # a MultiIndex on the rows (rowspan) and a pipe in a value
    m = pd.DataFrame({'v': [1, 2, 3]}, index=pd.MultiIndex.from_tuples([('a', 'x|y'), ('a', 'z'), ('b', 'z')]))
    lines = _df_table(m).splitlines()
    assert lines[2:] == ['| a | x\\|y | 1 |', '|   | z | 2 |', '| b | z | 3 |']
    # a MultiIndex on the columns (colspan): the top label repeats
    c = pd.DataFrame({('a', 'x'): [1.5], ('a', 'y'): [3], ('b', 'x'): [5]})
    assert _df_table(c).splitlines()[0] == '|   | a x | a y | b x |'
    assert make_readme.html_table_to_markdown('<b>no table</b>') is None


def test_render_cells(tmp_path):
    cells = [
        {'cell_type': 'markdown', 'metadata': {}, 'source': '# demo\n\n> summary'},
        {'cell_type': 'markdown', 'metadata': {}, 'source': 'See [data](00_data.ipynb) and [site](https://x.org/a.ipynb).'},
        {'cell_type': 'markdown', 'metadata': {}, 'source': '<img src="gallery/a.svg"> [report](gallery/report.html) [top](#top) <https://x.org>'},
        {'cell_type': 'code', 'metadata': {}, 'execution_count': 1, 'source': '#| hide\nimport secret', 'outputs': []},
        {'cell_type': 'code', 'metadata': {}, 'execution_count': 1, 'source': '#| export\ndef f(): pass', 'outputs': []},
        {'cell_type': 'code', 'metadata': {}, 'execution_count': 1, 'source': '#| echo: false\nprint(1)',
         'outputs': [{'output_type': 'stream', 'name': 'stdout', 'text': ['1\n']},
                     {'output_type': 'stream', 'name': 'stderr', 'text': ['FutureWarning: noise\n']}]},
        {'cell_type': 'code', 'metadata': {}, 'execution_count': 2, 'source': 'x = 2\nx',
         'outputs': [{'output_type': 'execute_result', 'execution_count': 2, 'metadata': {},
                      'data': {'text/plain': '2'}}]},
        {'cell_type': 'code', 'metadata': {}, 'execution_count': 3, 'source': '#| output: false\nchart',
         'outputs': [{'output_type': 'execute_result', 'execution_count': 3, 'metadata': {},
                      'data': {'text/html': '<div>chart</div>'}}]},
    ]
    nb = tmp_path/'index.ipynb'
    nb.write_text(json.dumps({'cells': cells, 'metadata': {}, 'nbformat': 4, 'nbformat_minor': 5}))
    text, files = make_readme.render_readme(nb)
    assert text.startswith('# demo\n\n> summary\n\n<!-- WARNING: generated from nbs/index.ipynb')
    assert '[data](nbs/00_data.ipynb)' in text and '(https://x.org/a.ipynb)' in text
    assert '<img src="nbs/gallery/a.svg">' in text and '[report](nbs/gallery/report.html)' in text
    assert '[top](#top)' in text and '<https://x.org>' in text
    assert 'secret' not in text and 'def f' not in text and 'print(1)' not in text
    assert '```\n1\n```' in text and 'FutureWarning' not in text
    assert '```python\nx = 2\nx\n```\n\n```\n2\n```' in text
    assert '```python\nchart\n```' in text and '<div>chart</div>' not in text
    assert files == {}
