"""Hostile files (issue 44): a `--model` skops file or a risk file never runs code, writes a file or opens a socket.

Each hostile file is built here by writing the JSON schema inside a skops zip by hand: a reduce node that calls what it
names with the arguments it chooses (`exec` through numpy's test helper, gzip's `GzipFile(path, 'wb')` and tempfile,
threading, multiprocessing and joblib classes re-exported by scikit-learn modules), plain functions and bound methods.
Risk files get a crafted header with a recomputed SHA-256, or the signed header of a real file over another payload.
Every case is refused before loading, no marker file appears and the victim file keeps its bytes. The signing key lives
in a temporary configuration folder (`ROBUSTDIFF_CONFIG_DIR`)."""
import hashlib, io, json, os, stat, sys, threading, warnings, zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import skops.io as sio
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer

from robustdiff.cli import main, _models
from robustdiff.portfolio import load_model
from robustdiff.risk import load_risk
from robustdiff.risk_fit import fit_risk
from robustdiff.risk_io import RiskFileError
from robustdiff.risk_io import write_risk_file

_MAGIC = b'robustdiff risk model'


class _Lazy:
    "robustdiff._trust, imported when first used (so that this suite runs, and fails case by case, on code without it)."
    def __getattr__(self, name):
        import importlib
        return getattr(importlib.import_module('robustdiff._trust'), name)
_trust = _Lazy()


@pytest.fixture(autouse=True)
def own_key(tmp_path_factory, monkeypatch):
    "Every test signs with a key in a temporary configuration folder, never the user's."
    d = tmp_path_factory.mktemp('config')
    monkeypatch.setenv('ROBUSTDIFF_CONFIG_DIR', str(d))
    return d


# ---- building hostile skops payloads -------------------------------------------------------------------------------

def _j(v): return {"__class__": type(v).__name__, "__module__": "builtins", "__loader__": "JsonNode", "content": json.dumps(v), "is_json": True}

def _dict(): return {"__class__": "dict", "__module__": "builtins", "__loader__": "DictNode", "content": {},
                     "key_types": {"__class__": "list", "__module__": "builtins", "__loader__": "ListNode", "content": []}}

def _tuple(*vs): return {"__class__": "tuple", "__module__": "builtins", "__loader__": "TupleNode",
                         "content": [v if isinstance(v, dict) else _j(v) for v in vs]}

def _call(name, *args):
    "A reduce node: skops calls `name` with `args` when it loads the file."
    mod, _, cls = name.rpartition('.')
    return {"__class__": cls, "__module__": mod, "__loader__": "ConstructorFromReduceNode", "content": _tuple(*args)}

def _function(name):
    mod, _, fn = name.rpartition('.')
    return {"__class__": fn, "__module__": mod, "__loader__": "FunctionNode"}

def _skops(node)->bytes:
    "A skops zip whose top object is `node`, with the protocol of the installed skops."
    with zipfile.ZipFile(io.BytesIO(sio.dumps(LogisticRegression()))) as z: base = json.loads(z.read('schema.json'))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w') as z:
        z.writestr('schema.json', json.dumps(dict(node, protocol=base['protocol'], _skops_version=base['_skops_version'])))
    return buf.getvalue()

def _in_state(node)->bytes:
    "A risk-file payload: a dict whose 'notes' entry is `node` (the rest of a state does not matter to the check)."
    d = _dict(); d['content'] = {'notes': node}
    d['key_types']['content'] = [{"__class__": "str", "__module__": "builtins", "__loader__": "TypeNode"}]
    return _skops(d)


