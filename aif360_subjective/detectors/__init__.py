"""Automated subgroup fairness discovery (the ASDF method, seed 002).

Functional face: :func:`detect_subgroups` on a raw table returns a :class:`SubgroupReport`; the classic AIF360
face is :class:`aif360_subjective.metrics.SubgroupDiscoveryMetric`. Both call the same core.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._deprecation import moved_modules
from .._lazy import lazy_names

if TYPE_CHECKING:
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

#: The public names imported on first use, by module: a Dask or Spark worker imports this package (the parent of
#: the per-partition functions of ``_dask.passes`` it unpickles), and importing the analysis here -- the report,
#: the candidates, the clustering, scipy.stats -- cost every worker process seconds of imports it never uses.
_LAZY = {
    "AIF360Subgroup": "aif360_bridge", "subgroup_to_aif360": "aif360_bridge",
    "CLUSTERINGS": "asdf.clustering", "HierarchicalTree": "asdf.clustering", "fit_clustering": "asdf.clustering",
    "validity_indices": "asdf.clustering", "xmeans_n_clusters": "asdf.clustering",
    "lopsidedness": "asdf.lopsided", "entropy_patterns": "asdf.patterns", "fairness_separation": "asdf.selection",
    "alternative_clusterings": "detect", "compare_clusterings": "detect", "detect_subgroups": "detect",
    "DIRECTIONS": "directions",
    "detect_categorical": "encoding", "encode_for_clustering": "encoding", "factorize_columns": "encoding",
    "benjamini_hochberg": "error_control.inference", "newcombe_interval": "error_control.inference",
    "subgroup_inference": "error_control.inference", "wilson_interval": "error_control.inference",
    "AnalysisOptions": "options", "Clusterer": "options", "check_analysis_options": "options",
    "SubgroupReport": "report",
    "FAIRNESS_METRICS": "subgroup_metrics", "METRICS": "subgroup_metrics", "SUBGROUP_METRICS": "subgroup_metrics",
    "SubgroupMetric": "subgroup_metrics", "metrics_from_counts": "subgroup_metrics",
}

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


# a public name of _LAZY, imported on first use (then a module attribute)
__getattr__ = lazy_names(__name__, {name: f".{home}" for name, home in _LAZY.items()})


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
