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
nothing reads. A column set whose patterns cover long runs (the one-sided conditions ``age ≥ 49`` of
:mod:`.numeric_conditions` span up to every base bin but one) is counted through **corner sums** instead: the
prefix sums of its whole cross-table (one cumulative sum per axis) give each pattern's count from the 2^L corners
of its box, by inclusion-exclusion (the summed-area table of image processing), whatever the runs' lengths; on
5,000 rows with one-sided conditions at every 5 % this took the pattern-cell entries from 4.27 million to 820.
Integer counts stay exact; weighted sums differ from a direct sum by rounding only. A column set whose patterns
hold fewer members than its cells would cost (wide merged ranges
on several columns) is counted through its members instead, from the patterns' bitsets.

References:
    J. Gray et al., "Data cube: a relational aggregation operator generalizing group-by, cross-tab, and
    sub-totals", Data Mining and Knowledge Discovery 1(1), 1997.
    F. C. Crow, "Summed-area tables for texture mapping", SIGGRAPH 1984 (sums over boxes from prefix sums).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import cast

import numpy as np
import scipy.sparse as sp

from ..bitsets import unpack_to_csc
from ..error_control.counters import Finish, MemberCounter, PackedColumns, as_columns, float_ones, is_binary
from .cell_atoms import fold_entries, mixed_radix, plan_atoms

__all__ = ["CellCounter"]

#: How a row's cell in one column set is found (:func:`_cell_map`): (columns, strides, dense map or None, sorted
#: codes, their cells).
_Map = tuple[list[int], np.ndarray, np.ndarray | None, np.ndarray, np.ndarray]


