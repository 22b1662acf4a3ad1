"""The model you deploy (issue 46 item 1): `RiskModel.calibrate`, `fit_risk(deploy='all')` and `robustdiff calibrate`.

A production model fitted on every training row of a real PMLB set (data/pmlb), calibrated on a separate labelled set,
must cover ≥ 0.90 − 2 SE in every predicted-difficulty bin and every class of held-out rows; the calibrated risk model
saves and loads; the command line calibrates and then scores with it; bad inputs are refused in one line."""
import numpy as np
import pandas as pd
import pytest
import skops.io as sio
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.base import clone

from robustdiff.datasets import load_dataset
from robustdiff.risk import load_risk, RiskModel
from robustdiff.risk_fit import fit_risk
from robustdiff.cli import main

ALPHA = 0.1


@pytest.fixture(scope='module')
def deployed(tmp_path_factory):
    "waveform_21: 800 rows for the report, 1 000 labelled rows to calibrate on, 2 000 held out; a production model fitted on the 800."
    ds = load_dataset('pmlb:waveform_21')
    idx = np.arange(ds.n_instances)
    tr, rest = train_test_split(idx, train_size=800, stratify=ds.y, random_state=0)
    cal, held = train_test_split(rest, train_size=1000, test_size=2000, stratify=ds.y.to_numpy()[rest], random_state=0)
    train = ds.subset(np.sort(tr))
    rm = fit_risk(train, models='quick', respondents='models', random_state=0)
    prod = HistGradientBoostingClassifier(max_iter=60, random_state=0).fit(train.X, train.y)   # every training row
    part = lambda i: (ds.X.iloc[np.sort(i)].reset_index(drop=True), ds.y.iloc[np.sort(i)].reset_index(drop=True))
    return dict(rm=rm, prod=prod, cal=part(cal), held=part(held), train=train, tmp=tmp_path_factory.mktemp('deployed'))


def _floor(n): return 1 - ALPHA - 2 * np.sqrt(ALPHA * (1 - ALPHA) / n)


def test_production_model_covers_every_bin_and_class(deployed):
    "Split conformal on the user's calibration rows: held-out coverage ≥ 0.90 − 2 SE in every difficulty bin and every class; the original risk model is unchanged."
    rm, (Xc, yc), (Xh, yh) = deployed['rm'], deployed['cal'], deployed['held']
    before = list(rm.models)
    mine = rm.calibrate(deployed['prod'], Xc, yc, name='prod')
    assert list(rm.models) == before and 'prod' not in rm.models and list(mine.models) == before + ['prod']
    assert mine._kind('prod') == 'split' and len(mine.cal_p_true['prod']) == len(Xc) == len(mine.cal_bins_by_model['prod'])
    r = mine.predict_risk(Xh, models='prod')
    covered = np.array([y in s for y, s in zip(yh, r.prediction_set)])
    for group in (r.difficulty_bin.to_numpy(), yh.to_numpy()):
        for g in np.unique(group):
            c = covered[group == g]
            assert c.mean() >= _floor(len(c)), (g, c.mean(), len(c))
    assert r.set_size.mean() < len(mine.classes['prod'])            # informative sets, not every class
    # the calibrations are the production model's: its accuracy on the calibration rows, not the report's fold fits'
    acc = (deployed['prod'].predict(Xc) == yc.to_numpy()).mean()
    assert mine.train_accuracy['prod'] == pytest.approx(acc)
    assert mine.confusion['prod'].sum() == len(Xc)
    e = mine.estimate_accuracy(Xh, yh, models='prod').table.iloc[0]
    assert e.lo - 0.03 <= e.observed <= e.hi + 0.03


def test_calibrated_model_round_trip(deployed):
    "Saved and loaded: the same rows score the same; what calibrates each model travels with the file."
    rm, (Xc, yc), (Xh, _) = deployed['rm'], deployed['cal'], deployed['held']
    mine = rm.calibrate(deployed['prod'], Xc, yc, name='prod')
    back = load_risk(mine.save(deployed['tmp']/'prod.rdrisk'))
    pd.testing.assert_frame_equal(back.predict_risk(Xh.head(300)), mine.predict_risk(Xh.head(300)))
    assert back.deployed == mine.deployed and back._kind('prod') == 'split'
    np.testing.assert_array_equal(back.cal_bins_by_model['prod'], mine.cal_bins_by_model['prod'])
    np.testing.assert_array_equal(back.cal_labels['prod'], mine.cal_labels['prod'])
    # a file from before per-model calibration rows still loads, its models deployed as the report's fold fits
    from robustdiff.risk import _state
    old = RiskModel(**{k: v for k, v in _state(rm).items() if k not in ('deployed', 'cal_bins_by_model', 'cal_labels', 'classwise')})
    assert old._kind(next(iter(old.models))) == 'fold'
    pd.testing.assert_frame_equal(old.predict_risk(Xh.head(50)), rm.predict_risk(Xh.head(50)))


