"""``fastrate.glicko``: Glicko ratings. The public name of :mod:`fastrate.ratings.glicko`: both
names are one module object (``import fastrate.glicko`` gives the real module)."""

import sys

from fastrate.ratings import glicko as _home

sys.modules[__name__] = _home
