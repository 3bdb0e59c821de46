"""``fastrate.elom``: multiplayer Elo (PlayerRatings' elom).
The public name of :mod:`fastrate.ratings.elom`: both names are
one module object (``import fastrate.elom`` gives the real module)."""

import sys

from fastrate.ratings import elom as _home

sys.modules[__name__] = _home
