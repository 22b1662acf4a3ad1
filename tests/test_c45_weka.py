"""`C45Classifier` and `PARTClassifier` against Weka 3.6.14's J48 and PART, replayed without Java.

Fixtures (`tests/data/weka/<data set>/`, written by `benchmarks/tools/weka_fixtures.py`): the train/test split as ARFF, and
for each model the model as Weka printed it and its per-instance predictions on the test rows (`-p 0`), each after
the command that wrote it. The structure must be identical (the same tests in the same order, attributes, operators,
thresholds to 1e-9, leaf classes and counts) and so must every prediction. For reduced-error pruning, the pruning
folds Weka's `StratifiedRemoveFolds` writes (`folds_S<seed>_N<folds>.txt`) must be the rows `_rep_folds` holds out.
"""
import gzip, re
from pathlib import Path
import numpy as np
import pandas as pd
import pytest
from robustdiff.c45 import C45Classifier, PARTClassifier, _rep_folds, _leaves, _route

FIXTURES = Path(__file__).parent/'data'/'weka'
DATASETS = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir())
OPTIONS = {'J48': (C45Classifier, {}), 'J48_U': (C45Classifier, dict(unpruned=True)),
           'J48_B': (C45Classifier, dict(binary_splits=True)), 'J48_S': (C45Classifier, dict(subtree_raising=False)),
           'PART': (PARTClassifier, {}),
           'J48_R': (C45Classifier, dict(reduced_error_pruning=True)),
           'J48_R_N5_B': (C45Classifier, dict(reduced_error_pruning=True, num_folds=5, binary_splits=True))}


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
    body = re.search(r'-{5,}\n\n?(.*?)\n\n(?:Number of|Size of)', model, re.S).group(1).strip()
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


def _row_key(values):
    "A data row as comparable text: numbers as floats (Weka writes -0.0 as 0), nominal levels as they are."
    out = []
    for v in values:
        try: out.append(repr(float(v) + 0.0))
        except ValueError: out.append(str(v))
    return tuple(out)


@pytest.mark.parametrize('fold_file', sorted(str(p.relative_to(FIXTURES)) for p in FIXTURES.glob('*/folds_S*_N*.txt')))
def test_pruning_fold_is_wekas(fold_file):
    "The rows held out for pruning are those of Weka's last stratified fold (seed 0: J48 -R's own split)."
    path = FIXTURES/fold_file
    seed, k = map(int, re.fullmatch(r'folds_S(\d+)_N(\d+)\.txt', path.name).groups())
    lines = path.read_text().splitlines()
    assert lines[0].startswith('# command: java -cp weka.jar weka.filters.supervised.instance.StratifiedRemoveFolds')
    weka = [_row_key(l.split(',')) for l in lines[1:]]
    X, y = read_arff(path.parent/'train.arff.gz')
    ours_rows = _rep_folds(y, k, None if seed == 0 else seed)[1]
    ours = {_row_key(list(X.iloc[i].astype(str)) + [f'c{y[i]}']) for i in ours_rows}
    assert len(ours_rows) == len(weka) == len(y) // k
    assert ours == set(weka)


def _fold_sets():
    return sorted({p.parent.name for p in FIXTURES.glob('*/folds_S*_N*.txt')})

def test_fold_fixtures_exist():
    "Three data sets (numeric, nominal, mixed) carry Weka's folds for three (seed, folds) settings."
    assert _fold_sets() == ['compas', 'nursery', 'yeast']
    for name in _fold_sets(): assert len(list((FIXTURES/name).glob('folds_S*_N*.txt'))) == 3


def _prune_errors(tree, X, y):
    "Errors of a tree (its root node) on coded rows X, y: each row's leaf predicts its growing-set majority (empty: the parent's)."
    err, stack = 0, [(tree, np.arange(len(y)), tree.counts)]
    while stack:
        nd, rows, parent = stack.pop()
        c = nd.counts if nd.counts.sum() > 0 else parent
        if nd.leaf: err += int((y[rows] != np.argmax(c)).sum()); continue
        s = _route(nd, X[rows, nd.attr])
        stack.extend((son, rows[s == k], c) for k, son in enumerate(nd.sons))
    return err


