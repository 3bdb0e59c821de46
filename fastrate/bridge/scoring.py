"""Comparing the results of one board: IMPs, cross-IMPs, Butler, matchpoints, Neuberg
(SPEC §3.1-3.2).

Results are a struct of arrays grouped by board (CSR): ``board_offsets`` (int64, length
``n_boards + 1``, ``offsets[0] == 0``, nondecreasing) indexes a float64 array of North-South
scores, so board ``b`` is ``ns_scores[offsets[b]:offsets[b + 1]]``. :func:`group_by_board`
builds that layout from a board-id column (a stable sort) and puts results back in the
input order. All scores are NS points; East-West gets the negation (IMPs) or
``top - NS`` (matchpoints).

Decisions (documented in docs/bridge.md):

* Differences that are not multiples of 10 (averaged scores) are IMPed with the same
  thresholds, "at least the bound": 19.9 -> 0, 20 -> 1.
* A board with fewer than two real results has no comparison: its tables get NaN and the
  board is flagged in ``no_comparison``; nothing is invented.
* Artificial scores (``artificial`` codes 0 real, 1 average-plus, 2 average,
  3 average-minus, from North-South's side; East-West gets the mirror) are removed from
  the comparisons. At matchpoints they get 60 / 50 / 40 % of the top and the real results
  are Neuberg-factored to the number of tables on the board (the "or the pair's session
  percentage if higher/lower" clause is a session-level rule and is not applied per
  board); at IMPs they get +3 / 0 / -3.
* Butler drops nothing from boards with 3 or fewer real results and never more than
  ``(n - 1) // 2`` from each end.

Validation happens once, at the boundary: these functions check arrays that a user
passes in, then call the kernels of :mod:`fastrate.data._board_scoring` (where the rules
live, below the :class:`~fastrate.data.boards.Boards` container, whose
:meth:`~fastrate.data.boards.Boards.score` calls them directly). Given a
:class:`Boards` instead of arrays (``cross_imps(boards)``), they go straight to the
kernels: the container was validated when it was built.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fastrate._validate import as_1d, as_float64, check_choice, fail_at, require
from fastrate.data._board_scoring import (
    ARTIFICIAL_IMPS,
    ARTIFICIAL_PERCENT,
    DATUMS,
    DROPS,
    IMP_THRESHOLDS,
    METHODS,
    MP_STYLES,
    BoardScores,
    butler_drop_count,
    butler_scores,
    check_method,
    cross_imps_scores,
    matchpoint_scores,
    score_boards,
)
from fastrate.data.boards import Boards
from fastrate.errors import InputError

__all__ = ["IMP_THRESHOLDS", "imps", "BoardGroups", "group_by_board", "BoardScores",
           "results_table",
           "cross_imps", "butler_imps", "butler_drop_count", "matchpoints", "neuberg",
           "pair_totals", "score_results", "round_datum", "check_method", "METHODS", "DROPS",
           "DATUMS", "MP_STYLES", "ARTIFICIAL_PERCENT", "ARTIFICIAL_IMPS"]


# ----------------------------------------------------------------------------------
# IMP scale


def imps(diff: Any) -> Any:
    """IMPs of a point difference (WBF scale): the number of thresholds ``t`` of
    :data:`IMP_THRESHOLDS` with ``|d| >= t``, signed like ``d``. Non-multiples of 10 use
    the same thresholds (19.9 -> 0). NaN stays NaN. A scalar gives a float.

    >>> imps([0, 10, 20, -2240, 3600, 50000]).tolist()
    [0.0, 0.0, 1.0, -19.0, 23.0, 24.0]
    """
    d = np.asarray(diff, dtype=np.float64)
    k = np.searchsorted(IMP_THRESHOLDS, np.abs(d), side="right").astype(np.float64)
    out = np.where(np.isnan(d), np.nan, np.where(d < 0, -k, k))
    return float(out) if out.ndim == 0 else out


def round_datum(x: Any) -> Any:
    """Round to a multiple of 10 with halves away from zero (345 -> 350, -345 -> -350,
    514.55 -> 510); never round-half-even."""
    x = np.asarray(x, dtype=np.float64)
    out = np.sign(x) * np.floor(np.abs(x) / 10.0 + 0.5) * 10.0
    out = out + 0.0  # no negative zero
    return float(out) if out.ndim == 0 else out


# ----------------------------------------------------------------------------------
# grouping


@dataclass(frozen=True)
class BoardGroups:
    """Results grouped by board: ``boards`` (the distinct ids, sorted), ``offsets``
    (CSR, int64), ``order`` (input row of each grouped row), ``ns_scores`` and
    ``artificial`` in grouped order."""

    boards: np.ndarray
    offsets: np.ndarray
    order: np.ndarray
    ns_scores: np.ndarray
    artificial: np.ndarray | None = None

    def to_input_order(self, values: np.ndarray) -> np.ndarray:
        """Per-row values in grouped order -> the same values in input-row order."""
        out = np.empty_like(values)
        out[self.order] = values
        return out

    def per_row(self, per_board: np.ndarray) -> np.ndarray:
        """A per-board array spread to every input row."""
        counts = np.diff(self.offsets)
        return self.to_input_order(np.repeat(per_board, counts))


def group_by_board(board_ids: Any, scores: Any, artificial: Any = None) -> BoardGroups:
    """Stably sort results by board id and build the CSR ``offsets``.

    ``scores`` are NS points (NaN allowed only where ``artificial`` is non-zero)."""
    ids = as_1d(board_ids, "board")
    if ids.dtype == object:
        try:
            ids = ids.astype(str)
        except (TypeError, ValueError):
            raise InputError("column 'board' must hold board numbers or names") from None
    art = None if artificial is None else _artificial(artificial, ids.shape[0])
    sc = _scores(scores, ids.shape[0], art)
    order = np.argsort(ids, kind="stable")
    boards, counts = np.unique(ids[order], return_counts=True)
    offsets = np.zeros(boards.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return BoardGroups(boards, offsets, require(order, np.int64), require(sc[order],
                       np.float64), None if art is None else require(art[order], np.int64))


# ----------------------------------------------------------------------------------
# validation


def _artificial(artificial: Any, n: int) -> np.ndarray:
    arr = as_1d(artificial, "artificial")
    if arr.shape[0] != n:
        raise InputError(f"column 'artificial' must have one value per result ({n}); got "
                         f"{arr.shape[0]}")
    if arr.dtype.kind == "b":
        arr = arr.astype(np.int64) * 2  # True = average
    if arr.dtype.kind not in "iuf":
        raise InputError(f"column 'artificial' must hold codes 0 (real), 1 (A+), 2 (A), "
                         f"3 (A-); got dtype {arr.dtype}")
    bad = ~np.isin(arr, (0, 1, 2, 3))
    if bad.any():
        raise fail_at("artificial", "must be 0 (real), 1 (A+), 2 (A) or 3 (A-)", arr,
                      int(np.argmax(bad)))
    return require(arr, np.int64)


def _scores(scores: Any, n: int | None, art: np.ndarray | None) -> np.ndarray:
    sc = as_float64(scores, "ns_score", allow_nan=True)
    if n is not None and sc.shape[0] != n:
        raise InputError(f"column 'ns_score' must have one value per result ({n}); got "
                         f"{sc.shape[0]}")
    bad = ~np.isfinite(sc)
    if art is not None:
        bad &= art == 0
    if bad.any():
        raise fail_at("ns_score", "must be a finite number for a real result (mark "
                      "averages with 'artificial')", sc, int(np.argmax(bad)))
    return sc


def _offsets(board_offsets: Any, n: int) -> np.ndarray:
    off = as_1d(board_offsets, "board_offsets")
    if off.dtype.kind not in "iu":
        raise InputError(f"'board_offsets' must be an integer array; got dtype {off.dtype}")
    off = require(off, np.int64)
    if off.shape[0] < 1 or off[0] != 0 or off[-1] != n:
        raise InputError(f"'board_offsets' must start at 0 and end at the number of results "
                         f"({n}); got {off[:1].tolist()}..{off[-1:].tolist()}")
    if (np.diff(off) < 0).any():
        i = int(np.argmax(np.diff(off) < 0))
        raise InputError(f"'board_offsets' must be nondecreasing; offset {i + 1} "
                         f"({off[i + 1]}) is below offset {i} ({off[i]})")
    return off


def _checked(board_offsets: Any, ns_scores: Any, artificial: Any):
    """(offsets, float64 scores, artificial codes or None) with the structure checked;
    the finiteness of real scores is checked by the kernels."""
    art = None
    if artificial is not None:
        art = _artificial(artificial, as_1d(ns_scores, "ns_score").shape[0])
    sc = as_float64(ns_scores, "ns_score", allow_nan=True)
    off = _offsets(board_offsets, sc.shape[0])
    if art is not None and not art.any():
        art = None
    return off, sc, art




# ----------------------------------------------------------------------------------
# board comparisons


def _arrays(board_offsets: Any, ns_scores: Any, artificial: Any):
    """The CSR arrays of a :class:`Boards` as they are (validated when it was built), or
    user arrays checked by :func:`_checked`."""
    if isinstance(board_offsets, Boards):
        if ns_scores is not None or artificial is not None:
            raise InputError("give Boards alone, or board_offsets, ns_scores and artificial "
                             "arrays; not both")
        b = board_offsets
        return b.board_offsets, b.ns_score, b.artificial
    if ns_scores is None:
        raise InputError("ns_scores is missing: give board_offsets and ns_scores arrays, or "
                         "a Boards")
    return _checked(board_offsets, ns_scores, artificial)


def cross_imps(board_offsets: Any, ns_scores: Any = None, artificial: Any = None
               ) -> BoardScores:
    """Average cross-IMPs: each table gets the mean over every other (real) table ``u``
    of ``IMP(s_t - s_u)`` (divisor n - 1), in O(T + span) per board for contract
    scores (multiples of 10) and O(T log T) for any others. ``board_offsets`` may be a
    :class:`Boards` (then no other argument; rows in its stored order).

    Thesis §3.2.2: NS -100, 600, -50, 620, -100 -> table 2 gets (12+12-1+12)/4 = 8.75.
    """
    return cross_imps_scores(*_arrays(board_offsets, ns_scores, artificial))


def butler_imps(board_offsets: Any, ns_scores: Any = None, drop: str | int = "none",
                datum: str = "mean", artificial: Any = None) -> BoardScores:
    """Butler IMPs: each table gets ``IMP(s_t - datum)``; the datum is the mean of the
    board's real NS scores after dropping :func:`butler_drop_count` results from each
    end (or their median with ``datum="median"``), rounded to a multiple of 10 with
    halves away from zero. ``BoardScores.datum`` holds each board's datum.
    ``board_offsets`` may be a :class:`Boards`."""
    check_choice("butler_imps", "datum", datum, DATUMS)
    butler_drop_count(np.zeros(1, dtype=np.int64), drop)  # validate 'drop' first
    return butler_scores(*_arrays(board_offsets, ns_scores, artificial), drop=drop,
                         datum=datum)


def neuberg(score: Any, n_results: Any, n_expected: Any, style: str = "2/1/0") -> Any:
    """Neuberg's formula: a matchpoint score ``S`` earned against ``n_results`` results
    (own included) scaled to ``n_expected``: ``S' = (S + 1) N/n - 1`` in 2/1/0 units,
    ``M' = (S + 1/2) N/n - 1/2`` in 1/0.5/0 units."""
    check_choice("neuberg", "style", style, MP_STYLES)
    s = np.asarray(score, dtype=np.float64)
    n = np.asarray(n_results, dtype=np.float64)
    big_n = np.asarray(n_expected, dtype=np.float64)
    if (n < 1).any() or (big_n < 1).any():
        raise InputError("neuberg needs n_results >= 1 and n_expected >= 1; got "
                         f"n_results={n_results!r}, n_expected={n_expected!r}")
    c = 1.0 if style == "2/1/0" else 0.5
    out = (s + c) * big_n / n - c
    return float(out) if out.ndim == 0 else out




