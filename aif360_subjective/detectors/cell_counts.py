"""Counts of every mined pattern's rows through the cells of its columns (a data cube), not its members.

A pattern of ``L`` conditions on the columns ``S`` is a union of cells of the ``S`` cross-table: each
condition covers one value's code, or a run of adjacent quantile bins. So the rows of a pattern where a 0/1
column ``y`` is 1 are a sum over its cells of the cells' counts, and one pass over the rows counts every
cell of every column set at once:

1. **cells** (``C``, cells x rows): each row falls in exactly one cell of each column set used by a pattern,
   so ``C y`` costs ``rows x sets`` (Adult: 48,842 rows x 456 column sets = 22.3 million entries);
2. **patterns** (``A``, patterns x cells): each pattern sums its cells, at most ``max_merge^L`` of them
   (Adult: 64,829 patterns, 339,845 entries).

Counting through the members instead costs one entry per member (Adult: 134 million); the cells do the
same exact integer sums with a sixth of the work, and a permutation batch of the max-T never touches the
membership matrix (``benchmarks/maxt_speed.py`` times both). Cells no pattern uses share one sink that
nothing reads.

References:
    J. Gray et al., "Data cube: a relational aggregation operator generalizing group-by, cross-tab, and
    sub-totals", Data Mining and Knowledge Discovery 1(1), 1997.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["CellCounter"]


class CellCounter:
    """Exact counts of mined patterns' rows in 0/1 (or weighted) columns, through their cells.

    The same interface as :class:`~aif360_subjective.detectors.maxt.MemberCounter`: ``shape`` is (rows,
    patterns) and :meth:`count` returns one row of counts per pattern.

    Args:
        codes: (rows, columns) int base codes (:attr:`~.pattern_mining.Items.codes`).
        column: per item, its column.
        lo, hi: per item, the codes it covers, ``lo <= code < hi``.
        patterns: per pattern, its item positions (items of distinct columns, in increasing column order).
    """

    _BLOCK = 2**16 - 1  # rows per 16-bit product: a cell's count stays exact below 65,536

    def __init__(self, codes: np.ndarray, column: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                 patterns: list[tuple[int, ...]]):
        codes = np.asarray(codes, dtype=np.int64)
        n = codes.shape[0]
        radix = codes.max(axis=0) + 1 if n else np.ones(codes.shape[1], dtype=np.int64)
        k = len(patterns)
        self.shape = (n, k)
        # patterns grouped by their column set (an O(patterns) pass over tuples, no row is touched)
        sets: dict[tuple[int, ...], list[int]] = {}
        for i, pat in enumerate(patterns):
            sets.setdefault(tuple(int(column[j]) for j in pat), []).append(i)
        row_cells = np.empty((n, len(sets)), dtype=np.int64)  # narrowed to 32 bits below when the cells fit
        a_rows, a_cols = [], []
        n_cells = 0
        for g, (cols, pats) in enumerate(sets.items()):
            stride = np.ones(len(cols), dtype=np.int64)
            for j in range(len(cols) - 2, -1, -1):  # mixed radix, last column fastest
                stride[j] = stride[j + 1] * radix[cols[j + 1]]
            n_codes = int(stride[0] * radix[cols[0]])
            code = codes[:, list(cols)] @ stride
            present = np.bincount(code, minlength=n_codes) > 0
            P = np.array([patterns[i] for i in pats], dtype=np.int64)  # (k_S, L) items
            cell, valid = _pattern_cells(lo[P], hi[P], stride)
            ok = valid & present[np.where(valid, cell, 0)]  # empty cells add nothing
            # number only the cells some pattern sums; the others go to the sink (index -1 for now)
            used = np.zeros(n_codes, dtype=bool)
            used[cell[ok]] = True
            local = np.full(n_codes, -1, dtype=np.int64)
            local[used] = n_cells + np.arange(int(used.sum()))
            n_cells += int(used.sum())
            row_cells[:, g] = local[code]
            pr, pc = np.nonzero(ok)
            a_rows.append(np.asarray(pats, dtype=np.int64)[pr])
            a_cols.append(local[cell[pr, pc]])
        self.n_cells = n_cells
        row_cells[row_cells < 0] = n_cells  # the sink
        itype = np.int32 if max(n_cells + 1, row_cells.size) < 2**31 else np.int64
        self._row_cells = row_cells.astype(itype)
        r = np.concatenate(a_rows) if a_rows else np.zeros(0, dtype=np.int64)
        c = np.concatenate(a_cols) if a_cols else np.zeros(0, dtype=np.int64)
        self.A = sp.csr_matrix((np.ones(len(r)), (r, c)), shape=(k, n_cells + 1))
        self._blocks = [self._cells_of(s0, min(n, s0 + self._BLOCK)) for s0 in range(0, n, self._BLOCK)]
        del self._row_cells  # the blocks hold the same indices (Adult: 22.3 million)

    def _cells_of(self, s0: int, s1: int) -> sp.csc_matrix:
        """(cells + sink, rows s0..s1) indicator: every row is in one cell per column set."""
        rc = self._row_cells[s0:s1]
        g = rc.shape[1]
        indptr = np.arange(0, rc.size + 1, g, dtype=rc.dtype)
        rows_t = sp.csr_matrix((np.ones(rc.size, dtype=np.uint16), rc.ravel(), indptr),
                               shape=(s1 - s0, self.n_cells + 1))
        return rows_t.T  # CSC: the product reads each row's cells once

    def cell_counts(self, Y: np.ndarray) -> np.ndarray:
        """(cells + sink, c) float64 counts of every cell's rows where each column of ``Y`` is 1 (weighted:
        its sum)."""
        Y = np.asarray(Y)
        binary = Y.dtype == bool or bool(np.all((Y == 0) | (Y == 1)))
        out = np.zeros((self.n_cells + 1, Y.shape[1]), dtype=np.float64)
        s0 = 0
        for C in self._blocks:
            s1 = s0 + C.shape[1]
            if binary:  # exact 16-bit counts (at most 65,535 rows per block)
                out += C @ Y[s0:s1].astype(np.uint16)
            else:  # weights: the same structure with float64 ones (every entry is distinct: nothing to merge)
                ones = sp.csc_matrix((np.ones(C.nnz), C.indices, C.indptr), shape=C.shape)
                out += ones @ np.asarray(Y[s0:s1], dtype=np.float64)
            s0 = s1
        return out

    def count(self, Y: np.ndarray) -> np.ndarray:
        """(patterns, c) float64: rows of each pattern where each column of the (rows, c) ``Y`` is 1; for a
        float ``Y`` (weights), the sum of its values over each pattern's rows."""
        out: np.ndarray = self.A @ self.cell_counts(Y)
        return out


def _pattern_cells(lo: np.ndarray, hi: np.ndarray, stride: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cell codes of (k, L) patterns whose condition j covers codes ``lo[:, j] <= code < hi[:, j]``: a (k, W)
    code array over the product of the widest runs, and which entries are real cells of the pattern."""
    k, L = lo.shape
    width = hi - lo
    wmax = width.max(axis=0) if k else np.ones(L, dtype=np.int64)
    grid = np.indices(tuple(int(w) for w in wmax)).reshape(L, -1).T  # (W, L) offsets in each condition
    valid = np.all(grid[None, :, :] < width[:, None, :], axis=2)
    cell = ((lo[:, None, :] + grid[None, :, :]) * stride[None, None, :]).sum(axis=2)
    return cell, valid
