"""Slow pure-Python TrueSkill, written from Herbrich, Minka & Graepel (2007), "TrueSkill:
A Bayesian Skill Rating System" (Fig. 1 and Table 1: the factor graph and its update
equations), independent of fastrate's kernel.

The factor graph of one match, teams sorted best first::

    skill s_i       prior      N(s_i; mu_i, sigma_i^2 + tau^2)
    performance p_i likelihood N(p_i; s_i, beta^2)
    team t_k        sum        t_k = sum_i w_i p_i
    difference d_k  sum        d_k = t_k - t_{k+1}
                    truncation 1(d_k > eps_k) (win) or 1(|d_k| <= eps_k) (tie)

Messages are Gaussians in natural parameters (precision ``pi``, precision-mean
``tau``). The schedule (as the paper's Fig. 1 arrows, in the order the ``trueskill``
package runs them): priors down to the teams; then sweeps over the differences (forward
0..K-2 sending each result to the team on the right, backward K-1..1 sending to the
left; one truncation when there are two teams) until the largest change of a
difference marginal is at most ``min_delta`` (at most ``max_iter`` sweeps); then the
messages from the end differences to the end teams, and everything back up to the
skills. Weight-0 players are left out of the match.
"""

from __future__ import annotations

import math
from statistics import NormalDist

_N = NormalDist()


class G:
    """A Gaussian (or a message) in natural parameters."""

    def __init__(self, pi: float = 0.0, tau: float = 0.0):
        self.pi, self.tau = pi, tau

    @classmethod
    def of(cls, mu: float, var: float) -> G:
        return cls(1.0 / var, mu / var)

    @property
    def mu(self) -> float:
        return self.tau / self.pi if self.pi else 0.0

    @property
    def var(self) -> float:
        return 1.0 / self.pi if self.pi else math.inf

    def __mul__(self, o: G) -> G:
        return G(self.pi + o.pi, self.tau + o.tau)

    def __truediv__(self, o: G) -> G:
        return G(self.pi - o.pi, self.tau - o.tau)


def pdf(x: float) -> float:
    return math.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)


def cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def v_win(t: float, e: float) -> float:
    return pdf(t - e) / cdf(t - e)


def w_win(t: float, e: float) -> float:
    v = v_win(t, e)
    return v * (v + t - e)


def v_draw(t: float, e: float) -> float:
    a, b = e - abs(t), -e - abs(t)
    v = (pdf(b) - pdf(a)) / (cdf(a) - cdf(b))
    return v if t >= 0 else -v


def w_draw(t: float, e: float) -> float:
    a, b = e - abs(t), -e - abs(t)
    v = v_draw(abs(t), e)
    return v * v + (a * pdf(a) - b * pdf(b)) / (cdf(a) - cdf(b))


def sum_message(terms: list[tuple[float, G]]) -> G:
    """The message of a sum factor ``x = sum_j a_j y_j`` to ``x``, given each ``y_j``'s
    message into the factor."""
    mu = sum(a * g.mu for a, g in terms)
    var = sum(a * a * g.var for a, g in terms)
    return G() if math.isinf(var) else G.of(mu, var)


