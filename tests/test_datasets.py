"Every loader of robustdiff.datasets and robustdiff.tables, and the names it must refuse (Dataset's own checks are in nbs/00_data.ipynb)."
import numpy as np, pandas as pd, pytest
from robustdiff.data import Dataset, from_frame
from robustdiff.tables import from_csv
from robustdiff.datasets import load_sklearn, make_synthetic, load_pmlb, load_keel, load_dataset, data_dir, keel_names

@pytest.mark.parametrize('name,shape', [('iris', (150, 4, 3)), ('wine', (178, 13, 3)),
                                        ('breast_cancer', (569, 30, 2)), ('digits', (1797, 64, 10))])
def test_bundled(name, shape):
    d = load_sklearn(name)
    assert (d.n_instances, d.n_features, d.n_classes) == shape
    assert d.nominal == () and all(d.X.dtypes == 'float64')

@pytest.mark.parametrize('name', ['moons', 'circles', 'linearly_separable'])
def test_synthetic_seeded(name):
    a, b, c = make_synthetic(name, 120, random_state=1), make_synthetic(name, 120, random_state=1), make_synthetic(name, 120, random_state=2)
    assert a.n_instances == 120 and a.n_classes == 2 and a.n_features == 2
    pd.testing.assert_frame_equal(a.X, b.X)
    assert not a.X.equals(c.X)

def test_csv_with_nominal_column(tmp_path):
    df = pd.DataFrame({'x': np.arange(10.), 'colour': list('rgbrgbrgbr'), 'code': [1, 2] * 5, 'y': list('ab') * 5})
    df.to_csv(tmp_path/'d.csv', index=False)
    d = from_csv(tmp_path/'d.csv', 'y')
    assert d.nominal == ('colour',) and d.numeric == ('x', 'code')
    assert d.X['colour'].dtype.name == 'category'
    d2 = from_csv(tmp_path/'d.csv', 'y', nominal=['colour', 'code'])
    assert d2.nominal == ('colour', 'code')
    assert load_dataset(str(tmp_path/'d.csv'), target='y').n_instances == 10

def test_pmlb_folder():
    folder = data_dir('pmlb')
    assert folder is not None and folder.is_dir(), 'the repository carries its real data in data/'
    d = load_pmlb('nursery')
    assert (d.n_instances, d.n_features, d.n_classes) == (12958, 8, 4)
    assert len(d.nominal) == 7      # 'discrete' features of the metadata; 'finance' is binary
    assert load_pmlb('nursery', nominal=[]).nominal == ()
    assert load_dataset('pmlb:vowel').n_classes == 11
    with pytest.raises(ValueError, match='unknown PMLB dataset'): load_pmlb('nope')

def test_pmlb_needs_a_folder(monkeypatch):
    import robustdiff.datasets as rd
    monkeypatch.delenv('ROBUSTDIFF_DATA', raising=False)
    monkeypatch.setattr(rd, '_checkout_data', lambda: None)   # as an installed wheel without the repository
    assert rd.data_dir() is None
    with pytest.raises(ValueError, match='ROBUSTDIFF_DATA'): load_pmlb('letter')

def test_data_dir_rule(monkeypatch, tmp_path):
    import robustdiff.datasets as rd
    monkeypatch.delenv('ROBUSTDIFF_DATA', raising=False)
    repo = rd._checkout_data()
    assert repo is not None and (repo/'pmlb'/'letter.tsv.gz').is_file(), 'a checkout finds its own data/ folder'
    assert rd.data_dir('irt') == repo/'irt'
    monkeypatch.setenv('ROBUSTDIFF_DATA', str(tmp_path))        # the environment variable wins
    assert rd.data_dir('pmlb') == tmp_path/'pmlb'
    with pytest.raises(FileNotFoundError, match='data folder not found'): load_pmlb('letter')

@pytest.mark.parametrize('name', ['banana', 'iris', 'mushroom', 'crx', 'vehicle'])
def test_keel(name):
    d = load_keel(name)
    assert d.n_instances > 100 and d.n_classes >= 2
    assert not d.X.isna().any().any()
    assert name in keel_names()

def test_keel_nominal_and_missing():
    m = load_keel('mushroom'); assert len(m.nominal) == 22
    c = load_keel('crx'); assert 0 < len(c.nominal) < c.n_features

# bad input of Dataset and from_frame: unit checks in nbs/00_data.ipynb; the loaders' names here -----------------------
def test_unknown_names():
    with pytest.raises(ValueError, match='unknown dataset'): load_dataset('nonsense')
    with pytest.raises(ValueError, match='unknown bundled'): load_dataset('sklearn:nope')
    with pytest.raises(ValueError, match='unknown synthetic'): load_dataset('synthetic:spirals')
    with pytest.raises(ValueError, match='unknown KEEL'): load_dataset('keel:nope')
    with pytest.raises(ValueError, match='target column'): from_frame(pd.DataFrame({'a': [1, 2]}), 'y')


