"""The input contract's right answers (the refusals are rows of tests/test_contract_bad_input.py).

Ids are text as written, the faces pair Series the same way, outputs are written whole or not at all, data is
shown as text (figures, console, CSV cells), and a single group says its unfairness is 0 by construction.
"""

from __future__ import annotations

import os
import re
import warnings

import numpy as np
import pandas as pd
import pytest

from aif360_subjective import _io
from aif360_subjective.cli import main
from aif360_subjective.datasets import MultiAnnotatorDataset
from aif360_subjective.sklearn import metrics as skm


def _annotations() -> pd.DataFrame:
    """6 items x 3 annotators, labels and predictions chosen so that the groups differ."""
    return pd.DataFrame({
        "item": np.repeat(np.arange(6), 3),
        "annotator": np.tile(["a", "b", "c"], 6),
        "label": [1, 1, 0, 1, 1, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0],
        "pred": [1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0],
    })


def _run(argv, capsys):
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


# --------------------------------------------------------------------------------------------- ids as written
def test_numeric_looking_ids_stay_distinct_on_the_command_line(tmp_path, capsys):
    # annotators "007" and "7", items "01" and "1": four different ids, as written
    (tmp_path / "a.csv").write_text("item,annotator,label,pred\n01,007,0,0\n01,7,1,0\n1,007,1,1\n1,7,1,1\n"
                                    "2,007,0,0\n2,7,0,1\n")
    code, out, err = _run(["crowdtruth", tmp_path / "a.csv", "--unit-col", "item", "--worker-col", "annotator",
                           "--label-col", "label", "--out", tmp_path / "ct"], capsys)
    assert code == 0, err
    workers = pd.read_csv(tmp_path / "ct" / "workers.csv", dtype={"annotator": str})
    units = pd.read_csv(tmp_path / "ct" / "units.csv", dtype={"item": str})
    assert sorted(workers["annotator"]) == ["007", "7"]
    assert sorted(units["item"]) == ["01", "1", "2"]
    code, out, err = _run(["audit", tmp_path / "a.csv", "--item-col", "item", "--annotator-col", "annotator",
                           "--label-col", "label", "--prediction-col", "pred", "--ci", "none", "--out",
                           tmp_path / "r.html"], capsys)
    assert code == 0, err
    assert "6 annotations of 3 items by 2 annotators" in (tmp_path / "r.html").read_text(encoding="utf-8")


def test_predictions_file_ids_are_matched_as_written(tmp_path, capsys):
    (tmp_path / "a.csv").write_text("item,annotator,label\n007,a,0\n007,b,1\n7,a,1\n7,b,1\n")
    # the prediction of item "7" is 1, of item "007" is 0: read as numbers both would be item 7
    (tmp_path / "p.csv").write_text("item,prediction\n007,0\n7,1\n")
    code, out, err = _run(["audit", tmp_path / "a.csv", "--item-col", "item", "--annotator-col", "annotator",
                           "--label-col", "label", "--predictions", tmp_path / "p.csv", "--ci", "none",
                           "--bins", "1"], capsys)
    assert code == 0, err
    assert "without a prediction" not in out and "match no annotation" not in out
    # accuracy: item 007 (labels 0, 1) predicted 0 -> 1 of 2; item 7 (labels 1, 1) predicted 1 -> 2 of 2
    assert re.search(r"\n\S+\s+0\.000\s+0\.750\n", out), out  # one group: unfairness 0, performance 0.75


# --------------------------------------------------------------------------------------------- pairing
def test_series_with_the_same_index_in_any_order_give_the_array_result():
    df = _annotations().sample(frac=1.0, random_state=0)  # shuffled rows, shared index
    ref = skm.opinion_exclusion(df["label"].to_numpy(), df["pred"].to_numpy(), item_ids=df["item"].to_numpy(),
                                annotator_ids=df["annotator"].to_numpy(), bins=2)
    res = skm.opinion_exclusion(df["label"], df["pred"], item_ids=df["item"], annotator_ids=df["annotator"], bins=2)
    assert res.unfairness == ref.unfairness and res.performance == ref.performance