@pytest.mark.parametrize('seed', [None, 3, 11])
def test_reduced_error_pruning_never_adds_pruning_errors(seed):
    "On the pruning rows the pruned tree errs no more than the grown tree, and every remaining split earns its place."
    from robustdiff.c45 import _Grower, _rep_prune
    rng = np.random.default_rng(0 if seed is None else seed)
    X = rng.normal(size=(900, 5)); y = (X[:, 0] + 0.8 * rng.normal(size=900) > 0).astype(int) + (X[:, 1] > 1)
    grow, prune = _rep_folds(y, 3, seed)
    g = _Grower(X[grow], y[grow], 3, [0] * 5, all_X=X)
    full = g.grow(np.arange(len(grow)))
    e_full = _prune_errors(full, X[prune], y[prune])
    est = C45Classifier(reduced_error_pruning=True, seed=seed).fit(X, y)
    e_rep = _prune_errors(est.tree_, X[prune], y[prune])
    assert e_rep <= e_full and est.n_leaves_ < len(_leaves(full))
    # every split that survives makes strictly fewer errors on its pruning rows than its node would as a leaf
    stack, kept = [(est.tree_, np.arange(len(prune)), est.tree_.counts)], 0
    Xp, yp = X[prune], y[prune]
    while stack:
        nd, rows, parent = stack.pop()
        if nd.leaf: continue
        c = nd.counts if nd.counts.sum() > 0 else parent
        assert _prune_errors(nd, Xp[rows], yp[rows]) < int((yp[rows] != np.argmax(c)).sum()); kept += 1
        s = _route(nd, Xp[rows, nd.attr])
        stack.extend((son, rows[s == k], c) for k, son in enumerate(nd.sons))
    assert kept >= 1


def test_reduced_error_pruning_prunes_most_of_a_tree_grown_on_noise():
    """Labels independent of three-valued features: the grown tree has ~150-200 leaves; reduced-error pruning keeps
    at most a third of them, and fewer than pessimistic pruning. (It does not go back to the root: a split kept
    because it happens to fit the pruning rows makes its parent look better than a leaf too.)"""
    for seed in range(5):
        rng = np.random.default_rng(seed)
        X = rng.integers(0, 3, size=(600, 10)).astype(float); y = rng.integers(0, 2, 600)
        grown = C45Classifier(unpruned=True, collapse_tree=False).fit(X, y).n_leaves_
        rep = C45Classifier(reduced_error_pruning=True).fit(X, y).n_leaves_
        assert grown > 100 and rep <= grown / 3 and rep < C45Classifier().fit(X, y).n_leaves_, (seed, grown, rep)


def test_reduced_error_pruning_is_deterministic_per_seed():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(500, 3)); y = (X[:, 0] + rng.normal(size=500) > 0).astype(int)
    texts = {s: C45Classifier(reduced_error_pruning=True, seed=s).fit(X, y).export_text() for s in (None, 1, 2)}
    for s in (None, 1, 2):
        assert C45Classifier(reduced_error_pruning=True, seed=s).fit(X, y).export_text() == texts[s]
    assert len(set(texts.values())) > 1    # another split, another tree


def test_reduced_error_pruning_bad_options():
    X, y = np.random.default_rng(0).normal(size=(20, 2)), np.arange(20) % 2
    for kw, msg in ((dict(unpruned=True), 'exclude each other'), (dict(num_folds=1), 'num_folds'),
                    (dict(num_folds=2.0), 'num_folds'), (dict(seed='a'), 'seed'), (dict(seed=True), 'seed')):
        with pytest.raises(ValueError, match=msg): C45Classifier(reduced_error_pruning=True, **kw).fit(X, y)
    # tiny data: two rows, three folds: the pruning fold is empty and the tree is its root
    assert C45Classifier(reduced_error_pruning=True).fit(np.array([[0.], [1.]]), [0, 1]).n_leaves_ == 1


@pytest.mark.parametrize('model', ['J48_R', 'J48_R_N5_B'])
@pytest.mark.parametrize('name', DATASETS)
def test_reduced_error_pruning_distributions_are_wekas(name, model):
    "Each test row's class distribution (its leaf's growing-set counts, an empty leaf's parent's) as Weka prints it, to 3 decimals."
    d = FIXTURES/name
    Xtr, ytr = read_arff(d/'train.arff.gz'); Xte, _ = read_arff(d/'test.arff.gz')
    cls, opts = OPTIONS[model]
    preds = (d/f'{model}.txt').read_text().split('# command:')[2]
    assert '-distribution' in preds.splitlines()[0]
    weka = np.array([[float(v.lstrip('*')) for v in m.split(',')]
                     for m in re.findall(r'^\s*\d+\s+\d+:\S+\s+\d+:\S+\s+\+?\s*(\S+)\s*$', preds, re.M)])
    ours = cls(**opts).fit(Xtr, ytr).predict_proba(Xte)
    assert weka.shape == ours.shape
    np.testing.assert_allclose(ours, weka, atol=5e-4 + 1e-9)
