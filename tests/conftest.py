"Shared pytest setup: the real-data folder defaults to ../shared/datasets (the development/CI layout)."
import os
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault('ROBUSTDIFF_DATA', str((_ROOT/'..'/'shared'/'datasets').resolve()))
os.environ.setdefault('MPLBACKEND', 'Agg')

# Property tests: in CI the examples are derandomized (the same every run, so a red CI is reproducible);
# locally hypothesis explores new examples each run.
from hypothesis import settings as _hsettings
_hsettings.register_profile('ci', derandomize=True, database=None, print_blob=True)
if os.environ.get('CI'): _hsettings.load_profile('ci')