def test_duplicate_pairs_same_message_on_every_face():
    dask = pytest.importorskip("dask")
    import dask.dataframe as dd

    df = pd.concat([_annotations(), _annotations().iloc[[4]]], ignore_index=True)
    with pytest.raises(ValueError) as cls_err:
        MultiAnnotatorDataset(df[["item", "annotator", "label"]])
    with pytest.raises(ValueError) as fn_err:
        skm.opinion_exclusion(df["label"], df["pred"], item_ids=df["item"], annotator_ids=df["annotator"])
    ddf = dd.from_pandas(df, npartitions=2)
    with dask.config.set(scheduler="sync"), pytest.raises(ValueError) as dask_err:
        skm.opinion_exclusion(ddf["label"], ddf["pred"], item_ids=ddf["item"], annotator_ids=ddf["annotator"])
    expected = "1 duplicate (item, annotator) pair(s), e.g. item=1, annotator='b' (row 18); keep one label per " \
               "annotator and item"
    assert str(cls_err.value) == str(fn_err.value) == str(dask_err.value) == expected


def test_dask_columns_of_one_file_read_once_equal_pandas(tmp_path):
    dask = pytest.importorskip("dask")
    import dask.dataframe as dd

    df = pd.concat([_annotations().assign(item=_annotations()["item"] + 10 * k) for k in range(20)],
                   ignore_index=True)
    df.to_csv(tmp_path / "a.csv", index=False)
    ref = skm.opinion_unfairness(df["label"], df["pred"], item_ids=df["item"], annotator_ids=df["annotator"], bins=2)
    with dask.config.set(scheduler="sync"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        one = dd.read_csv(tmp_path / "a.csv", blocksize=500)
        got = skm.opinion_unfairness(one["label"], one["pred"], item_ids=one["item"], annotator_ids=one["annotator"],
                                     bins=2)
        assert got == ref
        other = dd.read_csv(tmp_path / "a.csv", blocksize=900)
        assert other.npartitions != one.npartitions
        with pytest.raises(ValueError, match="come from different Dask collections"):
            skm.opinion_unfairness(one["label"], other["pred"], item_ids=one["item"],
                                   annotator_ids=one["annotator"], bins=2)


# --------------------------------------------------------------------------------------------- single group
def test_a_single_group_says_its_unfairness_is_zero_by_construction():
    df = _annotations()
    with pytest.warns(UserWarning, match=r"only one group .* is 0 by construction, not a finding"):
        res = skm.opinion_exclusion(df["label"], df["pred"], item_ids=df["item"], annotator_ids=df["annotator"],
                                    bins=1)
    assert res.unfairness == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        try:
            skm.opinion_exclusion(df["label"], df["pred"], item_ids=df["item"], annotator_ids=df["annotator"],
                                  bins=2, warn_group_size=0)
        except UserWarning as w:  # pragma: no cover - the test's failure message
            pytest.fail(f"warned with two groups: {w}")


def test_single_group_note_on_the_console_and_in_the_report(tmp_path, capsys):
    _annotations().to_csv(tmp_path / "a.csv", index=False)
    code, out, err = _run(["audit", tmp_path / "a.csv", "--item-col", "item", "--annotator-col", "annotator",
                           "--label-col", "label", "--prediction-col", "pred", "--bins", "1", "--ci", "none",
                           "--out", tmp_path / "r.html"], capsys)
    assert code == 0, err
    assert "is 0 by construction" in out
    assert "is 0 by construction" in (tmp_path / "r.html").read_text(encoding="utf-8")


# --------------------------------------------------------------------------------------------- atomic writes
def test_a_failed_set_of_files_leaves_the_earlier_files(tmp_path, monkeypatch):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("old a")
    real_replace = os.replace
    calls = []

    def replace_then_fail(src, dst):
        calls.append(dst)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", replace_then_fail)
    with pytest.raises(_io.OutputError, match=r"cannot write .*a\.csv: No space left on device; no output file"):
        _io.write_files({a: "new a", b: "new b"})
    monkeypatch.setattr(os, "replace", real_replace)
    assert a.read_text() == "old a" and not b.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv"]  # no temporary file left


def test_an_interrupted_write_leaves_nothing(tmp_path, monkeypatch):
    out = tmp_path / "new" / "folder"
    real_fdopen = os.fdopen
    n = [0]

    def fdopen_interrupted(fd, *args, **kwargs):
        n[0] += 1
        if n[0] == 2:  # Ctrl-C while the second file is written
            os.close(fd)
            raise KeyboardInterrupt
        return real_fdopen(fd, *args, **kwargs)

    monkeypatch.setattr(os, "fdopen", fdopen_interrupted)
    with pytest.raises(KeyboardInterrupt):
        _io.write_files({out / "units.csv": "u", out / "workers.csv": "w", out / "annotations.csv": "a"})
    assert not (tmp_path / "new").exists()  # the folders it created are gone too


def test_ctrl_c_exits_130_with_one_line_and_no_output(tmp_path, capsys, monkeypatch):
    _annotations().to_csv(tmp_path / "a.csv", index=False)
    from aif360_subjective import quality

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(quality, "crowdtruth_scores", interrupted)
    code, out, err = _run(["crowdtruth", tmp_path / "a.csv", "--unit-col", "item", "--worker-col", "annotator",
                           "--label-col", "label", "--out", tmp_path / "ct"], capsys)
    assert code == 130
    assert err.strip().splitlines() == ["aif360-subjective crowdtruth: interrupted; no output was written"]
    assert not (tmp_path / "ct").exists()


def _crowdtruth_written(tmp_path, capsys):
    """A first, complete ``crowdtruth`` run: its arguments, its output folder and the files it wrote."""
    _annotations().to_csv(tmp_path / "a.csv", index=False)
    out = tmp_path / "ct"
    args = ["crowdtruth", tmp_path / "a.csv", "--unit-col", "item", "--worker-col", "annotator", "--label-col",
            "label", "--out", out]
    assert _run(args, capsys)[0] == 0
    return args, out, {p.name: p.read_bytes() for p in out.iterdir()}


def test_a_failed_write_on_the_command_line_keeps_the_earlier_files(tmp_path, capsys, monkeypatch):
    args, out, before = _crowdtruth_written(tmp_path, capsys)
    real_fdopen = os.fdopen
    n = [0]

    def full_disk_on_the_third_file(fd, *a, **k):
        n[0] += 1
        if n[0] == 3:
            os.close(fd)
            raise OSError(28, "No space left on device")
        return real_fdopen(fd, *a, **k)

    monkeypatch.setattr(os, "fdopen", full_disk_on_the_third_file)
    code, _, err = _run(args, capsys)
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and "No space left on device" in err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_report_save_is_atomic(tmp_path, monkeypatch):
    from aif360_subjective.report import Report

    path = tmp_path / "r.html"
    path.write_text("earlier report")
    rep = Report("t")
    monkeypatch.setattr(os, "replace", lambda *a: (_ for _ in ()).throw(OSError(28, "No space left on device")))
    with pytest.raises(OSError, match="No space left on device"):
        rep.save(path)
    assert path.read_text() == "earlier report"
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]


