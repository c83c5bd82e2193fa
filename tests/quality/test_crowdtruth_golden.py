"""Golden tests: crowdtruth_scores equals the authors' package (crowdtruth 2.1) to 1e-9.

Reference outputs: ``../shared/reference/crowdtruth/{relex_binary,synthetic_binary}`` (see its README).
"""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.quality import CrowdTruthResult, crowdtruth_scores

pytestmark = pytest.mark.data

TOL = 1e-9
JOBS = ["relex_binary", "synthetic_binary"]


@pytest.fixture(scope="module", params=JOBS)
def job(request, reference_dir):
    d = reference_dir / "crowdtruth" / request.param
    df = pd.read_csv(d / "input_long.csv", dtype=str)
    res = crowdtruth_scores(df, keep_history=True)
    expected = {
        "units": pd.read_csv(d / "units.csv", dtype={"unit": str}).set_index("unit"),
        "workers": pd.read_csv(d / "workers.csv", dtype={"worker": str}).set_index("worker"),
        "annotations": pd.read_csv(d / "annotations.csv", dtype={"annotation": str}).set_index("annotation"),
        "iterations": pd.read_csv(d / "iterations.csv", dtype={"id": str}),
        "config": json.loads((d / "config.json").read_text()),
    }
    return res, expected


def _close(actual: pd.Series, expected: pd.Series, what: str) -> None:
    assert set(actual.index) == set(expected.index), what
    diff = np.abs(actual.reindex(expected.index).to_numpy(float) - expected.to_numpy(float))
    assert diff.max() <= TOL, f"{what}: max abs diff {diff.max():.3g}"


def test_result_type(job):
    res, exp = job
    assert isinstance(res, CrowdTruthResult)
    assert res.converged
    assert res.units.index.name == "unit" and res.workers.index.name == "worker"
    assert res.annotations.index.name == "label"


def test_iteration_count(job):
    res, exp = job
    assert res.n_iterations == exp["config"]["iterations"]


@pytest.mark.parametrize("col", ["uqs", "uqs_initial"])
def test_unit_quality(job, col):
    res, exp = job
    _close(res.units[col], exp["units"][col], col)


def test_unit_annotation_scores(job):
    res, exp = job
    for lab in exp["annotations"].index:
        _close(res.units[f"uas_{lab}"], exp["units"][f"uas__{lab}"], f"uas {lab}")
        _close(res.units[f"uas_{lab}_initial"], exp["units"][f"uas_initial__{lab}"], f"uas_initial {lab}")


def test_unit_worker_counts(job):
    res, exp = job
    assert (res.units["n_workers"].reindex(exp["units"].index) == exp["units"]["n_workers"]).all()
    assert (res.workers["n_units"].reindex(exp["workers"].index) == exp["workers"]["n_units"]).all()


@pytest.mark.parametrize("col", ["wqs", "wwa", "wua", "wqs_initial", "wwa_initial", "wua_initial"])
def test_worker_quality(job, col):
    res, exp = job
    _close(res.workers[col], exp["workers"][col], col)


@pytest.mark.parametrize("col", ["aqs", "aqs_initial"])
def test_annotation_quality(job, col):
    res, exp = job
    actual = res.annotations[col].copy()
    actual.index = actual.index.astype(str)
    _close(actual, exp["annotations"][col], col)


def test_every_iteration(job):
    """Each iteration's AQS, UQS, WQS, WWA, WUA equals the reference's iterations.csv."""
    res, exp = job
    ref = exp["iterations"]
    mine = res.history.assign(id=res.history["id"].astype(str))
    merged = ref.merge(mine, on=["iteration", "kind", "id"], how="outer", suffixes=("_ref", "_mine"))
    assert merged["value_ref"].notna().all() and merged["value_mine"].notna().all()
    diff = np.abs(merged["value_ref"] - merged["value_mine"])
    assert diff.max() <= TOL, merged.loc[diff.idxmax()]


def test_convergence_log(job):
    """The log repeats the reference's: max delta and mean deltas of WQS, UQS, AQS per iteration."""
    res, exp = job
    pat = re.compile(r"(\d+) iterations; max d= (\S+) ; wqs d= (\S+); uqs d= (\S+); aqs d= (\S+)")
    rows = [pat.match(line).groups() for line in exp["config"]["convergence_log"]]
    ref = pd.DataFrame(rows, columns=["iteration", *res.log.columns]).astype(float)
    assert list(res.log.index) == [int(i) for i in ref["iteration"]]
    np.testing.assert_allclose(res.log.to_numpy(), ref[list(res.log.columns)].to_numpy(), rtol=0, atol=TOL)


def test_synthetic_worker_types_rank(reference_dir):
    """On synthetic_binary, spammers < consistent minority < regular in mean WQS (README numbers)."""
    d = reference_dir / "crowdtruth" / "synthetic_binary"
    res = crowdtruth_scores(pd.read_csv(d / "input_long.csv", dtype=str))
    truth = pd.read_csv(d / "synthetic_binary_workers_truth.csv").set_index("worker_id")
    means = res.workers["wqs"].groupby(truth["type"]).mean()
    assert means["spammer"] < means["minority"] < means["regular"]
    np.testing.assert_allclose(means[["spammer", "minority", "regular"]], [0.39, 0.56, 0.73], atol=0.01)
