"""``fastrate.placement``: placement-game statistics (KDice). The public name of :mod:`fastrate.stats.placement`: both
names are one module object (``import fastrate.placement`` gives the real module)."""

import sys

from fastrate.stats import placement as _home

sys.modules[__name__] = _home
