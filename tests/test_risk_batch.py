"Label-free accuracy of a batch (`RiskModel.estimate_accuracy`): intervals that hold on simulated batches, scored rows reused, bad tables refused, the alarm."
import numpy as np
import pandas as pd
import pytest
from robustdiff.data import from_frame
from robustdiff.report import build_report
from robustdiff.risk import _COLUMNS, _fit_batch_calibration, score_file; from robustdiff._risk_core import _bin_of


def _frame(n=300, seed=0, classes=3):
    "Three noisy blobs and a nominal column: a multiclass table."
    from sklearn.datasets import make_blobs
    X, y = make_blobs(n, centers=classes, cluster_std=2.5, random_state=seed)
    rng = np.random.default_rng(seed)
    return pd.DataFrame({'x1': X[:, 0], 'x2': X[:, 1], 'colour': rng.choice(['red', 'green'], n), 'y': np.array(list('abcdefg'))[y]})


@pytest.fixture(scope='module')
def rm():
    rep = build_report(from_frame(_frame(), 'y', name='blobs'), models='quick', respondents='models', stages='difficulty,risk', progress=False)
    assert rep.stages['risk'].status == 'ok', rep.stages['risk'].message
    return rep.extra['risk_model']


def _truth(p, b):
    "P(right | confidence, bin): below the confidence, more so in harder bins (a model over-confident on hard rows)."
    return np.clip(p - 0.05 * b, 0, 1)


def _simulate(rm, m, rng, n_cal=4000):
    "Calibration rows drawn from a known truth, set as model `m`'s batch calibration."
    p = rng.uniform(0.4, 1.0, n_cal)
    b = rng.integers(0, rm.n_bins, n_cal)
    rm.batch_calibration = {**(getattr(rm, 'batch_calibration', None) or {}), m: _fit_batch_calibration(p, rng.random(n_cal) < _truth(p, b), b, rm.n_bins)}


def _scored(rm, m, p, b, rng):
    "A scored table of one model for rows of confidence `p` in bins `b` (difficulty inside the bin), and whether each is right."
    n = len(p)
    lo = np.r_[-6, rm.edges]; hi = np.r_[rm.edges, 6]
    d = lo[b] + (hi[b] - lo[b]) * 0.5
    r = pd.DataFrame({'row': np.arange(n), 'model': m, 'prediction': rm.classes[m][0], 'confidence': p, 'difficulty': d,
                      'difficulty_lo': d - 1, 'difficulty_hi': d + 1, 'difficulty_bin': b, 'p_correct': 0.5, 'p_flip': 0.1,
                      'p_flip_bin': 0.1, 'risk': 1 - _truth(p, b), 'prediction_set': [()] * n, 'set_size': 1})
    return r[_COLUMNS], rng.random(n) < _truth(p, b)


def test_intervals_hold_on_simulated_batches(rm):
    "Rows whose chance of being right is a known function of confidence and bin: the 90 % interval holds ≥ 85 % of batches, unshifted or shifted toward hard, unsure rows."
    rng = np.random.default_rng(0)
    m = list(rm.models)[0]
    _simulate(rm, m, rng)
    assert (np.diff(_bin_of(rm.edges + 1e-9, rm.edges)) == 1).all()
    held = {}
    for shift in ('none', 'hard'):
        ok = []
        for _ in range(200):
            p = rng.uniform(0.4, 1.0, 300) if shift == 'none' else 1 - 0.6 * rng.beta(2, 1, 300)
            b = rng.integers(0, rm.n_bins, 300) if shift == 'none' else rng.choice(rm.n_bins, 300, p=np.linspace(1, 3, rm.n_bins) / np.linspace(1, 3, rm.n_bins).sum())
            r, right = _scored(rm, m, p, b, rng)
            t = rm.estimate_accuracy(r, models=m).table.iloc[0]
            ok.append(t.lo <= right.mean() <= t.hi)
        held[shift] = np.mean(ok)
    assert min(held.values()) >= 0.85, held
    # the mean confidence misses: the truth sits below it
    assert abs(t.mean_confidence - right.mean()) > abs(t.estimated - right.mean())


def test_alarm_outside_the_calibrated_range(rm):
    "A batch of rows in cells the calibration rows never reached (the hardest bin only, and surer than any calibration row): the alarm fires and says why."
    rng = np.random.default_rng(1)
    m = list(rm.models)[0]
    p = rng.uniform(0.4, 0.9, 3000); b = rng.integers(0, rm.n_bins - 1, 3000)       # no calibration row in the hardest bin
    rm.batch_calibration = {m: _fit_batch_calibration(p, rng.random(3000) < _truth(p, b), b, rm.n_bins)}
    r, _ = _scored(rm, m, rng.uniform(0.95, 1.0, 200), np.full(200, rm.n_bins - 1), rng)
    e = rm.estimate_accuracy(r)
    assert e.alarm and e.table.alarm.iloc[0] and e.table.outside.iloc[0] == 1.0
    assert any('calibration rows are too few' in n for n in e.notes)
    r, _ = _scored(rm, m, rng.uniform(0.4, 0.9, 200), rng.integers(0, rm.n_bins - 1, 200), rng)
    assert not rm.estimate_accuracy(r).table.alarm.iloc[0]
    del rm.batch_calibration


