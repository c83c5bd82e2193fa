"""Fuzzing the input contract: any input gives a clear error (ValueError / TypeError, exit 2 on the command line)
or the result of the clean input, never another exception and never a crash.

Each test draws a clean input, applies one corruption (a missing value, a duplicated row, a reordered Series, an
infinite or overflowing number, a formula or control character in a cell, ...) and checks the outcome. The
examples are derandomized (the ``ci`` profile of tests/conftest.py) and kept few, so the file runs in seconds.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aif360_subjective.cli import main
from aif360_subjective.datasets import MultiAnnotatorDataset
from aif360_subjective.sklearn import metrics as skm

CLEAR = (ValueError, TypeError)
ANNOTATORS = ["a", "b", "c", "007", "7"]


@st.composite
def annotations(draw) -> pd.DataFrame:
    """3-6 items, each labelled by 2-5 distinct annotators (one label per pair), binary labels and predictions."""
    rows = []
    for item in range(draw(st.integers(3, 6))):
        who = draw(st.lists(st.sampled_from(ANNOTATORS), min_size=2, max_size=5, unique=True))
        for a in who:
            rows.append((item, a, draw(st.integers(0, 1)), draw(st.integers(0, 1))))
    return pd.DataFrame(rows, columns=["item", "annotator", "label", "pred"])


def _corrupt(df: pd.DataFrame, kind: str, row: int) -> dict:
    """The functional face's arguments after one corruption of the clean frame."""
    row = row % len(df)
    args = {"y_true": df["label"].astype(float), "y_pred": df["pred"].astype(float), "item_ids": df["item"],
            "annotator_ids": df["annotator"]}
    if kind == "series":
        pass
    elif kind == "arrays":
        args = {k: v.to_numpy() for k, v in args.items()}
    elif kind == "shuffled":  # every input reordered alike: the same annotations
        order = np.random.default_rng(row).permutation(len(df))
        args = {k: v.iloc[order] for k, v in args.items()}
    elif kind == "ids-as-text":
        args["item_ids"] = df["item"].astype(str)
    elif kind in ("nan-label", "inf-label", "nan-pred"):
        col = "y_pred" if kind == "nan-pred" else "y_true"
        v = args[col].copy()
        v.iloc[row] = np.inf if kind == "inf-label" else np.nan
        args[col] = v
    elif kind == "missing-id":
        ids = df["annotator"].astype(object).copy()
        ids.iloc[row] = None
        args["annotator_ids"] = ids
    elif kind == "duplicated-row":
        dup = pd.concat([df, df.iloc[[row]]], ignore_index=True)
        args = {"y_true": dup["label"], "y_pred": dup["pred"], "item_ids": dup["item"],
                "annotator_ids": dup["annotator"]}
    elif kind == "reordered-pred":
        args["y_pred"] = args["y_pred"].iloc[::-1]
    elif kind == "short-pred":
        args["y_pred"] = args["y_pred"].iloc[:-1]
    elif kind == "text-labels":
        args["y_true"] = args["y_true"].map({0.0: "no", 1.0: "yes"})
    return args


def _figures(res) -> tuple:
    return (res.unfairness, res.performance, tuple(res.annotator_performance.round(12).fillna(-1).items()))


def _same(a: tuple, b: tuple) -> bool:
    return all((x == y) or (isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y))
               for x, y in zip(a, b, strict=True))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(df=annotations(),
       kind=st.sampled_from(["series", "arrays", "shuffled", "ids-as-text", "nan-label", "inf-label", "nan-pred",
                             "missing-id", "duplicated-row", "reordered-pred", "short-pred", "text-labels"]),
       row=st.integers(0, 1000))
@pytest.mark.slow
def test_functional_face_clear_error_or_clean_result(df, kind, row):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clean = _figures(skm.opinion_exclusion(df["label"].to_numpy(), df["pred"].to_numpy(),
                                               item_ids=df["item"].to_numpy(),
                                               annotator_ids=df["annotator"].to_numpy(), bins=2))
        try:
            got = _figures(skm.opinion_exclusion(**_corrupt(df, kind, row), bins=2))
        except CLEAR:
            assert kind not in ("series", "arrays", "shuffled", "ids-as-text")  # these change nothing
            return
    assert _same(got, clean), kind


