"""The max-T's smaller working set (issue 42): equalized odds' z summed in place, 0/1 cell counts held in float32
below 2^24 rows; the same numbers as before."""

from __future__ import annotations

import numpy as np

from aif360_subjective.detectors.error_control import maxt
from aif360_subjective.detectors.error_control.counters import PackedColumns
from aif360_subjective.detectors.mining.cell_counts import CellCounter


def test_equalized_odds_z_in_place_is_the_sum_over_root_two_bit_for_bit():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(7, 5)), rng.normal(size=(7, 5))
    want = a + b
    want /= np.sqrt(2.0)  # the form before
    got = maxt._eodds(a.copy(), b, out=np.empty_like(a))
    assert np.array_equal(got, want)
    z = a.copy()
    assert maxt._eodds(z, b, out=z) is z and np.array_equal(z, want)
    np.testing.assert_allclose(maxt._eodds(np.array([1.0]), np.array([1.0]), np.empty(1)), [np.sqrt(2.0)],
                               rtol=1e-15)  # by hand: (1 + 1) / sqrt(2)


def test_statistics_of_equalized_odds_are_those_of_every_test_s_z():
    rng = np.random.default_rng(2)
    m, b = 9, 6
    size = rng.integers(20, 40, m).astype(np.float64)
    observed = np.column_stack([size - 12, np.full(m, 4.0), np.full(m, 3.0), np.full(m, 5.0)])
    std = maxt._Standardiser.from_classes(observed, np.array([60.0, 40.0, 30.0, 70.0]))
    counts = [rng.integers(0, 20, (m, b)).astype(np.float64) for _ in range(4)]
    pen = rng.random((m, 1))
    got = list(maxt._statistics(std, counts, (0, 1, 2, 3, 4), pen, False))
    every = std.z_all([c.copy() for c in counts])  # each test's z formed from all four counts at once
    want = [s for z in every for s in (z - pen, -z - pen)]
    assert len(got) == 10
    for g, w in zip(got, want, strict=True):
        assert np.array_equal(g, w)


def _counter(n: int) -> tuple[CellCounter, np.ndarray]:
    rng = np.random.default_rng(n)
    codes = rng.integers(0, 3, (n, 2)).astype(np.int32)
    column, lo, hi = np.array([0, 0, 0, 1, 1, 1]), np.array([0, 1, 0, 0, 1, 2]), np.array([1, 2, 3, 1, 2, 3])
    patterns = [(0,), (2,), (3,), (0, 3), (1, 4), (2, 5)]
    return CellCounter(codes, column, lo, hi, patterns), rng.random((n, 5)) < 0.5


def test_cell_counts_are_float32_below_two_to_the_24_rows_and_the_counts_the_same():
    counter, Y = _counter(500)
    packed = PackedColumns(np.packbits(Y, axis=1), Y.shape[1])
    assert counter.cell_counts(Y).dtype == np.float32 and counter.cell_counts(packed).dtype == np.float32
    got = counter.count(packed)
    # at the bound (rows == _EXACT32) and above it: float64, as before
    wide = CellCounter.__new__(CellCounter)
    wide.__dict__.update(counter.__dict__)
    wide._EXACT32 = counter.shape[0]
    assert wide.cell_counts(Y).dtype == np.float64
    want = wide.count(packed)
    assert got.dtype == want.dtype == np.float64 and np.array_equal(got, want)
    assert np.array_equal(counter.cell_counts(Y), wide.cell_counts(Y))
    # by hand: pattern (0,) counts the rows of code 0 in column 0
    codes = counter._codes
    assert np.array_equal(got[0], Y[codes[:, 0] == 0].sum(axis=0))
    # weights stay float64 sums
    assert counter.cell_counts(np.random.default_rng(1).random((500, 2))).dtype == np.float64


def test_step_down_holds_counts_of_its_head_only_and_the_same_p_values():
    from aif360_subjective._maxt import StepDown, step_down

    rng = np.random.default_rng(3)
    observed = rng.normal(size=40)
    observed[[3, 17]] = np.nan  # not part of the family
    null = rng.normal(size=(60, 40))
    null[:, [3, 17]] = 0.0
    sd = StepDown(observed, head=5)
    for b0 in range(0, 60, 25):
        sd.add(null[b0:b0 + 25])
    assert sd.count.shape == (5,) and not hasattr(sd, "index")
    got = sd.adjusted(60)
    assert np.isnan(got[[3, 17]]).all()
    # the head exact, as the free step-down over the whole null; the tail at least that (single step, raised)
    exact = step_down(observed, null, exact=False)
    head = sd.order[:5]
    np.testing.assert_array_equal(got[head], exact[head])
    tail = sd.order[5:]
    assert (got[tail] >= exact[tail]).all()
    by_hand = (1 + (null[:, tail].max(axis=1)[:, None] >= observed[tail][None, :]).sum(axis=0)) / 61
    assert (got[tail] >= by_hand - 1e-12).all()
