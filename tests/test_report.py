"""``fastrate report``: the HTML page, and the page opened in headless Chromium and
looked at as a person would (the table is there and sorts and searches, the pictures
have loaded, the console is clean, no request leaves the file). A screenshot is kept:
under pytest's temporary folder, and in $FASTRATE_ARTEFACTS when that is set.

The browser tests need Debian's ``chromium`` and ``chromium-driver`` (/usr/bin/chromium,
/usr/bin/chromedriver) and the ``selenium`` package; without them they are skipped.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from fastrate import __version__  # noqa: E402
from fastrate.datasets import load_example  # noqa: E402
from fastrate.errors import InputError  # noqa: E402
from fastrate.report.history import data_summary, rating_table, slice_data  # noqa: E402
from fastrate.report.html import CSP, build_report, write_report  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = Path(os.environ.get("FASTRATE_CHROMIUM", "/usr/bin/chromium"))
CHROMEDRIVER = Path(os.environ.get("FASTRATE_CHROMEDRIVER", "/usr/bin/chromedriver"))


@pytest.fixture(scope="module")
def small_page() -> str:
    games = slice_data(load_example("football", period="year"), 0, 4000)
    return build_report(games, ["elo", "glicko2"], source="football (first 4,000)",
                        command="fastrate report test", top=5, points=20, dpi=40)


@pytest.fixture(scope="module")
def cli_report(tmp_path_factory) -> tuple[Path, list[str]]:
    """The report made by the command, as a person makes it."""
    out = tmp_path_factory.mktemp("report") / "football report.html"
    args = ["report", "--example", "football", "--period", "year", "-s", "elo@world_football",
            "-s", "glicko2", "--top", "6", "-o", str(out)]
    proc = subprocess.run([sys.executable, "-m", "fastrate", *args], capture_output=True,
                          text=True, cwd=REPO, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "wrote the report" in proc.stderr
    return out, args


# ----------------------------------------------------------------------------------
# the page itself


def test_page_is_self_contained(small_page):
    assert small_page.startswith("<!DOCTYPE html>")
    assert f'content="{CSP}"' in small_page and "default-src 'none'" in CSP
    # nothing is fetched: no links, no external sources, no fonts, no imports
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", small_page, re.I)
    assert "<link" not in small_page and "@import" not in small_page
    assert "@font-face" not in small_page and "url(" not in small_page
    srcs = re.findall(r'<img src="([^"]{0,30})', small_page)
    assert srcs and all(s.startswith("data:image/png;base64,") for s in srcs)


def test_page_says_what_made_it(small_page):
    assert f'<code id="version">{__version__}</code>' in small_page
    assert '<pre id="command">fastrate report test</pre>' in small_page


def test_page_has_the_sections(small_page):
    for heading in ("Data", "Ratings", "Comparison of the systems", "Calibration",
                    "Trajectories and rating distributions", "Head to head"):
        assert f">{heading}" in small_page
    assert "4,000" in small_page  # the games of the summary
    data = json.loads(re.search(r'<script type="application/json" id="rating-data">(.*?)'
                                r"</script>", small_page, re.S).group(1))
    names = [c["name"] for c in data["columns"]]
    assert names == ["player", "games", "elo rating", "glicko2 rating", "glicko2 rd",
                     "glicko2 conservative (rating − 2 RD)"]
    row = data["rows"][0]
    assert row[5] == pytest.approx(row[3] - 2 * row[4], abs=0.051)


def test_report_of_team_matches():
    races = slice_data(load_example("f1_teams"), 0, 40)
    page = build_report(races, ["trueskill"], source="f1", top=4, points=5, dpi=30)
    data = json.loads(re.search(r'id="rating-data">(.*?)</script>', page, re.S).group(1))
    names = [c["name"] for c in data["columns"]]
    assert names == ["player", "games", "rating", "mu", "sigma", "conservative (mu − 2σ)"]
    assert "40" in page and "matches with a tie" in page
    assert ">Head to head" not in page  # teams: no two-player matrix
    assert "winner_log_loss" in page


def test_names_cannot_break_out_of_the_page():
    from fastrate import Games

    evil = "</script><script>alert(1)</script><!--"
    games = Games.from_arrays([evil, "b", "b"], ["b", evil, "c"], [1.0, 0.0, 0.5])
    page = build_report(games, ["elo"], source="<b>x</b>", command="x", top=3, points=2,
                        dpi=30)
    assert evil not in page and "<b>x</b>" not in page
    assert page.count("<script") == 2  # the data and the table script


def test_rating_table_and_summary():
    from fastrate.systems import SystemSpec

    games = slice_data(load_example("football", period="year"), 0, 3000)
    r = SystemSpec.parse("glicko2").rate(games)
    t = rating_table(r)
    assert list(t) == ["rank", "player", "rating", "rd", "conservative", "games"]
    np.testing.assert_allclose(t["conservative"], t["rating"] - 2 * t["rd"])
    assert (np.diff(t["rating"]) <= 0).all()
    s = data_summary(games)
    assert s["games"] == 3000 and s["draws"] == int((games.score == 0.5).sum())
    assert s["first"] == "1872-11-30" and s["refused"] == []


def test_refused_rows_are_summarised(tmp_path):
    from fastrate.io.tables import read_games

    path = tmp_path / "g.csv"
    path.write_text("white,black,score\na,b,1\nc,c,0\nb,c,0.5\n")
    games = read_games(path, drop_self_play=True)
    page = build_report(games, ["elo"], source=str(path), top=2, points=2, dpi=30)
    assert re.search(r"refused rows</th><td[^>]*>1<", page)
    assert "plays himself" in page


def test_write_report_is_atomic(tmp_path):
    target = tmp_path / "r.html"
    target.write_text("old")
    with pytest.raises(InputError, match="does not exist"):
        write_report("<html></html>", tmp_path / "missing" / "r.html")

    class Page(str):
        def encode(self, *args, **kwargs):
            raise MemoryError("boom")

    with pytest.raises(MemoryError):
        write_report(Page("x"), target)
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]
    write_report("<html>new</html>", target)
    assert target.read_text() == "<html>new</html>"


def test_report_command(cli_report):
    out, args = cli_report
    page = out.read_text()
    assert out.stat().st_size < 5_000_000
    # the exact command, quoted as a shell would need it
    assert "fastrate report --example football --period year -s elo@world_football" in page
    assert "football report.html" in page
    assert f"fastrate {__version__}" in page


def test_report_command_refuses_other_names(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "fastrate", "report", "--example",
                           "football", "-o", str(tmp_path / "r.txt")], capture_output=True,
                          text=True, cwd=REPO, timeout=120)
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1
    assert "must end in .html" in proc.stderr
    assert not list(tmp_path.iterdir())


# ----------------------------------------------------------------------------------
# in the browser


@pytest.fixture(scope="module")
def browser():
    webdriver = pytest.importorskip("selenium.webdriver")
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        pytest.skip(f"headless Chromium is not installed ({CHROMIUM} and {CHROMEDRIVER}: "
                    "apt-get install chromium chromium-driver)")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,1600", "--disable-extensions",
                "--disable-background-networking", "--no-first-run"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def _open(driver, path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get_log("browser")  # start with empty logs
    driver.get_log("performance")
    driver.get(path.resolve().as_uri())
    WebDriverWait(driver, 30).until(
        lambda d: d.execute_script("return document.readyState") == "complete"
        and d.find_elements(By.CSS_SELECTOR, "#ratings tbody tr"))


def _problems(driver, page_url: str) -> list[str]:
    """What a careful reader would object to: console errors and warnings, requests for
    anything but the page itself and its inline data: pictures, resources loaded."""
    out = [f"console: {e['level']}: {e['message']}" for e in driver.get_log("browser")
           if e["level"] in ("SEVERE", "WARNING")]
    for entry in driver.get_log("performance"):
        msg = json.loads(entry["message"])["message"]
        if msg["method"] == "Network.requestWillBeSent":
            url = msg["params"]["request"]["url"]
            if url != page_url and not url.startswith("data:"):
                out.append(f"request: {url}")
    resources = driver.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name)")
    out += [f"resource: {r}" for r in resources]
    return out


def _column(driver, j: int) -> list[str]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#ratings tbody tr'))"
        f".map(r => r.cells[{j}].textContent)")


def _fold(name: str) -> str:
    import unicodedata

    return "".join(c for c in unicodedata.normalize("NFKD", name.lower())
                   if not unicodedata.combining(c))


def _number(text: str) -> float:
    return float(text) if text else float("nan")


def _screenshot(driver, name: str, tmp_path: Path) -> Path:
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(1280, min(int(height) + 100, 16000))
    shot = tmp_path / name
    assert driver.save_screenshot(str(shot))
    driver.set_window_size(1280, 1600)
    folder = os.environ.get("FASTRATE_ARTEFACTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(folder) / name)
    return shot


def test_report_in_the_browser(browser, cli_report, tmp_path):
    from selenium.webdriver.common.by import By

    out, _ = cli_report
    _open(browser, out)
    url = out.resolve().as_uri()
    assert browser.title.startswith("fastrate report")

    # the table: there, 100 rows at first, best rating first
    heads = [th.text.strip(" ▲▼") for th in browser.find_elements(By.CSS_SELECTOR,
                                                                   "#ratings thead th")]
    assert heads[:3] == ["player", "games", "elo@world_football rating"]
    rows = browser.find_elements(By.CSS_SELECTOR, "#ratings tbody tr")
    assert len(rows) == 100
    first = [_number(x) for x in _column(browser, 2)]
    assert first == sorted(first, reverse=True)

    # sortable: click "games" (descending), again (ascending)
    games_th = browser.find_elements(By.CSS_SELECTOR, "#ratings thead th")[1]
    games_th.click()
    assert games_th.get_attribute("aria-sort") == "descending"
    games = [int(x) for x in _column(browser, 1)]
    assert games == sorted(games, reverse=True) and games[0] > games[-1]
    games_th.click()
    assert games_th.get_attribute("aria-sort") == "ascending"
    games = [int(x) for x in _column(browser, 1)]
    assert games == sorted(games)
    player_th = browser.find_elements(By.CSS_SELECTOR, "#ratings thead th")[0]
    player_th.click()
    names = _column(browser, 0)
    assert player_th.get_attribute("aria-sort") == "ascending"
    assert names == sorted(names, key=_fold)  # as a dictionary sorts: Åland after Albania

    # searchable
    box = browser.find_element(By.ID, "search")
    box.send_keys("bra")
    found = _column(browser, 0)
    assert found and all("bra" in n.lower() for n in found) and "Brazil" in found
    assert "matching" in browser.find_element(By.ID, "row-count").text
    box.clear()
    box.send_keys("zzz-nobody")
    assert _column(browser, 0) == []
    box.clear()
    box.send_keys(" ")  # clear() sends no input event: type a blank to refresh
    assert len(_column(browser, 0)) == 100

    # the pictures have loaded
    images = browser.execute_script(
        "return Array.from(document.images).map(i => [i.complete, i.naturalWidth, i.alt])")
    assert len(images) >= 7
    assert all(done and width > 0 for done, width, _ in images), images

    # the command and the version are shown
    assert browser.find_element(By.ID, "version").text == __version__
    assert "fastrate report" in browser.find_element(By.ID, "command").text

    shot = _screenshot(browser, "report.png", tmp_path)
    assert shot.read_bytes()[:4] == b"\x89PNG"

    # no console errors, no request leaves the file
    assert _problems(browser, url) == []


def test_the_browser_checks_can_fail(browser, cli_report, tmp_path):
    """A page that reaches out (an external picture and script, a broken script) is
    caught: the checks above are not blind."""
    out, _ = cli_report
    page = out.read_text()
    bad = tmp_path / "bad.html"
    bad.write_text(page.replace(
        "</body>", '<img src="https://example.invalid/x.png" alt="x">'
        '<script src="https://example.invalid/x.js"></script>'
        "<script>undefinedFunction()</script></body>"))
    _open(browser, bad)
    problems = _problems(browser, bad.resolve().as_uri())
    assert any("example.invalid" in p for p in problems), problems
    assert any(p.startswith("console: SEVERE") for p in problems), problems