def _hostile(tmp:Path)->dict:
    "name → schema node of each hostile case; each, if it ran, would leave a file in `tmp` or change tmp/victim.txt."
    code = f"open({str(tmp / 'marker')!r}, 'w').write('ran')"
    return {
        'exec': _call('numpy.testing._private.utils.runstring', code, _dict()),
        'gzip': _call('sklearn.datasets._covtype.GzipFile', str(tmp / 'victim.txt'), 'wb'),
        'tempdir': _call('sklearn.datasets._covtype.TemporaryDirectory', 'x', 'marker', str(tmp)),
        'tempfile': _call('sklearn.datasets._base.NamedTemporaryFile', 'w', -1, None, None, 'x', 'marker', str(tmp), False),
        'thread': _call('sklearn.ensemble._forest.threading.Thread'),
        'listener': _call('sklearn.callback._transport.Listener', str(tmp / 'marker.sock')),
        'memory': _call('sklearn.datasets._lfw.Memory', str(tmp / 'marker-cache')),
        'function': _function('os.system'),
        'sklearn-function': _call('sklearn.utils.validation.check_memory', str(tmp / 'marker-mem')),
        'method': {"__class__": "Pipeline", "__module__": "sklearn.pipeline", "__loader__": "MethodNode",
                   "content": {"func": "fit", "obj": {"__class__": "Pipeline", "__module__": "sklearn.pipeline", "__loader__": "ObjectNode"}}},
    }


@pytest.fixture
def victim(tmp_path):
    (tmp_path / 'victim.txt').write_text('precious')
    return tmp_path

def _untouched(tmp:Path):
    "Nothing the hostile files would create exists, and the victim keeps its bytes."
    assert (tmp / 'victim.txt').read_text() == 'precious'
    made = [p.name for p in tmp.iterdir() if 'marker' in p.name]
    assert not made, made


# ---- the rule ------------------------------------------------------------------------------------------------------

def test_the_rule_refuses_reexports_functions_and_test_modules_and_keeps_what_models_need():
    for bad in ('numpy.testing._private.utils.runstring', 'sklearn.datasets._covtype.GzipFile', 'sklearn.datasets._covtype.TemporaryDirectory',
                'sklearn.ensemble._forest.threading.Thread', 'sklearn.callback._transport.Listener', 'sklearn.datasets._lfw.Memory',
                'os.system', 'builtins.eval', 'posix.system', 'sklearn.utils.validation.check_memory', 'sklearn.pipeline.Pipeline.fit',
                'sklearn.utils._testing.MinimalClassifier', 'mymods.Thresh', 'sklearn.nope.Nope', 'numpy.load'):
        assert not _trust.trusted_type(bad), bad
    for good in ('sklearn.tree._tree.Tree', 'sklearn.pipeline.Pipeline', 'sklearn.compose._column_transformer.ColumnTransformer',
                 'robustdiff.difficulty_model.DifficultyEstimator', 'robustdiff._models.PlainColumns', 'functools.partial',
                 'sklearn.utils.validation.check_array', 'numpy.ndarray', *_trust.INTERNAL_CLASSES, *_trust.SAFE_FUNCTIONS):
        assert _trust.trusted_type(good), good


def test_every_sklearn_estimator_and_every_type_the_bundled_portfolios_hold_when_fitted_is_trusted():
    "The types found by saving every model of fabra18, pyhard7, ela2 and quick fitted (and the report's difficulty estimator)."
    from sklearn.utils import all_estimators
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        names = [f'{c.__module__}.{c.__qualname__}' for _, c in all_estimators()]
    assert [n for n in names if not _trust.trusted_type(n)] == []
    fitted = ['robustdiff.c45.C45Classifier', 'robustdiff.c45.PARTClassifier', 'robustdiff.c45._Node', 'robustdiff.c45._Test',
              'robustdiff.estimators.C45TreeClassifier', 'robustdiff.estimators.CITreeClassifier', 'robustdiff.estimators.FDAClassifier',
              'robustdiff.estimators.GaussianNBFloor', 'robustdiff.estimators.LVQClassifier', 'robustdiff.estimators.PLSDAClassifier',
              'robustdiff.estimators.PukSVC', 'robustdiff.estimators.RBFNetworkClassifier', 'robustdiff.estimators.RDAClassifier',
              'robustdiff.estimators.RPartClassifier', 'robustdiff.estimators.RuleEnsembleClassifier', 'robustdiff._models.PlattSVMLabels',
              'robustdiff.ripper.RipperClassifier', 'sklearn.calibration._CalibratedClassifier', 'sklearn.calibration._SigmoidCalibration',
              'sklearn.metrics._dist_metrics.EuclideanDistance64', 'sklearn.neighbors._kd_tree.KDTree', 'sklearn.tree._tree.Tree',
              'robustdiff.difficulty_model.DifficultyEstimator', 'robustdiff._models.PlainColumns']
    assert [n for n in fitted if not _trust.trusted_type(n)] == []


