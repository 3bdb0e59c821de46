"""``fastrate.elo``: Elo ratings. The public name of :mod:`fastrate.ratings.elo`: both
names are one module object (``import fastrate.elo`` gives the real module)."""

import sys

from fastrate.ratings import elo as _home

sys.modules[__name__] = _home
