"""Pattern candidates: every conjunction of attribute = value (or numeric range) conditions with enough rows.

The third kind of subgroup next to the ASDF clusters and their entropy patterns. Candidates are mined level
by level, Apriori style, on one sparse boolean indicator matrix (rows x items):

* **Items.** A categorical column (or a numeric one with at most ``n_bins`` distinct values) gives one item
  per value, ``sex=Female``. Any other numeric column is cut at its quantiles into ``n_bins`` bins (ties
  merge bins), and every run of 1 to ``max_merge`` adjacent bins is an item, labelled by its range:
  ``age ∈ [25, 34)`` (the last bin is closed, ``[60, 90]``). Merged runs let a condition fit a region that
  straddles bin edges (a slice of width 0.22 is covered by two deciles and Jaccard 0.9, by one quintile
  never better than 0.9 and often 0.5).
* **Levels.** Level 1 is every item with support >= ``min_support``. Level k + 1 extends each level-k
  pattern by every later item of another column: the supports of all extensions are one sparse product
  (level-k membership transposed times the item matrix); those below ``min_support`` are pruned before
  their membership is formed (an elementwise product of the two sparse columns). Support is anti-monotone,
  so nothing frequent is lost.
* **Identical row sets.** Patterns with the same rows (``a=x`` and ``a=x AND b=y`` when every ``a=x`` row
  has ``b=y``) are kept once, the shortest description (then the first found); the others are counted in
  :attr:`MinedPatterns.n_identical`.

References:
    R. Agrawal and R. Srikant, "Fast algorithms for mining association rules", VLDB 1994 (Apriori).
    E. Pastor, L. de Alfaro and E. Baralis, "Looking for trouble: analyzing classifier behavior via pattern
    divergence", SIGMOD 2021 (DivExplorer: frequent patterns as fairness subgroups).
    Y. Chung et al., "Slice finder: automated data slicing for model validation", ICDE 2019.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..._param_tables import SUBGROUP_PARAMS
from ..._progress import tracked
from ..bitsets import popcount_and, unpack_one, unpack_to_csc
from .cell_counts import CellCounter
from .numeric_conditions import (
    base_edges,
    bin_quantiles,
    check_thresholds,
    condition_text,
    cut_neighbours,
    cut_text,
    numeric_items,
    threshold_quantiles,
)
from .pattern_bits import and_of, blocks_of, keys_of, pack_items, slot_matrix

__all__ = ["MinedPatterns", "PatternText", "Items", "build_items", "mine_patterns", "check_min_support"]

#: Default quantile bins of a numeric column.
DEFAULT_BINS: int = SUBGROUP_PARAMS.default("n_bins")
#: Default longest run of adjacent bins merged into one range item.
DEFAULT_MAX_MERGE: int = SUBGROUP_PARAMS.default("max_merge")
#: Default quantile steps of the one-sided conditions of the analyses (:mod:`.numeric_conditions`).
DEFAULT_THRESHOLDS: int | None = SUBGROUP_PARAMS.default("thresholds")
#: Bytes of the bitwise AND of a block of patterns with every item (block x items x 64-bit words), the temporary
#: of the support count: a level's extensions are counted one such block of patterns at a time (at least one
#: pattern), and ``max_patterns`` is checked after each block, so a level that will be left out is counted only
#: until it passes the bound.
COUNT_BLOCK_BYTES: int = 32 * 2**20


@dataclass(frozen=True)
class Items:
    """The conditions patterns are made of.

    Attributes:
        column: position of each item's column in ``columns``.
        columns: the column names.
        labels: readable condition per item (``"sex=Female"``, ``"age ∈ [25, 34)"``).
        values: per item, the value (categorical) or the ``(low, high, closed)`` range (numeric).
        indicator: the (rows, items) boolean CSC matrix held as given (items whose codes do not describe it), or
            None: :attr:`matrix` is then formed from ``codes`` when read, never held (:func:`build_items`: 162 MB
            at a million rows and 10 columns, held from the mining to the end of the analysis before, which reads
            it only in the mining).
        codes: (rows, columns) base code of every row in every column: its value's position among the
            column's sorted values (categorical), or its quantile bin (numeric). :func:`build_items` holds them in
            the smallest unsigned integer type above every code (uint8 while each column has at most 255 codes: a
            quarter of int32's 38 MB at a million rows and 10 columns); any integer type is read the same.
        lo, hi: per item, the base codes it covers, ``lo <= code < hi`` (one code for a value, a run of base bins
            for a range or a one-sided condition, :mod:`.numeric_conditions`).
        edges: per column, the edges of its base bins (base bin ``b`` is ``[edges[b], edges[b + 1])``, the last
            one closed), None for a column coded by value; None when not recorded (items built before one-sided
            conditions: the edges are then read from the ranges).
        notes: what the items leave out and why (a numeric column with one value gets no one-sided condition).
    """

    column: np.ndarray
    columns: list[str]
    labels: list[str]
    values: list[Any]
    indicator: sp.csc_matrix | None
    codes: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    edges: tuple[np.ndarray | None, ...] | None = None
    notes: tuple[str, ...] = ()

    @property
    def n_rows(self) -> int:
        """Rows of the table the items were built on."""
        return int(self.codes.shape[0] if self.indicator is None else self.indicator.shape[0])

    @property
    def matrix(self) -> sp.csc_matrix:
        """The (rows, items) boolean CSC matrix, true where row i satisfies item j. Formed from the codes when no
        :attr:`indicator` is held (each read forms it again: the mining reads it once): item j holds the rows
        whose code in its column is in ``[lo[j], hi[j])``, column by column as :func:`build_items` tests them, the
        same matrix."""
        if self.indicator is not None:
            return self.indicator
        n = self.n_rows
        blocks = []
        for c, at in self._items_by_column():
            lo, hi, code = self.lo[at], self.hi[at], self.codes[:, c]
            if np.array_equal(lo, np.arange(len(at))) and np.array_equal(hi, lo + 1):  # one item per code
                blocks.append(sp.csc_matrix((np.ones(n, dtype=bool), (np.arange(n), code)), shape=(n, len(at))))
            else:  # runs of codes: a dense (n, runs) test
                blocks.append(sp.csc_matrix((code[:, None] >= lo[None, :]) & (code[:, None] < hi[None, :])))
        out = sp.hstack(blocks, format="csc") if blocks else sp.csc_matrix((n, 0), dtype=bool)
        return out.astype(bool)

    @property
    def n_members(self) -> int:
        """The true entries of :attr:`matrix` (rows satisfying each item, summed over the items), counted from the
        codes when no indicator is held."""
        if self.indicator is not None:
            return int(self.indicator.nnz)
        total = 0
        for c, at in self._items_by_column():
            below = np.concatenate([[0], np.cumsum(np.bincount(self.codes[:, c], minlength=int(self.hi[at].max())))])
            total += int((below[self.hi[at]] - below[self.lo[at]]).sum())
        return total

    def _items_by_column(self) -> Iterator[tuple[int, np.ndarray]]:
        """Each column that has items, with the positions of its items (a column without items adds nothing)."""
        for c in range(self.codes.shape[1]):
            at = np.flatnonzero(self.column == c)
            if len(at):
                yield c, at


@dataclass(frozen=True, eq=False)
class PatternText:
    """What a family of mined patterns says about its candidates without their rows: descriptions, conditions,
    the max-T description classes, the condition table, sizes and row-set keys (shared by the in-memory
    :class:`MinedPatterns` and the Dask-counted :class:`~.dask_detect.DaskPatterns`), and what the mining left out
    (``max_patterns``). It holds the fields both families have; each adds how its rows are held.

    Attributes:
        items: the items (see :class:`Items`).
        patterns: per pattern, the sorted tuple of its item positions.
        support: rows per pattern.
        keys: (patterns, 3) keys of the patterns' row sets (equal keys = identical rows).
        n_identical: patterns left out because an earlier, not longer pattern had the same rows.
        min_support: the support threshold in rows.
        max_length: the longest conjunction asked for.
        max_patterns: the bound on the number of patterns (None: none).
        skipped_length: the shortest length not mined because its patterns would have brought the total above
            ``max_patterns`` (None: every length up to ``max_length`` was mined, or no pattern reached it).
        skipped_count: how many patterns of that length were found (0 when none was skipped).
        skipped_count_is_lower_bound: whether ``skipped_count`` is a lower bound (the length holds at least that
            many) rather than the exact number.
    """

    items: Items
    patterns: list[tuple[int, ...]]
    support: np.ndarray
    keys: np.ndarray
    n_identical: int
    min_support: int
    max_length: int
    # keyword-only: each family's own fields (without defaults) follow these in its constructor
    max_patterns: int | None = field(default=None, kw_only=True)
    skipped_length: int | None = field(default=None, kw_only=True)
    skipped_count: int = field(default=0, kw_only=True)
    skipped_count_is_lower_bound: bool = field(default=False, kw_only=True)

    kind: ClassVar[str] = "pattern"
    method_name: ClassVar[str] = "the mined patterns"
    has_conditions: ClassVar[bool] = True
    count_label: ClassVar[str | None] = "patterns"

    @property
    def method(self) -> str:
        """How the comparison of the discovery methods names the family."""
        return self.method_name

    @property
    def mined_length(self) -> int:
        """The longest conjunction actually mined (``max_length`` unless a length was skipped)."""
        return self.max_length if self.skipped_length is None else self.skipped_length - 1

    def truncation_note(self) -> str:
        """The sentence saying that a length was not mined, and why (empty when none was skipped)."""
        if self.skipped_length is None:
            return ""
        of = f"of {self.skipped_length} condition{'s' if self.skipped_length != 1 else ''}"
        left_out = (f"at least {self.skipped_count:,} patterns {of} (counting stopped once they passed the bound)"
                    if self.skipped_count_is_lower_bound else f"the {self.skipped_count:,} patterns {of}")
        return (f"Mined patterns stop at {self.mined_length} condition{'s' if self.mined_length > 1 else ''}: "
                f"{left_out} would have brought the "
                f"{len(self.patterns) + self.n_identical:,} shorter ones above max_patterns={self.max_patterns:,} "
                "(the max-T's time and memory grow with the patterns). Pass max_patterns=None to mine them, or a "
                "larger min_support or fewer columns to keep fewer.")

    def conditions_note(self) -> str:
        """The sentences saying which numeric columns got no one-sided condition, and why (empty when none)."""
        return " ".join(self.items.notes)

    @property
    def ids(self) -> np.ndarray:
        """The pattern ids: 0, 1, ... in mining order."""
        return np.arange(len(self.patterns))

    def row_keys(self) -> np.ndarray:
        """(patterns, 3) keys of the patterns' row sets (equal keys = identical rows)."""
        return self.keys

    def sizes(self) -> pd.arrays.IntegerArray:
        """Rows per pattern."""
        return pd.array(self.support, dtype="Int64")

    def defined(self) -> np.ndarray:
        """Every mined pattern defines a subgroup."""
        return np.ones(len(self.patterns), dtype=bool)

    def description(self, i: int) -> str:
        """``"a=x AND b ∈ [1, 2)"`` for pattern ``i``."""
        return " AND ".join(self.items.labels[j] for j in self.patterns[i])

    def conditions(self, i: int) -> dict[str, Any]:
        """Column -> value (categorical) or ``(low, high, closed)`` range (numeric) of pattern ``i``."""
        return {self.items.columns[self.items.column[j]]: self.items.values[j] for j in self.patterns[i]}

    def description_class(self) -> np.ndarray:
        """Per pattern, its shape ``pattern:<conditions>:<numeric ranges>`` (not its values): the class of the
        max-T penalty (:func:`~.maxt.class_offsets`)."""
        is_range = np.array([isinstance(v, tuple) for v in self.items.values], dtype=bool)
        return np.array([f"pattern:{len(pat)}:{int(is_range[list(pat)].sum())}" for pat in self.patterns],
                        dtype=object)

    def condition_table(self) -> pd.DataFrame:
        """Index id, a column per attribute: the value, or the range as text ``[low, high)`` (without thresholds)
        or ``≥ 44 and < 49``, or the one-sided condition ``≥ 49`` / ``< 49``, of each condition (NaN where the
        pattern has none on the attribute)."""
        cols = self.items.columns
        table = np.full((len(self.patterns), len(cols)), np.nan, dtype=object)
        for i, pat in enumerate(self.patterns):  # one row per pattern, <= max_length cells each
            for j in pat:
                label = self.items.labels[j]
                c = self.items.column[j]
                value = self.items.values[j]
                if not isinstance(value, tuple):
                    table[i, c] = value
                else:  # "[25, 34)" (a range without thresholds), "≥ 49", "≥ 44 and < 49"
                    table[i, c] = label[len(cols[c]) + 3:] if " ∈ " in label else condition_text(value)
        return pd.DataFrame(table, index=pd.Index(self.ids, name="id"), columns=cols)


@dataclass(frozen=True)
class MinedPatterns(PatternText):
    """Patterns mined from one table: the candidate family of kind ``"pattern"``.

    Implements :class:`~aif360_subjective.detectors.candidates.CandidateFamily`: its candidates are the patterns
    in mining order (ids 0, 1, ...), counted through their cells (:meth:`counter`). The patterns' row bitsets are
    not held: each is the AND of its items' (:mod:`.pattern_bits`), formed by :meth:`bits_of` when read.

    Attributes:
        item_bits: (frequent items + 1, words) uint64 bitsets of the frequent items' rows and, last, an all-ones
            bitset (:func:`.pattern_bits.with_ones`).
        slots: (patterns, widest) int32 rows of ``item_bits`` whose AND is each pattern's rows (padded with the
            all-ones row).
        keys: (patterns, 3) :func:`~.bitsets.bit_keys` of their rows (equal keys = identical rows).
        skipped_count: how many patterns of the skipped length were found (0 when none was skipped): all of them,
            or, when ``skipped_count_is_lower_bound``, those found before the count stopped (it stops once they
            pass the bound, :func:`mine_patterns`).
        (the others: :class:`PatternText`)
    """

    item_bits: np.ndarray
    slots: np.ndarray

    @property
    def n_rows(self) -> int:
        """Rows of the table the patterns were mined from."""
        return self.items.n_rows

    @cached_property
    def _counter(self) -> CellCounter:
        return CellCounter(self.items.codes, self.items.column, self.items.lo, self.items.hi, self.patterns,
                           bits=self.bits_of, support=self.support)

    def bits_of(self, positions: np.ndarray | slice, words: slice = slice(None)) -> np.ndarray:
        """(len(positions), words) bitsets of the patterns at ``positions`` (formed: each the AND of its items'),
        or their ``words`` only (a block of rows)."""
        return and_of(self.item_bits[:, words], self.slots[positions])

    @cached_property
    def _item_within(self) -> np.ndarray:
        """(items + 1, items + 1) bool: every row of item ``a`` is in item ``b`` (their overlap is ``a``'s size;
        the last row and column: the all-ones padding, which holds every item)."""
        overlap = popcount_and(self.item_bits, self.item_bits)
        within: np.ndarray = overlap == np.diag(overlap)[:, None]
        return within

    def held_by_items(self, g: np.ndarray, s: np.ndarray) -> np.ndarray:
        """Per pair j, whether every row of pattern ``s[j]`` is known to be in pattern ``g[j]`` from their items
        alone: each item of ``g[j]`` holds some item of ``s[j]`` (the same item, or a wider range or threshold on
        the same column, or any item whose rows hold the other's), so the AND of ``s[j]``'s items lies in each
        of ``g[j]``'s. A sufficient condition: False says nothing (the rows must tell). The items' overlaps are
        counted once (``items^2`` word pairs, not ``patterns^2``)."""
        within = self._item_within
        of_g, of_s = self.slots[g], self.slots[s]
        out = np.ones(len(of_g), dtype=bool)
        for j in range(of_g.shape[1]):  # <= max_length items of g, each vectorised over the pairs
            out &= within[of_s, of_g[:, j:j + 1]].any(axis=1)
        return out

    @property
    def row_bits(self) -> np.ndarray:
        """(patterns, words) every pattern's bitset, formed on each access (``patterns x rows / 8`` bytes: read
        :meth:`bits_of` for a few)."""
        return self.bits_of(slice(None))

    def members(self) -> sp.csc_matrix:
        """(rows, patterns) boolean CSC membership, unpacked from the bitsets a block at a time when asked for
        (the analysis itself counts through :meth:`counter`)."""
        parts = [unpack_to_csc(self.bits_of(sl), self.n_rows, self.support[sl])
                 for sl in blocks_of(len(self.patterns), self.item_bits.shape[1])]
        return sp.hstack(parts, format="csc") if parts else sp.csc_matrix((self.n_rows, 0), dtype=bool)

    def bits(self) -> np.ndarray:
        """(patterns, words) bitsets of the patterns' rows (every one formed: :meth:`bits_of` forms a few)."""
        return self.row_bits

    def counter(self) -> CellCounter:
        """The patterns' exact counts through their cells (:class:`~.cell_counts.CellCounter`)."""
        return self._counter

    def rows(self, i: int) -> np.ndarray:
        """The rows (sorted) of pattern ``i``."""
        return unpack_one(self.bits_of(np.array([i]))[0], self.n_rows)


def check_min_support(min_support: Any, n: int) -> int:
    """``min_support`` as a number of rows: an int >= 1 is a count, a float in (0, 1) a share of ``n``.

    Raises:
        TypeError: not a number.
        ValueError: a count < 1 or a share outside (0, 1).
    """
    if isinstance(min_support, bool) or not isinstance(min_support, numbers.Real):
        raise TypeError(f"min_support must be a row count (int >= 1) or a share in (0, 1), got {min_support!r}")
    if isinstance(min_support, numbers.Integral):
        if min_support < 1:
            raise ValueError(f"min_support as a row count must be >= 1, got {min_support}")
        return int(min_support)
    if not 0 < float(min_support) < 1:
        raise ValueError(f"min_support as a share must be in (0, 1), got {min_support}")
    return max(1, int(np.ceil(float(min_support) * n - 1e-9)))


def value_items(c: str, uniques: Any) -> tuple[list[str], list[Any], list[int], list[int]]:
    """Labels, values and code runs of one item per value of column ``c`` (``uniques``: its sorted values, the
    value of code ``k`` at position ``k``)."""
    vals = [u.item() if isinstance(u, np.generic) else u for u in uniques]
    k = len(vals)
    return [f"{c}={u}" for u in vals], vals, list(range(k)), list(range(1, k + 1))


def build_items(
    X: pd.DataFrame,
    categorical: list[str],
    n_bins: int = DEFAULT_BINS,
    max_merge: int = DEFAULT_MAX_MERGE,
    thresholds: int | None = None,
) -> Items:
    """One item per categorical value, per run of adjacent quantile bins of every numeric column and, with
    ``thresholds``, per one-sided condition at its quantile steps (:mod:`.numeric_conditions`).

    Args:
        X: feature table (validated: no missing values).
        categorical: the categorical column names.
        n_bins: quantile bins per numeric column (>= 2).
        max_merge: longest run of adjacent bins forming one range item (>= 1).
        thresholds: quantile steps of the one-sided conditions (``age ≥ 49``, ``age < 49`` at the quantiles
            ``1/thresholds, ...``), or None for ranges only (the default here; the analyses pass their
            ``thresholds`` option, :data:`DEFAULT_THRESHOLDS`). Columns coded by value (categorical, or numeric
            with at most ``n_bins`` values) get none.

    Returns:
        Items: ``notes`` names a numeric column with one value (it has no one-sided condition).
    """
    n = len(X)
    cat = set(categorical)
    col_of, labels, values = [], [], []
    lo_of: list[int] = []
    hi_of: list[int] = []
    edges_of: list[np.ndarray | None] = []
    notes: list[str] = []
    codes_of = np.zeros((n, X.shape[1]), dtype=np.int32)
    q_bins, q_thr = bin_quantiles(n_bins), threshold_quantiles(thresholds)
    for c_pos, c in enumerate(X.columns):
        s = X[c]
        numeric = c not in cat and pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)
        if numeric:
            x = s.to_numpy(dtype=np.float64)
            edges = np.unique(np.quantile(x, q_bins))
            if thresholds is not None and len(edges) == 1 and n:
                notes.append(f"numeric column {c!r} holds one value ({cut_text(float(edges[0]))}): no one-sided "
                             "condition cuts it.")
        elif thresholds is not None and c in cat and pd.api.types.is_numeric_dtype(s) and not \
                pd.api.types.is_bool_dtype(s) and s.nunique() > n_bins:
            notes.append(f"numeric column {c!r} is in categorical_features: one condition per value, no one-sided "
                         "conditions (leave it out of categorical_features for age ≥ t).")
        if not numeric or len(edges) - 1 < 2 or len(np.unique(x)) <= n_bins:
            codes, uniques = pd.factorize(s, sort=True)
            codes_of[:, c_pos] = codes
            part = value_items(c, uniques)
            edges_of.append(None)
        else:
            # a grid finer than the rows is refused where it would cut a column (a table too small for any cut
            # codes its numeric columns by value, whatever the grid)
            t_edges = None if check_thresholds(thresholds, n) is None else np.quantile(x, q_thr)
            near = (None, None) if t_edges is None else cut_neighbours(x, base_edges(edges, t_edges))
            cut = numeric_items(c, edges, t_edges, max_merge, *near)
            # base bin b is [edges[b], edges[b+1]), the last one closed; searchsorted on the inner edges
            b = np.searchsorted(cut.edges[1:-1], x, side="right")
            codes_of[:, c_pos] = b
            part = (cut.labels, cut.values, cut.lo, cut.hi)
            edges_of.append(cut.edges)
        labels.extend(part[0])
        values.extend(part[1])
        lo_of.extend(part[2])
        hi_of.extend(part[3])
        col_of.extend([c_pos] * len(part[0]))
    # the (rows, items) indicator is not held: Items.matrix forms it from the codes when read (row i is in run r
    # when lo[r] <= code[i] < hi[r])
    return Items(np.asarray(col_of, dtype=np.intp), list(X.columns), labels, values, None, narrowest_codes(codes_of),
                 np.asarray(lo_of, dtype=np.int64), np.asarray(hi_of, dtype=np.int64), tuple(edges_of),
                 tuple(notes))


