"""``fastrate.codeforces``: the Codeforces contest rating.
The public name of :mod:`fastrate.ratings.codeforces`: both names are
one module object (``import fastrate.codeforces`` gives the real module)."""

import sys

from fastrate.ratings import codeforces as _home

sys.modules[__name__] = _home
