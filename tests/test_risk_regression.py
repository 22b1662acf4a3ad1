"A regressor's risk model: conformal intervals by predicted-difficulty bin, the label-free MAE of a batch, the scored columns, the file, bad input."
import numpy as np, pandas as pd, pytest
from sklearn.linear_model import Ridge
from sklearn.compose import make_column_transformer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder
from robustdiff.data import from_frame
from robustdiff.responses import cv_splits, predict_values
from robustdiff.portfolio import model_pipeline
from robustdiff.risk import fit_risk_model, score_file, load_risk
from robustdiff.conformal import INTERVALS

N_TRAIN, N_TEST = 1500, 3000


def _ridge():
    "The user's model: a ridge regression with the nominal column one-hot encoded."
    return make_pipeline(make_column_transformer((OneHotEncoder(handle_unknown='ignore'), ['g']), remainder='passthrough'), Ridge())


def _table(n, rng):
    "Three features; y = 3·x1 + x2 + noise whose scale grows with x1 (heteroscedastic), a nominal column that does nothing."
    X = pd.DataFrame({'x1': rng.random(n), 'x2': rng.normal(size=n), 'x3': rng.normal(size=n), 'g': rng.choice(['a', 'b'], n)})
    y = 3 * X.x1 + X.x2 + rng.normal(0, 0.1 + 1.2 * X.x1)
    return X, y


@pytest.fixture(scope='module')
def fitted():
    rng = np.random.default_rng(0)
    X, y = _table(N_TRAIN + N_TEST, rng)
    ds = from_frame(pd.concat([X.iloc[:N_TRAIN], y.iloc[:N_TRAIN].rename('y')], axis=1), 'y', task='regression', name='hetero')
    Xt, yt = X.iloc[N_TRAIN:].reset_index(drop=True), y.iloc[N_TRAIN:].to_numpy()
    folds = [(tr, te) for _, _, tr, te in cv_splits(ds, n_splits=5, random_state=0)]
    yy, pred, fold = ds.y.to_numpy(float), np.empty(ds.n_instances), np.empty(ds.n_instances, int)
    for f, (tr, te) in enumerate(folds):
        pred[te] = predict_values(model_pipeline(_ridge(), ds).fit(ds.X.iloc[tr], yy[tr]), ds.X.iloc[te]); fold[te] = f
    oof = pd.DataFrame({'model': 'ridge', 'repeat': 0, 'fold': fold, 'instance': np.arange(len(yy)), 'y_true': yy, 'y_pred': pred,
                        'correct': ds.right(yy, pred), 'p_true': np.nan, 'p_max': np.nan})
    items = pd.DataFrame({'instance': np.arange(len(yy)), 'difficulty': 4 * ds.X.x1.to_numpy() - 2 + rng.normal(0, 0.3, len(yy)), 'status': 'ok'})
    flips = pd.DataFrame({'model': 'ridge', 'instance': np.arange(len(yy)), 'flipped': 0})
    kw = dict(models={'ridge': _ridge()}, random_state=0)   # δ = 0.1 for all bins at once, the default
    rm = fit_risk_model(ds, items, oof, flips, **kw)
    return dict(ds=ds, Xt=Xt, yt=yt, rm=rm, args=(ds, items, oof, flips), kw=kw)


def test_intervals_cover_every_predicted_difficulty_bin(fitted):
    rm, Xt, yt = fitted['rm'], fitted['Xt'], fitted['yt']
    assert rm.regression and rm.interval_method['ridge'] in INTERVALS
    r = rm.predict_risk(Xt)
    inside = (r.lower <= yt) & (yt <= r.upper)
    cov = inside.groupby(r.difficulty_bin).mean()
    se = np.sqrt(0.09 / np.bincount(r.difficulty_bin, minlength=rm.n_bins))   # the test rows' (δ covers the calibration draw)
    assert len(cov) == rm.n_bins and (cov >= 0.9 - 2 * se).all(), cov
    avg = rm.predict_risk(Xt, delta=False, calibration='pooled')              # on average over draws, every out-of-fold row
    cov_avg = ((avg.lower <= yt) & (yt <= avg.upper)).groupby(avg.difficulty_bin).mean()
    assert abs(cov_avg.mean() - 0.9) < 0.02 and (cov_avg < cov).all()           # near 1 − α, and δ's price is paid in every bin
    width = (r.upper - r.lower).groupby(r.difficulty_bin).mean()
    assert width.iloc[-1] > 2 * width.iloc[0]          # the hard rows (large x1, large noise) get wider intervals


def test_the_scored_columns(fitted):
    rm, Xt = fitted['rm'], fitted['Xt']
    r = rm.predict_risk(Xt.iloc[:50])
    assert list(r.columns) == ['row', 'model', 'prediction', 'lower', 'upper', 'difficulty', 'difficulty_lo', 'difficulty_hi',
                               'difficulty_bin', 'p_correct', 'p_flip', 'p_flip_bin', 'risk', 'expected_error']
    assert (r.lower < r.prediction).all() and (r.prediction < r.upper).all() and np.isfinite(r[['lower', 'upper']]).all().all()
    np.testing.assert_allclose(r.prediction, predict_values(rm.models['ridge'], Xt.iloc[:50]))
    assert r.p_correct.between(0, 1).all() and (r.expected_error > 0).all()
    assert r.difficulty_bin.between(0, rm.n_bins - 1).all()


