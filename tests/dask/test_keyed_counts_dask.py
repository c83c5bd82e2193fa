"""Keyed permuted counts per Dask partition: the in-memory keyed counts, whatever the partitioning."""

from __future__ import annotations

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

from aif360_subjective.datasets import make_planted_slice
from aif360_subjective.detectors._dask.counts import partition_class_counts, permuted_counts
from aif360_subjective.detectors.error_control.maxt import KeyedCounts, max_t, max_t_from_counts
from aif360_subjective.detectors.mining.pattern_mining import build_items, mine_patterns


@pytest.fixture(scope="module")
def table():
    b = make_planted_slice(2000, n_categorical=4, n_numeric=1, random_state=3)
    X = b.X
    items = build_items(X, [c for c in X.columns if c.startswith("cat")], 4, 2)
    mined = mine_patterns(items, 40, 2)
    frame = X.assign(t=b.y_true.astype(np.int64), p=b.y_pred.astype(np.int64))
    return X, frame, mined


def _uneven(frame: pd.DataFrame) -> dd.DataFrame:
    """Partitions of 1, 700, 13 and 1,286 rows (the first holds a single row of one truth)."""
    cuts = [0, 1, 701, 714, len(frame)]
    parts = [dd.from_pandas(frame.iloc[a:b], npartitions=1, sort=False) for a, b in zip(cuts, cuts[1:], strict=False)]
    return dd.concat(parts)


@pytest.mark.slow
def test_permuted_counts_equal_in_memory_keyed_counts(table, scheduler):
    X, frame, mined = table
    ddf = _uneven(frame)
    assert ddf.npartitions == 4
    t, p = frame["t"].to_numpy(), frame["p"].to_numpy()
    memory = KeyedCounts(mined.counter(), t, p, seed=99)
    got = permuted_counts(ddf[list(X.columns)], ddf["t"], ddf["p"], mined, 99, 10, 75)
    np.testing.assert_array_equal(got, memory(10, 75))
    # only the needed counts; the class counts per partition add up to the table's
    part = permuted_counts(ddf[list(X.columns)], ddf["t"], ddf["p"], mined, 99, 0, 20,
                           need=(False, True, False, False))
    np.testing.assert_array_equal(part[:, :, 1], memory(0, 20)[:, :, 1])
    assert np.isnan(part[:, :, [0, 2, 3]]).all()
    classes = partition_class_counts(ddf["t"], ddf["p"])
    assert classes.shape == (4, 4) and classes[:, :].sum(axis=1).tolist() == [1, 700, 13, 1286]
    np.testing.assert_array_equal(classes.sum(axis=0), memory.totals)


def test_max_t_from_dask_counts_equals_keyed_max_t(table, scheduler):
    X, frame, mined = table
    ddf = dd.from_pandas(frame, npartitions=3, sort=False)
    t, p = frame["t"].to_numpy(), frame["p"].to_numpy()
    B = 39
    permuted = permuted_counts(ddf[list(X.columns)], ddf["t"], ddf["p"], mined, 5, 0, B)
    observed = KeyedCounts(mined.counter(), t, p, seed=5).observed()
    totals = np.bincount(2 * t + p, minlength=4)
    got = max_t_from_counts(observed, totals, permuted, penalty=False)
    want = max_t(mined.counter(), t, p, B, random_state=5, penalty=False, permutation="keyed")
    for f in ("z", "p_adjusted", "p_two_sided", "p_global"):
        np.testing.assert_allclose(getattr(got, f), getattr(want, f), rtol=0, atol=1e-12, equal_nan=True)


def test_permuted_counts_refuse_bad_labels_and_other_collections(table, scheduler):
    X, frame, mined = table
    a = dd.from_pandas(frame, npartitions=3, sort=False)
    b = dd.from_pandas(frame, npartitions=4, sort=False)
    with pytest.raises(ValueError, match="different Dask collections"):
        permuted_counts(a[list(X.columns)], b["t"], a["p"], mined, 1, 0, 5)
    bad = dd.from_pandas(frame.assign(p=frame["p"] * 2), npartitions=3, sort=False)
    with pytest.raises(ValueError, match="p must hold 0/1 values, got 2"):
        permuted_counts(bad[list(X.columns)], bad["t"], bad["p"], mined, 1, 0, 5)
    with pytest.raises(ValueError, match=r"classes must be \(3, 4\)"):
        permuted_counts(a[list(X.columns)], a["t"], a["p"], mined, 1, 0, 5, classes=np.zeros((2, 4)))
