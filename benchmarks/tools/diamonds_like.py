"""A table of the shape of ggplot2's `diamonds` (issue 36), generated, for the whole-report benchmark on a real-sized
table with nominal columns: 53 940 rows, target `cut` (5 classes: Fair 3 %, Good 9 %, Very Good 22 %, Premium 26 %,
Ideal 40 %), nominal `color` (7 levels D–J) and `clarity` (8 levels), numeric carat, depth, table, price, x, y, z.
As in the real table, cut shows mostly in depth and table (Ideal: table ≈ 56, depth ≈ 61.7 ± 0.7; Fair: table ≈ 59,
depth ≈ 64 ± 3.6), a little in price and carat; the classes overlap, so no model is near perfect. Nothing is
downloaded (the real CSV, bundled in a PyPI plotting package, is kept outside the repository).

    python benchmarks/tools/diamonds_like.py --out /tmp/diamonds_like.csv [--rows 53940] [--seed 0]
    python benchmarks/tools/measure.py --out report_diamonds_quick -- robustdiff report /tmp/diamonds_like.csv --target cut \\
        --models quick --n-jobs 2 --out /tmp/diamonds-report
"""
import argparse
import numpy as np
import pandas as pd

CUTS = ['Fair', 'Good', 'Very Good', 'Premium', 'Ideal']
SHARE = [0.03, 0.09, 0.22, 0.26, 0.40]
DEPTH = [(64.0, 3.6), (62.4, 2.2), (61.8, 1.4), (61.3, 1.2), (61.7, 0.7)]   # mean, sd per cut
TABLE = [(59.0, 3.9), (58.7, 2.8), (58.0, 2.1), (58.7, 1.5), (56.0, 1.2)]
COLORS, CLARITY = list('DEFGHIJ'), ['I1', 'SI2', 'SI1', 'VS2', 'VS1', 'VVS2', 'VVS1', 'IF']

def diamonds_like(rows:int=53940, seed:int=0)->pd.DataFrame:
    "The generated table (see the module's docstring)."
    rng = np.random.default_rng(seed)
    cut = rng.choice(5, rows, p=SHARE)
    mu, sd = np.array(DEPTH).T
    depth = np.round(rng.normal(mu[cut], sd[cut]), 1)
    mu, sd = np.array(TABLE).T
    table = np.round(rng.normal(mu[cut], sd[cut]))
    carat = np.round(np.exp(rng.normal(-0.4 - 0.08 * (cut == 4), 0.55, rows)), 2).clip(0.2, 5.0)
    color = rng.choice(7, rows, p=[0.13, 0.18, 0.18, 0.21, 0.15, 0.10, 0.05])
    clarity = np.clip(rng.binomial(7, 0.35 + 0.04 * cut / 4, rows), 0, 7)
    price = np.round(np.exp(8.4 + 1.7 * np.log(carat) - 0.08 * color + 0.1 * clarity + 0.03 * cut + rng.normal(0, 0.2, rows)))
    side = 6.45 * carat ** (1 / 3)
    x = np.round(side * rng.normal(1, 0.01, rows), 2); y = np.round(x * rng.normal(1, 0.01, rows), 2)
    z = np.round(x * depth / 100, 2)
    return pd.DataFrame({'carat': carat, 'cut': np.array(CUTS)[cut], 'color': np.array(COLORS)[color],
                         'clarity': np.array(CLARITY)[clarity], 'depth': depth, 'table': table, 'price': price.astype(int),
                         'x': x, 'y': y, 'z': z})

if __name__ == '__main__':
    ap = argparse.ArgumentParser()
    ap.add_argument('--rows', type=int, default=53940); ap.add_argument('--seed', type=int, default=0)
    ap.add_argument('--out', required=True)
    a = ap.parse_args()
    diamonds_like(a.rows, a.seed).to_csv(a.out, index=False)
