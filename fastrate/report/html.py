"""One self-contained HTML report of a rating run (layer 4; needs matplotlib).

:func:`build_report` rates the data with every system, scores them walk-forward
(:func:`fastrate.evaluate.evaluate`), and writes one HTML page with: the data summary
(games, players, time span, draws, refused rows), the rating table of every player
(sortable, searchable; the conservative rating ``rating - 2 RD`` or ``mu - 2 sigma``
where a system has an uncertainty), the comparison of the systems, their calibration,
scores over time, rating trajectories of the top players and the rating distribution,
and the command and fastrate version that made it.

The page needs nothing but itself: pictures are inline PNG (``data:`` URIs), styles and
the small table script are inline, no fonts are loaded, and a Content-Security-Policy
forbids every request (``default-src 'none'``). :func:`write_report` writes it
atomically.
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import json
import math
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from fastrate import __version__
from fastrate.data import Games, Matches
from fastrate.errors import ConfigError, InputError
from fastrate.systems import SystemSpec

__all__ = ["build_report", "write_report", "CSP"]

#: the page's Content-Security-Policy: inline styles, scripts and data: images only
CSP = ("default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
       "script-src 'unsafe-inline'; base-uri 'none'; form-action 'none'")

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",Arial,sans-serif;
margin:0 auto;max-width:1100px;padding:0 1.2em 3em;color:#1a1a1a;line-height:1.45}
h1{font-size:1.5em;margin:1em 0 .2em}h2{font-size:1.2em;margin:1.6em 0 .5em;
border-bottom:1px solid #ddd;padding-bottom:.2em}h3{font-size:1em;margin:1.2em 0 .4em}
table{border-collapse:collapse;font-size:.9em}th,td{padding:.25em .7em;text-align:right;
border-bottom:1px solid #eee;white-space:nowrap}th{background:#f5f5f5}
td.text,th.text{text-align:left}table.summary th{text-align:left}
#ratings th{cursor:pointer;user-select:none}#ratings th[aria-sort=ascending]::after{content:" \\25B2"}
#ratings th[aria-sort=descending]::after{content:" \\25BC"}
.controls{margin:.4em 0 .6em;display:flex;gap:1em;align-items:center;flex-wrap:wrap}
input[type=search]{font-size:1em;padding:.2em .4em;min-width:16em}
figure{margin:.8em 0}figure img{max-width:100%;height:auto}figcaption{font-size:.85em;color:#555}
.best{font-weight:bold}code,pre{background:#f5f5f5;padding:.1em .3em;border-radius:3px}
pre{padding:.6em;overflow-x:auto;white-space:pre-wrap}.note{color:#555;font-size:.9em}
"""

#: sorting, searching and paging of the rating table (rows built with textContent only)
_JS = r"""
(function(){
"use strict";
var data=JSON.parse(document.getElementById("rating-data").textContent);
var cols=data.columns,rows=data.rows,table=document.getElementById("ratings");
var body=table.tBodies[0],search=document.getElementById("search");
var pageSel=document.getElementById("page-size"),count=document.getElementById("row-count");
var sortCol=data.sort,sortDir=-1,view=rows.slice();
function cmp(a,b){var x=a[sortCol],y=b[sortCol];
 if(x===null&&y===null)return 0;if(x===null)return 1;if(y===null)return -1;
 if(typeof x==="string"||typeof y==="string"){x=String(x);y=String(y);
  return sortDir*x.localeCompare(y,undefined,{numeric:true});}
 return sortDir*(x-y);}
function fmt(v,c){if(v===null)return "";if(typeof v==="number"&&cols[c].digits!==null)
 return v.toFixed(cols[c].digits);return String(v);}
function render(){var q=search.value.trim().toLowerCase(),pc=data.player;
 view=q?rows.filter(function(r){return String(r[pc]).toLowerCase().indexOf(q)>=0;}):rows.slice();
 view.sort(cmp);var n=pageSel.value==="all"?view.length:Math.min(view.length,+pageSel.value);
 var frag=document.createDocumentFragment();
 for(var i=0;i<n;i++){var tr=document.createElement("tr"),r=view[i];
  for(var c=0;c<cols.length;c++){var td=document.createElement("td");
   td.textContent=fmt(r[c],c);if(cols[c].text)td.className="text";tr.appendChild(td);}
  frag.appendChild(tr);}
 body.replaceChildren(frag);
 count.textContent="showing "+n.toLocaleString("en")+" of "+view.length.toLocaleString("en")+
  " players"+(q?" matching \u201c"+search.value.trim()+"\u201d":"")+
  " ("+rows.length.toLocaleString("en")+" in all)";
 var ths=table.tHead.rows[0].cells;
 for(var j=0;j<ths.length;j++)ths[j].setAttribute("aria-sort",
  j===sortCol?(sortDir>0?"ascending":"descending"):"none");}
var ths=table.tHead.rows[0].cells;
for(var j=0;j<ths.length;j++)(function(j){ths[j].addEventListener("click",function(){
 if(sortCol===j)sortDir=-sortDir;else{sortCol=j;sortDir=cols[j].text?1:-1;}render();});})(j);
search.addEventListener("input",render);pageSel.addEventListener("change",render);render();
})();
"""


