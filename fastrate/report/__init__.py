"""Pictures and reports (layer 4): rating trajectories, distributions, calibration,
metrics over time, head-to-head matrices and tuning curves (:mod:`fastrate.report.plots`,
needs matplotlib), their data (:mod:`fastrate.report.history`), and one self-contained
HTML report (:mod:`fastrate.report.html`).

Nothing here is imported by ``import fastrate``; matplotlib loads only when a picture is
drawn, with its Agg (file) backend.
"""

from __future__ import annotations

__all__: list[str] = []
