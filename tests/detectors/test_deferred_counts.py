"""Counts in two steps (the pass over the rows, then each candidate's sum for a slice of the columns): the same
numbers as one count, and the max-T's batches that read them one count at a time."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from aif360_subjective.detectors.error_control import maxt
from aif360_subjective.detectors.error_control.counters import (
    DeferredCounts,
    MemberCounter,
    PackedColumns,
    StackedCounter,
    deferred_count,
)
from aif360_subjective.detectors.mining.pattern_mining import build_items, mine_patterns


def _corner_patterns(rng: np.random.Generator, n: int):
    X = pd.DataFrame({"c": rng.choice(list("abc"), n), "age": rng.integers(18, 90, n),
                      "income": rng.lognormal(10, 0.5, n)})
    return mine_patterns(build_items(X, ["c"], thresholds=20), 15, 3)


def _member_patterns(rng: np.random.Generator, n: int):
    c1 = rng.integers(0, 200, n)  # three columns of 200 levels: rare patterns counted through their members
    X = pd.DataFrame({"a": c1.astype(str), "b": ((c1 + rng.integers(0, 2, n)) % 200).astype(str),
                      "c": ((c1 + rng.integers(0, 2, n)) % 200).astype(str)})
    return mine_patterns(build_items(X, ["a", "b", "c"]), 2, 3)


@pytest.mark.parametrize("make", [_corner_patterns, _member_patterns])
def test_a_slice_finished_later_is_that_slice_of_the_count(make):
    rng = np.random.default_rng(4)
    n = 1200
    mp = make(rng, n)
    counter = mp.counter()
    if make is _corner_patterns:
        assert counter._corner_A is not None  # cells and corner sums
    else:
        assert 0 < len(counter.member_ids) < len(mp.patterns)  # cells and members
    Y = rng.random((n, 23)) < 0.35  # not a multiple of 8: the packed block's last byte half used
    packed = PackedColumns(np.packbits(Y, axis=1), Y.shape[1])
    whole = counter.count(Y)
    np.testing.assert_array_equal(whole, MemberCounter(mp.members()).count(Y))
    finish = deferred_count(counter, packed)
    for cols in (slice(0, 5), slice(5, 23), slice(11, 12), slice(None), slice(3, 3)):
        got = finish(cols)
        assert got.shape == whole[:, cols].shape
        np.testing.assert_array_equal(got, whole[:, cols])  # the same float64 numbers, bit for bit


def test_stacked_parts_finish_in_order_and_a_counter_without_deferred_is_sliced():
    rng = np.random.default_rng(8)
    n = 400
    mp = _corner_patterns(rng, n)
    members = sp.csc_matrix(rng.random((n, 3)) < 0.4)
    stacked = StackedCounter([mp.counter(), MemberCounter(members)])
    Y = rng.random((n, 7)) < 0.5
    want = np.vstack([mp.counter().count(Y), members.T.astype(np.int64) @ Y.astype(np.int64)])
    np.testing.assert_array_equal(stacked.count(Y), want)
    np.testing.assert_array_equal(deferred_count(stacked, Y)(slice(2, 6)), want[:, 2:6])
    # one part: its own counts, not a copy of them
    assert np.array_equal(StackedCounter([MemberCounter(members)]).count(Y), want[-3:])
    np.testing.assert_array_equal(deferred_count(MemberCounter(members), Y)(slice(1, 3)), want[-3:, 1:3])


def test_deferred_counts_sum_each_count_once_and_let_go():
    calls: list[tuple[int, int]] = []
    block = np.arange(4 * 9, dtype=np.float64).reshape(4, 9)  # 3 counts asked (0, 1, 3) of b = 3 permutations

    def finish(cols: slice) -> np.ndarray:
        calls.append((cols.start, cols.stop))
        return block[:, cols].copy()

    counts = DeferredCounts(finish, 3, (True, True, False, True))
    assert len(counts) == 4 and maxt.permutations_in(counts) == 3 and calls == []  # nothing summed to say b
    assert counts[2] is None
    np.testing.assert_array_equal(counts[3], block[:, 6:9])  # the third block of columns: count 3
    np.testing.assert_array_equal(counts[1], block[:, 3:6])
    assert counts[1] is counts[1] and calls == [(6, 9), (3, 6)]  # held: summed once
    assert [c is None for c in counts[:3]] == [False, False, True] and calls[-1] == (0, 3)
    counts.forget(keep=[3])
    counts[3]
    assert calls[-1] == (0, 3)  # count 3 kept, not summed again
    counts[1]
    assert calls[-1] == (3, 6)  # let go: summed again
    counts.forget()
    with pytest.raises(ValueError, match="count 0 was read after the batch was forgotten"):
        counts[0]
    with pytest.raises(IndexError, match="count 4 of 4"):
        counts[4]


def test_max_t_statistics_let_each_count_go_after_its_last_test():
    # tests 1 (count 1), 2 (counts 1, 2), 4 (count 2): count 1 is summed once and let go after test 2
    calls: list[int] = []
    rng = np.random.default_rng(1)
    m, b = 6, 4
    block = rng.integers(0, 5, (m, 2 * b)).astype(np.float64)

    def finish(cols: slice) -> np.ndarray:
        calls.append(cols.start)
        return block[:, cols].copy()

    size = np.full(m, 10.0)
    std = maxt._Standardiser.from_classes(np.column_stack([size - 6, np.full(m, 2.0), np.full(m, 1.0),
                                                           np.full(m, 3.0)]), np.array([30.0, 20.0, 15.0, 35.0]))
    counts = DeferredCounts(finish, b, (False, True, True, False))
    pen = np.zeros((m, 1))
    got = list(maxt._statistics(std, counts, (1, 2, 4), pen, False))
    plain = [None, block[:, :b], block[:, b:], None]
    want = list(maxt._statistics(std, plain, (1, 2, 4), pen, False))
    assert calls == [0, b] and len(got) == len(want) == 6
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
    with pytest.raises(ValueError, match="forgotten"):
        counts[1]
