"""The report's prediction shortcuts change no number: a k-NN labelled from its vote shares, a Platt-scaled SVM labelled by
the vote of the decision values its calibration reads.
The same small report with each shortcut switched off gives the same predictions and tables, bit for bit."""
import warnings
import numpy as np
import pandas as pd
import pytest
from sklearn.neighbors import KNeighborsClassifier
from sklearn.svm import SVC
import robustdiff.responses as R
from robustdiff.portfolio import _platt
from robustdiff.report import build_report

MODELS = {'knn': KNeighborsClassifier(3), 'svmPoly': _platt(SVC(kernel='poly', degree=2, coef0=1, gamma='scale')),
          'knn4': KNeighborsClassifier(4)}


def _report():
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        return build_report('sklearn:wine', models=MODELS, respondents='models', stages='accuracy,perturbation',
                            n_jobs=1, progress=False)


@pytest.fixture(scope='module')
def pair():
    fast = _report()
    mp = pytest.MonkeyPatch()
    calls = {'knn': 0, 'svm': 0}
    def no_knn(est): calls['knn'] += 1; return False
    def no_svm(final): calls['svm'] += 1; return None
    mp.setattr(R, '_knn_argmax', no_knn); mp.setattr(R, '_platt_svm', no_svm)
    try: slow = _report()
    finally: mp.undo()
    return fast, slow, calls


def test_shortcuts_were_taken_and_switched_off(pair):
    fast, slow, calls = pair
    assert calls['knn'] > 0 and calls['svm'] > 0          # the slow report went through the plain predict calls
    est = MODELS['svmPoly']
    assert R._platt_svm(est) is None                      # (unfitted) no shortcut for a model that is not fitted


def test_same_predictions_and_tables(pair):
    fast, slow, _ = pair
    pd.testing.assert_frame_equal(fast.extra['oof'], slow.extra['oof'], check_exact=True)
    for k in ('accuracy', 'perturbation', 'perturbation_intervals'):
        pd.testing.assert_frame_equal(fast.table(k), slow.table(k), check_exact=True, obj=k)
