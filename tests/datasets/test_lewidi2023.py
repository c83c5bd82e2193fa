"""LeWiDi 2023 layout (HS-Brexit, ArMIS, MD-Agreement, ConvAbuse; CSC thresholds): small files and real data."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from aif360_subjective.datasets import LeWiDiDataset


def _rec(annotators: str, annotations: str, other_info: dict, split: str = "train") -> dict:
    return {"text": "a tweet", "annotation task": "hate speech detection",
            "number of annotations": len(annotators.split(",")), "annotations": annotations,
            "annotators": annotators, "lang": "en", "hard_label": "0", "soft_label": {"0": 0.5, "1": 0.5},
            "split": split, "other_info": other_info}


def _brexit_info(groups: str = "group1,group1,group2") -> dict:
    return {"other annotations": {"aggressive language detection": "0,0,0"}, "annotators group": groups,
            "group1": "target group", "group2": "control group"}


def _write(folder: Path, files: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        (folder / name).write_text(json.dumps(content), encoding="utf-8")
    return folder


@pytest.fixture
def brexit(tmp_path) -> Path:
    train = {"1": _rec("Ann1,Ann2,Ann3", "1,0,0", _brexit_info()),
             "2": _rec("Ann1,Ann2,Ann3", "1,1,0", _brexit_info())}
    dev = {"1": _rec("Ann1,Ann2,Ann3", "0,0,1", _brexit_info(), split="dev")}
    return _write(tmp_path / "HS", {"HS_train.json": train, "HS_dev.json": dev})


def test_2023_groups_ids_and_labels(brexit):
    ds = LeWiDiDataset(brexit)
    assert ds.metadata["layout"] == "2023"
    # keys restart in every split file: ids are prefixed with the split
    assert ds.item_ids.tolist() == ["train:1"] * 3 + ["train:2"] * 3 + ["dev:1"] * 3
    assert ds.annotator_ids.tolist() == ["Ann1", "Ann2", "Ann3"] * 3
    assert ds.labels.ravel().tolist() == [1, 0, 0, 1, 1, 0, 0, 0, 1]
    # the readable names the file gives, not the codes (group1 is the target group of the hate speech)
    assert ds.annotators["group"].to_dict() == {"Ann1": "target group", "Ann2": "target group",
                                                "Ann3": "control group"}
    assert ds.protected_attribute_names == ["group"]
    assert ds.metadata["group_names"] == {"group1": "target group", "group2": "control group"}
    # group fields are consumed; the rest of other_info stays on the items; text string -> column "text"
    assert "annotators group" not in ds.items.columns and "group1" not in ds.items.columns
    assert {"text", "other annotations", "hard_label"} <= set(ds.items.columns)
    assert ds.items.loc["dev:1", "split"] == "dev"


def test_2023_single_file_keeps_published_keys(brexit):
    ds = LeWiDiDataset(brexit / "HS_train.json")
    assert list(dict.fromkeys(ds.item_ids)) == ["1", "2"]
    with pytest.raises(ValueError, match="occur in several.*split_prefix=True"):
        LeWiDiDataset(brexit, split_prefix=False)
    assert LeWiDiDataset(brexit / "HS_dev.json", split_prefix=True).item_ids[0] == "dev:1"


def test_armis_mapping_groups(tmp_path):
    info = {"Ann1": "Moderate_Female", "Ann2": "Liberal_Female", "Ann3": "Conservative_Male"}
    folder = _write(tmp_path / "AR", {"AR_dev.json": {"1": _rec("Ann1,Ann2,Ann3", "1,1,0", info),
                                                      "2": _rec("Ann2,Ann3", "0,1", {k: info[k] for k in
                                                                                     ("Ann2", "Ann3")})}})
    ds = LeWiDiDataset(folder)
    assert ds.annotators["group"].to_dict() == info
    assert not ({"Ann1", "Ann2", "Ann3"} & set(ds.items.columns))


def test_group_change_is_an_error_naming_the_annotator(tmp_path):
    train = {"1": _rec("Ann1,Ann2,Ann3", "1,0,0", _brexit_info()),
             "2": _rec("Ann1,Ann2,Ann3", "1,1,0", _brexit_info("group1,group2,group2"))}
    folder = _write(tmp_path / "HS", {"HS_train.json": train})
    with pytest.raises(ValueError, match=r"annotator 'Ann2' is given different groups.*'group1' \(item '1'\), "
                                         r"'group2' \(item '2'\)"):
        LeWiDiDataset(folder)


@pytest.mark.parametrize(
    ("record", "match"),
    [
        (_rec("Ann1,Ann2", "1", {}), r"HS_train.json: item '1': field 'annotations' has 1 label\(s\) for 2"),
        ({**_rec("Ann1", "1", {}), "annotators": ["Ann1"]}, r"item '1': field 'annotators' must be a comma-separated"),
        (_rec("Ann1,Ann2,Ann3", "1,0,0", _brexit_info("group1,group2")),
         r"item '1': field 'other_info.annotators group' lists 2 group\(s\) for 3 annotator"),
        (_rec("Ann1,,Ann3", "1,0,0", {}), r"item '1': an empty annotator id"),
    ],
)
def test_2023_malformed(tmp_path, record, match):
    folder = _write(tmp_path / "HS", {"HS_train.json": {"1": record}})
    with pytest.raises(ValueError, match=match):
        LeWiDiDataset(folder)


def test_mixed_layouts_rejected(tmp_path, brexit):
    _write(brexit, {"HS_test.json": {"1": {**_rec("Ann1", "1", {}), "annotations": {"Ann1": "1"},
                                           "text": {"t": "x"}}}})
    with pytest.raises(ValueError, match="mix the 2023 layout"):
        LeWiDiDataset(brexit)


def test_repeated_pair_keeps_first_and_is_reported(tmp_path):
    folder = _write(tmp_path / "MD", {"MD_test.json": {"7": _rec("Ann5,Ann6,Ann5", "0,1,1", {"domain": "BLM"})}})
    with pytest.warns(UserWarning, match=r"1 annotation\(s\) repeat .* item '7', annotator 'Ann5'"):
        ds = LeWiDiDataset(folder)
    assert ds.labels.ravel().tolist() == [0, 1]
    assert ds.metadata["n_repeated_annotations"] == 1
    rep = ds.metadata["repeated_annotations"]
    assert rep.to_dict("records") == [{"item": "7", "annotator": "Ann5", "raw_label": "1", "kept_label": "0"}]


def test_convabuse_binary_view_and_raw_severity(tmp_path):
    folder = _write(tmp_path / "CA", {"CA_dev.json": {"1": _rec("Ann1,Ann2,Ann3", "-3,0,1", {"bot": "E"}),
                                                      "2": _rec("Ann2,Ann4", "-1,-2", {"bot": "C"})}})
    with pytest.raises(ValueError, match="needs a stated binary view"):
        LeWiDiDataset(folder)
    ds = LeWiDiDataset(folder, positive_labels={-3, -2, -1})
    assert ds.labels.ravel().tolist() == [1, 0, 0, 1, 1]
    assert ds.annotation_info["raw_label"].tolist() == ["-3", "0", "1", "-1", "-2"]
    assert ds.metadata["binary_view"] == {"positive_labels": ["-1", "-2", "-3"]}


def test_positive_from_threshold(tmp_path):
    rec = {"text": {"context": "c", "response": "r"}, "annotators": "Ann1,Ann2,Ann3",
           "annotations": {"Ann1": "3", "Ann2": "4", "Ann3": "6"}, "split": "dev", "lang": "en",
           "other_info": {}}
    folder = _write(tmp_path / "CSC", {"CSC_dev.json": {"9": rec}})
    ds = LeWiDiDataset(folder, annotators_meta=False, positive_from=4)
    assert ds.labels.ravel().tolist() == [0, 1, 1]
    assert ds.annotation_info["raw_label"].tolist() == ["3", "4", "6"]
    with pytest.raises(ValueError, match="not both"):
        LeWiDiDataset(folder, annotators_meta=False, positive_from=4, positive_labels={"4"})
    with pytest.raises(TypeError, match="positive_from must be a number"):
        LeWiDiDataset(folder, annotators_meta=False, positive_from="4")
    bad = {"9": {**rec, "annotations": {"Ann1": "high"}}}
    _write(folder, {"CSC_dev.json": bad})
    with pytest.raises(ValueError, match=r"positive_from=4 needs numeric ratings.*\['high'\]"):
        LeWiDiDataset(folder, annotators_meta=False, positive_from=4)


# ------------------------------------------------------------------------------------- real files


@pytest.fixture(scope="module")
def lewidi2023(shared_data) -> Path:
    return shared_data / "lewidi2023"


@pytest.mark.data
def test_real_hs_brexit(lewidi2023):
    ds = LeWiDiDataset(lewidi2023 / "HS-Brexit")
    assert (ds.n_items, ds.n_annotators, len(ds.item_ids)) == (1120, 6, 6720)
    assert ds.annotators["group"].value_counts().to_dict() == {"target group": 3, "control group": 3}
    summary = ds.item_summary(tie="drop")
    assert int(summary["majority_label"].isna().sum()) == 84  # 3-3 ties
    assert int((ds.labels.ravel() == 1).sum()) == 869


@pytest.mark.data
@pytest.mark.slow
def test_real_armis_md_convabuse(lewidi2023):
    ar = LeWiDiDataset(lewidi2023 / "ArMIS")
    assert ar.annotators["group"].to_dict() == {"Ann1": "Moderate_Female", "Ann2": "Liberal_Female",
                                                "Ann3": "Conservative_Male"}
    assert ar.n_items == 943
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        md = LeWiDiDataset(lewidi2023 / "MD-Agreement")
    assert [str(x.message)[:4] for x in w] == ["1 an"]  # the repeated Ann448 of test item 2038, no meta warning
    assert (md.n_items, md.n_annotators, len(md.item_ids)) == (10753, 819, 53764)
    ca = LeWiDiDataset(lewidi2023 / "ConvAbuse", positive_labels={-3, -2, -1})
    assert (ca.n_items, ca.n_annotators, len(ca.item_ids)) == (4050, 8, 12168)
    # the published soft label "1" is the share of abusive (-3..-1) annotations
    share = ca.item_summary()["share_favorable"].rsub(1)
    published = ca.items["soft_label"].map(lambda d: d["1"])
    assert np.allclose(share.to_numpy(), published.loc[share.index].to_numpy(), atol=0.006)


@pytest.mark.data
def test_real_csc_threshold(shared_data):
    ds = LeWiDiDataset(shared_data / "csc", positive_from=4)
    raw = ds.annotation_info["raw_label"].astype(int).to_numpy()
    assert np.array_equal(ds.labels.ravel(), (raw >= 4).astype(float))
    assert (ds.n_items, len(ds.item_ids)) == (1408, 6410)
