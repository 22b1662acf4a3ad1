"Stand-ins for PyHard's plotting imports (holoviews, panel, bokeh, shapely, plotly...), so its ClassifiersPool runs in robustdiff's venv."
import sys, types
from unittest.mock import MagicMock
from importlib.abc import MetaPathFinder, Loader
from importlib.machinery import ModuleSpec
STUB = ('holoviews', 'panel', 'bokeh', 'shapely', 'plotly', 'plotting', 'param', 'ncafs', 'pyispace', 'typer', 'deprecation')
class _L(Loader):
    def create_module(self, spec):
        m = MagicMock(); m.__name__ = spec.name; m.__path__ = []; m.__spec__ = spec; return m
    def exec_module(self, m): pass
class _F(MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split('.')[0] in STUB: return ModuleSpec(name, _L(), is_package=True)
sys.meta_path.insert(0, _F())
