"""``fastrate.information``: information per game and the cost/bits table. The public name of :mod:`fastrate.stats.information`: both
names are one module object (``import fastrate.information`` gives the real module)."""

import sys

from fastrate.stats import information as _home

sys.modules[__name__] = _home
