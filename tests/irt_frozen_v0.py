"""FROZEN copy of robustdiff.irt's estimation code as of commit af743a7 (before issue 16's optimisations).

Used only by tests/test_irt.py to pin that the optimised paths give the same difficulties, abilities and fit
statistics as the original implementation. Do not edit; `method='girth'` is not copied (fit_irt_v0 is mml only).
"""
from __future__ import annotations
import time, warnings
import numpy as np
import pandas as pd
from scipy.special import expit, log_expit, logsumexp
from scipy.optimize import minimize_scalar

def _as_response_matrix(U)->tuple:
    "(A int8 array J × I, model labels, instance labels) from a DataFrame or 2-D array, validated."
    if isinstance(U, pd.DataFrame):
        models, instances = U.index, U.columns
        vals = U.to_numpy()
    elif isinstance(U, np.ndarray) or isinstance(U, (list, tuple)):
        vals = np.asarray(U)
        if vals.ndim != 2: raise ValueError(f"the response matrix must be 2-D (models × instances), got {vals.ndim}-D")
        models, instances = pd.RangeIndex(vals.shape[0], name='model'), pd.RangeIndex(vals.shape[1], name='instance')
    else:
        raise TypeError(f"the response matrix must be a DataFrame or a 2-D array, got {type(U).__name__}")
    if vals.ndim != 2: raise ValueError("the response matrix must be 2-D (models × instances)")
    if vals.dtype == object or not (np.issubdtype(vals.dtype, np.number) or vals.dtype == bool):
        raise TypeError(f"the response matrix must be numeric 0/1, got dtype {vals.dtype}")
    J, I = vals.shape
    if J < 2: raise ValueError(f"need at least 2 models (rows) to estimate IRT parameters, got {J}")
    if I < 2: raise ValueError(f"need at least 2 instances (columns) to estimate IRT parameters, got {I}")
    fv = vals.astype(float, copy=False)
    if np.isnan(fv).any():
        raise ValueError(f"the response matrix has {int(np.isnan(fv).sum())} NaN entries: responses must be 0 or 1")
    if not np.isin(fv, (0.0, 1.0)).all():
        bad = np.unique(fv[~np.isin(fv, (0.0, 1.0))])[:5]
        raise ValueError(f"the response matrix must be binary (0/1); found values such as {bad.tolist()}")
    return vals.astype('int8'), models, instances

_MIN_SD = 0.01  # floor for the latent sd: below it the models do not differ in ability (irt_checks warns)

def _log_prior(nodes, sd):
    "Log weights of N(0, sd²) on fixed quadrature nodes, normalised to sum to one."
    lp = -0.5 * (nodes / sd) ** 2
    return lp - logsumexp(lp)

def _sigma_step(nodes, n_k, sd):
    "Exact M-step for the latent sd: maximise Σ_k n_k log w_k(sd) for the discrete normal prior."
    f = lambda ls: -(n_k @ _log_prior(nodes, np.exp(ls)))
    r = minimize_scalar(f, bounds=(np.log(0.05), np.log(50.0)), method='bounded', options={'xatol': 1e-10})
    return float(np.exp(r.x)) if r.fun <= f(np.log(sd)) else sd

def _rasch_em(s_items, r_persons, J, n_quad=61, bound=6.0, tol=1e-4, max_iter=5000, sigma_update='moment'):
    "Bock–Aitkin EM for the Rasch model on complete data, from the item and person sum scores."
    nodes = np.linspace(-bound, bound, n_quad)
    su, inv_i = np.unique(s_items, return_inverse=True)      # distinct item scores
    cnt_i = np.bincount(inv_i).astype(float)
    ru, inv_j = np.unique(r_persons, return_inverse=True)    # distinct person scores
    cnt_j = np.bincount(inv_j).astype(float)
    p = su / J
    b, sd, lls, converged = -np.log(p / (1 - p)), 1.0, [], False
    for it in range(1, max_iter + 1):
        C = cnt_i @ log_expit(b[:, None] - nodes[None, :])   # Σ_i log(1 − P_ik)
        L = ru[:, None] * nodes[None, :] + C[None, :] + _log_prior(nodes, sd)[None, :]
        lse = logsumexp(L, axis=1)
        n_k = cnt_j @ np.exp(L - lse[:, None])                # expected number of models at each node
        lls.append(float(cnt_j @ lse - (cnt_i * su) @ b))    # marginal log-likelihood at (b, sd)
        b_old, sd_old = b, sd
        for _ in range(4):                                    # Newton steps: Σ_k n_k P_ik = s_i
            P = expit(nodes[None, :] - b[:, None])
            g, h = P @ n_k - su, (P * (1 - P)) @ n_k
            b = b + np.clip(g / np.maximum(h, 1e-300), -1.0, 1.0)
        sd = _sigma_step(nodes, n_k, sd) if sigma_update == 'exact' else float(np.sqrt(n_k @ nodes**2 / n_k.sum()))
        sd = max(sd, _MIN_SD)                                 # models indistinguishable: keep the prior proper
        if max(np.abs(b - b_old).max(), abs(sd - sd_old)) < tol:
            converged = True; break
    return dict(b=b[inv_i], sd=sd, loglik=np.array(lls), n_iter=it, converged=converged, nodes=nodes)

