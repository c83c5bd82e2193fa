"""Progress of the long computations (``aif360_subjective._progress``): the reporters, the levels of the mining and
the batches of the max-T reported, the same findings with progress on and off, and the command line's flags."""

from __future__ import annotations

import pickle
import re
import sys

import numpy as np
import pandas as pd
import pytest

from aif360_subjective import _progress as progress
from aif360_subjective.detectors import detect_subgroups

B = 60  # two batches of 25 and 10 (BATCH = 50 ...): the count at the end is B
ELAPSED = re.compile(r" \[\d+\.\d s\]$")


@pytest.fixture(scope="module")
def table():
    rng = np.random.default_rng(3)
    n = 400
    X = pd.DataFrame({"a": rng.choice(["x", "y", "z"], n), "b": rng.choice(["p", "q"], n), "c": rng.normal(size=n)})
    return X, rng.integers(0, 2, n), rng.integers(0, 2, n)


@pytest.fixture
def no_tqdm(monkeypatch):
    """tqdm not installed: its import fails."""
    for name in [m for m in sys.modules if m == "tqdm" or m.startswith("tqdm.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)


def _lines(err: str) -> list[str]:
    return [ELAPSED.sub("", line) for line in err.splitlines()]


# ------------------------------------------------------------------------------------------------ the reporters
def test_reporter_for_chooses_tqdm_or_the_plain_lines(no_tqdm):
    assert progress.reporter_for(False) is progress.NO_PROGRESS
    assert progress.reporter_for(np.bool_(False)) is progress.NO_PROGRESS
    assert isinstance(progress.reporter_for(True), progress.PlainReporter)


def test_reporter_for_tqdm_when_it_imports():
    pytest.importorskip("tqdm")
    assert isinstance(progress.reporter_for(True), progress.TqdmReporter)


@pytest.mark.parametrize("bad", ["yes", 1, None, b"bytes"])
def test_a_progress_other_than_true_or_false_is_refused_by_name(bad):
    with pytest.raises(TypeError, match=r"progress must be True or False, got"):
        progress.reporter_for(bad)


def test_the_plain_lines_count_each_step_and_end_with_the_last_state(capsys):
    with progress.reporting(progress.PlainReporter(interval=0)):
        count = [10]
        for _ in progress.tracked(range(2), "mining", 3, "levels", initial=1, note=lambda: f"{count[0]} patterns"):
            count[0] += 5
    assert _lines(capsys.readouterr().err) == ["mining: 0/3 levels", "mining: 1/3 levels, 10 patterns",
                                               "mining: 2/3 levels, 15 patterns", "mining: 3/3 levels, 20 patterns"]


def test_the_plain_lines_are_throttled_but_say_the_end(capsys):
    with progress.reporting(progress.PlainReporter(interval=3600)):
        for _ in progress.tracked([np.zeros((2, 50)), np.zeros((2, 10))], "max-T", 60, "permutations",
                                  lambda a: a.shape[1]):
            pass
    assert _lines(capsys.readouterr().err) == ["max-T: 0/60 permutations", "max-T: 60/60 permutations"]


def test_without_a_reporter_nothing_is_written(capsys):
    assert progress.current() is progress.NO_PROGRESS
    assert list(progress.tracked(range(3), "x", 3, "steps")) == [0, 1, 2]
    assert capsys.readouterr().err == ""


def test_an_early_stop_closes_the_stage(capsys):
    with progress.reporting(progress.PlainReporter(interval=3600)):
        for i in progress.tracked(range(5), "levels", 5, "levels"):
            if i == 2:
                break
    # the generator is closed when the loop drops it: its stage's last state is written
    assert _lines(capsys.readouterr().err) == ["levels: 0/5 levels", "levels: 2/5 levels"]


# ------------------------------------------------------------------------------------------------ the analysis
def _mined_total(rep):
    mined = rep.candidates.family("pattern")
    return len(mined.patterns) + mined.n_identical  # the miner's running count: before identical sets merge


def test_detect_subgroups_reports_each_level_and_each_batch_in_plain_lines(capsys, table, no_tqdm, monkeypatch):
    monkeypatch.setattr(progress, "PLAIN_INTERVAL", 0.0)  # a line per update
    X, t, p = table
    rep = detect_subgroups(X, t, p, discovery="patterns", n_permutations=B, random_state=0, progress=True)
    mining = _lines(capsys.readouterr().err)
    assert len(mining) == 4 and mining[0] == "pattern mining: 0/3 levels"
    counts = [int(re.fullmatch(rf"pattern mining: {k}/3 levels, ([\d,]+) patterns", line)[1].replace(",", ""))
              for k, line in enumerate(mining[1:], 1)]
    mined = rep.candidates.family("pattern")
    assert counts[0] == int((np.asarray(mined.items.matrix.sum(axis=0)).ravel() >= mined.min_support).sum())
    assert counts[0] < counts[1] < counts[2] == _mined_total(rep)
    rep.findings()  # the max-T runs when a question first needs it, under the report's reporter
    assert _lines(capsys.readouterr().err) == ["max-T permutations: 0/60 permutations",
                                               "max-T permutations: 50/60 permutations",
                                               "max-T permutations: 60/60 permutations"]
    rep.findings()  # cached: nothing runs, nothing is written
    assert capsys.readouterr().err == ""


def test_the_plain_lines_of_a_quick_run_are_its_start_and_end(capsys, table, no_tqdm, monkeypatch):
    monkeypatch.setattr(progress, "PLAIN_INTERVAL", 3600.0)
    X, t, p = table
    detect_subgroups(X, t, p, discovery="patterns", n_permutations=B, random_state=0, progress=True).findings()
    lines = _lines(capsys.readouterr().err)
    assert len(lines) == 4 and lines[0] == "pattern mining: 0/3 levels" and lines[1].startswith("pattern mining: 3/3")
    assert lines[2:] == ["max-T permutations: 0/60 permutations", "max-T permutations: 60/60 permutations"]


def test_detect_subgroups_reports_with_tqdm(capsys, table):
    pytest.importorskip("tqdm")
    X, t, p = table
    rep = detect_subgroups(X, t, p, n_clusters=3, n_permutations=B, random_state=0, progress=True)
    rep.findings()
    err = capsys.readouterr().err
    assert "pattern mining: 100%" in err and "3/3 levels [" in err and f"{_mined_total(rep):,} patterns" in err
    assert "max-T permutations: 100%" in err and f"{B}/{B} permutations" in err


def test_findings_p_values_and_the_random_stream_are_the_same_with_progress_on_and_off(capsys, table):
    X, t, p = table
    runs = []
    for on in (False, True):
        rng = np.random.default_rng(11)
        rep = detect_subgroups(X, t, p, n_clusters=3, n_permutations=B, random_state=rng, progress=on)
        runs.append((rep.findings(), rep.significance.max_t().p_adjusted, rng.random()))
    pd.testing.assert_frame_equal(runs[0][0], runs[1][0])
    np.testing.assert_array_equal(runs[0][1], runs[1][1])
    assert runs[0][2] == runs[1][2]  # the caller's generator consumed exactly as far
    # the report keeps its reporter, which holds no stream: a report with progress pickles
    assert isinstance(pickle.loads(pickle.dumps(rep)).significance.reporter, type(progress.reporter_for(True)))
    assert capsys.readouterr().err.count("max-T permutations") >= 1


def test_a_task_other_than_binary_reports_its_permutations(capsys, table, no_tqdm):
    X, _, _ = table
    y = np.arange(len(X), dtype=float) % 7
    rep = detect_subgroups(X, y, y + (X["a"] == "x").to_numpy(), task="regression", discovery="patterns",
                           n_permutations=B, random_state=0, progress=True)
    rep.findings()
    assert "max-T permutations: 60/60 permutations" in _lines(capsys.readouterr().err)


def test_the_validated_clusterings_report_their_models(capsys, table, no_tqdm):
    X, t, p = table
    rep = detect_subgroups(X, t, p, discovery="asdf", n_clusters=3, clusterings="validated", n_permutations=B,
                           random_state=0, progress=True)
    n_models = int((rep.cluster_validation()["source"] == "validated").sum())
    assert n_models >= 2
    lines = _lines(capsys.readouterr().err)
    assert lines[0] == f"clustering models: 0/{n_models} models"
    assert lines[-1] == f"clustering models: {n_models}/{n_models} models"


def test_a_report_without_progress_writes_nothing(capsys, table):
    X, t, p = table
    detect_subgroups(X, t, p, discovery="patterns", n_permutations=B, random_state=0).findings()
    assert capsys.readouterr().err == ""


def test_detect_subgroups_refuses_a_bad_progress_by_name(table):
    X, t, p = table
    with pytest.raises(TypeError, match=r"^progress must be True or False, got 'yes'$"):
        detect_subgroups(X, t, p, progress="yes")


def test_the_dask_path_reports_its_levels_and_permutations(capsys, table, no_tqdm):
    dd = pytest.importorskip("dask.dataframe")
    import dask

    X, t, p = table
    frame = X.assign(t=t, p=p)
    ddf = dd.from_pandas(frame, npartitions=2, sort=False)
    with dask.config.set(scheduler="sync"):
        rep = detect_subgroups(ddf[["a", "b", "c"]], ddf["t"], ddf["p"], discovery="patterns", n_permutations=B,
                               random_state=0, progress=True)
        rep.findings()
    lines = _lines(capsys.readouterr().err)
    assert "pattern mining: 0/3 levels" in lines and lines.count("max-T permutations: 60/60 permutations") == 1
    assert any(re.fullmatch(r"pattern mining: 3/3 levels, [\d,]+ patterns", line) for line in lines)


def test_crowdtruth_scores_refuses_a_bad_progress_by_name():
    from aif360_subjective.quality import crowdtruth_scores

    crowd = pd.DataFrame({"unit": ["u1", "u1"], "worker": ["w1", "w2"], "label": ["a", "b"]})
    with pytest.raises(TypeError, match="progress must be True or False"):
        crowdtruth_scores(crowd, progress="yes")


# ------------------------------------------------------------------------------------------------ the command line
@pytest.fixture
def csv(tmp_path, table):
    X, t, p = table
    path = tmp_path / "t.csv"
    X.assign(y=t, pred=p).to_csv(path, index=False)
    return str(path)


def _subgroups(capsys, csv, *flags):
    from aif360_subjective.cli import main

    code = main(["subgroups", csv, "--label-col", "y", "--prediction-col", "pred", "--discovery", "patterns",
                 "--favorable-label", "1", *flags])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out, err


def test_the_command_line_shows_progress_when_asked_and_not_otherwise(capsys, csv, monkeypatch):
    pytest.importorskip("tqdm")
    out_on, err = _subgroups(capsys, csv, "--progress")
    assert "pattern mining" in err and "max-T permutations" in err and "subgroup discovery" in err
    out_off, err = _subgroups(capsys, csv)  # stderr is not a terminal here
    assert err == ""
    assert out_on == out_off
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert "max-T permutations" in _subgroups(capsys, csv)[1]  # a terminal: shown
    assert _subgroups(capsys, csv, "--no-progress")[1] == ""
    monkeypatch.setenv("AIF360_SUBJECTIVE_NO_PROGRESS", "1")
    assert _subgroups(capsys, csv)[1] == ""
