"""Standard errors and likelihood of superiority of a batch Bradley-Terry fit from a
truncated Neumann series with a certified remainder (issue 12; the maths is in
docs/algorithms/bradley_terry.md, "Fast exact errors").

The players' block of the observed information is ``H = D - W`` (``D`` its diagonal,
``W >= 0`` the summed pair curvatures ``mxx`` between two players). With ``s = sqrt(D)``,
``A = D^-1/2 W D^-1/2`` and ``u = s / |s|`` (``A u = u`` when the level of the ratings is
free; ``u = 0`` with a Gaussian prior, where ``H`` is invertible), ``Ã = A - u u^T`` and
``M = D^1/2 (I - Ã) D^1/2 = H + d d^T / sum(d)`` (``d = D 1``): ``G = M^-1`` is a
generalized inverse of ``H``, so every contrast's variance ``c^T H^+ c = c^T G c``. With
``ρ`` the spectral radius of ``Ã``,

    (I - Ã)^-1 = I + Ã + Ã² + Ã³ + Ã² (I - Ã)^-1 Ã²,

and the last term's quadratic form in ``v`` lies in ``[q / (1 + ρ), q / (1 - ρ)]`` with
``q = |Ã² v|²``: its midpoint ``q / (1 - ρ²)`` is used, and its half-width ``q ρ / (1 -
ρ²)`` bounds the error. ``Ã^k = A^k - u u^T`` (k >= 1), and the diagonals of ``A²``,
``A³``, ``A⁴`` come from each player's two-hop column ``A² e_i`` (deg² work per player).
A fitted advantage / draw parameter ``θ`` enters through the Schur complement (Woodbury):
``Σ = G + X S^-1 X^T``, ``X = G H_pθ`` (conjugate gradients), ``S = H_θθ - H_pθ^T X``
(``S^-1``: the covariance of ``θ``).

``ρ``: Lanczos on ``Ã`` (random start, full reorthogonalisation, to a converged Ritz
value) plus a 10% + 0.001 margin, capped by the rigorous ``ρ <= trace(Ã⁴)^(1/4)``.
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from fastrate._numba import kernel

#: the Lanczos estimate of ρ is multiplied by this and RHO_PAD added (a margin for the
#: Ritz value's approach from inside the spectrum)
RHO_MARGIN, RHO_PAD = 1.10, 1e-3
#: above this ρ the series is not tried (its bound would not be useful)
RHO_MAX = 0.9
#: Lanczos: at most this many steps; converged when the largest |Ritz value| moved by
#: less than LANCZOS_RTOL (relative) over the last 3 steps
LANCZOS_STEPS, LANCZOS_RTOL = 80, 1e-5
#: conjugate gradients on I - Ã: relative residual
CG_RTOL, CG_MAX = 1e-13, 500
#: the float32 rounding of A's entries (2^-24, relative) with a margin for the float64
#: sums (first order: (1 + r)^k - 1 <= 1.01 k r for k <= 4)
ROUNDING = 1.01 * 2.0 ** -24
#: players per block of the two-hop pass (the blocks, not the threads, fix the order)
BLOCK = 256


@kernel
def _symmetric_csr(n, pw, pb, mxx, offsets, nbr, wt):
    """The symmetric weight graph of the pairs with ``mxx > 0`` (an entry for each
    direction; repeated neighbours are kept, their weights add up in every product):
    ``offsets`` (n + 1, zeroed), ``nbr``, ``wt``. Returns the number of entries."""
    m = pw.shape[0]
    for p in range(m):
        if mxx[p] > 0.0:
            offsets[pw[p] + 1] += 1
            offsets[pb[p] + 1] += 1
    for i in range(n):
        offsets[i + 1] += offsets[i]
    pos = offsets[:n].copy()
    for p in range(m):
        if mxx[p] > 0.0:
            i = pw[p]
            j = pb[p]
            nbr[pos[i]] = j
            wt[pos[i]] = mxx[p]
            pos[i] += 1
            nbr[pos[j]] = i
            wt[pos[j]] = mxx[p]
            pos[j] += 1
    return offsets[n]


@kernel
def _normalise(offsets, nbr, wt, s, a):
    """``a = w_ij / (s_i s_j)``: the entries of ``A``."""
    for i in range(offsets.shape[0] - 1):
        for e in range(offsets[i], offsets[i + 1]):
            a[e] = wt[e] / (s[i] * s[nbr[e]])


@kernel
def _apply(offsets, nbr, a, x, out):
    """``out = A x`` row by row."""
    for i in range(offsets.shape[0] - 1):
        t = 0.0
        for e in range(offsets[i], offsets[i + 1]):
            t += a[e] * x[nbr[e]]
        out[i] = t


@kernel
def _two_hop(offsets, nbr, a, lo, hi, y, z, seen1, list1, m2, m3, m4):
    """For players ``lo..hi-1``: ``(A²)_ii``, ``(A³)_ii``, ``(A⁴)_ii`` from ``y = A e_i``
    and ``z = A y`` (dense accumulators ``y``, ``z``, zero on entry and on exit; ``seen1``
    flags the players in ``y``, listed in ``list1``). ``z`` is dense (two hops reach most
    players), so it is cleared whole rather than tracked: no branch in the inner loop."""
    n = z.shape[0]
    for i in range(lo, hi):
        t1 = 0
        for e in range(offsets[i], offsets[i + 1]):
            j = nbr[e]
            if seen1[j] == 0:
                seen1[j] = 1
                list1[t1] = j
                t1 += 1
            y[j] += a[e]
        for k in range(t1):
            j = list1[k]
            yj = y[j]
            for e in range(offsets[j], offsets[j + 1]):
                z[nbr[e]] += a[e] * yj
        s2 = 0.0
        s3 = 0.0
        for k in range(t1):
            j = list1[k]
            s2 += y[j] * y[j]
            s3 += y[j] * z[j]
            y[j] = 0.0
            seen1[j] = 0
        s4 = 0.0
        for ll in range(n):
            s4 += z[ll] * z[ll]
            z[ll] = 0.0
        m2[i] = s2
        m3[i] = s3
        m4[i] = s4


@kernel
def _columns(offsets, nbr, a, ids, y, z):
    """Dense rows ``y[r] = A e_i``, ``z[r] = A² e_i`` for ``i = ids[r]`` (zeroed on
    entry)."""
    for r in range(ids.shape[0]):
        i = ids[r]
        for e in range(offsets[i], offsets[i + 1]):
            y[r, nbr[e]] += a[e]
        for j in range(y.shape[1]):
            yj = y[r, j]
            if yj != 0.0:
                for e in range(offsets[j], offsets[j + 1]):
                    z[r, nbr[e]] += a[e] * yj


@dataclass
class Structure:
    """The normalised graph of a fit's information: ``A`` in CSR form, ``s = sqrt(D)``,
    the deflation vector ``u`` (zeros with a Gaussian prior), ``ρ`` (with its margin) and
    the Schur complement of the fitted parameters (``x = G H_pθ``, ``s_inv = S^-1``, the
    CG residual bound ``cg_err`` on ``|I - Ã|``-scaled solutions, relative)."""

    n: int
    offsets: np.ndarray
    nbr: np.ndarray
    a: np.ndarray
    s: np.ndarray
    u: np.ndarray
    rho: float
    rho_lanczos: float
    x: np.ndarray
    s_inv: np.ndarray
    cg_err: float

    def apply(self, v: np.ndarray) -> np.ndarray:
        """``(I - Ã) v``."""
        out = np.empty_like(v)
        _apply(self.offsets, self.nbr, self.a, v, out)
        return v - out + self.u * float(self.u @ v)

    def deflated(self, v: np.ndarray) -> np.ndarray:
        """``Ã v``."""
        out = np.empty_like(v)
        _apply(self.offsets, self.nbr, self.a, v, out)
        return out - self.u * float(self.u @ v)

    def solve(self, b: np.ndarray) -> tuple[np.ndarray, float]:
        """``G b`` (``= D^-1/2 (I - Ã)^-1 D^-1/2 b``) by conjugate gradients on ``I - Ã``
        and the bound ``|y - y*| / |y|`` on the normalised solution's relative error
        (``|r| / (1 - ρ)``); NaN if CG did not reach its tolerance."""
        rhs = b / self.s
        y = np.zeros_like(rhs)
        r = rhs.copy()
        p = r.copy()
        rr = float(r @ r)
        goal = CG_RTOL * math.sqrt(rr)
        if rr == 0.0:
            return y, 0.0
        res = math.sqrt(rr)
        for _ in range(CG_MAX):
            q = self.apply(p)
            alpha = rr / float(p @ q)
            y += alpha * p
            r -= alpha * q
            rr_new = float(r @ r)
            res = math.sqrt(rr_new)
            if res <= goal:
                break
            p = r + (rr_new / rr) * p
            rr = rr_new
        # the recursive residual drifts from the true one: check it
        res = float(np.linalg.norm(rhs - self.apply(y)))
        ynorm = float(np.linalg.norm(y))
        err = res / (1.0 - self.rho) / ynorm if ynorm > 0.0 else 0.0
        return y / self.s, (err if res <= 1e3 * goal else math.nan)


def _lanczos(st: Structure, seed: int = 20261128) -> float:
    """The largest ``|eigenvalue|`` of ``Ã`` (Ritz values of a Lanczos run with full
    reorthogonalisation from a fixed random start)."""
    n = st.n
    rng = np.random.default_rng(seed)
    v = rng.standard_normal(n)
    v -= st.u * float(st.u @ v)
    v /= np.linalg.norm(v)
    basis = np.empty((LANCZOS_STEPS + 1, n))
    basis[0] = v
    alpha, beta = [], []
    history: list[float] = []
    for k in range(LANCZOS_STEPS):
        w = st.deflated(basis[k])
        alpha.append(float(w @ basis[k]))
        w -= basis[:k + 1].T @ (basis[:k + 1] @ w)  # full reorthogonalisation, twice
        w -= basis[:k + 1].T @ (basis[:k + 1] @ w)
        b = float(np.linalg.norm(w))
        t = np.diag(alpha) + np.diag(beta, 1) + np.diag(beta, -1)
        ritz = np.linalg.eigvalsh(t)
        history.append(float(max(abs(ritz[0]), abs(ritz[-1]))))
        if b <= 1e-12 * max(history[-1], 1e-300):  # an invariant subspace: exact
            break
        if len(history) >= 4 and abs(history[-1] - history[-4]) <= LANCZOS_RTOL * history[-1]:
            break
        beta.append(b)
        basis[k + 1] = w / b
    return history[-1]


def structure(n: int, pw: np.ndarray, pb: np.ndarray, mxx: np.ndarray, diag: np.ndarray,
              project: bool) -> Structure | None:
    """The normalised graph of the players' information block (``diag``: its diagonal,
    prior precision included); ``None`` where the series does not apply (a negative pair
    curvature, a player without information)."""
    if n < 3 or not np.all(mxx >= 0.0) or not np.all(diag > 0.0):
        return None
    offsets = np.zeros(n + 1, dtype=np.int64)
    cap = 2 * int(np.count_nonzero(mxx > 0.0))
    nbr = np.empty(cap, dtype=np.int64)
    wt = np.empty(cap)
    _symmetric_csr(n, pw, pb, mxx, offsets, nbr, wt)
    s = np.sqrt(diag)
    a = np.empty(cap)
    _normalise(offsets, nbr, wt, s, a)
    u = s / np.linalg.norm(s) if project else np.zeros(n)
    st = Structure(n, offsets, nbr, a, s, u, math.nan, math.nan, np.zeros((n, 0)),
                   np.zeros((0, 0)), 0.0)
    st.rho_lanczos = _lanczos(st)
    st.rho = min(1.0, RHO_MARGIN * st.rho_lanczos + RHO_PAD)
    return st


def diagonal_moments(st: Structure, workers: int | None = None
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(A²)_ii``, ``(A³)_ii``, ``(A⁴)_ii`` for every player: blocks of BLOCK players
    split over ``workers`` threads (default ``numba.get_num_threads()``; each player's sums
    in a fixed order: the same bits for any number of threads)."""
    if workers is None:
        import numba

        workers = numba.get_num_threads()
    n = st.n
    m2, m3, m4 = np.empty(n), np.empty(n), np.empty(n)
    # half the bytes of the graph (it is read deg times over): int32 and float32 entries,
    # the float32 rounding (relative 2^-24 per entry) covered by ROUNDING in the bound
    nbr32 = st.nbr.astype(np.int32)
    a32 = st.a.astype(np.float32)
    starts = list(range(0, n, BLOCK))
    workers = max(1, min(workers, len(starts)))
    chunks = [starts[k::workers] for k in range(workers)]

    def run(blocks: list[int]) -> None:
        y, z = np.zeros(n), np.zeros(n)
        seen1, list1 = np.zeros(n, dtype=np.int8), np.empty(n, dtype=np.int64)
        for lo in blocks:
            _two_hop(st.offsets, nbr32, a32, lo, min(lo + BLOCK, n), y, z, seen1, list1,
                     m2, m3, m4)

    if workers == 1:
        run(chunks[0])
    else:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            list(pool.map(run, chunks))
    return m2, m3, m4


