"""The report in a real browser (headless Chromium): figures decode, no script from data runs.

Driven through Chromium's own ``--dump-dom``/``--screenshot`` (no WebDriver dependency). A small probe
script, added by the test to a copy of the page, writes what the browser saw into the DOM.

Skips outside CI when Chromium is missing; under ``CI=true`` it fails instead.
"""

from __future__ import annotations

import base64
import hashlib
import html as html_lib
import json
import os
import re
import shutil
import subprocess

import pytest
from payloads import payload_report

from aif360_subjective.report import CONTENT_SECURITY_POLICY, Details

pytestmark = [pytest.mark.browser, pytest.mark.slow]

_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
          "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-extensions",
          "--allow-file-access-from-files"]

# Runs after load; records images, handlers, title and the pwn flag in a data attribute.
_PROBE = (
    "window.addEventListener('load', function () {"
    " var imgs = Array.prototype.map.call(document.images, function (i) {"
    "  return [i.complete, i.naturalWidth, i.naturalHeight]; });"
    " var handlers = 0; var all = document.getElementsByTagName('*');"
    " for (var k = 0; k < all.length; k++) { for (var a = 0; a < all[k].attributes.length; a++) {"
    "  if (all[k].attributes[a].name.indexOf('on') === 0) handlers++; } }"
    " document.body.setAttribute('data-probe', JSON.stringify({images: imgs, title: document.title,"
    "  pwned: window.__pwned === undefined ? null : window.__pwned, handlers: handlers,"
    "  scripts: document.scripts.length, iframes: document.getElementsByTagName('iframe').length,"
    "  svgs: document.getElementsByTagName('svg').length, details: document.getElementsByTagName('details').length}));"
    "});"
)


