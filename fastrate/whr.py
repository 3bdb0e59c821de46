"""``fastrate.whr``: whole-history rating (Coulom 2008). The public name of
:mod:`fastrate.ratings.whr`: both names are one module object (``import fastrate.whr``
gives the real module)."""

import sys

from fastrate.ratings import whr as _home

sys.modules[__name__] = _home
