"""Pinned outputs of the fabra18 stand-ins (robustdiff.estimators / robustdiff.ripper): the speed-ups of issue 16 must
leave rules and predictions IDENTICAL. The fixtures in tests/data/estimators_ref/ were written by the code of commit
af743a7 (before any optimisation) with `python tests/test_estimators_ref.py --write`; this test refits and compares.

Some stand-ins' numbers depend on the numerical libraries too (k-means and logistic regression in `rbf`, least
squares and LDA in `fda`): new numpy/scipy/scikit-learn releases changed them (2026-11-23: `rbf` by up to 1e-2 and
`fda` on nursery by whole labels, with af743a7's own code). So the fixtures record the library versions they were
written with (versions.json), `make test` installs those versions (constraints.txt), and a failure says when the
versions differ. The numbers depend on the CPU's BLAS kernels as well: OpenBLAS chooses them at run time (on an
AVX-512 machine its SkylakeX kernels move `rbf`'s probabilities by up to 4e-6 and `fda`'s labels on nursery), so the
fixtures also record the kernels they were written with (versions.json: `openblas_coretype`, Haswell) and the
comparison refits in a child process with `OPENBLAS_CORETYPE` set to them.

numpy's own SIMD loops are chosen at run time too, and `np.exp`/`np.log` give different last bits with AVX-512
(X86_V4/AVX512_ICL) than with AVX2 or the baseline: `rbf`'s Gaussian units (np.exp) and its logistic output layer
then move by up to 1e-8 after the fit (an AMD EPYC without those loops failed waveform_40, yeast, nursery, mixed
and mixed6k; nursery's chaotic `lvq` moves by whole labels). Reductions and matmul are not affected. So the child
also sets `NPY_DISABLE_CPU_FEATURES` to every dispatched feature (numpy's `__cpu_dispatch__`): numpy runs its
baseline loops (x86-64-v2, which every x86-64 CPU numpy supports has), the same bits on any such CPU; versions.json
says so (`numpy_simd: baseline`). The comparison stays exact (atol 1e-12, identical labels and rules), so it still
catches any change of an algorithm. To regenerate after a deliberate upgrade, write them with af743a7's code, not the current one:
    git archive af743a7 | tar -x -C /tmp/af && cp tests/test_estimators_ref.py /tmp/af/tests/ &&
    (cd /tmp/af && OPENBLAS_CORETYPE=Haswell PYTHONPATH=/tmp/af ROBUSTDIFF_DATA=<repo>/data python tests/test_estimators_ref.py --write --ref <repo>/tests/data/estimators_ref)

PART is not compared any more: fabra18's PART is now Weka's PART itself (`robustdiff.c45`), a different algorithm
from the stand-in these fixtures pinned (partial trees instead of full ones), and it is pinned against Weka 3.6.14's
own rule lists and predictions by tests/test_c45_weka.py (the fixtures, rewritten on 2026-11-27 with numpy's
baseline loops, hold no PART entries)."""
import json, os, subprocess, sys, warnings
from pathlib import Path
import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification

ROOT = Path(__file__).resolve().parent
REF = ROOT/'data'/'estimators_ref'
MODELS = ['JRip', 'C5.0', 'rpart', 'ctree', 'lvq', 'fda', 'rbf', 'rfRules']   # fixtures' PART entries: the former stand-in


def _mixed(n=2000, seed=0):
    "make_classification with 8 numeric columns and 2 nominal ones (binned informative columns)."
    from robustdiff.data import from_frame
    X, y = make_classification(n, 10, n_informative=5, n_redundant=2, n_classes=3, flip_y=0.05, random_state=seed)
    df = pd.DataFrame(X[:, :8], columns=[f'x{j}' for j in range(8)])
    for j in (8, 9): df[f'c{j}'] = pd.Categorical(np.array(list('abcde'))[np.digitize(X[:, j], [-1, -.3, .3, 1])])
    df['label'] = y
    return from_frame(df, target='label', nominal=['c8', 'c9'])


def _sub(ds, n, seed=0):
    "A stratification-free random subset of `n` rows (all rows when fewer)."
    if len(ds.y) <= n: return ds
    idx = np.sort(np.random.default_rng(seed).choice(len(ds.y), n, replace=False))
    return SimpleDS(ds.X.iloc[idx].reset_index(drop=True), ds.y.iloc[idx].reset_index(drop=True), ds.nominal, ds.numeric)


class SimpleDS:
    def __init__(self, X, y, nominal, numeric): self.X, self.y, self.nominal, self.numeric = X, y, nominal, numeric


def cases():
    from robustdiff.datasets import load_pmlb
    return {'waveform_40': lambda: _sub(load_pmlb('waveform_40'), 2000), 'yeast': lambda: load_pmlb('yeast'),
            'nursery': lambda: _sub(load_pmlb('nursery'), 2500), 'mixed': lambda: _mixed(), 'mixed6k': lambda: _mixed(6000, seed=1)}


def _rules(model):
    "A JSON-able description of the learnt rules/trees where the class exposes them."
    if hasattr(model, 'rules_text'): return model.rules_text()
    if hasattr(model, 'rules_'): return repr([[(int(j), float(t), bool(l)) for j, t, l in c] for c in model.rules_]) + repr(model.rule_dists_.tolist())
    if hasattr(model, 'effective_node_'): return repr(model.effective_node_.tolist()) + repr(model.node_counts_.round(9).tolist())
    if hasattr(model, 'feature_') and hasattr(model, 'threshold_'): return repr(model.feature_.tolist()) + repr(model.threshold_.tolist())
    return ''


