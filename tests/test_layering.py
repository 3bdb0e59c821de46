"""The house's layers, enforced: imports only point down (docs/architecture.md).

The test reads every module of the package with ``ast`` (function-level imports
included; imports under ``if TYPE_CHECKING:`` are for type checkers and do not count),
builds the import graph and fails on a cycle, on an upward import, on an import between
``io/`` and the algorithms, between two CLI command groups, or on a module that reaches
into another module's private names (``from fastrate.x import _helper`` or
``x._helper``); a private *module* made for sharing (``fastrate.ratings._common``) is
fine.
"""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "fastrate"

#: (rank, group, module prefixes); a module belongs to the longest matching prefix
LAYERS: list[tuple[int, str, tuple[str, ...]]] = [
    (0, "core", ("fastrate._numba", "fastrate._vecmath", "fastrate._special", "fastrate._files",
                 "fastrate._hashing", "fastrate._threads",
                 "fastrate._validate", "fastrate.errors")),
    (1, "containers", ("fastrate.data", "fastrate.metrics")),
    (2, "io", ("fastrate.io",)),
    (2, "algorithms", ("fastrate.ratings", "fastrate.bridge", "fastrate.stats")),
    # the public names of algorithm modules (one module object with their home)
    (2, "algorithms", ("fastrate.elo", "fastrate.glicko", "fastrate.glicko2", "fastrate.fibs",
                       "fastrate.backgammon", "fastrate.placement", "fastrate.information",
                       "fastrate.pairing", "fastrate.trueskill", "fastrate.weng_lin",
                       "fastrate.elom", "fastrate.pairwise_elo", "fastrate.codeforces",
                       "fastrate.bradley_terry", "fastrate.network_scores",
                       "fastrate.stephenson", "fastrate.whr")),
    (3, "registry", ("fastrate.systems", "fastrate.evaluate", "fastrate.tune",
                     "fastrate.streaming", "fastrate.pools", "fastrate.cluster")),
    (4, "top", ("fastrate._warmup", "fastrate.warmup", "fastrate.datasets",
                "fastrate.report")),
    (5, "cli", ("fastrate.cli", "fastrate.__main__")),
]
#: the package itself only holds ``__version__`` and lazy attribute lookups
#: (importlib at first use), so every layer may import it
ROOT = "fastrate"
#: modules of the CLI that every command group may import
CLI_SHARED = ("fastrate.cli._common",)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


@lru_cache(maxsize=1)
def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _layer(module: str) -> tuple[int, str]:
    best: tuple[int, tuple[int, str]] | None = None
    for rank, group, prefixes in LAYERS:
        for prefix in prefixes:
            if module == prefix or module.startswith(prefix + "."):
                if best is None or len(prefix) > best[0]:
                    best = (len(prefix), (rank, group))
    if best is None:
        raise AssertionError(f"module {module} has no layer: add it to LAYERS in "
                             "tests/test_layering.py and to docs/architecture.md")
    return best[1]


def _resolve(name: str) -> str:
    """The module a dotted import target lives in (``fastrate.data.Games`` ->
    ``fastrate.data``)."""
    mods = _modules()
    while name not in mods and "." in name:
        name = name.rsplit(".", 1)[0]
    return name


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and (
                (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING")
                or (isinstance(node.test, ast.Attribute) and node.test.attr == "TYPE_CHECKING")):
            for child in node.body:
                skip.update(id(n) for n in ast.walk(child))
    return skip


@lru_cache(maxsize=1)
def _imports() -> dict[str, list[tuple[str, int, str | None]]]:
    """module -> [(imported module, line, private name or None)]."""
    mods = _modules()
    out: dict[str, list[tuple[str, int, str | None]]] = {}
    for module, path in mods.items():
        tree = ast.parse(path.read_text(), str(path))
        skip = _type_checking_nodes(tree)
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        edges: list[tuple[str, int, str | None]] = []
        aliases: dict[str, str] = {}
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name == ROOT or a.name.startswith(ROOT + "."):
                        edges.append((_resolve(a.name), node.lineno, None))
                        if a.asname:
                            aliases[a.asname] = _resolve(a.name)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    base = base[:len(base) - (node.level - 1)]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                if not (source == ROOT or source.startswith(ROOT + ".")):
                    continue
                for a in node.names:
                    full = f"{source}.{a.name}"
                    if full in mods:  # a module
                        edges.append((full, node.lineno, None))
                        aliases[a.asname or a.name] = full
                    else:
                        private = (a.name if a.name.startswith("_")
                                   and not a.name.startswith("__") else None)
                        edges.append((_resolve(source), node.lineno, private))
        # attribute access to a private name of an imported module: ``mod._helper``
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in aliases and node.attr.startswith("_")
                    and not node.attr.startswith("__")
                    and f"{aliases[node.value.id]}.{node.attr}" not in mods):
                edges.append((aliases[node.value.id], node.lineno, node.attr))
        out[module] = [(t, line, p) for t, line, p in edges if t != module]
    return out


def test_every_module_has_a_layer():
    for module in _modules():
        if module != ROOT:
            _layer(module)


def test_imports_point_down():
    bad = []
    for module, edges in _imports().items():
        if module == ROOT:
            continue
        rank, group = _layer(module)
        for target, line, _ in edges:
            if target == ROOT:
                continue
            t_rank, t_group = _layer(target)
            where = f"{_modules()[module].relative_to(PACKAGE.parent)}:{line}"
            if t_rank > rank:
                bad.append(f"{where}: {module} (layer {rank} {group}) imports {target} "
                           f"(layer {t_rank} {t_group}): upward")
            elif t_rank == rank and t_group != group:
                bad.append(f"{where}: {module} ({group}) imports {target} ({t_group}): "
                           "io and the algorithms sit side by side and never import each other")
    assert not bad, "imports that do not point down:\n" + "\n".join(bad)


def _cli_group(module: str) -> str:
    """The command group a CLI module belongs to: ``fastrate.cli.bridge_rate`` -> bridge."""
    return module.rsplit(".", 1)[-1].split("_")[0]


def test_cli_command_groups_do_not_import_each_other():
    bad = []
    for module, edges in _imports().items():
        if not module.startswith("fastrate.cli.") or module in CLI_SHARED:
            continue
        for target, line, _ in edges:
            if (target.startswith("fastrate.cli.") and target not in CLI_SHARED
                    and _cli_group(target) != _cli_group(module)):
                bad.append(f"{module}:{line} imports {target}")
    assert not bad, ("CLI command groups import each other (shared options and output "
                     "helpers belong in fastrate.cli._common):\n" + "\n".join(bad))


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycles():
    graph = {m: {t for t, _, _ in edges if t != ROOT} for m, edges in _imports().items()
             if m != ROOT}
    cycles = _cycles(graph)
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_no_private_names_across_modules():
    bad = [f"{module} uses {target}.{name} (line {line})"
           for module, edges in _imports().items()
           for target, line, name in edges if name is not None]
    assert not bad, ("modules reach into other modules' private names (make the helper "
                     "public, or move it to a private module made for sharing):\n"
                     + "\n".join(bad))


def test_cycle_finder_finds_cycles():
    """The checker itself: a known cycle and a known clean graph."""
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


@pytest.mark.parametrize("module, layer", [
    ("fastrate._numba", (0, "core")), ("fastrate.data.games", (1, "containers")),
    ("fastrate.io.pbn", (2, "io")), ("fastrate.ratings.elo", (2, "algorithms")),
    ("fastrate.systems", (3, "registry")), ("fastrate.cli.bridge", (5, "cli")),
])
def test_layer_table(module, layer):
    assert _layer(module) == layer
