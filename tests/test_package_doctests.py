"""The interactive examples (``>>>``) in the package's docstrings run and print what they
say (as tests/test_docs.py does for the docs pages; kernels' docstrings too: doctest
unwraps a Numba dispatcher to its Python function). Examples that need files carry
``# doctest: +SKIP``."""

from __future__ import annotations

import doctest
import importlib
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "fastrate"
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


#: the modules whose source holds an example (found from the files, nothing imported)
MODULES = sorted(_module_name(p) for p in PACKAGE.rglob("*.py") if ">>>" in p.read_text())


def _doctests(name: str) -> list[doctest.DocTest]:
    with warnings.catch_warnings():  # an old path kept for a release may warn
        warnings.simplefilter("ignore", DeprecationWarning)
        module = importlib.import_module(name)
    return [t for t in doctest.DocTestFinder().find(module, name) if t.examples]


def test_modules_with_examples_are_found():
    assert len(MODULES) >= 5 and "fastrate.metrics" in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str):
    tests = _doctests(name)
    assert tests, f"{name}: its source has '>>>' but no docstring example was found"
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for test in tests:
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} example(s) in {name} failed (see above)"
