"""The fastrate exception hierarchy.

Every error raised for bad input or bad configuration is a :class:`FastrateError`
and also a ``ValueError`` or ``TypeError``, so callers can catch either. Messages
follow one template: what, the requirement, what was found, where, and the fix.
"""

from __future__ import annotations


class FastrateError(Exception):
    """Base class of every error fastrate raises on purpose."""


class InputError(FastrateError, ValueError):
    """Bad input data: a missing column, a value out of range, a malformed file."""


class MissingColumnError(InputError):
    """A table has no column for a role the reader looks for (``role``: ``"match"``,
    ``"player"`` ...): a reader of another layout may still read it (two-player games
    for a system that rates matches)."""

    def __init__(self, message: str, role: str):
        super().__init__(message)
        self.role = role


class ConfigError(FastrateError, ValueError):
    """An invalid parameter value or an unknown option/system."""


class InputTypeError(FastrateError, TypeError):
    """An argument of the wrong type."""


class ArgumentTypeError(InputTypeError, InputError):
    """A rating function got the wrong kind of object: not the container it rates
    (``Games``, ``Boards``, ``Matches``) or not its config class. One class for this
    mistake everywhere (``rate``, ``evaluate``, ``burn_in_mask`` ...): a ``TypeError``;
    also an :class:`InputError` (``ValueError``), which ``rate()`` raised for it before,
    so existing ``except ValueError`` code keeps working."""


class FastrateWarning(UserWarning):
    """Base class of the warnings fastrate issues on purpose (the CLI prints each as one
    ``fastrate: warning:`` line)."""


class ConvergenceWarning(FastrateWarning):
    """An iterative solve (e.g. Glicko-2's volatility) stopped before converging."""
