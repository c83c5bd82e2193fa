"""The command line as a user meets it: published formats, the favourable label, predictions from a file or a
model, demographic attributes, bad input that used to pass silently, pipes and help texts (issue 12)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from html import unescape
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.cli import main
from aif360_subjective.cli._common import one_line, plain_text, sniff_separator
from aif360_subjective.datasets import LeWiDiDataset, MultiAnnotatorDataset
from aif360_subjective.detectors import detect_subgroups
from aif360_subjective.metrics import OpinionExclusionMetric

REPO = Path(__file__).resolve().parents[2]
# the data folder as the shared_data fixture finds it: the variable, else shared/data in the nearest folder above
# the checkout that has one (a worktree in a folder of worktrees included)
_SHARED = next((p / "shared" / "data" for p in REPO.parents if (p / "shared" / "data").is_dir()),
               REPO.parent / "shared" / "data")
DATA = Path(os.environ.get("AIF360_SUBJECTIVE_DATA") or _SHARED)
MULTIPICO = DATA / "multipico"
COMPAS = DATA / "compas" / "fairvis_compas_out.csv"


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _error(capsys, *argv) -> str:
    code, out, err = _run(capsys, *argv)
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


# ----------------------------------------------------------------------------------------------- fixtures
def _lewidi_item(annotations: dict, level: float = 1.0) -> dict:
    return {"annotation task": "irony detection", "text": {"post": "p", "reply": "r"},
            "annotators": ",".join(annotations), "number of annotations": len(annotations),
            "annotations": annotations, "soft_label": {}, "split": "dev", "lang": "en",
            "other_info": {"source": "twitter", "level": level, "language_variety": "us"}}


@pytest.fixture()
def lewidi_dir(tmp_path) -> Path:
    """A small LeWiDi-format folder: 8 items, 4 annotators (one without metadata), labels "0"/"1"."""
    rng = np.random.default_rng(5)
    items = {}
    for i in range(8):
        anns = {f"Ann{a}": str(int(rng.random() < 0.4)) for a in range(4) if (i + a) % 5}
        items[str(100 + i)] = _lewidi_item(anns, level=float(i % 3))
    meta = {"0": {"Gender": "Female", "Age": 20}, "1": {"Gender": "Male", "Age": 30},
            "2": {"Gender": "Prefer not to say", "Age": 40}, "3": {"Gender": "Male", "Age": 50}}
    folder = tmp_path / "XY"
    folder.mkdir()
    (folder / "XY_dev.json").write_text(json.dumps(items), encoding="utf-8")
    (folder / "XY_annotators_meta.json").write_text(json.dumps(meta), encoding="utf-8")
    return folder


CSV_COLS = ["--item-col", "item", "--annotator-col", "annotator", "--label-col", "label"]


# ----------------------------------------------------------------------------------------------- formats
@pytest.mark.slow
def test_audit_lewidi_folder_with_predictions_file_matches_python(capsys, tmp_path, lewidi_dir):
    ds = LeWiDiDataset(lewidi_dir, split="dev")
    pred = pd.Series(np.where(np.arange(ds.n_items) % 2, 1, 0), index=pd.unique(ds.item_ids), name="prediction")
    pred.rename_axis("item").reset_index().to_csv(tmp_path / "pred.csv", index=False)
    code, out, err = _run(capsys, "audit", lewidi_dir, "--split", "dev", "--predictions", tmp_path / "pred.csv",
                          "--bins", "2", "--out", tmp_path / "r.html")
    assert code == 0, err
    m = OpinionExclusionMetric(ds, ds.with_predictions(pred), bins=2)
    assert f"{m.unfairness():.3f}" in out and f"{m.performance():.3f}" in out
    assert "Read lewidi data XY" in out and "favourable label: 0" in out
    assert "(-0." not in out and re.search(r"^\d\.\d\d\u2013\d\.\d\d ", out, flags=re.M)  # bins as in the report
    html = unescape((tmp_path / "r.html").read_text(encoding="utf-8"))
    assert "(column 'prediction', one per item)" in html and "favourable label" in html
    # a .json file is recognised as lewidi without --format
    code, out2, err = _run(capsys, "audit", lewidi_dir / "XY_dev.json", "--predictions", tmp_path / "pred.csv",
                           "--bins", "2")
    assert code == 0, err and f"{m.unfairness():.3f}" in out2


def test_audit_lewidi_favorable_label_and_options(capsys, tmp_path, lewidi_dir):
    ds1 = LeWiDiDataset(lewidi_dir, favorable_label=1)
    per_row = pd.DataFrame({"item": ds1.item_ids, "annotator": ds1.annotator_ids,
                            "prediction": ds1.labels.ravel().astype(int)})
    per_row.iloc[:-3].to_csv(tmp_path / "rows.csv", index=False)  # the last 3 annotations get no prediction
    code, out, err = _run(capsys, "audit", lewidi_dir, "--predictions", tmp_path / "rows.csv",
                          "--favorable-label", "1")
    assert code == 0, err
    assert "favourable label: 1" in out
    n_items = len(set(ds1.item_ids[-3:]))
    assert f"3 annotations of {n_items} item{'s' if n_items > 1 else ''} without a prediction left out" in out
    msg = _error(capsys, "audit", lewidi_dir, "--predictions", tmp_path / "rows.csv", "--favorable-label", "yes")
    assert "--favorable-label 'yes'" in msg
    msg = _error(capsys, "audit", lewidi_dir, "--predictions", tmp_path / "rows.csv", "--annotators",
                 tmp_path / "x.csv")
    assert "--annotators applies to --format csv, not lewidi" in msg
    msg = _error(capsys, "audit", lewidi_dir, "--predictions", tmp_path / "rows.csv", "--task", "toxicity")
    assert "--task (--data-task) applies to --format wikipedia or popquorn" in msg


def test_audit_model_option_matches_the_demo_models(capsys, lewidi_dir):
    from aif360_subjective.algorithms.inprocessing import MajorityVoteClassifier

    ds = LeWiDiDataset(lewidi_dir)
    train, test = ds.split([0.6], shuffle=True, seed=4)
    m = OpinionExclusionMetric(test, MajorityVoteClassifier(random_state=4).fit(train).predict(test), bins=2)
    code, out, err = _run(capsys, "audit", lewidi_dir, "--model", "majority", "--test-size", "0.4", "--seed", "4",
                          "--bins", "2")
    assert code == 0, err
    assert f"{m.unfairness():.3f}" in out and "Model 1 (majority vote) trained on" in out
    assert f"audited on the other {test.n_items} items" in out


def test_prediction_sources_exactly_one(capsys, tmp_path, lewidi_dir, annotations_csv):
    assert "--predictions or --model" in _error(capsys, "audit", lewidi_dir)
    path, _, _ = annotations_csv
    msg = _error(capsys, "audit", path, *CSV_COLS)
    assert "--prediction-col, --predictions or --model" in msg
    msg = _error(capsys, "audit", path, *CSV_COLS, "--prediction-col", "pred", "--model", "majority")
    assert "(got --prediction-col and --model)" in msg


def test_predictions_file_errors(capsys, tmp_path, lewidi_dir):
    pd.DataFrame({"item": [100, 100], "prediction": [0, 1]}).to_csv(tmp_path / "dup.csv", index=False)
    assert "has several predictions" in _error(capsys, "audit", lewidi_dir, "--predictions", tmp_path / "dup.csv")
    pd.DataFrame({"item": [1, 2], "prediction": [0, 1]}).to_csv(tmp_path / "none.csv", index=False)
    assert "no row of" in _error(capsys, "audit", lewidi_dir, "--predictions", tmp_path / "none.csv")
    # a count column is not a prediction: an error naming the value, not a silent 0/1 coding
    pd.DataFrame({"item": [100, 101], "prediction": [0, 38]}).to_csv(tmp_path / "count.csv", index=False)
    msg = _error(capsys, "audit", lewidi_dir, "--predictions", tmp_path / "count.csv")
    assert "holds 38 at row 1" in msg and "expected one of the label values [0, 1]" in msg


POPQUORN = DATA / "popquorn"


@pytest.mark.skipif(not POPQUORN.is_dir(), reason=f"{POPQUORN} not found (set AIF360_SUBJECTIVE_DATA)")
@pytest.mark.data
@pytest.mark.slow
def test_popquorn_folder_is_detected_and_equals_python(capsys):
    from aif360_subjective.algorithms.inprocessing import AnnotatorAwareClassifier
    from aif360_subjective.datasets import PopquornDataset

    # POPQUORN has text but no numeric item features: the annotator-aware model (annotator attributes) runs
    code, out, err = _run(capsys, "audit", POPQUORN, "--model", "annotator-aware", "--positive-from", "4",
                          "--ci", "none", "--warn-group-size", "0")
    assert code == 0, err
    assert "Read popquorn data" in out and "13,036 annotations of 1,500 items by 262 annotators" in out
    ds = PopquornDataset(POPQUORN, positive_from=4)
    train, test = ds.split([0.7], shuffle=True, seed=0)
    m = OpinionExclusionMetric(test, AnnotatorAwareClassifier(random_state=0).fit(train).predict(test),
                               warn_group_size=0)
    assert f"{m.unfairness():.3f}" in out and f"{m.performance():.3f}" in out


WIKI_COMMENTS = ("rev_id\tcomment\tyear\tlogged_in\tns\tsample\tsplit\n"
                 "1\ta\t2002\tFalse\tarticle\trandom\ttrain\n2\tb\t2003\tTrue\tuser\tblocked\tdev\n"
                 "3\tc\t2015\tTrue\tuser\trandom\tdev\n")
WIKI_ANNOTATIONS = ("rev_id\tworker_id\ttoxicity\ttoxicity_score\n"
                    "1.0\t1\t0\t0.0\n1.0\t2\t1\t-1.0\n1.0\t3\t0\t1.0\n2.0\t1\t1\t-2.0\n2.0\t2\t1\t0.0\n"
                    "3.0\t2\t0\t2.0\n3.0\t3\t0\t1.0\n")
WIKI_DEMOGRAPHICS = ("worker_id\tgender\tenglish_first_language\tage_group\teducation\n"
                     "1\tfemale\t0\t18-30\tbachelors\n2\tmale\t1\t\ths\n")


def test_audit_wikipedia_folder_and_split(capsys, tmp_path):
    from aif360_subjective.datasets import WikipediaTalkDataset

    for name, text in (("toxicity_annotated_comments.tsv", WIKI_COMMENTS), ("toxicity_annotations.tsv",
                       WIKI_ANNOTATIONS), ("toxicity_worker_demographics.tsv", WIKI_DEMOGRAPHICS)):
        (tmp_path / name).write_text(text, encoding="utf-8")
    pd.DataFrame({"item": [1, 2, 3], "prediction": [0, 1, 0]}).to_csv(tmp_path / "p.csv", index=False)
    code, out, err = _run(capsys, "audit", tmp_path, "--split", "dev", "--predictions", tmp_path / "p.csv",
                          "--bins", "2")
    assert code == 0, err
    assert "Read wikipedia data" in out and "split dev: 4 annotations of 2 items" in out
    ds = WikipediaTalkDataset("toxicity", data_dir=tmp_path)
    dev = ds.subset(np.isin(ds.item_ids, [2, 3]))
    m = OpinionExclusionMetric(dev, dev.with_predictions(pd.Series([1, 0], index=[2, 3])), bins=2)
    assert f"{m.unfairness():.3f}" in out
    assert "is not a split" in _error(capsys, "audit", tmp_path, "--split", "val", "--predictions",
                                      tmp_path / "p.csv")
    assert "--favorable-label 1: the wikipedia loader fixes" in _error(
        capsys, "audit", tmp_path, "--predictions", tmp_path / "p.csv", "--favorable-label", "1")


@pytest.mark.skipif(not MULTIPICO.is_dir(), reason=f"MultiPICo not found at {MULTIPICO} (set "
                    "AIF360_SUBJECTIVE_DATA to the data folder)")
@pytest.mark.data
@pytest.mark.slow
def test_multipico_cli_equals_python_with_default_favourable_label(capsys, tmp_path):
    """The issue's case: the same MultiPICo labels gave other numbers in the CLI (favourable 1) than in Python."""
    ds = LeWiDiDataset(MULTIPICO, split="dev")
    mv = pd.Series(ds.majority_labels(), index=ds.item_ids).groupby(level=0).first()
    mv.rename("prediction").rename_axis("item").reset_index().to_csv(tmp_path / "mv.csv", index=False)
    code, out, err = _run(capsys, "audit", MULTIPICO / "MP_dev.json", "--predictions", tmp_path / "mv.csv")
    assert code == 0, err
    m = OpinionExclusionMetric(ds, ds.with_predictions(mv))
    assert f"{m.unfairness():.3f}" in out and f"{m.performance():.3f}" in out and "favourable label: 0" in out
    rep = m.grouping_summary()
    assert f"{rep.n_resolved_tie_items} tied items resolved as favorable" in out


