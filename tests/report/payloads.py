"""Script-injection payloads used by the report tests, and a report that carries them everywhere."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from aif360_subjective.report import Report  # noqa: E402

PAYLOADS = [
    "<script>window.__pwned=1;document.title='PWNED'</script>",
    "<img src=x onerror=\"window.__pwned=1;document.title='PWNED'\">",
    "\"><svg onload=\"window.__pwned=1;document.title='PWNED'\">",
    "'><iframe src=javascript:window.__pwned=1>",
    "</textarea></title><script>window.__pwned=1</script>",
]

#: Markers whose presence in the HTML would mean a payload reached it unescaped.
DANGEROUS = ["<script", "<img src=x", "<svg", "<iframe", "onerror=\"", "onload=\"", "</title><script"]


def payload_frame(p: str) -> pd.DataFrame:
    """A frame with the payload in the index name, an id, a column name and a category value."""
    idx = pd.Index([p, "item-2", 3], name=f"id {p}")
    return pd.DataFrame(
        {p: [0.5, float("nan"), 2.0], "text": [f"comment {p}", "ok", None],
         "group": pd.Categorical([p, "b", p])},
        index=idx,
    )


def figure(title: str = "plot"):
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.bar(["a", "b"], [1, 2])
    ax.set_title(title)
    return fig


def payload_report() -> Report:
    """A report with every payload in every user-controlled place and two figures."""
    p_all = " ".join(PAYLOADS)
    rep = Report(f"Audit {p_all}", summary=[f"Summary {p_all}"])
    rep.fact(f"Unfairness {PAYLOADS[0]}", 0.1)
    rep.fact("Column", PAYLOADS[1])
    for i, p in enumerate(PAYLOADS):
        s = rep.section(f"Section {i} {p}")
        s.text(f"Text {p}", kind="note")
        s.table(payload_frame(p), caption=f"Table {p}")
        d = s.details(f"Subgroup {p}")
        d.text(f"inner {p}").table(payload_frame(p).T)
    rep.sections[0].figure(figure(), caption=f"Figure {PAYLOADS[2]}", alt=PAYLOADS[1])
    rep.sections[1].details("nested figure").figure(figure("second"), caption="second figure")
    return rep