def add_parameters(st: Structure, h_ptheta: np.ndarray, h_thetatheta: np.ndarray) -> bool:
    """The Schur complement of the fitted parameters: ``x = G H_pθ`` (``n x k``),
    ``S^-1 = (H_θθ - H_pθ^T x)^-1``. False if a solve failed."""
    k = h_ptheta.shape[1]
    x = np.empty_like(h_ptheta)
    err = 0.0
    for c in range(k):
        x[:, c], e = st.solve(h_ptheta[:, c])
        err = max(err, e)
    if not math.isfinite(err):
        return False
    schur = h_thetatheta - h_ptheta.T @ x
    schur = 0.5 * (schur + schur.T)
    try:
        st.s_inv = np.linalg.inv(schur)
    except np.linalg.LinAlgError:
        return False
    st.x = x
    st.cg_err = max(st.cg_err, err)
    return True


def variances(st: Structure, w: np.ndarray | None, workers: int | None = None
              ) -> tuple[np.ndarray, np.ndarray] | None:
    """``(Var(R_i), bound_i)`` in the gauge ``w`` (None: absolute, a Gaussian prior):
    the midpoint of the series' interval and the half-width plus the solves' error
    bound. None if a solve failed."""
    m2, m3, m4 = diagonal_moments(st, workers)
    u2 = st.u * st.u
    q = np.maximum(m4 - u2, 0.0)
    rho = st.rho
    mid = 1.0 / (1.0 - rho * rho)
    half = rho / (1.0 - rho * rho)
    d = st.s * st.s
    # (I - Ã)^-1_ii: 1 + Ã_ii + Ã²_ii + Ã³_ii + q_i / (1 - ρ²)
    g = (1.0 - u2 + (m2 - u2) + (m3 - u2) + mid * q) / d
    # the series' remainder, and the float32 entries of A in the two-hop pass: A >= 0, so
    # a relative rounding r per entry moves (A^k)_ii by at most ((1 + r)^k - 1) (A^k)_ii
    bound = (half * q + ROUNDING * (2.0 * m2 + 3.0 * m3 + 4.0 * (mid + half) * m4)) / d
    var = g.copy()
    extra = np.zeros(st.n)
    err = st.cg_err
    if w is not None:
        gw, e = st.solve(w)
        if not math.isfinite(e):
            return None
        err = max(err, e)
        wgw = float(w @ gw)
        var += -2.0 * gw + wgw
        extra += 2.0 * np.abs(gw) + abs(wgw)
    if st.x.shape[1]:
        xc = st.x - (w @ st.x if w is not None else 0.0)
        wood = np.einsum("ij,jk,ik->i", xc, st.s_inv, xc)
        var += wood
        extra += 2.0 * np.abs(wood)
    # first-order error of the solved terms (relative error err of each solution, and of
    # S^-1 through x), with a factor 4
    bound = bound + 4.0 * err * extra
    return var, bound