# ----------------------------------------------------------------------------------------------- favourable label
@pytest.mark.slow
def test_default_favourable_label_is_zero_and_printed(capsys, tmp_path, annotations_csv):
    path, df, _ = annotations_csv
    code, out, err = _run(capsys, "audit", path, *CSV_COLS, "--prediction-col", "pred", "--out", tmp_path / "a.html")
    assert code == 0, err
    assert "favourable label: 0" in out
    html = (tmp_path / "a.html").read_text(encoding="utf-8")
    assert "favourable label" in html
    ds0 = MultiAnnotatorDataset(df[["item", "annotator", "label"]], favorable_label=0, unfavorable_label=1)
    m = OpinionExclusionMetric(ds0, ds0.with_predictions(df["pred"].to_numpy()))
    assert f"{m.unfairness():.3f}" in out
    # string labels: no silent choice
    df.assign(label=np.where(df["label"] == 1, "yes", "no"), pred=np.where(df["pred"] == 1, "yes", "no")).to_csv(
        tmp_path / "s.csv", index=False)
    msg = _error(capsys, "audit", tmp_path / "s.csv", *CSV_COLS, "--prediction-col", "pred")
    assert "name the favourable one with --favorable-label" in msg and "['no', 'yes']" in msg
    code, out, err = _run(capsys, "audit", tmp_path / "s.csv", *CSV_COLS, "--prediction-col", "pred",
                          "--favorable-label", "no")
    assert code == 0, err and "favourable label: 'no'" in out