def test_without_calibration_rows_borrows_the_report_folds(deployed):
    "No labelled rows: a refit of one of the report's learners takes that learner's out-of-fold calibrations, and says so."
    rm, train = deployed['rm'], deployed['train']
    src = next(iter(rm.models))
    refit = clone(rm.models[src]).fit(train.X, train.y)                     # the same learner on every row
    mine = rm.calibrate(refit, name='refit', same_as=src)
    assert mine._kind('refit') == 'oof' and mine.deployed['refit'] == f'oof:{src}'
    np.testing.assert_array_equal(mine.cal_p_true['refit'], rm.cal_p_true[src])
    assert "no calibration rows given" in mine.notes[-1] and 'cross-conformal' in mine.notes[-1]
    with pytest.raises(ValueError, match='same_as='): rm.calibrate(refit, name='r2')           # several models: which one?
    with pytest.raises(ValueError, match='only a refit'): rm.calibrate(deployed['prod'], name='r3', same_as=src)


def test_bad_inputs_refused_in_one_line(deployed):
    "Columns, labels, rows per bin, classes, names: each refused before any work, in one line naming what to fix."
    rm, (Xc, yc) = deployed['rm'], deployed['cal']
    prod = deployed['prod']
    cases = [
        (lambda: rm.calibrate(prod, Xc, yc, name=next(iter(rm.models))), 'already has a model'),
        (lambda: rm.calibrate(prod, Xc.drop(columns=[rm.features[3]]), yc, name='p'), f"missing feature column {rm.features[3]!r}"),
        (lambda: rm.calibrate(prod, Xc, yc.astype(str).replace({str(yc.iloc[5]): 'nine'}), name='p'), "label 'nine'"),
        (lambda: rm.calibrate(prod, Xc, yc.where(np.arange(len(yc)) != 7), name='p'), 'y_cal is missing in row 7'),
        (lambda: rm.calibrate(prod, Xc.head(40), yc.head(40), name='p'), 'per difficulty bin'),
        (lambda: rm.calibrate(prod, Xc, yc.head(10), name='p'), '10 labels for'),
        (lambda: rm.calibrate(prod, Xc, name='p'), 'without y_cal'),
        (lambda: rm.calibrate(HistGradientBoostingClassifier(), Xc, yc, name='p'), 'not fitted'),
        (lambda: rm.calibrate(LogisticRegression(max_iter=200).fit(Xc, (yc.to_numpy() == yc.iloc[0]).astype(int)), Xc, yc, name='p'),
         'fit it on the same target'),
    ]
    for call, words in cases:
        with pytest.raises((ValueError, TypeError)) as e: call()
        assert words in str(e.value) and '\n' not in str(e.value), (words, str(e.value))


def test_deploy_all(deployed):
    "`fit_risk(deploy='all')`: the deployed fits see every row, the sets use every out-of-fold row, the notes say so; 'own' cannot apply."
    train = deployed['train']
    with pytest.raises(ValueError, match="deploy must be 'fold' or 'all'"): fit_risk(train, deploy='everything')
    with pytest.raises(ValueError, match="calibration='own' cannot apply"): fit_risk(train, deploy='all', calibration='own')
    sub = train.subset(np.arange(400))
    rm = fit_risk(sub, models='quick', respondents='models', random_state=0, deploy='all')
    assert set(rm.deployed.values()) == {'all'} and rm.calibration == 'pooled'
    assert any("deploy='all'" in n for n in rm.notes)
    m = next(iter(rm.models))
    ref = fit_risk(sub, models='quick', respondents='models', random_state=0)
    everything = clone(ref.models[m]).fit(sub.X, sub.y)                     # the same learner on every row
    np.testing.assert_array_equal(rm.models[m].predict(deployed['held'][0]), everything.predict(deployed['held'][0]))
    Xh = deployed['held'][0].head(200)
    pd.testing.assert_series_equal(rm.predict_risk(Xh, models=m).difficulty, ref.predict_risk(Xh, models=m).difficulty)


