"""The validated options of one subgroup-discovery run, built once by both faces.

:func:`check_analysis_options` checks every option of :func:`~aif360_subjective.detectors.detect_subgroups`,
``SubgroupDiscoveryMetric`` and :func:`~aif360_subjective.detectors.compare_clusterings` and returns a frozen
:class:`AnalysisOptions`, as :class:`~aif360_subjective.opinion.OpinionOptions` does for the opinion-exclusion
family.

References:
    J. Schäfer and L. Wiese, "ASDF-Dashboard: Automated Subgroup Detection and Fairness Analysis" (the options
    of the method).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import pandas as pd

from .._dask import is_dask_collection
from .._param_tables import SUBGROUP_PARAMS
from .._spark import is_spark_dataframe
from .._validation import check_columns
from ._validation import check_n_clusters
from .encoding import detect_categorical
from .error_control.maxt import DEFAULT_PERMUTATIONS
from .mining.numeric_conditions import check_thresholds
from .mining.pattern_mining import DEFAULT_BINS, DEFAULT_MAX_MERGE, DEFAULT_THRESHOLDS, check_min_support

__all__ = ["AnalysisOptions", "CLUSTERING_ONLY_OPTIONS", "Clusterer", "DEFAULT_CLUSTER_SAMPLE", "DEFAULT_MAX_PATTERNS",
           "DEFAULT_MIN_SUPPORT", "DISCOVERIES", "MAX_T_PENALTIES", "PERMUTATION_CHOICES", "check_analysis_options"]

#: Values of the ``discovery`` option: the seed's clusters and entropy patterns, mined patterns, or both.
DISCOVERIES: tuple[str, ...] = SUBGROUP_PARAMS.choices("discovery")
#: Values of the ``max_t_penalty`` option: what each candidate's z loses before the maximum (see
#: :func:`~aif360_subjective.detectors.error_control.maxt.class_offsets` and
#: :func:`~aif360_subjective.detectors.error_control.maxt.scan_penalty`).
MAX_T_PENALTIES: tuple[str, ...] = SUBGROUP_PARAMS.choices("max_t_penalty")
#: Values of the ``permutation`` option of ``detect_subgroups``: the max-T's permutations (``"auto"``: classical in
#: memory, keyed on Dask collections; see :mod:`~aif360_subjective.detectors.keyed_permutation`).
PERMUTATION_CHOICES: tuple[str, ...] = SUBGROUP_PARAMS.choices("permutation")
#: Default ``min_support`` of the pattern candidates (a share of the rows); see ``detect_subgroups``.
DEFAULT_MIN_SUPPORT: float = SUBGROUP_PARAMS.default("min_support")
#: Default ``cluster_sample``: the most rows the clustering is fitted on (``benchmarks/wide_tables.py``).
DEFAULT_CLUSTER_SAMPLE: int = SUBGROUP_PARAMS.default("cluster_sample")
#: Default ``max_patterns``: the most mined patterns (``benchmarks/wide_tables.py``).
DEFAULT_MAX_PATTERNS: int = SUBGROUP_PARAMS.default("max_patterns")
#: The options read by the seed's clustering and its entropy patterns only: ``discovery="patterns"`` runs no
#: clustering, so a value other than the default is refused there rather than ignored.
CLUSTERING_ONLY_OPTIONS: tuple[str, ...] = (
    "clustering", "n_clusters", "entropy_threshold", "normalization", "inclusive", "selection_metric",
    "silhouette_sample_size", "mst", "cluster_sample",
)


@runtime_checkable
class Clusterer(Protocol):
    """An unfitted scikit-learn clusterer: cloned with ``get_params`` and fitted with ``fit`` (then ``labels_``)."""

    def fit(self, X: Any, y: Any = None) -> Any: ...  # noqa: D102 (scikit-learn's API)

    def get_params(self, deep: bool = True) -> dict[str, Any]: ...  # noqa: D102


@dataclass(frozen=True)
class AnalysisOptions:
    """Validated options of one subgroup-discovery run (both faces build it with :func:`check_analysis_options`).

    Attributes:
        clustering: a name in :data:`~aif360_subjective.detectors.CLUSTERINGS` or an unfitted clusterer.
        n_clusters: as given: ``None`` (automatic), an int, or a sequence of candidate ints.
        k: as the clustering takes it: ``None``, an int, or a tuple of candidates (fairness-aware choice).
        entropy_threshold: tau in [0, 1].
        categorical_features: the columns treated as categorical (detected when not given).
        normalization: ``"cluster"`` or ``"domain"``.
        inclusive: ``NE <= tau`` (True) or ``NE < tau`` (False).
        undefined_rates: ``"nan"`` or ``"asdf"``.
        selection_metric: the metric of the fairness-aware choice of k.
        silhouette_sample_size: rows sampled for the silhouette, ``None`` for all.
        mst: single linkage's minimum-spanning-tree back end.
        discovery: ``"asdf"``, ``"patterns"`` or ``"both"`` (the kinds of candidates).
        max_length, min_support, n_bins, max_merge, thresholds: the mined patterns (see
            :mod:`~aif360_subjective.detectors.mining.pattern_mining`).
        n_permutations: permutations of the max-T error control.
        max_t_penalty: ``"classes"``, ``"size"`` or ``"none"``: the max-T statistic's penalty.
        cluster_sample: the most rows the clustering is fitted on (``None``: all rows); see
            :mod:`~aif360_subjective.detectors.asdf.cluster_sample`.
        max_patterns: the most mined patterns (``None``: no bound); see
            :func:`~aif360_subjective.detectors.mining.pattern_mining.mine_patterns`.
        clusterings: ``"seed"`` (the seed's one clustering) or ``"validated"`` (many models, every cluster in the
            max-T, one selected by the fairness validation index: :mod:`~.asdf.validated`).
        clustering_models: the models of ``clusterings="validated"`` (None: the default,
            :data:`~.asdf.validated_models.DEFAULT_MODELS`), as a tuple.
    """

    clustering: str | Clusterer
    n_clusters: int | Sequence[int] | None
    k: int | tuple[int, ...] | None
    entropy_threshold: float
    categorical_features: list[str]
    normalization: str
    inclusive: bool
    undefined_rates: str
    selection_metric: str
    silhouette_sample_size: int | None
    mst: str = "auto"
    discovery: str = "asdf"
    max_length: int = 3
    min_support: int | float = DEFAULT_MIN_SUPPORT
    n_bins: int = DEFAULT_BINS
    max_merge: int = DEFAULT_MAX_MERGE
    thresholds: int | None = DEFAULT_THRESHOLDS
    n_permutations: int = DEFAULT_PERMUTATIONS
    max_t_penalty: str = "classes"
    cluster_sample: int | None = DEFAULT_CLUSTER_SAMPLE
    max_patterns: int | None = DEFAULT_MAX_PATTERNS
    clusterings: str = "seed"
    clustering_models: tuple[Any, ...] | None = None

    @property
    def clustering_name(self) -> str:
        """The clustering's name, or its class name for a clusterer object."""
        return self.clustering if isinstance(self.clustering, str) else type(self.clustering).__name__

    def describe(self, pos_label: Any) -> dict[str, Any]:
        """The options as the report records them (plain values, with the favourable label)."""
        return {
            "pos_label": pos_label,
            "entropy_threshold": self.entropy_threshold,
            "normalization": self.normalization,
            "inclusive": self.inclusive,
            "undefined_rates": self.undefined_rates,
            "n_clusters": self.n_clusters,
            "selection_metric": self.selection_metric,
            "mst": self.mst,
            "discovery": self.discovery,
            "max_length": self.max_length,
            "min_support": self.min_support,
            "n_bins": self.n_bins,
            "max_merge": self.max_merge,
            "thresholds": self.thresholds,
            "n_permutations": self.n_permutations,
            "max_t_penalty": self.max_t_penalty,
            "cluster_sample": self.cluster_sample,
            "max_patterns": self.max_patterns,
            # the seed's runs record what they always did
            **({"clusterings": self.clusterings, "clustering_models": self.clustering_models}
               if self.clusterings != "seed" else {}),
        }


