"""`C45Classifier` and `PARTClassifier` against Weka 3.6.14's J48 and PART, replayed without Java.

Fixtures (`tests/data/weka/<data set>/`, written by `benchmarks/weka_fixtures.py`): the train/test split as ARFF, and
for each model the model as Weka printed it and its per-instance predictions on the test rows (`-p 0`), each after
the command that wrote it. The structure must be identical (the same tests in the same order, attributes, operators,
thresholds to 1e-9, leaf classes and counts) and so must every prediction.
"""
import gzip, re
from pathlib import Path
import numpy as np
import pandas as pd
import pytest
from robustdiff.c45 import C45Classifier, PARTClassifier

FIXTURES = Path(__file__).parent/'data'/'weka'
DATASETS = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir())
OPTIONS = {'J48': (C45Classifier, {}), 'J48_U': (C45Classifier, dict(unpruned=True)),
           'J48_B': (C45Classifier, dict(binary_splits=True)), 'J48_S': (C45Classifier, dict(subtree_raising=False)),
           'PART': (PARTClassifier, {})}


def read_arff(path):
    "Features (nominal attributes as categoricals in the declared level order) and class codes (c3 → 3)."
    names, levels, rows, data = [], {}, [], False
    with gzip.open(path, 'rt') as f:
        for line in f:
            line = line.strip()
            if not line: continue
            if data: rows.append(line.split(',')); continue
            if line.lower().startswith('@attribute'):
                _, name, kind = line.split(None, 2); names.append(name)
                if kind.startswith('{'): levels[name] = kind.strip('{}').split(',')
            elif line.lower().startswith('@data'): data = True
    df = pd.DataFrame(rows, columns=names)
    y = np.array([int(v[1:]) for v in df.pop(names[-1])])
    for c in df.columns:
        df[c] = pd.Categorical(df[c], categories=levels[c]) if c in levels else df[c].astype(float)
    return df, y


def weka_output(path):
    "(model text, predicted class codes on the test rows) from a fixture file."
    text = Path(path).read_text()
    model, preds = text.split('# command:')[1:3]
    body = re.search(r'-{5,}\n\n(.*?)\n\n(?:Number of|Size of)', model, re.S).group(1).strip()
    return body, np.array([int(c) for c in re.findall(r'^\s*\d+\s+\d+:\S+\s+\d+:c(\d+)', preds, re.M)])


LINE = re.compile(r'^(?P<depth>(?:\|   )*)(?:(?P<attr>\S+) (?P<op><=|>|=|!=) (?P<value>\S+?))?'
                  r'(?:: c?(?P<cls>\d+) \((?P<n>[\d.]+)(?:/(?P<err>[\d.]+))?\))?( AND)?$')

def structure(text):
    "Each line of a printed tree or rule list as (depth, attribute, operator, value, class, count, errors); blank lines as None."
    out = []
    for line in text.strip().splitlines():
        if not line.strip(): out.append(None); continue
        m = LINE.match(line)
        assert m, f"unparsed line {line!r}"
        d = m.groupdict()
        value = d['value']
        if d['op'] in ('<=', '>'): value = float(value)
        out.append((len(d['depth']) // 4, d['attr'], d['op'], value, d['cls'] and int(d['cls']),
                    d['n'] and float(d['n']), float(d['err'] or 0) if d['n'] else None))
    return out


def assert_same_structure(ours, weka):
    assert len(ours) == len(weka), f"{len(ours)} lines against Weka's {len(weka)}"
    for k, (a, b) in enumerate(zip(ours, weka)):
        if a is None or b is None: assert a == b, (k, a, b); continue
        assert a[:3] == b[:3] and a[4:] == b[4:], f"line {k}: {a} against Weka's {b}"
        if isinstance(b[3], float): assert abs(a[3] - b[3]) <= 1e-9, f"line {k}: threshold {a[3]!r} against {b[3]!r}"
        else: assert a[3] == b[3], f"line {k}: {a} against Weka's {b}"


@pytest.mark.parametrize('model', list(OPTIONS))
@pytest.mark.parametrize('name', DATASETS)
def test_identical_to_weka(name, model):
    d = FIXTURES/name
    Xtr, ytr = read_arff(d/'train.arff.gz'); Xte, _ = read_arff(d/'test.arff.gz')
    cls, opts = OPTIONS[model]
    est = cls(**opts).fit(Xtr, ytr)
    text, weka_pred = weka_output(d/f'{model}.txt')
    assert_same_structure(structure(est.export_text()), structure(text))
    np.testing.assert_array_equal(est.predict(Xte), weka_pred)


def test_fixtures_cover_the_acceptance_range():
    "At least 10 data sets: numeric, nominal and mixed features, 2 to 26 classes, each with its Weka command."
    kinds, classes = set(), set()
    for name in DATASETS:
        X, y = read_arff(FIXTURES/name/'train.arff.gz')
        nom = sum(isinstance(X[c].dtype, pd.CategoricalDtype) for c in X.columns)
        kinds.add('nominal' if nom == X.shape[1] else 'numeric' if nom == 0 else 'mixed')
        classes.add(len(np.unique(y)))
        for model in OPTIONS: assert '# command: java -cp weka.jar weka.classifiers.' in (FIXTURES/name/f'{model}.txt').read_text()
    assert len(DATASETS) >= 10 and kinds == {'numeric', 'nominal', 'mixed'}, (DATASETS, kinds)
    assert min(classes) == 2 and max(classes) == 26, classes
    assert 'Weka 3.6.14' in (FIXTURES/'versions.txt').read_text()


def test_structure_parser_catches_a_changed_threshold():
    "The comparison can fail: a threshold moved by 1e-6 or a changed leaf count is reported."
    a = structure('a0 <= 0.5: c1 (3.0/1.0)\na0 > 0.5: c0 (2.0)')
    with pytest.raises(AssertionError): assert_same_structure(a, structure('a0 <= 0.500001: c1 (3.0/1.0)\na0 > 0.500001: c0 (2.0)'))
    with pytest.raises(AssertionError): assert_same_structure(a, structure('a0 <= 0.5: c1 (3.0)\na0 > 0.5: c0 (2.0)'))


def test_near_equal_values_end_the_growth():
    "Values within 1e-6 of each other: Weka's threshold choice can send every row of a node one way; that node is a leaf."
    for seed in range(20):
        rng = np.random.default_rng(seed)
        X = np.round(rng.uniform(size=(300, 3)), 1) + rng.integers(0, 2, (300, 3)) * 4e-7
        y = rng.integers(0, 3, 300)
        tree = C45Classifier(unpruned=True).fit(X, y)
        stack = [tree.tree_]
        while stack:
            nd = stack.pop()
            if nd.leaf: continue
            assert sum(len(s.rows) > 0 for s in nd.sons) >= 2
            stack.extend(nd.sons)
        assert PARTClassifier().fit(X, y).rules_[-1][0] == []
