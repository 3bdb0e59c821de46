"""``fastrate.fibs``: FIBS backgammon ratings. The public name of :mod:`fastrate.ratings.fibs`: both
names are one module object (``import fastrate.fibs`` gives the real module)."""

import sys

from fastrate.ratings import fibs as _home

sys.modules[__name__] = _home