def test_from_file_reads_a_continuous_target_as_regression_unless_told(tmp_path):
    "`from_file` takes `task` as `from_frame` does: 'auto' reads a continuous target as numbers, 'classification' as classes."
    from robustdiff.tables import from_file
    rng = np.random.default_rng(0)
    p = tmp_path/'cont.csv'
    pd.DataFrame({'x': rng.normal(size=300), 'y': rng.normal(size=300).round(3)}).to_csv(p, index=False)
    d = from_file(p, 'y')
    assert d.task == 'regression' and str(d.y.dtype) == 'float64'
    assert from_file(p, 'y', task='classification').y.nunique() > 100
    with pytest.raises(ValueError, match='numeric'): from_frame(pd.DataFrame({'x': [1., 2., 3.], 'y': list('abc')}), 'y', task='regression')


# real regression tables in data/regression/: the README's table is what the tests hold the files to -------------------
import os, re, subprocess, sys
from pathlib import Path
from robustdiff.data import default_tolerance
from robustdiff.datasets import load_regression, regression_names

REPO = Path(__file__).resolve().parents[1]
REG = REPO/'data'/'regression'

def _readme_tables()->list:
    "The rows of data/regression/README.md's table (between its <!-- tables --> markers), as dicts by header."
    body = (REG/'README.md').read_text().split('<!-- tables -->')[1].split('<!-- /tables -->')[0].strip().splitlines()
    cells = lambda line: [v.strip() for v in line.strip().strip('|').split('|')]
    head = cells(body[0])
    rows = [dict(zip(head, cells(l))) for l in body[2:]]
    assert rows and all(len(r) == len(head) for r in rows), 'every README row has every column'
    return rows

README_ROWS = _readme_tables()

def test_regression_readme_names_every_file():
    names = [r['name'] for r in README_ROWS]
    assert len(names) >= 9 and len(set(names)) == len(names)
    assert sorted(names) == regression_names() == sorted(p.name[:-7] for p in REG.glob('*.csv.gz'))
    assert sum(p.stat().st_size for p in REG.glob('*.csv.gz')) < 3e6, 'data/ stays small'
    assert any(int(r['gaps']) > 0 and int(r['text columns']) > 0 for r in README_ROWS), 'a table with gaps and text'
    assert any(int(r['rows']) >= 5000 for r in README_ROWS), 'a table of at least 5 000 rows'

@pytest.mark.parametrize('row', README_ROWS, ids=[r['name'] for r in README_ROWS])
def test_regression_table_as_the_readme_says(row):
    d = load_dataset(f"reg:{row['name']}")
    assert d.regression and d.task == 'regression' and d.name == row['name']
    assert (d.n_instances, d.n_features) == (int(row['rows']), int(row['features']))
    assert int(d.X.isna().sum().sum()) == int(row['gaps']) and len(d.nominal) == int(row['text columns'])
    assert str(d.y.dtype) == 'float64' and not d.y.isna().any() and d.y.nunique() > 30
    assert d.tolerance == pytest.approx(default_tolerance(d.y)) and d.tolerance > 0
    for col in re.findall(r'`([^`]+)`', row['dropped (why)']): assert col not in d.X.columns, f'{col} gives the target away'
    assert list(pd.read_csv(REG/f"{row['name']}.csv.gz", nrows=0).columns)[-1] == 'target'

def test_regression_options_and_names():
    assert load_regression('Salaries', tolerance=1000.0).tolerance == 1000.0     # names are case-blind; τ as given
    assert load_regression('slid', missing='drop').n_instances < load_regression('slid').n_instances
    with pytest.raises(ValueError, match=r"unknown regression table 'concrete'.*available: \['births14'"): load_dataset('reg:concrete')
    with pytest.raises(TypeError, match='string'): load_regression(3)
    with pytest.raises(ValueError, match='unknown regression table'): load_regression('../regression/wage')   # names, not paths

def test_regression_needs_a_folder(monkeypatch):
    import robustdiff.datasets as rd
    monkeypatch.delenv('ROBUSTDIFF_DATA', raising=False)
    monkeypatch.setattr(rd, '_checkout_data', lambda: None)   # as an installed wheel without the repository
    with pytest.raises(ValueError, match='ROBUSTDIFF_DATA'): load_regression('wage')
    with pytest.raises(ValueError, match='ROBUSTDIFF_DATA'): regression_names()

def test_regression_tables_travel_with_a_clone(tmp_path):
    "Every table and its README are tracked by git, and a process started elsewhere finds them beside the package."
    tracked = subprocess.run(['git', 'ls-files', 'data/regression'], cwd=REPO, capture_output=True, text=True, check=True).stdout.split()
    assert {f"data/regression/{r['name']}.csv.gz" for r in README_ROWS} | {'data/regression/README.md'} <= set(tracked)
    env = {k: v for k, v in os.environ.items() if k != 'ROBUSTDIFF_DATA'} | {'PYTHONPATH': str(REPO)}
    code = "from robustdiff.datasets import load_dataset; d = load_dataset('reg:births14'); print(d.n_instances, d.task)"
    out = subprocess.run([sys.executable, '-c', code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == [next(r['rows'] for r in README_ROWS if r['name'] == 'births14'), 'regression']
