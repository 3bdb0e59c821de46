"""``fastrate.glicko``: the public name of :mod:`fastrate.ratings.glicko` (so that
``from fastrate.glicko import ...`` works as well as ``fastrate.glicko.rate``)."""

from fastrate.ratings.glicko import *  # noqa: F403
from fastrate.ratings.glicko import __all__  # noqa: F401
