"""``fastrate warmup`` compiles what the usual pipelines call: after it, rating games,
scoring and rating an integer-id bridge table and the placement statistics add no new
Numba signature (a fresh interpreter, so earlier tests cannot have compiled them)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np, pyarrow as pa
    from numba.core.registry import CPUDispatcher
    import fastrate._warmup as warm

    def signatures():
        out = {}
        for name, module in list(sys.modules.items()):
            if name.startswith("fastrate"):
                for attr, value in vars(module).items():
                    if isinstance(value, CPUDispatcher):
                        out[name + "." + attr] = len(value.signatures)
        return out

    warm.warmup()
    before = signatures()
    import fastrate
    from fastrate.bridge import bridge_elo
    from fastrate.bridge.boards import boards_from_table
    from fastrate.stats import placement

    rng = np.random.default_rng(0)
    n = 400
    w = rng.integers(0, 50, n); b = (w + 1 + rng.integers(0, 49, n)) % 50
    games = fastrate.Games.from_arrays(w, b, rng.integers(0, 3, n) / 2.0,
                                       period=np.arange(n) // 40)
    for system in (fastrate.elo, fastrate.glicko, fastrate.glicko2):
        system.rate(games)
    seats = rng.permutation(800).reshape(4, 200)
    table = pa.table({
        "event": np.repeat(np.arange(10), 20), "board": np.tile(np.repeat(np.arange(2), 10), 10),
        "north": seats[0], "south": seats[1], "east": seats[2], "west": seats[3],
        "ns_score": rng.integers(-50, 50, 200) * 10,
        "time": pa.array((np.repeat(np.arange(10), 20) * 86400).astype("datetime64[s]")),
    })
    boards = boards_from_table(table, period="3d")
    for method in ("cross-imps", "butler", "matchpoints"):
        boards.score(method)
    bridge_elo.rate(boards, bridge_elo.BridgeEloConfig())
    placement.placement_stats(rng.integers(0, 9, (30, 7)))
    after = signatures()
    print(json.dumps({k: [before.get(k, 0), v] for k, v in after.items()
                      if v != before.get(k, 0)}))
""")


@pytest.mark.slow
def test_warmup_covers_the_usual_pipelines():
    res = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                         timeout=600)
    assert res.returncode == 0, res.stderr
    new = json.loads(res.stdout.strip().splitlines()[-1])
    assert new == {}, f"kernels compiled after warmup (warmup misses them): {new}"
