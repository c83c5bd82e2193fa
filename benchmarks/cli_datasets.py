"""Every dataset of the data folder through the command line, and the command's start-up time.

Prints two tables, the sources of the figures in the README and in docs/guide/datasets_cli.rst:

1. start-up: wall time of ``aif360-subjective --version`` and ``--help`` in a fresh interpreter (median of
   ``--repeat`` runs) and the heavy modules each imported;
2. per dataset and ``--model``: exit status, what the model learned from, whether its predictions are all one label
   (the command's constant-classifier warning), the share of annotations predicted favourable, the audit's
   unfairness and performance (raw figures, ``--ci none``), and the wall time.

    python benchmarks/cli_datasets.py [--data DIR] [--repeat 5] [--quick | --startup-only]

``--quick`` runs the start-up table and the majority model only; ``--startup-only`` the start-up table. The last
start-up row times what every command paid up to 0.2.0, when the package's ``__init__`` imported aif360.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("aif360", "sklearn", "matplotlib", "scipy", "pandas")

PROBE = """
import json, sys, time
t = time.perf_counter()
from aif360_subjective.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps([m for m in HEAVY if m in sys.modules]), file=sys.stderr)
"""

#: (dataset, path under the data folder, options): the one-line commands of the docs.
ANNOTATIONS = [
    ("POPQUORN", "popquorn", []),
    ("HS-Brexit", "lewidi2023/HS-Brexit", []),
    ("ArMIS", "lewidi2023/ArMIS", []),
    ("MD-Agreement", "lewidi2023/MD-Agreement", []),
    ("ConvAbuse", "lewidi2023/ConvAbuse", ["--positive-labels", "-3", "-2", "-1"]),
    ("CSC", "csc", ["--positive-from", "4"]),
    ("MultiPICo", "multipico", ["--split", "test"]),
    ("Wikipedia Talk (3k sample)", "wikipedia_talk", []),
]


def startup(repeat: int) -> None:
    print(f"Start-up (fresh interpreter, median of {repeat} runs):")
    print(f"{'command':<34}{'seconds':>9}  heavy modules imported")
    for args in (["--version"], ["--help"], ["audit", "--help"], ["audit"]):
        times, loaded = [], []
        for _ in range(repeat):
            start = time.perf_counter()
            out = subprocess.run([sys.executable, "-c", PROBE.replace("HEAVY", repr(HEAVY)), *args], cwd=ROOT,
                                 capture_output=True, text=True, check=False)
            times.append(time.perf_counter() - start)
            loaded = json.loads(out.stderr.strip().splitlines()[-1])
        label = "aif360-subjective " + " ".join(args)
        print(f"{label:<34}{statistics.median(times):>9.2f}  {', '.join(loaded) or 'none'}")
    # what every command paid before 0.3.0: the package's __init__ imported aif360's metrics and algorithms
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import aif360_subjective, aif360.metrics, aif360.algorithms"],
                       cwd=ROOT, capture_output=True, check=False)
        times.append(time.perf_counter() - start)
    print(f"{'(0.2.0 start-up: + import aif360)':<34}{statistics.median(times):>9.2f}  aif360, sklearn, scipy, ...")
    print()


def run_cli(argv: list[str]) -> tuple[int, str, float]:
    from aif360_subjective.cli import main

    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse
            code = int(exc.code or 0)
    return code, out.getvalue() + err.getvalue(), time.perf_counter() - start


def audits(data: Path, models: list[str]) -> None:
    print("audit --model M --ci none (held-out 30% of the items, seed 0):")
    header = (f"{'dataset':<28}{'model':<17}{'exit':>5}  {'learns from':<30}{'constant':>9}{'unfairness':>11}"
              f"{'performance':>12}{'seconds':>9}")
    print(header)
    for name, rel, options in ANNOTATIONS:
        for model in models:
            code, text, seconds = run_cli(["audit", str(data / rel), *options, "--model", model, "--ci", "none"])
            learned = re.search(r"trained on TF-IDF of the item text \(([^)]*)\)", text)
            if code:
                source = "-"
            elif learned:
                source = f"text ({learned.group(1)})"
            else:
                source = "annotators + item features" if model == "annotator-aware" else "numeric item features"
            row = re.search(r"^Model \d \([^)]*\)\s+([\d.]+)\s+([\d.]+)\s*$", text, flags=re.M)
            unf, perf = (row.group(1), row.group(2)) if row else ("-", "-")
            constant = "yes" if "constant classifier" in text else ("-" if code else "no")
            print(f"{name:<28}{model:<17}{code:>5}  {source[:29]:<30}{constant:>9}{unf:>11}{perf:>12}"
                  f"{seconds:>9.1f}")
            if code:
                message = text.strip().splitlines()[-1].split(": error: ", 1)[-1]
                print(f"{'':<28}error: {message}")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=os.environ.get("AIF360_SUBJECTIVE_DATA", str(ROOT.parent / "shared" /
                                                                                        "data")))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--startup-only", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("MPLBACKEND", "Agg")
    startup(args.repeat)
    if args.startup_only:
        return
    audits(Path(args.data), ["majority"] if args.quick else ["majority", "annotator-aware"])


if __name__ == "__main__":
    main()