def test_subgroups_default_favourable_label_zero(capsys, tmp_path):
    rng = np.random.default_rng(2)
    df = pd.DataFrame({"sex": rng.choice(["f", "m"], 300), "age": rng.integers(18, 70, 300)})
    df["y"] = rng.integers(0, 2, 300)
    df["p"] = np.where(df["sex"] == "f", 1, df["y"])
    df.to_csv(tmp_path / "t.csv", index=False)
    code, out, err = _run(capsys, "subgroups", tmp_path / "t.csv", "--label-col", "y", "--prediction-col", "p",
                          "--n-clusters", "4")
    assert code == 0, err
    assert "favourable label: 0" in out
    rep = detect_subgroups(df[["sex", "age"]], (df["y"] == 0).astype(int).to_numpy(),
                           (df["p"] == 0).astype(int).to_numpy(), pos_label=1, n_clusters=4, random_state=0)
    assert f"{rep.summary().loc['entropy', 'statistical_parity']:.3f}" in out
    # a count column as predictions: error, not silently "not favourable"
    df.assign(p=rng.integers(0, 39, 300)).to_csv(tmp_path / "c.csv", index=False)
    msg = _error(capsys, "subgroups", tmp_path / "c.csv", "--label-col", "y", "--prediction-col", "p")
    assert "--prediction-col 'p' holds" in msg and "expected one of the label values [0, 1]" in msg


