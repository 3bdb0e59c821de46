"""``fastrate.bradley_terry``: batch Bradley-Terry fits (Ordo's and BayesElo's models).
The public name of :mod:`fastrate.ratings.bradley_terry`: both names are one module
object (``import fastrate.bradley_terry`` gives the real module)."""

import sys

from fastrate.ratings import bradley_terry as _home

sys.modules[__name__] = _home