def check_analysis_options(
    X: pd.DataFrame,
    *,
    entropy_threshold: Any = SUBGROUP_PARAMS.default("entropy_threshold"),
    n_clusters: Any = SUBGROUP_PARAMS.default("n_clusters"),
    undefined_rates: Any = SUBGROUP_PARAMS.default("undefined_rates"),
    normalization: Any = SUBGROUP_PARAMS.default("normalization"),
    selection_metric: Any = SUBGROUP_PARAMS.default("selection_metric"),
    silhouette_sample_size: Any = SUBGROUP_PARAMS.default("silhouette_sample_size"),
    clustering: Any = SUBGROUP_PARAMS.default("clustering"),
    categorical_features: Any = None,
    inclusive: Any = False,
    mst: Any = SUBGROUP_PARAMS.default("mst"),
    discovery: Any = SUBGROUP_PARAMS.default("discovery"),
    max_length: Any = SUBGROUP_PARAMS.default("max_length"),
    min_support: Any = SUBGROUP_PARAMS.default("min_support"),
    n_bins: Any = SUBGROUP_PARAMS.default("n_bins"),
    max_merge: Any = SUBGROUP_PARAMS.default("max_merge"),
    thresholds: Any = SUBGROUP_PARAMS.default("thresholds"),
    n_permutations: Any = SUBGROUP_PARAMS.default("n_permutations"),
    max_t_penalty: Any = SUBGROUP_PARAMS.default("max_t_penalty"),
    cluster_sample: Any = SUBGROUP_PARAMS.default("cluster_sample"),
    max_patterns: Any = SUBGROUP_PARAMS.default("max_patterns"),
    clusterings: Any = SUBGROUP_PARAMS.default("clusterings"),
    clustering_models: Any = SUBGROUP_PARAMS.default("clustering_models"),
) -> AnalysisOptions:
    """Validate the options shared by :func:`detect_subgroups`, ``SubgroupDiscoveryMetric`` and
    :func:`compare_clusterings`.

    An option that is a row of the subgroup parameter table (:data:`~aif360_subjective._param_tables.SUBGROUP_PARAMS`)
    defaults to the row's default, as :func:`detect_subgroups`' does (``tests/test_params.py``);
    ``categorical_features`` (an input) and ``inclusive`` (a flag) are not rows.

    Args:
        X: the feature table (its rows bound ``n_clusters``; its columns are the categorical candidates): a pandas
            DataFrame, or the Dask DataFrame of :func:`~aif360_subjective.detectors.detect_subgroups`' Dask path,
            whose columns and dtypes are read but whose rows are not counted (the bounds by rows concern the
            clustering, which the Dask path does not run).
        entropy_threshold: tau in [0, 1].
        n_clusters: ``None``, an int in [2, len(X)] or a non-empty sequence of such ints.
        undefined_rates: ``"nan"`` or ``"asdf"``.
        normalization: ``"cluster"`` or ``"domain"``.
        selection_metric: a metric of :data:`~aif360_subjective.detectors.asdf.selection.SELECTION_METRICS`.
        silhouette_sample_size: ``None`` or an int >= 2.
        clustering: a name in :data:`~aif360_subjective.detectors.CLUSTERINGS` or a clusterer object.
        categorical_features: column names of ``X``, or ``None`` to detect them.
        inclusive: whether a normalised entropy equal to tau is dominant.
        mst: ``"auto"``, ``"mlpack"`` or ``"sklearn"``.
        discovery: ``"asdf"``, ``"patterns"`` or ``"both"``.
        max_length: an int >= 1.
        min_support: a row count (int >= 1) or a share in (0, 1).
        n_bins: an int >= 2.
        max_merge: an int >= 1.
        thresholds: ``None`` or an int from 2 to the number of rows: quantile steps of the one-sided conditions
            (:mod:`~aif360_subjective.detectors.mining.numeric_conditions`).
        n_permutations: an int from 19 to 100,000 (``maxt.MAX_PERMUTATIONS``).
        max_t_penalty: ``"classes"``, ``"size"`` or ``"none"``.
        cluster_sample: ``None`` or an int >= 2: the most rows the clustering is fitted on.
        max_patterns: ``None`` or an int >= 1: the most mined patterns.
        clusterings: ``"seed"`` or ``"validated"``.
        clustering_models: None or a non-empty list of models (:func:`~.asdf.validated_models.expand_models`),
            with ``clusterings="validated"`` only.

    Returns:
        AnalysisOptions: the options as the analysis takes them (categorical columns auto-detected when
        not given).

    Raises:
        ValueError: an option out of range, an unknown name, or unknown columns; more clusters than the
            ``cluster_sample`` rows a larger table's clustering is fitted on; an option of the clustering
            (:data:`CLUSTERING_ONLY_OPTIONS`) other than its default with ``discovery="patterns"``, which runs no
            clustering.
        TypeError: an option of the wrong type.
    """
    frame, n = _columns_and_rows(X)
    tau = float(SUBGROUP_PARAMS.check("entropy_threshold", entropy_threshold))
    check_n_clusters(n_clusters, None)  # its type here; its bound by the rows below
    given = {"undefined_rates": undefined_rates, "normalization": normalization, "selection_metric": selection_metric,
             "silhouette_sample_size": silhouette_sample_size, "mst": mst, "clustering": clustering,
             "discovery": discovery, "max_length": max_length, "min_support": min_support, "n_bins": n_bins,
             "max_merge": max_merge, "thresholds": thresholds, "n_permutations": n_permutations,
             "max_t_penalty": max_t_penalty,
             "cluster_sample": cluster_sample, "max_patterns": max_patterns, "clusterings": clusterings,
             "clustering_models": clustering_models}
    for name, value in given.items():  # in the table's order of declaration
        SUBGROUP_PARAMS.check(name, value)
    if discovery == "patterns":  # before the bounds by rows, which the Dask path (no clustering) cannot know
        _refuse_clustering_options({**given, "n_clusters": n_clusters, "entropy_threshold": entropy_threshold,
                                    "inclusive": inclusive})
    k = check_n_clusters(n_clusters, n)
    largest_k = max(k) if isinstance(k, tuple) else k
    sampled = cluster_sample is not None and n is not None and n > cluster_sample  # the clustering sees a sample
    if sampled and largest_k is not None and largest_k > cluster_sample:
        raise ValueError(f"n_clusters={n_clusters!r} asks for more clusters than the cluster_sample={cluster_sample} "
                         f"rows the clustering is fitted on (of {n}); raise cluster_sample, or pass "
                         "cluster_sample=None to cluster every row")
    check_min_support(min_support, max(n or 0, 1))
    check_thresholds(thresholds, 0)  # its type and range; the rows are checked where a column is cut (mining)
    if categorical_features is None:
        cat = detect_categorical(frame)
    else:
        cat = check_columns(categorical_features, frame, "categorical_features")
    models = _check_models(clusterings, clustering_models, frame, n, cat)
    return AnalysisOptions(
        clustering=clustering, n_clusters=n_clusters, k=k, entropy_threshold=tau, categorical_features=cat,
        normalization=normalization, inclusive=bool(inclusive), undefined_rates=undefined_rates,
        selection_metric=selection_metric, silhouette_sample_size=silhouette_sample_size, mst=mst,
        discovery=discovery, max_length=int(max_length), min_support=min_support, n_bins=int(n_bins),
        max_merge=int(max_merge), thresholds=None if thresholds is None else int(thresholds),
        n_permutations=int(n_permutations), max_t_penalty=max_t_penalty,
        cluster_sample=None if cluster_sample is None else int(cluster_sample),
        max_patterns=None if max_patterns is None else int(max_patterns), clusterings=clusterings,
        clustering_models=models,
    )