@pytest.mark.slow
def test_subgroups_on_annotation_rows(capsys, tmp_path, lewidi_dir):
    code, out, err = _run(capsys, "subgroups", lewidi_dir, "--model", "annotator-aware", "--test-size", "0.5",
                          "--columns", "Gender", "--n-clusters", "2", "--out", tmp_path / "s.html")
    assert code == 0, err
    assert "favourable label: 0" in out and "one row per annotation" in out
    html = (tmp_path / "s.html").read_text(encoding="utf-8")
    assert "Predictions analysed: Model 2 (annotator-aware)." in html
    assert "--label-col applies to a CSV table" in _error(capsys, "subgroups", lewidi_dir, "--model", "majority",
                                                          "--label-col", "y")
    assert "--columns 'Race' is not a column of the annotator attributes" in _error(
        capsys, "subgroups", lewidi_dir, "--model", "majority", "--columns", "Race")


# ----------------------------------------------------------------------------------------------- attributes
def test_demographic_attributes_and_left_out_annotators(capsys, tmp_path, annotations_csv):
    path, df, ds = annotations_csv
    ann = pd.read_csv(tmp_path / "annotators.csv")
    attrs = [c for c in ann.columns if c != "annotator"]
    ann.loc[[0, 1, 2], attrs[0]] = np.nan  # three annotators without the first attribute
    ann.to_csv(tmp_path / "ann_na.csv", index=False)
    base = ["audit", path, *CSV_COLS, "--prediction-col", "pred", "--annotators", tmp_path / "ann_na.csv",
            "--grouping", "demographic"]
    code, out, err = _run(capsys, *base, "--attributes", attrs[0])
    assert code == 0, err
    n_missing = int(ann.loc[ann["annotator"].isin(df["annotator"]), attrs[0]].isna().sum())
    assert f"{n_missing} annotators left out for a missing value in at least one attribute" in out
    assert f"Demographic groups: intersections of {attrs[0]}." in out
    lib = MultiAnnotatorDataset(df[["item", "annotator", "label"]], favorable_label=0, unfavorable_label=1,
                                annotators=ann.set_index("annotator"))
    m = OpinionExclusionMetric(lib, lib.with_predictions(df["pred"].to_numpy()), grouping="demographic",
                               attributes=[attrs[0]])
    assert f"{m.unfairness():.3f}" in out
    assert "--attributes 'nope' is not an annotator attribute" in _error(capsys, *base, "--attributes", "nope")
    msg = _error(capsys, "audit", path, *CSV_COLS, "--prediction-col", "pred", "--attributes", attrs[0])
    assert "--attributes applies to --grouping demographic or --discover, not --grouping adr" in msg