def test_same_seed_same_intervals(fitted):
    again = fit_risk_model(*fitted['args'], **fitted['kw'])
    pd.testing.assert_frame_equal(again.predict_risk(fitted['Xt']), fitted['rm'].predict_risk(fitted['Xt']))


def test_label_free_mae_of_a_batch(fitted):
    rm, Xt, yt = fitted['rm'], fitted['Xt'], fitted['yt']
    e = rm.estimate_accuracy(Xt, y=yt)
    t = e.table.iloc[0]
    assert t.metric == 'mae' and t.lo <= t.observed <= t.hi, t
    hard = np.flatnonzero(Xt.x1.to_numpy() > 0.7)       # a shifted batch: the noisiest rows only
    h = rm.estimate_accuracy(Xt.iloc[hard], y=yt[hard]).table.iloc[0]
    assert h.observed > 1.3 * t.observed                 # the batch is harder ...
    assert abs(h.estimated - h.observed) < 0.1 * h.observed   # ... and the estimate follows it without labels
    assert rm.estimate_accuracy(Xt.iloc[hard]).mix_alarm      # the mix test sees it


def test_file_round_trip_and_score(fitted, tmp_path):
    rm, Xt = fitted['rm'], fitted['Xt']
    back = load_risk(rm.save(tmp_path / 'r.rdrisk'))
    assert back.regression and back.tolerance == rm.tolerance
    pd.testing.assert_frame_equal(back.predict_risk(Xt), rm.predict_risk(Xt))
    Xt.iloc[:40].to_csv(tmp_path / 'new.csv', index=False)
    lines = []
    score_file(tmp_path / 'r.rdrisk', tmp_path / 'new.csv', tmp_path / 'scored.csv', log=lines.append)
    s = pd.read_csv(tmp_path / 'scored.csv')
    assert {'prediction', 'lower', 'upper', 'difficulty', 'difficulty_bin'} <= set(s.columns) and len(s) == 40
    assert any('expected MAE of these 40 rows' in l for l in lines), lines
    from_file, direct = rm.estimate_accuracy(tmp_path / 'scored.csv').table, rm.estimate_accuracy(Xt.iloc[:40]).table   # the scored CSV, not scored again
    np.testing.assert_allclose(from_file[['estimated', 'lo', 'hi']], direct[['estimated', 'lo', 'hi']])


def test_bad_input_is_refused_with_one_line(fitted):
    rm, Xt = fitted['rm'], fitted['Xt']
    with pytest.raises(ValueError, match="missing feature column 'x2'"): rm.predict_risk(Xt.drop(columns=['x2']))
    with pytest.raises(ValueError, match="column 'x1' holds 1 value that are not numbers"): rm.predict_risk(Xt.iloc[:3].assign(x1=['1', 'oops', '2']))
    r = rm.predict_risk(Xt.iloc[:5])
    with pytest.raises(ValueError, match="lacks column 'prediction'"): rm.estimate_accuracy(r.drop(columns=['prediction']))
    with pytest.raises(ValueError, match="column 'prediction' holds 'x' in row 2"): rm.estimate_accuracy(r.assign(prediction=[1, 2, 'x', 4, 5]))
    with pytest.raises(ValueError, match='3 labels for 5 rows'): rm.estimate_accuracy(r, y=[1., 2., 3.])
    with pytest.raises(ValueError, match='calibrate takes a classifier'): rm.calibrate(Ridge().fit(np.ones((3, 1)), [1, 2, 3]))
    ds, items, oof, flips = fitted['args']
    bad = oof.assign(y_pred=oof.y_pred.where(oof.instance != 7, np.inf))
    with pytest.raises(ValueError, match="model 'ridge' has 1 out-of-fold predictions that are not finite"):
        fit_risk_model(ds, items, bad, flips, **fitted['kw'])


def test_report_check_of_the_intervals(fitted):
    "The report's cross-fitted check (`risk_report._crossfit_reg`): every kind of interval per bin, the chosen one covering every bin, marginal short in the hardest."
    from robustdiff.risk_report import _crossfit_reg, coverage_chart, rejection_chart
    rm = fitted['rm']
    cov, rel, err = _crossfit_reg(rm, rm.alpha)
    assert set(cov.method) == {'mondrian', 'normalised', 'marginal'} and len(cov) == 3 * rm.n_bins
    mine = cov[cov.chosen]
    assert (mine.method == rm.interval_method['ridge']).all() and (mine.coverage >= 0.9 - 2 * mine.se).all(), mine
    marg = cov[cov.method == 'marginal'].set_index('bin').coverage
    assert marg.iloc[-1] < 0.9 - 2 * mine.se.iloc[-1] < mine.coverage.iloc[-1]     # one threshold for all: short where the noise is largest
    assert err[err.ranking == 'expected error'].auroc.iloc[0] > 0.6                # the expected error finds the misses beyond τ
    assert rel.observed.between(0, 1).all()
    coverage_chart(cov, alpha=rm.alpha).to_dict(); rejection_chart(err).to_dict()