class CellCounter:
    """Exact counts of mined patterns' rows in 0/1 (or weighted) columns, through their cells.

    The same interface as :class:`~aif360_subjective.detectors.error_control.counters.MemberCounter`: ``shape`` is
    (rows,
    patterns) and :meth:`count` returns one row of counts per pattern.

    Each column set is counted the cheaper way: through its cells (``rows`` entries for the cells plus, per
    pattern, the product of its conditions' widths) or, given the patterns' bitsets, through their members
    (their supports summed, each :attr:`_MEMBER_COST` times a cell entry): rare patterns on high-cardinality
    columns cost fewer members than their column sets have rows. A cross-table too large to index densely is
    indexed by its non-empty cells only.

    Args:
        codes: (rows, columns) int base codes (:attr:`~.pattern_mining.Items.codes`).
        column: per item, its column.
        lo, hi: per item, the codes it covers, ``lo <= code < hi``.
        patterns: per pattern, its item positions (items of distinct columns, in increasing column order).
        bits: (patterns, words) bitsets of the patterns' rows, or a function of pattern positions giving theirs
            (:meth:`~.pattern_mining.MinedPatterns.bits_of`: only the patterns counted through their members are
            formed), optional: without them every set is counted through its cells.
        support: rows per pattern (with ``bits``).
        radix: per column, the number of its codes (default: the largest code in ``codes`` plus one); pass the
            whole table's when ``codes`` are a part of it.
    """

    _BLOCK = 2**16 - 1  # rows per 16-bit product: a cell's count stays exact below 65,536
    _GRID = 2**22  # pattern x cell-offset entries formed at a time
    _CELL_ENTRIES = 2**22  # (row, column set) cells formed at a time when counting 0/1 columns (16 MB of int32)
    #: What one member costs in a count against one cell entry (a member's product step reads a whole row of the
    #: outcomes): ``benchmarks/maxt_speed.py`` runs the max-T on Adult with Adult's 2,475 rarest patterns counted
    #: through their members (cost 1: 2.76 s) and through cells (cost 4: 1.88 s).
    _MEMBER_COST = 4.0
    #: Rows below which 0/1 cell counts are held in float32: every integer up to 2^24 is exact there.
    _EXACT32 = 2**24

    def __init__(self, codes: np.ndarray, column: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                 patterns: list[tuple[int, ...]],
                 bits: np.ndarray | Callable[[np.ndarray], np.ndarray] | None = None,
                 support: np.ndarray | None = None,
                 radix: np.ndarray | None = None):
        codes = np.asarray(codes)
        if not np.issubdtype(codes.dtype, np.integer):
            codes = codes.astype(np.int64)
        self._codes = codes  # kept as given (the items' int32 codes, no copy): each block's cells are read from it
        n = codes.shape[0]
        if radix is None:  # a part of a table (a Dask partition) passes the whole table's, so every code has a cell
            radix = codes.max(axis=0) + 1 if n else np.ones(codes.shape[1], dtype=np.int64)
        radix = np.asarray(radix, dtype=np.int64)
        k = len(patterns)
        self.shape = (n, k)
        lo, hi = np.asarray(lo, dtype=np.int64), np.asarray(hi, dtype=np.int64)
        # patterns grouped by their column set (an O(patterns) pass over tuples, no row is touched)
        sets: dict[tuple[int, ...], list[int]] = {}
        for i, pat in enumerate(patterns):
            sets.setdefault(tuple(int(column[j]) for j in pat), []).append(i)
        by_members: list[np.ndarray] = []
        cell_sets: list[tuple[tuple[int, ...], np.ndarray, np.ndarray]] = []
        for cols, pats in sets.items():
            P = np.array([patterns[i] for i in pats], dtype=np.int64)  # (k_S, L) items
            ids = np.asarray(pats, dtype=np.int64)
            cells_cost = n + float(np.prod(hi[P] - lo[P], axis=1, dtype=np.float64).sum())
            if bits is not None and support is not None and self._MEMBER_COST * float(support[ids].sum()) < cells_cost:
                by_members.append(ids)
            else:
                cell_sets.append((cols, ids, P))
        #: per cell set, how a row's cell is found from its codes: (columns, strides, dense map or None, sorted
        #: codes, their cells); not a (rows, sets) array of cells, formed a block of rows at a time instead
        self._maps: list[_Map] = []
        a_rows, a_cols = [], []
        c_rows, c_cols, c_sign = [], [], []
        #: the column sets counted through corner sums: (first cell, cross-table shape, first prefix entry)
        self._corners: list[tuple[int, tuple[int, ...], int]] = []
        n_cells = n_prefix = 0
        for cols, ids, P in cell_sets:
            stride = mixed_radix(list(cols), radix)
            n_codes = int(np.prod([int(radix[c]) for c in cols], dtype=object))
            if n_codes >= 2**62:
                raise ValueError(
                    f"the cross-table of columns {list(cols)} has {n_codes:.3g} cells: too many to index; raise "
                    "min_support (fewer distinct values take part in patterns) or lower max_length"
                )
            code = codes[:, list(cols)].astype(np.int64) @ stride
            dense = n_codes <= max(4 * n, 2**20)
            shape = tuple(int(radix[c]) for c in cols)
            box_cost = float(np.prod(hi[P] - lo[P], axis=1, dtype=np.float64).sum())
            corner_cost = float(np.prod(np.asarray(shape, dtype=np.float64) + 1)) + len(P) * 2.0 ** len(cols)
            if dense and corner_cost < box_cost:
                # long runs (one-sided conditions): each pattern from the 2^L corners of its box in the prefix sums
                # of the whole cross-table, instead of one entry per cell of the box
                self._maps.append(_cell_map(list(cols), stride, n_cells + np.arange(n_codes), None))
                r, c_, sg = _corner_entries(lo[P], hi[P], shape)
                c_rows.append(ids[r])
                c_cols.append(n_prefix + c_)
                c_sign.append(sg)
                self._corners.append((n_cells, shape, n_prefix))
                n_cells += n_codes
                n_prefix += int(np.prod(np.asarray(shape) + 1))
                continue
            index = _CellIndex(code, n_codes, dense=dense)
            used = np.zeros(index.size, dtype=bool)
            hits = []
            step = max(1, self._GRID // max(1, int(np.prod(np.max(hi[P] - lo[P], axis=0)))))
            for s0 in range(0, len(P), step):  # bounded temporaries: step patterns x their cell offsets
                cell, valid = _pattern_cells(lo[P[s0:s0 + step]], hi[P[s0:s0 + step]], stride)
                pos = np.where(valid, index.of(np.where(valid, cell, 0)), -1)  # -1: empty cells add nothing
                pr, pc = np.nonzero(pos >= 0)
                used[pos[pr, pc]] = True
                hits.append((ids[s0:s0 + step][pr], pos[pr, pc]))
            # number only the cells some pattern sums; the others go to the sink (index -1 for now)
            local = np.full(index.size, -1, dtype=np.int64)
            local[used] = n_cells + np.arange(int(used.sum()))
            n_cells += int(used.sum())
            self._maps.append(_cell_map(list(cols), stride, None if index.lookup is None else np.where(
                index.lookup >= 0, local[index.lookup], -1), (index.present, local)))
            for r_ids, r_pos in hits:
                a_rows.append(r_ids)
                a_cols.append(local[r_pos])
        self.n_cells = n_cells
        r = np.concatenate(a_rows) if a_rows else np.zeros(0, dtype=np.int64)
        c = np.concatenate(a_cols) if a_cols else np.zeros(0, dtype=np.int64)
        self.A = sp.csr_matrix((np.ones(len(r)), (r, c)), shape=(k, n_cells + 1))
        self._corner_A = sp.csr_matrix(
            (np.concatenate(c_sign), (np.concatenate(c_rows), np.concatenate(c_cols))), shape=(k, n_prefix)
        ) if c_rows else None
        self._n_prefix = n_prefix
        # 32-bit cell indices while they fit (as when every row's cells were held: the same products)
        self._itype = np.int32 if max(n_cells + 1, n * len(cell_sets)) < 2**31 else np.int64
        self._bounds = [(s0, min(n, s0 + self._BLOCK)) for s0 in range(0, n, self._BLOCK)] if cell_sets else []
        self._plan_atoms(radix, min(n, self._BLOCK))
        # the sets cheaper to count through their members
        self.member_ids = np.concatenate(by_members) if by_members else np.zeros(0, dtype=np.int64)
        self._members: MemberCounter | None = None
        if len(self.member_ids):
            assert bits is not None and support is not None  # by_members is empty without them
            chosen = bits(self.member_ids) if callable(bits) else bits[self.member_ids]
            self._members = MemberCounter(unpack_to_csc(chosen, n, support[self.member_ids]))

    def _plan_atoms(self, radix: np.ndarray, block_rows: int) -> None:
        """The column sets counted (0/1 columns) through the atoms of a few supersets (:mod:`.cell_atoms`): their
        maps (:attr:`_atom_maps`, one per superset, to its atoms), the fold from atoms to cells (:attr:`_fold`),
        and the sets counted directly (:attr:`_direct`)."""
        dense = [g for g, m in enumerate(self._maps) if m[2] is not None]
        plan = plan_atoms([self._maps[g][0] for g in dense], radix, block_rows)
        self._atom_maps: list[_Map] = []
        self._atom_sizes: list[int] = []
        cells, atoms, n_atoms = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.int64)], 0
        covered: set[int] = set()
        for cols, sets in plan:
            size = int(np.prod([int(radix[c]) for c in cols]))
            # an empty dense map: the identity (a row's atom is its code in the superset's cross-table), not gathered
            self._atom_maps.append(_cell_map(cols, mixed_radix(cols, radix), np.zeros(0, dtype=np.int64), None))
            self._atom_sizes.append(size)
            c_, a_ = fold_entries(cols, radix, n_atoms, [self._dense_map(dense[i]) for i in sets])
            cells.append(c_)
            atoms.append(a_)
            covered.update(dense[i] for i in sets)
            n_atoms += size
        r, c = np.concatenate(cells), np.concatenate(atoms)
        self._fold = sp.csr_matrix((np.ones(len(r), dtype=np.uint16), (r, c)), shape=(self.n_cells + 1, n_atoms))
        self._n_atoms = n_atoms
        self._direct = [m for g, m in enumerate(self._maps) if g not in covered]

    def _dense_map(self, g: int) -> tuple[list[int], np.ndarray]:
        """The columns and the dense map (codes to cells) of the set ``g`` of :attr:`_maps`."""
        cols, _, dense, _, _ = self._maps[g]
        assert dense is not None  # only sets indexed densely are counted through atoms
        return cols, dense

    def cell_counts(self, Y: np.ndarray | PackedColumns) -> np.ndarray:
        """(cells + sink, c) counts of every cell's rows where each column of ``Y`` is 1 (weighted: its sum; ``Y``
        may be :class:`~..error_control.counters.PackedColumns`, read a block of rows at a time). The sink, which
        nothing reads, holds only the rows of the sets counted directly. Float64, or float32 for 0/1 columns of
        fewer than 2^24 rows (:attr:`_EXACT32`): every count is an integer of at most the rows, exact in either,
        and the max-T's batches in flight hold half the memory (the patterns' sums read them as float64)."""
        Y = as_columns(Y)
        binary = is_binary(Y)
        dtype = np.float32 if binary and self.shape[0] < self._EXACT32 else np.float64
        out = np.zeros((self.n_cells + 1, Y.shape[1]), dtype=dtype)
        # 0/1 columns: exact integer counts whatever the blocks, so blocks of at most _CELL_ENTRIES cell indices
        # (a few MB per thread); weights: their float sums grouped in _BLOCK rows, as always
        if not binary:  # weights: their float sums grouped in _BLOCK rows through every set's cells, as always
            for s0, s1, (C,) in self._cell_blocks(self._BLOCK, [(self._maps, self.n_cells + 1)]):
                out += float_ones(C) @ Y[s0:s1].astype(np.float64)
            return out
        # exact 16-bit counts (at most 65,535 rows per block): the sets counted directly, and the others summed
        # from their supersets' atoms (each block's cell counts at most its rows: exact in 16 bits too); each
        # superset's atoms in a product of their own, whose (atoms, c) result stays in cache (one product of every
        # superset's atoms took 2.7 times as long: each row's entries landed far apart in the result)
        first = np.cumsum([0, *self._atom_sizes])
        groups = [(self._direct, self.n_cells + 1)] + [([m], size) for m, size in zip(self._atom_maps,
                                                                                    self._atom_sizes, strict=True)]
        rows = max(1, min(self._BLOCK, self._CELL_ENTRIES // max(1, len(self._direct) + len(self._atom_maps))))
        for s0, s1, (C, *by_superset) in self._cell_blocks(rows, groups):  # none when every set goes by members
            block = Y[s0:s1].astype(np.uint16)
            if C is not None:
                out += C @ block
            if by_superset:
                atoms = np.empty((self._n_atoms, block.shape[1]), dtype=np.uint16)
                for a0, a1, S in zip(first[:-1], first[1:], by_superset, strict=True):
                    atoms[a0:a1] = cast(sp.csc_matrix, S) @ block
                out += self._fold @ atoms
                del atoms
            # this block's rows, cells and atoms let go before the next block's are formed: rebinding them after
            # held two of each per counting worker at a time (the rows' block alone 26 MB at 50 permutations x 4)
            del block, C, by_superset
        return out

    def _cell_blocks(self, rows: int, groups: list[tuple[list[_Map], int]]) -> Iterator[
            tuple[int, int, list[sp.csc_matrix | None]]]:
        """(first row, end row, per group of maps its (cells, rows) indicator, None for no maps) of every block of
        ``rows`` rows, formed from the rows' codes when read (a group: the maps of its sets, and its cells, the last
        the sink): a block's cells cost ``block x sets`` indices for the time of its product, where holding every
        row's cells cost ``rows x sets`` (1 KB per row for the 175 column sets of 10 columns). Each set's code is
        summed from the block's columns, each contiguous (a quarter of the time of a product of the gathered
        (block, L) codes with the strides: the same codes)."""
        n = self.shape[0]
        for s0 in range(0, n, rows) if self._bounds else ():
            s1 = min(n, s0 + rows)
            by_column = np.ascontiguousarray(self._codes[s0:s1].T).astype(np.int64)  # (columns, block)
            yield s0, s1, [_block_cells(maps, by_column, self._itype, size) if maps else None for maps, size in groups]

    def count(self, Y: np.ndarray | PackedColumns) -> np.ndarray:
        """(patterns, c) float64: rows of each pattern where each column of the (rows, c) ``Y`` is 1; for a
        float ``Y`` (weights), the sum of its values over each pattern's rows."""
        return self.deferred(Y)(slice(None))

    def deferred(self, Y: np.ndarray | PackedColumns) -> Finish:
        """:meth:`count` in two steps (:func:`~..error_control.counters.deferred_count`): the pass over the rows
        into the cells' counts (and the prefix sums, and the patterns counted through their members) now; each
        pattern's sum of its cells for a slice of the columns when the returned function is called. Every
        column is summed as :meth:`count` sums it (a sparse product's columns are independent): the same
        counts."""
        Y = as_columns(Y)
        c = Y.shape[1]
        cells = self.cell_counts(Y) if self._bounds else None
        prefix = self._prefix_sums(cells) if cells is not None and self._corner_A is not None else None
        members = self._members.count(Y) if self._members is not None else None

        def finish(cols: slice) -> np.ndarray:
            out: np.ndarray
            if cells is not None:
                out = self.A @ cells[:, cols]
                if prefix is not None:
                    assert self._corner_A is not None
                    out += self._corner_A @ prefix[:, cols]
            else:
                out = np.zeros((self.shape[1], len(range(*cols.indices(c)))))
            if members is not None:
                out[self.member_ids] = members[:, cols]
            return out
        return finish

    def sparse_count(self, D: sp.spmatrix) -> sp.csr_matrix:
        """(patterns, c) sparse float64 sums of the columns of the sparse (rows, c) ``D`` over each pattern's rows (the
        candidates x clusters sums of :mod:`.cluster_flips`), by sparse products through the cells."""
        D = sp.csr_matrix(D, dtype=np.float64)
        out = sp.csr_matrix((self.shape[1], D.shape[1]), dtype=np.float64)
        if self._bounds:
            cells = sp.csr_matrix((self.n_cells + 1, D.shape[1]), dtype=np.float64)
            for s0, s1, (C,) in self._cell_blocks(self._BLOCK, [(self._maps, self.n_cells + 1)]):
                cells = cells + float_ones(C) @ D[s0:s1]
            out = sp.csr_matrix(self.A @ cells)
        if self._members is not None:  # their rows of ``A`` are empty: scatter the members' sums there
            k = len(self.member_ids)
            P = sp.csr_matrix((np.ones(k), (self.member_ids, np.arange(k))), shape=(self.shape[1], k))
            out = sp.csr_matrix(out + P @ self._members.sparse_count(D))
        return out


    def _prefix_sums(self, cells: np.ndarray) -> np.ndarray:
        """(prefix entries, c): per corner-counted column set, ``S[h_1, ..., h_L]`` = the counts of the cells with
        every code ``j`` below ``h_j`` (a zero first slice on every axis), flattened."""
        out = np.empty((self._n_prefix, cells.shape[1]), dtype=np.float64)
        for first, shape, at in self._corners:  # one cumulative sum per axis of each cross-table
            cube = np.zeros(tuple(r + 1 for r in shape) + (cells.shape[1],), dtype=np.float64)
            cube[tuple(slice(1, None) for _ in shape)] = cells[first:first + int(np.prod(shape))].reshape(
                *shape, cells.shape[1])
            for axis in range(len(shape)):
                np.cumsum(cube, axis=axis, out=cube)
            out[at:at + cube.size // cells.shape[1]] = cube.reshape(-1, cells.shape[1])
        return out


def _corner_entries(lo: np.ndarray, hi: np.ndarray, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray,
                                                                                      np.ndarray]:
    """Inclusion-exclusion of (k, L) boxes ``lo <= code < hi`` over prefix sums of a cross-table of ``shape``: the
    count of a box is the sum over its 2^L corners (each axis at ``hi`` or at ``lo``) of ``S[corner]`` times
    ``(-1)^(axes at lo)``; a corner with an axis at 0 adds nothing and is left out. Returns (pattern, prefix entry,
    sign) of every term."""
    k, L = lo.shape
    pstride = np.ones(L, dtype=np.int64)
    for j in range(L - 2, -1, -1):
        pstride[j] = pstride[j + 1] * (shape[j + 1] + 1)
    rows, cols, signs = [], [], []
    for bits in range(2**L):  # 2^L corners, each vectorised over the patterns
        at_hi = np.array([(bits >> j) & 1 for j in range(L)], dtype=bool)
        corner = np.where(at_hi[None, :], hi, lo)
        keep = np.all(corner > 0, axis=1)
        rows.append(np.flatnonzero(keep))
        cols.append(corner[keep] @ pstride)
        signs.append(np.full(int(keep.sum()), -1.0 if (L - int(at_hi.sum())) % 2 else 1.0))
    return np.concatenate(rows), np.concatenate(cols), np.concatenate(signs)


def _block_cells(maps: list[_Map], by_column: np.ndarray, itype: type, size: int) -> sp.csc_matrix:
    """The (``size``, block) 0/1 indicator of a block's rows (``by_column``: (columns, block) codes) in the cells
    of the sets of ``maps`` (the last cell the sink)."""
    set_cells: np.ndarray = np.empty((len(maps), by_column.shape[1]), dtype=itype)  # (sets, block)
    for g, (cols, stride, dense, present, cell) in enumerate(maps):
        code = by_column[cols[0]] * stride[0]
        for c, st in zip(cols[1:], stride[1:].tolist(), strict=True):
            code += by_column[c] * st
        if dense is not None:
            set_cells[g] = dense[code] if len(dense) else code  # empty: the identity map of a superset's atoms
        else:  # the used cells' codes, sorted: the others (and empty cells) go to the sink
            pos = np.minimum(np.searchsorted(present, code), max(len(present) - 1, 0))
            set_cells[g] = np.where(present[pos] == code, cell[pos], -1) if len(present) else -1
    set_cells[set_cells < 0] = size - 1  # the sink
    return _cells_of(set_cells.T, size)


def _cell_map(cols: list[int], stride: np.ndarray, dense: np.ndarray | None,
              found: tuple[np.ndarray, np.ndarray] | None) -> tuple[list[int], np.ndarray, np.ndarray | None,
                                                                     np.ndarray, np.ndarray]:
    """How :meth:`CellCounter._cell_blocks` finds a row's cell in one column set: a map from every code of the
    cross-table (``dense``, -1 for the sink; kept while it holds at most 2^20 codes; empty: the identity), else
    the sorted codes of the used cells and their cells (``found``: the non-empty codes and their cells, -1
    unused)."""
    if dense is not None and len(dense) <= 2**20 or found is None:
        assert dense is not None
        return cols, stride, dense, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    present, cell = found
    used = cell >= 0
    return cols, stride, None, present[used], cell[used]


def _cells_of(row_cells: np.ndarray, n_cells: int) -> sp.csc_matrix:
    """(cells, rows) 0/1 indicator of a block of rows (``row_cells``: each row's cell in every column set)."""
    g = row_cells.shape[1]
    indptr = np.arange(0, row_cells.size + 1, g, dtype=row_cells.dtype)
    rows_t = sp.csr_matrix((np.ones(row_cells.size, dtype=np.uint16), row_cells.ravel(), indptr),
                           shape=(len(row_cells), n_cells))
    return rows_t.T  # CSC: the product reads each row's cells once


class _CellIndex:
    """Positions of the non-empty cells of one cross-table (``code``: every row's cell), by a dense lookup
    table when the cross-table is small, else by binary search in the sorted non-empty codes."""

    def __init__(self, code: np.ndarray, n_codes: int, dense: bool):
        self.present = np.flatnonzero(np.bincount(code, minlength=n_codes)) if dense else np.unique(code)
        self.size = len(self.present)
        self.lookup: np.ndarray | None = None
        if dense:
            self.lookup = np.full(n_codes, -1, dtype=np.int64)
            self.lookup[self.present] = np.arange(self.size)

    def of(self, codes: np.ndarray) -> np.ndarray:
        """Position of each code among the non-empty cells, -1 for an empty cell."""
        if self.lookup is not None:
            out: np.ndarray = self.lookup[codes]
            return out
        if self.size == 0:
            return np.full(np.shape(codes), -1, dtype=np.int64)
        pos = np.minimum(np.searchsorted(self.present, codes), self.size - 1)
        return np.where(self.present[pos] == codes, pos, -1)


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
