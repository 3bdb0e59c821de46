"""``fastrate.weng_lin``: Weng-Lin ratings (the openskill models).
The public name of :mod:`fastrate.ratings.weng_lin`: both names are
one module object (``import fastrate.weng_lin`` gives the real module)."""

import sys

from fastrate.ratings import weng_lin as _home

sys.modules[__name__] = _home