@st.composite
def dataset_frames(draw) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A clean annotation frame, and the same frame with cells replaced by awkward values."""
    df = draw(annotations())[["item", "annotator", "label"]]
    bad = df.astype(object).copy()
    awkward = st.sampled_from([None, np.nan, np.inf, -1e308, "", "007", "=1+1", "\x1b[2J", 2, "1", True, [1]])
    for _ in range(draw(st.integers(1, 3))):
        r = draw(st.integers(0, len(df) - 1))
        c = draw(st.sampled_from(["item", "annotator", "label"]))
        bad.iat[r, bad.columns.get_loc(c)] = draw(awkward)
    return df, bad


@settings(max_examples=60, deadline=None)
@given(frames=dataset_frames())
@pytest.mark.slow
def test_dataset_class_clear_error_or_a_dataset(frames):
    clean, bad = frames
    try:
        ds = MultiAnnotatorDataset(bad)
    except CLEAR:
        return
    # accepted: every row kept, labels 0/1 (a label cell equal to a label, e.g. True == 1, is that label)
    assert len(ds.labels) == len(clean)
    assert set(np.unique(ds.labels)) <= {0.0, 1.0}


@st.composite
def feature_tables(draw) -> pd.DataFrame:
    n = 24
    x = np.arange(n, dtype=float) % 4
    for _ in range(draw(st.integers(0, 2))):
        x[draw(st.integers(0, n - 1))] = draw(st.sampled_from([np.inf, -np.inf, 1e308, -1e308, np.nan, 1e300]))
    return pd.DataFrame({"g": np.array(["u", "v", "w"], dtype=object)[np.arange(n) % 3], "x": x})


@settings(max_examples=25, deadline=None)
@given(X=feature_tables(), clustering=st.sampled_from(["xmeans", "kmeans", "slink"]))
@pytest.mark.slow
def test_subgroup_discovery_clear_error_or_result(X, clustering):
    from aif360_subjective.detectors import detect_subgroups

    n = len(X)
    y, yp = np.arange(n) % 2, (np.arange(n) // 2) % 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            rep = detect_subgroups(X, y, yp, clustering=clustering, random_state=0)
        except CLEAR:
            assert not np.isfinite(X["x"].to_numpy()).all() or np.ptp(X["x"].to_numpy()) > 1e307
            return
    assert rep.n_clusters >= 1


CELLS = st.sampled_from(["a", "b", "007", "7", "", "=SUM(A1)", "+1", "-2", "@x", "\x1b[31m", "x,y", '"q"', "NA",
                         " 1", "1.0"])


@pytest.fixture(scope="module")
def cli_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz_cli")


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cells=st.lists(st.tuples(CELLS, CELLS, CELLS), min_size=2, max_size=8))
def test_crowdtruth_command_exit_0_or_one_line_exit_2(cells, cli_dir, capsys):
    path = cli_dir / "ann.csv"
    pd.DataFrame(cells, columns=["unit", "worker", "label"]).to_csv(path, index=False)
    out = cli_dir / "out"
    try:
        code = main(["crowdtruth", str(path), "--unit-col", "unit", "--worker-col", "worker", "--label-col", "label",
                     "--out", str(out)])
    except SystemExit as exc:
        code = exc.code
    stdout, err = capsys.readouterr()
    assert code in (0, 2), err
    assert "\x1b" not in stdout and "\x1b" not in err
    if code == 2:
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
        return
    for name in ("units", "workers", "annotations"):
        for line in (out / f"{name}.csv").read_text().splitlines()[1:]:
            assert not line.startswith(("=", "+", "-", "@", "\t", "\r")), line


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(x=st.lists(st.sampled_from(["1", "2", "3", "inf", "-inf", "1e308", "-1e308", "", "nan", "x"]), min_size=12,
                  max_size=12),
       labels=st.lists(st.sampled_from(["0", "1", ""]), min_size=12, max_size=12))
def test_subgroups_command_exit_0_or_one_line_exit_2(x, labels, cli_dir, capsys):
    path = cli_dir / "sg.csv"
    g = ["u", "v", "w"] * 4
    pred = [str(i % 2) for i in range(12)]
    lines = ["g,x,label,pred"] + [f"{a},{b},{c},{d}" for a, b, c, d in zip(g, x, labels, pred, strict=True)]
    path.write_text("\n".join(lines) + "\n")
    try:
        code = main(["subgroups", str(path), "--label-col", "label", "--prediction-col", "pred", "--clustering",
                     "xmeans", "--alpha", "none"])
    except SystemExit as exc:
        code = exc.code
    _, err = capsys.readouterr()
    assert code in (0, 2), err
    if code == 2:
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    else:  # accepted: every truth label present, every feature a finite number or a category
        assert "" not in labels


LABEL_CELLS = st.sampled_from(["0", "1", 0, 1, "", None, "2", "x", 1.5, [1], {"a": 1}, True])
META_CELLS = st.sampled_from([20, 35.5, "41", "", None, float("inf"), -1e308, "x", [1], "DATA_EXPIRED"])


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(labels=st.lists(LABEL_CELLS, min_size=4, max_size=4), ages=st.lists(META_CELLS, min_size=3, max_size=3))
def test_lewidi_loader_clear_error_or_a_dataset(labels, ages, cli_dir):
    import json

    from aif360_subjective.datasets import LeWiDiDataset

    folder = cli_dir / "lewidi"
    folder.mkdir(exist_ok=True)
    items = {
        "1": {"text": {"post": "a"}, "annotators": "Ann0,Ann1", "annotations": {"Ann0": labels[0], "Ann1": labels[1]}},
        "2": {"text": {"post": "b"}, "annotators": "Ann1,Ann2", "annotations": {"Ann1": labels[2], "Ann2": labels[3]}},
    }
    (folder / "FZ_dev.json").write_text(json.dumps(items))
    (folder / "FZ_annotators_meta.json").write_text(json.dumps({str(i): {"Age": a} for i, a in enumerate(ages)}))
    try:
        ds = LeWiDiDataset(folder)
    except CLEAR:
        return
    assert len(ds.labels) == 4 and set(np.unique(ds.labels)) <= {0.0, 1.0}
    age = ds.annotators["Age"]
    if pd.api.types.is_numeric_dtype(age):
        assert not np.isinf(age.to_numpy(dtype=float)).any()
