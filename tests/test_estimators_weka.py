"""`PukSVC` (robustdiff.estimators) against Weka 3.6.14's SMO with the Puk kernel, replayed without Java.
Fixtures (`tests/data/weka_smo/<case>/`, written by `benchmarks/studies/slh16_study.py`): the train/test split as ARFF and Weka's labels."""
import json
from pathlib import Path
import numpy as np, pytest

SMO = Path(__file__).parent/'data'/'weka_smo'


def _read_arff_numeric(path):
    "Numeric ARFF (quoted nominal class last) → (X, y as strings)."
    import gzip
    rows, data = [], False
    with gzip.open(path, 'rt') as f:
        for line in f:
            line = line.strip()
            if not line: continue
            if data: rows.append(line.split(','))
            elif line.lower().startswith('@data'): data = True
    a = np.array(rows, dtype=object)
    return a[:, :-1].astype(float), np.array([v.strip("'") for v in a[:, -1]])


@pytest.mark.parametrize('case', sorted(p.name for p in SMO.iterdir() if p.is_dir()))
def test_puksvc_gives_weka_smo_puk_labels(case):
    "[SLH16]'s SVM: Weka 3.6.14 SMO -C 100 with Puk(σ = ω = 1) on [0, 1]-normalised inputs; PukSVC's labels are Weka's, row by row."
    from robustdiff.estimators import PukSVC
    ref = json.loads((SMO/case/'SMO_Puk.json').read_text())
    Xtr, ytr = _read_arff_numeric(SMO/case/'train.arff.gz')
    Xte, _ = _read_arff_numeric(SMO/case/'test.arff.gz')
    pred = PukSVC(C=100.0, sigma=1.0, omega=1.0, scale='minmax').fit(Xtr, ytr).predict(Xte)
    assert pred.tolist() == ref['predictions']
