"""The report section of a discovery of excluded opinions."""

from __future__ import annotations

import numpy as np
import pandas as pd

from aif360_subjective.opinion import excluded_groups
from aif360_subjective.report import Report
from aif360_subjective.report.sections import excluded_groups_section


def _data(gap: float, seed: int = 0):
    rng = np.random.default_rng(seed)
    n = 120
    table = pd.DataFrame({"group": rng.choice(["a", "b", "c"], n)}, index=[f"p{i:03d}" for i in range(n)])
    who = np.repeat(np.arange(n), 40)
    item = np.concatenate([rng.choice(400, 40, replace=False) for _ in range(n)])
    worse = (table["group"] == "c").to_numpy()[who]
    ok = rng.random(len(who)) < 0.85 - gap * worse
    y = rng.integers(0, 2, len(who))
    return excluded_groups(y, np.where(ok, y, 1 - y), item_ids=item, annotator_ids=table.index[who],
                           annotators=table, random_state=0, n_perm=199)


def test_section_lists_findings_and_members():
    ex = _data(0.2)
    s = excluded_groups_section(ex)
    assert s.title == "Whose opinions are excluded"
    report = Report("t")
    report.extend([s])
    html = report.render()
    texts = [b.text for b in s.blocks if hasattr(b, "text") and isinstance(b.text, str)]
    assert texts[0] == ex.sentence() and texts[0].startswith("Served worse: group=c")
    members = [b for b in s.blocks if type(b).__name__ == "Details"]
    assert members and members[0].summary == f"Members of group=c ({len(ex.members(0))} annotators)"
    assert "Whose opinions are excluded" in html and "group=c" in html


def test_section_without_findings_says_so():
    ex = _data(0.0, seed=1)
    s = excluded_groups_section(ex)
    assert not any(type(b).__name__ == "Table" for b in s.blocks)
    assert s.blocks[0].text.startswith("No annotator group is served worse")
