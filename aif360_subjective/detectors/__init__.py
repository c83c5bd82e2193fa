"""Automated subgroup fairness discovery (the ASDF method, seed 002).

Functional face: :func:`detect_subgroups` on a raw table returns a :class:`SubgroupReport`; the classic AIF360
face is :class:`aif360_subjective.metrics.SubgroupDiscoveryMetric`. Both call the same core.
"""

from .._deprecation import moved_modules
from .aif360_bridge import AIF360Subgroup, subgroup_to_aif360
from .asdf.clustering import CLUSTERINGS, HierarchicalTree, fit_clustering, validity_indices, xmeans_n_clusters
from .asdf.lopsided import lopsidedness
from .asdf.patterns import entropy_patterns
from .asdf.selection import fairness_separation
from .detect import alternative_clusterings, compare_clusterings, detect_subgroups
from .directions import DIRECTIONS
from .encoding import detect_categorical, encode_for_clustering, factorize_columns
from .error_control.inference import benjamini_hochberg, newcombe_interval, subgroup_inference, wilson_interval
from .options import AnalysisOptions, Clusterer, check_analysis_options
from .report import SubgroupReport
from .subgroup_metrics import FAIRNESS_METRICS, METRICS, SUBGROUP_METRICS, SubgroupMetric, metrics_from_counts

#: Modules that moved into the family sub-folders in 0.3 (asdf/, mining/, error_control/, _dask/): their former paths
#: stay importable for one release, with a DeprecationWarning (CHANGELOG.md).
_MOVED_IN_0_3 = {
    f"{__name__}.{old}": f"{__name__}.{new}"
    for old, new in {
        "clustering": "asdf.clustering", "xmeans": "asdf.xmeans", "mst": "asdf.mst",
        "cluster_sample": "asdf.cluster_sample", "lopsided": "asdf.lopsided", "selection": "asdf.selection",
        "patterns": "asdf.patterns", "families": "asdf.families",
        "pattern_mining": "mining.pattern_mining", "cell_counts": "mining.cell_counts",
        "maxt": "error_control.maxt", "keyed_permutation": "error_control.keyed_permutation",
        "resampling": "error_control.resampling", "inference": "error_control.inference",
        "continuous": "error_control.continuous",
        "dask_counts": "_dask.counts", "dask_detect": "_dask.detect", "dask_summary": "_dask.summary",
    }.items()
}
moved_modules(_MOVED_IN_0_3)

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
