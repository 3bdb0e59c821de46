"""The splitmix64 finaliser (layer 0): the one bit mixer of the interning hash tables
(``fastrate.data._intern``) and of the ladder simulator's random stream
(``fastrate.stats.pairing``).

Steele, Lea and Flood (2014), "Fast splittable pseudorandom number generators", with the
constants of Stafford's "Mix13"."""

from __future__ import annotations

import numba
import numpy as np

from fastrate._numba import inline_kernel

__all__ = ["splitmix64", "MIX1", "MIX2", "MASK64"]

MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
#: 2^64 - 1: the wrap-around of the pure-Python versions
MASK64 = 2**64 - 1


@inline_kernel
def splitmix64(z):
    """The splitmix64 finaliser of a uint64 (a bijection; every input bit moves every
    output bit)."""
    z = (z ^ (z >> _S30)) * MIX1
    z = (z ^ (z >> _S27)) * MIX2
    return z ^ (z >> _S31)


if numba.config.DISABLE_JIT:  # pragma: no cover - the kernels run as Python (coverage)
    def splitmix64(z):  # noqa: F811 - the same arithmetic on Python ints: NumPy scalars
        # warn when they wrap around, which the pure-Python run would turn into errors
        z = int(z) & MASK64
        z = ((z ^ (z >> 30)) * int(MIX1)) & MASK64
        z = ((z ^ (z >> 27)) * int(MIX2)) & MASK64
        return np.uint64(z ^ (z >> 31))