def _esc(x: Any) -> str:
    return html.escape(str(x), quote=True)


def _num(x: Any, digits: int = 4) -> str:
    if x is None:
        return ""
    if isinstance(x, (int, np.integer)):
        return f"{int(x):,}"
    f = float(x)
    return "" if math.isnan(f) else f"{f:.{digits}f}"


def _img(png: bytes, alt: str, caption: str) -> str:
    data = base64.b64encode(png).decode("ascii")
    return (f'<figure><img src="data:image/png;base64,{data}" alt="{_esc(alt)}">'
            f"<figcaption>{_esc(caption)}</figcaption></figure>")


def _json_column(a: np.ndarray) -> list[Any]:
    """A column as JSON values: floats rounded to 2 decimals (None where not finite),
    integers as they are, anything else as text."""
    if a.dtype.kind == "f":
        values = np.round(a, 2).tolist()
        bad = ~np.isfinite(a)
        if bad.any():
            for i in np.flatnonzero(bad).tolist():
                values[i] = None
        return values
    if a.dtype.kind in "iub":
        return a.astype(np.int64).tolist()
    return [str(x) for x in a.tolist()]


def _rating_columns(labels: Sequence[str], runs: dict[str, Any]
                    ) -> tuple[list[dict[str, Any]], list[np.ndarray], int]:
    """The combined rating table: player, games, then per system its rating (and mu,
    uncertainty, conservative rating); sorted at first by the first system's
    conservative rating (or rating)."""
    from fastrate.report.history import UNCERTAINTY_COLUMNS, center_and_uncertainty

    first = runs[labels[0]]
    players = first.players.names
    cols: list[dict[str, Any]] = [{"name": "player", "text": True, "digits": None}]
    arrays: list[np.ndarray] = [players]
    cols.append({"name": "games", "text": False, "digits": None})
    arrays.append(first.games_played)
    sort = None
    many = len(labels) > 1
    for label in labels:
        r = runs[label]
        if len(r.players) != len(players) or (r.players is not first.players and not
                                              np.array_equal(r.players.names, players)):
            raise InputError("the systems' player lists differ; rate the same data")
        center, unc = center_and_uncertainty(r)
        pre = f"{label} " if many else ""
        cols.append({"name": pre + "rating", "text": False, "digits": 1})
        arrays.append(r.rating)
        if "mu" in r.state:
            cols.append({"name": pre + "mu", "text": False, "digits": 1})
            arrays.append(center)
        if unc is not None:
            uname = next(k for k in UNCERTAINTY_COLUMNS if k in r.state)
            cols.append({"name": pre + uname, "text": False, "digits": 1})
            arrays.append(unc)
            cols.append({"name": pre + ("conservative (mu − 2σ)" if uname == "sigma"
                                        else "conservative (rating − 2 RD)"),
                         "text": False, "digits": 1})
            arrays.append(center - 2.0 * unc)
        if sort is None:
            sort = len(cols) - 1
    return cols, arrays, int(sort or 2)


