"""POPQUORN, DICES and Measuring Hate Speech loaders: small files in the published layouts, real POPQUORN."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.datasets import DICESDataset, MeasuringHateSpeechDataset, PopquornDataset
from aif360_subjective.datasets.dices import ITEM_COLUMNS, RATER_COLUMNS

# ------------------------------------------------------------------------------------------- POPQUORN

POP_HEADER = "instance_id,user_id,text,offensiveness,gender,race,age,occupation,education\n"
POP_ROWS = [
    '530,0,"drop C, would defo recommend",1.0,Man,White,35-39,Unemployed,High school diploma or equivalent',
    '530,1,"drop C, would defo recommend",4.0,Woman,Black or African American,18-24,Prefer not to disclose,'
    "College degree",
    '12,0,"another comment",3.0,Man,White,35-39,Unemployed,High school diploma or equivalent',
    '12,2,"another comment",2.0,Non-binary,Asian,>65,Retired,Graduate degree',
]


def _popquorn(tmp_path: Path, rows=POP_ROWS, name="raw_data.csv") -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / name).write_text(POP_HEADER + "\n".join(rows) + "\n", encoding="utf-8")
    return tmp_path


def test_popquorn_small(tmp_path):
    ds = PopquornDataset(_popquorn(tmp_path))
    assert ds.item_ids.tolist() == [530, 530, 12, 12] and ds.annotator_ids.tolist() == [0, 1, 0, 2]
    assert ds.annotation_info["rating"].tolist() == [1.0, 4.0, 3.0, 2.0]
    assert ds.labels.ravel().tolist() == [0, 1, 1, 0]  # rating >= 3 is offensive
    assert ds.favorable_label == 0
    assert ds.annotators.loc[1, "occupation"] is np.nan or pd.isna(ds.annotators.loc[1, "occupation"])
    assert ds.metadata["n_missing_attributes"] == {"gender": 0, "race": 0, "age": 0, "occupation": 1,
                                                   "education": 0}
    assert ds.items.loc[12, "text"] == "another comment"
    assert PopquornDataset(tmp_path, positive_from=4).labels.ravel().tolist() == [0, 1, 0, 0]


def test_popquorn_changing_demographics(tmp_path):
    rows = [*POP_ROWS[:2], POP_ROWS[2].replace("35-39", "40-44")]
    with pytest.raises(ValueError, match=r"annotator 0 has different values of field 'age' on its rows: "
                                         r"'35-39' \(record 0\), '40-44' \(record 2\)"):
        PopquornDataset(_popquorn(tmp_path, rows))


@pytest.mark.parametrize(
    ("rows", "match"),
    [
        ([POP_ROWS[0].replace(",1.0,", ",7.0,")],
         r"record 0 \(data row 2\): field 'offensiveness' is 7.0, expected one of"),
        ([POP_ROWS[0].replace(",1.0,", ",high,")], r"field 'offensiveness' is 'high'"),
        ([POP_ROWS[0], POP_ROWS[0]], r"record 1 \(data row 3\) repeats the pair instance_id=530, user_id=0"),
        ([POP_ROWS[0].replace("530,0,", "530,,")], r"record 0 \(data row 2\): field 'user_id' is empty"),
    ],
)
def test_popquorn_bad_rows(tmp_path, rows, match):
    with pytest.raises(ValueError, match=match):
        PopquornDataset(_popquorn(tmp_path, rows))


def test_popquorn_bad_file_and_options(tmp_path):
    (tmp_path / "raw_data.csv").write_text("instance_id,user_id,text\n1,2,x\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"raw_data.csv: field\(s\) \['offensiveness', 'gender'"):
        PopquornDataset(tmp_path)
    with pytest.raises(FileNotFoundError, match=r"Potato-Prolific-Dataset"):
        PopquornDataset(tmp_path / "nowhere")
    with pytest.raises(ValueError, match="task='politeness'"):
        PopquornDataset(tmp_path, task="politeness")
    with pytest.raises(ValueError, match=r"positive_from=1 must lie in \(1, 5\]"):
        PopquornDataset(tmp_path, positive_from=1)


@pytest.mark.data
def test_popquorn_real(shared_data):
    ds = PopquornDataset(shared_data / "popquorn")
    assert (len(ds.item_ids), ds.n_items, ds.n_annotators) == (13036, 1500, 262)
    assert ds.annotation_info["rating"].value_counts().to_dict() == {1.0: 7516, 2.0: 2190, 3.0: 1590,
                                                                      4.0: 1039, 5.0: 701}
    assert int(ds.labels.sum()) == 1590 + 1039 + 701
    assert ds.metadata["n_missing_attributes"]["occupation"] == 1  # one annotator "Prefer not to disclose"


# ------------------------------------------------------------------------------------------- DICES


def _dices_frame(version: int) -> pd.DataFrame:
    raters = {7: ("Man", "White", "White", "gen z", "College degree or higher", "US"),
              8: ("Woman", "Asian", "Chinese", "gen x+", "High school or below", "India")}
    rows = []
    for item, answers in ((193, {7: "Yes", 8: "No"}), (194, {7: "Unsure", 8: "Yes"})):
        for r, a in answers.items():
            g, race, raw, age, edu, loc = raters[r]
            row = {"id": len(rows), "rater_id": r, "rater_gender": g, "rater_locale": loc, "rater_race": race,
                   "rater_raw_race": raw, "rater_age": age, "rater_education": edu, "phase": "Phase3",
                   "item_id": item, "answer_time_ms": 1000, "answer_timestamp": 1.6e9, "context": f"ctx {item}",
                   "response": "resp", "degree_of_harm": "Moderate", "harm_type": "Violent",
                   "safety_gold": "No", "safety_gold_reason": "", "Q1_whole_conversation_evaluation": "4",
                   "Q2_harmful_content_overall": a, "Q_overall": a}
            rows.append(row)
    frame = pd.DataFrame(rows)
    keep = ["id", "rater_id", *RATER_COLUMNS[version], "phase", "item_id", *ITEM_COLUMNS[version],
            "Q1_whole_conversation_evaluation", "Q2_harmful_content_overall", "Q_overall"]
    if version == 350:
        keep[keep.index("item_id") + 1:keep.index("item_id") + 1] = ["answer_time_ms", "answer_timestamp"]
    return frame[keep]


@pytest.mark.parametrize("version", [350, 990])
def test_dices_small(tmp_path, version):
    _dices_frame(version).to_csv(tmp_path / f"diverse_safety_adversarial_dialog_{version}.csv", index=False)
    ds = DICESDataset(tmp_path, version=version)
    assert ds.item_ids.tolist() == [193, 193, 194] and ds.annotator_ids.tolist() == [7, 8, 8]
    assert ds.labels.ravel().tolist() == [1, 0, 1]
    assert ds.metadata["n_unsure_dropped"] == 1
    assert ds.annotation_info["answer"].tolist() == ["Yes", "No", "Yes"]
    assert ("rater_locale" in ds.protected_attribute_names) == (version == 990)
    assert ds.annotators.loc[8, "rater_raw_race"] == "Chinese"
    unsafe = DICESDataset(tmp_path, version=version, unsure="unsafe")
    assert unsafe.labels.ravel().tolist() == [1, 0, 1, 1]
    safe = DICESDataset(tmp_path, version=version, unsure="safe", label="Q2_harmful_content_overall")
    assert safe.labels.ravel().tolist() == [1, 0, 0, 1]


def test_dices_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"diverse_safety_adversarial_dialog_350.csv.*dices-dataset"):
        DICESDataset(tmp_path)
    frame = _dices_frame(350)
    frame.loc[2, "Q_overall"] = "Maybe"
    frame.to_csv(tmp_path / "d.csv", index=False)
    with pytest.raises(ValueError, match=r"d.csv: record 2 \(data row 4\): field 'Q_overall' is 'Maybe'"):
        DICESDataset(tmp_path / "d.csv")
    with pytest.raises(ValueError, match=r"field\(s\) \['rater_locale'\] missing"):
        DICESDataset(tmp_path / "d.csv", version=990)
    frame = _dices_frame(350)
    frame.loc[3, "rater_age"] = "millenial"
    frame.to_csv(tmp_path / "d.csv", index=False)
    with pytest.raises(ValueError, match=r"rater 8 has different values of field 'rater_age'"):
        DICESDataset(tmp_path / "d.csv")
    with pytest.raises(ValueError, match="version=500"):
        DICESDataset(tmp_path / "d.csv", version=500)
    with pytest.raises(ValueError, match="unsure='maybe'"):
        DICESDataset(tmp_path / "d.csv", unsure="maybe")


# ------------------------------------------------------------------------------- Measuring Hate Speech


def _mhs_frame() -> pd.DataFrame:
    return pd.DataFrame({
        "comment_id": [47777, 47777, 39773], "annotator_id": [10873, 2790, 10873], "platform": [0, 0, 1],
        "sentiment": [0, 4, 1], "respect": [0, 4, 2], "insult": [0, 3, 1], "humiliate": [0, 3, 0],
        "status": [2, 2, 2], "dehumanize": [0, 3, 0], "violence": [0, 0, 0], "genocide": [0, 0, 0],
        "attack_defend": [0, 3, 1], "hatespeech": [0, 2, 1], "hate_speech_score": [-3.9, -3.9, -0.6],
        "text": ["Yes indeed.", "Yes indeed.", "other"], "infitms": [0.8, 0.8, 1.1],
        "outfitms": [0.5, 0.5, 1.0], "annotator_severity": [0.4, -0.2, 0.4], "std_err": [0.3, 0.3, 0.4],
        "annotator_infitms": [1.3, 0.9, 1.3], "annotator_outfitms": [1.1, 0.8, 1.1], "hypothesis": [0.0, 0.0, 0.1],
        "target_race_asian": [True, True, False], "target_race_black": [False, False, True],
        "annotator_gender": ["male", "female", "male"], "annotator_trans": ["no", np.nan, "no"],
        "annotator_educ": ["college_grad_ba", "some_college", "college_grad_ba"],
        "annotator_income": ["50k-100k", "<10k", "50k-100k"], "annotator_ideology": ["liberal", "neutral", "liberal"],
        "annotator_gender_men": [True, False, True], "annotator_age": [32.0, 48.0, 32.0],
        "annotator_race_asian": [False, False, False], "annotator_race_white": [True, True, True],
    })


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_mhs_small(tmp_path, suffix):
    if suffix == "parquet":
        pytest.importorskip("pyarrow")  # the "parquet" extra
    frame = _mhs_frame()
    path = tmp_path / f"measuring-hate-speech.{suffix}"
    frame.to_csv(path, index=False) if suffix == "csv" else frame.to_parquet(path)
    ds = MeasuringHateSpeechDataset(tmp_path)
    assert ds.item_ids.tolist() == [47777, 47777, 39773]
    assert ds.labels.ravel().tolist() == [0, 1, 0]  # hatespeech 2 = yes
    assert MeasuringHateSpeechDataset(path, positive_from=1).labels.ravel().tolist() == [0, 1, 1]
    assert ds.annotation_info["hatespeech"].tolist() == [0, 2, 1]
    assert ds.items.loc[39773, "hate_speech_score"] == -0.6
    assert ds.protected_attribute_names == ["annotator_gender", "annotator_trans", "annotator_educ",
                                            "annotator_income", "annotator_ideology", "annotator_age",
                                            "annotator_race_asian", "annotator_race_white"]
    assert ds.metadata["n_missing_attributes"]["annotator_trans"] == 1
    assert "annotator_severity" in ds.annotators.columns


def test_mhs_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"ucberkeley-dlab/measuring-hate-speech"):
        MeasuringHateSpeechDataset(tmp_path)
    frame = _mhs_frame().drop(columns="hatespeech")
    frame.to_csv(tmp_path / "m.csv", index=False)
    with pytest.raises(ValueError, match=r"m.csv: field\(s\) \['hatespeech'\] missing"):
        MeasuringHateSpeechDataset(tmp_path / "m.csv")
    frame = _mhs_frame()
    frame.loc[2, "annotator_ideology"] = "conservative"
    frame.to_csv(tmp_path / "m.csv", index=False)
    with pytest.raises(ValueError, match=r"annotator 10873 has different values of field 'annotator_ideology'"):
        MeasuringHateSpeechDataset(tmp_path / "m.csv")
    (tmp_path / "bad.csv").write_bytes(b"\xff\xfe\x00garbage\x00")
    with pytest.raises(ValueError, match=r"bad.csv: cannot be read"):
        MeasuringHateSpeechDataset(tmp_path / "bad.csv")
