"""Automated subgroup fairness discovery (the ASDF method, seed 002).

Functional face: :func:`detect_subgroups` on a raw table returns a :class:`SubgroupReport`; the classic AIF360
face is :class:`aif360_subjective.metrics.SubgroupDiscoveryMetric`. Both call the same core.
"""

from .aif360_bridge import AIF360Subgroup, subgroup_to_aif360
from .clustering import CLUSTERINGS, HierarchicalTree, fit_clustering, validity_indices, xmeans_n_clusters
from .detect import alternative_clusterings, compare_clusterings, detect_subgroups
from .directions import DIRECTIONS
from .encoding import detect_categorical, encode_for_clustering, factorize_columns
from .inference import benjamini_hochberg, newcombe_interval, subgroup_inference, wilson_interval
from .lopsided import lopsidedness
from .options import AnalysisOptions, Clusterer, check_analysis_options
from .patterns import entropy_patterns
from .report import SubgroupReport
from .selection import fairness_separation
from .subgroup_metrics import FAIRNESS_METRICS, METRICS, SUBGROUP_METRICS, SubgroupMetric, metrics_from_counts

__all__ = [
    "AIF360Subgroup",
    "CLUSTERINGS",
    "DIRECTIONS",
    "FAIRNESS_METRICS",
    "METRICS",
    "SUBGROUP_METRICS",
    "AnalysisOptions",
    "Clusterer",
    "HierarchicalTree",
    "SubgroupMetric",
    "SubgroupReport",
    "alternative_clusterings",
    "benjamini_hochberg",
    "check_analysis_options",
    "compare_clusterings",
    "detect_categorical",
    "detect_subgroups",
    "encode_for_clustering",
    "entropy_patterns",
    "factorize_columns",
    "fairness_separation",
    "fit_clustering",
    "lopsidedness",
    "metrics_from_counts",
    "newcombe_interval",
    "subgroup_inference",
    "subgroup_to_aif360",
    "validity_indices",
    "wilson_interval",
    "xmeans_n_clusters",
]
