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
    assert len(units) == len(mem.units) and set(units.index) == set(mem.units.index)  # ids may be unorderable
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
@pytest.mark.data
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


# ---------------------------------------------------------------------------------------------
# the block path's dense pair sums (single choice) and the general path
# ---------------------------------------------------------------------------------------------
def _job(df: pd.DataFrame):
    from aif360_subjective.quality._vectors import build_tensor
    from aif360_subjective.quality.engine import Job

    return Job(build_tensor(df, "unit", "worker", "label", None, "error"))


def test_dense_pair_sums_by_hand():
    """One unit, workers a, b, c (codes 0, 1, 2) answering x, x, y; UQS 0.5; WQS (1, 2, 3).

    D_ij[a] = 0.5 for every ordered pair with j's label a; N_ij[a] = 0.5 when i answered a too. AQS sums:
    label x (j in {a, b}): pairs (b,a), (c,a), (a,b), (c,b), ratios 1, 0, 1, 0 -> num 2 + 2 = 4, den 2 + 3 + 2 + 6
    = 13; label y (j = c): pairs (a,c), (b,c), ratios 0, 0 -> num 0, den 3 + 6 = 9.
    """
    from aif360_subjective.quality._dask import _add_pair_sums, _dense_label_sums, _pair_groups

    job = _job(pd.DataFrame({"unit": [0, 0, 0], "worker": ["a", "b", "c"], "label": ["x", "x", "y"]}))
    acc = np.zeros((2, 3 * 3 * 2))
    _add_pair_sums(_pair_groups(job), np.array([0.5]), 3, 2, acc)
    d, n = acc[0].reshape(3, 3, 2), acc[1].reshape(3, 3, 2)
    assert d[1, 0, 0] == d[2, 0, 0] == d[0, 1, 0] == d[2, 1, 0] == d[0, 2, 1] == d[1, 2, 1] == 0.5
    assert d[0, 1, 1] == d[0, 2, 0] == 0.0
    assert n[1, 0, 0] == n[0, 1, 0] == 0.5 and n[2, 0, 0] == n[0, 2, 1] == n[1, 2, 1] == 0.0
    np.testing.assert_array_equal(_dense_label_sums(acc, np.array([1.0, 2.0, 3.0]), 2), [[4.0, 0.0], [13.0, 9.0]])


def test_dense_pair_sums_equal_the_engine():
    """Against the in-memory pair structure (every key with i != j), units of 2 to 6 judgments, 3 labels."""
    from aif360_subjective.quality._dask import _add_pair_sums, _dense_label_sums, _pair_groups
    from aif360_subjective.quality.engine import aqs_label_sums, decode_pair_keys, pair_sums

    rng = np.random.default_rng(3)
    rows = [(u, w, int(rng.integers(3))) for u in range(60) for w in rng.choice(9, int(rng.integers(1, 7)), False)]
    job = _job(pd.DataFrame(rows, columns=["unit", "worker", "label"]))
    q = rng.random(job.n_units)
    n_w, n_l = job.n_workers, job.n_labels
    acc = np.zeros((2, n_w * n_w * n_l))
    _add_pair_sums(_pair_groups(job), q, n_w, n_l, acc)
    d, n = pair_sums(job, q)
    keys = job.pairs.keys
    i, j, label = decode_pair_keys(keys, n_w, n_l)
    off = i != j
    np.testing.assert_allclose(acc[0, keys[off]], d[off], rtol=1e-14)
    np.testing.assert_allclose(acc[1, keys[off]], n[off], rtol=1e-14)
    w = rng.random(n_w)
    np.testing.assert_allclose(_dense_label_sums(acc, w, n_l), np.vstack(aqs_label_sums(i, j, label, d, n, w, n_l)),
                               rtol=1e-13)


@pytest.mark.data
def test_general_path_when_the_keys_do_not_fit(golden, scheduler, monkeypatch):
    """More keys than DENSE_PAIR_KEYS: the per-partition pair structure completed in buckets; same scores."""
    from aif360_subjective.quality import _dask

    monkeypatch.setattr(_dask, "DENSE_PAIR_KEYS", 0)
    df, mem = golden
    assert_close(mem, crowdtruth_scores(dd.from_pandas(df, npartitions=3, sort=False)))


@pytest.mark.parametrize("npartitions", [2, 7])
def test_blocks_of_several_partitions(scheduler, npartitions):
    """Blocks of several partitions (one block per thread), some with no unit of two judgments."""
    df = _long(200, 30, 3, 8).sort_values("unit", kind="stable")
    df = pd.concat([df, pd.DataFrame({"unit": [10_000], "worker": [df["worker"].iloc[0]], "label": [1]})])
    mem = crowdtruth_scores(df)
    assert_close(mem, crowdtruth_scores(dd.from_pandas(df, npartitions=npartitions, sort=True)))


def test_unit_types_differing_between_partitions(scheduler):
    """Int unit ids in one partition, text in another (shuffled by Dask's task shuffle): the scores of the
    concatenated (object) column, as on pandas."""
    import dask

    df = _long(80, 12, 4, 9)
    a, b = df[df["unit"] < 40].copy(), df[df["unit"] >= 40].copy()
    b["unit"] = "u" + b["unit"].astype(str)
    whole = pd.concat([a.astype({"unit": object}), b], ignore_index=True)
    ddf = dd.from_delayed([dask.delayed(b.iloc[::2]), dask.delayed(a), dask.delayed(b.iloc[1::2])],
                          meta=a.iloc[:0], verify_meta=False)
    assert_close(crowdtruth_scores(whole), crowdtruth_scores(ddf))


def test_local_blocks_bounded_by_the_pair_memory(monkeypatch):
    """On a local scheduler with many threads, the blocks' dense pair sums stay under LOCAL_PAIR_BYTES."""
    import dask

    from aif360_subjective.quality import _dask

    seen = []
    real = _dask._block_step
    monkeypatch.setattr(_dask, "_block_step", lambda block, *a: seen.append(len(block["parts"])) or real(block, *a))
    df = _long(120, 10, 4, 2).sort_values("unit", kind="stable")
    with dask.config.set(scheduler="sync", num_workers=5):  # the pool size: one block per thread
        assert crowdtruth_scores(dd.from_pandas(df, npartitions=6, sort=True), max_iter=1).units.npartitions == 5
    seen.clear()
    keys_bytes = 16 * df["worker"].nunique() ** 2 * 2
    monkeypatch.setattr(_dask, "LOCAL_PAIR_BYTES", 3 * keys_bytes)  # room for three blocks
    with dask.config.set(scheduler="threads", num_workers=8):
        res = crowdtruth_scores(dd.from_pandas(df, npartitions=6, sort=True), max_iter=1)
    assert res.units.npartitions == 3 and seen[:3] == [2, 2, 2]
