"""Candidate subgroups as families: one protocol for a kind of candidate, and the families of one analysis.

A **family** is one kind of candidate (the clusters, their entropy patterns, the mined patterns, or the mined
patterns of a Dask collection, :class:`~.dask_detect.DaskPatterns`, counted per partition; later the annotator
groups of issue 29). It knows its candidates' rows and how to
describe them, never the outcome: :class:`CandidateFamily` is everything the significance functions
(:mod:`~aif360_subjective.detectors.significance`) and the report ask of it. Adding a kind is adding one class
that has these members (and listing it in :data:`FAMILY_CLASSES` so that its name is a valid ``kind``).

**Counting.** Every statistic of the subgroup family is a sum over each candidate's rows: the confusion counts of
binary predictions, the permuted counts of max-T, and for a continuous outcome the sums of ``y`` and ``y**2``
(a studentized difference of means needs nothing else). So a family offers one counter, ``counter().count(Y)``:
for a ``(rows, c)`` array ``Y`` it returns the ``(candidates, c)`` sums of each column over each candidate's rows,
exact integers for 0/1 columns and float64 sums otherwise. How it sums is the family's business: through the
memberships (:class:`~.counters.MemberCounter`), through the cells of a data cube (:class:`~.cell_counts.CellCounter`),
or per partition of a Dask collection, summed on the client (the counts of a partition add up; only counts
travel). :class:`Candidates` stacks the families' counters in order, so the max-T and the metrics see one
counter whatever the families are.

:class:`CandidateMetrics` holds what the outcome says of every candidate: the metrics table, the unweighted
confusion counts the intervals and tests use, the overall counts (the reference of every comparison), and the
truth and predictions the permutations shuffle.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .._labels import cell_codes
from .._validation import check_choice
from .asdf.families import ClusterFamily, EntropyFamily
from .bitsets import n_words
from .error_control.counters import Counter, MemberCounter, StackedCounter
from .error_control.inference import bootstrap_metric_intervals, rate_z, subgroup_inference
from .error_control.maxt import ALL_TESTS, METRIC_TEST, MaxTResult, max_t
from .error_control.resampling import Sampling
from .error_control.row_permutations import HeldDraws
from .mining.pattern_mining import MinedPatterns
from .subgroup_metrics import METRICS, metrics_from_counts
from .tasks import BinaryTask

__all__ = ["CandidateFamily", "Candidates", "CandidateMetrics", "FAMILY_CLASSES", "KINDS", "candidate_metrics"]


@runtime_checkable
class CandidateFamily(Protocol):
    """One kind of candidate subgroup (see the module's docstring).

    Attributes:
        kind: the kind's name (``"cluster"``, ``"entropy"``, ``"pattern"``): the ``kind`` of the report's methods.
        method_name: how the comparison of the discovery methods names the family (``"the clusters"``).
        method: the same with details of this family (``"the clusters (slink)"``).
        has_conditions: whether a candidate is a conjunction of attribute conditions (:meth:`conditions`).
        count_label: how ``repr`` of a report counts the family (``"patterns"``), or None to leave it out.
        ids: the candidates' ids, one per candidate, in order.
        n_rows: rows of the table.
    """

    kind: ClassVar[str]
    method_name: ClassVar[str]
    has_conditions: ClassVar[bool]
    count_label: ClassVar[str | None]

    @property
    def ids(self) -> np.ndarray: ...

    @property
    def n_rows(self) -> int: ...

    @property
    def method(self) -> str: ...

    def members(self) -> sp.csc_matrix:
        """(rows, candidates) boolean membership (an empty column for a candidate that defines no subgroup)."""
        ...

    def bits(self) -> np.ndarray:
        """(candidates, words) uint64 bitsets of :meth:`members` (:mod:`.bitsets`)."""
        ...

    def row_keys(self) -> np.ndarray:
        """(candidates, 3) keys of the row sets: equal keys = identical rows, whatever the families."""
        ...

    def counter(self) -> Counter:
        """The candidates' sums of any per-row columns (see the module's docstring)."""
        ...

    def sizes(self) -> pd.arrays.IntegerArray:
        """Rows per candidate (Int64; <NA> where a candidate has no rows to speak of)."""
        ...

    def defined(self) -> np.ndarray:
        """(candidates,) bool: the candidate defines a subgroup of its own (it has metrics and is tested)."""
        ...

    def rows(self, i: int) -> np.ndarray:
        """Row indices of candidate ``i`` (raises ValueError when it defines no subgroup)."""
        ...

    def description(self, i: int) -> str:
        """Readable description of candidate ``i``."""
        ...

    def conditions(self, i: int) -> dict[str, Any]:
        """Attribute -> condition of candidate ``i`` (empty without conditions)."""
        ...

    def description_class(self) -> np.ndarray:
        """(candidates,) class of each description for the max-T penalty (:func:`~.maxt.class_offsets`); it
        may depend on the features only, never on the outcome."""
        ...

    def condition_table(self) -> pd.DataFrame:
        """Index id, a column per attribute: each candidate's condition on it (NaN where none)."""
        ...