def narrowest_codes(codes: np.ndarray) -> np.ndarray:
    """Non-negative integer ``codes`` in the smallest of uint8, uint16 and uint32 whose largest value is above every
    code (so that the largest code plus one, a column's number of codes, fits too); as given when none fits or a
    code is negative."""
    top = int(codes.max()) if codes.size else 0
    if codes.size and int(codes.min()) < 0:
        return codes
    for dtype in (np.uint8, np.uint16, np.uint32):
        if top < np.iinfo(dtype).max:
            return codes.astype(dtype)
    return codes


def extensions(level: np.ndarray, col: np.ndarray) -> np.ndarray:
    """(m, items) which items extend each pattern of ``level`` (increasing item positions): a later item of a column
    none of its items is on (the level-wise miners' candidates, in memory and on Dask)."""
    ok: np.ndarray = np.arange(len(col))[None, :] > level[:, -1][:, None]
    for j in range(level.shape[1]):  # k <= max_length column checks, vectorised over patterns
        ok &= col[None, :] != col[level[:, j]][:, None]
    return ok


def _frequent_extensions(level: np.ndarray, ext_bits: np.ndarray, col: np.ndarray, min_support: int,
                         room: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """The frequent extensions of a level by a later item of another column, counted a block of patterns at a
    time (:data:`COUNT_BLOCK_BYTES`), stopping after the block where more than ``room`` of them have been found.

    Args:
        level: (m, k) the level's patterns as increasing positions among the frequent items.
        ext_bits: (items + 1, words) the frequent items' bitsets and an all-ones one (:func:`.pattern_bits.with_ones`):
            a block's bitsets are formed from them (never the whole level's at once).
        col: the frequent items' columns.
        min_support: rows.
        room: stop once more than this many are found (None: count them all).

    Returns:
        (pattern, item, support) of each frequent extension found, ordered by pattern then item (the order of
        ``np.nonzero`` over the whole level), and whether they are all of them (if not, their number is a lower
        bound on the level's).
    """
    item_bits = ext_bits[:-1]
    n_items, words = item_bits.shape
    block = max(1, COUNT_BLOCK_BYTES // max(1, n_items * words * 8))
    found: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    n_found, stop = 0, len(level)
    for s0 in range(0, len(level), block):  # m / block passes, each vectorised over its (block, items) pairs
        lv = level[s0:s0 + block]
        counts = popcount_and(and_of(ext_bits, lv), item_bits)  # tiles of its own
        ok = extensions(lv, col) & (counts >= min_support)
        pi, ii = np.nonzero(ok)
        found.append((pi + s0, ii, counts[pi, ii]))
        n_found += len(pi)
        if room is not None and n_found > room:
            stop = s0 + len(lv)
            break
    pi, ii, sup = (np.concatenate([part[i] for part in found]) for i in range(3))
    # the items are in column order, so a pattern not counted has an extension only if its last item's column is
    # not the last one: if none has, nothing was left uncounted
    whole = stop == len(level) or not np.any(col[level[stop:, -1]] < col[-1])
    return pi, ii, sup, bool(whole)


def mine_patterns(items: Items, min_support: int, max_length: int = 3,
                  max_patterns: int | None = None) -> MinedPatterns:
    """Every conjunction of up to ``max_length`` items of distinct columns with >= ``min_support`` rows.

    Rows are 64-bit bitsets: the supports of all extensions of a level are popcounts of bitwise ANDs (a block
    of patterns against every item at once, :data:`COUNT_BLOCK_BYTES`). A pattern's bitset is the AND of its
    items', formed for its block and dropped (:mod:`.pattern_bits`): the memory of the mining is the items'
    bitsets and one block, not a bitset per pattern.

    The number of patterns of length k grows as the k-th power of the columns (5,000 rows of 24 categorical
    columns of 4 levels and 6 numeric ones: 1.06 million patterns of up to 3 conditions, whose max-T took 10
    minutes and 13 GB; ``benchmarks/wide_tables.py``). With ``max_patterns`` a length whose patterns would bring
    the total above it is not mined (nor any longer one): the family is then every pattern of up to
    :attr:`MinedPatterns.mined_length` conditions, and :meth:`MinedPatterns.truncation_note` says so. The
    single items are always kept. The level is counted a block of patterns at a time and its count stops at the
    first block after which its frequent patterns pass the bound: the same length is left out as if it had been
    counted whole, sooner (counting the whole left-out length was most of the mining's time on wide tables), and
    :attr:`MinedPatterns.skipped_count` is then the number found so far, a lower bound
    (:attr:`MinedPatterns.skipped_count_is_lower_bound`). A length that is kept is counted whole, with the same
    patterns, order and supports as in one block.

    Args:
        items: from :func:`build_items`.
        min_support: rows (from :func:`check_min_support`).
        max_length: most conditions per pattern (>= 1).
        max_patterns: most patterns (counted before identical row sets are merged), or None for no bound.

    Returns:
        MinedPatterns: patterns in level order, identical row sets kept once.
    """
    matrix = items.matrix  # formed once here (not held by the items), let go once the items' bits are packed
    sup1 = np.asarray(matrix.sum(axis=0)).ravel()
    keep = np.flatnonzero(sup1 >= min_support)
    # only frequent items are ever part of a pattern: work on those alone (at most n / min_support per column),
    # so that a column of thousands of rare levels costs no dense n x levels block; the patterns' bitsets are
    # formed from these a block at a time (:mod:`.pattern_bits`), never held for a whole level
    ext_bits = pack_items(matrix, keep)
    del matrix
    level = np.arange(len(keep))[:, None]  # (m, k) positions among the frequent items, increasing
    all_pats, all_support = [level], [sup1[keep]]
    col = items.column[keep]
    total, skipped = len(level), (None, 0, False)
    for _ in tracked(range(1, max_length), "pattern mining", max_length, "levels", initial=1,
                     note=lambda: f"{total:,} patterns"):  # noqa: B023 (read after each level: the running count)
        if len(level) == 0:
            break
        # a level is cut when its frequent patterns number more than the room left (>= 1 of them, even when the
        # single items alone are above the bound): counting stops as soon as that many are found
        room = None if max_patterns is None else max(max_patterns - total, 0)
        pi, ii, sup, complete = _frequent_extensions(level, ext_bits, col, min_support, room)
        if len(pi) == 0:
            break
        if room is not None and len(pi) > room:
            skipped = (level.shape[1] + 1, len(pi), not complete)  # before any of them is built
            break
        total += len(pi)
        level = np.column_stack([level[pi], ii])
        all_pats.append(level)
        all_support.append(sup)
    support = np.concatenate(all_support).astype(np.int64)
    slots = slot_matrix(all_pats, len(keep))
    pats = [tuple(row) for lv in all_pats for row in keep[lv].tolist()]  # back to item positions
    # identical row sets: keep the first (patterns are in level order, so the shortest)
    keys = keys_of(lambda sl: and_of(ext_bits, slots[sl]), support, ext_bits.shape[1])
    _, first = np.unique(keys, axis=0, return_index=True)
    first = np.sort(first)
    return MinedPatterns(
        items=items,
        patterns=[pats[i] for i in first],
        item_bits=ext_bits,
        slots=slots[first],
        support=support[first],
        n_identical=int(len(pats) - len(first)),
        min_support=int(min_support),
        max_length=int(max_length),
        keys=keys[first],
        max_patterns=None if max_patterns is None else int(max_patterns),
        skipped_length=skipped[0],
        skipped_count=int(skipped[1]),
        skipped_count_is_lower_bound=bool(skipped[2]),
    )
