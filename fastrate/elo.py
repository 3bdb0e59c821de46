"""``fastrate.elo``: the public name of :mod:`fastrate.ratings.elo` (so that
``from fastrate.elo import ...`` works as well as ``fastrate.elo.rate``)."""

from fastrate.ratings.elo import *  # noqa: F403
from fastrate.ratings.elo import __all__  # noqa: F401
