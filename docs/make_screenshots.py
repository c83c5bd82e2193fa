"""The dashboard screenshots of docs/guide/dashboard.rst, taken with headless Chromium (Playwright driving the
system's Chromium; no browser download).

Usage: ``python docs/make_screenshots.py [--data DIR] [--chromium /usr/bin/chromium]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("MPLBACKEND", "Agg")
OUT = ROOT / "docs" / "guide" / "images"


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    import pandas as pd
    from playwright.sync_api import sync_playwright

    from aif360_subjective.dashboard import Dashboard
    from aif360_subjective.datasets import make_subjective_dataset

    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("AIF360_SUBJECTIVE_DATA", "../shared/data")))
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    df = pd.read_csv(args.data / "compas" / "fairvis_compas_out.csv")
    from aif360_subjective.dashboard.state import Source

    compas = Dashboard(df, label_col="class", prediction_col="out",
                       source=Source("fairvis_compas_out.csv", ("--label-col", "class", "--prediction-col", "out"),
                                     "COMPAS (FairVis file)"))
    generated = Dashboard(annotations=make_subjective_dataset(n_items=2000, random_state=0),
                          source=Source(None, (), "generated annotations (make_subjective_dataset)"))
    servers, urls = [], []
    for d in (compas, generated):
        port = _port()
        servers.append(d.serve(port=port, show=False, threaded=True))
        urls.append(f"http://127.0.0.1:{port}/")
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.set_default_timeout(120_000)
            page.goto(urls[0])
            page.wait_for_selector(".data-table .tabulator-row")
            page.locator(".data-table .tabulator-col[tabulator-field='race'] input").type("African")
            time.sleep(2)
            page.screenshot(path=OUT / "dashboard_data.png")
            page.locator(".bk-tab", has_text="Subgroups").click()
            page.locator(".sg-status", has_text="55 clusters").wait_for()
            box = page.locator(".k-input input")
            box.fill("10")
            box.press("Enter")
            page.locator(".sg-status", has_text="10 clusters").wait_for()
            tau = page.locator(".tau-input input")
            tau.fill("0.4")
            tau.press("Enter")
            page.locator(".sg-status", has_text="τ = 0.4").wait_for()
            page.locator(".ranking-table .tabulator-row").first.click()
            page.locator(".subgroup-detail .detail-table").wait_for()
            time.sleep(1)
            page.screenshot(path=OUT / "dashboard_subgroups.png", full_page=True)
            page.goto(urls[1])
            page.wait_for_selector(".data-table .tabulator-row")
            page.locator(".bk-tab", has_text="Opinion exclusion").click()
            page.locator(".op-status", has_text="Intervals computed").wait_for()
            page.locator(".mitigation select").select_option(
                label="annotator groups reweighted to weigh the same (annotator-aware model)")
            page.locator(".try-mitigation button").click()
            page.locator(".history-table .tabulator-row").first.wait_for()
            page.locator(".mitigation select").select_option(label="CrowdTruth filter on the training annotations")
            page.locator(".try-mitigation button").click()
            page.locator(".history-table .tabulator-row").nth(1).wait_for()
            time.sleep(1)
            page.screenshot(path=OUT / "dashboard_opinion.png", full_page=True)
            browser.close()
    finally:
        for s in servers:
            s.stop()
    print("\n".join(str(p) for p in sorted(OUT.glob("dashboard_*.png"))))


if __name__ == "__main__":
    main()