def test_resolving_a_name_never_imports_a_module_outside_sklearn_and_robustdiff():
    sys.modules.pop('this_module_does_not_exist', None)
    before = set(sys.modules)
    assert not _trust.trusted_type('this_module_does_not_exist.Thing') and not _trust.trusted_type('antigravity.fly')
    assert not {m for m in set(sys.modules) - before if not m.startswith(('sklearn', 'robustdiff'))}


# ---- model files ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize('case', ['exec', 'gzip', 'tempdir', 'tempfile', 'thread', 'listener', 'memory', 'function',
                                  'sklearn-function', 'method'])
def test_a_hostile_model_file_is_refused_before_loading(victim, case, capsys):
    f = victim / f'{case}.skops'
    f.write_bytes(_skops(_hostile(victim)[case]))
    with pytest.raises(ValueError, match=r"model file .*refused before loading.*trusted=\["):
        load_model(str(f))
    _untouched(victim)
    code = main(['report', str(victim / 'victim.txt'), '--target', 'y', '--model', str(f), '--out', str(victim / 'rep')])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and str(f) in err and '--trust ' in err, err
    _untouched(victim)


def _ns(**kw):
    import argparse
    return argparse.Namespace(**({'models': None, 'trust': None} | kw))


def test_a_pickle_an_empty_and_a_truncated_skops_file_each_say_so_in_one_line(tmp_path, capsys):
    import pickle
    (tmp_path / 'p.skops').write_bytes(pickle.dumps(LogisticRegression()))
    (tmp_path / 'e.skops').write_bytes(b'')
    (tmp_path / 't.skops').write_bytes(sio.dumps(LogisticRegression())[:300])
    for name, says in (('p', 'is a pickle'), ('e', 'is empty'), ('t', 'not a readable skops file')):
        with pytest.raises(ValueError, match=says): load_model(str(tmp_path / f'{name}.skops'))
        code = main(['report', str(tmp_path / 'x.csv'), '--model', str(tmp_path / f'{name}.skops'), '--out', str(tmp_path / 'r')])
        err = capsys.readouterr().err.strip()
        assert code == 2 and len(err.splitlines()) == 1 and f'{name}.skops' in err and says in err and 'BadZipFile' not in err, err


def test_a_model_whose_memory_is_set_is_refused_unless_trusted(tmp_path):
    sio.dump(Pipeline([('nb', GaussianNB())], memory=str(tmp_path / 'cache')), tmp_path / 'm.skops')
    with pytest.raises(ValueError, match=r"sets memory=.*refused"): load_model(str(tmp_path / 'm.skops'))
    assert load_model(str(tmp_path / 'm.skops'), trusted=['memory'])[1].memory == str(tmp_path / 'cache')
    assert not (tmp_path / 'cache').exists()


def test_trusting_a_function_by_name_warns_in_one_line(tmp_path, capsys):
    import math
    sio.dump(Pipeline([('f', FunctionTransformer(math.sqrt)), ('nb', GaussianNB())]), tmp_path / 'f.skops')
    with pytest.raises(ValueError, match=r"math\.sqrt"): load_model(str(tmp_path / 'f.skops'))
    with pytest.warns(_trust.TrustWarning, match='may call it with any arguments'):
        load_model(str(tmp_path / 'f.skops'), trusted='math.sqrt')
    _models(_ns(model=[str(tmp_path / 'f.skops')], trust=['math.sqrt']))        # the command line: one line on stderr
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith('robustdiff: warning:') and 'math.sqrt' in err, err


