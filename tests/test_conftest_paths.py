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