def run_case(case):
    "Fit each model on the first 70 % of the rows; probabilities on all rows, rule descriptions."
    from robustdiff.portfolio import get_models, make_pipeline
    from threadpoolctl import threadpool_limits
    with threadpool_limits(1): return _run_case(case)      # one BLAS thread: k-means and LVQ's sums are then reproducible


def _run_case(case):
    from robustdiff.portfolio import get_models, make_pipeline
    ds = cases()[case](); n = len(ds.y); tr = np.arange(int(0.7 * n))
    out, rules = {}, {}
    models = get_models('fabra18', random_state=0)
    for name in MODELS:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            pipe = make_pipeline(models[name], ds).fit(ds.X.iloc[tr], ds.y.iloc[tr])
            out[name] = pipe.predict_proba(ds.X)[::4]             # every 4th row: the fixtures stay small
            out[name + '_pred'] = np.asarray(pipe.predict(ds.X))
        rules[name] = _rules(pipe[-1])
    return out, rules


def _versions()->dict:
    import numpy, scipy, sklearn, pandas
    return {m.__name__: m.__version__ for m in (numpy, scipy, sklearn, pandas)}


def _drift_note()->str:
    "Empty when this environment has the fixtures' library versions, else a sentence naming the differences."
    want = json.loads((REF/'versions.json').read_text()) if (REF/'versions.json').exists() else {}
    diff = {k: (want.get(k), v) for k, v in _versions().items() if want.get(k) != v}
    return '' if not diff else ('; NOTE: the fixtures were written with other library versions ' +
                                ', '.join(f'{k} {a} (now {b})' for k, (a, b) in diff.items()) + ' -- see this file\'s docstring')


def test_fixture_versions_are_installed():
    "`make test` installs the versions the fixtures were written with (constraints.txt): a drift is a setup error."
    assert _drift_note() == '', _drift_note()


def _pinned_env(core:str|None)->dict:
    "This environment with OpenBLAS's kernels pinned to `core` and numpy's SIMD loops pinned to its baseline (every x86-64 CPU has it)."
    from numpy._core._multiarray_umath import __cpu_dispatch__
    return dict(os.environ, NPY_DISABLE_CPU_FEATURES=' '.join(__cpu_dispatch__), **({'OPENBLAS_CORETYPE': core} if core else {}))


def _run_pinned(case, tmp:Path)->tuple:
    "`run_case` in a child process with the BLAS kernels and numpy SIMD loops the fixtures were written with (both read at import)."
    core = json.loads((REF/'versions.json').read_text()).get('openblas_coretype')
    env = _pinned_env(core)
    subprocess.run([sys.executable, __file__, '--dump', case, str(tmp/'out.npz')], env=env, check=True)
    z = np.load(tmp/'out.npz')
    return {k: z[k] for k in z.files}, json.loads((tmp/'out.json').read_text())


@pytest.mark.parametrize('case', ['waveform_40', 'yeast', 'nursery', 'mixed', 'mixed6k'])
def test_identical_to_reference(case, tmp_path):
    ref = np.load(REF/f'{case}.npz'); ref_rules = json.loads((REF/f'{case}_rules.json').read_text())
    out, rules = _run_pinned(case, tmp_path)
    note = _drift_note()
    for name in MODELS:
        np.testing.assert_array_equal(out[name + '_pred'], ref[name + '_pred'], err_msg=f'{case}/{name} predictions{note}')
        np.testing.assert_allclose(out[name], ref[name], rtol=0, atol=1e-12, err_msg=f'{case}/{name} probabilities{note}')
        assert rules[name] == ref_rules[name], f'{case}/{name}: rules differ{note}'


def test_identical_whatever_the_cpu_offers(tmp_path, monkeypatch):
    "The parent's CPU (here: AVX-512 hidden from numpy, other OpenBLAS kernels, as on an AVX2-only AMD or Intel machine) changes nothing."
    monkeypatch.setenv('NPY_DISABLE_CPU_FEATURES', 'X86_V4 AVX512_ICL AVX512_SPR')
    monkeypatch.setenv('OPENBLAS_CORETYPE', 'Zen')
    ref = np.load(REF/'mixed.npz')
    out, _ = _run_pinned('mixed', tmp_path)
    for name in MODELS:
        np.testing.assert_array_equal(out[name + '_pred'], ref[name + '_pred'], err_msg=name)
        np.testing.assert_allclose(out[name], ref[name], rtol=0, atol=1e-12, err_msg=name)


if __name__ == '__main__' and '--dump' in sys.argv:     # one case, for `_run_pinned`
    case, path = sys.argv[sys.argv.index('--dump') + 1:][:2]
    out, rules = run_case(case)
    np.savez(path, **out); Path(path).with_suffix('.json').write_text(json.dumps(rules))

if __name__ == '__main__' and '--write' in sys.argv:
    if '--ref' in sys.argv: REF = Path(sys.argv[sys.argv.index('--ref') + 1])
    REF.mkdir(parents=True, exist_ok=True)
    core = os.environ.get('OPENBLAS_CORETYPE', 'Haswell')
    (REF/'versions.json').write_text(json.dumps(_versions() | {'openblas_coretype': core, 'numpy_simd': 'baseline'}))
    for case in cases():
        subprocess.run([sys.executable, __file__, '--dump', case, str(REF/f'{case}.raw.npz')], env=_pinned_env(core), check=True)
        z = np.load(REF/f'{case}.raw.npz'); np.savez_compressed(REF/f'{case}.npz', **{k: z[k] for k in z.files})
        (REF/f'{case}.raw.npz').unlink(); (REF/f'{case}.raw.json').rename(REF/f'{case}_rules.json')
        print('wrote', case, flush=True)