def test_demographic_notes_singletons_and_numeric(capsys, tmp_path, annotations_csv):
    path, df, _ = annotations_csv
    annotators = pd.DataFrame({"annotator": pd.unique(df["annotator"])})
    annotators["age"] = np.arange(len(annotators)) + 20  # numeric: one group per annotator
    annotators.to_csv(tmp_path / "ages.csv", index=False)
    code, out, err = _run(capsys, "audit", path, *CSV_COLS, "--prediction-col", "pred", "--annotators",
                          tmp_path / "ages.csv", "--grouping", "demographic")
    assert code == 0, err
    n = len(annotators)
    assert f"age is numeric with {n} distinct values" in out
    assert f"{n} of {n} groups hold a single annotator" in out


# ----------------------------------------------------------------------------------------------- bad input
def test_semicolon_file_is_sniffed_and_said(capsys, tmp_path, annotations_csv):
    _, df, _ = annotations_csv
    df.to_csv(tmp_path / "semi.csv", sep=";", index=False)
    assert sniff_separator(tmp_path / "semi.csv") == ";"
    code, out, err = _run(capsys, "audit", tmp_path / "semi.csv", *CSV_COLS, "--prediction-col", "pred")
    assert code == 0, err
    assert "separator semicolon (detected)" in out
    code, out2, err = _run(capsys, "audit", tmp_path / "semi.csv", *CSV_COLS, "--prediction-col", "pred",
                           "--sep", ";")
    assert code == 0, err and "separator semicolon (given)" in out2
    # a wrong --sep is a one-line error naming the column, not a KeyError
    assert "--item-col 'item' is not a column" in _error(capsys, "audit", tmp_path / "semi.csv", *CSV_COLS,
                                                         "--prediction-col", "pred", "--sep", ",")


