"""The data and reference folders: each has its own variable, and a skip names the one that sets it."""

from __future__ import annotations

import importlib.util
import re
import tokenize
from pathlib import Path

import pytest

# loaded by path: ``import conftest`` may find tests/report/conftest.py first
_spec = importlib.util.spec_from_file_location("root_conftest", Path(__file__).with_name("conftest.py"))
_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_conftest)
DATA_VAR, REFERENCE_VAR, _require, _root = (_conftest.DATA_VAR, _conftest.REFERENCE_VAR, _conftest._require,
                                            _conftest._root)
shared_default = _conftest.shared_default


def test_reference_folder_has_its_own_variable(tmp_path, monkeypatch):
    monkeypatch.setenv(REFERENCE_VAR, str(tmp_path))
    monkeypatch.setenv(DATA_VAR, "/elsewhere")
    assert _root(REFERENCE_VAR, tmp_path / "default") == tmp_path
    monkeypatch.delenv(REFERENCE_VAR)
    assert _root(REFERENCE_VAR, tmp_path / "default") == tmp_path / "default"


def test_missing_reference_skip_names_its_variable(tmp_path, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"reference outputs not found at .* \(set "
                       r"AIF360_SUBJECTIVE_REFERENCE to the reference outputs folder"):
        _require(tmp_path / "missing", "reference outputs", REFERENCE_VAR, tmp_path / "missing")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="AIF360_SUBJECTIVE_REFERENCE"):
        _require(tmp_path / "missing", "reference outputs", REFERENCE_VAR, tmp_path / "missing")


def test_default_reference_folder_is_found_above_a_worktree(tmp_path):
    """Issue 33: a checkout kept in a folder of worktrees (work/wt/branch) skipped every golden test unless
    AIF360_SUBJECTIVE_REFERENCE was set; the nearest ancestor holding shared/<name> is the default."""
    (tmp_path / "shared" / "reference").mkdir(parents=True)
    (tmp_path / "shared" / "data").mkdir()
    repo = tmp_path / "wt" / "branch"
    repo.mkdir(parents=True)
    assert shared_default("reference", repo) == tmp_path / "shared" / "reference"
    assert shared_default("data", repo) == tmp_path / "shared" / "data"
    # a plain clone beside shared/ finds it one level up, and a missing folder defaults to ../shared/<name>
    (tmp_path / "wt" / "shared" / "reference").mkdir(parents=True)
    assert shared_default("reference", repo) == tmp_path / "wt" / "shared" / "reference"
    assert shared_default("nothing", repo) == tmp_path / "wt" / "shared" / "nothing"


# --------------------------------------------------------------------------------------------- the data marker
TESTS = Path(__file__).resolve().parent
#: How a test module reads the shared folders: their fixtures, their variables, the default finder.
READS_SHARED = re.compile(r"\b(shared_data|reference_dir|AIF360_SUBJECTIVE_DATA|AIF360_SUBJECTIVE_REFERENCE|"
                          r"DATA_VAR|REFERENCE_VAR|shared_default)\b")
DATA_MARK = re.compile(r"\bpytest\.mark\.data\b")


def _code(path: Path) -> str:
    """The module's text without its comments (a comment naming the data folder reads nothing)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    with path.open("rb") as f:
        for t in tokenize.tokenize(f.readline):
            if t.type == tokenize.COMMENT:  # a comment runs to its line's end
                row, col = t.start
                lines[row - 1] = lines[row - 1][:col]
    return "\n".join(lines)


def _modules_reading_shared_folders_unmarked(root: Path) -> list[str]:
    skip = {"conftest.py", Path(__file__).name}
    return [str(p.relative_to(root)) for p in sorted(root.rglob("*.py"))
            if p.name not in skip and READS_SHARED.search(_code(p)) and not DATA_MARK.search(_code(p))]


def test_modules_reading_the_shared_folders_carry_the_data_marker():
    """Issue 39: 15 modules read the shared data without the marker, so ``-m "not data"`` still needed the folder.
    A module that names a data fixture or variable marks its tests ``data`` (module-wide or per test); the conftest's
    autouse check then holds each test that uses a data fixture, directly or through another fixture, to it."""
    assert _modules_reading_shared_folders_unmarked(TESTS) == []


def test_the_marker_check_finds_an_unmarked_module(tmp_path):
    (tmp_path / "test_a.py").write_text("def test_a(shared_data):\n    pass\n")
    (tmp_path / "test_b.py").write_text("import os\nD = os.environ.get('AIF360_SUBJECTIVE_DATA')\n")
    (tmp_path / "test_c.py").write_text("import pytest\n\n\n@pytest.mark.data\ndef test_c(reference_dir):\n    pass\n")
    (tmp_path / "test_d.py").write_text("# shared_data is not read here\ndef test_d():\n    pass\n")
    assert _modules_reading_shared_folders_unmarked(tmp_path) == ["test_a.py", "test_b.py"]


def test_a_missing_marker_is_named():
    faults = _conftest.marker_faults
    assert faults(["tmp_path", "shared_data", "reference_dir"], {"parametrize"}) == [
        "uses shared_data, reference_dir without the data marker"]
    assert faults(["tmp_path", "shared_data"], {"data"}) == []
    assert faults(["tmp_path"], {"browser", "notebook"}) == ["is marked browser, notebook but not slow"]
    assert faults(["reference_dir"], {"upstream"}) == ["uses reference_dir without the data marker",
                                                       "is marked upstream but not slow"]
    assert faults(["tmp_path"], {"browser", "slow"}) == faults(["tmp_path"], set()) == []


@pytest.mark.data
def test_a_data_test_passes_the_autouse_check(shared_data):
    assert shared_data.is_dir()