def _item_objective(a, d, r, n_k, nodes, a_prior_sd):
    "Expected complete-data log-likelihood of each item (plus the log prior of its slope), vectorised."
    Z = a[:, None] * nodes[None, :] + d[:, None]
    f = (r * log_expit(Z) + (n_k[None, :] - r) * log_expit(-Z)).sum(1)
    return f if a_prior_sd is None else f - 0.5 * ((a - 1) / a_prior_sd) ** 2

def _twopl_em(A, n_quad=61, bound=6.0, tol=1e-4, max_iter=500, a_max=20.0, a_prior_sd=2.0, start=None, progress=False):
    "Bock–Aitkin EM for the 2PL model (θ ~ N(0, 1)) on distinct rows/columns with counts, log space, monotone M-steps."
    J, I = A.shape
    rows, row_inv = np.unique(A, axis=0, return_inverse=True)   # identical models share a posterior
    row_w = np.bincount(row_inv.ravel(), minlength=len(rows)).astype(float)
    cols, col_inv = np.unique(rows, axis=1, return_inverse=True) # identical instances share their estimates
    col_inv = col_inv.ravel()
    col_w = np.bincount(col_inv, minlength=cols.shape[1]).astype(float)
    X = cols.astype(np.float64)                                  # R × C, R ≤ J distinct rows, C ≤ I distinct columns
    nodes = np.linspace(-bound, bound, n_quad)
    logw = _log_prior(nodes, 1.0)
    if start is None:
        p = np.clip((row_w @ X) / J, 0.5 / J, 1 - 0.5 / J)
        a, d = np.ones(X.shape[1]), np.log(p / (1 - p))
    else:                                                        # per original column: take one representative
        first = np.zeros(X.shape[1], dtype=int); first[col_inv[::-1]] = np.arange(I)[::-1]
        a, d = np.asarray(start[0], float)[first], np.asarray(start[1], float)[first]
    lls, converged = [], False
    it_range = range(1, max_iter + 1)
    if progress:
        from tqdm.auto import tqdm
        it_range = tqdm(it_range, desc='2PL EM', leave=False)
    for it in it_range:
        Z = a[:, None] * nodes[None, :] + d[:, None]                          # C × K logits
        L = X @ (Z * col_w[:, None]) + (col_w @ log_expit(-Z))[None, :] + logw[None, :]  # R × K (logit form)
        lse = logsumexp(L, axis=1)
        post = np.exp(L - lse[:, None]) * row_w[:, None]
        pen = 0.0 if a_prior_sd is None else -0.5 * col_w @ ((a - 1) / a_prior_sd) ** 2
        lls.append(float(row_w @ lse + pen))                                 # (penalised) marginal log-likelihood
        n_k = post.sum(0)                                                    # expected models per node
        r = X.T @ post                                                       # C × K expected right answers per node
        a_old, d_old = a, d
        f_old = _item_objective(a, d, r, n_k, nodes, a_prior_sd)
        for _ in range(3):                                                   # Newton with step halving: ascent
            P = expit(a[:, None] * nodes[None, :] + d[:, None])
            res, W = r - n_k[None, :] * P, n_k[None, :] * P * (1 - P)
            ga, gd = res @ nodes, res.sum(1)
            haa, had, hdd = W @ nodes**2, W @ nodes, W.sum(1)
            if a_prior_sd is not None:
                ga, haa = ga - (a - 1) / a_prior_sd**2, haa + 1 / a_prior_sd**2
            det = np.maximum(haa * hdd - had**2, 1e-12)
            da, dd = (hdd * ga - had * gd) / det, (haa * gd - had * ga) / det
            step = np.ones_like(a)
            for _h in range(20):
                a_new, d_new = np.clip(a + step * da, -a_max, a_max), d + step * dd
                f_new = _item_objective(a_new, d_new, r, n_k, nodes, a_prior_sd)
                bad = ~(f_new >= f_old - 1e-12 * np.abs(f_old))
                if not bad.any(): break
                step = np.where(bad, step / 2, step)
            a = np.where(bad, a, a_new); d = np.where(bad, d, d_new)
            f_old = np.where(bad, f_old, f_new)
        if max(np.abs(a - a_old).max(), np.abs(d - d_old).max()) < tol:
            converged = True; break
    return dict(a=a[col_inv], d=d[col_inv], sd=1.0, loglik=np.array(lls), n_iter=it, converged=converged, nodes=nodes)

