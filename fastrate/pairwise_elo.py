"""``fastrate.pairwise_elo``: pairwise Elo for matches.
The public name of :mod:`fastrate.ratings.pairwise_elo`: both names are
one module object (``import fastrate.pairwise_elo`` gives the real module)."""

import sys

from fastrate.ratings import pairwise_elo as _home

sys.modules[__name__] = _home
