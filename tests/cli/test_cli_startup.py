"""Start-up of the command line: ``--help``, ``--version`` and argument errors import none of the heavy
dependencies (aif360, scikit-learn, matplotlib), and importing the package does not either."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("aif360", "sklearn", "matplotlib", "scipy")

# Runs the command in-process, then reports which heavy modules it imported (SystemExit is expected from
# argparse's --help/--version and from usage errors).
PROBE = """
import json, sys
from aif360_subjective.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
print(json.dumps({"code": code, "loaded": [m for m in HEAVY if m in sys.modules]}))
""".replace("HEAVY", repr(HEAVY))


def _probe(*args: str) -> dict:
    out = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, cwd=ROOT,
                         timeout=60)
    return json.loads(out.stdout.strip().splitlines()[-1]), out.stderr


@pytest.mark.parametrize("args, code", [
    (["--version"], 0),
    (["--help"], 0),
    (["audit", "--help"], 0),
    (["subgroups", "--help"], 0),
    (["crowdtruth", "--help"], 0),
    (["demo", "--help"], 0),
    (["audit"], 2),                                   # missing argument
    (["subgroups", "x.csv", "--top", "zero"], 2),     # a bad option value
    (["nonsense"], 2),                                # unknown command
])
def test_help_version_and_usage_errors_import_no_heavy_dependency(args, code):
    result, stderr = _probe(*args)
    assert result["code"] == code, stderr
    assert result["loaded"] == [], f"{args} imported {result['loaded']}"


def test_importing_the_package_imports_no_heavy_dependency():
    out = subprocess.run([sys.executable, "-c", "import sys, aif360_subjective; "
                          f"print([m for m in {HEAVY!r} if m in sys.modules])"],
                         capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.stdout.strip() == "[]", out.stderr


@pytest.mark.slow
def test_aif360_optional_extras_notices_stay_quiet():
    """aif360 0.6.1 logs a root WARNING per missing optional extra (tensorflow, fairlearn, inFairness) when
    its algorithms are imported; imported through this package, it logs none, whichever module comes first."""
    code = ("import logging; logging.basicConfig(); import aif360_subjective; "
            "import aif360.algorithms.inprocessing; import aif360.metrics; print('done')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.stdout.strip() == "done"
    assert "will be unavailable" not in out.stderr
    # without the package, the same import is noisy: the test above would catch a regression
    noisy = subprocess.run([sys.executable, "-c", "import logging; logging.basicConfig(); "
                            "import aif360.algorithms.inprocessing"], capture_output=True, text=True, timeout=120)
    assert "will be unavailable" in noisy.stderr
