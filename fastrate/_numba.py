"""The one place where Numba is configured.

Every compiled function in fastrate is decorated with :func:`kernel`, so all options
live here: on-disk caching, strict IEEE arithmetic (``fastmath=False``) and NumPy's
error model (a division by zero gives inf/nan instead of raising inside a kernel;
kernels guard their real zero denominators themselves).

Kernels compile lazily on first call (no eager signatures), so ``import fastrate``
stays cheap; ``fastrate warmup`` / :func:`fastrate.warmup` compiles everything into the cache.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba

KERNEL_OPTIONS: dict[str, Any] = {
    "cache": True,
    "fastmath": False,
    "error_model": "numpy",
    "nogil": True,
    "boundscheck": False,
}


def kernel(fn: Callable | None = None, **overrides: Any) -> Any:
    """Decorate a kernel with fastrate's Numba options (``@kernel`` or ``@kernel(...)``)."""
    options = {**KERNEL_OPTIONS, **overrides}
    if fn is None:
        return lambda f: numba.njit(**options)(f)
    return numba.njit(**options)(fn)


def inline_kernel(fn: Callable) -> Any:
    """A small helper kernel that LLVM always inlines into its callers."""
    return numba.njit(inline="always", **KERNEL_OPTIONS)(fn)
