"""The AIF360 patch series (contrib/aif360/): current with the package, and working in AIF360 alone.

* ``test_committed_series_is_current`` (fast, no network): regenerating gives the committed files.
* ``test_series_on_aif360_sdist`` (marker ``upstream``; runs when ``AIF360_UPSTREAM=1``, as ``.ci/run`` sets):
  downloads AIF360 0.6.1's source release from the package index, applies the series with ``git apply``,
  installs the patched tree into a fresh venv without this package, runs the added tests there, imports every
  added name from aif360's own modules and runs the example notebook's code.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SERIES = REPO / "contrib" / "aif360"
AIF360_VERSION = "0.6.1"


def _generator():
    spec = importlib.util.spec_from_file_location("make_aif360_patches", REPO / "contrib" / "make_aif360_patches.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_aif360_patches"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_committed_series_is_current(tmp_path):
    """Regenerating gives the committed patches, and contrib/README.md's figures (added lines, tests, plugin-only
    lines, ...), which the generator prints into it, are those of the series."""
    gen = _generator()
    readme = tmp_path / "README.md"
    shutil.copy(REPO / "contrib" / "README.md", readme)
    assert gen.main(["--out", str(tmp_path), "--readme", str(readme)]) == 0
    fresh = {p.name: p.read_text(encoding="utf-8") for p in tmp_path.glob("*.patch")}
    committed = {p.name: p.read_text(encoding="utf-8") for p in SERIES.glob("*.patch")}
    assert sorted(fresh) == sorted(committed), "run: python contrib/make_aif360_patches.py"
    stale = [name for name in fresh if fresh[name] != committed[name]]
    assert not stale, f"{stale} differ from the package: run python contrib/make_aif360_patches.py"
    assert readme.read_text(encoding="utf-8") == (REPO / "contrib" / "README.md").read_text(encoding="utf-8"), \
        "contrib/README.md's figures are stale: run python contrib/make_aif360_patches.py"


def test_patch_figures_by_hand():
    """A new module of 3 lines and a test file of 2 test functions (5 lines), plus 1 line inserted into an existing
    file: 3 files, 9 added lines, 5 of them tests, 2 test functions, one isinstance(x, A | B) and one zip(strict=)."""
    gen = _generator()
    module = ["import numpy as np", "ok = isinstance(1, int | float)", "pairs = list(zip([1], [2], strict=True))"]
    tests = ["def test_a():", "    pass", "", "def test_b():", "    pass"]

    def new(path, lines):
        return (f"diff --git a/{path} b/{path}\nnew file mode 100644\nindex 0000000..1234567\n--- /dev/null\n"
                f"+++ b/{path}\n@@ -0,0 +1,{len(lines)} @@\n" + "".join(f"+{ln}\n" for ln in lines))

    text = ("From x\nSubject: [PATCH 1/1] s\n\n---\n"
            + new("aif360/m.py", module) + new("tests/test_m.py", tests)
            + "diff --git a/aif360/__init__.py b/aif360/__init__.py\n"
            "--- a/aif360/__init__.py\n+++ b/aif360/__init__.py\n"
            "@@ -1,1 +1,2 @@\n import os\n+from aif360.m import ok\n--\n2.43.0\n")
    fig = gen.patch_figures("0001-x.patch", text)
    assert (fig.files, fig.added, fig.test_lines, fig.tests) == (3, 9, 5, 2)
    assert sorted(fig.modules) == ["aif360/m.py", "tests/test_m.py"]
    assert gen.needs_python_310({"aif360/m.py": fig.modules["aif360/m.py"]}) == (1, ["aif360/m.py"])
    blocks = gen.readme_blocks({"0001-x.patch": text})
    assert "| **series** | 3 | 9 | 5 | 2 |" in blocks["figures"]
    assert blocks["tests"] == "2 tests" and blocks["size"] == "Patch 0001 alone adds 9 lines (100% of the series)"


def test_readme_without_a_generated_block_is_refused():
    gen = _generator()
    with pytest.raises(gen.GenerationError, match=r"generated blocks \['size'\], expected \['prose', 'size'\]"):
        gen.update_readme("a <!-- generated: size -->old<!-- end size --> b", {"size": "new", "prose": "p"})
    assert gen.update_readme("a <!-- generated: size -->old<!-- end size --> b", {"size": "new"}) == \
        "a <!-- generated: size -->new<!-- end size --> b"


def test_series_names_no_plugin_module_and_only_aif360_dependencies():
    text = "".join(p.read_text(encoding="utf-8") for p in sorted(SERIES.glob("*.patch")))
    assert "aif360_subjective" not in text
    added = re.findall(r"^\+(?:from|import) (\w+)", text, flags=re.M)
    allowed = {"numpy", "scipy", "pandas", "sklearn", "matplotlib", "aif360", "pytest", "__future__"}
    assert set(added) - allowed - set(sys.stdlib_module_names) == set()


def test_generator_refuses_an_unknown_dependency(monkeypatch):
    gen = _generator()
    with pytest.raises(gen.GenerationError, match="'pyclustering'"):
        gen.check_module("aif360/x.py", "def f():\n    import pyclustering\n")
    with pytest.raises(gen.GenerationError, match="aif360_subjective"):
        gen.check_module("aif360/x.py", '"""see aif360_subjective.detectors"""\n')


@pytest.mark.slow
def test_generator_keeps_the_else_branch_of_a_dask_test():
    gen = _generator()
    src = (
        "from aif360_subjective._dask import is_dask_collection\n\n\n"
        "def f(x):\n"
        "    if is_dask_collection(x):\n"
        "        return 'dask'\n"
        "    else:\n"
        "        y = x + 1\n"
        "        return y\n"
    )
    plan = gen.make_plan()
    out = gen.transform_module("", plan, text=src, tree=ast.parse(src))
    assert "dask" not in out
    namespace: dict = {}
    exec(out, namespace)
    assert namespace["f"](1) == 2


@pytest.mark.skipif(shutil.which("ruff") is None, reason="the undefined-name check runs ruff")
@pytest.mark.slow
def test_generator_refuses_a_dropped_definition_still_called(monkeypatch):
    gen = _generator()
    monkeypatch.setattr(gen, "DROP", (*gen.DROP, "xmeans_n_clusters"))
    monkeypatch.setattr(gen, "REPLACE", {k: v for k, v in gen.REPLACE.items() if k != "xmeans_n_clusters"})
    with pytest.raises(gen.GenerationError, match="Undefined name `xmeans_n_clusters`"):
        gen.build()


# ------------------------------------------------------------------------------------------------ in AIF360 alone
def _run(cmd, cwd=None, env=None, timeout=900):
    res = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert res.returncode == 0, f"{' '.join(map(str, cmd))} failed:\n{res.stdout[-3000:]}\n{res.stderr[-3000:]}"
    return res.stdout


def _notebook_script(ipynb: Path) -> str:
    cells = json.loads(ipynb.read_text(encoding="utf-8"))["cells"]
    return "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")


@pytest.mark.upstream
@pytest.mark.slow
@pytest.mark.data
def test_series_on_aif360_sdist(tmp_path, shared_data):
    if os.environ.get("AIF360_UPSTREAM") != "1":
        pytest.skip("set AIF360_UPSTREAM=1 (as .ci/run does) to download AIF360 and test the series in it")
    # 1. AIF360's source release from the package index
    _run([sys.executable, "-m", "pip", "download", f"aif360=={AIF360_VERSION}", "--no-binary", ":all:",
          "--no-deps", "-q", "-d", str(tmp_path)])
    (sdist,) = tmp_path.glob("aif360-*.tar.gz")
    with tarfile.open(sdist) as tar:
        tar.extractall(tmp_path, filter="data")
    tree = tmp_path / f"aif360-{AIF360_VERSION}"
    # 2. the series, in name order
    patches = sorted(SERIES.glob("*.patch"))
    for patch in patches:
        _run(["git", "apply", "--check", str(patch)], cwd=tree)
        _run(["git", "apply", str(patch)], cwd=tree)
    leftovers = [str(p) for p in tree.rglob("*") if p.is_file() and p.suffix in {".py", ".ipynb", ".rst"}
                 and "aif360_subjective" in p.read_text(encoding="utf-8", errors="ignore")]
    assert leftovers == []
    # 3. a fresh venv with the patched AIF360 and pytest only
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)])
    py = venv / "bin" / "python"
    _run([str(py), "-m", "pip", "install", "-q", str(tree), "pytest"], timeout=1800)
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}}
    env["MPLBACKEND"] = "Agg"
    probe = "import importlib.util, sys; sys.exit(importlib.util.find_spec('aif360_subjective') is not None)"
    _run([str(py), "-c", probe], cwd=tmp_path, env=env)
    # 4. every added name from aif360's own modules
    _run([str(py), "-c",
          "from aif360.datasets import MultiAnnotatorDataset, LeWiDiDataset\n"
          "from aif360.metrics import OpinionExclusionMetric, SubgroupDiscoveryMetric\n"
          "from aif360.algorithms.preprocessing import CrowdTruthFilter\n"
          "from aif360.detectors import detect_subgroups, SubgroupReport, AnalysisOptions, bias_scan\n"
          "from aif360.metrics.crowdtruth import crowdtruth_scores, CrowdTruthResult\n"
          "from aif360.metrics.opinion import OpinionOptions, OpinionExclusionResult\n"
          "import aif360\n"
          "assert 'site-packages' in aif360.__file__, aif360.__file__\n"], cwd=tmp_path, env=env)
    # 5. the added tests, run from the patched tree's tests/ against the installed package
    added = sorted({m for p in patches for m in re.findall(r"^\+\+\+ b/(tests/test_\w+\.py)$",
                                                           p.read_text(encoding="utf-8"), flags=re.M)})
    work = tmp_path / "run"
    shutil.copytree(tree / "tests", work / "tests")
    out = _run([str(py), "-m", "pytest", "-q", "-p", "no:cacheprovider", *added], cwd=work, env=env)
    passed = int(re.search(r"(\d+) passed", out).group(1))
    assert passed >= 20 and " failed" not in out and " error" not in out, out[-2000:]
    # 6. the example notebook's code, with ProPublica's COMPAS file where AIF360's CompasDataset reads it
    site = Path(_run([str(py), "-c", "import aif360, os; print(os.path.dirname(aif360.__file__))"],
                     cwd=tmp_path, env=env).strip())
    (site / "data" / "raw" / "compas").mkdir(parents=True, exist_ok=True)
    shutil.copy(shared_data / "compas" / "compas-scores-two-years.csv", site / "data" / "raw" / "compas")
    for ipynb in sorted((tree / "examples").glob("demo_subjective*.ipynb")):
        script = work / f"{ipynb.stem}.py"
        script.write_text(_notebook_script(ipynb), encoding="utf-8")
        _run([str(py), str(script)], cwd=work, env=env)
