"""Automated subgroup fairness discovery (the ASDF method, seed 002).

Functional face: :func:`detect_subgroups` on a raw table returns a :class:`SubgroupReport`; the classic AIF360
face is :class:`aif360_subjective.metrics.SubgroupDiscoveryMetric`. Both call the same core.
"""

from .clustering import CLUSTERINGS, HierarchicalTree, fit_clustering, validity_indices, xmeans_n_clusters
from .detect import compare_clusterings, detect_subgroups
from .encoding import detect_categorical, encode_for_clustering, factorize_columns
from .patterns import entropy_patterns
from .report import SubgroupReport
from .selection import fairness_separation
from .subgroup_metrics import METRICS, metrics_from_counts

__all__ = [
    "CLUSTERINGS",
    "METRICS",
    "HierarchicalTree",
    "SubgroupReport",
    "compare_clusterings",
    "detect_categorical",
    "detect_subgroups",
    "encode_for_clustering",
    "entropy_patterns",
    "factorize_columns",
    "fairness_separation",
    "fit_clustering",
    "metrics_from_counts",
    "validity_indices",
    "xmeans_n_clusters",
]
