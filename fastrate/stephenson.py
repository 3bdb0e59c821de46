"""``fastrate.stephenson``: Stephenson's rating system. The public name of
:mod:`fastrate.ratings.stephenson`: both names are one module object (``import
fastrate.stephenson`` gives the real module)."""

import sys

from fastrate.ratings import stephenson as _home

sys.modules[__name__] = _home
