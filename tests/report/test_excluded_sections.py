"""The report section of a discovery of excluded opinions."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

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
                           annotators=table, random_state=0, n_permutations=199)


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


# hostile annotator attribute names and values: markup, quotes, a closing table tag, template braces, non-ASCII
_NAME = "<script>alert(1);window.__pwned=1</script> {{ 7*7 }} Zoë 日本"
_WORSE = "c</table><img src=x onerror=\"window.__pwned=1\">\"'"
_OTHER = "{% if 1 %}b{% endif %} ' \""


def _hostile():
    rng = np.random.default_rng(4)
    n = 90
    value = rng.choice([_WORSE, _OTHER, "b"], n)
    ids = [f"<b>p{i:03d}</b>\"'" for i in range(n)]
    table = pd.DataFrame({_NAME: value}, index=ids)
    who = np.repeat(np.arange(n), 40)
    item = np.concatenate([rng.choice(300, 40, replace=False) for _ in range(n)])
    ok = rng.random(len(who)) < 0.85 - 0.25 * (value == _WORSE)[who]
    y = rng.integers(0, 2, len(who))
    return excluded_groups(y, np.where(ok, y, 1 - y), item_ids=item, annotator_ids=np.asarray(ids, dtype=object)[who],
                           annotators=table, random_state=0, n_permutations=199)


def test_hostile_attribute_names_and_values_are_escaped():
    import html as html_lib

    ex = _hostile()
    assert ex.findings()["description"].iloc[0] == f"{_NAME}={_WORSE}"
    page = Report("hostile").extend([excluded_groups_section(ex)]).render()
    # nothing of the payloads reaches the page as markup
    for raw in ("<script>alert", "<img src=x", "<b>p0", "onerror=\""):
        assert raw not in page
    assert _NAME not in page and _WORSE not in page
    text = html_lib.unescape(page)  # shown as text: the escaped page reads back to the payloads
    assert f"{_NAME}={_WORSE}" in text
    first = str(ex.members(ex.findings().index[0])[0])
    assert first.startswith("<b>p") and first in text  # a member id, in the members list
    # </table> in a value does not close the findings table: the page's only </table> tags are its own
    assert page.count("</table>") == page.count("<table")
    # template braces are shown as text, not evaluated; non-ASCII kept
    assert "{{ 7*7 }}" in page
    assert "Zoë 日本" in page


@pytest.mark.browser
@pytest.mark.slow
def test_hostile_section_runs_no_script_in_chromium(tmp_path):
    import json
    import re
    import shutil
    import subprocess

    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        pytest.skip("headless Chromium not found")
    ex = _hostile()
    page = Report("hostile").extend([excluded_groups_section(ex)]).render()
    # no Content-Security-Policy: only the escaping stands between the payloads and the browser
    page = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page)
    probe = ("<script>window.addEventListener('load', function () { document.body.setAttribute('data-probe', "
             "JSON.stringify({pwned: window.__pwned === undefined ? null : window.__pwned, title: document.title, "
             "scripts: document.scripts.length, imgs: document.images.length, "
             "tables: document.getElementsByTagName('table').length})); });"
             "window.alert = function () { window.__pwned = 'alert'; };</script>")
    path = tmp_path / "hostile.html"
    # the probe replaces alert() before the page's own content is parsed
    path.write_text(page.replace("<head>", "<head>" + probe, 1), encoding="utf-8")
    proc = subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                           "--virtual-time-budget=5000", "--dump-dom", path.as_uri()], capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    m = re.search(r'data-probe="([^"]*)"', proc.stdout)
    assert m, proc.stdout[:500]
    import html as html_lib

    seen = json.loads(html_lib.unescape(m.group(1)))
    assert seen["pwned"] is None  # no payload ran, no alert() was called
    assert seen["scripts"] == 1 and seen["imgs"] == 0
    assert seen["tables"] == 1  # the findings table, whole


def test_p_at_the_floor_is_written_as_a_bound():
    ex = _data(0.2)
    top = ex.findings().iloc[0]
    assert top["p_adjusted"] == pytest.approx(1 / 200)  # no permutation reached it
    assert "adjusted p ≤ 0.005 (the smallest a max-T with B = 199 permutations can give)" in ex.sentence()
    assert "= 0.005" not in ex.sentence()
    s = excluded_groups_section(ex)
    table = next(b for b in s.blocks if type(b).__name__ == "Table")
    col = table.header[-1].index("p_adjusted")
    assert table.rows[0][col] == "≤ 0.005"
    assert "the smallest adjusted p a max-T with B = 199 permutations can give" in table.caption
    assert "4,800 annotations" in ex.summary()
