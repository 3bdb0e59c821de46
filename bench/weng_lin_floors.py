"""How far below 1000x openskill's time the Weng-Lin work can go on this machine: the
1000x budget beside lower bounds that leave out almost everything.

For each workload (the first 20,000 matches of ``bench.generate_matches``' 1v1, 2v2, ffa4
and ffa8, as ``bench.bench_weng_lin`` compares them) and model, one run prints:

* **budget**: openskill's CPU time for the matches / 1000 (its ``rate()`` match by
  match, best of 2), the time fastrate has for a 1000x ratio;
* **fastrate**: ``weng_lin.rate(..., predictions=False)``, best of 50 (CPU time), and
  its ratio;
* **floors**, each a kernel that does only part of the work, on the same matches:

  - ``touch``: every seat's state read, changed and written back once, in match
    order (the least any sequential rating of these matches can do with memory);
  - ``lanes``: the same with the matches taken 16 at a time that share no player
    (each seat's player checked and marked, his state gathered into a batch, the
    batch written back): the memory work of the vectorised kernels, no arithmetic;
  - ``arithmetic``: the model's formulas alone on contiguous arrays that already hold
    every seat's (Plackett-Luce) or every compared pair's (Bradley-Terry,
    Thurstone-Mosteller) inputs, with no gathering and no dependence between matches:
    Plackett-Luce one ``exp``, one division and one square root a seat; Bradley-Terry
    a square root, two divisions and an ``exp`` a pair; Thurstone-Mosteller the
    paper's ``v`` and ``w`` as openskill evaluates them (libm ``erf`` and ``exp``,
    openskill's divisions) a pair.

A floor above the budget means no kernel on this machine reaches 1000x for that
workload without giving up the arithmetic that matches openskill's results. The
floors do not add up (the processor overlaps memory and arithmetic), so a sum above
the budget is only a strong hint.

    python -m bench.weng_lin_floors
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np

from bench.bench_weng_lin import (
    cpu_best,
    model_config,
    openskill_classes,
    openskill_rate,
    peer_subsample,
    rate_matches,
    workload,
)
from fastrate._numba import kernel
from fastrate._vecmath import exp

LANES = 16
N_MATCHES = 20_000
SHAPES = ("1v1", "2v2", "ffa4", "ffa8")
SQRT2 = math.sqrt(2.0)
SQRT_2PI = math.sqrt(2.0 * math.pi)


@kernel
def touch_seats(player, st, gp):
    """Every seat's ``mu`` and ``sigma^2`` read, scaled and written back, in order."""
    for s in range(player.shape[0]):
        p = np.uint64(player[s])
        st[p + p] = st[p + p] * 1.0000001
        st[p + p + np.uint64(1)] = st[p + p + np.uint64(1)] * 0.9999999
        gp[p] += 1