def test_trust_matches_a_name_of_the_current_folder_without_importing_it_first(tmp_path, monkeypatch):
    (tmp_path / 'mymods.py').write_text('from sklearn.naive_bayes import GaussianNB\nclass Thresh(GaussianNB): pass\n')
    monkeypatch.chdir(tmp_path); monkeypatch.syspath_prepend(str(tmp_path))
    import mymods
    sio.dump(mymods.Thresh(), tmp_path / 't.skops')
    sys.modules.pop('mymods'); sys.path.remove(str(tmp_path))
    with pytest.raises(ValueError, match=r"mymods\.Thresh"): load_model('t.skops')
    assert 'mymods' not in sys.modules                                    # refused without importing it
    try: assert type(load_model('t.skops', trusted=['mymods:Thresh'])[1]).__name__ == 'Thresh'   # module:attr spelling too
    finally: sys.modules.pop('mymods', None)
    assert str(tmp_path) not in sys.path


def test_module_attr_that_is_not_an_estimator_is_refused_before_it_is_called(tmp_path, monkeypatch, capsys):
    (tmp_path / 'mk.py').write_text("import sys\nfrom sklearn.naive_bayes import GaussianNB\n"
                                    "CALLED = []\ndef table(): CALLED.append(1); return {}\ndef needs(k): return GaussianNB()\n"
                                    "class Plain: pass\nexit = sys.exit\n")
    monkeypatch.chdir(tmp_path)
    for spec, says in (('sys:exit', 'refused without calling it'), ('mk:exit', 'refused without calling it'),
                       ('mk:Plain', 'not a scikit-learn estimator'), ('mk:needs', 'needs arguments (k)'),
                       ('mk:table', 'table() returned a dict')):
        with pytest.raises(ValueError, match=re_escape(says)): load_model(spec)
        code = main(['report', 'x.csv', '--model', spec, '--out', str(tmp_path / 'r')])     # no SystemExit, one line, exit 2
        err = capsys.readouterr().err.strip()
        assert code == 2 and len(err.splitlines()) == 1 and spec in err, err
    sys.modules.pop('mk', None)


def re_escape(s): import re; return re.escape(s)


# ---- risk files ----------------------------------------------------------------------------------------------------