# --------------------------------------------------------------------------------------------- text safety
@pytest.mark.parametrize(("cell", "written"), [
    ("=1+1", "'=1+1"), ("+1", "'+1"), ("-a", "'-a"), ("@SUM(A1)", "'@SUM(A1)"), ("\tx", "'\tx"), ("\rx", "'\rx"),
    ("a=1", "a=1"), ("", ""), ("plain", "plain"),
    # issue 33: a text id that is a plain negative number runs nothing and is written as it is
    ("-5", "-5"), ("-0.25", "-0.25"), ("-5+cmd|' /C calc'!A0", "'-5+cmd|' /C calc'!A0"), ("-5e3", "'-5e3"),
])
def test_formula_prefixes_are_quoted(cell, written):
    frame = pd.DataFrame({"name": [cell], "score": [-0.5]}, index=pd.Index([cell], name="id"))
    out = _io.neutralise_formulas(frame)
    assert out["name"].iloc[0] == written and out.index[0] == written
    assert out["score"].iloc[0] == -0.5  # numbers are never changed
    assert frame["name"].iloc[0] == cell  # the input is not changed


def test_crowdtruth_csv_cells_cannot_run_as_formulas(tmp_path, capsys):
    (tmp_path / "a.csv").write_text("unit,worker,label\nu1,=HYPERLINK(1),a\nu1,w2,a\n@u2,w2,-b\n@u2,=HYPERLINK(1),a\n")
    code, _, err = _run(["crowdtruth", tmp_path / "a.csv", "--unit-col", "unit", "--worker-col", "worker",
                         "--label-col", "label", "--out", tmp_path / "ct"], capsys)
    assert code == 0, err
    for name in ("units", "workers", "annotations"):
        text = (tmp_path / "ct" / f"{name}.csv").read_text()
        for line in text.splitlines()[1:]:
            assert not line.startswith(_io.FORMULA_PREFIXES), (name, line)
    assert "'=HYPERLINK(1)" in (tmp_path / "ct" / "workers.csv").read_text()


