"""``fastrate.glicko2``: the public name of :mod:`fastrate.ratings.glicko2` (so that
``from fastrate.glicko2 import ...`` works as well as ``fastrate.glicko2.rate``)."""

from fastrate.ratings.glicko2 import *  # noqa: F403
from fastrate.ratings.glicko2 import __all__  # noqa: F401