def rate_match(teams, ranks=None, weights=None, *, mu0=25.0, sigma0=25.0 / 3,
               beta=25.0 / 6, tau=25.0 / 300, draw_probability=0.1, min_delta=1e-4,
               max_iter=10):
    """New ``(mu, sigma)`` of every player of one match (same structure as ``teams``, a
    list of lists of ``(mu, sigma)``); ``ranks`` lower is better, equal is a tie.
    Also returns whether the schedule converged: ``(teams, converged)``."""
    n = len(teams)
    ranks = list(range(n)) if ranks is None else list(ranks)
    weights = [[1.0] * len(t) for t in teams] if weights is None else weights
    order = sorted(range(n), key=lambda k: ranks[k])
    # players of weight > 0, per sorted team: (team index, player index, mu, s^2, w)
    players = [[(k, i, m, s * s + tau * tau, w)
                for i, ((m, s), w) in enumerate(zip(teams[k], weights[k])) if w > 0]
               for k in order]
    b2 = beta * beta
    # downward: perf message N(mu, s^2 + beta^2); team prior = sum message
    team_prior = [sum_message([(w, G.of(m, s2 + b2)) for _, _, m, s2, w in ps])
                  for ps in players]
    counts = [len(ps) for ps in players]
    c = _N.inv_cdf((draw_probability + 1.0) / 2.0) * beta
    eps = [c * math.sqrt(counts[k] + counts[k + 1]) for k in range(n - 1)]
    tie = [ranks[order[k]] == ranks[order[k + 1]] for k in range(n - 1)]
    from_left = [G() for _ in range(n)]   # message to team k from difference k-1
    from_right = [G() for _ in range(n)]  # message to team k from difference k
    trunc = [G() for _ in range(n - 1)]   # truncation message to difference k

    def update_difference(k: int) -> float:
        left = team_prior[k] * from_left[k]
        right = team_prior[k + 1] * from_right[k + 1]
        down = sum_message([(1.0, left), (-1.0, right)])
        old = down * trunc[k]
        sq = math.sqrt(down.pi)
        t, e = down.tau / sq, eps[k] * sq
        v, w = (v_draw(t, e), w_draw(t, e)) if tie[k] else (v_win(t, e), w_win(t, e))
        new = G(down.pi / (1.0 - w), (down.tau + sq * v) / (1.0 - w))
        trunc[k] = new / down
        return max(abs(new.tau - old.tau), math.sqrt(abs(new.pi - old.pi)))

    def send_right(k: int) -> None:  # t_{k+1} = t_k - d_k
        from_left[k + 1] = sum_message([(1.0, team_prior[k] * from_left[k]),
                                        (-1.0, trunc[k])])

    def send_left(k: int) -> None:  # t_k = d_k + t_{k+1}
        from_right[k] = sum_message([(1.0, trunc[k]),
                                     (1.0, team_prior[k + 1] * from_right[k + 1])])

    converged = True
    if n == 2:
        update_difference(0)
    else:
        for _ in range(max_iter):
            delta = 0.0
            for k in range(n - 2):
                delta = max(delta, update_difference(k))
                send_right(k)
            for k in range(n - 2, 0, -1):
                delta = max(delta, update_difference(k))
                send_left(k)
            if delta <= min_delta:
                break
        else:
            converged = False
    send_left(0)
    send_right(n - 2)
    out = [[tuple(p) for p in t] for t in teams]
    for j, ps in enumerate(players):
        incoming = from_left[j] * from_right[j]
        for idx, (k, i, m, s2, w) in enumerate(ps):
            # sum factor up to p_i: p_i = (t - sum_{others} w_j p_j) / w_i
            terms = [(1.0 / w, incoming)] + [(-wj / w, G.of(mj, s2j + b2))
                                             for q, (_, _, mj, s2j, wj) in enumerate(ps)
                                             if q != idx]
            perf = sum_message(terms)
            # likelihood up to s_i: add beta^2 to the variance
            to_skill = G() if perf.pi == 0 else G.of(perf.mu, perf.var + b2)
            post = G.of(m, s2) * to_skill
            out[k][i] = (post.mu, math.sqrt(post.var))
    return out, converged


def expected_score(mu_a: float, var_a: float, mu_b: float, var_b: float, n: int,
                   beta: float = 25.0 / 6, draw_probability: float = 0.1) -> float:
    """``P(A wins) + P(draw)/2`` for team performance sums ``N(mu_a, var_a)`` and
    ``N(mu_b, var_b)`` (variances with the ``beta^2`` of every player), ``n`` players."""
    eps = _N.inv_cdf((draw_probability + 1.0) / 2.0) * beta * math.sqrt(n)
    c = math.sqrt(var_a + var_b)
    d = mu_a - mu_b
    return 0.5 * (1.0 + cdf((d - eps) / c) - cdf((-d - eps) / c))