#: The family classes, in the order their kinds are listed: adding a kind is adding its class here.
FAMILY_CLASSES: tuple[type[ClusterFamily] | type[EntropyFamily] | type[MinedPatterns], ...] = (
    ClusterFamily, EntropyFamily, MinedPatterns)
#: Kinds of subgroups: ASDF clusters, their entropy patterns, mined patterns.
KINDS: tuple[str, ...] = tuple(c.kind for c in FAMILY_CLASSES)
#: Kinds whose candidates are conjunctions of attribute conditions.
CONDITION_KINDS: tuple[str, ...] = tuple(c.kind for c in FAMILY_CLASSES if c.has_conditions)


class Candidates:
    """The candidate families of one analysis, in order: positions, rows, the stacked counter.

    A candidate's **position** is its place in the concatenation of the families (the order of the metrics
    table, of the max-T result and of every array below).

    Args:
        families: the families, in order (each kind at most once).
        n_rows: rows of the table.
        discovery: the ``discovery`` option that chose the families (named when a kind is missing).
    """

    def __init__(self, families: list[CandidateFamily], n_rows: int, discovery: str = "both") -> None:
        self.families = tuple(families)
        self.kinds = tuple(f.kind for f in self.families)
        if len(set(self.kinds)) != len(self.kinds):
            raise ValueError(f"each kind of candidate may appear once, got {list(self.kinds)}")
        self.n_rows = int(n_rows)
        self.discovery = discovery
        #: every kind a ``kind`` argument may name: the listed family classes' and this analysis' own
        self.known_kinds = tuple(dict.fromkeys((*KINDS, *self.kinds)))
        #: the same for the kinds whose candidates are conjunctions of conditions
        self.condition_kinds = tuple(dict.fromkeys(
            (*CONDITION_KINDS, *[f.kind for f in self.families if f.has_conditions])))
        sizes = [len(f.ids) for f in self.families]
        self._start = dict(zip(self.kinds, np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int), strict=True))
        self.n_candidates = int(sum(sizes))

    def family(self, kind: str) -> CandidateFamily:
        """The family of ``kind``.

        Raises:
            ValueError: an unknown kind, or one this analysis does not hold.
        """
        check_choice(kind, "kind", self.known_kinds)
        if kind not in self.kinds:
            raise ValueError(
                f"this report holds no {kind!r} subgroups (discovery={self.discovery!r}); "
                f"its kinds are {list(self.kinds)}"
            )
        return self.families[self.kinds.index(kind)]

    def positions(self, kind: str) -> np.ndarray:
        """Positions of the candidates of ``kind`` (``"all"``: every candidate)."""
        if kind == "all":
            return np.arange(self.n_candidates)
        fam = self.family(kind)
        out: np.ndarray = self._start[kind] + np.arange(len(fam.ids))
        return out

    def position(self, kind: str, id: Any) -> int:
        """Index of candidate ``(kind, id)`` within its family.

        Raises:
            ValueError: unknown kind or id.
        """
        ids = np.asarray(self.family(kind).ids)
        pos = np.flatnonzero(ids == id)
        if len(pos) == 0:
            shown = ids.tolist() if len(ids) <= 20 else f"0..{len(ids) - 1}"
            raise ValueError(f"unknown subgroup id {id!r}; the {kind} ids are {shown}")
        return int(pos[0])

    def rows(self, kind: str, id: Any) -> np.ndarray:
        """Boolean mask over the rows: membership of candidate ``(kind, id)``."""
        mask = np.zeros(self.n_rows, dtype=bool)
        mask[self.family(kind).rows(self.position(kind, id))] = True
        return mask

    def _concat(self, parts: list[np.ndarray], empty: np.ndarray) -> np.ndarray:
        return np.concatenate(parts) if parts else empty

    def index(self) -> pd.MultiIndex:
        """(kind, id) of every candidate, in position order."""
        kinds = self._concat([np.repeat(np.array(f.kind, dtype=object), len(f.ids)) for f in self.families],
                             np.zeros(0, dtype=object))
        ids = self._concat([np.asarray(f.ids) for f in self.families], np.zeros(0, dtype=np.int64))
        return pd.MultiIndex.from_arrays([kinds, ids], names=["kind", "id"])

    def descriptions(self, kinds: tuple[str, ...] | None = None) -> np.ndarray:
        """Descriptions of the candidates of ``kinds`` (default: every kind), in position order."""
        fams = self.families if kinds is None else [self.family(k) for k in kinds]
        return np.array([f.description(i) for f in fams for i in range(len(f.ids))], dtype=object)

    def defined(self, kinds: tuple[str, ...] | None = None) -> np.ndarray:
        """Which candidates of ``kinds`` (default: every kind) define a subgroup, in position order."""
        fams = self.families if kinds is None else [self.family(k) for k in kinds]
        return self._concat([f.defined() for f in fams], np.zeros(0, dtype=bool))

    def description_classes(self) -> np.ndarray:
        """Per candidate, its class for the max-T penalty."""
        return self._concat([f.description_class() for f in self.families], np.zeros(0, dtype=object))

    @cached_property
    def _row_keys(self) -> np.ndarray:
        return self._concat([f.row_keys() for f in self.families], np.zeros((0, 3), dtype=np.uint64))

    def row_keys(self) -> np.ndarray:
        """(candidates, 3) keys of every candidate's rows (computed once)."""
        return self._row_keys

    def bits(self, positions: np.ndarray, words: slice = slice(None)) -> np.ndarray:
        """(len(positions), words) bitsets of the candidates at ``positions``, or their ``words`` only (a block of
        rows: what is formed on demand is formed for those words only)."""
        positions = np.asarray(positions, dtype=np.intp)
        out = np.empty((len(positions), len(range(n_words(self.n_rows))[words])), dtype=np.uint64)
        for f in self.families:
            start = self._start[f.kind]
            here = (positions >= start) & (positions < start + len(f.ids))
            if here.any():  # a family that forms its bitsets (the mined patterns) forms only these
                local = positions[here] - start
                bits_of = getattr(f, "bits_of", None)
                out[here] = f.bits()[local][:, words] if bits_of is None else bits_of(local, words)
        return out

    def known_containment(self, positions: np.ndarray) -> Callable[[np.ndarray, np.ndarray], np.ndarray] | None:
        """What the descriptions of the candidates at ``positions`` say of their nesting, for
        :func:`~.redundancy.containment_of`: a function of pairs (``g``, ``s``: indices into ``positions``) that is
        True where every row of ``s`` is known to be in ``g`` from their family's descriptions alone (both mined
        patterns: :meth:`~.pattern_mining.MinedPatterns.held_by_items`) and False where the rows must tell; None
        when no family knows."""
        positions = np.asarray(positions, dtype=np.intp)
        knowing: list[tuple[Callable[[np.ndarray, np.ndarray], np.ndarray], int, int]] = [
            (f.held_by_items, self._start[f.kind], len(f.ids)) for f in self.families
            if isinstance(f, MinedPatterns)]
        if not knowing:
            return None

        def known(g: np.ndarray, s: np.ndarray) -> np.ndarray:
            out = np.zeros(len(g), dtype=bool)
            for held_by_items, start, count in knowing:
                pg, ps = positions[g] - start, positions[s] - start
                both = (pg >= 0) & (pg < count) & (ps >= 0) & (ps < count)
                if both.any():
                    out[both] = held_by_items(pg[both], ps[both])
            return out
        return known

    def counted_containment(self, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """The nesting of the candidates at ``positions`` (as :func:`~.redundancy.containment`) when their one
        family keeps no row bitsets and counts it instead (``containment``: the Dask-counted patterns); None when
        the bitsets answer."""
        counts = [getattr(f, "containment", None) for f in self.families]
        if not any(c is not None for c in counts):
            return None
        if len(self.families) != 1:
            raise ValueError("a family counted per partition cannot be compared with other families' rows")
        counted: tuple[np.ndarray, np.ndarray, np.ndarray] = counts[0](np.asarray(positions, dtype=np.intp))  # type: ignore[misc]
        return counted

    @cached_property
    def _counter(self) -> Counter:
        parts = [f.counter() for f in self.families]
        return StackedCounter(parts) if parts else MemberCounter(sp.csc_matrix((self.n_rows, 0), dtype=bool))

    def counter(self) -> Counter:
        """One counter of every candidate in position order: the families' counters stacked."""
        return self._counter


@dataclass(frozen=True)
class CandidateMetrics:
    """What the outcome says of every candidate (rows in position order).

    Attributes:
        table: index (kind, id); columns size, then the metrics (:data:`~.subgroup_metrics.METRICS`), NaN for a
            candidate that defines no subgroup.
        row_counts: (candidates, 4) unweighted confusion counts (TN, FP, FN, TP): the intervals and tests count
            rows.
        total: (4,) confusion counts of every row (weighted when the analysis is): the overall rates.
        total_rows: (4,) the same, unweighted.
        truth, prediction: boolean per row, favourable = True (what the permutations shuffle).
        weighted: the analysis used non-uniform instance weights.
        permutation_seed: seed of the max-T permutations.
        sampling: the unit of inference and the canonical row order of the permutations.
        permutation: ``"classical"`` (numpy permutations in the canonical row order) or ``"keyed"``
            (:mod:`~.keyed_permutation`, over the rows' positions as given: what a Dask analysis uses).
        undefined_rates: as :func:`~.subgroup_metrics.metrics_from_counts` (the cluster bootstrap recomputes the
            metrics).

    The significance layer reads every task's metrics through the same members: :attr:`names`,
    :attr:`metric_test`, :attr:`all_tests`, :meth:`reference`, :meth:`kind_inference`, :meth:`run_max_t` and
    :meth:`redundancy_counts` (:class:`~.outcome_metrics.OutcomeMetrics` has them too).
    """

    table: pd.DataFrame
    row_counts: np.ndarray
    total: np.ndarray
    total_rows: np.ndarray
    truth: np.ndarray
    prediction: np.ndarray
    weighted: bool
    permutation_seed: int
    sampling: Sampling = field(default_factory=Sampling)
    undefined_rates: str = "nan"
    task_reason: str = "binary decisions"
    permutation: str = "classical"
    _boot: dict[float, pd.DataFrame] = field(default_factory=dict, repr=False, compare=False)
    #: The ranking's permuted columns, held for the findings' max-T (the same permutations: drawn once).
    _draws: HeldDraws = field(default_factory=HeldDraws, repr=False, compare=False)

    #: The task of these metrics.
    task_name: ClassVar[str] = BinaryTask.name

    @property
    def task(self) -> BinaryTask:
        """The task: binary decisions (:class:`~.tasks.BinaryTask`), with what ``task="auto"`` decided."""
        return BinaryTask((), self.task_reason)

    @property
    def names(self) -> tuple[str, ...]:
        """The metric columns of :attr:`table`."""
        return METRICS

    @property
    def metric_test(self) -> dict[str, int]:
        """Metric -> its max-T test (:data:`~.maxt.METRIC_TEST`)."""
        return METRIC_TEST

    @property
    def all_tests(self) -> tuple[int, ...]:
        """Every max-T test (the global family needs them all)."""
        return ALL_TESTS

    def reference(self, metric: str) -> float:
        """What a subgroup's value is compared with: the overall accuracy for ``accuracy``, else 0."""
        return self.overall_accuracy if metric == "accuracy" else 0.0

    def kind_inference(self, positions: np.ndarray, ci: float, tests: bool,
                       counter: Counter | None = None) -> pd.DataFrame:
        """Per metric ``_ci_low``, ``_ci_high``, ``_p`` of the candidates at ``positions``
        (:func:`~.inference.subgroup_inference`). With clusters (``sampling.groups``) the intervals come from a
        cluster bootstrap (``counter``: every candidate's counter) and the p-values, which take rows as
        independent, are NaN: only the max-T's adjusted p-values account for the clusters."""
        df = subgroup_inference(self.row_counts[positions], self.total_rows, ci, tests and self.sampling.groups is None)
        if self.sampling.groups is not None:
            if counter is None:
                raise ValueError("intervals with clusters need the candidates' counter")
            if ci not in self._boot:
                cells = 2 * self.truth.astype(np.int64) + self.prediction.astype(np.int64)
                self._boot[ci] = bootstrap_metric_intervals(counter, cells, self.sampling.groups, ci,
                                                            random_state=self.permutation_seed,
                                                            order=self.sampling.order,
                                                            undefined_rates=self.undefined_rates)
            boot = self._boot[ci].iloc[np.asarray(positions)].reset_index(drop=True)
            for col in boot.columns:
                df[col] = boot[col].to_numpy()
        return df

    def run_max_t(self, counter: Counter, penalty: bool | np.ndarray, n_permutations: int,
                  tests: tuple[int, ...]) -> MaxTResult:
        """The max-T over every candidate (:func:`~.maxt.max_t`) in this analysis' unit of inference. Keyed
        permutations (``permutation="keyed"``) are drawn over the rows' positions as given: the positions a Dask
        computation of the same rows uses, so that both give the same p-values."""
        if self.permutation == "keyed":
            return max_t(counter, self.truth, self.prediction, n_permutations, self.permutation_seed,
                         penalty=penalty, tests=tuple(sorted(tests)), permutation="keyed")
        return max_t(counter, self.truth, self.prediction, n_permutations, self.permutation_seed, penalty=penalty,
                     tests=tuple(sorted(tests)), order=self.sampling.order, groups=self.sampling.groups,
                     design=self.sampling.design, draws=self._draws)

    def redundancy_counts(self, positions: np.ndarray, metric: str) -> tuple[np.ndarray, np.ndarray, Any]:
        """What the redundancy filter compares: the candidates' counts, the total, and the z of the metric's
        rate of one set of rows against another."""
        return self.row_counts[positions], self.total_rows, lambda a, b: rate_z(a, b, metric)

    @property
    def overall_accuracy(self) -> float:
        """Accuracy over all rows (weighted when the analysis was)."""
        if self.total.sum() <= 0:
            return float("nan")
        return float((self.total[3] + self.total[0]) / self.total.sum())


def candidate_metrics(candidates: Candidates, t: np.ndarray, p: np.ndarray, w: np.ndarray | None,
                      undefined_rates: str, permutation_seed: int,
                      sampling: Sampling | None = None, task_reason: str = "binary decisions",
                      permutation: str = "classical") -> CandidateMetrics:
    """The metrics of every candidate: its confusion counts through its family's counter, then the metrics.

    Args:
        candidates: the families.
        t, p: truth and prediction, 1 = favourable.
        w: row weights, or None.
        undefined_rates: as :func:`~.subgroup_metrics.metrics_from_counts`.
        permutation_seed: seed of the max-T permutations.
        sampling: the unit of inference and the canonical row order (default: rows, in their own order).
        permutation: the max-T's permutations (``"classical"`` or ``"keyed"``).

    Returns:
        CandidateMetrics
    """
    cell = cell_codes(np.asarray(t), np.asarray(p))
    n = len(cell)
    onehot = np.zeros((n, 4), dtype=bool)
    onehot[np.arange(n), cell] = True
    weighted_cells = None if w is None else onehot * np.asarray(w, dtype=np.float64)[:, None]
    total = np.bincount(cell, weights=w, minlength=4).astype(np.float64)
    total_rows = np.bincount(cell, minlength=4).astype(np.float64)
    frames, row_counts = [], []
    for fam in candidates.families:
        rows = fam.counter().count(onehot)  # exact integer counts
        counts = rows if weighted_cells is None else fam.counter().count(weighted_cells)
        m = metrics_from_counts(counts, total, undefined_rates)
        m.loc[~fam.defined(), list(METRICS)] = np.nan
        m.insert(0, "size", pd.Series(fam.sizes(), index=m.index))
        frames.append(m)
        row_counts.append(rows)
    table = pd.concat(frames, ignore_index=True) if frames else metrics_from_counts(np.zeros((0, 4)), total)
    if not frames:
        table.insert(0, "size", pd.Series(pd.array([], dtype="Int64"), index=table.index))
    table.index = candidates.index()
    return CandidateMetrics(
        table=table, row_counts=np.vstack(row_counts) if row_counts else np.zeros((0, 4)), total=total,
        total_rows=total_rows, truth=np.asarray(t, dtype=bool), prediction=np.asarray(p, dtype=bool),
        weighted=w is not None and bool(np.ptp(w) > 0), permutation_seed=int(permutation_seed),
        sampling=Sampling() if sampling is None else sampling, undefined_rates=undefined_rates,
        task_reason=task_reason, permutation=permutation,
    )
