"""Atoms: the cells of a few small column supersets, from which the cells of many column sets are summed.

:class:`~.cell_counts.CellCounter` counts, per block of rows, each row's cell in every column set its patterns use
(175 sets for the patterns of up to 3 conditions on 10 columns): ``rows x sets`` entries, each adding a row of the
outcome columns. Rows alike on every column of a superset ``U`` of several sets fall in the same cell of each of
them; counted once in the cells of ``U`` (its **atoms**), they give each set's cells as sums of atoms, by a
product with a fixed 0/1 (cells x atoms) matrix, the **fold**, whose cost does not depend on the rows. A block of
``R`` rows then costs ``R`` entries per superset plus the fold's entries (the atoms of ``U`` times its sets)
instead of ``R`` per set: on the 1M-row planted table (8 columns of 4 codes and 2 of 10 bins, 175 sets), 21
supersets and 463,072 fold entries per block of 65,535 rows against 11.5 million entries.

:func:`plan_atoms` chooses the supersets greedily: seeded with the uncovered set of the largest cross-table, a
superset takes the column that lowers its cost per covered set most (``R`` plus its atoms times its sets, over
its sets) while one does and its cross-table stays within :data:`MAX_ATOMS`; a superset cheaper than counting its
sets directly (``R`` each) is kept, else its seed is counted directly. Every count stays an exact integer sum
(the same counts as the direct cells: each block's atom and cell counts are at most its 65,535 rows, exact in the
16-bit products).

References:
    J. Gray et al., "Data cube: a relational aggregation operator generalizing group-by, cross-tab, and
    sub-totals", Data Mining and Knowledge Discovery 1(1), 1997 (coarser cross-tables as sums of a finer one).
    V. Harinarayan, A. Rajaraman and J. D. Ullman, "Implementing data cubes efficiently", SIGMOD 1996 (which
    group-bys to count from the rows and which to sum from them, chosen greedily by cost).
"""

from __future__ import annotations

import numpy as np

__all__ = ["MAX_ATOMS", "fold_entries", "mixed_radix", "plan_atoms"]

#: The largest cross-table of a superset: its atoms' (atoms, outcome columns) 16-bit block product stays a few MB.
MAX_ATOMS = 2**15


def mixed_radix(cols: list[int], radix: np.ndarray) -> np.ndarray:
    """The strides of the cross-table of the columns ``cols`` (mixed radix, the last column fastest): a row's
    cell is its codes on ``cols`` times them, summed."""
    stride = np.ones(len(cols), dtype=np.int64)
    for j in range(len(cols) - 2, -1, -1):
        stride[j] = stride[j + 1] * int(radix[cols[j + 1]])
    return stride


def plan_atoms(sets: list[list[int]], radix: np.ndarray, block_rows: int) -> list[tuple[list[int], list[int]]]:
    """Supersets of the column sets ``sets`` (those whose cross-tables are indexed densely) and the sets each
    covers: [(superset's columns, positions in ``sets`` it covers)], every set at most once; the sets of no
    superset are counted directly.

    Args:
        sets: each column set's columns.
        radix: per column, the number of its codes.
        block_rows: rows of a block (the cost of one set's or superset's entries per block).
    """
    if not sets:
        return []
    radix = np.asarray(radix, dtype=np.float64)
    member = np.zeros((len(sets), len(radix)), dtype=bool)  # (sets, columns)
    for i, cols in enumerate(sets):
        member[i, cols] = True
    cube = np.array([np.prod(radix[cols]) for cols in sets])
    left = np.flatnonzero(cube <= MAX_ATOMS)  # a larger cross-table is counted directly
    out: list[tuple[list[int], list[int]]] = []
    while len(left):
        seed = left[np.lexsort((-cube[left], -member[left].sum(axis=1)))[0]]  # most columns, then largest
        u = member[seed].copy()
        covered = left[~member[left][:, ~u].any(axis=1)]
        cost = (block_rows + cube[seed] * len(covered)) / len(covered)
        while True:  # add the column that lowers the cost per covered set most
            outside = member[left] & ~u
            short = outside.sum(axis=1) == 1  # sets one column short of the superset: covered by adding it
            gain = np.bincount(np.argmax(outside[short], axis=1), minlength=len(radix))
            size = np.prod(radix[u]) * radix
            k = len(covered) + gain
            trial = np.where(~u & (gain > 0) & (size <= MAX_ATOMS), (block_rows + size * k) / np.maximum(k, 1), np.inf)
            best = int(np.argmin(trial))
            if not trial[best] < cost:
                break
            u[best], cost = True, float(trial[best])
            covered = left[~member[left][:, ~u].any(axis=1)]
        if block_rows + np.prod(radix[u]) * len(covered) < block_rows * len(covered):  # cheaper than directly
            out.append(([int(c) for c in np.flatnonzero(u)], [int(i) for i in covered]))
            left = np.setdiff1d(left, covered)
        else:
            left = left[left != seed]
    return out


def fold_entries(superset: list[int], radix: np.ndarray, first_atom: int,
                 sets: list[tuple[list[int], np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """The entries (cell, atom) of the 0/1 (cells, atoms) fold of one superset: where the atom (a code of the
    superset's cross-table, numbered from ``first_atom``) falls in that cell of one of ``sets`` (each its columns,
    within ``superset``, and its dense map from the codes of its cross-table to cells, -1 for the sink: left out).

    Args:
        superset: the superset's columns, in increasing order.
        radix: per column, the number of its codes.
        first_atom: the number of the superset's first atom.
        sets: the column sets counted through the superset.

    Returns:
        (cells, atoms) int64 arrays of the entries.
    """
    codes = np.indices([int(radix[c]) for c in superset]).reshape(len(superset), -1)  # each atom's codes
    atoms = first_atom + np.arange(codes.shape[1])
    rows, cols = [], []
    for set_cols, dense in sets:
        cell = dense[mixed_radix(set_cols, radix) @ codes[[superset.index(c) for c in set_cols]]]
        rows.append(cell[cell >= 0])
        cols.append(atoms[cell >= 0])
    return np.concatenate(rows), np.concatenate(cols)
