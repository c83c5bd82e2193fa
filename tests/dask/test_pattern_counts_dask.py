"""Mined patterns counted per Dask partition and summed: the in-memory counts, whatever the partitioning."""

from __future__ import annotations

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

from aif360_subjective.datasets import make_planted_slice
from aif360_subjective.detectors._dask.counts import (
    count_patterns,
    partition_codes,
)
from aif360_subjective.detectors.mining.pattern_mining import build_items, mine_patterns


@pytest.fixture(scope="module")
def table():
    b = make_planted_slice(3000, n_categorical=4, n_numeric=2, random_state=1)
    X = b.X.copy()
    X["num1"] = np.round(X["num1"] * 3)  # a numeric column with few values: coded by value, as in memory
    items = build_items(X, [c for c in X.columns if c.startswith("cat")], 5, 3)
    mined = mine_patterns(items, 30, 3)
    Y = np.column_stack([np.ones(len(X)), b.y_true, b.y_pred, b.y_true * b.y_pred]).astype(np.int64)
    frame = X.assign(**{f"y{j}": Y[:, j] for j in range(Y.shape[1])})
    return X, Y, items, mined, frame


def test_partition_codes_are_the_in_memory_codes(table):
    X, _, items, _, _ = table
    np.testing.assert_array_equal(partition_codes(X.iloc[17:900], items), items.codes[17:900])


def test_partition_codes_refuse_an_unknown_level(table):
    X, _, items, _, _ = table
    with pytest.raises(ValueError, match="column 'cat0' holds the value 'zz'"):
        partition_codes(X.iloc[:3].assign(cat0="zz"), items)


@pytest.mark.parametrize("npartitions", [1, 4, 7])
def test_counts_equal_in_memory(table, scheduler, npartitions):
    X, Y, _, mined, frame = table
    ddf = dd.from_pandas(frame, npartitions=npartitions, sort=False)
    got = count_patterns(ddf[list(X.columns)], ddf[[f"y{j}" for j in range(4)]], mined)
    expected = mined.counter().count(Y)
    assert got.shape == (len(mined.patterns), 4) and got[:, 0].min() >= 30
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(got[:, 0], mined.support)


def test_counts_refuse_other_collections(table, scheduler):
    X, _, _, mined, frame = table
    a = dd.from_pandas(frame, npartitions=3, sort=False)
    b = dd.from_pandas(frame, npartitions=4, sort=False)
    with pytest.raises(ValueError, match="different Dask collections"):
        count_patterns(a[list(X.columns)], b["y1"], mined)


def test_counts_equal_in_memory_when_partitions_miss_levels(table, scheduler):
    # sorted by a column: most partitions hold one of its levels only (the whole table's radix keeps every
    # pattern's cells where the in-memory counter has them)
    X, Y, _, mined, frame = table
    order = np.lexsort((frame["num0"].to_numpy(), frame["cat1"].to_numpy()))
    ddf = dd.from_pandas(frame.iloc[order].reset_index(drop=True), npartitions=6, sort=False)
    got = count_patterns(ddf[list(X.columns)], ddf[[f"y{j}" for j in range(4)]], mined)
    np.testing.assert_array_equal(got, mined.counter().count(Y))  # sums: the row order does not matter


def test_detect_subgroups_refuses_a_pandas_frame_beside_dask_labels(table):
    from aif360_subjective.detectors import detect_subgroups

    X, Y, _, _, frame = table
    ddf = dd.from_pandas(frame, npartitions=2, sort=False)
    with pytest.raises(TypeError, match="X must be a Dask DataFrame when y_true or y_pred is a Dask collection"):
        detect_subgroups(X, pd.Series(Y[:, 1]), ddf["y2"], discovery="patterns")


def test_counts_of_parquet_projections_pair_their_partitions(table, scheduler, tmp_path):
    # Parquet input, X and Y projected differently (optimised, a projection on few columns can fuse files into
    # fewer partitions than another: 200k rows in 4 files did in benchmarks/dask_patterns.py; these small files do not)
    X, Y, _, mined, frame = table
    for k, part in enumerate(np.array_split(np.arange(len(frame)), 6)):
        frame.iloc[part].to_parquet(tmp_path / f"part-{k}.parquet", index=False)
    ddf = dd.read_parquet(str(tmp_path))
    got = count_patterns(ddf[list(X.columns)], ddf[["y0", "y2"]], mined)
    np.testing.assert_array_equal(got, mined.counter().count(Y[:, [0, 2]]))
