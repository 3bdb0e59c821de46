"""The interactive examples (``>>>``) in docs/*.md run and print what the pages say, so
the documentation cannot drift from the code."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.md") if re.search(r"^>>> ", p.read_text(), re.M))


def _examples(text: str) -> str:
    """The page with its code fences blanked, so an example's expected output ends at
    the fence."""
    return "\n".join("" if line.lstrip().startswith("```") else line
                     for line in text.splitlines())


def test_pages_with_examples_are_found():
    assert {p.name for p in PAGES} >= {"elo.md", "glicko.md", "glicko2.md", "backgammon.md"}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_doc_examples(page: Path):
    parser = doctest.DocTestParser()
    test = parser.get_doctest(_examples(page.read_text()), {}, page.name, str(page), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert test.examples, f"{page.name}: no examples parsed"
    assert result.failed == 0, f"{result.failed} example(s) in {page.name} failed (see above)"
