"""The data and reference folders: each has its own variable, and a skip names the one that sets it."""

from __future__ import annotations

import importlib.util
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