def difference_variances(st: Structure, ids: np.ndarray
                         ) -> tuple[np.ndarray, np.ndarray]:
    """``Var(R_i - R_j)`` for ``i, j`` in ``ids`` and its error bound: the series on
    ``z = e_i / s_i - e_j / s_j`` from the players' one- and two-hop columns (products of
    ``A e_i`` and ``A² e_i``), remainder ``ρ / (1 - ρ²) |Ã² z|²``."""
    k = ids.shape[0]
    y = np.zeros((k, st.n))
    z = np.zeros((k, st.n))
    _columns(st.offsets, st.nbr, st.a, ids.astype(np.int64), y, z)
    uu = np.outer(st.u[ids], st.u[ids])
    p1 = y[:, ids] - uu
    p2 = y @ y.T - uu
    p3 = y @ z.T
    p3 = 0.5 * (p3 + p3.T) - uu
    p4 = z @ z.T - uu
    sc = 1.0 / st.s[ids]
    rho = st.rho
    mid = 1.0 / (1.0 - rho * rho)
    half = rho / (1.0 - rho * rho)

    def form(p: np.ndarray) -> np.ndarray:
        dg = np.diag(p) * sc * sc
        return dg[:, None] + dg[None, :] - 2.0 * p * np.outer(sc, sc)

    q = np.maximum(form(p4), 0.0)
    var = form(np.eye(k)) + form(p1) + form(p2) + form(p3) + mid * q
    bound = half * q
    extra = np.zeros((k, k))
    if st.x.shape[1]:
        xd = st.x[ids][:, None, :] - st.x[ids][None, :, :]
        wood = np.einsum("ijk,kl,ijl->ij", xd, st.s_inv, xd)
        var = var + wood
        extra = 2.0 * np.abs(wood)
    bound = bound + 4.0 * st.cg_err * extra
    np.fill_diagonal(var, 0.0)
    np.fill_diagonal(bound, 0.0)
    return var, bound


def se_bound(var: np.ndarray, bound: np.ndarray) -> np.ndarray:
    """The bound on ``|sqrt(var) - sqrt(true)|`` when ``|var - true| <= bound``."""
    lo = np.sqrt(np.maximum(var - bound, 0.0))
    hi = np.sqrt(np.maximum(var, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(lo + hi > 0.0, bound / (lo + hi), np.sqrt(np.maximum(bound, 0.0)))
    return out