def test_cli_calibrate_then_score(deployed, capsys):
    "`robustdiff calibrate RISKFILE --model prod.skops --data cal.csv --out prod.rdrisk`, then `robustdiff score prod.rdrisk` says what the sets are calibrated on."
    tmp, rm = deployed['tmp'], deployed['rm']
    (Xc, yc), (Xh, _) = deployed['cal'], deployed['held']
    rm.save(tmp/'report.rdrisk')
    sio.dump(deployed['prod'], tmp/'prod.skops')
    Xc.assign(label=yc).to_csv(tmp/'cal.csv', index=False)
    Xh.head(200).to_csv(tmp/'new.csv', index=False)
    args = ['calibrate', str(tmp/'report.rdrisk'), '--model', str(tmp/'prod.skops'), '--data', str(tmp/'cal.csv'), '--out', str(tmp/'prod.rdrisk')]
    assert main(args) == 0, capsys.readouterr().err
    err = capsys.readouterr().err
    assert "calibrated on the 1000 labelled rows" in err and 'prod.rdrisk' in err
    assert main(['score', str(tmp/'prod.rdrisk'), str(tmp/'new.csv'), '--out', str(tmp/'scored.csv'), '--model', 'prod']) == 0
    err = capsys.readouterr().err
    assert "prod: your model" in err and "1000 labelled rows given to `calibrate` (split conformal" in err
    s = pd.read_csv(tmp/'scored.csv')
    assert len(s) == 200 and set(s.model) == {'prod'}
    # refused in one line, exit 2: the name taken, an unknown label column, no way to tell the label column
    again = ['calibrate', str(tmp/'prod.rdrisk')] + args[2:-1] + [str(tmp/'p4.rdrisk')]      # 'prod' is in prod.rdrisk already
    assert main(again) == 2 and 'already has a model' in capsys.readouterr().err
    bad = args[:-1] + [str(tmp/'p2.rdrisk'), '--name', 'p2', '--target', 'nope']
    assert main(bad) == 2 and "--target 'nope' is not a column" in capsys.readouterr().err
    Xc.assign(label=yc, other=1).to_csv(tmp/'cal2.csv', index=False)
    two = ['calibrate', str(tmp/'report.rdrisk'), '--model', str(tmp/'prod.skops'), '--data', str(tmp/'cal2.csv'), '--out', str(tmp/'p3.rdrisk')]
    e = (main(two), capsys.readouterr().err)
    assert e[0] == 2 and 'give the label column with --target' in e[1] and e[1].count('\n') == 1


def test_imbalanced_calibration_is_class_conditional(deployed, tmp_path, capsys):
    "A calibration set whose smallest class holds 12 % of the rows: 'auto' makes class-conditional sets, every class of the held-out rows covers ≥ 0.90 − 2 SE, and `score` prints the coverage per class."
    rm, (Xc, yc), (Xh, yh) = deployed['rm'], deployed['cal'], deployed['held']
    rare = yc.unique()[0]
    rng = np.random.default_rng(0)
    keep = np.flatnonzero(yc.to_numpy() != rare)
    few = rng.choice(np.flatnonzero(yc.to_numpy() == rare), size=int(0.14 * len(keep)), replace=False)
    rows = np.sort(np.r_[keep, few])
    mine = rm.calibrate(deployed['prod'], Xc.iloc[rows], yc.iloc[rows], name='prod')
    t = mine.class_coverage('prod')
    assert t.attrs['classwise'] and t.promised.all() and t.n_cal.sum() == len(rows)
    assert t.set_index('class').share[rare] < 2 / 3 / 3
    off = mine.class_coverage('prod', classwise=False)
    assert not off.attrs['classwise'] and not off.promised.any()
    r = mine.predict_risk(Xh, models='prod')
    assert any('cannot be promised' in n for n in mine.predict_risk(Xh.head(20), models='prod', classwise=False).attrs['notes'])
    covered = np.array([y in s for y, s in zip(yh, r.prediction_set)])
    for c in np.unique(yh):
        k = yh.to_numpy() == c
        assert covered[k].mean() >= _floor(k.sum()), (c, covered[k].mean())
    p = mine.save(tmp_path/'imb.rdrisk')
    Xh.head(100).to_csv(tmp_path/'new.csv', index=False)
    assert main(['score', str(p), str(tmp_path/'new.csv'), '--out', str(tmp_path/'s.csv'), '--model', 'prod']) == 0
    err = capsys.readouterr().err
    assert 'prod: coverage per class at α = 0.1 (class-conditional sets)' in err and '≥ 0.9 promised' in err


def test_one_model_gets_a_small_population():
    "`fit_risk(respondents='auto')` for one model: the ladder's first ONE_MODEL_RESPONDENTS, said in a note; several models or a given population: unchanged."
    from robustdiff.risk_fit import _one_model_respondents, ONE_MODEL_RESPONDENTS
    spec, why = _one_model_respondents('auto', {'mine': LogisticRegression()}, 0)
    assert spec == f'ladder:{ONE_MODEL_RESPONDENTS}' and ONE_MODEL_RESPONDENTS < 60 and 'one model' in why
    assert _one_model_respondents('auto', 'quick', 0) == ('auto', '')
    assert _one_model_respondents('ladder', {'mine': LogisticRegression()}, 0) == ('ladder', '')