def _rating_section(labels: Sequence[str], runs: dict[str, Any]) -> str:
    cols, arrays, sort = _rating_columns(labels, runs)
    rows = [list(r) for r in zip(*(_json_column(a) for a in arrays))]
    payload = json.dumps({"columns": cols, "rows": rows, "sort": sort, "player": 0},
                         ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    # no "<" in the script element: a name cannot end it or open a comment in it
    payload = payload.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    head = "".join(f'<th scope="col" class="{"text" if c["text"] else "num"}">'
                   f'{_esc(c["name"])}</th>' for c in cols)
    return (
        '<h2 id="ratings-h">Ratings</h2>'
        '<p class="note">Click a column to sort it (again to reverse); type in the box to '
        "find players. The conservative rating is the rating less two standard deviations "
        "of its uncertainty: a player with few games does not lead on it.</p>"
        '<div class="controls"><label>Find player <input type="search" id="search" '
        'placeholder="name" aria-controls="ratings"></label>'
        '<label>Rows <select id="page-size"><option>50</option><option selected>100'
        "</option><option>1000</option><option value=\"all\">all</option></select></label>"
        '<span id="row-count" aria-live="polite"></span></div>'
        f'<table id="ratings"><thead><tr>{head}</tr></thead><tbody></tbody></table>'
        "<noscript><p>The rating table is drawn by the page's small inline script: allow "
        "JavaScript for this file, or write the ratings with fastrate rate -o.</p></noscript>"
        f'<script type="application/json" id="rating-data">{payload}</script>')


def _summary_section(summary: dict[str, Any], source: str, specs: Sequence[SystemSpec]
                     ) -> str:
    rows = []
    unit = "matches" if "matches" in summary else "games"
    rows.append((unit, f"{summary[unit]:,}"))
    if "teams" in summary:
        rows.append(("teams", f"{summary['teams']:,}"))
    rows.append(("players", f"{summary['players']:,}"))
    if "first" in summary:
        rows.append(("time span", f"{summary['first']} to {summary['last']}"))
    if "periods" in summary:
        rows.append(("rating periods", f"{summary['periods']:,}"))
    total = summary[unit]
    share = summary["draws"] / total if total else 0.0
    rows.append(("draws" if unit == "games" else "matches with a tie",
                 f"{summary['draws']:,} ({share:.1%})"))
    refused = summary["refused"]
    n_ref = sum(c for _, c, _ in refused)
    rows.append(("refused rows", f"{n_ref:,}" if n_ref else "none"))
    rows.append(("systems", ", ".join(s.label for s in specs)))
    body = "".join(f'<tr><th scope="row">{_esc(k)}</th><td class="text">{_esc(v)}</td></tr>'
                   for k, v in rows)
    extra = ""
    if refused:
        items = "".join(f"<li>{c:,} row{'s' if c != 1 else ''} where {_esc(reason)} (first at "
                        f"{_esc(first)})</li>" for reason, c, first in refused)
        extra = f"<ul class=\"note\">{items}</ul>"
    return (f'<h2>Data</h2><p>{_esc(source)}</p><table class="summary">{body}</table>'
            f"{extra}")


def _comparison_section(ev: Any) -> str:
    heads = ["system", "n", *ev.metrics]
    best = {}
    for m in ev.metrics:
        try:
            best[m] = ev.best(m)
        except ValueError:
            best[m] = None
    out = ["<h2>Comparison of the systems</h2>",
           f"<p class=\"note\">{_esc(str(ev).splitlines()[0])}. Every {ev.unit[:-1]} is "
           "predicted from the ratings before it (walk-forward); the best value of each "
           "column is in bold.</p><table id=\"comparison\"><thead><tr>"]
    out.append("".join(f'<th class="{"text" if h == "system" else "num"}">{_esc(h)}</th>'
                       for h in heads))
    out.append("</tr></thead><tbody>")
    for r in ev.rows:
        cells = [f'<td class="text">{_esc(r["system"])}</td>', f"<td>{_num(r['n'])}</td>"]
        for m in ev.metrics:
            cls = ' class="best"' if best[m] == r["system"] and len(ev.rows) > 1 else ""
            cells.append(f"<td{cls}>{_num(r[m])}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def build_report(data: Games | Matches, systems: Sequence[Any] | str, *, source: str = "",
                 command: str = "", burn_in: int = 0, top: int = 10, points: int = 100,
                 dpi: int = 80, timings: dict[str, float] | None = None) -> str:
    """The report of rating ``data`` with ``systems`` (spec strings or configs), as one
    HTML string. ``source`` names the data, ``command`` the command line that made it;
    ``burn_in`` periods are left out of the scores; ``top`` players get trajectories
    and the head-to-head matrix; ``points`` bounds the points of a trajectory;
    ``timings`` (a dict) receives the seconds of each stage."""
    from fastrate.evaluate import evaluate
    from fastrate.report import plots
    from fastrate.report.history import data_summary, rating_history

    clock = time.perf_counter()
    stage: dict[str, float] = {} if timings is None else timings

    def lap(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        stage[name] = stage.get(name, 0.0) + now - clock
        clock = now

    if isinstance(systems, (str, SystemSpec)):
        systems = [systems]
    specs = [SystemSpec.of(s) for s in systems]
    if not specs:
        raise ConfigError("a report needs at least one system, e.g. ['elo']")
    ev = evaluate(data, specs, burn_in=burn_in)
    labels = ev.labels
    runs = ev.ratings
    lap("evaluate")
    figures: list[str] = []
    calib = plots.calibration(ev, data=data)
    figures.append(_img(plots.figure_bytes(calib, "png", dpi), "calibration curves",
                        "Calibration (reliability diagram) of every system, "
                        + ("from both players' side of every game" if ev.unit == "games"
                           else "every team's win probability")
                        + "; below: the count of every bin."))
    over = plots.metrics_over_time(data, runs)
    figures.append(_img(plots.figure_bytes(over, "png", dpi), "scores over time",
                        "Rolling log loss and Brier score: lower is better."))
    lap("plots")
    per_system: list[str] = []
    for spec, label in zip(specs, labels):
        r = runs[label]
        parts = [f"<h3>{_esc(label)}</h3>"]
        hist = None
        if not spec.system.batch:
            hist = rating_history(data, spec, points=points)
        lap("history")
        if hist is not None and len(hist):
            fig = plots.trajectories(hist, top=top, ratings=r, system=spec.name)
            parts.append(_img(plots.figure_bytes(fig, "png", dpi), f"trajectories ({label})",
                              f"Ratings of the top {top} players over time ({label})."))
        else:
            parts.append('<p class="note">A batch fit has no trajectory.</p>')
        fig = plots.distribution(r, hist, system=spec.name)
        parts.append(_img(plots.figure_bytes(fig, "png", dpi), f"distribution ({label})",
                          "The distribution of the final ratings, and of the active "
                          f"players' ratings over time ({label})."))
        per_system.append("".join(parts))
        lap("plots")
    h2h = ""
    first = runs[labels[0]]
    two_player = isinstance(data, Games) or data.is_two_player()
    if two_player and first.predictions is not None:
        fig = plots.head_to_head(data, first, top=top)
        h2h = ("<h2>Head to head</h2>" + _img(
            plots.figure_bytes(fig, "png", dpi), "head to head matrix",
            f"The top {top} players of {labels[0]} against each other: observed mean score, "
            "the predicted mean in brackets and the number of games; colour: observed "
            "minus predicted."))
        lap("plots")
    summary = data_summary(data)
    made = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    title = f"fastrate report: {source}" if source else "fastrate report"
    page = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f'<meta name="generator" content="fastrate {_esc(__version__)}">',
        f"<title>{_esc(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{_esc(title)}</h1>",
        f'<p class="note">Made by fastrate {_esc(__version__)} on {made}.</p>',
        _summary_section(summary, source, specs),
        _rating_section(labels, runs),
        _comparison_section(ev),
        "<h2>Calibration and scores over time</h2>", *figures,
        "<h2>Trajectories and rating distributions</h2>", *per_system,
        h2h,
        "<h2>How this report was made</h2>",
        f"<p>fastrate version <code id=\"version\">{_esc(__version__)}</code>; command:</p>"
        f"<pre id=\"command\">{_esc(command or '(from the Python API)')}</pre>",
        f"<script>{_JS}</script></body></html>",
    ]
    lap("html")
    return "\n".join(page)


def write_report(page: str, path: str | os.PathLike) -> Path:
    """Write the report ``page`` to ``path`` atomically (complete, or not at all)."""
    from fastrate._files import atomic_file

    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise InputError(f"cannot write {path}: folder {folder} does not exist")
    with atomic_file(target) as fh:
        fh.write(page.encode("utf-8"))
    return target
