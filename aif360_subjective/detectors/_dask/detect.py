"""``detect_subgroups(discovery="patterns")`` on Dask collections: the in-memory analysis from passes of counts.

Every statistic of a mined pattern is a sum over its rows, and a sum over rows splits across partitions. The
analysis makes these passes over the partitions (each returns counts; no row reaches the client):

1. **summary** (:func:`~.dask_summary.summarise`): per column its dtype, missing and infinite values, the kind of
   objects, value counts; the (y_true, y_pred) pair counts; rows per partition;
2. **exact quantile edges** of the numeric columns with many values (:func:`~.dask_summary.exact_quantiles`,
   a few histogram passes): the same edges as ``numpy.quantile``, so the same items as in memory;
3. **one pass per pattern length**: the supports of every candidate extension (Apriori's level-wise search,
   counted per partition through the patterns' cells, :class:`~.cell_counts.CellCounter`), pruned below
   ``min_support`` on the client in the in-memory miner's order;
4. **the (truth, prediction) class counts** of every pattern and two 64-bit hashes of its rows' global positions
   (summed modulo 2^64 in 16-bit pieces, exact): patterns with identical rows are kept once, the first, as in
   memory;
5. **the max-T** from every pattern's permuted class counts (:mod:`~.keyed_permutation`: each row's permuted class
   follows from the seed, the permutation and its global position alone).

The metrics, intervals, rankings and findings are then the in-memory code's, on the same counts: the candidates
form one more candidate family (:class:`DaskPatterns`), whose rows stay in the Dask collection
(:meth:`DaskPatterns.lazy_members`). The redundancy filter needs which listed patterns hold which: pairs that nest
on a seeded sample of rows (membership bits of the sample) are checked exactly by counting their intersections in
one more pass.

What the in-memory analysis does and this one refuses: the clustering (``discovery="asdf"`` / ``"both"``), tasks
other than binary decisions, ``groups=``, ``sample_weight=``, ``loss=`` and ``patterns_from=``.

References:
    R. Agrawal and R. Srikant, "Fast algorithms for mining association rules", VLDB 1994 (the level-wise search).
    J. Gray et al., "Data cube: a relational aggregation operator generalizing group-by, cross-tab, and
    sub-totals", Data Mining and Knowledge Discovery 1(1), 1997.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..._dask import check_workers
from ..._dask.parts import DaskParts
from ..._labels import cell_codes
from ..._progress import tracked
from ..._validation import check_choice
from .._validation import check_labels, eq_array
from ..asdf.clustering import as_generator
from ..candidates import CandidateMetrics, Candidates
from ..error_control.keyed_permutation import seed_of
from ..error_control.maxt import KeyedScheme, MaxTResult, max_t_from_counts
from ..error_control.resampling import DESIGNS
from ..mining.numeric_conditions import (
    base_edges,
    bin_quantiles,
    check_thresholds,
    cut_text,
    numeric_items,
    threshold_quantiles,
)
from ..mining.pattern_mining import Items, PatternText, check_min_support, extensions, value_items
from ..options import PERMUTATION_CHOICES, AnalysisOptions
from ..report import SubgroupReport
from ..subgroup_metrics import METRICS, metrics_from_counts
from ..tasks import TASKS, names_label_task
from .parts import Parts
from .passes import (
    pack_patterns,
    partition_count,
    partition_neighbours,
    partition_permuted,
    pattern_mask,
    sample_bits,
    unchunk,
)
from .summary import TableSummary, exact_quantiles, summarise

__all__ = ["DaskPatterns", "DaskCandidateMetrics", "detect_subgroups_dask"]



#: Per engine: what its inputs are called, and how to bring them (or a sample) into memory.
_ENGINES = {"Dask": ("Dask collections", "compute the collections", ".sample(frac=...).compute()"),
            "Spark": ("Spark DataFrames", "bring the rows into pandas (sdf.toPandas())",
                      ".sample(fraction=...).toPandas()")}


def _refuse(name: str, value: Any, why: str, shown: str | None = None, engine: str = "Dask") -> None:
    text = repr(value) if shown is None else shown
    raise ValueError(f"{name}={text} is not available on {_ENGINES[engine][0]}: {why}")


def check_dask_arguments(*, discovery: Any, task: Any, groups: Any, sample_weight: Any, loss: Any,
                         patterns_from: Any, permutation: Any = "auto", design: Any = "between",
                         engine: str = "Dask") -> None:
    """Refuse what the distributed analysis (``engine``: ``"Dask"`` or ``"Spark"``) does not do, naming the
    argument (before any pass over the data). The values are first checked as in memory (an unknown ``task``,
    ``design`` or ``permutation`` gets the in-memory message).

    Raises:
        ValueError: an unknown ``task``, ``design`` or ``permutation``; ``discovery`` other than ``"patterns"``,
            ``permutation="classical"``, a task other than binary, ``groups``, ``sample_weight``, ``loss`` or
            ``patterns_from`` given.
    """
    check_choice(task, "task", TASKS)
    check_choice(design, "design", DESIGNS)
    _, bring, sample = _ENGINES[engine]
    if discovery != "patterns":
        _refuse("discovery", discovery, 'the clustering runs in memory; pass discovery="patterns" (mined patterns, '
                "counted per partition), or cluster a sample in memory: "
                f"detect_subgroups(X{sample}, ...)", engine=engine)
    check_choice(permutation, "permutation", PERMUTATION_CHOICES)
    if permutation == "classical":
        _refuse("permutation", permutation, f"a classical permutation moves rows across partitions; the {engine} "
                "analysis draws keyed permutations (permutation='auto' or 'keyed'), which the in-memory analysis "
                "reproduces with permutation='keyed'", engine=engine)
    if names_label_task(task):
        _refuse("task", task, f"only binary decisions are audited on {engine} (task='binary' or 'auto'); {bring} "
                "(or a sample) for a multi-class, ordinal or regression task", engine=engine)
    for name, value, why in (
            ("groups", groups, "the cluster permutations move whole clusters across partitions; pass groups=None "
             f"(rows as the unit) or {bring}"),
            ("sample_weight", sample_weight, "the weighted metrics are not counted per partition; pass "
             "sample_weight=None"),
            ("loss", loss, "a per-row loss belongs to a task other than binary"),
            ("patterns_from", patterns_from, f"the patterns are mined from the {engine} table itself")):
        if value is not None:
            _refuse(name, value, why, shown=f"<{type(value).__name__}>", engine=engine)


def _as_series(y: Any, name: str) -> Any:
    import dask.dataframe as dd

    if isinstance(y, dd.DataFrame):
        if len(y.columns) != 1:
            raise ValueError(f"{name} must be one column, got {len(y.columns)} columns")
        y = y[y.columns[0]]
    if not isinstance(y, dd.Series):
        raise TypeError(f"{name} must be a Dask Series partitioned as X (e.g. ddf['label']) when X is a Dask "
                        f"DataFrame, got {type(y).__name__}")
    return y


def align(X: Any, y_true: Any, y_pred: Any) -> tuple[Any, Any, Any]:
    """``X`` and the label Series with as many partitions, paired by position.

    Series of another partitioning are repartitioned onto ``X``'s divisions when both are known; the summary
    pass then checks that every partition's index is ``X``'s (rows paired one to one).

    Raises:
        TypeError: ``X`` is not a Dask DataFrame, or a label is not a Dask Series.
        ValueError: other partitions whose divisions are unknown (alignment needs them).
    """
    X = dask_frame(X)
    out = []
    for name, y in (("y_true", y_true), ("y_pred", y_pred)):
        y = _as_series(y, name)
        if y.npartitions != X.npartitions or (X.known_divisions and y.known_divisions
                                               and tuple(y.divisions) != tuple(X.divisions)):
            unknown = [w for w, obj in (("X", X), (name, y)) if not obj.known_divisions]
            if unknown:
                raise ValueError(
                    f"{name} has {y.npartitions} partitions and X {X.npartitions}, and the divisions of "
                    f"{' and '.join(unknown)} are unknown: aligning them needs known divisions. Pass columns of one "
                    "Dask DataFrame (X = ddf[features], y_true = ddf['label']), or give both an index with known "
                    "divisions (ddf.set_index(...))")
            y = y.repartition(divisions=X.divisions)
        out.append(y)
    return X, out[0], out[1]


def _check_summary(summary: TableSummary, X: Parts) -> None:
    """The in-memory analysis' input checks, on the summary's counts."""
    if not summary.aligned:
        raise ValueError("X, y_true and y_pred come from different Dask collections: their partitions hold other "
                         "rows (other lengths or index). Pass columns of one Dask DataFrame (X = ddf[features], "
                         "y_true = ddf['label'], y_pred = ddf['prediction'])")
    if summary.n < 2:
        raise ValueError(f"X needs at least 2 rows, got {summary.n}")
    missing = {c: s.missing for c, s in summary.columns.items() if s.missing}
    if missing:
        raise ValueError(f"X contains missing values (column: count) {missing}; impute them or encode them as a "
                         "category (e.g. the string 'missing') before subgroup discovery")
    for c, s in summary.columns.items():
        if len(s.dtypes) > 1:
            raise TypeError(f"X column {c!r} has the dtypes {sorted(s.dtypes)} in different partitions; expected "
                            f"one dtype (its declared {X.dtypes[c]}): cast it (X[{c!r}].astype(...)) before "
                            "subgroup discovery")
        kinds = sorted(s.inferred)
        if len(kinds) > 1 or any(k.startswith("mixed") for k in kinds):
            raise TypeError(f"X column {c!r} holds objects of mixed types across partitions ({kinds}); expected "
                            f"values of one type: cast it (X[{c!r}].astype(str)) before subgroup discovery")
        if s.infinite:
            raise ValueError(f"X: column {c!r} holds {s.infinite} infinite values; replace them (or drop the rows) "
                             "before subgroup discovery")


def dask_frame(X: Any) -> Any:
    """``X`` as the Dask analysis reads it: a Dask DataFrame with unique string column names and no dates.

    Raises:
        TypeError: ``X`` is not a Dask DataFrame (a Dask label beside an in-memory ``X``).
        ValueError: no columns, duplicated names, or columns of dates or durations.
    """
    import dask.dataframe as dd

    if not isinstance(X, dd.DataFrame):
        raise TypeError(f"X must be a Dask DataFrame when y_true or y_pred is a Dask collection, got "
                        f"{type(X).__name__} (pass dd.from_pandas(X, npartitions=...) or pandas labels)")
    dated = [c for c, d in X.dtypes.items() if pd.api.types.is_datetime64_any_dtype(d)
             or pd.api.types.is_timedelta64_dtype(d) or isinstance(d, pd.PeriodDtype)]
    if dated:
        raise ValueError(f"X column(s) {dated} hold dates or durations, which subgroup discovery cannot use as they "
                         "are: make each a number or a category, or leave it out")
    if len(X.columns) == 0:
        raise ValueError("X has no feature columns")
    if not all(isinstance(c, str) for c in X.columns):
        X = X.rename(columns={c: str(c) for c in X.columns})
    if pd.Index(X.columns).duplicated().any():
        dup = sorted(set(pd.Index(X.columns)[pd.Index(X.columns).duplicated()]))
        raise ValueError(f"X has duplicated column names: {dup}")
    return X


def class_totals(summary: TableSummary, pos_label: Any, labels: Any, task: str) -> np.ndarray:
    """(4,) rows per (truth, prediction) class (TN, FP, FN, TP), favourable = ``pos_label``, from the pair counts;
    the labels are checked as in memory (:func:`~._validation.check_labels`) on their distinct values.

    Raises:
        ValueError: missing labels, labels outside the admissible pair, or more than two labels.
    """
    pairs = summary.pairs
    t_vals = pairs.index.get_level_values(0).to_numpy()
    p_vals = pairs.index.get_level_values(1).to_numpy()
    counts = pairs.to_numpy(dtype=np.int64)
    for name, v in (("y_true", t_vals), ("y_pred", p_vals)):
        na = pd.isna(v)
        if na.any():
            raise ValueError(f"{name} contains {int(counts[na].sum())} missing values")
    try:
        t, p = check_labels(t_vals, p_vals, len(t_vals), pos_label, labels)
    except ValueError as err:
        seen = pd.unique(np.concatenate([t_vals.astype(object), p_vals.astype(object)]))
        hint = (f"; task={task!r} on Dask audits binary decisions only (the labels take {len(seen)} values)"
                if len(seen) > 2 else "")
        raise ValueError(f"{err} (checked on the distinct values of the Dask collections){hint}") from err
    return np.bincount(cell_codes(t, p), weights=counts, minlength=4).astype(np.float64)


def truth_offsets(summary: TableSummary, pos_label: Any) -> np.ndarray:
    """(partitions, 2) rows with an unfavourable and with a favourable truth before each partition (where each
    partition's places within its truth start)."""
    per = np.zeros((len(summary.pair_parts), 2), dtype=np.int64)
    for i, pairs in enumerate(summary.pair_parts):
        if len(pairs):
            fav = eq_array(pairs.index.get_level_values(0).to_numpy(), pos_label)
            per[i] = [int(pairs.to_numpy()[~fav].sum()), int(pairs.to_numpy()[fav].sum())]
    return np.vstack([np.zeros((1, 2), dtype=np.int64), np.cumsum(per, axis=0)[:-1]])


def _counts_or_empty(summary: TableSummary, c: str) -> pd.Series:
    counts = summary.columns[c].counts
    return pd.Series(dtype=np.int64) if counts is None else counts


def build_items(X: Parts, summary: TableSummary, categorical: list[str], n_bins: int, max_merge: int,
                thresholds: int | None = None) -> Items:
    """:func:`~.pattern_mining.build_items` from the summary's counts and the exact quantile edges (the items
    carry no rows: an empty membership matrix and codes); the one-sided conditions' readable cuts from one more
    pass (each threshold edge's nearest values below and at or above it,
    :func:`~aif360_subjective.detectors.mining.numeric_conditions.cut_neighbours` per partition, reduced by the maximum
    and the minimum).

    Raises:
        ValueError: a column whose quantile edges collapse with too many values to code by value; ``thresholds``
            finer than the rows (:func:`~aif360_subjective.detectors.mining.numeric_conditions.check_thresholds`).
    """
    q_bins, q_thr = bin_quantiles(n_bins), threshold_quantiles(thresholds)
    q = np.concatenate([q_bins, q_thr])
    cat = set(categorical)
    numeric = [c for c in X.columns if c not in cat and pd.api.types.is_numeric_dtype(X.dtypes[c])
               and not pd.api.types.is_bool_dtype(X.dtypes[c])]
    # numeric columns with few values are coded by value, as in memory: their quantiles are not needed
    few = {c for c in numeric if len(_counts_or_empty(summary, c)) <= n_bins and summary.columns[c].counts is not None}
    quantiles = exact_quantiles(X, summary, [c for c in numeric if c not in few], q)
    edges_of = {c: v[:len(q_bins)] for c, v in quantiles.items()}
    thr = {c: v[len(q_bins):] for c, v in quantiles.items() if len(np.unique(v[:len(q_bins)])) - 1 >= 2}
    cuts = {c: base_edges(np.unique(edges_of[c]), t) for c, t in thr.items()}
    near: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    if cuts and thresholds is not None:
        parts = X.map(partition_neighbours, cuts)
        near = {c: (np.max([p_[c][0] for p_ in parts], axis=0), np.min([p_[c][1] for p_ in parts], axis=0))
                for c in cuts}
    col_of: list[int] = []
    labels: list[str] = []
    values: list[Any] = []
    lo_of: list[int] = []
    hi_of: list[int] = []
    coded_edges: list[np.ndarray | None] = []
    notes: list[str] = []
    for c_pos, c in enumerate(X.columns):
        edges = np.unique(edges_of[c]) if c in edges_of else None
        if edges is None or len(edges) - 1 < 2:
            counts = summary.columns[c].counts
            if counts is None:
                raise ValueError(f"column {c!r}: its quantile edges collapse and it has more than "
                                 f"{len(q_bins)} values in a partition; pass it in categorical_features or drop it")
            distinct = pd.Series(counts.index[counts.to_numpy() > 0]).astype(X.dtypes[c])
            _, uniques = pd.factorize(distinct, sort=True)  # the in-memory order of the values
            if thresholds is not None and c in numeric and len(uniques) == 1 and summary.n:
                notes.append(f"numeric column {c!r} holds one value ({cut_text(float(uniques[0]))}): no one-sided "
                             "condition cuts it.")
            elif thresholds is not None and c in cat and pd.api.types.is_numeric_dtype(X.dtypes[c]) and not \
                    pd.api.types.is_bool_dtype(X.dtypes[c]) and len(uniques) > n_bins:
                notes.append(f"numeric column {c!r} is in categorical_features: one condition per value, no "
                             "one-sided conditions (leave it out of categorical_features for age ≥ t).")
            part = value_items(c, uniques)
            coded_edges.append(None)
        else:
            t_edges = None if check_thresholds(thresholds, summary.n) is None else thr[c]  # as in memory
            below, at = near.get(c, (None, None))
            cut = numeric_items(c, edges, t_edges, max_merge, below, at)
            part = (cut.labels, cut.values, cut.lo, cut.hi)
            coded_edges.append(cut.edges)
        labels.extend(part[0])
        values.extend(part[1])
        lo_of.extend(part[2])
        hi_of.extend(part[3])
        col_of.extend([c_pos] * len(part[0]))
    k = len(col_of)
    return Items(np.asarray(col_of, dtype=np.intp), list(X.columns), labels, values,
                 sp.csc_matrix((0, k), dtype=bool), np.zeros((0, len(X.columns)), dtype=np.int32),
                 np.asarray(lo_of, dtype=np.int64), np.asarray(hi_of, dtype=np.int64), tuple(coded_edges),
                 tuple(notes))




def _radix(items: Items) -> np.ndarray:
    return np.array([int(items.hi[items.column == c].max()) if (items.column == c).any() else 1
                     for c in range(len(items.columns))], dtype=np.int64)








@dataclass(frozen=True)
class _Source:
    """The partitions of one analysis (:class:`~.parts.Parts`) and how a partition's rows are coded and
    labelled."""

    parts: Parts
    offsets: np.ndarray
    pos_label: Any
    items: Items
    radix: np.ndarray
    strata: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), dtype=np.int64))

    def starts(self) -> list[tuple[int]]:
        """Each partition's first row's global position."""
        return [(int(s),) for s in self.offsets.tolist()]

    def count(self, patterns: list[tuple[int, ...]], what: str,
              conditions: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> np.ndarray:
        """(patterns, c) counts summed over the partitions: ``what="support"`` (c = 1), ``"classes"`` (the four
        (truth, prediction) classes, then the eight 16-bit pieces of the two row hashes). ``conditions``: the
        (column, lo, hi) of the conditions the patterns are made of (default: the items')."""
        if not patterns:
            return np.zeros((0, 1 if what == "support" else 12))
        items = self.items
        conds = (items.column, items.lo, items.hi) if conditions is None else conditions
        return self.parts.total(partition_count, self.items, conds, pack_patterns(patterns), self.radix, what,
                                self.pos_label, labels=True, each=self.starts())










def mine(source: _Source, min_support: int, max_length: int, max_patterns: int | None = None
         ) -> tuple[list[tuple[int, ...]], np.ndarray, tuple[int | None, int]]:
    """:func:`~.pattern_mining.mine_patterns`' candidates, level by level, each level's supports counted in one
    pass: the patterns in the in-memory order (before identical row sets are merged), their supports, and the
    length left out by ``max_patterns`` with its count (``(None, 0)``: none), as the in-memory miner decides it.
    The level is counted whole (one pass over the partitions), so the count is exact where the in-memory miner,
    which stops counting once the bound is passed, may give a lower bound."""
    items = source.items
    sup1 = source.count([(j,) for j in range(len(items.column))], "support")[:, 0]
    keep = np.flatnonzero(sup1 >= min_support)
    col = items.column[keep]
    level = np.arange(len(keep))[:, None]
    all_pats, all_support = [level], [sup1[keep]]
    total, skipped = len(level), (None, 0)
    for _ in tracked(range(1, max_length), "pattern mining", max_length, "levels", initial=1,
                     note=lambda: f"{total:,} patterns"):  # noqa: B023 (read after each level: the running count)
        if len(level) == 0:
            break
        pi, ii = np.nonzero(extensions(level, col))  # the in-memory order: by pattern, then by item
        if len(pi) == 0:
            break
        cand = np.column_stack([level[pi], ii])
        counts = source.count([tuple(row) for row in keep[cand].tolist()], "support")[:, 0]
        ok = counts >= min_support
        if not ok.any():
            break
        if max_patterns is not None and total + int(ok.sum()) > max_patterns:
            skipped = (level.shape[1] + 1, int(ok.sum()))
            break
        total += int(ok.sum())
        level = cand[ok]
        all_pats.append(level)
        all_support.append(counts[ok])
    pats = [tuple(row) for lv in all_pats for row in keep[lv].tolist()]
    return pats, np.concatenate(all_support).astype(np.int64), skipped


class _DaskCounter:
    """The counter of a Dask-counted family: its counts are made per partition by the analysis, never from an
    in-memory array."""

    def __init__(self, shape: tuple[int, int]):
        self.shape = shape

    def count(self, Y: np.ndarray) -> np.ndarray:
        raise TypeError("the patterns of a Dask analysis are counted per partition of the Dask collection; an "
                        "in-memory array of per-row values cannot be counted against them")


@dataclass(frozen=True, eq=False)
class DaskPatterns(PatternText):
    """Patterns mined from a Dask DataFrame: the candidate family of kind ``"pattern"`` whose rows stay in the
    Dask collection.

    Implements :class:`~aif360_subjective.detectors.candidates.CandidateFamily` as
    :class:`~.pattern_mining.MinedPatterns` does (the same ids, descriptions, conditions and classes), except that
    it holds no row bitsets: :meth:`lazy_members` gives a pattern's rows as a lazy Dask Series, :meth:`containment`
    answers the redundancy filter by counting, and :meth:`rows` / :meth:`members` / :meth:`bits` refuse.

    Attributes:
        items: the items (without rows).
        keys: (patterns, 3) the support and two hashes of the rows' global positions (equal = identical rows).
        class_counts: (patterns, 4) rows per (truth, prediction) class (TN, FP, FN, TP).
        n_table_rows: rows of the table.
        skipped_count: as :class:`~.pattern_mining.MinedPatterns`' (the count of a left-out length is exact: a
            Dask level is counted in one pass, so ``skipped_count_is_lower_bound`` stays False).
        (the others: :class:`~.pattern_mining.PatternText`)
    """

    class_counts: np.ndarray
    n_table_rows: int
    source: _Source = field(repr=False)

    @property
    def n_rows(self) -> int:
        """Rows of the table."""
        return self.n_table_rows

    def _no_rows(self) -> ValueError:
        return ValueError("the rows of a Dask analysis stay in the Dask collection: use report.members(kind, id) "
                          "(a lazy Dask Series; compute=True computes it)")

    def members(self) -> sp.csc_matrix:
        """Refused: the membership of every pattern would bring every row to the client."""
        raise self._no_rows()

    def bits(self) -> np.ndarray:
        """Refused (see :meth:`members`)."""
        raise self._no_rows()

    def rows(self, i: int) -> np.ndarray:
        """Refused (see :meth:`lazy_members`)."""
        raise self._no_rows()

    @cached_property
    def _counter(self) -> _DaskCounter:
        return _DaskCounter((self.n_table_rows, len(self.patterns)))

    def counter(self) -> _DaskCounter:
        """A counter that refuses in-memory arrays (the analysis counts per partition)."""
        return self._counter

    @cached_property
    def _bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """(patterns, columns) code bounds ``lo <= code < hi`` of every pattern on every column (the whole
        range where it has no condition)."""
        items, radix = self.items, self.source.radix
        lo = np.zeros((len(self.patterns), len(items.columns)), dtype=np.int64)
        hi = np.tile(radix, (len(self.patterns), 1))
        for i, pat in enumerate(self.patterns):  # <= max_length conditions per pattern
            for j in pat:
                lo[i, items.column[j]], hi[i, items.column[j]] = items.lo[j], items.hi[j]
        return lo, hi

    def lazy_members(self, i: int) -> Any:
        """Boolean Dask Series (index of X): the rows of pattern ``i``, not computed."""
        lo, hi = self._bounds
        return self.source.parts.lazy_mask(pattern_mask, self.items, lo[i], hi[i])

    def computed_members(self, i: int) -> pd.Series:
        """The rows of pattern ``i`` as a computed boolean pandas Series."""
        return self.source.parts.computed_mask(self.lazy_members(i))

    def containment(self, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every pair (g, s) of the patterns at ``positions`` where g holds every row of s and more, and their
        sizes (as :func:`~.redundancy.containment`): pairs that nest on a seeded sample of rows (one pass of
        membership bits, no values), each then checked by counting the rows of both (one pass)."""
        positions = np.asarray(positions, dtype=np.intp)
        size = self.support[positions].astype(np.float64)
        h, n = len(positions), self.n_table_rows
        if h == 0:
            return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp), size
        lo, hi = self._bounds
        lo, hi = lo[positions], hi[positions]
        # about 64 sample rows of a pattern of min_support rows, between 4,096 and 200,000 rows
        target = min(n, max(4096, min(200_000, 64 * n // max(self.min_support, 1))))
        threshold = np.uint64(min(2**64 - 1, int(target / n * 2**64)))
        src = self.source
        bits = np.concatenate(src.parts.map(sample_bits, src.items, lo, hi, threshold, each=src.starts()), axis=0)
        sample = np.unpackbits(bits, axis=0).astype(np.float32)
        on = sample.T @ sample
        in_sample = np.diag(on)
        g_idx, s_idx = np.nonzero((on >= in_sample[None, :] - 0.5) & (size[:, None] > size[None, :]))
        if len(g_idx) == 0:
            return g_idx, s_idx, size
        both_lo, both_hi = np.maximum(lo[g_idx], lo[s_idx]), np.minimum(hi[g_idx], hi[s_idx])
        possible = np.all(both_lo < both_hi, axis=1)
        g_idx, s_idx, both_lo, both_hi = g_idx[possible], s_idx[possible], both_lo[possible], both_hi[possible]
        # each intersection as a pattern of (column, lo, hi) conditions on its constrained columns
        radix = src.radix
        table: dict[tuple[int, int, int], int] = {}
        pats = []
        for a_lo, a_hi in zip(both_lo.tolist(), both_hi.tolist(), strict=True):  # one tuple per candidate pair
            pats.append(tuple(table.setdefault((c, a_lo[c], a_hi[c]), len(table)) for c in range(len(radix))
                              if a_lo[c] > 0 or a_hi[c] < radix[c]))
        keys = np.array(list(table), dtype=np.int64).reshape(-1, 3)
        both = src.count(pats, "support", (keys[:, 0].astype(np.intp), keys[:, 1], keys[:, 2]))[:, 0]
        nested = both == size[s_idx]
        return g_idx[nested], s_idx[nested], size






@dataclass(frozen=True)
class DaskCandidateMetrics(CandidateMetrics):
    """:class:`~.candidates.CandidateMetrics` of a Dask analysis: the same counts and table; the truth and the
    predictions stay in the Dask collection (``truth`` and ``prediction`` are empty) and the max-T counts the
    permuted classes per partition."""

    family: DaskPatterns | None = field(default=None, repr=False, compare=False)

    def run_max_t(self, counter: Any, penalty: bool | np.ndarray, n_permutations: int,
                  tests: tuple[int, ...]) -> MaxTResult:
        """The max-T over every pattern from their permuted class counts, counted per partition."""
        if self.family is None:
            raise ValueError("a DaskCandidateMetrics needs its family for the max-T")
        return dask_max_t(self.family, self.total_rows, penalty, n_permutations, self.permutation_seed, tests)


def dask_max_t(family: DaskPatterns, totals: np.ndarray, penalty: bool | np.ndarray, n_permutations: int,
               seed: int, tests: tuple[int, ...]) -> MaxTResult:
    """The keyed-permutation max-T (:mod:`~.keyed_permutation`) of a Dask-counted family: every pattern's permuted
    class counts, counted per partition (:class:`KeyedDaskCounts`), then the in-memory step-down on the counts
    (:func:`~.maxt.max_t_from_counts`). Equal to ``max_t(..., permutation="keyed")`` in memory on the same rows
    in the same order."""

    scheme = KeyedScheme(seed_of(seed), np.rint(totals).astype(np.int64))
    provider = KeyedDaskCounts(family, scheme, int(n_permutations))
    return max_t_from_counts(family.class_counts, totals, provider, int(n_permutations), penalty, tests)


class KeyedDaskCounts:
    """The keyed permuted counts of every pattern of a Dask-counted family (a
    :class:`~.maxt.PermutedCountsProvider`): each partition draws its rows' permuted classes from the seed, the
    permutation and the rows' global positions (:class:`~.maxt.KeyedScheme`), counts them through the patterns'
    cells and returns the sums. One pass gives as many permutations as keep its (patterns, permutations, counts)
    result near :data:`RESULT_BYTES`; the max-T asks for them in order, and each pass' result serves its batches.
    """

    #: Bytes of one partition's float64 counts of one pass (patterns x permutations x counts x 8; sent as uint32).
    RESULT_BYTES = 192 * 2**20

    def __init__(self, family: DaskPatterns, scheme: Any, n_permutations: int):
        self.family = family
        self.scheme = scheme
        self.n_permutations = n_permutations
        self._chunk: tuple[int, int, tuple[bool, ...], np.ndarray] | None = None
        self.passes = 0

    def __call__(self, b_start: int, b_stop: int, need: tuple[bool, bool, bool, bool]) -> np.ndarray:
        chunk = self._chunk
        if chunk is None or not (chunk[0] <= b_start and b_stop <= chunk[1]) or chunk[2] != tuple(need):
            m = max(1, len(self.family.patterns))
            size = getattr(self.family.source.parts, "RESULT_BYTES", self.RESULT_BYTES)  # the engine's, if smaller
            width = max(b_stop - b_start, size // (m * 8 * max(1, sum(need))))
            stop = min(self.n_permutations, b_start + width)
            chunk = (b_start, max(stop, b_stop), tuple(need), self._pass(b_start, max(stop, b_stop), need))
            self._chunk = chunk
        out: np.ndarray = chunk[3][:, b_start - chunk[0]:b_stop - chunk[0]]
        return out

    def _pass(self, b_start: int, b_stop: int, need: tuple[bool, bool, bool, bool]) -> np.ndarray:
        fam, src = self.family, self.family.source
        self.passes += 1
        conds = (src.items.column, src.items.lo, src.items.hi)
        each = [(s, strata) for (s,), strata in zip(src.starts(), src.strata.tolist(), strict=True)]
        counts = np.asarray(src.parts.total(partition_permuted, src.items, conds, pack_patterns(fam.patterns),
                                            src.radix, src.pos_label, self.scheme, b_start, b_stop, tuple(need),
                                            labels=True, each=each), dtype=np.float64)
        return KeyedScheme.assemble(counts, b_stop - b_start, need)




def detect_subgroups_dask(X: Any, y_true: Any, y_pred: Any, opts: AnalysisOptions, *, pos_label: Any = 1,
                          labels: Any = None, random_state: Any = None, task: str = "auto", groups: Any = None,
                          sample_weight: Any = None, loss: Any = None, patterns_from: Any = None,
                          design: str = "between", permutation: str = "auto") -> SubgroupReport:
    """:func:`~.detect.detect_subgroups` on a Dask DataFrame and Dask Series (see the module's docstring).

    ``opts`` are the options :func:`~.options.check_analysis_options` checked on ``X`` (:func:`dask_frame`), as
    in memory; the keywords are the run's other arguments, refused by name where the Dask analysis cannot honour
    them. The report equals the in-memory one on the same rows: the same candidates and counts, hence the same
    metrics, intervals, rankings and findings; its max-T uses keyed permutations.

    Raises:
        ValueError: unsupported arguments (:func:`check_dask_arguments`), unknown divisions where alignment needs
            them, collections of other rows, missing or infinite values, labels outside the pair.
        TypeError: non-Dask labels beside a Dask X, a column of several dtypes or of mixed objects.
    """
    check_dask_arguments(discovery=opts.discovery, task=task, groups=groups, sample_weight=sample_weight, loss=loss,
                         patterns_from=patterns_from, permutation=permutation, design=design)
    X, t, p = align(X, y_true, y_pred)
    check_workers()  # a cluster whose workers lack the package fails here, not inside a task
    return analyse_parts(DaskParts(X, t, p), opts, pos_label=pos_label, labels=labels, random_state=random_state,
                         task=task)


def analyse_parts(parts: Parts, opts: AnalysisOptions, *, pos_label: Any, labels: Any, random_state: Any,
                  task: str) -> SubgroupReport:
    """The analysis of any engine's partitions (arguments checked): the summary, the items, the patterns and
    their counts, the report (see the module's docstring)."""
    summary = summarise(parts)
    pin = getattr(parts, "pin", None)
    if pin is not None:  # an engine that re-reads its partitions each pass checks them against these rows
        pin(summary.lengths)
    _check_summary(summary, parts)
    totals = class_totals(summary, pos_label, labels, task)
    n = summary.n
    items = build_items(parts, summary, opts.categorical_features, opts.n_bins, opts.max_merge, opts.thresholds)
    source = _Source(parts=parts, offsets=summary.offsets, pos_label=pos_label, items=items, radix=_radix(items),
                     strata=truth_offsets(summary, pos_label))
    family = patterns_family(source, check_min_support(opts.min_support, n), opts.max_length, n, opts.max_patterns)
    return _report(family, totals, opts, random_state, pos_label, n)


def patterns_family(source: _Source, min_support: int, max_length: int, n: int,
                    max_patterns: int | None = None) -> DaskPatterns:
    """Mine (one pass per length), count the classes and row hashes (one pass), keep identical row sets once."""
    pats, support, skipped = mine(source, min_support, max_length, max_patterns)
    counts = source.count(pats, "classes")
    keys = np.column_stack([support.astype(np.uint64), unchunk(counts[:, 4:8]), unchunk(counts[:, 8:12])])
    _, first = np.unique(keys, axis=0, return_index=True)
    first = np.sort(first)
    return DaskPatterns(items=source.items, patterns=[pats[i] for i in first], support=support[first],
                        keys=keys[first], class_counts=counts[first, :4], n_identical=int(len(pats) - len(first)),
                        min_support=int(min_support), max_length=int(max_length), n_table_rows=n, source=source,
                        max_patterns=max_patterns, skipped_length=skipped[0], skipped_count=skipped[1])


def _report(family: DaskPatterns, totals: np.ndarray, opts: AnalysisOptions, random_state: Any, pos_label: Any,
            n: int) -> SubgroupReport:
    candidates = Candidates([family], n, opts.discovery)
    # the in-memory analysis draws its permutation seed from the generator at this point (no clustering ran)
    seed = int(as_generator(random_state).integers(0, 2**31 - 1))
    m = metrics_from_counts(family.class_counts, totals, opts.undefined_rates)
    m.loc[~family.defined(), list(METRICS)] = np.nan
    m.insert(0, "size", pd.Series(family.sizes(), index=m.index))
    m.index = candidates.index()
    metrics = DaskCandidateMetrics(
        table=m, row_counts=family.class_counts, total=totals, total_rows=totals,
        truth=np.zeros(0, dtype=bool), prediction=np.zeros(0, dtype=bool), weighted=False,
        permutation_seed=seed, undefined_rates=opts.undefined_rates, permutation="keyed", family=family)
    return SubgroupReport(index=pd.RangeIndex(n), candidates=candidates, candidate_metrics=metrics, options=opts,
                          pos_label=pos_label, features=list(map(str, family.items.columns)), clustering=None)