def _check_models(clusterings: str, spec: Any, frame: pd.DataFrame, n: int | None,
                  cat: list[str]) -> tuple[Any, ...] | None:
    """``clustering_models`` as a tuple, its models checked against the table (:func:`.asdf.validated_models.
    expand_models`) when ``clusterings="validated"``.

    Raises:
        ValueError: models given with ``clusterings="seed"``, validated clusterings of a Dask collection, or what
            :func:`~.asdf.validated_models.expand_models` refuses.
    """
    if clusterings != "validated":
        if spec is not None:
            raise ValueError(f"clustering_models={spec!r} lists the models of clusterings='validated'; pass "
                             "clusterings='validated' with it, or leave it None")
        return None
    if n is None:
        raise ValueError("clusterings='validated' fits clustering models on the rows in memory; a Dask collection "
                         "is analysed by mined patterns only (use clusterings='seed')")
    from .asdf.validated_models import expand_models

    expand_models(spec, frame, cat)  # every error at once, before any fitting
    return None if spec is None else tuple(spec)


def _columns_and_rows(X: Any) -> tuple[pd.DataFrame, int | None]:
    """The frame whose columns and dtypes the options are checked against, and its rows: a Dask DataFrame gives its
    empty frame of the dtypes and ``None`` (counting its rows would be a pass over the data); so does a Spark
    DataFrame (its columns as ``toPandas()`` types them)."""
    if is_spark_dataframe(X):
        empty: pd.DataFrame = X.limit(0).toPandas()
        return empty, None
    if is_dask_collection(X):
        from dask.dataframe.utils import make_meta

        meta: pd.DataFrame = make_meta(X)
        return meta, None
    return X, len(X)


def _refuse_clustering_options(given: dict[str, Any]) -> None:
    """``discovery="patterns"`` clusters nothing: an option only the clustering reads, given a value other than its
    default, would be ignored without a word.

    Raises:
        ValueError: naming the first such option (in :data:`CLUSTERING_ONLY_OPTIONS`' order) and its value.
    """
    for name in CLUSTERING_ONLY_OPTIONS:
        # inclusive is a plain flag of the entropy patterns, outside the table (default False)
        value, default = given[name], False if name == "inclusive" else SUBGROUP_PARAMS.default(name)
        try:
            same = bool(value == default) if default is not None else value is None
        except (TypeError, ValueError):  # an array, an estimator with an odd __eq__: not the default
            same = False
        if not same:
            raise ValueError(
                f"{name}={value!r} applies to the clustering, which discovery='patterns' does not run (it mines "
                f"patterns only); use discovery='asdf' or 'both' for the clusters, or leave {name} at its default "
                f"({default!r})")
