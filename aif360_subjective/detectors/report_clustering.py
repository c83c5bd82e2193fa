"""What a :class:`~aif360_subjective.detectors.report.SubgroupReport` says of the seed's clustering.

The per-row cluster labels, the validity indices, the cut, the sample and the lopsidedness of the clustering, and
its entropy patterns' tables; each with its empty form when no clustering ran (``discovery="patterns"``, or an
analysis of Dask collections), so that the report reads them the same way either way.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from .asdf.families import Clustering
from .asdf.lopsided import lopsidedness
from .candidates import Candidates

__all__ = ["ClusteringFacts", "clustering_facts", "entropy_table", "pattern_info_table"]

#: Lopsidedness of a report without a clustering (``discovery="patterns"``).
_NO_CLUSTERING = {"n_clusters": 0, "largest_share": float("nan"), "tiny_clusters": 0, "lopsided": False, "reason": ""}
_INFO_COLUMNS = ("pattern", "length", "is_empty", "is_duplicate", "duplicate_of", "size")


class ClusteringFacts(NamedTuple):
    """The clustering attributes of a report (:class:`~aif360_subjective.detectors.report.SubgroupReport`'s
    ``clusters``, ``n_clusters``, ``clustering``, ``validity``, ``model_selection``, ``cut_is_unique``,
    ``cut_distance``, ``cluster_sample`` and ``lopsided``)."""

    clusters: pd.Series
    n_clusters: int
    name: str
    validity: pd.Series
    model_selection: pd.DataFrame | None
    cut_is_unique: bool | None
    cut_distance: float
    sampled_rows: int | None
    lopsided: dict[str, Any]


def clustering_facts(clustering: Clustering | None, index: pd.Index) -> ClusteringFacts:
    """The report's clustering attributes of ``clustering`` over the rows ``index`` (None: no clustering ran, every
    row's cluster <NA>, no clusters, no validity indices)."""
    if clustering is None:
        return ClusteringFacts(
            clusters=pd.Series(pd.array([pd.NA] * len(index), dtype="Int64"), index=index, name="cluster"),
            n_clusters=0, name="none", validity=pd.Series(dtype=float, name="validity"), model_selection=None,
            cut_is_unique=None, cut_distance=float("nan"), sampled_rows=None, lopsided=dict(_NO_CLUSTERING))
    return ClusteringFacts(
        clusters=pd.Series(clustering.labels, index=index, name="cluster"),
        n_clusters=int(len(clustering.patterns.ids)), name=clustering.name, validity=clustering.validity,
        model_selection=clustering.model_selection, cut_is_unique=clustering.cut_is_unique,
        cut_distance=float(clustering.cut_distance), sampled_rows=clustering.sampled_rows,
        lopsided=lopsidedness(clustering.labels))


def pattern_info_table(clustering: Clustering | None, candidates: Candidates, table: pd.DataFrame) -> pd.DataFrame:
    """Per entropy pattern: its text, length, whether it is empty or repeats an earlier one, and its size (from the
    metric ``table``; no rows without a clustering)."""
    if clustering is None:
        return pd.DataFrame({c: [] for c in _INFO_COLUMNS}, index=pd.Index([], dtype=np.int64, name="id"))
    fam = clustering.patterns
    return fam.pattern_info(table["size"].iloc[candidates.positions(fam.kind)].to_numpy())


def entropy_table(clustering: Clustering | None, features: list[str]) -> pd.DataFrame:
    """Normalised entropy of every attribute in every cluster (index id, a column per attribute of ``features``;
    no rows without a clustering)."""
    if clustering is None:
        return pd.DataFrame(columns=features, index=pd.Index([], dtype=np.int64, name="id"), dtype=float)
    return clustering.patterns.entropies()
