"""Shared pytest setup.

The real data comes from `robustdiff.datasets.data_dir()`: `ROBUSTDIFF_DATA` if set, else the repository's own `data/`
folder, so a fresh clone with nothing beside it runs every test. With `ROBUSTDIFF_FORBID_SKIPS=1` (set by `.ci/run`)
a skipped test counts as a failure: CI must run everything.
"""
import os
import pytest

os.environ.setdefault('MPLBACKEND', 'Agg')

# Risk files are signed with the user's key (robustdiff._trust): the tests sign with a key of their own, created in a
# temporary configuration folder, never in the developer's ~/.config (tests that need another key set it themselves).
if 'ROBUSTDIFF_CONFIG_DIR' not in os.environ:
    import tempfile
    os.environ['ROBUSTDIFF_CONFIG_DIR'] = tempfile.mkdtemp(prefix='robustdiff-test-config-')

# Property tests: in CI the examples are derandomized (the same every run, so a red CI is reproducible);
# locally hypothesis explores new examples each run.
from hypothesis import settings as _hsettings
_hsettings.register_profile('ci', derandomize=True, database=None, print_blob=True)
if os.environ.get('CI'): _hsettings.load_profile('ci')

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if os.environ.get('ROBUSTDIFF_FORBID_SKIPS') and rep.skipped and not hasattr(rep, 'wasxfail'):
        rep.outcome = 'failed'
        rep.longrepr = f"skipped, but ROBUSTDIFF_FORBID_SKIPS is set (CI runs everything): {rep.longrepr}"
