"""The items' (rows, items) indicator is formed from the codes when read, not held (issue 42: 162 MB at a million
rows, held from the mining to the end of an analysis before): the same matrix, every item's rows as its
condition reads."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from aif360_subjective.detectors.mining.cell_counts import CellCounter
from aif360_subjective.detectors.mining.pattern_mining import Items, build_items, mine_patterns, narrowest_codes


def _table(n: int = 400, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "job": rng.choice(["a", "b", "c"], n),
        "age": rng.integers(18, 80, n).astype(float),  # ranges and one-sided conditions
        "kids": rng.integers(0, 3, n),  # numeric with few values: coded by value
        "flag": rng.random(n) < 0.3,  # boolean: coded by value
    })


def _rows_of(X: pd.DataFrame, items: Items, j: int) -> np.ndarray:
    """Item ``j``'s rows as its value or range reads (independently of the codes)."""
    x = X[items.columns[int(items.column[j])]]
    v = items.values[j]
    if isinstance(v, tuple):
        low, high, closed = v
        xf = x.to_numpy(dtype=float)
        return (xf >= low) & ((xf <= high) if closed else (xf < high))
    return (x == v).to_numpy()


def test_the_matrix_is_formed_from_the_codes_with_each_item_s_rows():
    X = _table()
    items = build_items(X, ["job"], n_bins=5, max_merge=2, thresholds=4)
    assert items.indicator is None  # not held
    m = items.matrix
    assert isinstance(m, sp.csc_matrix) and m.dtype == bool and m.shape == (len(X), len(items.labels))
    assert m.has_sorted_indices
    dense = m.toarray()
    for j in range(len(items.labels)):
        np.testing.assert_array_equal(dense[:, j], _rows_of(X, items, j), err_msg=items.labels[j])
    assert any(isinstance(v, tuple) and np.isinf(v[0]) for v in items.values)  # one-sided conditions are in
    # counted from the codes as the matrix holds them; each read forms the same matrix again
    assert items.n_members == m.nnz == int(dense.sum())
    assert (items.matrix != m).nnz == 0 and items.n_rows == len(X)


def test_an_indicator_given_is_read_as_given():
    held = sp.csc_matrix(np.array([[1, 0], [0, 1], [1, 1]], dtype=bool))
    # codes that do not describe it (as the annotator family's zeros): the given matrix is what is read
    items = Items(np.array([0, 0]), ["c"], ["c=x", "c=y"], ["x", "y"], held, np.zeros((3, 1), dtype=np.int32),
                  np.array([0, 1]), np.array([1, 2]))
    assert items.matrix is held and items.n_members == 4 and items.n_rows == 3


def test_mined_patterns_hold_no_rows_by_items_matrix():
    X = _table(n=300, seed=1)
    items = build_items(X, ["job"], n_bins=4, max_merge=2)
    mined = mine_patterns(items, min_support=20, max_length=2)
    assert mined.items.indicator is None and mined.n_rows == len(X)
    # the supports of the single items are the matrix's column sums (the mining read it once)
    sup1 = np.asarray(items.matrix.sum(axis=0)).ravel()
    single = [i for i, p in enumerate(mined.patterns) if len(p) == 1]
    np.testing.assert_array_equal(mined.support[single], sup1[[mined.patterns[i][0] for i in single]])


def test_codes_are_held_in_the_narrowest_unsigned_type_above_every_code():
    for top, dtype in ((0, np.uint8), (254, np.uint8), (255, np.uint16), (65_534, np.uint16), (65_535, np.uint32)):
        codes = np.array([[0, top], [top, 1]], dtype=np.int32)
        got = narrowest_codes(codes)
        assert got.dtype == dtype and np.array_equal(got, codes), top
    negative = np.array([[-1, 3]], dtype=np.int32)
    assert narrowest_codes(negative) is negative
    assert narrowest_codes(np.zeros((0, 2), dtype=np.int32)).dtype == np.uint8
    items = build_items(_table(), ["job"], n_bins=5, max_merge=2, thresholds=4)
    assert items.codes.dtype == np.uint8
    # a column of 255 codes: its largest code 254 plus one (its radix) fits in uint8, counted right
    codes = narrowest_codes(np.arange(255, dtype=np.int32)[:, None])
    assert codes.dtype == np.uint8
    counter = CellCounter(codes, np.array([0]), np.array([254]), np.array([255]), [(0,)])
    assert counter.count(np.ones((255, 1), dtype=bool)).tolist() == [[1.0]]


def test_items_shipped_to_dask_workers_hold_no_rows():
    """The Dask and Spark paths ship the mined items without the table's rows: no indicator, empty codes of the same
    type, every item kept (a ``replace(matrix=...)`` of the former field raised TypeError there once ``matrix``
    became a property; no fast test reached it)."""
    pytest.importorskip("dask")
    from aif360_subjective.detectors._dask.counts import _shipped

    X = _table()
    mined = mine_patterns(build_items(X, ["job"], n_bins=4, max_merge=2), min_support=20, max_length=2)
    items, patterns = (d.compute() for d in _shipped(mined))
    assert items.indicator is None and items.codes.shape == (0, X.shape[1])
    assert items.codes.dtype == mined.items.codes.dtype and items.n_rows == 0
    assert items.matrix.shape == (0, len(mined.items.column)) and items.labels == mined.items.labels
    assert patterns == list(mined.patterns)
