"""Input handling of crowdtruth_scores: bad input, duplicates, label cells, real multiple-choice jobs."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.quality import crowdtruth_scores

ROWS = [("u1", "w1", "a"), ("u1", "w2", "a"), ("u1", "w3", "b"), ("u2", "w1", "a"), ("u2", "w2", "b")]


def _df(rows=ROWS, cols=("unit", "worker", "label")):
    return pd.DataFrame(rows, columns=list(cols))


# --- bad input ------------------------------------------------------------------------------------
def test_not_a_dataframe():
    with pytest.raises(TypeError, match="DataFrame"):
        crowdtruth_scores(ROWS)


def test_missing_columns_are_named():
    with pytest.raises(ValueError, match=r"worker_col='annotator'.*columns \['unit', 'worker', 'label'\]"):
        crowdtruth_scores(_df(), worker_col="annotator")


def test_same_column_twice():
    with pytest.raises(ValueError, match="must differ"):
        crowdtruth_scores(_df(), worker_col="unit")


def test_empty_table():
    with pytest.raises(ValueError, match="empty"):
        crowdtruth_scores(_df([]))


@pytest.mark.parametrize("bad", [np.nan, None, []])
def test_missing_label(bad):
    df = _df()
    df["label"] = df["label"].astype(object)
    df.at[3, "label"] = bad
    with pytest.raises(ValueError, match=r"column 'label' has 1 judgment\(s\) without a label.*3"):
        crowdtruth_scores(df)


def test_missing_label_inside_a_list():
    df = _df([("u1", "w1", ["a", None]), ("u1", "w2", ["a"])])
    with pytest.raises(ValueError, match="without a label"):
        crowdtruth_scores(df)


def test_missing_ids():
    df = _df()
    df.loc[1, "worker"] = None
    with pytest.raises(ValueError, match=r"column 'worker' has 1 missing id"):
        crowdtruth_scores(df)


def test_label_not_in_labels():
    with pytest.raises(ValueError, match=r"column 'label' has 2 label\(s\) not in labels=\['a', 'c'\]: 'b'"):
        crowdtruth_scores(_df(), labels=["a", "c"])


@pytest.mark.parametrize("labels, err", [("ab", TypeError), ([], ValueError), (["a", "a", "b"], ValueError)])
def test_bad_labels(labels, err):
    with pytest.raises(err, match="labels"):
        crowdtruth_scores(_df(), labels=labels)


@pytest.mark.parametrize("value", [0, -0.1, float("nan"), float("inf")])
def test_bad_max_delta(value):
    with pytest.raises(ValueError, match="max_delta"):
        crowdtruth_scores(_df(), max_delta=value)


@pytest.mark.parametrize("value, err", [("0.1", TypeError), (True, TypeError)])
def test_max_delta_type(value, err):
    with pytest.raises(err, match="max_delta"):
        crowdtruth_scores(_df(), max_delta=value)


@pytest.mark.parametrize("value, err", [(0, ValueError), (2.5, TypeError)])
def test_bad_max_iter(value, err):
    with pytest.raises(err, match="max_iter"):
        crowdtruth_scores(_df(), max_iter=value)


# --- duplicates -------------------------------------------------------------------------------------
def test_duplicates_rejected_by_default():
    df = _df([*ROWS, ("u1", "w1", "b")])
    with pytest.raises(ValueError, match=r"1 duplicate \(unit, worker\).*\('u1', 'w1'\).*duplicates='last'"):
        crowdtruth_scores(df)


def test_unknown_duplicates_policy():
    with pytest.raises(ValueError, match="duplicates='first'"):
        crowdtruth_scores(_df(), duplicates="first")


def _same(a, b):
    pd.testing.assert_frame_equal(a.units, b.units)
    pd.testing.assert_frame_equal(a.workers, b.workers)
    pd.testing.assert_frame_equal(a.annotations, b.annotations)


def test_duplicates_last():
    df = _df([("u1", "w1", "b"), *ROWS])  # the earlier ("u1", "w1", "b") row is replaced by "a"
    res = crowdtruth_scores(df, duplicates="last")
    _same(res, crowdtruth_scores(_df()))
    assert res.n_duplicate_rows == 1 and res.n_rows == 6


def test_duplicates_union():
    df = _df([*ROWS, ("u1", "w1", "b"), ("u1", "w1", ["a"])])
    res = crowdtruth_scores(df, duplicates="union")
    rows = [("u1", "w1", ["a", "b"]), *ROWS[1:]]
    _same(res, crowdtruth_scores(_df(rows)))
    assert res.n_duplicate_rows == 2


# --- label cells and ids ---------------------------------------------------------------------------
def test_label_types_give_same_scores():
    base = crowdtruth_scores(_df())
    as_lists = _df([(u, w, [lab]) for u, w, lab in ROWS])
    _same(base, crowdtruth_scores(as_lists))
    as_tuples = _df([(u, w, (lab,)) for u, w, lab in ROWS])
    _same(base, crowdtruth_scores(as_tuples))


def test_integer_labels_and_ids():
    df = pd.DataFrame({"item": [1, 1, 1, 2, 2], "ann": [10, 20, 30, 10, 20], "y": [0, 0, 1, 0, 1]})
    res = crowdtruth_scores(df, unit_col="item", worker_col="ann", label_col="y")
    base = crowdtruth_scores(_df())
    np.testing.assert_array_equal(res.workers["wqs"].to_numpy(), base.workers["wqs"].to_numpy())
    assert list(res.units.columns[:3]) == ["n_workers", "uqs", "uqs_initial"]
    assert "uas_0" in res.units and "uas_1_initial" in res.units
    assert res.units.index.name == "item" and res.workers.index.name == "ann"


def test_labels_order_and_unused_label():
    res = crowdtruth_scores(_df(), labels=["b", "a", "c"])
    assert list(res.annotations.index) == ["b", "a", "c"]
    assert res.annotations.loc["c", "aqs"] == 1e-8
    assert (res.units["uas_c"] == 0).all()
    # An unused label changes nothing else.
    base = crowdtruth_scores(_df())
    np.testing.assert_allclose(res.workers["wqs"], base.workers["wqs"], rtol=1e-12)


def test_result_repr_and_log():
    res = crowdtruth_scores(_df())
    assert "units" in repr(res) and "converged=True" in repr(res)
    assert list(res.log.columns) == ["max_delta", "mean_delta_wqs", "mean_delta_uqs", "mean_delta_aqs"]
    assert res.log.index.name == "iteration" and len(res.log) == res.n_iterations
    assert res.history is None


def test_progress_bar_off_by_default(capsys):
    crowdtruth_scores(_df())
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""


def test_input_not_modified():
    df = _df([("u1", "w1", ["a", "b"]), ("u1", "w2", "a"), ("u1", "w2", "b")])
    before = df.copy(deep=True)
    crowdtruth_scores(df, duplicates="union")
    pd.testing.assert_frame_equal(df, before)


# --- a real multiple-choice job ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def relex_multiple_choice(shared_data):
    d = shared_data / "crowdtruth" / "inputs" / "relex_multiple_choice"
    v = pd.read_csv(d / "input_vectors.csv", dtype=str)
    labels = json.loads((d / "config.json").read_text())["config"]["annotation_vector"]
    v["label"] = v["vector"].map(lambda s: [k for k, c in json.loads(s).items() for _ in range(c)])
    return v[["unit", "worker", "label"]], labels


# Values of the authors' package (crowdtruth 2.1, Metrics.run via benchmarks/_crowdtruth_reference.py).
MC_CLOSED = {
    "iterations": 8,
    "uqs": {"897534786": 0.33898215544003196, "897534787": 0.9565078343494533},
    "uqs_initial": {"897534786": 0.28523569017434125, "897534788": 0.9609475708248735},
    "wqs": {"10959404": 0.9489930886307407, "11598752": 0.8378020251211459},
    "wua": {"13300986": 0.9972675381140953},
    "aqs": {"none": 0.8383718582675681, "place_of_death": 0.0037061132858097648, "title": 1e-08},
    "aqs_initial": {"places_of_residence": 0.6767554479418886, "origin": 0.23717948717948717},
}
MC_OPEN = {
    "iterations": 8,
    "uqs": {"897534786": 0.39088228503396644, "897534788": 0.9712123735425395},
    "wqs": {"10959404": 0.915294964004669, "11598752": 0.7755711633324899},
    "wwa": {"13300986": 0.9174686571865307},
}


def _check_against(res, expected):
    assert res.n_iterations == expected["iterations"]
    for col, values in expected.items():
        if col == "iterations":
            continue
        frames = {"uqs": res.units, "aqs": res.annotations}
        frame = frames.get(col[:3], res.workers)
        for key, value in values.items():
            assert frame.loc[key, col] == pytest.approx(value, abs=1e-9), (col, key)


@pytest.mark.data
def test_relex_multiple_choice_closed(relex_multiple_choice):
    df, labels = relex_multiple_choice
    res = crowdtruth_scores(df, labels=labels)
    _check_against(res, MC_CLOSED)
    _check_ranges(res)


@pytest.mark.data
def test_relex_multiple_choice_open_ended(relex_multiple_choice):
    df, _ = relex_multiple_choice
    res = crowdtruth_scores(df, open_ended=True)
    _check_against(res, MC_OPEN)
    assert (res.annotations["aqs"] == 1).all()
    _check_ranges(res)


def _check_ranges(res):
    tol = 1e-12
    for frame in (res.units, res.workers, res.annotations):
        scores = frame.drop(columns=[c for c in ("n_workers", "n_units") if c in frame]).to_numpy()
        assert (scores >= 0).all() and (scores <= 1 + tol).all()


@pytest.mark.parametrize("open_ended", [False, True])
@pytest.mark.data
def test_relex_multiple_choice_worker_relabelling(relex_multiple_choice, open_ended):
    """Renaming workers (which reorders them internally) leaves every score unchanged."""
    df, labels = relex_multiple_choice
    res = crowdtruth_scores(df, labels=labels, open_ended=open_ended)
    names = {w: f"x{9999 - i}" for i, w in enumerate(sorted(df["worker"].unique()))}
    renamed = df.assign(worker=df["worker"].map(names)).sample(frac=1.0, random_state=1)
    res2 = crowdtruth_scores(renamed, labels=labels, open_ended=open_ended)
    assert res2.n_iterations == res.n_iterations
    back = res2.workers.rename(index={v: k for k, v in names.items()}).reindex(res.workers.index)
    np.testing.assert_allclose(back.to_numpy(float), res.workers.to_numpy(float), atol=1e-12)
    np.testing.assert_allclose(res2.units.to_numpy(float), res.units.to_numpy(float), atol=1e-12)


# --- MultiAnnotatorDataset input -------------------------------------------------------------------
def test_multi_annotator_dataset_input():
    from aif360_subjective.datasets import MultiAnnotatorDataset

    table = _df([(u, w, {"a": 1, "b": 0}[lab]) for u, w, lab in ROWS], cols=("item", "annotator", "label"))
    ds = MultiAnnotatorDataset(table)
    res = crowdtruth_scores(ds)
    base = crowdtruth_scores(_df())
    np.testing.assert_allclose(res.workers["wqs"].to_numpy(), base.workers["wqs"].to_numpy(), rtol=1e-15)
    assert res.units.index.name == "item" and res.workers.index.name == "annotator"
    assert list(res.annotations.index) == [0, 1]  # integral float labels come back as ints
    assert "uas_1" in res.units


def test_multi_annotator_dataset_with_string_labels():
    from aif360_subjective.datasets import MultiAnnotatorDataset

    table = _df(ROWS, cols=("item", "annotator", "label"))
    ds = MultiAnnotatorDataset(table, favorable_label="a", unfavorable_label="b")
    res = crowdtruth_scores(ds)
    base = crowdtruth_scores(_df())
    pd.testing.assert_frame_equal(res.annotations, base.annotations.rename_axis("label"))
    np.testing.assert_allclose(res.workers["wqs"].to_numpy(), base.workers["wqs"].to_numpy(), rtol=1e-15)


def test_progress_bar_when_asked(capsys):
    crowdtruth_scores(_df(), progress=True)
    assert "CrowdTruth" in capsys.readouterr().err


def test_duplicate_pairs_are_shown_as_plain_values():
    from aif360_subjective.quality import crowdtruth_scores

    df = pd.DataFrame({"unit": [17, 17, 17], "worker": [1, 1, 2], "label": ["a", "b", "a"]})
    with pytest.raises(ValueError, match=r"e\.g\. \(17, 1\); pass duplicates") as exc:
        crowdtruth_scores(df, unit_col="unit", worker_col="worker", label_col="label")
    assert "np." not in str(exc.value)
