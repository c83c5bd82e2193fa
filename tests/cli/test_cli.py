"""The ``aif360-subjective`` command: help, one-line errors with status 2, and results equal to the library's."""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.cli import CLIError, build_parser, main
from aif360_subjective.cli._common import require as _require
from aif360_subjective.datasets import make_subjective_dataset

REPO = Path(__file__).resolve().parents[2]


def _needs(module: str, name: str):
    """The piece ``aif360_subjective.<module>.<name>``; skip (fail under CI) when it is not there yet."""
    try:
        return getattr(importlib.import_module(f"aif360_subjective.{module}"), name)
    except (ImportError, AttributeError):
        msg = f"aif360_subjective.{module}.{name} is not available"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(msg)
        pytest.skip(msg)


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _one_line_error(capsys, *argv, match: str) -> str:
    code, out, err = _run(capsys, *argv)
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert match in lines[0], lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def small():
    return make_subjective_dataset(n_items=120, n_annotators=30, annotations_per_item=5, random_state=3)


@pytest.fixture()
def audit_files(tmp_path, small):
    """annotations.csv (with a deterministic prediction column) and annotators.csv."""
    df = pd.DataFrame({"item": small.item_ids, "annotator": small.annotator_ids,
                       "label": small.original_labels().astype(int)})
    rng = np.random.default_rng(0)
    df["pred"] = np.where(rng.random(len(df)) < 0.8, df["label"], 1 - df["label"])
    ann = small.annotators.drop(columns="kind").rename_axis("annotator").reset_index()
    df.to_csv(tmp_path / "annotations.csv", index=False)
    ann.to_csv(tmp_path / "annotators.csv", index=False)
    return tmp_path / "annotations.csv", tmp_path / "annotators.csv", df


AUDIT_COLS = ["--item-col", "item", "--annotator-col", "annotator", "--label-col", "label",
              "--prediction-col", "pred"]