@kernel
def seats_in_lanes(mto, tpo, player, st, gp):
    """:func:`touch_seats` with up to ``LANES`` consecutive matches of no common player
    in a batch: checked and marked, gathered, scaled, written back and released."""
    n = mto.shape[0] - 1
    kmax = 2
    for m in range(n):
        kmax = max(kmax, tpo[mto[m + 1]] - tpo[mto[m]])
    wk = np.zeros(2 * kmax * LANES)
    start = np.zeros(LANES + 1, dtype=np.int64)
    busy = np.zeros(st.shape[0] // 2, dtype=np.uint8)
    one = np.uint64(1)
    m = 0
    while m < n:
        nb = 0
        w = 0
        while nb < LANES and m + nb < n:
            lo = tpo[mto[m + nb]]
            hi = tpo[mto[m + nb + 1]]
            taken = False
            for s in range(lo, hi):
                p = np.uint64(player[s])
                taken |= busy[p] != 0
                busy[p] = np.uint8(nb + 1)
                wk[w + 2 * (s - lo)] = st[p + p]
                wk[w + 2 * (s - lo) + 1] = st[p + p + one]
            if taken and nb > 0:
                for s in range(lo, hi):
                    p = np.uint64(player[s])
                    if busy[p] == nb + 1:
                        busy[p] = 0
                break
            start[nb] = lo
            w += 2 * (hi - lo)
            nb += 1
        for i in range(w):
            wk[i] *= 1.0000001
        w = 0
        for b in range(nb):
            lo = start[b]
            hi = tpo[mto[m + b + 1]]
            for s in range(lo, hi):
                p = np.uint64(player[s])
                st[p + p] = wk[w]
                st[p + p + one] = wk[w + 1]
                w += 2
                gp[p] += 1
                busy[p] = 0
        m += nb


@kernel
def plackett_luce_arithmetic(x, s, v, ic, om, de):
    """Per seat: the strength ``e = exp(x)``, ``1/S``, ``sigma^3`` and the two steps."""
    for j in range(x.shape[0]):
        e = exp(x[j])
        inv = 1.0 / s[j]
        r2 = inv * inv
        c3 = ic[j] * ic[j] * ic[j]
        om[j] = (1.0 - e * inv) * v[j] * ic[j]
        de[j] = (e * inv - e * e * r2) * math.sqrt(v[j]) * v[j] * c3


@kernel
def bradley_terry_arithmetic(vi, vq, mi, mq, beta2, om, de):
    """Per pair: ``c``, the logistic ``p_iq`` from one ``exp`` and both teams' terms."""
    for j in range(vi.shape[0]):
        ic = 1.0 / math.sqrt(vi[j] + vq[j] + 2.0 * beta2)
        z = (mq[j] - mi[j]) * ic
        e = exp(-abs(z))
        a = 1.0 / (1.0 + e)
        b = e * a
        p = a if z <= 0.0 else b
        om[j] = vi[j] * ic * (1.0 - p) - vq[j] * ic * (1.0 - p)
        de[j] = (a * b) * ic * ic * ic


@kernel
def thurstone_mosteller_arithmetic(vi, vq, mi, mq, beta2, eps, scale, om, de):
    """Per pair: ``c`` (times ``scale``: 2 for the partial model), then ``v = phi(x - t)
    / Phi(x - t)`` and ``w = v (v + x - t)`` with libm's ``erf`` and ``exp`` in
    openskill's order of operations, and both terms."""
    for j in range(vi.shape[0]):
        c = scale * math.sqrt(vi[j] + vq[j] + 2.0 * beta2)
        x = (mi[j] - mq[j]) / c
        t = eps / c
        xt = x - t
        d = 0.5 * (1.0 + math.erf(xt / SQRT2))
        v = math.exp(xt * xt / -2.0) / SQRT_2PI / d
        w = v * (v + xt)
        om[j] = vi[j] / c * v - vq[j] / c * v
        de[j] = (math.sqrt(vi[j]) / c) * (vi[j] / c) / c * w


def _pairs(m, mu, var, window):
    """Every compared pair's ``(var_i, var_q, mu_i, mu_q)`` in match order (full: every
    pair; partial: the teams within ``window`` places, as the partial models compare
    them), from the final ratings (realistic gaps)."""
    mto, tpo, player = m.match_team_offsets, m.team_player_offsets, m.player
    team_mu = np.add.reduceat(mu[player], tpo[:-1])
    team_var = np.add.reduceat(var[player], tpo[:-1])
    i_idx, q_idx = [], []
    for g in range(m.n_matches):
        t0, t1 = int(mto[g]), int(mto[g + 1])
        for i in range(t0, t1):
            for q in range(i + 1, t1 if window is None else min(t1, i + window + 1)):
                i_idx.append(i)
                q_idx.append(q)
    i_idx, q_idx = np.array(i_idx), np.array(q_idx)
    return team_var[i_idx], team_var[q_idx], team_mu[i_idx], team_mu[q_idx]


def floors(shapes=SHAPES, n=N_MATCHES):
    """Print the budget, fastrate's time and the floors, one line per workload."""
    classes = openskill_classes()
    print(f"{'workload':5s} {'model':25s} {'openskill':>10s} {'budget':>8s} {'fastrate':>9s} "
          f"{'ratio':>6s} {'touch':>6s} {'lanes':>6s} {'arith':>6s}  (us; CPU time)")
    for shape in shapes:
        m = peer_subsample(workload(shape, "large"), n)
        st = np.ones(2 * len(m.players))
        gp = np.zeros(len(m.players), dtype=np.int64)
        mto, tpo = m.match_team_offsets, m.team_player_offsets
        touch_seats(m.player, st, gp)
        seats_in_lanes(mto, tpo, m.player, st, gp)
        touch = cpu_best(partial(touch_seats, m.player, st, gp), 200)
        lanes = cpu_best(partial(seats_in_lanes, mto, tpo, m.player, st, gp), 200)
        for model, cls in classes.items():
            config = model_config(model)
            r = rate_matches(m, config, False)
            mu, var = r.state["mu"], r.state["sigma"] ** 2
            beta2 = config.beta ** 2
            if model == "plackett_luce":
                seats = m.player.shape[0]
                rng = np.random.default_rng(0)
                args = (rng.uniform(-2.0, 0.0, seats), rng.uniform(1.0, 4.0, seats),
                        var[m.player].copy(), np.full(seats, 0.05), np.empty(seats),
                        np.empty(seats))
                kern = plackett_luce_arithmetic
            else:
                vi, vq, mi, mq = _pairs(m, mu, var, config.window if model.endswith("part")
                                        else None)
                out = (np.empty(vi.shape[0]), np.empty(vi.shape[0]))
                if model.startswith("bradley"):
                    args = (vi, vq, mi, mq, beta2) + out
                    kern = bradley_terry_arithmetic
                else:
                    args = (vi, vq, mi, mq, beta2, float(config.epsilon),
                            2.0 if model.endswith("part") else 1.0) + out
                    kern = thurstone_mosteller_arithmetic
            kern(*args)
            arith = cpu_best(partial(kern, *args), 200)
            peer = cpu_best(partial(openskill_rate, m, cls), 2)
            ours = cpu_best(partial(rate_matches, m, config, False), 50)
            budget = peer / 1000
            print(f"{shape:5s} {model:25s} {m.n_matches / peer:8.0f}/s {budget * 1e6:8.0f} "
                  f"{ours * 1e6:9.0f} {peer / ours:5.0f}x {touch * 1e6:6.0f} {lanes * 1e6:6.0f} "
                  f"{arith * 1e6:6.0f}", flush=True)


if __name__ == "__main__":  # python -m bench.weng_lin_floors
    floors()
