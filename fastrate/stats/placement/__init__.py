"""Skill statistics for placement games (KDice essay by skrumgaer; SPEC §4).

A player's *profile* is the count of his 1st, 2nd, ..., k-th places (k = 7 at KDice;
everything here works for any k >= 2). All functions take the profiles of every player
at once as a ``(n_players, k)`` matrix of counts (one row per player; a 1-D array of
length k is one player and gives scalars back). Counts are non-negative integers, or
non-negative floats (e.g. from :func:`counts_from_percentages`).

Kernel layout: the public functions hand the kernels the C-contiguous counts matrix
*flattened* to 1-D together with ``k`` (row ``i`` is ``counts[i*k:(i+1)*k]``), so every
kernel takes 1-D arrays as the house style asks; the reshape costs nothing.

The package has one module per subject; every public name is here as well:

* :mod:`.profiles` -- a placement log (:func:`place_counts`, :func:`profiles_from_log`)
  or free-for-all :class:`fastrate.Matches` (:func:`profiles_from_matches`) into
  profiles; reference profiles (:func:`reference_profile`, :data:`TAZD_PROFILE`,
  :data:`TAKBE_PROFILE`), :func:`profile_from_counts`, :func:`counts_from_percentages`.
  Reference profiles are normalised to sum to 1; a user profile off by more than 1% (of
  1, or of 100 for percentages) raises a :class:`ProfileWarning`.
* :mod:`.skill_tests` -- :func:`chi_square` (Pearson's, against a reference profile,
  with Yates' correction on request), :func:`tapl` (``chi2 / sqrt(n) * 1000``),
  :func:`tazd`, :func:`takbe`, :func:`p_value` (the upper tail ``Q(df/2, x/2)``),
  :func:`effect_size` (Cohen's ``w``), :func:`tazd_star` (directional z-score of the mean
  place, SPEC §4 Decision), :func:`qooa` (quality-of-opponent adjustment).
* :mod:`.own_reference` -- :func:`taowr` / :func:`taolz` (:func:`own_reference_stats`,
  :func:`own_reference_profiles`): the test against the player's own profile at his
  lowest rating / at his last return to zero (essay §iv), from a log with times and
  points won.
* :mod:`.payoff` -- :func:`convolution_integral` (expected payoff per point of buy-in),
  :func:`guts_per_game`, :func:`pprg`.
* :mod:`.games_behind` -- :func:`standings` / :func:`standings_from_counts`:
  baseball-style games behind the leader.
* :mod:`.summary` -- :func:`placement_stats`: all the per-player statistics in one sweep.
* :mod:`.affiliates` -- :func:`pga`: pre-game affiliate detection from a seating log
  (essay §viii).

What several of them share (the chi-square kernel, input checks, a log's players and
places) is in the private ``_common`` module.

A player with zero games has NaN for every statistic (chi-square, TAPL, p-value,
effect size, TAZD*, CI, GPG, PPRG); nothing raises for it.
"""

from fastrate.stats.placement.affiliates import pga
from fastrate.stats.placement.games_behind import standings, standings_from_counts
from fastrate.stats.placement.own_reference import (
    OWN_REFERENCES,
    OWN_STATUS,
    own_reference_profiles,
    own_reference_stats,
    taolz,
    taowr,
)
from fastrate.stats.placement.payoff import (
    GPG_CAP,
    KDICE_BUY_IN,
    KDICE_PAYOFF,
    convolution_integral,
    guts_per_game,
    pprg,
)
from fastrate.stats.placement.profiles import (
    TAKBE_PROFILE,
    TAZD_PROFILE,
    ProfileWarning,
    counts_from_percentages,
    place_counts,
    profile_from_counts,
    profiles_from_log,
    profiles_from_matches,
    reference_profile,
)
from fastrate.stats.placement.skill_tests import (
    QOOA_DIVISORS,
    chi_square,
    effect_size,
    p_value,
    qooa,
    takbe,
    tapl,
    tazd,
    tazd_star,
)
from fastrate.stats.placement.summary import placement_stats

__all__ = [
    "ProfileWarning", "TAZD_PROFILE", "TAKBE_PROFILE", "KDICE_PAYOFF", "KDICE_BUY_IN",
    "QOOA_DIVISORS", "GPG_CAP", "reference_profile", "profile_from_counts",
    "counts_from_percentages", "place_counts", "profiles_from_log", "profiles_from_matches",
    "chi_square", "tapl",
    "tazd", "takbe", "OWN_REFERENCES", "OWN_STATUS", "own_reference_profiles",
    "own_reference_stats", "taowr", "taolz",
    "p_value", "effect_size", "tazd_star", "qooa", "convolution_integral",
    "guts_per_game", "pprg", "standings", "standings_from_counts", "placement_stats",
    "pga",
]
