"""The parameter tables of the package's families: each option's admissible values, default and help, once.

:data:`SUBGROUP_PARAMS` (subgroup discovery: :func:`~aif360_subjective.detectors.check_analysis_options` and the
ranking), :data:`OPINION_PARAMS` (opinion exclusion: :func:`~aif360_subjective.opinion.check_opinion_options`, its
intervals and test) and :data:`CROWDTRUTH_PARAMS` (CrowdTruth scores and the CrowdTruth filter). The engine
modules bind their vocabularies (``CLUSTERINGS``, ``GROUPING_NAMES``, ...) and defaults to these tables and check
options with them; the command line builds ``choices`` and help from them and the dashboard its widget options,
so a name added here appears everywhere at once.

Ground floor: imports only :mod:`aif360_subjective._params` (the command line's ``--help`` reads these tables
without loading numpy, pandas or scikit-learn).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._params import NONE, Instance, Interval, Options, Param, ParamTable

__all__ = ["CLUSTERER", "FLAG", "CROWDTRUTH_PARAMS", "OPINION_PARAMS", "PROGRESS", "SUBGROUP_PARAMS"]


def _is_clusterer(value: Any) -> bool:
    """An unfitted scikit-learn-style clusterer: ``fit`` and ``get_params`` (cloned, then fitted)."""
    return not isinstance(value, str) and hasattr(value, "fit") and hasattr(value, "get_params")


def _is_bool(value: Any) -> bool:
    """True or False (a numpy bool too, named ``bool_`` before numpy 2 and ``bool`` since; 0 and 1 are not: a flag
    is not a count). Without importing numpy (this module is on the ground floor)."""
    kind = type(value)
    return isinstance(value, bool) or (kind.__module__ == "numpy" and kind.__name__ in ("bool_", "bool"))


def _is_int_sequence(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, str)


#: True or False: an on/off option.
FLAG = Instance(_is_bool, "True or False")
#: A clusterer object, accepted wherever a clustering name is.
CLUSTERER = Instance(_is_clusterer, "a scikit-learn clusterer instance")
#: The progress of long computations, shared by the tables of the faces that report it.
PROGRESS = Param("progress", (FLAG,), False,
                 "show the progress of long computations (the mining's levels, the max-T's permutations) on stderr, "
                 "or in a notebook")
_UNIT_INTERVAL = Interval("real", 0.0, 1.0)
_OPEN_UNIT = Interval("real", 0.0, 1.0, closed="neither")

#: Subgroup discovery (ASDF, mined patterns, max-T) and its ranking.
SUBGROUP_PARAMS = ParamTable("subgroup discovery", (
    Param("clustering", (Options(("slink", "kmeans", "xmeans", "dbscan", "optics", "birch", "ward")), CLUSTERER),
          "slink", "clustering method"),
    Param("n_clusters", (NONE, Interval("int", 2), Instance(_is_int_sequence, "a sequence of such ints")), None,
          "number of clusters (None = chosen by x-means; a sequence = the fairness-aware choice among them)"),
    Param("entropy_threshold", (_UNIT_INTERVAL,), 0.65,
          "dominant attributes have a normalised entropy below this threshold, tau"),
    Param("undefined_rates", (Options(("nan", "asdf")),), "nan",
          "a rate without rows: NaN (nan) or the ASDF dashboard's 0 (asdf)"),
    Param("normalization", (Options(("cluster", "domain")),), "cluster",
          "entropy normalised by the values present in the cluster or in the whole column"),
    Param("selection_metric", (Options(("statistical_parity", "equal_opportunity", "equalized_odds", "accuracy",
                                        "accuracy_error")),), "statistical_parity",
          "the metric of the fairness-aware choice among several n_clusters"),
    Param("silhouette_sample_size", (NONE, Interval("int", 2)), 1000,
          "rows sampled for the silhouette (None = all)"),
    Param("mst", (Options(("auto", "mlpack", "sklearn")),), "auto",
          "single linkage's minimum-spanning-tree back end"),
    Param("cluster_sample", (NONE, Interval("int", 2)), 10_000,
          "most rows the clustering is fitted on: above it, a random sample of this many rows (drawn with "
          "random_state) is clustered and every other row joins the cluster of its nearest sampled row "
          "(None = all rows)"),
    Param("clusterings", (Options(("seed", "validated")),), "seed",
          "the seed's one clustering (seed), or many clustering models (algorithms x feature views x k) whose every "
          "cluster enters the max-T, the model with the largest fairness validation index selected (validated)"),
    Param("clustering_models", (NONE, Instance(_is_int_sequence, "a list of algorithm names (slink, kmeans, ward, "
                                                "gmm, gmm_core, hdbscan, scan) or (algorithm, view, k) tuples")), None,
          "the models of clusterings='validated' (None = gmm_core, the Gaussian mixture's dense cores, on every "
          "numeric column and each pair of them at k = 5, 10, 20, 40 as the rows allow)"),
    Param("task", (Options(("auto", "binary", "multiclass", "ordinal", "regression")),), "auto",
          "what the model predicts: decided from the labels (auto), binary decisions, unordered classes "
          "(multiclass), ordered levels such as ratings (ordinal) or numbers (regression)"),
    Param("discovery", (Options(("asdf", "patterns", "both")),), "both",
          "subgroup candidates: the ASDF clusters and their entropy patterns, mined patterns (conjunctions of "
          "conditions), or both"),
    Param("max_length", (Interval("int", 1),), 3, "most conditions in a mined pattern"),
    Param("max_patterns", (NONE, Interval("int", 1)), 200_000,
          "most mined patterns: a length whose patterns would bring the total above it is not mined, and the "
          "report says so (None = no bound)"),
    Param("min_support", (Interval("int", 1), Interval("real", 0.0, 1.0, closed="neither")), 0.01,
          "fewest rows of a mined pattern: a count, or a share of the rows"),
    Param("n_bins", (Interval("int", 2),), 10, "quantile bins of a numeric column for the mined patterns"),
    Param("max_merge", (Interval("int", 1),), 3, "longest run of adjacent bins merged into one range condition"),
    Param("thresholds", (NONE, Interval("int", 2)), 10,
          "one-sided conditions (age ≥ 49, income < 21,400) of a numeric column at its quantiles 1/thresholds, "
          "2/thresholds, ... (10: the deciles, the ranges' own cuts; 20: every 5%), besides the ranges (None = ranges "
          "only)"),
    Param("n_permutations", (Interval("int", 19, 100_000),), 200, "permutations of the max-T error control",
          why="adjusted p-values resolve to 1 / (n_permutations + 1): 19 reach 0.05; past 100,000 time and memory "
              "grow for no resolution needed"),
    Param("max_t_penalty", (Options(("classes", "size", "none")),), "classes",
          "what each candidate's z loses before the maximum of max-T"),
    Param("permutation", (Options(("auto", "classical", "keyed")),), "auto",
          "the max-T's permutations: classical in memory and keyed on Dask (auto), numpy permutations in a canonical "
          "row order (classical), or each row's class from the seed and its position (keyed)"),
    Param("design", (Options(("between", "within")),), "between",
          "with groups: whole clusters permuted among those of as many rows (between), or rows within their "
          "cluster (within)"),
    # the ranking
    Param("direction", (Options(("disadvantaged", "favoured")),), "disadvantaged",
          "rank the subgroups served worse (disadvantaged) or better (favoured) than the rest"),
    Param("alpha", (NONE, _OPEN_UNIT), 0.05,
          "family-wise error of the significance filter (None = the raw ranking)"),
    Param("control", (Options(("fwer", "fdr")),), "fwer",
          "the ranking's error control: permutation max-T over every candidate (fwer) or Benjamini-Hochberg "
          "q-values per kind (fdr)"),
    Param("ci", (_OPEN_UNIT,), 0.95, "confidence level of the intervals"),
    Param("min_size", (Interval("int", 1),), 1, "smaller subgroups are left out of the rankings"),
    Param("n", (Interval("int", 1),), 5, "length of a ranking"),
    PROGRESS,
))

#: Opinion exclusion (Balayn et al. 2019): grouping, performance, intervals, the test of equal service, and the
#: search for the annotator groups served worse (excluded_groups; the rows named ``discovery_*`` are its options
#: ``n_permutations`` and ``performance``, whose rules differ from the test's and the audit's).
OPINION_PARAMS = ParamTable("opinion exclusion", (
    Param("grouping", (Options(("adr", "ambiguity", "popularity", "demographic", "discovered")),
                       Instance(lambda v: type(v).__name__ == "Series", "a pandas Series mapping annotator ids to "
                                "groups")), "adr",
          "how annotators (or annotations) are grouped"),
    Param("performance", (Options(("accuracy", "balanced_accuracy", "true_positive_rate", "true_negative_rate",
                                   "false_positive_rate", "false_negative_rate", "precision", "f1", "mae",
                                   "within_one")),
                          Instance(callable, "a callable (y_true, y_pred) -> float")), "accuracy",
          "performance measure per annotator; on ordinal ratings mae (mean absolute error, lower is better) or "
          "within_one (share of predicted ratings at most one point off)"),
    Param("min_group_size", (Interval("int", 1),), 1,
          "smaller groups are merged with a neighbour (1 = every group counts)"),
    Param("small_groups", (Options(("merge", "drop")),), "merge", "what happens to groups below min_group_size"),
    Param("aggregate", (NONE, Options(("annotator", "pooled"))), None,
          "a group's value: the mean of its annotators' values, or pooled over its annotations (None = by grouping)"),
    Param("ambiguity", (Options(("disagreement", "entropy", "uqs")),), "disagreement",
          "the item ambiguity measure of grouping='ambiguity'"),
    Param("nan_policy", (Options(("propagate", "omit")),), "propagate",
          "an undefined group value: the unfairness is NaN (propagate) or skips it (omit)"),
    Param("warn_group_size", (Interval("int", 0),), 5,
          "name the groups with fewer annotators and their share of the unfairness (0 = never)"),
    Param("adr_reference", (Options(("majority", "median")),), "majority",
          "ADR disagreement with the item's majority vote, or (ratings) its median rating"),
    Param("adr_fit", (Options(("same", "cross")),), "same",
          "ADR bins fitted on the scored annotations (same, the paper's method) or on the other half of the "
          "items, both ways (cross)"),
    Param("clustering", SUBGROUP_PARAMS["clustering"].constraints, "kmeans",
          "the clusterer of grouping='discovered'"),
    Param("n_clusters", (NONE, Interval("int", 2)), None, "clusters of grouping='discovered' (None = automatic)"),
    Param("ci", (_OPEN_UNIT,), 0.95, "confidence level of the intervals"),
    # fewer than 100 cannot place a 95% interval's bounds; past 100,000 its ends move by Monte-Carlo noise only
    Param("n_boot", (Interval("int", 100, 100_000),), 1000, "bootstrap replicates of the intervals"),
    Param("bootstrap_levels", (Options(("both", "annotators", "crossed")),), "both",
          "resample annotators within groups then their annotations (both), annotators only, or annotators and "
          "items (crossed)"),
    Param("test_statistic", (Options(("studentized", "between", "std")),), "studentized",
          "statistic of the test of equal service: studentized (Welch-type, valid when annotation counts differ), "
          "the size-weighted between-group sum of squares, or the unfairness (std)"),
    Param("adjust", (Options(("none", "items")),), "none",
          "item adjustment of the test of equal service and of excluded_groups: none, or each annotation against the "
          "other annotations of its item"),
    Param("test_adjust", (Options(("none", "items")),), "none",
          "item adjustment of the test of equal service behind the verdict: items compares each annotation with "
          "the other annotations of its item, so that a group that saw harder items is not called served worse "
          "(accuracy, mae or within_one; each annotator's mean over its annotations)"),
    Param("balance", (Options(("conditions", "none")),), "conditions",
          "classes of excluded_groups' max-T: conditions gives the candidates of each number of conditions their own "
          "threshold (the few single attributes are found more easily), none holds every candidate to one threshold "
          "(intersections are found more easily)"),
    Param("n_permutations", (Interval("int", 99, 100_000),), 9999, "permutations of the test of equal service",
          why="p-values resolve to 1 / (n_permutations + 1): 99 reach 0.01; past 100,000 the test's time grows for "
              "no resolution needed"),
    # whose opinions are excluded (excluded_groups; "adjust" and "balance" above are its options too)
    Param("max_conditions", (Interval("int", 1, 3),), 2, "most attribute values per annotator group"),
    Param("min_annotators", (Interval("int", 2),), 5,
          "fewest annotators in an annotator group, and in the rest it is compared with"),
    Param("ranges", (Interval("int", 2),), 4,
          "quantile ranges a numeric annotator attribute (and the ADR) is cut into"),
    Param("alpha", (_OPEN_UNIT,), 0.05, "family-wise error of the search over every annotator group"),
    Param("discovery_n_permutations", (Interval("int", 19, 100_000),), 999,
          "permutations of annotators of the search (and as many wild-bootstrap draws; every permutation with at "
          "most 8 annotators)",
          why="adjusted p-values resolve to 1 / (n_permutations + 1): 19 reach 0.05; past 100,000 time and memory "
              "grow for no resolution needed"),
    Param("step_down", (FLAG,), False,
          "excluded_groups' adjusted p-values: Westfall-Young's free step-down, each candidate against the candidates "
          "not more significant than it (True), or the single step, each against every candidate (False); the "
          "thresholds and intervals are the single step's either way"),
    Param("discovery_performance", (Options(("accuracy", "true_positive_rate", "true_negative_rate",
                                             "false_positive_rate", "false_negative_rate", "precision", "mae",
                                             "within_one")),), "accuracy",
          "the measure of the search: a mean of a per-annotation score (balanced accuracy and F1 are not)"),
))

#: CrowdTruth 2.0 scores and the CrowdTruth filter.
CROWDTRUTH_PARAMS = ParamTable("CrowdTruth", (
    Param("max_delta", (Interval("real", 0.0, closed="neither"),), 0.001,
          "stop when no score moves by more than this"),
    Param("max_iter", (Interval("int", 1),), 1000, "most iterations of the fixed point"),
    Param("threshold", (Options(("auto",)), _UNIT_INTERVAL), "auto",
          "CrowdTruth filter: 'auto' or an absolute worker quality score (WQS) in [0, 1]; annotators strictly "
          "below it are candidates for removal"),
    Param("quantile", (NONE, _UNIT_INTERVAL), None, "CrowdTruth filter: the threshold as this quantile of the WQS"),
    Param("auto_k", (Interval("real", 0.0, closed="neither"),), 3.0,
          "CrowdTruth filter: robust standard deviations below the median WQS for the automatic threshold"),
    Param("min_annotations", (Interval("int", 4),), 5, "CrowdTruth filter: fewest annotations for the consistency test",
          why="the z test needs n - 3 > 0"),
    PROGRESS,
))
