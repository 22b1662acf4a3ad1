

def test_the_report_stages_read_a_regression_report():
    "The hardness and instance-space stages on a regression context: PyHard's measures, IH from the evaluated models' errors, good = ds.right."
    from types import SimpleNamespace
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import KFold, cross_val_predict
    from sklearn.neighbors import KNeighborsRegressor
    from sklearn.tree import DecisionTreeRegressor
    from robustdiff import hardness_report, isa_report
    ds = _carseats()
    X, y = _reg_design(ds), ds.y.to_numpy(float)
    models = {'ridge': Ridge(), 'tree': DecisionTreeRegressor(max_depth=4, random_state=0), 'knn': KNeighborsRegressor()}
    rows = []
    for m, est in models.items():
        pred = cross_val_predict(est, X, y, cv=KFold(5, shuffle=True, random_state=0))
        rows.append(pd.DataFrame({'model': m, 'repeat': 0, 'fold': 0, 'instance': np.arange(len(y)), 'y_true': y, 'y_pred': pred,
                                  'correct': ds.right(y, pred), 'p_true': np.nan, 'p_max': np.nan}))
    oof = pd.concat(rows, ignore_index=True)
    ctx = SimpleNamespace(cfg={'ih_pool': 'models', 'hardness_models': 'pyhard7'}, ds=ds, measures=None, instance_hardness=None,
                          run=SimpleNamespace(n_jobs=1, n_splits=5, random_state=0, progress=False, cache_dir=None),
                          oof=lambda: oof, table=lambda *a: None)
    st = SimpleNamespace(notes=[], tables={}, charts={})
    hardness_report.report_stage(ctx, st)
    assert list(st.tables['hardness'].columns) == ['instance', *REG_MEASURES]
    p = np.exp(-np.abs(oof.y_true - oof.y_pred) / np.abs(y).mean())
    np.testing.assert_allclose(st.tables['instance_hardness'].ih.to_numpy(), 1 - p.groupby(oof.instance).mean().to_numpy(), rtol=0, atol=1e-12)
    assert any('outside τ by most models' in n for n in st.notes)
    st2 = SimpleNamespace(notes=[], tables={}, charts={})
    isa_report.report_stage(ctx, st2)
    frame, fp = st2.tables['instance_space'], st2.tables['footprints']
    assert set(models) <= set(fp.model)
    right = oof.pivot(index='instance', columns='model', values='correct')
    np.testing.assert_array_equal(frame.set_index('instance').n_good.loc[right.index].to_numpy(), right.sum(1).to_numpy())
    assert any('within τ' in n for n in st2.notes)
