"""The heavy runs behind nbs/53_plm22.ipynb ([PLM22] case studies), cached as small CSV/JSON files in this folder.

    python nbs/results/plm22/run_study.py preds      # step 1: out-of-fold predictions of the pyhard7 pool (cache in /tmp)
    python nbs/results/plm22/run_study.py isa        # step 2: hardness measures + instance spaces, write the results
    python nbs/results/plm22/run_study.py preds gauss --n-jobs 1   # the same, two Gaussians only (COMPAS files untouched)
    python nbs/results/plm22/run_study.py isa gauss --n-jobs 1

- COMPAS (ProPublica's two-year recidivism file, their filters), African-American and Caucasian defendants,
  features sex, age, juvenile felony / misdemeanour / other counts, priors count, charge degree, length of stay,
  with and without race; target two_year_recid.
- Two Gaussians N((1, 1), 0.8²I) and N((−1, −1), 0.8²I), 250 per class, labels flipped on a random share
  (label noise) of the instances, noise 0 … 100 % in steps of 10 %, REPS repetitions.
"""
import json, sys, time, warnings
from pathlib import Path
import numpy as np
import pandas as pd

OUT = Path(__file__).resolve().parent
CACHE = Path('/tmp/isa_plm22_cache')
NOISE = [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100]
REPS = 10          # repetitions of the label-noise study (the paper's)
N_JOBS = 2         # joblib workers for cv_predictions (--n-jobs N)

def compas(with_race:bool):
    from robustdiff.data import from_frame
    from robustdiff.datasets import data_dir
    df = pd.read_csv(data_dir('compas') / 'compas-scores-two-years.csv.gz')
    df = df[(df.days_b_screening_arrest.between(-30, 30)) & (df.is_recid != -1) & (df.c_charge_degree != 'O')
            & (df.score_text != 'N/A') & df.race.isin(['African-American', 'Caucasian'])]
    stay = (pd.to_datetime(df.c_jail_out) - pd.to_datetime(df.c_jail_in)).dt.days.fillna(0).clip(lower=0)
    X = pd.DataFrame({'sex_male': (df.sex == 'Male').astype(int), 'age': df.age, 'juv_fel_count': df.juv_fel_count,
                      'juv_misd_count': df.juv_misd_count, 'juv_other_count': df.juv_other_count,
                      'priors_count': df.priors_count, 'charge_felony': (df.c_charge_degree == 'F').astype(int),
                      'length_of_stay': stay})
    if with_race: X.insert(1, 'race_african_american', (df.race == 'African-American').astype(int))
    X = X.reset_index(drop=True)
    meta = pd.DataFrame({'race': df.race.to_numpy(), 'decile_score': df.decile_score.to_numpy()})
    ds = from_frame(X.assign(two_year_recid=df.two_year_recid.to_numpy()), 'two_year_recid',
                    name='compas_race' if with_race else 'compas_norace')
    return ds, meta

def gaussians(noise:int, rep:int, spread:float=0.8, n_per_class:int=250):
    from robustdiff.data import from_frame
    rng = np.random.default_rng([noise, rep])
    X = np.vstack([rng.normal(1, spread, (n_per_class, 2)), rng.normal(-1, spread, (n_per_class, 2))])
    y = np.repeat([1, 0], n_per_class)
    flip = rng.permutation(len(y))[:int(round(noise / 100 * len(y)))]
    y[flip] = 1 - y[flip]
    return from_frame(pd.DataFrame({'V1': X[:, 0], 'V2': X[:, 1], 'class': y}), 'class', name=f'gauss_n{noise}_r{rep}')

def all_datasets(which:str='all'):
    "'all' (COMPAS and the Gaussians), 'compas' or 'gauss'."
    if which not in ('all', 'compas', 'gauss'): raise ValueError(f"which: 'all', 'compas' or 'gauss', not {which!r}")
    if which != 'gauss': yield compas(True)[0]
    if which != 'compas':
        for noise in NOISE: yield gaussians(noise, 0)
    if which != 'gauss': yield compas(False)[0]
    if which != 'compas':
        for rep in range(1, REPS):
            for noise in NOISE: yield gaussians(noise, rep)