def test_console_output_escapes_control_characters(tmp_path, capsys):
    df = _annotations()
    df.to_csv(tmp_path / "a.csv", index=False)
    pd.DataFrame({"annotator": ["a", "b", "c"], "group": ["\x1b[31mred\x1b[0m", "\x1b]0;title\x07", "x"]}).to_csv(
        tmp_path / "ann.csv", index=False)
    code, out, err = _run(["audit", tmp_path / "a.csv", "--item-col", "item", "--annotator-col", "annotator",
                           "--label-col", "label", "--prediction-col", "pred", "--annotators", tmp_path / "ann.csv",
                           "--grouping", "demographic", "--ci", "none"], capsys)
    assert code == 0, err
    assert "\x1b" not in out and "\x07" not in out
    assert "\\x1b[31mred\\x1b[0m" in out


def test_figures_draw_dollar_signs_and_commands_as_text():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from aif360_subjective.datasets import make_subjective_dataset
    from aif360_subjective.metrics import OpinionExclusionMetric
    from aif360_subjective.plotting import plot_group_performance

    ds = make_subjective_dataset(n_items=60, n_annotators=12, annotations_per_item=3, random_state=0)
    pred = ds.with_predictions(ds.majority_labels())
    names = ["$0-$25k", "$\\undefinedcmd{x}$"]
    groups = pd.Series([names[i % 2] for i in range(ds.n_annotators)], index=sorted(set(ds.annotator_ids)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = OpinionExclusionMetric(ds, pred, grouping=groups)
    ax = plot_group_performance({"model $x$": m}, ci=None)
    fig = ax.figure
    fig.canvas.draw()  # mathtext would fail on the undefined command, or drop the dollar signs
    shown = [t.get_text() for t in ax.get_xticklabels()]
    assert sorted(shown) == sorted(n.replace("$", "\\$") for n in names)
    plt.close(fig)


# --------------------------------------------------------------------------------------------- finite features
@pytest.mark.parametrize(("values", "match"), [
    ([0.0, np.inf, 1.0], r"column 'v' holds inf at row 1 \(1 infinite"),
    ([-np.inf, 0.0, np.inf], r"column 'v' holds -inf at row 0 \(2 infinite"),
    ([-1e308, 0.0, 1e308], r"column 'v' ranges from -1e\+308 to 1e\+308"),
])
def test_check_finite_features(values, match):
    from aif360_subjective._validation import check_finite_features

    with pytest.raises(ValueError, match=match):
        check_finite_features(pd.DataFrame({"v": values, "s": ["a", "b", "c"]}))


def test_check_finite_features_accepts_wide_but_finite_ranges():
    from aif360_subjective._validation import check_finite_features

    check_finite_features(pd.DataFrame({"v": [-1e307, 1e307, np.nan], "b": [True, False, True]}))


def test_published_format_loaders_keep_ids_as_written(tmp_path):
    from aif360_subjective.datasets import PopquornDataset
    from aif360_subjective.datasets._tabular import _ids_as_written

    head = "instance_id,user_id,text,offensiveness,gender,race,age,occupation,education\n"
    demo = "Woman,White,18-24,Student,College"
    rows = [f"1,007,t1,4,{demo}", f"1,7,t1,1,{demo}", f"2,007,t2,2,{demo}", f"2,7,t2,5,{demo}"]
    (tmp_path / "offensiveness_raw_data.csv").write_text(head + "\n".join(rows) + "\n")
    ds = PopquornDataset(tmp_path / "offensiveness_raw_data.csv")
    assert ds.n_annotators == 2 and sorted(set(ds.annotator_ids)) == ["007", "7"]
    # plainly written integers stay the published integer ids
    assert _ids_as_written(pd.Series(["12", "7"], dtype=str)).tolist() == [12, 7]
    assert _ids_as_written(pd.Series(["12", "12.0"], dtype=str)).tolist() == ["12", "12.0"]


# --------------------------------------------------------------------------------------------- CLI words
@pytest.mark.parametrize(("message", "expected"), [
    ("positive_from=9 must lie in (1, 5]", "--positive-from 9 must lie in (1, 5]"),
    ("n_clusters must be between 2 and the number of rows (30), got 500",
     "--n-clusters must be between 2 and the number of rows (30), got 500"),
    ("grouping='demographic' needs annotator attributes; pass attributes=[...] naming columns",
     "--grouping demographic needs annotator attributes; pass --attributes [...] naming columns"),
    ("bins='a,b' with grouping='adr'", "--bins 'a,b' with --grouping adr"),  # a value a shell needs quoted
    ("1 duplicate (unit, worker) row(s) in columns ('u', 'w'), e.g. ('a', 'b'); pass duplicates='last' or 'union'",
     "1 duplicate (unit, worker) row(s) in columns ('u', 'w'), e.g. ('a', 'b'); keep one row per pair in the file"),
    ("column 'positive_from' is empty", "column 'positive_from' is empty"),  # a quoted column name stays
    ("bins must be a positive number, got 0", "--bins must be a positive number, got 0"),
    ("the bins are edges", "the bins are edges"),  # a plain word is only an option as the subject of "must"
])
def test_library_messages_in_command_line_words(message, expected):
    from aif360_subjective.cli._common import cli_words

    flags = ["--positive-from", "--n-clusters", "--grouping", "--attributes", "--bins"]
    assert cli_words(message, flags) == expected



def _replace_interrupted_at(monkeypatch, call: int):
    """os.replace in aif360_subjective._io raises KeyboardInterrupt at its ``call``-th call (once)."""
    real = os.replace
    n = [0]

    def replace(src, dst):
        n[0] += 1
        if n[0] == call:
            raise KeyboardInterrupt
        return real(src, dst)

    monkeypatch.setattr(_io.os, "replace", replace)


def test_ctrl_c_between_two_renames_puts_the_earlier_files_back(tmp_path, monkeypatch):
    """Issue 33: Ctrl-C between the renames left the first file new and the others old."""
    out = tmp_path / "ct"
    _io.write_files({out / "units.csv": "u0", out / "workers.csv": "w0"})
    _replace_interrupted_at(monkeypatch, 2)  # the first file renamed, the second not
    with pytest.raises(KeyboardInterrupt):
        _io.write_files({out / "units.csv": "u1", out / "workers.csv": "w1", out / "annotations.csv": "a1"})
    assert {p.name: p.read_text() for p in out.iterdir()} == {"units.csv": "u0", "workers.csv": "w0"}
    # a set whose files did not exist before: the renamed one is removed again, with the folder made for it
    monkeypatch.undo()
    _replace_interrupted_at(monkeypatch, 2)
    with pytest.raises(KeyboardInterrupt):
        _io.write_files({tmp_path / "new" / "a.csv": "a", tmp_path / "new" / "b.csv": "b"})
    assert not (tmp_path / "new").exists()


def test_crowdtruth_interrupted_between_renames_says_the_truth(tmp_path, capsys, monkeypatch):
    args, out, before = _crowdtruth_written(tmp_path, capsys)
    _replace_interrupted_at(monkeypatch, 3)  # two of the three files renamed
    code, _, err = _run(args, capsys)
    assert code == 130
    assert err.strip().splitlines() == ["aif360-subjective crowdtruth: interrupted; no output was written"]
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_interrupted_after_the_files_are_written_names_them(tmp_path, capsys, monkeypatch):
    _annotations().to_csv(tmp_path / "a.csv", index=False)
    from aif360_subjective.cli import _common

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(_common, "print_frame", interrupted)  # Ctrl-C while the scores are printed
    out = tmp_path / "ct"
    code, _, err = _run(["crowdtruth", tmp_path / "a.csv", "--unit-col", "item", "--worker-col", "annotator",
                         "--label-col", "label", "--out", out], capsys)
    assert code == 130
    (line,) = err.strip().splitlines()
    assert line.startswith("aif360-subjective crowdtruth: interrupted; output already written: ")
    assert all(str(out / f"{n}.csv") in line for n in ("units", "workers", "annotations"))


def test_sigterm_unwinds_like_ctrl_c(tmp_path, capsys, monkeypatch):
    """Issue 33: SIGTERM killed the command at once (mlpack's child and its temporary folder were orphaned);
    it now unwinds as Ctrl-C does, with its own status 143."""
    import signal

    _annotations().to_csv(tmp_path / "a.csv", index=False)
    from aif360_subjective import quality

    def terminated(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(1000):  # the handler runs at the next bytecode boundary
            pass
        raise AssertionError("SIGTERM did not interrupt")

    monkeypatch.setattr(quality, "crowdtruth_scores", terminated)
    before = signal.getsignal(signal.SIGTERM)
    code, _, err = _run(["crowdtruth", tmp_path / "a.csv", "--unit-col", "item", "--worker-col", "annotator",
                         "--label-col", "label", "--out", tmp_path / "ct"], capsys)
    assert code == 143
    assert err.strip().splitlines() == ["aif360-subjective crowdtruth: terminated; no output was written"]
    assert signal.getsignal(signal.SIGTERM) is before  # the earlier handler is put back


@pytest.mark.slow
def test_dask_labels_from_another_partitioning_equal_pandas():
    # the same rows under another partitioning (known divisions) are realigned: the pandas answer, keyed p-values
    dask = pytest.importorskip("dask")
    import dask.dataframe as dd

    from aif360_subjective.datasets import make_planted_slice
    from aif360_subjective.detectors import detect_subgroups

    b = make_planted_slice(3000, n_categorical=3, n_numeric=1, planted_share=0.1, effect=0.4, random_state=5)
    frame = b.X.assign(t=np.asarray(b.y_true), p=np.asarray(b.y_pred))
    two, three = dd.from_pandas(frame, npartitions=2), dd.from_pandas(frame, npartitions=3)
    with dask.config.set(scheduler="sync"):
        rd = detect_subgroups(two[list(b.X.columns)], two["t"], three["p"], discovery="patterns", random_state=0)
    rp = detect_subgroups(b.X, b.y_true, b.y_pred, discovery="patterns", random_state=0, permutation="keyed")
    pd.testing.assert_frame_equal(rd.findings(), rp.findings())
    assert len(rp.findings()) > 0
