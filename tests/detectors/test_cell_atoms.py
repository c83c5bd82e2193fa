"""The cells of column sets summed from the atoms of their supersets (detectors.mining.cell_atoms)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from aif360_subjective.detectors.error_control.counters import MemberCounter, PackedColumns
from aif360_subjective.detectors.mining.cell_atoms import MAX_ATOMS, fold_entries, mixed_radix, plan_atoms
from aif360_subjective.detectors.mining.cell_counts import CellCounter


def test_mixed_radix_strides_by_hand():
    # columns of 4, 3 and 5 codes: the last fastest, the first moves by 3 x 5
    assert mixed_radix([0, 1, 2], np.array([4, 3, 5])).tolist() == [15, 5, 1]
    assert mixed_radix([2], np.array([4, 3, 5])).tolist() == [1]


def test_fold_entries_by_hand():
    # superset (0, 1) of 2 x 3 codes: atoms 10 + (2 a + b) for codes (a, b); the set (1,) maps its code b to
    # cell 7 + b except b = 2 (the sink, -1): atoms (a, 0) -> 7, (a, 1) -> 8 for a in 0, 1
    radix = np.array([2, 3])
    cells, atoms = fold_entries([0, 1], radix, 10, [([1], np.array([7, 8, -1]))])
    assert sorted(zip(cells.tolist(), atoms.tolist(), strict=True)) == [(7, 10), (7, 13), (8, 11), (8, 14)]
    # the set (0, 1) itself: each atom is one cell
    cells, atoms = fold_entries([0, 1], radix, 0, [([0, 1], np.arange(6) + 100)])
    assert cells.tolist() == (atoms + 100).tolist()


def test_plan_covers_each_set_once_within_its_superset():
    radix = np.array([4] * 8 + [10, 10])
    sets = [[i] for i in range(10)] + [[i, j] for i in range(10) for j in range(i + 1, 10)] + [
        [i, j, k] for i in range(10) for j in range(i + 1, 10) for k in range(j + 1, 10)]
    plan = plan_atoms(sets, radix, 65_535)
    covered = [i for _, ids in plan for i in ids]
    # every set at most once; the few left over (no superset of them pays) are counted directly
    assert len(covered) == len(set(covered)) >= len(sets) - 5
    for cols, ids in plan:
        assert np.prod(radix[cols]) <= MAX_ATOMS and all(set(sets[i]) <= set(cols) for i in ids)
    # the work per block: a scatter per superset plus the fold, far below a scatter per set
    work = 65_535 * len(plan) + sum(np.prod(radix[cols]) * len(ids) for cols, ids in plan)
    assert work < 65_535 * len(sets) / 4
    # a handful of rows: every set is cheaper counted directly than through a superset's atoms
    assert plan_atoms(sets, radix, 3) == []
    assert plan_atoms([], radix, 100) == []
    # a cross-table past MAX_ATOMS is never a superset
    assert plan_atoms([[0, 1]], np.array([MAX_ATOMS, 2]), 10**6) == []


@pytest.mark.parametrize("n", [1, 700, 70_000])
def test_counts_through_atoms_equal_the_direct_cells_and_the_members(n):
    rng = np.random.default_rng(n)
    radix = np.array([3, 4, 2, 5, 3])
    codes = (rng.random((n, 5)) * radix).astype(np.int32)
    # items: each code of each column, and runs of two adjacent codes
    column, lo, hi = [], [], []
    for c, r in enumerate(radix):
        for v in range(r):
            column.append(c)
            lo.append(v)
            hi.append(v + 1)
            if v + 2 <= r:
                column.append(c)
                lo.append(v)
                hi.append(v + 2)
    column, lo, hi = np.array(column), np.array(lo), np.array(hi)
    by_col = [np.flatnonzero(column == c) for c in range(5)]
    patterns = [(int(i),) for i in range(len(column))] + [
        (int(rng.choice(by_col[a])), int(rng.choice(by_col[b]))) for a in range(5) for b in range(a + 1, 5)] + [
        (int(rng.choice(by_col[a])), int(rng.choice(by_col[b])), int(rng.choice(by_col[d])))
        for a in range(5) for b in range(a + 1, 5) for d in range(b + 1, 5) for _ in range(3)]
    counter = CellCounter(codes, column, lo, hi, patterns, radix=radix)
    if n > 100:
        assert counter._atom_maps and counter._fold.nnz  # the supersets are used
    direct = copy.copy(counter)
    direct._atom_maps, direct._atom_sizes, direct._direct = [], [], counter._maps
    member = np.ones((n, len(patterns)), dtype=bool)
    for k, pat in enumerate(patterns):
        for i in pat:
            member[:, k] &= (codes[:, column[i]] >= lo[i]) & (codes[:, column[i]] < hi[i])
    Y = rng.random((n, 11)) < 0.5
    want = MemberCounter(member).count(Y)
    got = counter.count(PackedColumns(np.packbits(Y, axis=1), 11))
    assert got.dtype == np.float64 and np.array_equal(got, want)
    # every cell but the sink (which nothing reads: the atoms leave it empty)
    assert np.array_equal(counter.cell_counts(Y)[:-1], direct.cell_counts(Y)[:-1])
    w = rng.random((n, 2))  # weights: every set's cells, as before
    assert np.array_equal(counter.cell_counts(w), direct.cell_counts(w))