def preds(ds):
    from robustdiff.responses import cv_predictions
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        return cv_predictions(ds, 'pyhard7', n_splits=5, random_state=0, n_jobs=N_JOBS, progress=False, cache_dir=CACHE / ds.name)

def step_preds(which='all'):
    t0 = time.time()
    for ds in all_datasets(which):
        t = time.time(); preds(ds); print(ds.name, ds.n_instances, f'{time.time() - t:.1f}s', flush=True)
    print(f'preds {which}: {time.time() - t0:.0f}s in all', flush=True)

def step_isa(which='all'):
    """Hardness measures + instance spaces. Two Gaussians: per repetition the footprint table (gaussians_footprints.csv),
    a per-repetition summary also for levels without a space (gaussians_reps.csv), and the frames of repetition 0."""
    from robustdiff.isa import instance_space
    from robustdiff.hardness import hardness_measures
    rows, reps, t0 = [], [], time.time()
    for ds in all_datasets(which):
        t = time.time()
        p = preds(ds)
        M = hardness_measures(ds)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            try: sp = instance_space(ds, measures=M, hardness=p, n_features=min(10, M.shape[1]))
            except ValueError as e:          # e.g. no bad instance at 0 % noise
                print(ds.name, 'no instance space:', e, flush=True); sp = None
        if ds.name.startswith('compas'):
            sp.frame().round(5).to_csv(OUT / f'{ds.name}_frame.csv.gz', index=False)
            sp.footprint_table.round(5).to_csv(OUT / f'{ds.name}_footprints.csv', index=False)
            sp.footprints.triangles.round(5).to_csv(OUT / f'{ds.name}_triangles.csv.gz', index=False)
            sp.projection.round(5).to_csv(OUT / f'{ds.name}_projection.csv')
            p.to_csv(OUT / f'{ds.name}_preds.csv.gz', index=False, columns=['model', 'instance', 'y_true', 'y_pred', 'p_true', 'logloss'])
        else:
            noise, rep = ds.name[len('gauss_n'):].split('_r')
            from robustdiff.isa import _hardness_parts
            hp = _hardness_parts(p, ds.n_classes)
            good = hp['losses'] < hp['threshold']
            reps.append({'noise': int(noise), 'rep': int(rep), 'space': sp is not None, 'mean_IH': float(hp['ih'].mean()),
                         'share_easy': float((hp['ih'] <= 0.4).mean()), 'accuracy': float((p.y_true == p.y_pred).mean()),
                         'share_bad': float(((~good).sum(1) > good.shape[1] / 2).mean()),
                         **{f'good_{m}': float(good[m].mean()) for m in good.columns}})
            if sp is not None:
                t_ = sp.footprint_table.assign(noise=int(noise), rep=int(rep), mean_IH=sp.ih.mean(),
                                               accuracy=float((p.y_true == p.y_pred).mean()))
                rows.append(t_)
                if rep == '0': sp.frame()[['z1', 'z2', 'class', 'IH']].round(4).to_csv(OUT / f'gauss_n{noise}_frame.csv', index=False)
        print(ds.name, f'{time.time() - t:.1f}s', flush=True)
    if rows: pd.concat(rows, ignore_index=True).round(5).to_csv(OUT / 'gaussians_footprints.csv', index=False)
    if reps: pd.DataFrame(reps).round(5).to_csv(OUT / 'gaussians_reps.csv', index=False)
    print(f'isa {which}: {time.time() - t0:.0f}s in all', flush=True)
    if which == 'compas': return
    (OUT / 'settings.json').write_text(json.dumps({'noise': NOISE, 'reps': REPS, 'models': 'pyhard7', 'n_splits': 5,
                                                   'paper_reps': 10}, indent=1))

if __name__ == '__main__':
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('step', choices=['preds', 'isa'])
    ap.add_argument('which', nargs='?', default='all', choices=['all', 'compas', 'gauss'])
    ap.add_argument('--n-jobs', type=int, default=N_JOBS)
    a = ap.parse_args()
    N_JOBS = a.n_jobs
    {'preds': step_preds, 'isa': step_isa}[a.step](a.which)
