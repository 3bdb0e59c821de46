"""``fastrate.network_scores``: Park & Newman's network win-loss scores.
The public name of :mod:`fastrate.ratings.network_scores`: both names are one module
object (``import fastrate.network_scores`` gives the real module)."""

import sys

from fastrate.ratings import network_scores as _home

sys.modules[__name__] = _home
