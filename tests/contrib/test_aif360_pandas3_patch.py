"""contrib/aif360-standard-dataset-pandas3.patch: applied to the installed aif360 0.6.1 source (in a temporary
copy), StandardDataset accepts pandas-3 string columns and gives the arrays the unpatched class gives on
object columns."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

REPO = Path(__file__).resolve().parents[2]
PATCH = REPO / "contrib" / "aif360-standard-dataset-pandas3.patch"
# the data folder as the shared_data fixture finds it: the variable, else shared/data in the nearest folder above
# the checkout that has one (a worktree in a folder of worktrees included)
_SHARED = next((p / "shared" / "data" for p in REPO.parents if (p / "shared" / "data").is_dir()),
               REPO.parent / "shared" / "data")
COMPAS = Path(__import__("os").environ.get("AIF360_SUBJECTIVE_DATA") or _SHARED) / "compas"


def apply_unified_diff(source: str, diff: str) -> str:
    """Apply a one-file unified diff whose context must match exactly (no fuzz)."""
    lines = source.splitlines(keepends=True)
    out, pos = [], 0
    hunks = re.split(r"^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@.*\n", diff.split("\n+++ ", 1)[1], flags=re.M)[1:]
    for start, body in zip(hunks[::2], hunks[1::2], strict=True):
        old, new = [], []
        for raw in body.splitlines(keepends=True):
            tag, text = raw[:1], raw[1:]
            if tag in (" ", "-"):
                old.append(text)
            if tag in (" ", "+"):
                new.append(text)
        at = int(start) - 1
        assert lines[at:at + len(old)] == old, f"hunk at line {start} does not match the installed file"
        out += lines[pos:at] + new
        pos = at + len(old)
    return "".join(out + lines[pos:])


@pytest.fixture(scope="module")
def patched(tmp_path_factory):
    import aif360
    import aif360.datasets.standard_dataset as original

    if aif360.__version__ != "0.6.1":
        pytest.skip(f"the patch is written against aif360 0.6.1, installed {aif360.__version__}")
    text = apply_unified_diff(Path(original.__file__).read_text(encoding="utf-8"),
                              PATCH.read_text(encoding="utf-8"))
    path = tmp_path_factory.mktemp("patched") / "standard_dataset.py"
    path.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("patched_standard_dataset", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.StandardDataset, original.StandardDataset


def _frame() -> pd.DataFrame:
    return pd.DataFrame({"sex": ["Male", "Female", "Male", "Female", "Male"],
                         "race": ["a", "b", "a", "c", "b"],
                         "age": [20, 30, 40, 50, 60],
                         "label": ["yes", "no", "yes", "no", "no"]})


KW = dict(label_name="label", favorable_classes=["yes"], protected_attribute_names=["sex"],
          privileged_classes=[["Male"]], categorical_features=["race"])


def test_unpatched_fails_on_string_columns(patched):
    _, original = patched
    df = _frame().astype({c: "string" for c in ("sex", "race", "label")})
    with pytest.raises(TypeError, match="Cannot interpret"):
        original(df, **KW)


def test_patched_accepts_string_columns_with_the_old_results(patched):
    fixed, original = patched
    strings = _frame().astype({c: "string" for c in ("sex", "race", "label")})
    got = fixed(strings, **KW)
    want = original(_frame().astype({c: object for c in ("sex", "race", "label")}), **KW)
    assert got.feature_names == want.feature_names
    np.testing.assert_array_equal(got.features, want.features)
    np.testing.assert_array_equal(got.labels, want.labels)
    np.testing.assert_array_equal(got.protected_attributes, want.protected_attributes)
    # hand-computed: Male = privileged = 1, "yes" = favourable = 1
    np.testing.assert_array_equal(got.protected_attributes.ravel(), [1, 0, 1, 0, 1])
    np.testing.assert_array_equal(got.labels.ravel(), [1, 0, 1, 0, 0])
    assert got.favorable_label == 1.0 and got.unfavorable_label == 0.0
    assert [n for n in got.feature_names if n.startswith("race=")] == ["race=a", "race=b", "race=c"]


def test_patched_numeric_label_and_attribute_unchanged(patched):
    fixed, original = patched
    df = _frame().assign(label=[1, 0, 1, 0, 0], sex=[1, 0, 1, 0, 1]).drop(columns="race")
    kw = dict(KW, favorable_classes=[1], privileged_classes=[[1]], categorical_features=[])
    got, want = fixed(df, **kw), original(df.copy(), **kw)
    np.testing.assert_array_equal(got.features, want.features)
    assert got.unprivileged_protected_attributes == want.unprivileged_protected_attributes


@pytest.mark.skipif(not (COMPAS / "compas-scores-two-years.csv").is_file(), reason="COMPAS file not found "
                    "(set AIF360_SUBJECTIVE_DATA)")
@pytest.mark.data
def test_patched_compas_dataset_arguments(patched):
    """CompasDataset's own arguments and preprocessing on the ProPublica file: the published shape."""
    import inspect

    from aif360.datasets import compas_dataset

    fixed, _ = patched
    defaults = {k: v.default for k, v in inspect.signature(compas_dataset.CompasDataset.__init__).parameters.items()
                if k != "self"}
    df = pd.read_csv(COMPAS / "compas-scores-two-years.csv", index_col="id", na_values=[])
    ds = fixed(df=df, **defaults)
    assert ds.features.shape == (6167, 401)
    assert ds.favorable_label == 0.0
