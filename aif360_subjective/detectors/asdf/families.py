"""The seed's two candidate families: the clusters of a clustering, and the subgroups of their entropy patterns.

Both implement :class:`~aif360_subjective.detectors.candidates.CandidateFamily`; the third family, the mined
patterns, is :class:`~aif360_subjective.detectors.mining.pattern_mining.MinedPatterns`. A family depends on the features
only (never on the outcome), so a re-cut of the dashboard can rebuild one family and keep the others.

References:
    J. Schäfer and L. Wiese, "ASDF-Dashboard: Automated Subgroup Detection and Fairness Analysis", CIKM
    workshops 2022.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..bitsets import bit_keys, pack_columns
from ..encoding import RawCodes
from ..error_control.counters import MemberCounter
from .patterns import EntropyPatterns, pattern_frame, pattern_members, pattern_strings

__all__ = ["ClusterFamily", "Clustering", "EntropyFamily", "MembershipFamily"]


def _plain(v: Any) -> Any:
    """A numpy scalar as the Python value it holds (messages show ``3``, not ``np.int64(3)``)."""
    return v.item() if isinstance(v, np.generic) else v


class MembershipFamily:
    """What the cluster and entropy families share: candidates held as a (rows, candidates) boolean membership
    (``_members``, defined by each family), and the bitsets, row-set keys and counter derived from it."""

    _members: sp.csc_matrix

    @cached_property
    def _bits(self) -> np.ndarray:
        return pack_columns(self._members)

    @cached_property
    def _counter(self) -> MemberCounter:
        return MemberCounter(self._members)

    def members(self) -> sp.csc_matrix:
        """(rows, candidates) boolean membership (an empty column: a candidate that defines no subgroup)."""
        return self._members

    def bits(self) -> np.ndarray:
        """(candidates, words) bitsets of :meth:`members`."""
        return self._bits

    def row_keys(self) -> np.ndarray:
        """(candidates, 3) keys of their row sets (equal keys = identical rows)."""
        return bit_keys(self._bits)

    def counter(self) -> MemberCounter:
        """Counts through the memberships (one entry per member row)."""
        return self._counter


class ClusterFamily(MembershipFamily):
    """Each cluster of a clustering as a subgroup (kind ``"cluster"``).

    Args:
        labels: cluster label per row.
        ids: the distinct labels, in ascending order (the candidates' ids).
        clustering: the clustering's name (shown in the comparison of the discovery methods).
    """

    kind: ClassVar[str] = "cluster"
    method_name: ClassVar[str] = "the clusters"
    has_conditions: ClassVar[bool] = False
    count_label: ClassVar[str | None] = None

    def __init__(self, labels: np.ndarray, ids: np.ndarray, clustering: str) -> None:
        self.labels = np.asarray(labels)
        self.ids = np.asarray(ids)
        self.clustering = clustering
        self.n_rows = len(self.labels)

    @property
    def method(self) -> str:
        """``"the clusters (slink)"``."""
        return f"{self.method_name} ({self.clustering})"

    @cached_property
    def _members(self) -> sp.csc_matrix:
        n = self.n_rows
        pos = np.searchsorted(self.ids, self.labels)
        return sp.csc_matrix((np.ones(n, dtype=bool), (np.arange(n), pos)), shape=(n, len(self.ids)))

    def sizes(self) -> pd.arrays.IntegerArray:
        """Rows per cluster."""
        return pd.array(np.bincount(np.searchsorted(self.ids, self.labels), minlength=len(self.ids)), dtype="Int64")

    def defined(self) -> np.ndarray:
        """Every cluster is a subgroup."""
        return np.ones(len(self.ids), dtype=bool)

    def rows(self, i: int) -> np.ndarray:
        """The rows of cluster ``ids[i]``."""
        return np.flatnonzero(self.labels == self.ids[i])

    def description(self, i: int) -> str:
        """``"cluster=3"``."""
        return f"cluster={self.ids[i]}"

    def conditions(self, i: int) -> dict[str, Any]:
        """A cluster has no attribute conditions (the clustering defines it): an empty dict."""
        return {}

    def description_class(self) -> np.ndarray:
        """One class for every cluster (the max-T penalty counts the clusters together)."""
        return np.full(len(self.ids), self.kind, dtype=object)

    def condition_table(self) -> pd.DataFrame:
        """No conditions: a table without columns, one row per cluster."""
        return pd.DataFrame(index=pd.Index(self.ids, name="id"))


class EntropyFamily(MembershipFamily):
    """The subgroup of each cluster's entropy pattern: every row of the table matching it (kind ``"entropy"``).

    An empty pattern (no dominant attribute) and a pattern repeating an earlier one define no subgroup of their
    own (:meth:`defined` is False; their membership column is empty); a repeated one still has the size of the
    one it repeats.

    Args:
        raw: the factorised raw features.
        pats: the entropy patterns of the clusters.
    """

    kind: ClassVar[str] = "entropy"
    method_name: ClassVar[str] = "the entropy patterns"
    has_conditions: ClassVar[bool] = True
    count_label: ClassVar[str | None] = None

    def __init__(self, raw: RawCodes, pats: EntropyPatterns) -> None:
        self.raw = raw
        self.pats = pats
        self.ids = np.asarray(pats.ids)
        self.n_rows = int(raw.codes.shape[0])
        self.method = self.method_name

    @cached_property
    def _columns(self) -> list[np.ndarray]:
        has = self.defined()
        return [pattern_members(self.raw, self.pats, i) if has[i] else np.zeros(0, dtype=np.intp)
                for i in range(len(self.ids))]  # k entropy patterns, each filtered with numpy

    @cached_property
    def _members(self) -> sp.csc_matrix:
        cols = self._columns
        r = np.concatenate(cols) if cols else np.zeros(0, dtype=np.intp)
        c = np.repeat(np.arange(len(cols)), [len(x) for x in cols])
        return sp.csc_matrix((np.ones(len(r), dtype=bool), (r, c)), shape=(self.n_rows, len(cols)))

    @cached_property
    def _strings(self) -> list[str]:
        return pattern_strings(self.raw, self.pats)

    def sizes(self) -> pd.arrays.IntegerArray:
        """Rows per pattern's subgroup (a repeated pattern: those of the one it repeats; empty: <NA>)."""
        dup = self.pats.duplicate_of
        n = np.array([len(c) for c in self._columns], dtype=np.int64)
        n[dup >= 0] = n[dup[dup >= 0]]
        out = pd.array(n, dtype="Int64")
        out[self.pats.is_empty] = pd.NA
        return out

    def defined(self) -> np.ndarray:
        """Patterns that are neither empty nor a repeat of an earlier one."""
        out: np.ndarray = ~(self.pats.is_empty | (self.pats.duplicate_of >= 0))
        return out

    def rows(self, i: int) -> np.ndarray:
        """Rows of the whole table matching pattern ``i``.

        Raises:
            ValueError: the pattern is empty (it defines no subgroup).
        """
        if self.pats.is_empty[i]:
            raise ValueError(f"the entropy pattern of cluster {_plain(self.ids[i])!r} is empty (no dominant "
                             "attribute): no subgroup")
        return pattern_members(self.raw, self.pats, i)

    def description(self, i: int) -> str:
        """``"a=x AND b=y"`` ('' for an empty pattern)."""
        return self._strings[i]

    def conditions(self, i: int) -> dict[str, Any]:
        """Attribute -> value of pattern ``i`` (its dominant attributes)."""
        return {c: self.raw.uniques[j][self.pats.values[i, j]]
                for j, c in enumerate(self.raw.columns) if self.pats.dominant[i, j]}

    def description_class(self) -> np.ndarray:
        """One class for every entropy pattern."""
        return np.full(len(self.ids), self.kind, dtype=object)

    def condition_table(self) -> pd.DataFrame:
        """Index id, a column per attribute, NaN where the attribute is not in the pattern."""
        return pattern_frame(self.raw, self.pats)

    def pattern_info(self, size: np.ndarray) -> pd.DataFrame:
        """Per pattern: its text, length, whether it is empty or repeats an earlier one, and ``size``."""
        dup = self.pats.duplicate_of
        return pd.DataFrame(
            {
                "pattern": self._strings,
                "length": self.pats.dominant.sum(axis=1),
                "is_empty": self.pats.is_empty,
                "is_duplicate": dup >= 0,
                "duplicate_of": pd.array([self.ids[d] if d >= 0 else pd.NA for d in dup], dtype="Int64"),
                "size": size,
            },
            index=pd.Index(self.ids, name="id"),
        )

    def entropies(self) -> pd.DataFrame:
        """Normalised entropy of every attribute in every cluster (index id, a column per attribute)."""
        return pd.DataFrame(self.pats.entropy, index=pd.Index(self.ids, name="id"), columns=self.pats.columns)


@dataclass(frozen=True)
class Clustering:
    """The seed's clustering of one analysis, with what the report says about it.

    Attributes:
        labels: cluster label per row.
        name: the clustering method used.
        validity: validity indices and, of binary decisions, the fairness separation of the clustering.
        model_selection: the candidates compared when ``n_clusters`` was a sequence (or None).
        cut_is_unique: for a hierarchical clustering, False when the cut falls inside a tie of merge distances
            (None for flat clusterings).
        cut_distance: the merge distance at which the cut falls (NaN for flat clusterings).
        patterns: the entropy patterns of its clusters (the ``"entropy"`` family).
        sampled_rows: the rows the clustering was fitted on when it was fitted on a random sample (the other rows
            joined their nearest sampled row's cluster, :mod:`~.cluster_sample`); None when every row was.
    """

    labels: np.ndarray
    name: str
    validity: pd.Series
    model_selection: pd.DataFrame | None
    cut_is_unique: bool | None
    cut_distance: float
    patterns: EntropyFamily
    sampled_rows: int | None = None

    def families(self) -> tuple[ClusterFamily, EntropyFamily]:
        """The two candidate families of the clustering: its clusters and their entropy patterns."""
        return ClusterFamily(self.labels, self.patterns.ids, self.name), self.patterns
