"""CrowdTruth on Dask equals the in-memory computation (<= 1e-12) on both schedulers."""

from __future__ import annotations

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

from aif360_subjective.datasets import make_subjective_dataset
from aif360_subjective.quality import crowdtruth_scores

TOL = 1e-12
JOBS = ["relex_binary", "synthetic_binary"]


def _long(n_items, n_annotators, k, seed) -> pd.DataFrame:
    ds = make_subjective_dataset(n_items, n_annotators, k, random_state=seed)
    return pd.DataFrame({"unit": np.asarray(ds.item_ids), "worker": np.asarray(ds.annotator_ids),
                         "label": np.asarray(ds.original_labels()).astype(np.int64)})


def assert_close(mem, dsk):
    units = dsk.units.compute()
    assert sorted(units.index) == sorted(mem.units.index)
    assert units.index.name == mem.units.index.name
    assert list(units.columns) == list(mem.units.columns)
    units = units.reindex(mem.units.index)
    assert (units["n_workers"] == mem.units["n_workers"]).all()
    assert np.abs(units.drop(columns="n_workers") - mem.units.drop(columns="n_workers")).max().max() <= TOL
    pd.testing.assert_index_equal(dsk.workers.index, mem.workers.index)
    assert (dsk.workers["n_units"] == mem.workers["n_units"]).all()
    assert np.abs(dsk.workers - mem.workers).max().max() <= TOL
    pd.testing.assert_index_equal(dsk.annotations.index, mem.annotations.index)
    assert np.abs(dsk.annotations - mem.annotations).max().max() <= TOL
    assert dsk.n_iterations == mem.n_iterations and dsk.converged == mem.converged
    assert np.abs(dsk.log - mem.log).max().max() <= TOL
    assert (dsk.n_rows, dsk.n_duplicate_rows) == (mem.n_rows, mem.n_duplicate_rows)


@pytest.fixture(scope="module", params=JOBS)
def golden(request, reference_dir):
    df = pd.read_csv(reference_dir / "crowdtruth" / request.param / "input_long.csv", dtype=str)
    return df, crowdtruth_scores(df)


@pytest.mark.parametrize("npartitions", [1, 3])
def test_golden_inputs(golden, scheduler, npartitions):
    """The reference jobs (the golden tests' inputs): unsorted string ids, so 3 partitions are shuffled."""
    df, mem = golden
    dsk = crowdtruth_scores(dd.from_pandas(df, npartitions=npartitions, sort=False))
    assert_close(mem, dsk)


def test_units_already_partitioned(scheduler):
    """Sorted integer units in contiguous partitions: used as they are (no shuffle), same scores."""
    df = _long(300, 40, 5, 4).sort_values("unit", kind="stable")
    mem = crowdtruth_scores(df)
    assert_close(mem, crowdtruth_scores(dd.from_pandas(df, npartitions=4, sort=True)))


@pytest.mark.parametrize("opts", [{"open_ended": True}, {"duplicates": "union"}, {"labels": [1, 0, 2]}])
def test_options(scheduler, opts):
    df = _long(150, 20, 4, 5)
    df = pd.concat([df, df.iloc[::7].assign(label=lambda d: 1 - d["label"])], ignore_index=True)  # duplicates
    if "duplicates" not in opts:
        df = df.drop_duplicates(["unit", "worker"])
    mem = crowdtruth_scores(df, **opts)
    assert_close(mem, crowdtruth_scores(dd.from_pandas(df, npartitions=3, sort=False), **opts))


def test_multiple_choice(scheduler):
    """List cells: Dask must keep them as objects (its default turns object columns into strings)."""
    import dask

    df = pd.DataFrame({"unit": [0, 0, 0, 1, 1, 1, 2, 2], "worker": ["a", "b", "c", "a", "b", "c", "a", "c"],
                       "label": [["x", "y"], ["x"], ["y", "z"], ["z"], ["z"], ["x", "z"], ["y"], ["x", "y"]]})
    mem = crowdtruth_scores(df)
    with dask.config.set({"dataframe.convert-string": False}):
        assert_close(mem, crowdtruth_scores(dd.from_pandas(df, npartitions=2, sort=False)))


@pytest.mark.parametrize("opts,exc,match", [
    ({"duplicates": "last"}, ValueError, "duplicates='last' is not supported on Dask"),
    ({"keep_history": True}, ValueError, "keep_history=True is not supported on Dask"),
    ({"unit_col": "item"}, ValueError, r"column\(s\) not found: unit_col='item'"),
    ({"max_delta": 0}, ValueError, "max_delta must be a finite number > 0"),
    ({"duplicates": "first"}, ValueError, "duplicates='first' is not a policy"),
    ({"labels": "ab"}, TypeError, "labels must be a list of labels"),
])
def test_unsupported_or_invalid_options_fail_before_computing(opts, exc, match):
    pdf = pd.DataFrame({"unit": [0, 0], "worker": ["a", "b"], "label": ["x", "y"]})

    def boom(df):
        raise AssertionError("computed")

    ddf = dd.from_pandas(pdf, npartitions=1).map_partitions(boom, meta=pdf)
    with pytest.raises(exc, match=match):
        crowdtruth_scores(ddf, **opts)


def test_bad_data_same_errors_as_pandas(scheduler):
    pdf = pd.DataFrame({"unit": [0, 0, 1, 1], "worker": ["a", "a", "a", "b"], "label": ["x", "y", "x", "x"]})
    with pytest.raises(ValueError, match="1 duplicate"):
        crowdtruth_scores(dd.from_pandas(pdf, npartitions=2, sort=False))
    with pytest.raises(ValueError, match=r"label\(s\) not in labels=\['y'\]"):
        crowdtruth_scores(dd.from_pandas(pdf.drop_duplicates(["unit", "worker"]), npartitions=1), labels=["y"])
