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


def test_from_file_refuses_a_continuous_target_unless_told(tmp_path):
    "`from_file` takes `task` as `from_frame` does: a continuous target is refused by default, read as classes when told."
    from robustdiff.tables import from_file
    rng = np.random.default_rng(0)
    p = tmp_path/'cont.csv'
    pd.DataFrame({'x': rng.normal(size=300), 'y': rng.normal(size=300).round(3)}).to_csv(p, index=False)
    with pytest.raises(ValueError, match='continuous'): from_file(p, 'y')
    assert from_file(p, 'y', task='classification').y.nunique() > 100