def matchpoints(board_offsets: Any, ns_scores: Any = None, style: str = "2/1/0",
                artificial: Any = None, n_expected: Any = None) -> BoardScores:
    """Matchpoints: 2 per score beaten and 1 per tie (own score excluded), top
    ``2(N - 1)``, or with ``style="1/0.5/0"`` 1 and 1/2, top ``N - 1``; East-West gets
    ``top - NS``; percentages of the top. ``board_offsets`` may be a :class:`Boards`.

    ``N`` is ``n_expected`` (a number or one per board; default: the number of results
    on the board, artificial ones included). Real results are compared among themselves
    and Neuberg-factored from their number ``n`` to ``N``; artificial results get
    60 / 50 / 40 % of the top. A board with ``N = 1`` has no top: NaN."""
    check_choice("matchpoints", "style", style, MP_STYLES)
    return matchpoint_scores(*_arrays(board_offsets, ns_scores, artificial), style=style,
                             n_expected=n_expected)


# ----------------------------------------------------------------------------------
# totals and the one-call entry point


def pair_totals(pair_ids: Any, values: Any) -> dict[str, np.ndarray]:
    """Sum per pair: ``{"pair", "total", "boards", "mean"}`` over the non-NaN values
    (``boards`` counts them); pairs sorted by id."""
    ids = as_1d(pair_ids, "pair")
    v = as_float64(values, "value", allow_nan=True)
    if v.shape[0] != ids.shape[0]:
        raise InputError(f"column 'value' must have one value per pair id ({ids.shape[0]}); "
                         f"got {v.shape[0]}")
    if ids.dtype == object:
        ids = ids.astype(str)
    pairs, inv = np.unique(ids, return_inverse=True)
    ok = ~np.isnan(v)
    total = np.bincount(inv[ok], weights=v[ok], minlength=pairs.shape[0])
    boards = np.bincount(inv[ok], minlength=pairs.shape[0]).astype(np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(boards > 0, total / np.maximum(boards, 1), np.nan)
    return {"pair": pairs, "total": total, "boards": boards, "mean": mean}


def score_results(board_ids: Any, ns_scores: Any, method: str = "cross-imps", *,
                  artificial: Any = None, drop: str | int = "none", datum: str = "mean",
                  style: str = "2/1/0") -> tuple[BoardGroups, BoardScores]:
    """Group rows by board and score them with ``method`` (``cross-imps``, ``butler``
    or ``matchpoints``); the returned per-table arrays are in input-row order (use
    ``groups.per_row`` for per-board values)."""
    check_choice("score_results", "method", method, METHODS)
    g = group_by_board(board_ids, ns_scores, artificial)  # validated here, scored as is
    r = score_boards(g.offsets, g.ns_scores, g.artificial, method, drop=drop, datum=datum,
                     style=style)
    back = g.to_input_order
    r = BoardScores(r.method, back(r.ns), back(r.ew), r.n_real, r.no_comparison,
                    None if r.ns_percent is None else back(r.ns_percent),
                    None if r.ew_percent is None else back(r.ew_percent), r.datum, r.top)
    return g, r


def results_table(boards: Boards, scores: BoardScores) -> tuple[Any, dict[str, np.ndarray] | None]:
    """The per-table results of ``boards`` scored as ``scores`` (from
    :meth:`Boards.score`), in input-row order, as a ``pyarrow.Table`` (``event`` if the
    boards have events, ``board``, the seats ``north``..``west`` and/or ``ns_pair``,
    ``ew_pair``, ``ns_score``, ``ns``, ``ew``, and ``ns_percent``/``ew_percent`` for
    matchpoints, ``datum`` for Butler; unscored tables are null), and the per-pair totals
    (:func:`pair_totals` of the percentages at matchpoints, else of the IMPs; pairs named
    by their ``ns_pair``/``ew_pair`` labels, or by their two players, "A & B" in sorted
    order, whichever seat each took), or None when the boards name no pairs or players.
    """
    import pyarrow as pa

    pos = np.argsort(boards.order, kind="stable")  # stored rows in input-row order
    board_of = boards.board_of_row()[pos]

    def nullable(x: np.ndarray) -> Any:
        return pa.array(x, mask=np.isnan(x))

    def labels(x: np.ndarray) -> Any:
        return pa.array(np.asarray(x, dtype=object).tolist())

    out: dict[str, Any] = {}
    if boards.board_event is not None:
        out["event"] = labels(boards.board_event[board_of])
    out["board"] = labels(boards.board_number[board_of])
    ns_lab = ew_lab = None
    if boards.pairs is not None:
        names = boards.pairs.names
        ns_lab = names[boards.ns_pair[pos]].astype(str)
        ew_lab = names[boards.ew_pair[pos]].astype(str)
    if boards.players is not None:
        names = boards.players.names
        seat = {s: names[getattr(boards, s)[pos]].astype(str)
                for s in ("north", "south", "east", "west")}
        for s, v in seat.items():
            out[s] = pa.array(v)
        if ns_lab is None:  # partnerships, whichever seat each partner took
            ns_lab = np.array([" & ".join(sorted(p)) for p in zip(seat["north"], seat["south"])])
            ew_lab = np.array([" & ".join(sorted(p)) for p in zip(seat["east"], seat["west"])])
    if ns_lab is not None:
        out["ns_pair"], out["ew_pair"] = pa.array(ns_lab), pa.array(ew_lab)
    out["ns_score"] = nullable(boards.ns_score[pos])
    ns, ew = scores.ns[pos] + 0.0, scores.ew[pos] + 0.0  # + 0.0: no -0 where a side scored 0
    out["ns"], out["ew"] = nullable(ns), nullable(ew)
    values = [ns, ew]
    if scores.ns_percent is not None:
        values = [scores.ns_percent[pos], scores.ew_percent[pos]]
        out["ns_percent"], out["ew_percent"] = nullable(values[0]), nullable(values[1])
    if scores.datum is not None:
        out["datum"] = nullable(scores.datum[board_of])
    totals = (None if ns_lab is None else
              pair_totals(np.concatenate([ns_lab, ew_lab]), np.concatenate(values)))
    return pa.table(out), totals
