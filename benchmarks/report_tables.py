"""Do the HTML report's tables fit their box? (The numbers behind the CHANGELOG's issue-33 line on tables cut at
the right edge.)

Writes the ``subgroups`` report of the FairVis COMPAS predictions (the README's command), opens it in headless
Chromium at 800, 1,024 and 1,280 px with every expandable block open, and counts the tables wider than their box
(which show their last columns only when scrolled sideways). ``--css-from REV`` renders the same report with the
style sheet of a git revision as well (e.g. the one before the fix) for the comparison.

Usage: ``python benchmarks/report_tables.py [--data DIR] [--css-from REV]`` (needs Playwright and Chromium).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("MPLBACKEND", "Agg")

WIDTHS = (800, 1024, 1280)
CSS = "aif360_subjective/report/templates/style.css.html"
_PROBE = """() => {
  document.querySelectorAll('details').forEach(d => d.open = true);
  const tables = [...document.querySelectorAll('table')];
  const wide = tables.filter(t => t.getBoundingClientRect().width > t.parentElement.getBoundingClientRect().width + 1);
  return [tables.length, wide.length];
}"""


def measure(page_path: Path, chromium: str) -> dict[int, tuple[int, int]]:
    from playwright.sync_api import sync_playwright

    out = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium)
        for width in WIDTHS:
            page = browser.new_page(viewport={"width": width, "height": 900})
            page.goto(page_path.as_uri())
            n, wide = page.evaluate(_PROBE)
            out[width] = (n, wide)
            page.close()
        browser.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=os.environ.get("AIF360_SUBJECTIVE_DATA", REPO.parent / "shared" / "data"))
    parser.add_argument("--css-from", metavar="REV", help="also measure with the style sheet of this git revision")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    data = Path(args.data) / "compas" / "fairvis_compas_out.csv"
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "subgroups.html"
        subprocess.run([sys.executable, "-m", "aif360_subjective", "subgroups", str(data), "--label-col", "class",
                        "--prediction-col", "out", "--out", str(report)], check=True, capture_output=True,
                       env={**os.environ, "PYTHONPATH": str(REPO)})
        pages = {"this checkout": report}
        if args.css_from:
            old_css = subprocess.run(["git", "-C", str(REPO), "show", f"{args.css_from}:{CSS}"], check=True,
                                     capture_output=True, text=True).stdout
            new_css = (REPO / CSS).read_text(encoding="utf-8")
            old = Path(tmp) / "subgroups_old_css.html"
            # the style sheet is inlined in the page: swap its rules for the older ones
            old.write_text(report.read_text(encoding="utf-8").replace(new_css.strip(), old_css.strip()),
                           encoding="utf-8")
            pages[f"style sheet of {args.css_from}"] = old
        print("FairVis COMPAS subgroups report: tables wider than their box, every block open")
        print(f"{'style':<32}" + "".join(f"{w:>10} px" for w in WIDTHS))
        for name, path in pages.items():
            seen = measure(path, args.chromium)
            print(f"{name:<32}" + "".join(f"{seen[w][1]:>7} of {seen[w][0]}" for w in WIDTHS))


if __name__ == "__main__":
    main()