def _frame(n=90, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({'x1': rng.normal(size=n), 'x2': rng.normal(size=n), 'c': rng.choice(['a', 'b'], n)})
    df['y'] = np.where(df.x1 + 0.5 * rng.normal(size=n) > 0, 'up', 'down')
    return df


@pytest.fixture(scope='module')
def report(tmp_path_factory):
    "A small report with the risk stage, written (and signed) with a key of its own; (folder, key folder)."
    cfg = tmp_path_factory.mktemp('cfg')
    old = os.environ.get('ROBUSTDIFF_CONFIG_DIR'); os.environ['ROBUSTDIFF_CONFIG_DIR'] = str(cfg)
    try:
        from robustdiff.report import build_report
        from robustdiff.data import from_frame
        out = tmp_path_factory.mktemp('rep') / 'r'
        rep = build_report(from_frame(_frame(), 'y', name='toy'), models='quick', respondents='models', stages='difficulty,risk',
                           out=out, progress=False, n_jobs=1, n_splits=3)
        assert rep.stages['risk'].status == 'ok', rep.stages['risk'].message
    finally:
        if old is None: os.environ.pop('ROBUSTDIFF_CONFIG_DIR')
        else: os.environ['ROBUSTDIFF_CONFIG_DIR'] = old
    return out, cfg


def _with_payload(raw:bytes, payload:bytes, fmt=None, keep_mac=True)->bytes:
    "A risk file with another payload and its SHA-256 recomputed (the header otherwise kept, or turned into format `fmt`)."
    _, head, _ = raw.split(b'\n', 2)
    meta = json.loads(head); meta['sha256'] = hashlib.sha256(payload).hexdigest()
    if fmt == 1: meta = {k: v for k, v in meta.items() if k not in ('types', 'hmac')} | {'format': 1}
    if not keep_mac: meta.pop('hmac', None)
    return _MAGIC + b'\n' + json.dumps(meta).encode() + b'\n' + payload


@pytest.mark.parametrize('case', ['exec', 'gzip', 'tempdir', 'listener', 'memory', 'function', 'sklearn-function', 'method'])
@pytest.mark.parametrize('header', ['format1', 'swapped-signed', 'unsigned', 'relisted-types'])
def test_a_crafted_risk_file_is_refused_before_loading(report, victim, case, header, own_key, capsys, monkeypatch):
    monkeypatch.setenv('ROBUSTDIFF_CONFIG_DIR', str(report[1]))           # the key the report was signed with
    raw = (report[0] / 'risk' / 'risk_model.rdrisk').read_bytes()
    payload = _in_state(_hostile(victim)[case])
    if header == 'format1': crafted = _with_payload(raw, payload, fmt=1)
    elif header == 'swapped-signed': crafted = _with_payload(raw, payload)          # a real signature over another payload
    elif header == 'unsigned': crafted = _with_payload(raw, payload, keep_mac=False)
    else:                                                                          # the hostile types listed, the signature kept
        _, head, _ = raw.split(b'\n', 2); meta = json.loads(head)
        meta['types'] = sorted(set(meta['types']) | set(sio.get_untrusted_types(data=payload)))
        crafted = _with_payload(_MAGIC + b'\n' + json.dumps(meta).encode() + b'\n' + b'', payload)
    f = victim / 'evil.rdrisk'; f.write_bytes(crafted)
    with pytest.raises(RiskFileError, match='refused'): load_risk(f)
    if header != 'format1':
        with pytest.raises(RiskFileError, match="not written by this user's robustdiff"): load_risk(f)
    _frame(5).drop(columns='y').to_csv(victim / 'new.csv', index=False)
    code = main(['score', str(f), str(victim / 'new.csv'), '--out', str(victim / 's.csv')])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and str(f) in err and '--trust ' in err, err
    assert not (victim / 's.csv').exists()
    _untouched(victim)


def test_a_signed_header_that_does_not_record_a_type_is_refused(report, monkeypatch, tmp_path):
    "Only reachable with the key: a header signed by this user whose payload names a type it does not list."
    monkeypatch.setenv('ROBUSTDIFF_CONFIG_DIR', str(report[1]))
    raw = (report[0] / 'risk' / 'risk_model.rdrisk').read_bytes()
    payload = _in_state({"__class__": "Counter", "__module__": "collections", "__loader__": "ObjectNode"})
    _, head, _ = raw.split(b'\n', 2); meta = json.loads(head)
    meta['sha256'] = hashlib.sha256(payload).hexdigest(); meta.pop('hmac')
    from robustdiff.risk_io import _signed_part
    meta['hmac'] = _trust.sign(_signed_part(meta, payload))
    (tmp_path / 'x.rdrisk').write_bytes(_MAGIC + b'\n' + json.dumps(meta).encode() + b'\n' + payload)
    with pytest.raises(RiskFileError, match=r"does not record \(collections\.Counter\)"): load_risk(tmp_path / 'x.rdrisk')


def test_the_reports_own_file_reads_without_flags_and_elsewhere_under_the_allow_list(report, monkeypatch, tmp_path):
    f = report[0] / 'risk' / 'risk_model.rdrisk'
    monkeypatch.setenv('ROBUSTDIFF_CONFIG_DIR', str(report[1]))
    rm = load_risk(f)
    head = json.loads(f.read_bytes().split(b'\n', 2)[1])
    assert head['format'] == 2 and 'sklearn.tree._tree.Tree' in head['types'] and len(head['hmac']) == 64
    monkeypatch.setenv('ROBUSTDIFF_CONFIG_DIR', str(tmp_path / 'other-user'))   # another user: its types are all on the allow-list
    assert list(load_risk(f).models) == list(rm.models)
    old = _with_payload(f.read_bytes(), f.read_bytes().split(b'\n', 2)[2], fmt=1)  # a file of format 1 (no types, no signature)
    (tmp_path / 'old.rdrisk').write_bytes(old)
    assert list(load_risk(tmp_path / 'old.rdrisk').models) == list(rm.models)


def test_the_signing_key_is_private_and_the_same_for_processes_starting_together(tmp_path, monkeypatch):
    monkeypatch.setenv('ROBUSTDIFF_CONFIG_DIR', str(tmp_path / 'cfg'))
    keys = []
    ts = [threading.Thread(target=lambda: keys.append(_trust.signing_key())) for _ in range(8)]
    for t in ts: t.start()
    for t in ts: t.join()
    assert len(set(keys)) == 1 and len(keys[0]) == 32
    assert stat.S_IMODE(os.stat(tmp_path / 'cfg' / 'signing.key').st_mode) == 0o600
    assert [p.name for p in (tmp_path / 'cfg').iterdir()] == ['signing.key']          # no temporary file left
    monkeypatch.delenv('ROBUSTDIFF_CONFIG_DIR'); monkeypatch.setenv('XDG_CONFIG_HOME', str(tmp_path / 'xdg'))
    assert _trust.config_dir() == tmp_path / 'xdg' / 'robustdiff'


# ---- score: outputs never replace inputs, broken cells, interrupts, temporary files --------------------------------

def test_score_out_may_not_replace_an_input(report, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv('ROBUSTDIFF_CONFIG_DIR', str(report[1]))
    rep = report[0]; rf = rep / 'risk' / 'risk_model.rdrisk'; before = rf.read_bytes()
    _frame(8).drop(columns='y').to_csv(tmp_path / 'new.csv', index=False)
    (tmp_path / 'folder').mkdir()
    cases = [(str(rf), 'is the risk model file'), (str(rep / 'risk' / 'x.csv'), 'inside the report folder'),
             (str(rep / 'tables.csv'), 'inside the report folder'), (str(rep), 'is the report folder'),
             (str(tmp_path / 'new.csv'), 'is the input data file'), (str(tmp_path / 'folder'), 'is a folder')]
    for out, says in cases:
        for model in (str(rep), str(rf)):
            code = main(['score', model, str(tmp_path / 'new.csv'), '--out', out])
            err = capsys.readouterr().err.strip()
            assert code == 2 and len(err.splitlines()) == 1 and says in err, (out, model, err)
    assert rf.read_bytes() == before and (tmp_path / 'folder').is_dir() and not (rep / 'risk' / 'x.csv').exists()


def test_score_names_inf_and_huge_cells_and_scores_the_other_rows(report, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv('ROBUSTDIFF_CONFIG_DIR', str(report[1]))
    new = _frame(12, seed=4).drop(columns='y')
    new.loc[3, 'x1'] = np.inf; new.loc[7, 'x2'] = 1e308; new.loc[9, 'x1'] = -1e300
    new.to_csv(tmp_path / 'new.csv', index=False)
    assert main(['score', str(report[0]), str(tmp_path / 'new.csv'), '--out', str(tmp_path / 's.csv')]) == 0
    err = capsys.readouterr().err
    line = [l for l in err.splitlines() if 'not scored' in l]
    assert len(line) == 1 and "column 'x1'" in line[0] and 'rows 3, 9' in line[0] and "column 'x2'" in line[0] and 'row 7' in line[0], err
    s = pd.read_csv(tmp_path / 's.csv')
    assert sorted(s.row.unique()) == [r for r in range(12) if r not in (3, 7, 9)] and s.prediction.notna().all()
    assert "first training fold" in err                                   # what the deployed models are
    rm = load_risk(report[0] / 'risk' / 'risk_model.rdrisk')
    with pytest.raises(ValueError, match=r"column 'x1' holds inf .* \(rows 3, 9\)"): rm.predict_risk(new)
    new[['x1']] = np.inf; new.to_csv(tmp_path / 'all.csv', index=False)
    assert main(['score', str(report[0]), str(tmp_path / 'all.csv'), '--out', str(tmp_path / 't.csv')]) == 2
    assert 'nothing to score' in capsys.readouterr().err and not (tmp_path / 't.csv').exists()


def test_score_interrupted_says_one_line_exits_130_and_leaves_no_temporary_file(report, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv('ROBUSTDIFF_CONFIG_DIR', str(report[1]))
    _frame(8).drop(columns='y').to_csv(tmp_path / 'new.csv', index=False)
    real = pd.DataFrame.to_csv
    def half_then_interrupt(self, path, *a, **k):
        Path(path).write_text('row,model\n0,')                         # half a file, then Ctrl-C
        raise KeyboardInterrupt
    monkeypatch.setattr(pd.DataFrame, 'to_csv', half_then_interrupt)
    code = main(['score', str(report[0]), str(tmp_path / 'new.csv'), '--out', str(tmp_path / 's.csv')])
    monkeypatch.setattr(pd.DataFrame, 'to_csv', real)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 130 and err[-1].startswith('robustdiff: interrupted') and 'rerun' not in err[-1]
    assert not any('Traceback' in l for l in err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ['new.csv']      # neither the output nor its temporary file


def test_score_sweeps_temporary_files_of_dead_processes(report, tmp_path, monkeypatch):
    import subprocess
    monkeypatch.setenv('ROBUSTDIFF_CONFIG_DIR', str(report[1]))
    _frame(8).drop(columns='y').to_csv(tmp_path / 'new.csv', index=False)
    p = subprocess.Popen([sys.executable, '-c', 'pass']); p.wait()          # a pid that no longer runs
    (tmp_path / f'.s.csv.tmp-{p.pid}').write_text('x' * 1000)
    (tmp_path / f'.s.csv.tmp-{os.getppid()}').write_text('a running process')   # not ours to remove
    assert main(['score', str(report[0]), str(tmp_path / 'new.csv'), '--out', str(tmp_path / 's.csv')]) == 0
    assert sorted(q.name for q in tmp_path.iterdir()) == sorted(['new.csv', 's.csv', f'.s.csv.tmp-{os.getppid()}'])


def test_score_prints_the_duplicate_column_warning_in_one_line(report, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv('ROBUSTDIFF_CONFIG_DIR', str(report[1]))
    new = _frame(6).drop(columns='y')
    (tmp_path / 'dup.csv').write_text('x1,x2,c,x1\n' + '\n'.join(f'{a},{b},{c},{a}' for a, b, c in new.itertuples(index=False)) + '\n')
    assert main(['score', str(report[0]), str(tmp_path / 'dup.csv'), '--out', str(tmp_path / 's.csv')]) == 0
    err = capsys.readouterr().err.splitlines()
    warn = [l for l in err if 'more than once' in l]
    assert len(warn) == 1 and warn[0].startswith('robustdiff: warning:'), err
    assert not any('warnings.warn' in l or 'DataWarning' in l for l in err), err


# ---- end to end: the user's passthrough pipeline, report then score with no flag ------------------------------------

def test_report_with_a_module_pipeline_then_score_without_a_flag(tmp_path, monkeypatch, capsys):
    "A ColumnTransformer(remainder='passthrough') + HistGradientBoosting over a categorical column holds functools.partial and check_array."
    df = _frame(90)
    df.to_csv(tmp_path / 'T.csv', index=False); df.drop(columns='y').head(20).to_csv(tmp_path / 'new.csv', index=False)
    (tmp_path / 'mymod.py').write_text(
        "import pandas as pd\nfrom sklearn.compose import ColumnTransformer\nfrom sklearn.ensemble import HistGradientBoostingClassifier\n"
        "from sklearn.pipeline import Pipeline\nfrom sklearn.preprocessing import OrdinalEncoder\n"
        "def make(): return Pipeline([('ct', ColumnTransformer([('cat', OrdinalEncoder(), ['c'])], remainder='passthrough')),\n"
        "                             ('hgb', HistGradientBoostingClassifier(categorical_features=[0], max_iter=10, random_state=0))])\n"
        "pipe = make()\n_df = pd.read_csv('T.csv')\nfitted = make().fit(_df.drop(columns='y'), _df.y)\n")
    monkeypatch.chdir(tmp_path)
    code = main(['report', 'T.csv', '--target', 'y', '--model', 'mine=mymod:pipe', '--model', 'fit=mymod:fitted', '--models', 'quick',
                 '--respondents', 'models', '--stages', 'difficulty,risk', '--folds', '3', '--n-jobs', '1', '--quiet', '--out', 'REP'])
    assert code == 0, capsys.readouterr().err
    types = json.loads((tmp_path / 'REP' / 'risk' / 'risk_model.rdrisk').read_bytes().split(b'\n', 2)[1])['types']
    assert {'functools.partial', 'sklearn.utils.validation.check_array'} <= set(types)
    capsys.readouterr()
    assert main(['score', 'REP', 'new.csv', '--out', 's.csv']) == 0, capsys.readouterr().err
    s = pd.read_csv(tmp_path / 's.csv')
    assert set(s.model) == {'logreg', 'cart', 'knn3', 'nb', 'mine', 'fit'} and len(s) == 20 * 6
    sys.modules.pop('mymod', None)


def test_score_out_through_a_symlink_writes_its_target_and_keeps_the_link(report, tmp_path, monkeypatch):
    monkeypatch.setenv('ROBUSTDIFF_CONFIG_DIR', str(report[1]))
    _frame(8).drop(columns='y').to_csv(tmp_path / 'new.csv', index=False)
    (tmp_path / 'target.csv').write_text('old'); (tmp_path / 'link.csv').symlink_to(tmp_path / 'target.csv')
    assert main(['score', str(report[0]), str(tmp_path / 'new.csv'), '--out', str(tmp_path / 'link.csv')]) == 0
    assert (tmp_path / 'link.csv').is_symlink() and len(pd.read_csv(tmp_path / 'target.csv')) == 8 * 4


def test_without_a_writable_configuration_folder_the_file_is_written_unsigned_with_a_warning(tmp_path, monkeypatch):
    (tmp_path / 'ro').mkdir(); (tmp_path / 'ro' / 'cfg').write_text('a file where the folder should be')
    monkeypatch.setenv('ROBUSTDIFF_CONFIG_DIR', str(tmp_path / 'ro' / 'cfg'))
    X, y = np.random.default_rng(0).normal(size=(40, 2)), np.r_[np.zeros(20), np.ones(20)]
    with pytest.warns(_trust.TrustWarning, match='written unsigned'):
        p = write_risk_file(dict(model=LogisticRegression().fit(X, y)), tmp_path / 'm.rdrisk', {})
    assert 'hmac' not in json.loads(p.read_bytes().split(b'\n', 2)[1])
    from robustdiff.risk_io import read_risk_file
    assert read_risk_file(p)['model'].predict(X).shape == (40,)          # read under the allow-list


def test_a_pipeline_selecting_columns_by_dtype_loads_without_flags(tmp_path):
    "make_column_selector(dtype_include=object) / np.number, as scikit-learn's examples write it: the dtypes are trusted, nothing else is added."
    from sklearn.compose import ColumnTransformer, make_column_selector
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.preprocessing import OrdinalEncoder, StandardScaler
    X = pd.DataFrame({'a': ['x', 'y', 'x', 'y'] * 10, 'b': np.arange(40.0), 'c': np.arange(40) % 3})
    y = np.arange(40) % 2
    pipe = Pipeline([('ct', ColumnTransformer([('cat', OrdinalEncoder(), make_column_selector(dtype_include=object)),
                                               ('num', StandardScaler(), make_column_selector(dtype_include=np.number))])),
                     ('hgb', HistGradientBoostingClassifier(max_iter=5))]).fit(X, y)
    sio.dump(pipe, tmp_path/'p.skops')
    assert {'builtins.object', 'numpy.number'} <= set(sio.get_untrusted_types(file=tmp_path/'p.skops'))
    name, est = load_model(f'mine={tmp_path/"p.skops"}')
    np.testing.assert_array_equal(est.predict(X), pipe.predict(X))
    assert not _trust.trusted_type('builtins.eval') and not _trust.trusted_type('builtins.open')