def _eap(A, a, b, sd, n_quad=121, bound=6.0, block=2048):
    "EAP ability and posterior sd of each model (rows of A) given item parameters (a, b) and prior N(0, sd²)."
    nodes = np.linspace(-bound, bound, n_quad)
    rasch = bool(np.all(a == 1))
    if rasch:                                                    # 1PL: b takes at most J + 1 distinct values
        bu, cnt = np.unique(b, return_counts=True)
        base = cnt @ log_expit(-(nodes[None, :] - bu[:, None])) + _log_prior(nodes, sd)
    else:
        Z = a[:, None] * (nodes[None, :] - b[:, None])           # I × K
        lq = log_expit(-Z)
        base = lq.sum(0) + _log_prior(nodes, sd)
    D = None if rasch else log_expit(Z) - lq                     # log P − log(1 − P) = Z
    mean, sdv = np.empty(A.shape[0]), np.empty(A.shape[0])
    for s in range(0, A.shape[0], block):
        blk = A[s:s + block]
        L = (blk.sum(1, dtype=np.float64)[:, None] * nodes[None, :] if rasch else blk.astype(np.float64) @ D) + base[None, :]
        post = np.exp(L - logsumexp(L, axis=1)[:, None])
        mean[s:s + block] = post @ nodes
        sdv[s:s + block] = np.sqrt(np.maximum(post @ nodes**2 - mean[s:s + block]**2, 0))
    return mean, sdv

def _fit_stats(A, a, b, theta, block=1024):
    "Rasch-style infit and outfit mean squares per instance, in blocks of models (memory O(block · I), float32)."
    num_out, num_in, den_in = np.zeros(A.shape[1]), np.zeros(A.shape[1]), np.zeros(A.shape[1])
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    for s in range(0, A.shape[0], block):
        U = A[s:s + block].astype(np.float32)
        Z = a32[None, :] * (theta[s:s + block, None].astype(np.float32) - b32[None, :])
        P = expit(Z)
        num_out += np.exp(np.clip((1 - 2 * U) * Z, -60, 60)).sum(0, dtype=np.float64)  # (u − P)² / (P(1 − P))
        num_in += ((U - P) ** 2).sum(0, dtype=np.float64); den_in += (P * (1 - P)).sum(0, dtype=np.float64)
    return num_in / np.maximum(den_in, 1e-300), num_out / A.shape[0]

