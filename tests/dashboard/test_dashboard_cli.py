"""The ``dashboard`` command's reading of its inputs (the server itself is exercised by the browser tests), and the
notebook display."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("panel")

from aif360_subjective.cli import build_parser, main  # noqa: E402
from aif360_subjective.cli.dashboard import DashboardSpec, _dashboard  # noqa: E402
from aif360_subjective.dashboard import Dashboard  # noqa: E402
from aif360_subjective.dashboard.state import SubgroupSettings  # noqa: E402
from aif360_subjective.datasets import make_subjective_dataset  # noqa: E402


def _args(argv):
    """The command's typed spec, as its boundary builds it from the command line."""
    return DashboardSpec.from_namespace(build_parser().parse_args(["dashboard", *argv]))


@pytest.fixture
def table_csv(tmp_path):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"id": np.arange(120), "g": rng.choice(["a", "b"], 120), "x": rng.normal(size=120),
                       "truth": rng.integers(0, 2, 120), "pred": rng.integers(0, 2, 120)})
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    return path


def test_table_as_subgroups_reads_it(table_csv):
    d = _dashboard(_args([str(table_csv), "--label-col", "truth", "--prediction-col", "pred", "--exclude", "id",
                          "--n-clusters", "4", "--entropy-threshold", "0.5"]))
    assert d.opinion is None and list(d.subgroups.X.columns) == ["g", "x"]
    assert (d.initial.n_clusters, d.initial.entropy_threshold) == (4, 0.5)
    df = pd.read_csv(table_csv)
    np.testing.assert_array_equal(d.subgroups.y_true, (df["truth"] == 0).astype(int))  # favourable 0
    v = d.subgroups.update(d.initial)
    assert v.k == 4
    cmd = d.subgroups.command()
    assert cmd.startswith(f"aif360-subjective subgroups {table_csv} --label-col truth --prediction-col pred")
    assert "--exclude id" in cmd


def test_annotations_as_audit_reads_them(tmp_path):
    ds = make_subjective_dataset(n_items=200, n_annotators=30, random_state=0)
    ann = pd.DataFrame({"item": ds.item_ids, "annotator": ds.annotator_ids, "label": ds.labels.ravel().astype(int)})
    ann.to_csv(tmp_path / "ann.csv", index=False)
    ds.items.rename_axis("item").reset_index().to_csv(tmp_path / "items.csv", index=False)
    d = _dashboard(_args([str(tmp_path / "ann.csv"), "--item-col", "item", "--annotator-col", "annotator",
                          "--label-col", "label", "--items", str(tmp_path / "items.csv")]))
    assert d.opinion is not None and list(d.opinion.models) == ["Model 1 (majority vote)",
                                                                "Model 2 (annotator-aware)"]
    assert len(d.opinion.test.labels) + len(d.opinion.train.labels) == len(ds.labels)


def test_bad_input_is_one_line(table_csv, capsys):
    assert main(["dashboard", str(table_csv)]) == 2
    err = capsys.readouterr().err
    assert "--label-col and --prediction-col" in err and "required" in err
    assert main(["dashboard", str(table_csv), "--label-col", "truth", "--prediction-col", "nope"]) == 2
    assert "nope" in capsys.readouterr().err


def test_annotations_without_features_or_with_model_say_what_to_do(tmp_path, capsys):
    ann = pd.DataFrame({"item": [1, 1, 2, 2], "annotator": ["a", "b", "a", "b"], "label": [0, 1, 1, 1]})
    ann.to_csv(tmp_path / "ann.csv", index=False)
    base = ["dashboard", str(tmp_path / "ann.csv"), "--item-col", "item", "--annotator-col", "annotator",
            "--label-col", "label"]
    assert main(base) == 2
    assert "have no numeric features to train a model on; give the predictions" in capsys.readouterr().err
    assert main([*base, "--model", "majority"]) == 2
    assert "--model does not apply to annotation data in the dashboard" in capsys.readouterr().err


def test_notebook_display_and_bad_arguments():
    ds = make_subjective_dataset(n_items=150, n_annotators=20, random_state=1)
    d = Dashboard(annotations=ds)
    bundle = d._repr_mimebundle_()
    data = bundle[0] if isinstance(bundle, tuple) else bundle
    assert any("html" in k or "holoviews" in k or "bokeh" in k for k in data)
    with pytest.raises(ValueError, match="either data"):
        Dashboard()
    with pytest.raises(ValueError, match="label_col 'nope' is not a column"):
        Dashboard(pd.DataFrame({"a": [1, 2], "y": [0, 1], "p": [0, 1]}), label_col="nope", prediction_col="p")
    with pytest.raises(ValueError, match="favorable_label 5 is not a value"):
        Dashboard(pd.DataFrame({"a": [1, 2], "y": [0, 1], "p": [0, 1]}), label_col="y", prediction_col="p",
                  favorable_label=5)


def test_upload_and_favourable_label_controls():
    """The data tab's controls without a browser: a CSV upload replaces the table; the favourable label flips the
    binary truth and predictions the subgroups are computed on."""
    rng = np.random.default_rng(2)
    df = pd.DataFrame({"g": rng.choice(["a", "b", "c"], 80), "y": rng.choice(["no", "yes"], 80),
                       "p": rng.choice(["no", "yes"], 80)})
    d = Dashboard(df, label_col="y", prediction_col="p", favorable_label="no", subgroups=SubgroupSettings(n_clusters=3))
    d.panel()
    assert d.subgroups.view is None  # the subgroups tab analyses when first opened
    d.tabs.active = 1
    assert d.subgroups.view is not None
    np.testing.assert_array_equal(d.subgroups.y_true, (df["y"] == "no").to_numpy(dtype=int))
    d.favourable.value = "yes"
    np.testing.assert_array_equal(d.subgroups.y_true, (df["y"] == "yes").to_numpy(dtype=int))
    assert d.subgroups.view is not None and not d.message.visible
    # an unreadable upload: a message; a good one: the new table after "Use the uploaded table"
    d.upload.value = b"\x00\xff\xfe"
    assert d.message.visible
    new = pd.DataFrame({"h": rng.choice(["u", "v"], 60), "class": rng.integers(0, 2, 60),
                        "out": rng.integers(0, 2, 60)})
    d.upload.value = new.to_csv(index=False).encode()
    assert (d.upload_label.value, d.upload_pred.value) == ("class", "out")
    d._on_load(None)
    assert list(d.subgroups.X.columns) == ["h"] and len(d.subgroups.X) == 60
    assert d.subgroups.command().split()[2:7] == ["DATA.csv", "--label-col", "class", "--prediction-col", "out"]
