"""``fastrate.backgammon``: backgammon error rates -> ratings. The public name of :mod:`fastrate.stats.backgammon`: both
names are one module object (``import fastrate.backgammon`` gives the real module)."""

import sys

from fastrate.stats import backgammon as _home

sys.modules[__name__] = _home