def test_crowdtruth_warns_on_a_label_column_with_hundreds_of_values(capsys, tmp_path):
    n = 240
    df = pd.DataFrame({"u": np.arange(n) // 2, "w": np.tile(["a", "b"], n // 2), "l": np.arange(n)})
    df.to_csv(tmp_path / "ids.csv", index=False)
    code, out, err = _run(capsys, "crowdtruth", tmp_path / "ids.csv", "--unit-col", "u", "--worker-col", "w",
                          "--label-col", "l", "--out", tmp_path / "o")
    assert code == 0
    assert "warning: --label-col 'l' holds 240 distinct values" in err
    assert "wwa = worker-worker agreement, wua = worker-unit agreement" in " ".join(out.split())
    df.assign(l=np.arange(n) % 2).to_csv(tmp_path / "ok.csv", index=False)
    code, out, err = _run(capsys, "crowdtruth", tmp_path / "ok.csv", "--unit-col", "u", "--worker-col", "w",
                          "--label-col", "l", "--out", tmp_path / "o2")
    assert code == 0 and "warning" not in err


def test_messages_show_plain_values():
    assert one_line("label np.int64(41) at np.float64(0.5), np.str_('x')") == "label 41 at 0.5, 'x'"
    assert plain_text("The ``aif360-subjective`` command, see :class:`~a.B`.") == \
        "The aif360-subjective command, see a.B."


def test_library_error_with_numpy_values_reaches_the_user_plainly(capsys, tmp_path, annotations_csv):
    path, df, _ = annotations_csv
    df.assign(label=df["label"].where(df.index != 7, 41)).to_csv(tmp_path / "b.csv", index=False)
    msg = _error(capsys, "audit", tmp_path / "b.csv", *CSV_COLS, "--prediction-col", "pred")
    assert "np." not in msg and "41" in msg


# ----------------------------------------------------------------------------------------------- pipes, help
@pytest.mark.slow
def test_closed_pipe_exits_quietly(tmp_path):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.choice(["x", "y", "z"], 200), "y": rng.integers(0, 2, 200)})
    df["p"] = df["y"]
    df.to_csv(tmp_path / "d.csv", index=False)
    env = {**os.environ, "PYTHONPATH": str(REPO), "MPLBACKEND": "Agg"}
    proc = subprocess.Popen([sys.executable, "-m", "aif360_subjective", "subgroups", str(tmp_path / "d.csv"),
                             "--label-col", "y", "--prediction-col", "p", "--n-clusters", "3"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    proc.stdout.close()  # the reader leaves before the first line, as `| head -0` would
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=300) == 0, err
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


@pytest.mark.parametrize("command", [[], ["demo"], ["audit"], ["subgroups"], ["crowdtruth"]])
def test_help_is_plain_text(capsys, monkeypatch, command):
    monkeypatch.setenv("COLUMNS", "100")
    with pytest.raises(SystemExit):
        main([*command, "--help"])
    out = capsys.readouterr().out
    assert "``" not in out and ":class:" not in out
    # descriptions wrapped to the terminal (only a line listing {choices} may be longer)
    assert max(len(line) for line in out.splitlines() if "{" not in line) <= 100
    if command == ["subgroups"]:
        flat = " ".join(out.split())
        # the two defaults read together: x-means only chooses K, --clustering (slink) does the clustering
        assert "(default: slink, single linkage)" in flat
        assert "(default: K chosen by x-means (BIC), then the rows are clustered by --clustering into K clusters)" \
            in flat
    if command == ["audit"]:
        flat = " ".join(out.split())
        assert "--predictions FILE" in flat and "--model majority|annotator-aware" in flat
        assert "--format {csv,lewidi,popquorn,wikipedia,adult}" in flat


@pytest.mark.skipif(not COMPAS.is_file(), reason=f"{COMPAS} not found (set AIF360_SUBJECTIVE_DATA)")
@pytest.mark.data
@pytest.mark.slow
def test_compas_subgroups_prints_the_favourable_label(capsys):
    code, out, err = _run(capsys, "subgroups", COMPAS, "--label-col", "class", "--prediction-col", "out",
                          "--n-clusters", "8", "--alpha", "none")  # raw ranking: a pattern table is printed
    assert code == 0, err
    assert "favourable label: 0" in out and "separator comma (detected)" in out
    assert "days_b_screening_arrest=-1 " in out or "days_b_screening_arrest=-1\n" in out
    assert "=-1.0" not in out  # integer values as in the report's tables