# ----------------------------------------------------------------------------------------------- parser
@pytest.mark.parametrize("command", [[], ["demo"], ["audit"], ["subgroups"], ["crowdtruth"]])
def test_help(capsys, command):
    with pytest.raises(SystemExit) as exc:
        main([*command, "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "usage: aif360-subjective" in out
    if command == ["audit"]:
        assert "--prediction-col" in out and "--annotators" in out and "--bins" in out
    if command == ["subgroups"]:
        assert "--entropy-threshold" in out and "--n-clusters" in out and "--categorical" in out


def test_commands_listed(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for c in ("demo", "audit", "subgroups", "crowdtruth"):
        assert c in out


@pytest.mark.parametrize(("argv", "match"), [
    ([], "required: COMMAND"),
    (["nope"], "invalid choice"),
    (["subgroups", "x.csv", "--label-col", "y", "--prediction-col", "p", "--entropy-threshold", "2"],
     "expected a number in [0, 1]"),
    (["subgroups", "x.csv", "--label-col", "y", "--prediction-col", "p", "--n-clusters", "0"],
     "expected an integer >= 2, got '0'"),  # the library's rule (n_clusters >= 2), from its table
    (["demo", "--bogus"], "unrecognized arguments"),
])
def test_usage_errors_are_one_line(capsys, argv, match):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and match in err[0], err


def test_require_names_the_missing_piece():
    with pytest.raises(CLIError, match=r"aif360_subjective\.metrics\.NoSuchMetric"):
        _require("metrics", "NoSuchMetric")


def test_parser_defaults():
    args = build_parser().parse_args(["demo"])
    assert args.out == "aif360_subjective_demo" and args.seed == 0
    args = build_parser().parse_args(["crowdtruth", "a.csv", "--unit-col", "u", "--worker-col", "w",
                                      "--label-col", "l"])
    assert args.out == "crowdtruth_scores" and args.separator is None


# ----------------------------------------------------------------------------------------------- audit
@pytest.mark.slow
def test_audit_errors(capsys, tmp_path, audit_files):
    _needs("metrics", "OpinionExclusionMetric")
    ann_csv, annotators_csv, _ = audit_files
    # a mistyped path says so before anything else (not that column options are missing)
    _one_line_error(capsys, "audit", "x.csv", match="no such file or folder: x.csv")
    _one_line_error(capsys, "audit", str(ann_csv), match="--item-col, --annotator-col, --label-col are required")
    _one_line_error(capsys, "audit", str(tmp_path / "missing.csv"), *AUDIT_COLS,
                    match=f"no such file or folder: {tmp_path / 'missing.csv'}")
    bad_cols = [*AUDIT_COLS[:-1], "prediction"]
    _one_line_error(capsys, "audit", str(ann_csv), *bad_cols, match="--prediction-col 'prediction' is not a column")
    _one_line_error(capsys, "audit", str(ann_csv), *AUDIT_COLS, "--bins", "a,b", match="--bins 'a,b'")
    _one_line_error(capsys, "audit", str(ann_csv), *AUDIT_COLS, "--favorable-label", "yes",
                    match="--favorable-label 'yes' is not a number")
    _one_line_error(capsys, "audit", str(ann_csv), *AUDIT_COLS, "--favorable-label", "7",
                    match="--favorable-label 7 is not a value")
    _one_line_error(capsys, "audit", str(ann_csv), *AUDIT_COLS, "--annotators", str(tmp_path / "none.csv"),
                    match=f"no such file or folder: {tmp_path / 'none.csv'} (the annotators file)")
    df = pd.read_csv(ann_csv)
    df.loc[3, "pred"] = 5
    df.to_csv(tmp_path / "bad.csv", index=False)
    _one_line_error(capsys, "audit", str(tmp_path / "bad.csv"), *AUDIT_COLS, match="holds 5 at row 3")
    _one_line_error(capsys, "audit", str(ann_csv), *AUDIT_COLS, "--out", str(tmp_path / "no" / "r.html"),
                    match="output folder does not exist")


@pytest.mark.slow
def test_audit_matches_library(capsys, tmp_path, audit_files, small):
    OpinionExclusionMetric = _needs("metrics", "OpinionExclusionMetric")
    ann_csv, annotators_csv, df = audit_files
    out = tmp_path / "audit.html"
    code, stdout, err = _run(capsys, "audit", str(ann_csv), *AUDIT_COLS, "--annotators", str(annotators_csv),
                             "--bins", "4", "--out", str(out))
    assert code == 0, err
    assert err == ""  # no progress bar when stderr is not a terminal
    from aif360_subjective.datasets import MultiAnnotatorDataset

    ds = MultiAnnotatorDataset(df[["item", "annotator", "label"]], favorable_label=1, unfavorable_label=0,
                               annotators=small.annotators.drop(columns="kind"))
    m = OpinionExclusionMetric(ds, ds.with_predictions(df["pred"].to_numpy()), bins=4)
    assert f"{m.unfairness():.3f}" in stdout and f"{m.performance():.3f}" in stdout
    assert "unfairness" in stdout and "performance" in stdout
    html = out.read_text(encoding="utf-8")
    assert "Opinion-exclusion unfairness" in html and "data:image/png;base64," in html


@pytest.mark.slow
def test_audit_adr_fit_cross_matches_library_and_speaks_in_options(capsys, tmp_path, audit_files, small):
    OpinionExclusionMetric = _needs("metrics", "OpinionExclusionMetric")
    ann_csv, annotators_csv, df = audit_files
    html = tmp_path / "cross.html"
    code, stdout, err = _run(capsys, "audit", str(ann_csv), *AUDIT_COLS, "--bins", "4", "--adr-fit", "cross",
                             "--out", str(html))
    assert code == 0, err
    # the report of the command speaks in the command's options too
    page = html.read_text(encoding="utf-8")
    assert "adr_fit" not in page and "--adr-fit cross" in page
    from aif360_subjective.datasets import MultiAnnotatorDataset

    # the command reads ids as text; the cross-fit's halves rank the ids as text, so integer ids give the same
    ids = df[["item", "annotator"]].astype(str)
    ds = MultiAnnotatorDataset(ids.assign(label=df["label"]), favorable_label=1, unfavorable_label=0)
    m = OpinionExclusionMetric(ds, ds.with_predictions(df["pred"].to_numpy()), bins=4, adr_fit="cross")
    assert f"{m.unfairness():.3f}" in stdout
    assert "ADR bins cross-fitted (--adr-fit cross)" in stdout
    stdout = stdout.replace(str(html), "")  # the test's folder is named after the test
    assert "adr_fit" not in stdout and "grouping='" not in stdout  # Python words written as the options
    code, stdout, err = _run(capsys, "audit", str(ann_csv), *AUDIT_COLS, "--bins", "4")
    assert "--adr-fit same" in stdout and "adr_fit" not in stdout
    _one_line_error(capsys, "audit", str(ann_csv), *AUDIT_COLS, "--grouping", "ambiguity", "--adr-fit", "cross",
                    match="--adr-fit cross cross-fits ADR bins and applies to --grouping adr only")


# ----------------------------------------------------------------------------------------------- subgroups
@pytest.mark.slow
def test_subgroups_matches_library(capsys, tmp_path, subgroup_csv):
    detect_subgroups = _needs("detectors", "detect_subgroups")
    path, df = subgroup_csv
    out = tmp_path / "sg.html"
    # the planted subgroup is denied the label 1: make it the favourable one (the default is 0)
    code, stdout, err = _run(capsys, "subgroups", str(path), "--label-col", "y", "--prediction-col", "pred",
                             "--favorable-label", "1", "--n-clusters", "6", "--out", str(out))
    assert code == 0, err
    rep = detect_subgroups(df[["sex", "age", "score"]], df["y"].to_numpy(), df["pred"].to_numpy(), pos_label=1,
                           n_clusters=6, random_state=0)
    top = rep.ranking("statistical_parity", kind="entropy", n=5)
    if len(top):
        assert top["subgroup"].iloc[0] in stdout
    else:
        assert "is significantly disadvantaged by statistical parity at q < 0.05" in stdout
    assert f"{rep.summary().loc['entropy', 'statistical_parity']:.3f}" in stdout
    html = out.read_text(encoding="utf-8")
    for title in ("Subgroup fairness summary", "Subgroup sizes", "Subgroup patterns", "Top-5 rankings"):
        assert title in html
    assert "<details>" in html


def test_subgroups_errors(capsys, tmp_path, subgroup_csv):
    _needs("detectors", "detect_subgroups")
    path, df = subgroup_csv
    base = ["subgroups", str(path), "--label-col", "y", "--prediction-col", "pred"]
    _one_line_error(capsys, "subgroups", str(path), "--label-col", "truth", "--prediction-col", "pred",
                    match="--label-col 'truth' is not a column")
    _one_line_error(capsys, *base, "--favorable-label", "3", match="--favorable-label 3 is not a value")
    _one_line_error(capsys, *base, "--categorical", "nope", match="--categorical 'nope'")
    df.loc[2, "age"] = None
    df.to_csv(tmp_path / "na.csv", index=False)
    _one_line_error(capsys, "subgroups", str(tmp_path / "na.csv"), "--label-col", "y", "--prediction-col", "pred",
                    match="missing values")


# ----------------------------------------------------------------------------------------------- crowdtruth
def test_crowdtruth_matches_library(capsys, tmp_path):
    crowdtruth_scores = _needs("quality", "crowdtruth_scores")
    df = pd.DataFrame({"u": ["a", "a", "a", "b", "b", "b", "c", "c"],
                       "w": ["x", "y", "z", "x", "y", "z", "x", "z"],
                       "l": ["p", "p", "n", "n", "n", "n", "p", "n"]})
    df.to_csv(tmp_path / "j.csv", index=False)
    out = tmp_path / "scores"
    code, stdout, err = _run(capsys, "crowdtruth", str(tmp_path / "j.csv"), "--unit-col", "u", "--worker-col", "w",
                             "--label-col", "l", "--out", str(out))
    assert code == 0, err
    res = crowdtruth_scores(df, unit_col="u", worker_col="w", label_col="l")
    for name in ("units", "workers", "annotations"):
        got = pd.read_csv(out / f"{name}.csv", index_col=0)
        want = getattr(res, name)
        np.testing.assert_allclose(got[want.columns].to_numpy(dtype=float), want.to_numpy(dtype=float), rtol=1e-12)
    assert "3 units, 3 workers, 2 labels" in stdout


def test_crowdtruth_multiple_choice_and_errors(capsys, tmp_path):
    crowdtruth_scores = _needs("quality", "crowdtruth_scores")
    df = pd.DataFrame({"u": [1, 1, 2, 2], "w": ["x", "y", "x", "y"], "l": ["a|b", "a", "b", "b| c"]})
    df.to_csv(tmp_path / "mc.csv", index=False)
    code, _, err = _run(capsys, "crowdtruth", str(tmp_path / "mc.csv"), "--unit-col", "u", "--worker-col", "w",
                        "--label-col", "l", "--separator", "|", "--out", str(tmp_path / "o"))
    assert code == 0, err
    want = crowdtruth_scores(df.assign(l=[["a", "b"], ["a"], ["b"], ["b", "c"]]), unit_col="u", worker_col="w",
                             label_col="l")
    got = pd.read_csv(tmp_path / "o" / "workers.csv", index_col=0)
    np.testing.assert_allclose(got["wqs"].to_numpy(), want.workers["wqs"].to_numpy(), rtol=1e-12)
    _one_line_error(capsys, "crowdtruth", str(tmp_path / "mc.csv"), "--unit-col", "unit", "--worker-col", "w",
                    "--label-col", "l", match="--unit-col 'unit' is not a column")
    (tmp_path / "file").write_text("x")
    _one_line_error(capsys, "crowdtruth", str(tmp_path / "mc.csv"), "--unit-col", "u", "--worker-col", "w",
                    "--label-col", "l", "--out", str(tmp_path / "file"), match="is not a folder")


# ----------------------------------------------------------------------------------------------- demo
@pytest.mark.slow
def test_demo(capsys, tmp_path):
    for module, name in (("algorithms.preprocessing", "CrowdTruthFilter"),
                         ("algorithms.inprocessing", "AnnotatorAwareClassifier"),
                         ("metrics", "OpinionExclusionMetric"), ("detectors", "detect_subgroups")):
        _needs(module, name)
    code, out, err = _run(capsys, "demo", "--out", str(tmp_path / "demo"), "--n-items", "400")
    assert code == 0, err
    assert "unfairness" in out and "performance" in out
    assert "Model 1 (majority vote)" in out and "Model 2 (annotator-aware)" in out
    report = tmp_path / "demo" / "report.html"
    html = report.read_text(encoding="utf-8")
    for title in ("Opinion-exclusion unfairness", "Removed annotators", "Subgroup patterns", "Top-5 rankings"):
        assert title in html
    assert "adr_fit" not in html and "--adr-fit same" in html  # the command's words, not Python's
    pngs = sorted((tmp_path / "demo").glob("figure_*.png"))
    assert len(pngs) >= 4 and all(p.read_bytes().startswith(b"\x89PNG") for p in pngs)
    assert html.count("data:image/png;base64,") == len(pngs)


def test_library_warnings_read_as_plain_notes(capsys, tmp_path):
    """A log warning of the library during a command (here: a tied single-linkage cut) is one ``note:`` line on
    stderr, not ``WARNING:aif360_subjective...``; after the command the logger is as it was."""
    import logging

    path = tmp_path / "grid.csv"
    pd.DataFrame({"a": np.tile([0, 1, 2, 3], 25), "b": np.repeat([0, 1, 2, 3, 4], 20), "y": np.arange(100) % 2,
                  "p": (np.arange(100) // 3) % 2}).to_csv(path, index=False)
    code, out, err = _run(capsys, "subgroups", str(path), "--label-col", "y", "--prediction-col", "p",
                          "--n-clusters", "3", "--categorical", "a", "b")
    assert code == 0, err
    assert "note: the cut into 3 clusters falls inside a tie of merge distances" in err
    assert "WARNING" not in err + out
    log = logging.getLogger("aif360_subjective")
    assert log.propagate and not log.handlers


def test_demo_missing_piece_is_one_line(capsys, tmp_path, monkeypatch):
    import aif360_subjective.cli._common as cli_common

    def missing(module, *names):
        raise CLIError(f"this installation lacks aif360_subjective.{module}.{'/'.join(names)}")

    monkeypatch.setattr(cli_common, "require", missing)
    _one_line_error(capsys, "demo", "--out", str(tmp_path / "d"), match="lacks aif360_subjective.")


# ----------------------------------------------------------------------------------------------- entry point
@pytest.mark.slow
def test_python_m_entry_point(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO), "MPLBACKEND": "Agg"}
    bad = subprocess.run([sys.executable, "-m", "aif360_subjective", "crowdtruth", str(tmp_path / "none.csv"),
                          "--unit-col", "u", "--worker-col", "w", "--label-col", "l"],
                         capture_output=True, text=True, env=env, timeout=300, check=False)
    assert bad.returncode == 2
    assert bad.stderr.strip().splitlines()[-1].endswith(
        f"no such file or folder: {tmp_path / 'none.csv'} (the annotations file)")
    assert len(bad.stderr.strip().splitlines()) == 1, bad.stderr


@pytest.mark.slow
def test_subgroups_significance_options(subgroup_csv, capsys):
    from aif360_subjective.detectors import detect_subgroups

    path, df = subgroup_csv
    rep = detect_subgroups(df[["sex", "age", "score"]], df["y"].to_numpy(), df["pred"].to_numpy(), pos_label=1,
                           n_clusters=6, random_state=0)
    code, stdout, err = _run(capsys, "subgroups", str(path), "--label-col", "y", "--prediction-col", "pred",
                             "--favorable-label", "1", "--n-clusters", "6", "--alpha", "none", "--min-size", "2")
    assert code == 0, err
    raw = rep.ranking("statistical_parity", kind="entropy", n=5, alpha=None, min_size=2)
    assert "raw values, no significance filter" in stdout and raw["subgroup"].iloc[0] in stdout
    code, stdout, err = _run(capsys, "subgroups", str(path), "--label-col", "y", "--prediction-col", "pred",
                             "--favorable-label", "1", "--n-clusters", "6", "--alpha", "0.01", "--ci", "0.9",
                             "--min-size", "100000")
    assert code == 0, err
    assert ("No entropy-based subgroup is significantly disadvantaged by statistical parity at adjusted p < 0.01"
            in stdout)
    assert "too small" in stdout
    for bad in (["--alpha", "0"], ["--ci", "1"], ["--min-size", "0"]):
        with pytest.raises(SystemExit) as exc:
            main(["subgroups", str(path), "--label-col", "y", "--prediction-col", "pred", *bad])
        assert exc.value.code == 2 and bad[0] in capsys.readouterr().err


# ----------------------------------------------------------------------------------------------- uncertainty
@pytest.mark.slow
def test_audit_intervals_and_thin_groups(capsys, tmp_path, audit_files, small):
    """Intervals next to unfairness and performance (the library's, seeded by --seed), one clean line naming the
    thin groups, no Python warning text; --ci none gives the paper's raw figures."""
    import warnings

    from aif360_subjective.datasets import MultiAnnotatorDataset
    from aif360_subjective.metrics import OpinionExclusionMetric

    ann_csv, annotators_csv, df = audit_files
    out = tmp_path / "audit.html"
    code, stdout, err = _run(capsys, "audit", str(ann_csv), *AUDIT_COLS, "--bins", "4", "--n-boot", "200",
                             "--seed", "5", "--out", str(out))
    assert code == 0, err
    # the command reads ids as text, as written (item 10 sorts before item 2): the same here
    ds = MultiAnnotatorDataset(df[["item", "annotator", "label"]].astype({"item": str}), favorable_label=1,
                               unfavorable_label=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        m = OpinionExclusionMetric(ds, ds.with_predictions(df["pred"].to_numpy()), bins=4)
    u = m.unfairness_ci(ci=0.95, n_boot=200, random_state=5)
    p = m.performance_ci(ci=0.95, n_boot=200, random_state=5)
    assert f"{m.unfairness():.3f} [{u[0]:.3f}, {u[1]:.3f}]" in stdout
    assert f"{m.performance():.3f} [{p[0]:.3f}, {p[1]:.3f}]" in stdout
    assert "95% intervals. Unfairness: the one-way ANOVA test inverted" in stdout
    assert "bootstrap (200 replicates, seed 5" in stdout
    # the verdict is the answer's second line (the test of equal service, in its own words)
    from aif360_subjective.cli import _common
    from aif360_subjective.cli.audit import CONSOLE_FLAGS

    verdict = _common.cli_words(m.verdict(ci=0.95, n_boot=200, random_state=5), CONSOLE_FLAGS)  # options as flags
    assert f"Test of equal service: {verdict}." in stdout
    thin = m.thin_groups()
    assert len(thin)  # this small data has groups of one or two annotators
    lines = [ln for ln in stdout.splitlines() if ln.startswith("Thin groups: ")]
    assert len(lines) == 1 and f"{len(thin)} of {len(m.group_performance())} groups" in lines[0]
    assert "UserWarning" not in stdout + err and "Their values rest on few people: read" not in stdout + err
    html = out.read_text(encoding="utf-8")
    assert f"{m.unfairness():.3f} [{u[0]:.3f}, {u[1]:.3f}]" in html and "ci_low" in html

    code, stdout, err = _run(capsys, "audit", str(ann_csv), *AUDIT_COLS, "--bins", "4", "--ci", "none",
                             "--warn-group-size", "0")
    assert code == 0, err
    assert f"{m.unfairness():.3f}" in stdout and "[" not in stdout.split("Groups:")[0]
    assert "Thin groups" not in stdout and "bootstrap" not in stdout


@pytest.mark.parametrize("option, value, match", [("--n-boot", "50", "expected an integer from 100 to 100,000"),
                                                  ("--ci", "1.5", "strictly between 0 and 1"),
                                                  ("--warn-group-size", "-1", "expected an integer >= 0")])
def test_audit_interval_options_checked(capsys, audit_files, option, value, match):
    ann_csv, _, _ = audit_files
    code, out, err = _run_parser_error(capsys, "audit", str(ann_csv), *AUDIT_COLS, option, value)
    assert code == 2 and match in err and len(err.strip().splitlines()) == 1


def _run_parser_error(capsys, *argv):
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    out, err = capsys.readouterr()
    return exc.value.code, out, err


@pytest.mark.slow
def test_demo_prints_intervals(capsys, tmp_path):
    code, out, err = _run(capsys, "demo", "--out", str(tmp_path / "demo"), "--n-items", "400")
    assert code == 0, err
    import re

    rows = re.findall(r"Model \d \([^)]*\)\s+(\d\.\d{3}) \[(\d\.\d{3}), (\d\.\d{3})\]\s+(\d\.\d{3}) \[(\d\.\d{3}), "
                      r"(\d\.\d{3})\]", out)
    assert len(rows) == 2
    for est, lo, hi, pest, plo, phi in rows:
        assert float(lo) <= float(est) <= float(hi) and float(plo) <= float(pest) <= float(phi)
    assert "bootstrap (1,000 replicates, seed 0" in out
    assert "UserWarning" not in out + err


@pytest.mark.slow
def test_subgroups_says_when_the_clustering_is_lopsided(capsys, tmp_path):
    """Single linkage chains on a long-tailed column: the console says so and names a clusterer that does not."""
    rng = np.random.default_rng(0)
    n = 3000
    df = pd.DataFrame({"a": rng.choice(["x", "y", "z"], n), "b": rng.normal(size=n), "c": rng.exponential(size=n)})
    df["y"] = rng.integers(0, 2, n)
    df["pred"] = np.where((df["a"] == "x") & (df["b"] > 0), 0, df["y"])
    path = tmp_path / "chain.csv"
    df.to_csv(path, index=False)
    out_html = tmp_path / "chain.html"
    code, out, err = _run(capsys, "subgroups", str(path), "--label-col", "y", "--prediction-col", "pred",
                          "--favorable-label", "1", "--n-clusters", "10", "--out", str(out_html))
    assert code == 0, err
    from aif360_subjective.detectors import detect_subgroups
    from aif360_subjective.report.sections import lopsided_alternatives

    X = df[["a", "b", "c"]]
    rep = detect_subgroups(X, df["y"].to_numpy(), df["pred"].to_numpy(), pos_label=1, n_clusters=10, random_state=0)
    assert f"The clustering (slink, 10 clusters) is lopsided: {rep.lopsided['reason']}." in out
    alt = lopsided_alternatives(rep, X, df["y"].to_numpy(), df["pred"].to_numpy())
    name = alt.attrs["suggestion"][0]
    assert f"Not lopsided at 10 clusters: --clustering {name} (largest cluster" in out
    assert "Suggested instead: " + name in out_html.read_text(encoding="utf-8")


def test_cli_number_types_say_what_they_expect():
    from aif360_subjective.cli import _common as common
    from aif360_subjective.opinion.options import MAX_BOOT, MIN_BOOT

    assert common.MIN_BOOT == MIN_BOOT
    assert common.MAX_BOOT == MAX_BOOT
    assert common.positive_int("3") == 3 and common.nonnegative_int("0") == 0 and common.boot_count("100") == 100
    assert common.unit_float("1") == 1.0 and common.open_unit_float("0.5") == 0.5
    assert common.alpha("none") is None and common.ci_level("None") is None and common.alpha("0.01") == 0.01
    import argparse

    for parse, text, expected in [(common.positive_int, "0", "a positive integer"),
                                  (common.positive_int, "x", "a positive integer"),
                                  (common.boot_count, "99", "an integer from 100 to 100,000"),
                                  (common.seed, "-1", "a seed from 0 to 4,294,967,295"),
                                  (common.demo_items, "0", "an integer from 1 to 1,000,000"),
                                  (common.unit_float, "1.5", "a number in [0, 1]"),
                                  (common.open_unit_float, "1", "a number strictly between 0 and 1"),
                                  (common.alpha, "0", "a number strictly between 0 and 1")]:
        with pytest.raises(argparse.ArgumentTypeError, match=f"expected {re.escape(expected)}, got {text!r}"):
            parse(text)



@pytest.mark.parametrize("command", ["demo", "audit", "subgroups", "crowdtruth", "dashboard"])
def test_out_of_memory_suggests_only_the_commands_own_options(capsys, monkeypatch, command):
    """Once ``subgroups`` suggested --n-boot, an option only ``audit`` has (issue 33)."""
    module = importlib.import_module(f"aif360_subjective.cli.{command}")

    def out_of_memory(args):
        raise MemoryError

    monkeypatch.setattr(module, "run", out_of_memory)
    parser = build_parser()
    argv = {"demo": [], "crowdtruth": ["a.csv", "--unit-col", "u", "--worker-col", "w", "--label-col", "l"]}
    code = main([command, *argv.get(command, ["x.csv"])])
    err = capsys.readouterr().err.strip()
    assert code == 2 and err.startswith(f"aif360-subjective {command}: error: out of memory; try "), err
    suggested = re.findall(r"--[a-z][a-z-]*", err)
    own = parser.commands[command].long_options()
    assert all(flag in own for flag in suggested), (suggested, command)
    if command == "subgroups":
        assert "--n-boot" not in err and "--discovery asdf" in err


def test_no_function_below_a_commands_boundary_takes_the_namespace():
    """Each command's ``run(args)`` turns the namespace into a typed spec; nothing else in cli/ takes it (a callback
    typed ``Callable[[argparse.Namespace], int]``, the ``run`` a command's parser is given, does not take it)."""
    import ast

    allowed = {"run", "from_namespace", "spec_from"}
    for path in sorted((REPO / "aif360_subjective" / "cli").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name not in allowed:
                for arg in [*node.args.args, *node.args.kwonlyargs]:
                    annotation = ast.unparse(arg.annotation) if arg.annotation is not None else ""
                    takes_namespace = "Namespace" in annotation and not annotation.startswith("Callable[")
                    assert not takes_namespace and arg.arg != "args", (path.name, node.name)


def test_each_command_spec_is_frozen_and_typed():
    import dataclasses

    from aif360_subjective.cli.audit import AuditSpec
    from aif360_subjective.cli.subgroups import SubgroupsSpec

    args = build_parser().parse_args(["audit", "a.csv", "--item-col", "i", "--attributes", "x", "y", "--ci", "none"])
    spec = AuditSpec.from_namespace(args)
    assert spec.inputs.path == "a.csv" and spec.inputs.item_col == "i" and spec.attributes == ("x", "y")
    assert spec.ci is None and spec.n_boot == 1000 and spec.grouping == "adr"
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.grouping = "ambiguity"  # type: ignore[misc]
    sg = SubgroupsSpec.from_namespace(build_parser().parse_args(["subgroups", "t.csv", "--exclude", "id"]))
    assert sg.features.exclude == ("id",) and sg.inputs.item_col is None and sg.discovery == "both"
    hash(sg)  # a spec is a value


def test_out_of_memory_names_n_boot_only_where_the_command_has_it(subgroup_csv, monkeypatch, capsys):
    """Issue 33: an out-of-memory `subgroups` run suggested --n-boot, which that command does not have."""
    import aif360_subjective.detectors as detectors

    def no_memory(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(detectors, "detect_subgroups", no_memory)
    path, _ = subgroup_csv
    code = main(["subgroups", str(path), "--label-col", "y", "--prediction-col", "pred", "--n-clusters", "3"])
    err = capsys.readouterr().err
    assert code == 2 and "out of memory; try a smaller input" in err and "--n-boot" not in err


@pytest.mark.parametrize(("extra", "named"), [
    (["--n-clusters", "4"], "--n-clusters configures"),
    (["--clustering", "kmeans", "--entropy-threshold", "0.5"], "--clustering, --entropy-threshold configure"),
])
def test_patterns_discovery_refuses_clustering_options(subgroup_csv, capsys, extra, named):
    """Issue 33: --discovery patterns ignored the clustering options without a word."""
    path, _ = subgroup_csv
    code = main(["subgroups", str(path), "--label-col", "y", "--prediction-col", "pred", "--discovery", "patterns",
                 *extra])
    err = capsys.readouterr().err
    assert code == 2 and named in err and "--discovery patterns does not form" in err


def test_console_writes_q_and_adjusted_p_as_the_report_does():
    """Issue 33: a q-value of 0.0 was printed "q = 0" (format .2g); an adjusted p at the floor 1/(B+1) as if it
    were measured."""
    from aif360_subjective.cli._common import significance_line

    def ranking(col, value, **attrs):
        rk = pd.DataFrame({"rank": [1], "statistical_parity": [0.4], "size": [120], "subgroup": ["a=x"],
                           "statistical_parity_ci_low": [0.3], "statistical_parity_ci_high": [0.5], col: [value]},
                          index=pd.Index([3], name="id"))
        rk.attrs = {"alpha": 0.05, "ci": 0.95, **attrs}
        return rk

    assert "q < 0.001)" in significance_line(ranking("statistical_parity_q", 0.0), "statistical parity", "subgroup")
    assert "q = 0.012)" in significance_line(ranking("statistical_parity_q", 0.0123), "statistical parity", "x")
    line = significance_line(ranking("statistical_parity_p_adjusted", 1 / 201, n_permutations=200),
                             "statistical parity", "subgroup")
    assert "adjusted p ≤ 0.005)" in line
    line = significance_line(ranking("statistical_parity_p_adjusted", 0.0299, n_permutations=200),
                             "statistical parity", "subgroup")
    assert "adjusted p = 0.030)" in line


def test_the_groups_advice_is_in_the_command_lines_words():
    # issue 41: --groups with one id per row advised "--groups None", which the command line cannot take
    from aif360_subjective.cli import _common
    from aif360_subjective.detectors.error_control.resampling import check_groups

    with pytest.raises(ValueError) as err:
        check_groups(np.arange(6), 6)
    text = _common.cli_words(str(err.value), ["--groups"])
    assert "leave --groups out, or give the id shared by a person's (item's) rows" in text
    assert "None" not in text
