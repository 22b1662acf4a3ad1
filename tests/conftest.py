"Shared pytest setup: the real-data folder defaults to ../shared/datasets (the development/CI layout)."
import os
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault('ROBUSTDIFF_DATA', str((_ROOT/'..'/'shared'/'datasets').resolve()))
os.environ.setdefault('MPLBACKEND', 'Agg')
