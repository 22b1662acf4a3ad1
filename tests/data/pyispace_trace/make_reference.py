"""PyISpace 0.3.7's TRACE footprints on one instance space: the reference of tests/test_footprints_pyispace.py.

Not run by the tests (they read trace.csv). The input, breast_cancer_space.csv.gz, is the breast-cancer instance space
of nbs/41_isa.ipynb (coordinates z1, z2 and, per classifier of the pyhard7 pool, `good_<model>` = log-loss below
log 2). To regenerate, with PyHard 2.2.4 installed as in tests/data/pyhard_ih/make_reference.py (it brings
pyispace 0.3.7, shapely 1.8.5 and alphashape 1.3.1):

    /tmp/phvenv/bin/python tests/data/pyispace_trace/make_reference.py

pyispace's package __init__ does not import on Python 3.11 (a dataclass with an array default in train.py), so its
trace.py is loaded alone. TRACE is run at the coordinates' own scale and at 4× (where α = 2 no longer gives one
polygon per cluster and `optimizealpha` takes over).
"""
import glob, importlib.util, warnings
from pathlib import Path
import numpy as np, pandas as pd

OUT = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location('pyispace_trace', glob.glob(str(Path(np.__file__).parents[1] / 'pyispace' / 'trace.py'))[0])
T = importlib.util.module_from_spec(spec); spec.loader.exec_module(T)

if __name__ == '__main__':
    warnings.simplefilter('ignore')
    d = pd.read_csv(OUT / 'breast_cancer_space.csv.gz')
    rows = []
    for scale in (1.0, 4.0):
        Z = d[['z1', 'z2']].to_numpy() * scale
        for c in ['space'] + [c for c in d.columns if c.startswith('good_')]:
            Yb = np.ones(len(Z), bool) if c == 'space' else d[c].to_numpy().astype(bool)
            f = T.trace_build(Z, Yb, 0.55) if c == 'space' else T.trace_build_wrapper(Z, Yb, 0.55)   # as trace() builds them
            rows.append({'scale': scale, 'set': c.removeprefix('good_'), 'area': f.area, 'elements': f.elements,
                         'good_elements': f.good_elements, 'purity': f.purity})
    pd.DataFrame(rows).to_csv(OUT / 'trace.csv', index=False, float_format='%.17g')
    print(pd.DataFrame(rows).round(4).to_string())
