"""``detect_subgroups``: the functional face of automated subgroup fairness discovery (the ASDF method).

References:
    J. Schäfer and L. Wiese, "ASDF-Dashboard: Automated Subgroup Detection and Fairness Analysis",
    CIKM workshops 2022, and the reference implementation jeschaef/ASDF-Dashboard.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from contextvars import copy_context
from typing import Any

import numpy as np
import pandas as pd

from .._dask import is_dask_collection
from .._deprecation import moved_names
from .._progress import reports_progress
from .._spark import is_spark_dataframe
from .._validation import check_choice, is_number
from ._validation import as_frame, check_labels, check_n_clusters, check_paired_index, check_weights
from .asdf.cluster_sample import assign_to_nearest, sample_rows
from .asdf.clustering import (
    HierarchicalTree,
    as_generator,
    choose_n_clusters,
    default_kmax,
    fit_clustering,
    validity_indices,
)
from .asdf.families import Clustering, EntropyFamily
from .asdf.lopsided import flag_lopsided
from .asdf.patterns import entropy_patterns
from .asdf.selection import compare_clusterings_encoded, fairness_separation
from .asdf.validated import ValidatedClusterings, run_validated_clusterings
from .candidates import CandidateFamily, CandidateMetrics, Candidates, candidate_metrics
from .cost_estimate import check_cost, estimate_cost
from .encoding import encode_for_clustering, factorize_columns
from .error_control.continuous import OutcomeColumn
from .error_control.maxt import BATCH, DEFAULT_PERMUTATIONS, WORKERS
from .error_control.resampling import Sampling, row_keys, sampling_of, warn_id_like_columns
from .mining.pattern_mining import (
    DEFAULT_BINS,
    DEFAULT_MAX_MERGE,
    DEFAULT_THRESHOLDS,
    Items,
    MinedPatterns,
    build_items,
    check_min_support,
    mine_patterns,
)
from .options import (
    DEFAULT_CLUSTER_SAMPLE,
    DEFAULT_MAX_PATTERNS,
    DEFAULT_MIN_SUPPORT,
    PERMUTATION_CHOICES,
    AnalysisOptions,
    check_analysis_options,
)
from .outcome_metrics import OutcomeMetrics, outcome_metrics
from .report import SubgroupReport
from .tasks import (
    BinaryTask,
    Task,
    analysis_task,
    check_loss,
    label_values,
    names_decisions,
    names_label_task,
    outcome_columns,
)

#: Binary decisions as the clustering reads them: truth, prediction (favourable = True) and per-row weights.
Decisions = tuple[np.ndarray, np.ndarray, "np.ndarray | None"]

__all__ = ["alternative_clusterings", "compare_clusterings", "detect_subgroups"]

log = logging.getLogger(__name__)


@reports_progress
def detect_subgroups(
    X: Any,
    y_true: Any,
    y_pred: Any,
    *,
    pos_label: Any = 1,
    clustering: Any = "slink",
    n_clusters: int | Sequence[int] | None = None,
    entropy_threshold: float = 0.65,
    categorical_features: Sequence[str] | None = None,
    undefined_rates: str = "nan",
    random_state: Any = None,
    labels: Sequence[Any] | None = None,
    sample_weight: Any = None,
    normalization: str = "cluster",
    inclusive: bool = False,
    selection_metric: str = "statistical_parity",
    silhouette_sample_size: int | None = 1000,
    mst: str = "auto",
    discovery: str = "both",
    max_length: int = 3,
    min_support: int | float = DEFAULT_MIN_SUPPORT,
    n_bins: int = DEFAULT_BINS,
    max_merge: int = DEFAULT_MAX_MERGE,
    thresholds: int | None = DEFAULT_THRESHOLDS,
    n_permutations: int = DEFAULT_PERMUTATIONS,
    max_t_penalty: str = "classes",
    task: str = "auto",
    groups: Any = None,
    design: str = "between",
    loss: Any = None,
    patterns_from: SubgroupReport | None = None,
    cluster_sample: int | None = DEFAULT_CLUSTER_SAMPLE,
    max_patterns: int | None = DEFAULT_MAX_PATTERNS,
    permutation: str = "auto",
    clusterings: str = "seed",
    clustering_models: Sequence[Any] | None = None,
    progress: bool = False,
) -> SubgroupReport:
    """Find subgroups by clustering, entropy patterns and pattern mining, and measure the classifier's
    fairness on each.

    Steps (as the ASDF-Dashboard): encode (one-hot with the first level dropped, min-max scaling), cluster,
    take each cluster as a subgroup and derive its entropy pattern from the raw values (dominant attributes
    with normalised entropy below ``entropy_threshold``, their most frequent values); the pattern's subgroup
    is every matching row of the whole dataset. For every subgroup S against the rest R: statistical parity,
    equal opportunity, equalized odds (rest minus subgroup: positive = S disadvantaged), accuracy and
    accuracy error.

    Pattern candidates (``discovery="patterns"`` or ``"both"``, the third kind ``"pattern"``): every
    conjunction of up to ``max_length`` conditions ``attribute = value``, ``attribute ∈ [low, high)`` (runs of
    up to ``max_merge`` adjacent quantile bins of a numeric column) or ``attribute ≥ t`` / ``attribute < t``
    (one-sided, at the quantile steps ``thresholds``) holding at least ``min_support`` rows; see
    :mod:`~aif360_subjective.detectors.mining.pattern_mining`. The significance filter of the rankings
    (``alpha``) then controls the family-wise error over every candidate of every kind by permutation max-T
    (:mod:`~aif360_subjective.detectors.error_control.maxt`, ``n_permutations`` permutations). Each candidate's z is
    first
    lowered by ``sqrt(2 ln K)``, ``K`` the candidates of its description class (``max_t_penalty="classes"``:
    the clusters, the entropy patterns, the mined patterns of each shape), so that a short conjunction of
    categorical values is not drowned by the thousands of longer patterns with numeric ranges.

    Degenerate data: identical rows (constant features) form one cluster with k-means, birch, DBSCAN and
    x-means whatever ``n_clusters``; single linkage and ward still cut their tree into ``n_clusters`` groups
    of the same point, whose entropy patterns are then all equal (kept once, the others flagged as
    duplicates in :meth:`SubgroupReport.pattern_info`). A subgroup covering every row has no rest: its
    fairness values are NaN. A constant column scales to 0 and is dominant in every pattern. A categorical
    column with more than ``MAX_ONEHOT_LEVELS`` + 1 (64 + 1) levels is one-hot coded on its most frequent
    levels only, with a warning (memory stays O(n x 64) per column); patterns still use every value.

    Every argument after ``y_pred`` is keyword-only.

    Args:
        X: feature table (DataFrame; categorical columns as strings) or 2-d array. No missing values.
        y_true: ground-truth labels.
        y_pred: predicted labels.
        pos_label: the favourable label (the positive class of TPR/FPR).
        clustering: ``"slink"`` (single linkage, default), ``"kmeans"``, ``"xmeans"``, ``"dbscan"``,
            ``"optics"``, ``"birch"``, ``"ward"`` (O(n^2) memory) or an unfitted scikit-learn clusterer.
        n_clusters: number of clusters; ``None`` = automatic by x-means (BIC, kmax = floor(sqrt(n/2)));
            a sequence of ints = fairness-aware choice: each k is tried and the clustering that best
            separates subgroups by ``selection_metric`` is kept (see :attr:`SubgroupReport.model_selection`).
        entropy_threshold: tau in [0, 1]; an attribute is dominant in a cluster when its normalised entropy is
            below tau.
        categorical_features: categorical column names; ``None`` detects strings, categoricals and booleans.
        undefined_rates: ``"nan"`` (as aif360's ClassificationMetric) or ``"asdf"`` (TPR := 0, FPR := 1 where
            undefined, as the reference dashboard).
        random_state: None, int or numpy Generator (x-means, k-means, silhouette sample).
        labels: the two admissible label values (default {0, 1}).
        sample_weight: optional row weights for the metrics (AIF360 instance weights); sizes count rows.
        normalization: ``"cluster"`` (reference: entropy over ln of the values present in the cluster) or
            ``"domain"`` (paper: over ln of the attribute's distinct values in the dataset).
        inclusive: ``False`` for ``NE < tau`` (reference), ``True`` for ``NE <= tau`` (paper).
        selection_metric: fairness metric of the fairness-aware choice of k.
        silhouette_sample_size: rows sampled for the silhouette (``None``: all rows, O(n^2)).
        mst: how single linkage's minimum spanning tree is computed: ``"auto"`` (mlpack when installed,
            else scikit-learn), ``"mlpack"`` (dual-tree Borůvka, the ``[fast]`` extra) or ``"sklearn"``
            (Prim, O(n^2 d), the reference). Both give the same tree, hence the same clusters, unless the
            cut falls inside a tie of merge distances (see :attr:`SubgroupReport.cut_is_unique`).
        discovery: ``"both"`` (default: clusters, entropy patterns and mined patterns), ``"asdf"`` (the seed's
            clusters and entropy patterns only, exactly as before) or ``"patterns"`` (mined patterns only; no
            clustering).
        max_length: most conditions per mined pattern (>= 1).
        min_support: least rows of a mined pattern: a count (int >= 1) or a share of the rows (float in
            (0, 1)). The default, 1 % of the rows, keeps every planted 2-10 % slice of the benchmark among the
            candidates while bounding their number (about 17,600 on 5,000 rows of 6 categorical and 2 numeric
            columns): a shift of 0.1 in a 1 % slice has z < 1.5, while on a null table of that shape a
            two-condition categorical conjunction needs z >= 3.88 to pass max-T
            (``benchmarks/pattern_error_control.py``), so smaller patterns would only cost time.
        n_bins: quantile bins per numeric column (>= 2).
        max_merge: longest run of adjacent bins merged into one range condition (>= 1).
        thresholds: quantile steps of the one-sided conditions of a numeric column (20: ``age ≥ t`` and
            ``age < t`` at its 5 %, 10 %, ..., 95 % quantiles, with ``t`` the roundest number that selects the
            same rows), or None for ranges only; see :mod:`~aif360_subjective.detectors.mining.numeric_conditions`.
        n_permutations: permutations of the max-T error control (>= 19).
        max_t_penalty: what each candidate's z loses before the maximum: ``"classes"`` (default,
            :func:`~aif360_subjective.detectors.error_control.maxt.class_offsets` of the description classes),
            ``"size"``
            (``sqrt(2 ln(N / n_S))``, :func:`~aif360_subjective.detectors.error_control.maxt.scan_penalty`: favours
            large
            subgroups) or ``"none"`` (plain max-T). Every choice controls the family-wise error; they differ in
            power (``benchmarks/pattern_error_control.py``).
        patterns_from: an earlier report of the same rows whose mined patterns to reuse (with
            ``discovery="both"`` or ``"patterns"``): mining depends on neither the clustering, k nor τ, so a
            re-analysis at another k or τ (the dashboard's re-cut) skips it. The patterns must come from the same
            table under the same ``categorical_features``, ``min_support``, ``max_length``, ``n_bins``,
            ``max_merge`` and ``thresholds``; the report is then the one a fresh run gives.
        task: ``"auto"`` (default: decided from the labels, :attr:`SubgroupReport.task_reason` says what and
            why), ``"binary"``, ``"multiclass"``, ``"ordinal"`` or ``"regression"``. A task other than binary
            compares the subgroups' means of per-row values with the rest's (:mod:`~.tasks`): mean absolute
            error, mean error (bias) and mean prediction for a regression or an ordinal scale (plus accuracy
            error for ordinal), accuracy error and one-vs-rest statistical parity per class for multi-class, by a
            studentized difference of means under the same max-T (:mod:`~.continuous`). The clustering and the
            entropy patterns do not depend on the outcome and are the seed's. ``pos_label``, ``labels`` and
            ``sample_weight`` apply to binary decisions only.
        groups: a cluster id per row (a person's, item's or household's rows): the permutations move whole
            clusters and the intervals resample clusters (:mod:`~.resampling`); the report's ``unit`` says so.
            Without it, a column that looks like an id with repeated values is named in a
            :class:`~.resampling.ClusteredRowsWarning`.
        design: with ``groups``, ``"between"`` (whole clusters permuted among those with as many rows; with clusters
            of unequal sizes, whole outcome blocks permuted among all clusters, testing the subgroups of whole
            clusters: :mod:`~.cluster_permutation`) or ``"within"`` (rows permuted within their cluster). With too few
            clusters to reach ``alpha`` the findings are empty and the answer says it cannot decide.
        loss: a per-row loss (an array, or a callable ``loss(y_true, y_pred)``) compared as ``mean_loss`` by a
            task other than binary.
        cluster_sample: the most rows the clustering is fitted on (default 10,000; ``None``: every row). On a
            larger table the clustering (and x-means' choice of k, whose bound ``floor(sqrt(n / 2))`` still counts
            every row) runs on a random sample of this many rows drawn with ``random_state``, and every other row
            joins the cluster of its nearest sampled row (:mod:`~.cluster_sample`); the report says so
            (:attr:`SubgroupReport.cluster_sample`, :meth:`SubgroupReport.clustering_note`, the answer). Single
            linkage's cost grows as n^2 d (``benchmarks/wide_tables.py``). Tables up to this size are clustered
            whole, as before.
        max_patterns: the most mined patterns (default 200,000; ``None``: no bound). Their number grows as the
            ``max_length``-th power of the columns; a length whose patterns would bring the total above the bound
            is not mined, and the report says so (:meth:`SubgroupReport.mining_note`, the answer;
            :func:`~.pattern_mining.mine_patterns`).
        permutation: the max-T's permutations: ``"auto"`` (default: ``"classical"`` in memory, ``"keyed"`` on Dask
            collections), ``"classical"`` (numpy permutations drawn in a canonical order of the rows) or ``"keyed"``
            (:mod:`~.keyed_permutation`: each row's permuted class from the seed, the permutation and its position;
            binary decisions with rows as the unit). Keyed permutations are drawn over the rows' positions as given,
            so the in-memory analysis of a Dask table's rows (in partition order) gives the Dask analysis' p-values;
            the two schemes give p-values that differ by permutation noise (``benchmarks/dask_patterns.py``).
        clusterings: ``"seed"`` (default: the seed's one clustering, exactly as before) or ``"validated"``: many
            clustering models (algorithms x feature views x k, ``clustering_models``) are fitted, every cluster of
            every model is a candidate of kind ``"validated"`` in the same max-T (so any finding among them, the
            selected model's included, keeps the family-wise error), and the model with the largest fairness
            validation index of ``selection_metric`` is selected (:meth:`SubgroupReport.cluster_validation`,
            :mod:`~.asdf.validated`). Binary decisions only.
        clustering_models: the models of ``clusterings="validated"``: None (``"gmm_core"`` on every numeric column
            and on each pair of numeric columns at k = 5, 10, 20, 40 as the rows allow) or a list of algorithm names
            (``"slink"``, ``"kmeans"``, ``"ward"``, ``"gmm"``, ``"gmm_core"``, ``"hdbscan"``, ``"scan"``; each on its
            default views at the default ks) and ``(algorithm, view, k)`` tuples, the view
            ``"encoded"``, ``"numeric"``, ``"pairs"``, ``"triples"`` or a list of columns
            (:func:`~.asdf.validated_models.expand_models`).
        progress: show the progress of the pattern mining (per level) and of the max-T's permutations (per batch)
            on stderr, or in a notebook (:func:`aif360_subjective._progress.reporter_for`). The report keeps the
            choice for its max-T, which runs when a question first needs it. The findings and p-values are the same
            either way.

    Dask collections: ``X`` a Dask DataFrame and ``y_true`` / ``y_pred`` Dask Series are analysed per partition
    (:mod:`~.dask_detect`; only counts reach the client) with ``discovery="patterns"`` for binary decisions: the
    same candidates, metrics and findings as in memory on the same rows, with ``permutation="keyed"``.

    Spark DataFrames: ``X`` a ``pyspark.sql.DataFrame`` with ``y_true`` and ``y_pred`` naming two of its columns
    (or Spark Columns of it; its other columns are the features) runs the same analysis over its partitions
    (``detectors._spark``, ``docs/guide/spark.rst``): the same report as pandas with ``permutation="keyed"`` on
    ``X.toPandas()`` and as Dask, refusing by name what it cannot honour.

    Every analysis draws its permutations over a canonical order of the rows (sorted by a key of their
    content), so the same table in another row order gives the same adjusted p-values.

    Returns:
        SubgroupReport

    Raises:
        ValueError: threshold outside [0, 1], n_clusters < 2 or > n, length mismatches, labels outside the
            admissible pair, missing values, unknown column or clustering names, unknown options; an option of
            the clustering (``clustering``, ``n_clusters``, ``entropy_threshold``, ``normalization``,
            ``inclusive``, ``selection_metric``, ``silhouette_sample_size``, ``mst``, ``cluster_sample``) other
            than its default with ``discovery="patterns"``, which runs no clustering.
        TypeError: wrong argument types.

    References:
        J. Schäfer and L. Wiese, "ASDF-Dashboard: Automated Subgroup Detection and Fairness Analysis".
    """
    # the options check_analysis_options checks, once for both engines
    options = {"entropy_threshold": entropy_threshold, "n_clusters": n_clusters, "undefined_rates": undefined_rates,
               "normalization": normalization, "selection_metric": selection_metric,
               "silhouette_sample_size": silhouette_sample_size, "clustering": clustering,
               "categorical_features": categorical_features, "inclusive": inclusive, "mst": mst,
               "discovery": discovery, "max_length": max_length, "min_support": min_support, "n_bins": n_bins,
               "max_merge": max_merge, "thresholds": thresholds, "n_permutations": n_permutations,
               "max_t_penalty": max_t_penalty, "cluster_sample": cluster_sample, "max_patterns": max_patterns,
               "clusterings": clusterings, "clustering_models": clustering_models}
    if is_spark_dataframe(X, y_true, y_pred):
        # a Spark DataFrame and the names of its label columns: the Dask analysis' passes over its partitions
        from ._spark import detect_subgroups_spark, spark_features

        data = spark_features(X, y_true, y_pred)
        return detect_subgroups_spark(
            data, check_analysis_options(data.features_frame, **options), pos_label=pos_label, labels=labels,
            random_state=random_state, task=task, groups=groups, sample_weight=sample_weight, loss=loss,
            patterns_from=patterns_from, design=design, permutation=permutation)
    if is_dask_collection(X, y_true, y_pred, sample_weight, groups, loss):
        # counted per partition (only counts reach the client): the patterns alone, binary decisions
        from ._dask.detect import dask_frame, detect_subgroups_dask

        X = dask_frame(X)
        return detect_subgroups_dask(
            X, y_true, y_pred, check_analysis_options(X, **options), pos_label=pos_label, labels=labels,
            random_state=random_state, task=task, groups=groups, sample_weight=sample_weight, loss=loss,
            patterns_from=patterns_from, design=design, permutation=permutation)
    # one pairing rule for both engines: rows by position, pandas inputs carrying X's index (else refused)
    check_paired_index(X, y_true=y_true, y_pred=y_pred, sample_weight=sample_weight, groups=groups, loss=loss)
    check_choice(permutation, "permutation", PERMUTATION_CHOICES)
    if permutation == "keyed" and (groups is not None or names_label_task(task)):
        raise ValueError("permutation='keyed' permutes the rows of binary decisions: with groups= or another task "
                         "use permutation='classical' (or 'auto')")
    X = as_frame(X)
    n = len(X)
    # a favourable label or a label pair given by the caller says the labels are binary decisions
    binary_given = labels is not None or not (is_number(pos_label) and pos_label == 1)
    kind = analysis_task(y_true, y_pred, BinaryTask.name if task == "auto" and binary_given else task, n)
    kind.check_options(n_clusters, sample_weight, loss)
    outcome: tuple[Task, list[OutcomeColumn]] | None = None
    t: np.ndarray | None = None
    p: np.ndarray | None = None
    if kind.decisions:
        try:
            t, p = check_labels(y_true, y_pred, n, pos_label, labels)
        except ValueError as err:
            if binary_given and not names_decisions(task):
                raise
            raise ValueError(f"{err}; task={task!r} reads binary decisions: pass task='multiclass', 'ordinal' or "
                             "'regression' for other labels") from err
    else:  # the per-row values of the task; the clustering reads no outcome
        outcome = (kind, outcome_columns(kind, y_true, y_pred, check_loss(loss, y_true, y_pred, n)))
    w = check_weights(sample_weight, n)
    warn_id_like_columns(X, groups, stacklevel=3)
    sampling = sampling_of([row_keys(X), row_keys(X, label_values(y_true), label_values(y_pred))], groups, design)
    opts = check_analysis_options(X, **options)
    mined = None if patterns_from is None else reusable_patterns(patterns_from, X, opts)
    return analyse(X, t, p, w, opts, as_generator(random_state), pos_label, mined, sampling=sampling,
                   outcome=outcome, task_reason=kind.reason,
                   permutation="keyed" if permutation == "keyed" else "classical")


def analyse(
    X: pd.DataFrame,
    t: np.ndarray | None,
    p: np.ndarray | None,
    w: np.ndarray | None,
    opts: AnalysisOptions,
    rng: np.random.Generator,
    pos_label: Any,
    mined: MinedPatterns | None = None,
    *,
    sampling: Sampling | None = None,
    outcome: tuple[Task, list[OutcomeColumn]] | None = None,
    task_reason: str = "binary decisions",
    permutation: str = "classical",
) -> SubgroupReport:
    """The core shared by :func:`detect_subgroups` and ``SubgroupDiscoveryMetric`` (inputs validated).

    Args:
        mined: the pattern candidates of ``X`` under ``opts`` when they are already known (:func:`mine`; the
            dashboard keeps them across re-cuts, since mining does not depend on the clustering); None mines them
            when ``opts.discovery`` asks for patterns.
        sampling: the unit of inference and canonical row order (default: rows, in their order).
        outcome: for a task other than binary, the task and its per-row outcome columns (``t``, ``p`` and ``w``
            are then not read: None).
        task_reason: what ``task="auto"`` decided (kept by the report).
        permutation: the max-T's permutations of a binary decision (``"classical"`` or ``"keyed"``).
    """
    clustering = None
    # the binary decisions the fairness-aware choice of k and the fairness separation score (None for another task)
    decisions = (t, p, w) if outcome is None and t is not None and p is not None else None
    if opts.discovery == "patterns":
        mined = mine(X, opts) if mined is None else mined
    elif opts.discovery == "both" and mined is None:
        # the mining (bitwise numpy, which releases the GIL) runs beside the clustering: it needs no random
        # numbers and its result does not depend on when it runs
        with ThreadPoolExecutor(max_workers=1) as pool:
            future = pool.submit(copy_context().run, mine, X, opts)  # the context: the progress reporter
            clustering = cluster(X, opts, rng, decisions)
            mined = future.result()
    else:
        clustering = cluster(X, opts, rng, decisions)
        mined = mined if opts.discovery == "both" else None
    families: list[CandidateFamily] = [*clustering.families()] if clustering is not None else []
    if mined is not None:
        families.append(mined)
    # drawn after the clustering: it consumes the generator exactly as before
    seed = int(rng.integers(0, 2**31 - 1))
    validated = None
    if opts.clusterings == "validated":  # its models draw after the permutations' seed, which stays the seed's
        validated = validate(X, opts, rng, decisions, clustering)
        families.append(validated.family)
    candidates = Candidates(families, len(X), opts.discovery)
    sampling = Sampling() if sampling is None else sampling
    metrics: CandidateMetrics | OutcomeMetrics
    if outcome is None:
        assert t is not None and p is not None  # binary decisions (detect_subgroups, SubgroupDiscoveryMetric)
        metrics = candidate_metrics(candidates, t, p, w, opts.undefined_rates, seed, sampling, task_reason,
                                    permutation)
    else:
        sizes = (np.concatenate([np.asarray(f.sizes(), dtype=np.float64) for f in families]) if families
                 else np.zeros(0))
        metrics = outcome_metrics(candidates.counter(), candidates.index(), np.nan_to_num(sizes).astype(np.int64),
                                  candidates.defined(), outcome[0], outcome[1], sampling, seed)
    return SubgroupReport(index=X.index, candidates=candidates, candidate_metrics=metrics, options=opts,
                          pos_label=pos_label, features=list(map(str, X.columns)), clustering=clustering,
                          validated=validated)


def validate(X: pd.DataFrame, opts: AnalysisOptions, rng: np.random.Generator, decisions: Decisions | None,
             clustering: Clustering | None) -> ValidatedClusterings:
    """The validated clusterings of ``opts.clustering_models`` (:mod:`.asdf.validated`), the seed's clustering
    compared with them when it ran.

    Raises:
        ValueError: another task than binary decisions (the index compares binary rates).
    """
    if decisions is None:
        raise ValueError("clusterings='validated' selects a model by a binary fairness metric: it needs binary "
                         "decisions (task='binary'); use clusterings='seed' for another task")
    return run_validated_clusterings(
        X, opts.categorical_features, opts.clustering_models, decisions, opts.selection_metric, rng,
        cluster_sample=opts.cluster_sample, silhouette_sample_size=opts.silhouette_sample_size,
        seed_labels=None if clustering is None else clustering.labels,
        seed_name="slink" if clustering is None else clustering.name)


def mine(X: pd.DataFrame, opts: AnalysisOptions) -> MinedPatterns:
    """The pattern candidates of ``X`` under ``opts`` (see :mod:`.pattern_mining`)."""
    items = build_items(X, opts.categorical_features, opts.n_bins, opts.max_merge, opts.thresholds)
    # refused before minutes of work: the rows' part of the cost alone (no candidate yet), then with the patterns
    check_pattern_cost(items, [], opts.n_permutations)
    mined = mine_patterns(items, check_min_support(opts.min_support, len(X)), opts.max_length, opts.max_patterns)
    check_pattern_cost(items, mined.patterns, opts.n_permutations)
    return mined


def check_pattern_cost(items: Items, patterns: list[tuple[int, ...]], n_permutations: int) -> None:
    """Refuse a pattern analysis whose memory estimate (:mod:`.cost_estimate`) exceeds what the machine has.

    Raises:
        ValueError: naming ``max_patterns``, ``min_support``, ``n_bins`` and the Dask path.
    """
    n, n_cols = items.codes.shape
    sets = {tuple(sorted({int(items.column[j]) for j in pat})) for pat in patterns}
    cost = estimate_cost(n, n_cols, items.n_members, len(items.column), len(patterns), n_permutations,
                         len(sets), BATCH, WORKERS)
    check_cost(cost, f"{n:,} rows and {len(patterns):,} patterns")


def reusable_patterns(report: Any, X: pd.DataFrame, opts: AnalysisOptions) -> MinedPatterns:
    """The mined patterns of ``report`` when they are those :func:`mine` would find on ``X`` under ``opts``.

    The items (the conditions and every row's code in every column) are rebuilt, which costs a small part of the
    mining, and compared with the report's; so are the support threshold and the longest conjunction.

    Raises:
        TypeError: ``report`` is not a SubgroupReport.
        ValueError: ``opts.discovery`` mines no patterns, the report holds none, or they were mined from other
            rows, columns or options.
    """
    if not isinstance(report, SubgroupReport):
        raise TypeError(f"patterns_from must be a SubgroupReport, got {type(report).__name__}")
    if opts.discovery == "asdf":
        raise ValueError("patterns_from reuses mined patterns: it needs discovery='both' or 'patterns', got 'asdf'")
    mined = next((f for f in report.candidates.families if isinstance(f, MinedPatterns)), None)
    if mined is None:
        raise ValueError(f"patterns_from holds no mined patterns (its discovery was {report.options.discovery!r})")
    items = build_items(X, opts.categorical_features, opts.n_bins, opts.max_merge, opts.thresholds)
    same = (mined.n_rows == len(X) and mined.items.columns == items.columns and mined.items.labels == items.labels
            and np.array_equal(mined.items.codes, items.codes))
    if not same:
        raise ValueError("patterns_from holds patterns mined from other rows or columns, or with other "
                         "categorical_features, n_bins, max_merge or thresholds; run without patterns_from to mine "
                         "them again")
    wanted = (check_min_support(opts.min_support, len(X)), opts.max_length, opts.max_patterns)
    if (mined.min_support, mined.max_length, mined.max_patterns) != wanted:
        raise ValueError(f"patterns_from was mined with min_support {mined.min_support} rows, max_length "
                         f"{mined.max_length} and max_patterns {mined.max_patterns}; this analysis asks for "
                         f"{wanted[0]} rows, {wanted[1]} and {wanted[2]}")
    return mined


def cluster(X: pd.DataFrame, opts: AnalysisOptions, rng: np.random.Generator,
            decisions: Decisions | None = None) -> Clustering:
    """The seed's pipeline: cluster (a sample of ``opts.cluster_sample`` rows on a larger table, the other rows
    joining their nearest sampled row's cluster: :mod:`.cluster_sample`), then the entropy patterns of the
    clusters over every row.

    Args:
        decisions: the binary decisions ``(truth, prediction, weights)`` that the fairness-aware choice of k
            (``opts.k`` a sequence) and the clustering's fairness separation score; None for another task, whose
            clustering reads no outcome (and has no fairness separation).
    """
    cat, clustering, k, selection_metric = opts.categorical_features, opts.clustering, opts.k, opts.selection_metric
    silhouette_sample_size = opts.silhouette_sample_size
    Z, _ = encode_for_clustering(X, cat)
    raw = factorize_columns(X)
    kmax = default_kmax(len(Z))  # x-means' bound counts the table's rows, sampled or not
    sample = sample_rows(len(Z), opts.cluster_sample, rng)  # None (nothing drawn) up to cluster_sample rows
    fit_Z = Z if sample is None else Z[sample]  # the rows the clustering is fitted on (all of them, or the sample)
    model_selection = None
    tree: HierarchicalTree | None = None
    name = opts.clustering_name
    if isinstance(k, tuple):
        if decisions is None:
            raise ValueError("the fairness-aware choice of k compares binary rates: it needs binary decisions")
        t, p, w = decisions if sample is None else (  # the fitted rows' outcomes
            decisions[0][sample], decisions[1][sample], None if decisions[2] is None else decisions[2][sample])
        model_selection, results = compare_clusterings_encoded(
            fit_Z,
            t,
            p,
            [(clustering, kk) for kk in k],
            selection_metric,
            weights=w,
            random_state=rng,
            silhouette_sample_size=silhouette_sample_size,
            mst=opts.mst,
        )
        best = (
            int(np.flatnonzero(model_selection["best"].to_numpy())[0]) if model_selection["best"].any() else 0
        )
        labels, tree = results[best].labels, results[best].tree
        flag_lopsided(model_selection, [r.labels for r in results])
    elif k is None and name in ("slink", "ward"):
        labels, tree = _auto_hierarchical(fit_Z, name, rng, opts.mst, kmax)
    else:
        res = fit_clustering(fit_Z, clustering, k, random_state=rng, mst=opts.mst, kmax=kmax)
        labels, tree = res.labels, res.tree
    labels = np.asarray(labels) if sample is None else assign_to_nearest(Z, sample, labels)
    ids, cluster_idx = np.unique(labels, return_inverse=True)  # one sort of the n labels, used below
    unique_cut, cut_distance = (None, float("nan"))
    if tree is not None:
        unique_cut, cut_distance = tree.cut_is_unique(len(ids))
        if unique_cut is False:
            log.warning(
                "the cut into %d clusters falls inside a tie of merge distances (%.6g): other, equally valid "
                "clusterings exist; see SubgroupReport.cut_is_unique",
                len(ids), cut_distance,
            )
    pats = entropy_patterns(raw, cluster_idx, ids, opts.entropy_threshold, opts.normalization, opts.inclusive)
    validity = pd.Series(validity_indices(Z, labels, silhouette_sample_size, rng), name="validity")
    if decisions is not None:  # the clusters' fairness separation compares binary rates
        validity[f"fairness_separation_{selection_metric}"] = fairness_separation(labels, *decisions[:2],
                                                                                  selection_metric, decisions[2])
    return Clustering(labels=labels, name=name, validity=validity, model_selection=model_selection,
                      cut_is_unique=unique_cut, cut_distance=cut_distance, patterns=EntropyFamily(raw, pats),
                      sampled_rows=None if sample is None else len(sample))


def _auto_hierarchical(
    Z: np.ndarray, name: str, rng: np.random.Generator, mst: str = "auto", kmax: int | None = None
) -> tuple[np.ndarray, HierarchicalTree]:
    """x-means for k and the hierarchical tree at the same time: the tree does not depend on k, and
    x-means' matrix products (and pyclustering's C++ core) run without the GIL, so the two overlap on two
    cores. ``kmax``: x-means' bound (default ``floor(sqrt(n / 2))`` of ``Z``'s rows)."""
    seed_rng = np.random.default_rng(rng.integers(0, 2**31 - 1))
    with ThreadPoolExecutor(max_workers=1) as pool:
        fut = pool.submit(choose_n_clusters, Z, default_kmax(len(Z)) if kmax is None else kmax, seed_rng)
        tree = HierarchicalTree.fit(Z, "single" if name == "slink" else "ward", mst)
        k = fut.result()
    k = min(max(k, 2), len(Z))
    log.info("x-means chose k=%d", k)
    return tree.cut(k), tree


def compare_clusterings(
    X: Any,
    y_true: Any,
    y_pred: Any,
    candidates: Any,
    pos_label: Any = 1,
    *,
    selection_metric: str = "statistical_parity",
    categorical_features: Sequence[str] | None = None,
    labels: Sequence[Any] | None = None,
    sample_weight: Any = None,
    random_state: Any = None,
    silhouette_sample_size: int | None = 1000,
    mst: str = "auto",
) -> pd.DataFrame:
    """Fairness-aware model selection: compare clusterings by how well they separate subgroups.

    Args:
        X, y_true, y_pred, pos_label, categorical_features, labels, sample_weight, random_state: as in
            :func:`detect_subgroups`.
        candidates: ints (numbers of clusters for single linkage), ``(clustering, k)`` pairs, or a dict
            ``{clustering: [k, ...]}``; ``k=None`` lets the method choose (x-means / density).
        selection_metric: the fairness metric whose rate the clusters should separate.
        silhouette_sample_size: rows sampled for the silhouette.
        mst: single linkage's MST back-end (``"auto"``, ``"mlpack"``, ``"sklearn"``; see
            :func:`detect_subgroups`).

    Returns:
        pandas.DataFrame: index (clustering, n_clusters); columns n_found, fairness_separation (the
        bias-corrected share of the metric's rate explained by the clusters, higher = better), silhouette,
        davies_bouldin, calinski_harabasz, cut_is_unique and cut_distance (hierarchical candidates: whether
        the cut falls inside a tie of merge distances), seconds, best, and largest_share, tiny_clusters, lopsided
        (see :func:`~aif360_subjective.detectors.asdf.lopsided.lopsidedness`).

    References:
        W. Bergsma, "A bias-correction for Cramér's V and Tschuprow's T", 2013.
    """
    X = as_frame(X)
    n = len(X)
    t, p = check_labels(y_true, y_pred, n, pos_label, labels)
    w = check_weights(sample_weight, n)
    opts = check_analysis_options(
        X, selection_metric=selection_metric, categorical_features=categorical_features,
        silhouette_sample_size=silhouette_sample_size, mst=mst,
    )
    if isinstance(candidates, str) or not isinstance(candidates, dict | Sequence | np.ndarray) or len(candidates) == 0:
        raise TypeError(
            "candidates must be a non-empty list of ints or (clustering, k) pairs, or a dict "
            f"{{clustering: [k, ...]}}, got {candidates!r}"
        )
    pairs = candidates.items() if isinstance(candidates, dict) else candidates
    for c in pairs:
        ks = c[1] if isinstance(c, tuple) else c
        for kk in ks if isinstance(ks, list | tuple) else [ks]:
            if kk is not None:
                check_n_clusters(kk, n)
    Z, _ = encode_for_clustering(X, opts.categorical_features)
    table, results = compare_clusterings_encoded(
        Z,
        t,
        p,
        candidates,
        opts.selection_metric,
        weights=w,
        random_state=random_state,
        silhouette_sample_size=opts.silhouette_sample_size,
        mst=opts.mst,
    )
    return flag_lopsided(table, [r.labels for r in results])


def alternative_clusterings(
    X: Any,
    y_true: Any,
    y_pred: Any,
    n_clusters: int,
    pos_label: Any = 1,
    *,
    current: str = "slink",
    candidates: Any = None,
    selection_metric: str = "statistical_parity",
    categorical_features: Sequence[str] | None = None,
    labels: Sequence[Any] | None = None,
    sample_weight: Any = None,
    random_state: Any = None,
    silhouette_sample_size: int | None = 1000,
    ward_max_rows: int = 10_000,
) -> pd.DataFrame:
    """Compare the other clusterers at the same number of clusters and name one that is not lopsided.

    Runs :func:`~aif360_subjective.detectors.compare_clusterings` (the fairness-aware comparison) over
    ``candidates``, by default ``kmeans``, ``birch``, ``ward`` (only up to ``ward_max_rows`` rows: it needs
    O(n^2) memory) and ``slink``, each at ``n_clusters`` clusters, leaving out ``current``.

    Args:
        X: feature table, as in :func:`~aif360_subjective.detectors.detect_subgroups` (so are ``y_true``,
            ``y_pred``, ``pos_label``, ``categorical_features``, ``labels``, ``sample_weight``,
            ``random_state`` and ``silhouette_sample_size``).
        y_true: ground-truth labels.
        y_pred: predicted labels.
        n_clusters: the number of clusters to compare at (e.g. ``report.n_clusters``).
        current: the clustering already used (left out of the default candidates).
        candidates: explicit candidates as :func:`compare_clusterings` takes them (overrides the default).
        selection_metric: the fairness metric whose rate the clusters should separate.
        ward_max_rows: largest table on which ward is tried by default.

    Returns:
        pandas.DataFrame: the comparison with ``largest_share``, ``tiny_clusters`` and ``lopsided`` columns;
        ``attrs["suggestion"]`` is the ``(clustering, n_clusters)`` row with the highest fairness separation
        among those not lopsided, or ``None`` when every candidate is lopsided.
    """
    if candidates is None:
        n = len(X)
        names = ["kmeans", "birch", *(["ward"] if n <= ward_max_rows else []), "slink"]
        candidates = [(m, n_clusters) for m in names if m != current]
    table = compare_clusterings(
        X, y_true, y_pred, candidates, pos_label, selection_metric=selection_metric,
        categorical_features=categorical_features, labels=labels, sample_weight=sample_weight,
        random_state=random_state, silhouette_sample_size=silhouette_sample_size,
    )
    ok = table[~table["lopsided"].to_numpy(dtype=bool)]
    scores = ok["fairness_separation"].to_numpy(dtype=float)
    suggestion = None
    if len(ok):
        best = int(np.nanargmax(scores)) if np.isfinite(scores).any() else 0
        name, k = ok.index[best]
        suggestion = (str(name), None if k is None else int(k))  # plain values, not numpy scalars
    table.attrs["suggestion"] = suggestion
    return table


# a name whose home is another module: still importable from here, with a DeprecationWarning
__getattr__ = moved_names(__name__, {"DISCOVERIES": "aif360_subjective.detectors.options"})