def _chromium() -> str:
    exe = os.environ.get("AIF360_SUBJECTIVE_CHROMIUM") or next(
        (p for p in (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")) if p), None)
    if exe is None:
        msg = "headless Chromium not found (apt-get install chromium chromium-driver)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(msg)
        pytest.skip(msg)
    return exe


def _run(exe: str, *args: str) -> str:
    proc = subprocess.run([exe, *_FLAGS, "--virtual-time-budget=5000", *args], capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def _probe(exe: str, path) -> dict:
    dom = _run(exe, "--dump-dom", path.as_uri())
    m = re.search(r'data-probe="([^"]*)"', dom)
    assert m, "the probe did not run: " + dom[:500]
    return json.loads(html_lib.unescape(m.group(1)))


def _with_probe(page: str, keep_csp: bool) -> str:
    probe_tag = f"<script>{_PROBE}</script>"
    if keep_csp:
        # Allow exactly the probe (by hash) and nothing else: the page's own policy stays in force.
        digest = base64.b64encode(hashlib.sha256(_PROBE.encode()).digest()).decode()
        policy = CONTENT_SECURITY_POLICY
        assert f'content="{policy}"' in page
        page = page.replace(policy, policy + f"; script-src 'sha256-{digest}'")
    else:
        # Without the policy, only the escaping stands between the payloads and the browser.
        page, n = re.subn(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page)
        assert n == 1
    return page.replace("</body>", probe_tag + "</body>")


def _count_details(report) -> int:
    def count(blocks):
        return sum(1 + count(b.blocks) for b in blocks if isinstance(b, Details))

    return sum(count(s.blocks) for s in report.sections)


@pytest.fixture(scope="module")
def report():
    return payload_report()


@pytest.mark.parametrize("keep_csp", [False, True], ids=["escaping-only", "with-policy"])
def test_figures_show_and_no_script_runs(tmp_path, report, keep_csp):
    exe = _chromium()
    page = tmp_path / "report.html"
    page.write_text(_with_probe(report.render(), keep_csp), encoding="utf-8")
    seen = _probe(exe, page)
    assert seen["pwned"] is None
    assert seen["title"] == report.title  # the payload is shown as text, not run
    assert seen["scripts"] == 1  # the probe only
    assert seen["handlers"] == 0 and seen["iframes"] == 0 and seen["svgs"] == 0
    assert seen["details"] == _count_details(report)
    assert len(seen["images"]) == len(report.figures()) == 2
    for complete, width, height in seen["images"]:
        assert complete and width > 0 and height > 0


def test_untouched_page_in_browser(tmp_path, report):
    exe = _chromium()
    page = tmp_path / "report.html"
    report.save(page)
    dom = _run(exe, "--dump-dom", page.as_uri())
    title = re.search(r"<title>(.*?)</title>", dom, flags=re.DOTALL).group(1)
    assert html_lib.unescape(title) == report.title
    shot = tmp_path / "shot.png"
    _run(exe, f"--screenshot={shot}", "--window-size=1200,1600", "--hide-scrollbars", page.as_uri())
    assert shot.read_bytes().startswith(b"\x89PNG")


# Records the page's width and every image's drawn width, after layout, at the window size given.
_LAYOUT_PROBE = (
    "window.addEventListener('load', function () {"
    " var imgs = Array.prototype.map.call(document.images, function (i) {"
    "  var box = i.getBoundingClientRect(); return [box.left, box.right, i.naturalWidth]; });"
    " document.body.setAttribute('data-probe', JSON.stringify({scroll: document.documentElement.scrollWidth,"
    "  client: document.documentElement.clientWidth, images: imgs}));"
    "});"
)


def test_wide_figures_fit_a_1400px_window(tmp_path):
    """60 subgroup ids (an 18-inch sizes figure): every figure is drawn inside the page at 1400 px, no sideways
    scrolling (the figures are scaled down, not cut)."""
    import numpy as np
    import pandas as pd

    from aif360_subjective.detectors import detect_subgroups
    from aif360_subjective.report import Report
    from aif360_subjective.report.sections import subgroup_sections

    exe = _chromium()
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=600), "b": rng.normal(size=600), "c": rng.choice(["x", "y"], 600)})
    rep = detect_subgroups(X, rng.integers(0, 2, 600), rng.integers(0, 2, 600), n_clusters=60, random_state=0)
    # alpha=None: the raw ranking figure is drawn too (random data has no significant subgroup)
    page = Report("wide").extend(subgroup_sections(rep, model="m", alpha=None)).render()
    path = tmp_path / "wide.html"
    path.write_text(page.replace("</body>", f"<script>{_LAYOUT_PROBE}</script></body>").replace(
        'http-equiv="Content-Security-Policy"', 'data-csp-off="1"'), encoding="utf-8")
    dom = _run(exe, "--window-size=1400,1000", "--dump-dom", path.as_uri())
    seen = json.loads(html_lib.unescape(re.search(r'data-probe="([^"]*)"', dom).group(1)))
    assert seen["scroll"] <= seen["client"] <= 1400
    assert len(seen["images"]) >= 3
    assert any(natural > right - left for left, right, natural in seen["images"])  # the wide one is scaled
    for left, right, _ in seen["images"]:
        assert left >= 0 and right <= seen["client"]


def test_opinion_report_with_intervals_fits_a_1400px_window(tmp_path):
    """The Figure-3 heatmap with intervals under every value and the group tables with interval columns: drawn
    inside the page at 1400 px, no sideways scrolling."""
    import warnings

    from aif360_subjective.datasets import make_subjective_dataset
    from aif360_subjective.metrics import OpinionExclusionMetric
    from aif360_subjective.report import Report
    from aif360_subjective.report.sections import opinion_sections

    exe = _chromium()
    ds = make_subjective_dataset(n_items=400, n_annotators=60, random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        models = {f"Model {i}": OpinionExclusionMetric(ds, ds.with_predictions(ds.majority_labels()), bins=8)
                  for i in (1, 2, 3)}
    page = Report("intervals").extend(opinion_sections(models, n_boot=200)).render()
    assert "inverts the one-way ANOVA test (noncentral F)" in page
    path = tmp_path / "opinion.html"
    path.write_text(page.replace("</body>", f"<script>{_LAYOUT_PROBE}</script></body>").replace(
        'http-equiv="Content-Security-Policy"', 'data-csp-off="1"'), encoding="utf-8")
    dom = _run(exe, "--window-size=1400,1000", "--dump-dom", path.as_uri())
    seen = json.loads(html_lib.unescape(re.search(r'data-probe="([^"]*)"', dom).group(1)))
    assert seen["scroll"] <= seen["client"] <= 1400
    assert len(seen["images"]) == 2  # heatmap and ADR histogram
    for left, right, _ in seen["images"]:
        assert left >= 0 and right <= seen["client"]


# Records, after layout, the page's width, the first section's title and for every table its box and whether a
# table wider than its box can be scrolled inside it (overflow-x auto/scroll): nothing may be cut off.
_TABLE_PROBE = (
    "window.addEventListener('load', function () {"
    " var tables = Array.prototype.map.call(document.querySelectorAll('main table'), function (t) {"
    "  var box = t.parentElement; var r = box.getBoundingClientRect();"
    "  var ov = window.getComputedStyle(box).overflowX;"
    "  return [r.left, r.right, t.scrollWidth, box.clientWidth, ov]; });"
    " var imgs = Array.prototype.map.call(document.images, function (i) {"
    "  var b = i.getBoundingClientRect(); return [b.left, b.right]; });"
    " document.body.setAttribute('data-probe', JSON.stringify({scroll: document.documentElement.scrollWidth,"
    "  client: document.documentElement.clientWidth, first: document.querySelector('main h2').textContent,"
    "  tables: tables, images: imgs}));"
    "});"
)


def _layout(exe: str, page: str, tmp_path, name: str) -> dict:
    path = tmp_path / name
    path.write_text(page.replace("</body>", f"<script>{_TABLE_PROBE}</script></body>").replace(
        'http-equiv="Content-Security-Policy"', 'data-csp-off="1"'), encoding="utf-8")
    dom = _run(exe, "--window-size=1400,1000", "--dump-dom", path.as_uri())
    return json.loads(html_lib.unescape(re.search(r'data-probe="([^"]*)"', dom).group(1)))


def _nothing_cut(seen: dict) -> None:
    assert seen["scroll"] <= seen["client"] <= 1400  # no sideways scrolling of the page
    assert seen["first"] == "Answer"  # the answer first
    assert seen["tables"]
    for left, right, width, box, overflow in seen["tables"]:
        assert left >= 0 and right <= seen["client"]
        if width > box:  # a table wider than its box scrolls inside it: its last columns stay reachable
            assert overflow in ("auto", "scroll")
    for left, right in seen["images"]:
        assert left >= 0 and right <= seen["client"]


def test_subgroup_report_tables_are_not_cut_at_1400px(tmp_path):
    """Long patterns in the findings and a wide pattern table (many attributes): every table inside its box or
    scrolling within it, at 1400 px."""
    import numpy as np
    import pandas as pd

    from aif360_subjective.detectors import detect_subgroups
    from aif360_subjective.report import Report
    from aif360_subjective.report.sections import subgroup_sections

    exe = _chromium()
    rng = np.random.default_rng(0)
    n = 1500
    # 12 attributes that mostly follow one hidden category, whose first value the model never favours
    base = rng.choice(3, n)
    X = pd.DataFrame({f"attribute_with_a_long_name_{i}": np.where(rng.random(n) < 0.9, base, rng.choice(3, n))
                      for i in range(12)}).apply(lambda c: c.map(lambda k: f"category value {k}"))
    y = rng.integers(0, 2, n)
    pred = np.where(base == 0, 0, y)
    rep = detect_subgroups(X, y, pred, pos_label=1, clustering="kmeans", n_clusters=4, random_state=0)
    assert len(rep.findings())  # the answer holds a findings table
    page = Report("wide tables").extend(subgroup_sections(rep, model="m")).render()
    seen = _layout(exe, page, tmp_path, "subgroups.html")
    _nothing_cut(seen)
    # issue 33: a table wider than its box showed its last columns cut at the right edge until scrolled; column
    # names and values without spaces now break inside, so every table, the 12-attribute pattern table too, fits
    assert not any(width > box for _, _, width, box, _ in seen["tables"])


def test_many_group_opinion_report_fits_1400px(tmp_path, named_groups_metric):
    """30 groups: a dot plot instead of a 20-px heatmap, the group table inside its box, the answer first."""


    from aif360_subjective.report import Report
    from aif360_subjective.report.sections import opinion_sections

    exe = _chromium()
    m = named_groups_metric(lambda i: f"Woman & Black or African American & group {i % 30:02d}", n_annotators=60,
                            n_items=300, random_state=1)
    page = Report("many groups").extend(opinion_sections({"Model 1": m}, n_boot=200)).render()
    assert "30 groups are too many for a readable heatmap" in page
    _nothing_cut(_layout(exe, page, tmp_path, "opinion.html"))
