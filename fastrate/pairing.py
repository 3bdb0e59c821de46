"""``fastrate.pairing``: pairing schedulers and the ladder simulator. The public name of :mod:`fastrate.stats.pairing`: both
names are one module object (``import fastrate.pairing`` gives the real module)."""

import sys

from fastrate.stats import pairing as _home

sys.modules[__name__] = _home
