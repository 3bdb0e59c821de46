"""``fastrate.trueskill``: TrueSkill ratings.
The public name of :mod:`fastrate.ratings.trueskill`: both names are
one module object (``import fastrate.trueskill`` gives the real module)."""

import sys

from fastrate.ratings import trueskill as _home

sys.modules[__name__] = _home
