"""The max-T passes' cell counters kept per worker process (``passes._permuted_counter``): a kept counter is
reused only for the same codes, conditions, patterns and radix, counts as a fresh one, and the kept codes stay
under their byte bound."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.detectors._dask import passes
from aif360_subjective.detectors.mining.cell_counts import CellCounter
from aif360_subjective.detectors.mining.pattern_mining import build_items


@pytest.fixture
def fresh(monkeypatch):
    monkeypatch.setattr(passes, "_COUNTERS", type(passes._COUNTERS)())
    return passes._COUNTERS


def _inputs(seed: int = 0, n: int = 300):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"a": rng.choice(["x", "y", "z"], n), "b": rng.choice(["u", "v"], n)})
    items = build_items(frame, ["a", "b"])
    a = np.flatnonzero(items.column == 0)
    b = np.flatnonzero(items.column == 1)
    patterns = [(int(a[0]),), (int(b[1]),), (int(a[1]), int(b[0])), (int(a[2]), int(b[1]))]
    radix = np.array([3, 2], dtype=np.int64)
    return frame, items, (items.column, items.lo, items.hi), passes.pack_patterns(patterns), radix


def test_same_inputs_reuse_the_counter_and_count_as_a_fresh_one(fresh):
    frame, items, conds, packed, radix = _inputs()
    first = passes._permuted_counter(frame, items, conds, packed, radix)
    again = passes._permuted_counter(frame.copy(), items, conds, packed.copy(), radix.copy())
    assert again is first and len(fresh) == 1
    y = (np.arange(len(frame)) % 3 == 0).astype(np.uint8)[:, None]
    fresh_counter = CellCounter(passes.partition_codes(frame, items), *conds, passes.unpack_patterns(packed),
                                radix=radix)
    np.testing.assert_array_equal(again.count(y), fresh_counter.count(y))
    # hand check: pattern 0 is a == its first value; its rows where y is 1
    value = items.values[int(packed[0, 0])]
    assert again.count(y)[0, 0] == int(((frame["a"] == value).to_numpy() & (y[:, 0] == 1)).sum())


def test_other_rows_or_patterns_build_another_counter(fresh):
    frame, items, conds, packed, radix = _inputs()
    first = passes._permuted_counter(frame, items, conds, packed, radix)
    changed = frame.copy()
    changed.loc[0, "a"] = "y" if changed.loc[0, "a"] != "y" else "x"  # one row's value: other codes
    assert passes._permuted_counter(changed, items, conds, packed, radix) is not first
    assert passes._permuted_counter(frame, items, conds, packed[:2], radix) is not first
    assert len(fresh) == 3


def test_kept_codes_stay_under_the_byte_bound(fresh, monkeypatch):
    frame, items, conds, packed, radix = _inputs(n=100)
    one = 100 * 2 * 8  # the int64 codes of 100 rows and 2 columns
    monkeypatch.setattr(passes, "_COUNTER_BYTES", 2 * one)
    for k in range(3):  # three partitions' rows: the oldest is dropped
        passes._permuted_counter(frame.iloc[[*range(k, 100), *range(k)]], items, conds, packed, radix)
    assert len(fresh) == 2
    monkeypatch.setattr(passes, "_COUNTER_BYTES", one - 1)  # larger than the bound: built, not kept
    passes._permuted_counter(frame.iloc[::-1], items, conds, packed, radix)
    assert len(fresh) == 2
