"""The candidate annotator groups of :func:`~aif360_subjective.opinion.excluded.excluded_groups`.

A candidate is a conjunction of up to ``max_conditions`` conditions on distinct annotator attributes: a value of a
categorical attribute (``gender=woman``), or a range of a numeric one cut at its quantiles (``age ∈ [25, 34)``,
runs of adjacent ranges included). They are mined by the pattern miner of the subgroup discovery
(:func:`~aif360_subjective.detectors.mining.pattern_mining.build_items`,
:func:`~aif360_subjective.detectors.mining.pattern_mining.mine_patterns`), whose rows here are annotators, or with the
cross-fitted ADR, annotator half-samples.

**ADR.** The attribute name :data:`ADR_ATTRIBUTE` (``"adr"``) asks for the annotator's average disagreement rate
with the majority vote, cross-fitted exactly as ``adr_fit="cross"`` does
(:func:`~aif360_subjective.opinion.annotations.cross_fit`): every annotator has two rows, one per half of the items,
and the row of half ``h`` (the annotations scored there) carries the ADR measured on the *other* half. Its other
attributes are the same on both rows, so a candidate without ADR holds both rows or neither.

Missing attribute values put an annotator in no condition on that attribute (counted in
:attr:`AnnotatorGroups.missing`).

**A candidate family.** :class:`AnnotatorGroups` is the mined patterns of the subgroup discovery
(:class:`~aif360_subjective.detectors.mining.pattern_mining.MinedPatterns`) over the units, so it is a
:class:`~aif360_subjective.detectors.candidates.CandidateFamily` of kind ``"annotator"``: ``members()``,
``description(i)``, ``conditions(i)``, ``condition_table()`` and the bitsets are the patterns' own. What differs is
``description_class()``: the classes of the balanced max-T (``balance="conditions"``) are the numbers of conditions
(``annotator:1``, ``annotator:2``, ...), not the subgroup family's shapes, which also count the numeric ranges
(``pattern:2:1``).

References:
    Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine Learning
    (ADR; grouping users by their characteristics).
    Schäfer, J., Wiese, L. ASDF-Dashboard: Automated Subgroup Detection and Fairness Analysis (automated
    subgroups instead of hand-picked ones).
    Agrawal, R., Srikant, R. (1994). Fast algorithms for mining association rules. VLDB (level-wise mining).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from itertools import combinations
from typing import ClassVar

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..detectors import detect_categorical
from ..detectors.mining.pattern_mining import Items, MinedPatterns, build_items, mine_patterns

__all__ = ["ADR_ATTRIBUTE", "AnnotatorGroups", "build_candidates", "count_small_groups"]

#: The attribute name that asks for the cross-fitted ADR (when the annotator table has no column of that name).
ADR_ATTRIBUTE = "adr"


@dataclass(frozen=True)
class AnnotatorGroups(MinedPatterns):
    """The candidate annotator groups over the units (annotators, or annotator half-samples with ADR): the family
    of kind ``"annotator"`` (see the module's docstring).

    Attributes:
        missing: attribute -> units without a value (in no condition on it).
        (the others: :class:`~aif360_subjective.detectors.mining.pattern_mining.MinedPatterns`; ``n_identical``
        counts the conjunctions left out because a shorter one holds the same units)
    """

    missing: dict[str, int] = field(default_factory=dict)

    kind: ClassVar[str] = "annotator"
    method_name: ClassVar[str] = "the annotator groups"
    count_label: ClassVar[str | None] = "annotator groups"

    @classmethod
    def of(cls, mined: MinedPatterns, missing: dict[str, int]) -> AnnotatorGroups:
        """The family of the patterns ``mined`` over the units."""
        return cls(**{f.name: getattr(mined, f.name) for f in fields(mined)}, missing=missing)

    def members(self) -> sp.csc_matrix:
        """(units, candidates) boolean CSC membership (no column without a candidate)."""
        if not len(self.patterns):
            return sp.csc_matrix((self.n_rows, 0), dtype=bool)
        return super().members()

    @property
    def n_conditions(self) -> np.ndarray:
        """Conditions per candidate."""
        return np.array([len(p) for p in self.patterns], dtype=np.int64)

    def description_class(self) -> np.ndarray:
        """Per candidate, its class of the balanced max-T: ``annotator:<number of conditions>``."""
        return np.array([f"{self.kind}:{len(p)}" for p in self.patterns], dtype=object)


def _items_with_missing(table: pd.DataFrame, ranges: int) -> Items:
    """:func:`build_items` on a table that may hold missing values: each column's items are built on its rows with a
    value, and the rows without one satisfy none of them."""
    n = len(table)
    categorical = set(detect_categorical(table))
    parts = []
    for c in table.columns:
        present = table[c].notna().to_numpy()
        sub = table.loc[present, [c]]
        items = build_items(sub, [c] if c in categorical else [], n_bins=ranges, max_merge=max(1, ranges - 1))
        rows = np.flatnonzero(present)
        coo = items.matrix.tocoo()
        parts.append((sp.csc_matrix((np.ones(coo.nnz, dtype=bool), (rows[coo.row], coo.col)),
                                    shape=(n, coo.shape[1])), items.labels, items.values))
    matrix = sp.hstack([p[0] for p in parts], format="csc") if parts else sp.csc_matrix((n, 0), dtype=bool)
    column = np.concatenate([np.full(len(p[1]), j, dtype=np.intp) for j, p in enumerate(parts)]) if parts else \
        np.zeros(0, dtype=np.intp)
    labels = [lab for p in parts for lab in p[1]]
    values = [v for p in parts for v in p[2]]
    k = len(labels)
    # codes/lo/hi serve the miner's cell counter only, which the candidates do not use
    return Items(column, list(table.columns), labels, values, matrix.astype(bool),
                 np.zeros((n, len(table.columns)), dtype=np.int32), np.zeros(k, dtype=np.int64),
                 np.ones(k, dtype=np.int64))


def build_candidates(unit_table: pd.DataFrame, max_conditions: int, min_units: int, ranges: int) -> AnnotatorGroups:
    """Every conjunction of up to ``max_conditions`` attribute conditions holding at least ``min_units`` units.

    Args:
        unit_table: one row per unit, one column per attribute (missing values allowed).
        max_conditions: most conditions per candidate.
        min_units: fewest units (a necessary condition for ``min_annotators`` annotators; the caller checks the
            annotators).
        ranges: quantile ranges of a numeric attribute (one condition per value when it has no more values).

    Returns:
        AnnotatorGroups
    """
    items = _items_with_missing(unit_table, ranges)
    mined = mine_patterns(items, min_support=min_units, max_length=max_conditions)
    return AnnotatorGroups.of(mined, {str(c): int(n) for c, n in unit_table.isna().sum().items() if n})


def count_small_groups(table: pd.DataFrame, attributes: Sequence[str], max_conditions: int, ranges: int,
                       min_annotators: int) -> int:
    """How many attribute-value combinations (up to ``max_conditions`` attributes; numeric attributes by their
    quantile ranges) hold between 1 and ``min_annotators - 1`` annotators: the groups too small to test, counted
    for the summary (runs of adjacent ranges are not counted separately).

    Args:
        table: one row per annotator.
        attributes: its columns to combine.
        max_conditions, ranges, min_annotators: as in :func:`build_candidates`.

    Returns:
        int
    """
    codes = {}
    categorical = set(detect_categorical(table[list(attributes)]))
    for a in attributes:
        col = table[a]
        if a not in categorical and col.nunique() > ranges:
            col = pd.qcut(col, ranges, duplicates="drop")
        c, _ = pd.factorize(col)
        codes[a] = c
    small = 0
    for k in range(1, max_conditions + 1):
        for combo in combinations(attributes, k):
            cols = np.column_stack([codes[a] for a in combo]).astype(np.int64)
            cols = cols[(cols >= 0).all(axis=1)]
            _, sizes = np.unique(cols, axis=0, return_counts=True)
            small += int((sizes < min_annotators).sum())
    return small
