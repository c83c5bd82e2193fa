"""The dashboard in a real browser (headless Chromium driven by Playwright; Debian's Chromium, no download).

Two servers in this process (COMPAS and generated annotations), one browser; each test clicks and types as a user
does. Skips outside CI when Playwright, Panel or Chromium are missing; under ``CI=true`` it fails instead.
"""

from __future__ import annotations

import os
import re
import shutil
import socket

import pandas as pd
import pytest

pytestmark = pytest.mark.browser

TIMEOUT = 60_000  # ms; the first page build compiles the figures


def _need(what: str, ok: bool) -> None:
    if not ok:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{what} is missing under CI")
        pytest.skip(f"{what} is missing")


def _chromium() -> str:
    exe = os.environ.get("AIF360_SUBJECTIVE_CHROMIUM") or next(
        (p for p in (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")) if p), None)
    _need("headless Chromium", exe is not None)
    return exe


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _need("playwright (the [test] extra)", False)
    exe = _chromium()
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=["--no-sandbox"])
        yield b
        b.close()


def _serve(dashboard):
    port = _free_port()
    server = dashboard.serve(port=port, show=False, threaded=True)
    return server, f"http://127.0.0.1:{port}/"


@pytest.fixture(scope="module")
def compas_url(shared_data):
    pytest.importorskip("panel")
    from aif360_subjective.dashboard import Dashboard

    df = pd.read_csv(shared_data / "compas" / "fairvis_compas_out.csv")
    server, url = _serve(Dashboard(df, label_col="class", prediction_col="out"))
    yield url
    server.stop()


@pytest.fixture(scope="module")
def annotations_url():
    pytest.importorskip("panel")
    from aif360_subjective.dashboard import Dashboard
    from aif360_subjective.datasets import make_subjective_dataset

    server, url = _serve(Dashboard(annotations=make_subjective_dataset(n_items=600, random_state=0)))
    yield url
    server.stop()


def _open(browser, url):
    page = browser.new_page(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    page.set_default_timeout(TIMEOUT)
    page.goto(url)
    page.wait_for_selector(".data-table .tabulator-row")
    return page


def _set_number(page, css: str, value) -> None:
    box = page.locator(f"{css} input")
    box.fill(str(value))
    box.press("Enter")


#: The text of an element including its open shadow roots (Panel renders each widget in one).
DEEP_TEXT = """e => { const walk = n => { let t = '';
  if (n.shadowRoot) t += walk(n.shadowRoot);
  for (const c of n.childNodes) t += c.nodeType === 3 ? c.textContent : walk(c);
  return t; }; return walk(e); }"""


def _text(locator) -> str:
    return locator.first.evaluate(DEEP_TEXT)


def _until(condition, what: str, seconds: float = 30) -> None:
    """Poll a condition on the page (the server answers asynchronously)."""
    import time

    end = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


@pytest.mark.data
def test_compas_table_subgroups_and_export(browser, compas_url, tmp_path):
    page = _open(browser, compas_url)
    # sort by age: the first row then holds the smallest age of the data (18)
    page.locator(".data-table .tabulator-col[tabulator-field='age'] .tabulator-col-title").click()
    first_age = page.locator(".data-table .tabulator-row").first.locator("[tabulator-field='age']")
    first_age.filter(has_text=re.compile(r"^\s*18\s*$")).wait_for()
    # filter race (a substring match, as the header filters do): every row shown is Hispanic
    race_filter = page.locator(".data-table .tabulator-col[tabulator-field='race'] input")
    race_filter.type("Hispanic")
    race = page.locator(".data-table .tabulator-row [tabulator-field='race']")
    _until(lambda: set(t.strip() for t in race.all_inner_texts()) == {"Hispanic"}, "only Hispanic rows")
    # an empty filter result: a message, and the app answers afterwards
    race_filter.fill("")
    race_filter.type("no such race")
    page.locator(".dashboard-message", has_text="no row matches").wait_for()

    page.locator(".bk-tab", has_text="Subgroups").click()
    status = page.locator(".sg-status")
    status.filter(has_text="55 clusters").wait_for()
    ranking = page.locator(".ranking-table")
    _set_number(page, ".k-input", 10)
    status.filter(has_text="10 clusters").wait_for()
    assert "re-cut the cached clustering" in _text(status)
    at_10 = _text(ranking)
    _set_number(page, ".tau-input", 0.4)
    status.filter(has_text="τ = 0.4").wait_for()
    _until(lambda: _text(ranking) != at_10, "the ranking at τ = 0.4")  # measured: none at τ 0.65, 1 subgroup at 0.4
    at_04 = _text(ranking)
    _set_number(page, ".k-input", 20)
    status.filter(has_text="20 clusters").wait_for()
    _until(lambda: _text(ranking) != at_04, "the ranking at k = 20")  # measured: 2 subgroups
    # bad input: k larger than the rows, a message, and the app still answers
    _set_number(page, ".k-input", 100000)
    page.locator(".dashboard-message", has_text="must be between 2 and the number of rows").wait_for()
    _set_number(page, ".k-input", 8)
    status.filter(has_text="8 clusters").wait_for()
    page.locator(".dashboard-message").wait_for(state="hidden")
    # click a subgroup: its metrics with intervals
    page.locator(".ranking-table .tabulator-row").first.click()
    detail = page.locator(".subgroup-detail .detail-table")
    detail.wait_for()
    text = _text(detail)
    assert "statistical_parity" in text and "ci_low" in text
    # export: the HTML report and the command
    with page.expect_download() as dl:
        page.locator(".sg-export").locator("button, a").first.click()
    path = tmp_path / "report.html"
    dl.value.save_as(path)
    html = path.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") or "<html" in html[:200]
    assert "Subgroup fairness summary" in html
    assert "--n-clusters 8" in _text(page.locator(".sg-command"))
    page.close()


def test_annotations_grouping_mitigation_and_export(browser, annotations_url, tmp_path):
    page = _open(browser, annotations_url)
    page.locator(".bk-tab", has_text="Opinion exclusion").click()
    answer = page.locator(".op-answer")
    answer.filter(has_text="Model 1 (majority vote): ").wait_for()
    page.locator(".op-status", has_text="Intervals computed").wait_for()
    adr_answer = _text(answer)
    groups_adr = _text(page.locator(".op-summary"))
    page.locator(".grouping select").select_option("demographic")
    _until(lambda: _text(page.locator(".op-summary")) != groups_adr, "the demographic grouping's figures")
    page.locator(".op-status", has_text="Intervals computed").wait_for()
    _until(lambda: _text(answer) != adr_answer, "the demographic grouping's answer")
    # the human-in-the-loop step: the CrowdTruth filter at a chosen threshold, then a bad threshold
    page.locator(".threshold input").fill("0.5")
    page.locator(".threshold input").press("Enter")
    page.locator(".try-mitigation button").click()
    history = page.locator(".history-table .tabulator-row")
    history.first.wait_for()
    assert "CrowdTruth filter" in _text(page.locator(".history-table"))
    assert "before" in _text(page.locator(".before-after"))
    page.locator(".threshold input").fill("abc")
    page.locator(".threshold input").press("Enter")
    page.locator(".try-mitigation button").click()
    page.locator(".dashboard-message", has_text="threshold must be 'auto' or a number").wait_for()
    page.locator(".mitigation select").select_option(label="annotator groups reweighted to weigh the same "
                                                           "(annotator-aware model)")
    page.locator(".try-mitigation button").click()
    history.nth(1).wait_for()
    with page.expect_download() as dl:
        page.locator(".op-export").locator("button, a").first.click()
    path = tmp_path / "audit.html"
    dl.value.save_as(path)
    html = path.read_text(encoding="utf-8")
    assert "Opinion-exclusion unfairness" in html and "Mitigations tried" in html
    assert "--grouping demographic" in _text(page.locator(".op-command"))
    page.close()


def test_annotations_discover_excluded_groups(browser, annotations_url):
    page = _open(browser, annotations_url)
    page.locator(".bk-tab", has_text="Opinion exclusion").click()
    page.locator(".op-answer").filter(has_text="Model 1 (majority vote): ").wait_for()
    page.locator(".discover-adjust select").select_option(label="with the other annotations of their item")
    page.locator(".discover button").click()
    answer = page.locator(".discover-answer")
    answer.wait_for()
    text = _text(answer)
    assert any(f"Model 1 (majority vote): {w}" in text
               for w in ("Served worse:", "No annotator group is served worse", "Cannot"))
    assert "--discover --adjust items" in _text(page.locator(".discover-result"))
    page.close()
