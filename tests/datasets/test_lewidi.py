"""LeWiDi/perspectivist JSON loader: the real MultiPICo files and small hand-written files."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.datasets import MISSING_CODE, LeWiDiDataset, MultiAnnotatorDataset
from aif360_subjective.datasets import lewidi as lw


def _item(annotations: dict, split: str = "dev", **other) -> dict:
    return {
        "annotation task": "irony detection",
        "text": {"post": f"post {len(annotations)}", "reply": "a reply\nsecond line"},
        "annotators": ",".join(annotations),
        "number of annotations": len(annotations),
        "annotations": annotations,
        "soft_label": {"0.0": 0.5, "1.0": 0.5},
        "split": split,
        "lang": "en",
        "other_info": {"source": "twitter", "level": 1.0, "language_variety": "us", **other},
    }


DEV = {
    "10": _item({"Ann0": "0", "Ann1": "1", "Ann2": "1"}),
    "11": _item({"Ann1": "0", "Ann3": "0"}, level=2.0),
    "12": _item({"Ann2": "1"}, source="reddit", language_variety="gb"),
}
TEST = {"20": _item({"Ann0": "1", "Ann3": "0"}, split="test")}
META = {
    "0": {"Age": 19.0, "Gender": "Female", "Student status": "DATA_EXPIRED"},
    "1": {"Age": 34.0, "Gender": "Prefer not to say", "Student status": "No"},
    "2": {"Age": None, "Gender": "Male", "Student status": "Yes"},
}


def write_dataset(folder: Path, files: dict[str, object]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        text = content if isinstance(content, str) else json.dumps(content)
        (folder / name).write_text(text, encoding="utf-8")
    return folder


@pytest.fixture
def small(tmp_path) -> Path:
    return write_dataset(tmp_path / "XY", {"XY_dev.json": DEV, "XY_test.json": TEST,
                                           "XY_annotators_meta.json": META})


# ------------------------------------------------------------------------------------- small files


def test_small_dev_rows_labels_and_tables(small):
    ds = LeWiDiDataset(small / "XY_dev.json")
    assert isinstance(ds, MultiAnnotatorDataset)
    assert ds.item_ids.tolist() == ["10", "10", "10", "11", "11", "12"]
    assert ds.annotator_ids.tolist() == ["Ann0", "Ann1", "Ann2", "Ann1", "Ann3", "Ann2"]
    assert ds.labels.ravel().tolist() == [0, 1, 1, 0, 0, 1]
    assert (ds.favorable_label, ds.unfavorable_label) == (0.0, 1.0)
    assert ds.feature_names == ["level", "Age", "Gender", "Student status"]
    f = pd.DataFrame(ds.features, columns=ds.feature_names)
    assert f["level"].tolist() == [1, 1, 1, 2, 2, 1]
    # DATA_EXPIRED / "Prefer not to say" / null are missing; Ann3 has no metadata row: all missing
    assert f["Student status"].tolist()[:3] == [MISSING_CODE, 0.0, 1.0]  # No=0, Yes=1
    assert f["Gender"].tolist() == [0.0, MISSING_CODE, 1.0, MISSING_CODE, MISSING_CODE, 1.0]
    assert f["Age"].tolist() == [19.0, 34.0, MISSING_CODE, 34.0, MISSING_CODE, MISSING_CODE]
    assert ds.metadata["n_annotators_without_attributes"] == 1
    assert ds.items.loc["11", "reply"] == "a reply\nsecond line"
    assert ds.items.loc["12", "source"] == "reddit" and ds.items.loc["11", "level"] == 2.0
    assert ds.items.loc["10", "soft_label"] == {"0.0": 0.5, "1.0": 0.5}
    assert ds.annotation_info.shape == (6, 0)


def test_small_folder_reads_every_split_and_meta(small):
    ds = LeWiDiDataset(small)
    assert len(ds.labels) == 8 and ds.item_ids[-2:].tolist() == ["20", "20"]
    assert ds.metadata["files"] == [str(small / "XY_dev.json"), str(small / "XY_test.json")]
    assert len(LeWiDiDataset(small, split="test").labels) == 2
    assert len(LeWiDiDataset([small / "XY_test.json", small / "XY_dev.json"]).labels) == 8


def test_small_options(small):
    ds = LeWiDiDataset(small, favorable_label=1, item_features=["level", "source"],
                       protected_attribute_names=["Gender"])
    assert ds.favorable_label == 1.0 and ds.feature_names == ["level", "source=reddit", "source=twitter",
                                                               "Gender"]
    no_meta = LeWiDiDataset(small, annotators_meta=False)
    assert no_meta.protected_attribute_names == []
    with pytest.raises(ValueError, match="favorable_label must be 0 or 1"):
        LeWiDiDataset(small, favorable_label="0")


def test_non_binary_scale_needs_positive_labels(tmp_path):
    data = {"1": _item({"Ann0": "2", "Ann1": "5", "Ann2": "6"}), "2": _item({"Ann0": "1"})}
    folder = write_dataset(tmp_path, {"CSC_dev.json": data})
    with pytest.raises(ValueError, match=r"labels must be 0 or 1.*3 annotation\(s\).*positive_labels"):
        LeWiDiDataset(folder, annotators_meta=False)
    ds = LeWiDiDataset(folder, annotators_meta=False, positive_labels={"5", "6"})
    assert ds.labels.ravel().tolist() == [0, 1, 1, 0]
    assert ds.annotation_info["raw_label"].tolist() == ["2", "5", "6", "1"]
    assert ds.to_dataframe()["raw_label"].tolist() == ["2", "5", "6", "1"]
    with pytest.raises(TypeError, match="positive_labels"):
        LeWiDiDataset(folder, annotators_meta=False, positive_labels="56")


def test_numeric_labels_accepted(tmp_path):
    folder = write_dataset(tmp_path, {"N_dev.json": {"1": _item({"Ann0": 1, "Ann1": 0.0})}})
    assert LeWiDiDataset(folder, annotators_meta=False).labels.ravel().tolist() == [1, 0]


def test_missing_meta_warns_and_meta_true_requires(tmp_path):
    folder = write_dataset(tmp_path, {"XY_dev.json": DEV})
    with pytest.warns(UserWarning, match="no '\\*_annotators_meta.json'"):
        ds = LeWiDiDataset(folder)
    assert ds.protected_attribute_names == []
    with pytest.raises(FileNotFoundError, match="no '\\*_annotators_meta.json'.*github.com/Le-Wi-Di"):
        LeWiDiDataset(folder, annotators_meta=True)


@pytest.mark.parametrize(
    ("content", "match"),
    [
        ("{not json", r"not valid JSON"),
        ([1, 2], r"expected a JSON object mapping item ids to item records, got a JSON list"),
        ({}, "holds no item"),
        ({"1": "text"}, r"item '1' must be a JSON object, got str"),
        ({"1": {"text": {}}}, r"item '1' must have an 'annotations' object .* got nothing"),
        ({"1": {"annotations": ["Ann0", "1"]}}, r"item '1' must have an 'annotations' object .* got list"),
        ({"1": _item({"Ann0": "1"}), "2": _item({"Ann0": "1", "Ann1": ["0", "1"]})},
         r"item '2': annotator 'Ann1' has the label \['0', '1'\]"),
        ({"1": _item({"Ann0": None})}, r"item '1': annotator 'Ann0' has the label None"),
        ({"1": {**_item({"Ann0": "1"}), "other_info": "x"}}, r"item '1': field 'other_info' must be a JSON object"),
        ({"1": {**_item({"Ann0": "1"}), "text": {"lang": "x"}}}, r"field name\(s\) \['lang'\]"),
    ],
)
def test_malformed_data_files(tmp_path, content, match):
    folder = write_dataset(tmp_path, {"XY_dev.json": content})
    with pytest.raises(ValueError, match=match):
        LeWiDiDataset(folder / "XY_dev.json", annotators_meta=False)


@pytest.mark.parametrize(
    ("meta", "match"),
    [
        ([{"Age": 3}], "expected a JSON object mapping annotator keys"),
        ({"0": "Female"}, "expected a JSON object mapping annotator keys"),
        ({"0": {"Age": 1}, "Ann0": {"Age": 2}}, r"annotator id\(s\) \['Ann0'\] occur more than once"),
        ({"0": {"Langs": ["en", "fr"]}}, r"attribute 'Langs' holds nested values"),
    ],
)
def test_malformed_meta(tmp_path, meta, match):
    folder = write_dataset(tmp_path, {"XY_dev.json": DEV, "XY_annotators_meta.json": meta})
    with pytest.raises(ValueError, match=match):
        LeWiDiDataset(folder)


def test_meta_ids_from_field_or_key(tmp_path):
    meta = {"a": {"Annotator_id": "Ann1", "Age": "30"}, "Ann2": {"Age": "41"}, "0": {"Age": "Prefer not to say"}}
    path = write_dataset(tmp_path, {"m.json": meta}) / "m.json"
    table = lw.read_annotators_meta(path)
    assert table.index.tolist() == ["Ann1", "Ann2", "Ann0"]
    assert table["Age"].dtype == np.float64 and table["Age"].isna().tolist() == [False, False, True]


def test_bad_paths(tmp_path, small):
    with pytest.raises(FileNotFoundError, match=r"not found.*nope\.json.*github\.com/Le-Wi-Di"):
        LeWiDiDataset(tmp_path / "nope.json")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(FileNotFoundError, match=r"no LeWiDi data file .* in .*empty.*LeWiDi_3-2025"):
        LeWiDiDataset(empty)
    with pytest.raises(FileNotFoundError, match=r"no '\*_train.json' file"):
        LeWiDiDataset(small, split="train")
    with pytest.raises(FileNotFoundError, match="annotator metadata file not found"):
        LeWiDiDataset(small, annotators_meta=tmp_path / "meta.json")
    with pytest.raises(ValueError, match="split must be one of"):
        LeWiDiDataset(small, split="validation")
    with pytest.raises(ValueError, match="of another split"):
        LeWiDiDataset(small / "XY_dev.json", split="test")
    with pytest.raises(TypeError, match="path_or_dir must be a path"):
        LeWiDiDataset(42)


def test_item_in_two_files(tmp_path):
    folder = write_dataset(tmp_path, {"XY_dev.json": DEV, "XY_test.json": {"10": TEST["20"]}})
    with pytest.raises(ValueError, match=r"item id\(s\) \['10'\] occur in several"):
        LeWiDiDataset(folder, annotators_meta=False)


def test_two_datasets_in_one_folder(tmp_path):
    folder = write_dataset(tmp_path, {"A_dev.json": DEV, "B_dev.json": DEV})
    with pytest.raises(ValueError, match="several dev files"):
        LeWiDiDataset(folder, annotators_meta=False)


# ---------------------------------------------------------------------------------- real MultiPICo


@pytest.fixture(scope="module")
def mp_dir(shared_data) -> Path:
    return shared_data / "multipico"


@pytest.fixture(scope="module")
def mp_all(mp_dir) -> LeWiDiDataset:
    return LeWiDiDataset(mp_dir)


@pytest.mark.data
def test_multipico_dev_counts(mp_dir):
    ds = LeWiDiDataset(mp_dir / "MP_dev.json")
    assert len(ds.labels) == 15178 and len(np.unique(ds.item_ids)) == 3005 and len(ds.items) == 3005
    assert int(ds.labels.sum()) == 5021  # irony = 1
    assert len(ds.annotators) == len(np.unique(ds.annotator_ids))


@pytest.mark.data
def test_multipico_test_counts(mp_dir):
    ds = LeWiDiDataset(mp_dir, split="test")
    assert len(ds.labels) == 18693 and len(ds.items) == 3756
    assert set(ds.items["split"]) == {"test"}


@pytest.mark.data
@pytest.mark.slow
def test_multipico_combined(mp_all):
    ds = mp_all
    assert len(ds.labels) == 15178 + 18693 and len(ds.items) == 3005 + 3756
    assert len(np.unique(ds.annotator_ids)) == 506 and ds.metadata["n_annotators_without_attributes"] == 0
    assert ds.items["split"].value_counts().to_dict() == {"test": 3756, "dev": 3005}
    assert set(ds.items["lang"]) == {"es", "en", "de", "ar", "pt", "fr", "nl", "it", "hi"}
    # soft labels (as published: keys "0.0"/"1.0" in dev but "0"/"1" in test) agree with the annotations
    assert ds.items.loc["2", "soft_label"] == {"0.0": 0.4, "1.0": 0.6}
    assert ds.items.loc["0", "soft_label"] == {"0": 0.2, "1": 0.8}
    summary = ds.item_summary()
    soft_irony = ds.items["soft_label"].map(lambda d: d.get("1.0", d.get("1"))).astype(float)
    share_irony = 1 - summary["share_favorable"]
    np.testing.assert_allclose(share_irony.loc[soft_irony.index], soft_irony, atol=0.006)


@pytest.mark.data
def test_multipico_spot_checks(mp_all):
    ds = mp_all
    rows = pd.DataFrame({"item": ds.item_ids, "annotator": ds.annotator_ids, "label": ds.labels.ravel()})
    first = rows[rows["item"] == "2"]
    assert first["annotator"].tolist() == ["Ann0", "Ann20", "Ann59", "Ann62", "Ann63"]
    assert first["label"].tolist() == [0, 1, 1, 1, 0]
    assert ds.items.loc["2", "reply"] == "Lately Barak Valley has become a lot more intolerant"
    assert ds.items.loc["2", ["source", "level", "language_variety", "lang"]].tolist() == ["reddit", 1.0, "in", "en"]
    assert ds.items.loc["5", "language_variety"] == "au"
    assert ds.feature_names[0] == "level" and ds.items["level"].isin([1.0, 2.0]).all()


@pytest.mark.data
def test_multipico_metadata_missing_values(mp_all):
    ds = mp_all
    ann = ds.annotators
    assert len(ann) == 506 and ann.index[:3].tolist() == ["Ann0", "Ann1", "Ann2"]
    assert list(ann.columns) == ["Age", "Gender", "Ethnicity simplified", "Country of birth",
                                 "Country of residence", "Nationality", "Student status", "Employment status"]
    assert not ann.isin(["DATA_EXPIRED", "Prefer not to say"]).any().any()
    assert ann["Employment status"].isna().sum() == 109 and ann["Student status"].isna().sum() == 81
    assert ann["Ethnicity simplified"].isna().sum() == 4
    assert ann["Gender"].isna().sum() == 2  # one DATA_EXPIRED, one "Prefer not to say"
    assert ann["Gender"].value_counts().to_dict() == {"Male": 274, "Female": 230}
    assert ann.loc["Ann0", "Age"] == 19.0 and ann.loc["Ann1", "Ethnicity simplified"] == "Black"
    assert np.isnan(ann.loc["Ann0", "Employment status"])
    # coded: Ann0's Employment status is the missing code in every one of its rows
    col = ds.feature_names.index("Employment status")
    assert (ds.features[ds.annotator_ids == "Ann0", col] == MISSING_CODE).all()
    gender_map = ds.metadata["protected_attribute_maps"][ds.protected_attribute_names.index("Gender")]
    assert gender_map == {0.0: "Female", 1.0: "Male", MISSING_CODE: gender_map[MISSING_CODE]}
    assert np.isnan(gender_map[MISSING_CODE])