def test_alarm_on_a_shifted_batch(rm):
    "The rows the models are least sure about: the difficulty mix moves and the alarm fires; rows like the training rows raise none."
    new = _frame(700).iloc[300:].drop(columns='y')          # the training rows' blobs, other rows
    e = rm.estimate_accuracy(new)
    assert not e.alarm, e.notes
    sure = rm.predict_risk(new).groupby('row').confidence.mean()
    hard = new.loc[sure.sort_values().index[:100]]         # the rows the models are least sure about: covariate shift
    e = rm.estimate_accuracy(hard)
    assert e.alarm and e.mix_alarm and e.bins.batch_share.iloc[-1] > e.bins.train_share.iloc[-1]


def test_scored_table_reused(rm, tmp_path, monkeypatch):
    "The table predict_risk returned, or the CSV score wrote, gives the same estimates as the rows themselves, without scoring again."
    new = _frame(500).iloc[300:]
    X, y = new.drop(columns='y'), new.y
    direct = rm.estimate_accuracy(X, y=y)
    r = rm.predict_risk(X)
    rm.save(tmp_path/'m.rdrisk')
    X.to_csv(tmp_path/'new.csv', index=False)
    score_file(tmp_path/'m.rdrisk', tmp_path/'new.csv', tmp_path/'scored.csv', log=lambda *a: None)
    monkeypatch.setattr(type(rm), 'predict_risk', lambda *a, **k: pytest.fail('scored again'))
    pd.testing.assert_frame_equal(rm.estimate_accuracy(r, y=y).table, direct.table)
    one = rm.estimate_accuracy(r, y=y, models=list(rm.models)[1]).table
    pd.testing.assert_frame_equal(one.reset_index(drop=True), direct.table.iloc[[1]].reset_index(drop=True))
    from_csv = rm.estimate_accuracy(tmp_path/'scored.csv', y=y)
    pd.testing.assert_frame_equal(from_csv.table, direct.table, rtol=1e-9)


def test_bad_scored_tables_refused(rm, tmp_path):
    X = _frame(360).iloc[300:].drop(columns='y')
    r = rm.predict_risk(X)
    m0, m1 = list(rm.models)[:2]
    cases = {"lacks column 'risk'": r.drop(columns='risk'),
             "model 'nope'": r.assign(model=r.model.where(r.model != m0, 'nope')),
             "rows of model": r.drop(index=r.index[r.model == m1][:3]),
             "other rows than": r.assign(row=np.where(r.model == m1, r.row + 1000, r.row)),
             "column 'risk' holds": r.assign(risk=r.risk.where(r.index != 5, 1.5)),
             "do not match this risk model's bin edges": r.assign(difficulty=r.difficulty + 50),
             "holds no rows": r.iloc[:0]}
    for msg, bad in cases.items():
        with pytest.raises(ValueError, match=msg) as e: rm.estimate_accuracy(bad)
        assert '\n' not in str(e.value)
    with pytest.raises(ValueError, match="'zz' not in the scored table"): rm.estimate_accuracy(r, models='zz')
    with pytest.raises(ValueError, match='level must be'): rm.estimate_accuracy(r, level=1.5)
    with pytest.raises(FileNotFoundError, match='no such scored table'): rm.estimate_accuracy(tmp_path/'none.csv')
    (tmp_path/'x.csv').write_text('a,b\n1,2\n')
    with pytest.raises(ValueError, match="scored table 'x.csv' lacks"): rm.estimate_accuracy(tmp_path/'x.csv')


def test_second_opinion_survives_save_and_load(tmp_path):
    "The batch calibration is saved with the risk model: a loaded file gives the same estimates, second opinion included; a model you calibrate gets its own."
    from robustdiff.risk import load_risk
    rep = build_report(from_frame(_frame(), 'y', name='blobs'), models='quick', respondents='models', stages='difficulty,risk', progress=False)
    rm = rep.extra['risk_model']
    assert set(rm.batch_calibration) == set(rm.models)
    new = _frame(500, seed=1).iloc[300:]
    X = new.drop(columns='y')
    before = rm.estimate_accuracy(X).table
    rm.save(tmp_path/'m.rdrisk')
    loaded = load_risk(tmp_path/'m.rdrisk')
    assert not hasattr(loaded, '_oof')
    after = loaded.estimate_accuracy(X).table
    assert after.estimated_confidence.notna().all()
    pd.testing.assert_frame_equal(after, before)
    from sklearn.linear_model import LogisticRegression
    from sklearn.compose import make_column_transformer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder
    train, cal = _frame(600, seed=2).iloc[:300], _frame(600, seed=2).iloc[300:]
    pipe = make_pipeline(make_column_transformer((OneHotEncoder(), ['colour']), remainder='passthrough'), LogisticRegression())
    pipe.fit(train.drop(columns='y'), train.y)
    mine = loaded.calibrate(pipe, cal.drop(columns='y'), cal.y, name='mine')
    assert 'mine' in mine.batch_calibration and 'mine' not in loaded.batch_calibration
    assert mine.estimate_accuracy(X, models='mine').table.estimated_confidence.notna().all()