def fit_irt_v0(U,                        # response matrix: DataFrame models × instances (0/1) or 2-D array
            model:str='1PL',          # '1PL' (Rasch, a = 1) or '2PL'
            method:str='mml',         # 'mml': our vectorised marginal ML (EM) | 'girth': girth's rasch_mml / twopl_mml
            random_state=0,           # unused by the deterministic estimators; kept for a uniform API
            b_range:float=6.0,        # |b| above which an instance is reported `out_of_range` ([FB24] keeps [−6, 6])
            n_quad:int=61,            # quadrature points (mirt: 61)
            bound:float=6.0,          # quadrature on [−bound, bound] (mirt: 6)
            tol:float=1e-4,           # stop when no parameter changes by more than this (mirt: 1e-4)
            max_iter:int|None=None,   # EM iterations (default 5000 for 1PL, 500 for 2PL)
            a_max:float=20.0,         # 2PL: bound on |discrimination|
            a_prior_sd:float|None=2.0,# 2PL: sd of the N(1, sd²) prior on slopes (None: plain ML, as mirt)
            dedupe_models:bool=False, # drop rows repeating an earlier row's label and responses (the [MP22] R code's unique())
            sigma_update:str='moment',# 1PL latent-sd M-step: 'moment' (as mirt) or 'exact' (monotone on the grid)
            progress:bool=False,      # show a progress bar for the 2PL EM
           ):
    "Fit a 1PL or 2PL IRT model to a response matrix; extremes and out-of-range difficulties are reported, not hidden."
    if model not in ('1PL', '2PL'): raise ValueError(f"model must be '1PL' or '2PL', got {model!r}")
    if method not in ('mml',): raise ValueError(f"method must be one of {('mml',)}, got {method!r}")
    if n_quad < 5: raise ValueError(f"n_quad must be at least 5, got {n_quad}")
    if sigma_update not in ('moment', 'exact'): raise ValueError(f"sigma_update must be 'moment' or 'exact', got {sigma_update!r}")
    t0 = time.perf_counter()
    A, models, instances = _as_response_matrix(U)
    J, I = A.shape
    s = A.sum(0, dtype=np.int64)
    status = np.where(s == J, 'all_right', np.where(s == 0, 'all_wrong', 'ok')).astype(object)
    keep = status == 'ok'
    if keep.sum() < 2:
        raise ValueError(f"only {int(keep.sum())} of {I} instances are answered differently by the models "
                         f"({int((s == J).sum())} all right, {int((s == 0).sum())} all wrong): nothing to estimate")
    Af = A[:, keep]
    if dedupe_models:                                           # same label and same responses: one run repeated
        key = pd.Series([hash((str(m), r.tobytes())) for m, r in zip(models, A)])
        Af = Af[~key.duplicated().to_numpy()]
    Jf = Af.shape[0]
    if Jf < 2: raise ValueError("after removing duplicate rows fewer than 2 distinct models remain")
    a_k = np.ones(int(keep.sum())); loglik, trace, n_iter, converged, sigma = np.nan, np.array([]), 0, True, 1.0
    if method == 'mml':
        r1 = _rasch_em(Af.sum(0, dtype=np.int64), Af.sum(1, dtype=np.int64), Jf, n_quad, bound, tol, max_iter or 5000,
                       sigma_update)
        if model == '1PL':
            b_k, sigma, fit = r1['b'], r1['sd'], r1
        else:
            start = (np.full(Af.shape[1], r1['sd']), -r1['b'])    # θ = σ z: a = σ, d = −b
            fit = _twopl_em(Af, n_quad, bound, tol, max_iter or 500, a_max, a_prior_sd, start=start, progress=progress)
            a_k, b_k = fit['a'], -fit['d'] / fit['a']
        loglik, trace, n_iter, converged = fit['loglik'][-1], fit['loglik'], fit['n_iter'], fit['converged']
        if not converged:
            warnings.warn(f"{model} EM did not converge in {n_iter} iterations (tol={tol}); increase max_iter")
    else:
        a_k, b_k = _girth_fit(Af, model)
    b_full = np.full(I, np.nan); b_full[keep] = b_k
    a_full = np.full(I, np.nan); a_full[keep] = a_k
    if model == '1PL': a_full[:] = 1.0
    status[keep & (np.abs(b_full) > b_range)] = 'out_of_range'
    theta, theta_sd = _eap(A[:, keep], a_k, b_k, sigma, 121, bound)
    infit, outfit = np.full(I, np.nan), np.full(I, np.nan)
    infit[keep], outfit[keep] = _fit_stats(A[:, keep], a_k, b_k, theta)
    items = pd.DataFrame({'instance': np.asarray(instances), 'difficulty': b_full, 'discrimination': a_full,
                          'p_correct': s / J, 'status': pd.Categorical(status, ['ok', 'all_right', 'all_wrong', 'out_of_range']),
                          'infit': infit, 'outfit': outfit})
    abilities = pd.DataFrame({'model': np.asarray(models), 'ability': theta, 'ability_sd': theta_sd, 'accuracy': A.mean(1)})
    return dict(items=items, abilities=abilities, sigma=float(sigma), loglik=float(loglik), trace=trace, n_iter=int(n_iter),
                converged=bool(converged), n_models=Jf)
