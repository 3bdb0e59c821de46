"""``fastrate.glicko2``: Glicko-2 ratings. The public name of :mod:`fastrate.ratings.glicko2`: both
names are one module object (``import fastrate.glicko2`` gives the real module)."""

import sys

from fastrate.ratings import glicko2 as _home

sys.modules[__name__] = _home
