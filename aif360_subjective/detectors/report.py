"""The result object of subgroup discovery: data built once, its questions answered by plain functions.

A :class:`SubgroupReport` holds the candidate families (:mod:`~aif360_subjective.detectors.candidates`), their
metrics, the options and, when the seed's clustering ran, the clustering. Its methods read that data; the
intervals, tests, rankings and findings are the functions of :mod:`~aif360_subjective.detectors.significance`
and :mod:`~aif360_subjective.detectors.ranking`, whose caches one :class:`~.significance.Significance` owns.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from .._deprecation import moved_names
from .._validation import check_alpha, check_choice
from .aif360_bridge import AIF360Subgroup, subgroup_to_aif360
from .asdf.cluster_sample import sample_note
from .asdf.families import Clustering
from .asdf.validated import ValidatedClusterings
from .candidates import CandidateMetrics, Candidates
from .comparison import discovery_summary
from .mining.pattern_mining import PatternText
from .options import AnalysisOptions
from .outcome_metrics import OutcomeMetrics
from .ranking import ranking
from .report_clustering import clustering_facts, entropy_table, pattern_info_table
from .significance import Significance

__all__ = ["SubgroupReport"]


class SubgroupReport:
    """Clusters, patterns and per-subgroup fairness of one subgroup-discovery run.

    Built by :func:`~aif360_subjective.detectors.detect_subgroups`; every accessor returns a fresh pandas
    object. Subgroup ids are the cluster labels: cluster-based subgroup ``("cluster", c)`` is cluster c
    itself, entropy-based subgroup ``("entropy", c)`` is every row of the dataset matching cluster c's
    pattern.

    Attributes:
        clusters (pandas.Series): cluster label per row (index of X, name ``"cluster"``); <NA> for every row
            when no clustering ran (``discovery="patterns"``).
        n_clusters (int): number of clusters (0 without a clustering).
        clustering (str): the clustering method used (``"none"`` without a clustering).
        validity (pandas.Series): classical validity indices (silhouette on a sample, Davies-Bouldin,
            Calinski-Harabasz) and, of binary decisions, the fairness separation of the clustering (see
            :func:`~aif360_subjective.detectors.asdf.selection.fairness_separation`).
        model_selection (pandas.DataFrame or None): the candidates compared when ``n_clusters`` was a
            sequence (or ``None``), with ``largest_share``, ``tiny_clusters`` and ``lopsided`` columns.
        lopsided (dict): :func:`~aif360_subjective.detectors.asdf.lopsided.lopsidedness` of the clustering used:
            ``lopsided`` is True when its largest cluster holds >= 90 % of the rows or more than half of its
            clusters hold <= 1 % of the rows each; ``reason`` says which. See
            :func:`~aif360_subjective.detectors.alternative_clusterings` for a balanced alternative.
        weighted (bool): the analysis used non-uniform instance weights; intervals, tests and the
            significance-filtered rankings then need ``ci=None`` / ``alpha=None``.
        options (AnalysisOptions): the validated options of the run (threshold, normalisation, undefined
            rates, ...); :meth:`settings` gives them as a read-only dict with the favourable label.
        pos_label: the favourable label.
        categorical_features (list of str): the columns treated as categorical.
        cut_is_unique (bool or None): for a hierarchical clustering, False when the cut into ``n_clusters``
            falls inside a tie of merge distances (last kept and first undone merge equal within 1e-12 + 1e-9 x
            the distance): another exact algorithm may then return other, equally valid clusters (zero-length
            merges of duplicate rows matter only at distance 0). None for flat clusterings.
        cut_distance (float): the merge distance at which the cut falls (first undone merge; NaN for flat
            clusterings).
        cluster_sample (int or None): the rows the clustering was fitted on when the table had more than
            ``cluster_sample`` rows (a random sample; every other row joined its nearest sampled row's cluster,
            :mod:`~aif360_subjective.detectors.asdf.cluster_sample`); None when every row was clustered (or none ran).
            :meth:`clustering_note` says it in a sentence.
        candidates (Candidates): the candidate families (:mod:`~aif360_subjective.detectors.candidates`).
        candidate_metrics (CandidateMetrics or OutcomeMetrics): their metrics, counts and the outcomes (a binary
            decision, or the per-row values of a multi-class, ordinal or regression task).
        task (str): the name of the task audited (``"binary"``, ``"multiclass"``, ``"ordinal"``, ``"regression"``);
            ``task_reason`` says what ``task="auto"`` decided and why (or that the task was given).
        task_type (Task): the task itself (:class:`~aif360_subjective.detectors.tasks.Task`): its metrics, default
            metric and label text.
        unit (str): the unit of inference (rows, or the clusters of ``groups=``).
        significance (Significance): the caches of the intervals, max-T runs and findings.

    Args:
        index: the index of X (the rows).
        candidates: the candidate families, in order.
        candidate_metrics: their metrics and counts, in the same order.
        options: the validated options of the run.
        pos_label: the favourable label.
        features: the attribute names of X.
        clustering: the seed's clustering (None when none ran: ``discovery="patterns"``).
        validated: the validated clusterings (``clusterings="validated"``; None otherwise).
    """

    def __init__(
        self,
        *,
        index: pd.Index,
        candidates: Candidates,
        candidate_metrics: CandidateMetrics | OutcomeMetrics,
        options: AnalysisOptions,
        pos_label: Any = 1,
        features: list[str],
        clustering: Clustering | None = None,
        validated: ValidatedClusterings | None = None,
    ) -> None:
        if not isinstance(options, AnalysisOptions):
            raise TypeError(f"options must be an AnalysisOptions, got {type(options).__name__}")
        self.candidates = candidates
        self.candidate_metrics = candidate_metrics
        self.options = options
        self.pos_label = pos_label
        self.features = list(features)
        self.categorical_features = list(options.categorical_features)
        self.kinds = candidates.kinds
        self.weighted = candidate_metrics.weighted
        self.task_type = candidate_metrics.task
        self.task = self.task_type.name
        self.task_reason = candidate_metrics.task_reason
        self.unit = candidate_metrics.sampling.unit
        self.significance = Significance(candidates, candidate_metrics, options)
        self._clustering = clustering
        self.validated = validated
        facts = clustering_facts(clustering, index)
        self.clusters, self.n_clusters, self.clustering = facts.clusters, facts.n_clusters, facts.name
        self.validity, self.model_selection = facts.validity, facts.model_selection
        self.cut_is_unique, self.cut_distance = facts.cut_is_unique, facts.cut_distance
        self.cluster_sample, self.lopsided = facts.sampled_rows, facts.lopsided

    # ------------------------------------------------------------------ what the report holds
    @property
    def has_clusters(self) -> bool:
        """Whether the seed's clustering ran: the report holds its clusters and their entropy patterns."""
        return self._clustering is not None

    @property
    def clustering_kinds(self) -> tuple[str, ...]:
        """The kinds of subgroups the seed's clustering gives (clusters, entropy patterns; none without one)."""
        return () if self._clustering is None else tuple(f.kind for f in self._clustering.families())

    @property
    def has_mined_patterns(self) -> bool:
        """Whether the report holds mined patterns."""
        return any(isinstance(f, PatternText) for f in self.candidates.families)

    def cluster_validation(self) -> pd.DataFrame:
        """One row per candidate clustering model of ``clusterings="validated"`` (:mod:`~.asdf.validated`): source
        (``"seed"`` for the seed's clustering, else ``"validated"``), algorithm, view, features, k, n_clusters,
        fairness_index (the fairness validation index: the largest |z| of ``selection_metric``'s test among its
        clusters less ``sqrt(2 ln K)``), max_z and cluster (where it is reached), fairness_separation, silhouette,
        davies_bouldin, seconds (fitting) and selected; ``attrs["why"]`` says why the selected model was chosen.

        Raises:
            ValueError: the analysis ran the seed's clustering only (``clusterings="seed"``).
        """
        if self.validated is None:
            raise ValueError("this report holds no validated clusterings (clusterings='seed'); run "
                             "detect_subgroups(..., clusterings='validated') to compare clustering models")
        out = self.validated.table.copy()
        out.attrs["why"] = self.validated.why()
        return out

    def clustering_note(self) -> str:
        """The sentence saying that the clusters come from a random sample of the rows, and how the other rows
        were placed (empty when every row was clustered)."""
        return sample_note(self.cluster_sample, len(self.clusters))

    def mining_note(self) -> str:
        """Why a length of mined patterns was not mined (``max_patterns``) and which numeric columns have no
        one-sided conditions (``thresholds``), and why; empty when neither."""
        mined = next((f for f in self.candidates.families if isinstance(f, PatternText)), None)
        return "" if mined is None else " ".join(filter(None, [mined.truncation_note(), mined.conditions_note()]))

    def settings(self) -> Mapping[str, Any]:
        """The options of the run as the report records them, with ``pos_label`` (a read-only dict view)."""
        return MappingProxyType(self.options.describe(self.pos_label))

    # ------------------------------------------------------------------ patterns
    def patterns(self, all_columns: bool = True, kind: str = "entropy") -> pd.DataFrame:
        """Entropy (or mined) patterns: index subgroup id, a column per attribute, NaN where not in the pattern.

        Args:
            all_columns: keep every attribute (default) or only those dominant in at least one cluster (used
                by at least one mined pattern), as the dashboard's pattern table shows them.
            kind: ``"entropy"`` (the clusters' entropy patterns) or ``"pattern"`` (mined patterns: the value,
                or the range as text ``[low, high)``, of each condition).

        Raises:
            ValueError: unknown kind, or a kind this report does not hold.
        """
        check_choice(kind, "kind", self.candidates.condition_kinds)
        df = self.candidates.family(kind).condition_table()
        return df if all_columns else df.loc[:, df.notna().any(axis=0)]

    def pattern_info(self) -> pd.DataFrame:
        """Per entropy pattern: its text, length, whether it is empty or repeats an earlier one, and its size
        (no rows without a clustering)."""
        return pattern_info_table(self._clustering, self.candidates, self.candidate_metrics.table)

    def entropies(self) -> pd.DataFrame:
        """Normalised entropy of every attribute in every cluster (index id, a column per attribute)."""
        return entropy_table(self._clustering, self.features)

    # ------------------------------------------------------------------ metrics
    def subgroup_metrics(self, ci: float | None = 0.95, kind: str | None = None) -> pd.DataFrame:
        """Per-subgroup size and fairness metrics, with confidence intervals and significance by default.

        Index (kind, id); columns size, statistical_parity, equal_opportunity, equalized_odds, accuracy,
        accuracy_error (the seed's table; empty and repeated entropy patterns have no metrics (NaN), an empty
        pattern has no size (<NA>)), then, unless ``ci`` is None, for each metric ``<metric>_ci_low``,
        ``<metric>_ci_high`` (the ``ci`` confidence interval), ``<metric>_p`` (two-sided p-value of "no
        difference between the subgroup and the rest"), ``<metric>_q`` (Benjamini-Hochberg q-value) and
        ``<metric>_p_adjusted`` (permutation max-T adjusted p-value over every subgroup of every kind, both
        directions: the family-wise error the rankings control; see
        :mod:`~aif360_subjective.detectors.error_control.maxt`).

        The methods are those of :mod:`~aif360_subjective.detectors.error_control.inference`: Newcombe's hybrid score
        interval and a mid-p Fisher test for statistical parity, equal opportunity and accuracy error (the
        latter as ``(n_R / N) (acc_S - acc_R)``, since the subgroup is part of "all"), Wilson's interval for
        accuracy (tested as accuracy error), a MOVER interval and an intersection-union test for equalized
        odds. The intervals are per subgroup (not simultaneous). The **multiple-testing family** of ``_q``
        is every subgroup of the same kind with a defined p-value, for that metric.

        Subgroups whose rates are undefined (e.g. no favourable truths in the subgroup for equal
        opportunity, or a subgroup covering every row) get NaN intervals and p-values; their number per
        metric and kind is in ``attrs["undefined"]`` (empty and repeated patterns, which define no
        subgroup, are not counted there).

        Args:
            ci: confidence level of the intervals (default 0.95), or ``None`` for the seed's table only.
            kind: only the subgroups of this kind (``None``: every kind the report holds). The mid-p tests of
                thousands of mined patterns take seconds; ``kind="entropy"`` skips them.

        Returns:
            pandas.DataFrame

        Raises:
            ValueError: ``ci`` not in (0, 1), ``ci`` with non-uniform instance weights (the intervals and
                tests count rows; weighted counts are not binomial): pass ``ci=None``; a kind the report does
                not hold.
        """
        table = self.candidate_metrics.table
        kinds = None
        if kind is not None:
            check_choice(kind, "kind", self.candidates.known_kinds)
            kinds = (kind,)
            table = table.iloc[self.candidates.positions(kind)]
        if ci is None:
            return table.copy()
        inf = self.significance.intervals(ci, kinds=kinds)
        out = pd.concat([table, inf], axis=1)
        out.attrs = copy.deepcopy(inf.attrs)
        return out

    @property
    def overall_accuracy(self) -> float:
        """Accuracy over all rows (weighted when the analysis was): the reference of the ``accuracy``
        ranking."""
        return self.candidate_metrics.overall_accuracy

    def summary(self) -> pd.DataFrame:
        """The dashboard's radar: per kind, the signed mean accuracy error, the means of the absolute
        statistical parity, equal opportunity and equalized odds, and the mean accuracy (NaN skipped). For
        another task, the mean absolute value of each of its metrics."""
        table = self.candidate_metrics.table  # none mined: NaN means
        parts = {kind: table.iloc[self.candidates.positions(kind)] for kind in self.kinds}
        return self.task_type.summary(parts, self.candidate_metrics.names)

    def ranking(
        self,
        metric: str,
        kind: str = "entropy",
        n: int | None = 5,
        direction: str = "disadvantaged",
        alpha: float | None = 0.05,
        min_size: int = 1,
        *,
        ci: float = 0.95,
        ascending: bool | None = None,
        control: str = "fwer",
        keep_redundant: bool = False,
        label: Any = None,
    ) -> pd.DataFrame:
        """The subgroups most disadvantaged (or favoured) by a metric, significant ones only by default.

        The core is :func:`~aif360_subjective.detectors.ranking.ranking`, whose docstring says what is listed
        (the adjusted p-value below ``alpha`` and the ``ci`` interval on the requested side), in which order
        (adjusted p-value, then the max-T statistic, then the bound nearest the reference), which nested
        subgroups the redundancy filter leaves out, and what ``attrs`` counts. ``alpha=None`` is the seed's raw
        ranking; ``kind="all"`` ranks every kind together, identical row sets listed once.

        Args:
            metric: one of the report's metrics (a binary decision: ``statistical_parity``,
                ``equal_opportunity``, ``equalized_odds``, ``accuracy``, ``accuracy_error``,
                ``false_positive_rate``, ``false_negative_rate``; a regression or ordinal scale:
                ``mean_absolute_error``, ``mean_error``, ``mean_prediction`` (and ``accuracy_error`` for ordinal);
                multi-class: ``accuracy_error``, ``statistical_parity`` with ``label``; ``mean_loss`` with a
                ``loss``), or ``size`` (size has no test: ``alpha`` does not apply; ``"disadvantaged"`` lists
                the largest subgroups first).
            kind: ``"cluster"``, ``"entropy"``, ``"pattern"`` (mined patterns) or ``"all"``.
            n: how many (``None``: all).
            direction: ``"disadvantaged"`` (default) or ``"favoured"``.
            alpha: error rate of the significance filter (family-wise with ``control="fwer"``, false-discovery
                rate with ``"fdr"``), or ``None`` for the raw ranking.
            min_size: leave out subgroups with fewer rows (an extra filter; 1 = all).
            ci: confidence level of the intervals used with ``alpha``.
            ascending: deprecated: ``True``/``False`` give the seed's raw ranking sorted by increasing /
                decreasing value (``alpha`` and ``direction`` are then ignored), with a DeprecationWarning (a
                bool passed in ``direction``'s position, as the old positional ``ascending``, means the same).
            control: ``"fwer"`` (default, permutation max-T) or ``"fdr"`` (Benjamini-Hochberg per kind).
            keep_redundant: list significant sub-patterns of a listed subgroup too.
            label: a multi-class report's class for ``statistical_parity`` (that class against the others: the
                share of the subgroup predicted ``label``, rest minus subgroup).

        Returns:
            pandas.DataFrame: index id (``kind="all"``: (kind, id)); columns rank, the metric, size, subgroup
            (its description), and with ``alpha`` the metric's ``_ci_low``, ``_ci_high``, ``_q`` and
            ``_p_adjusted``.

        Raises:
            ValueError: unknown metric, kind, direction or control, a kind the report does not hold, n < 1,
                min_size < 1, alpha or ci outside (0, 1), or alpha with non-uniform instance weights (pass
                ``alpha=None``).
        """
        return ranking(self.significance, metric, kind, n, direction, alpha, min_size, ci=ci, ascending=ascending,
                       control=control, keep_redundant=keep_redundant, label=label)

    def findings(self, alpha: float = 0.05, ci: float = 0.95, *, keep_redundant: bool = False,
                 merge_identical: bool = True) -> pd.DataFrame:
        """Every significant disparity of the report under **one** family-wise error: metrics x kinds x
        directions.

        A finding is a (metric, subgroup, direction) whose permutation max-T adjusted p-value in the global
        family (every subgroup of every kind, the four tests of the five metrics (accuracy and accuracy error
        share one), both directions; see :mod:`~aif360_subjective.detectors.error_control.maxt`) is below ``alpha`` and
        whose ``ci`` interval lies on that side of the reference. On data without any effect the table is
        empty with probability at least ``1 - alpha``: "nothing significant anywhere" means what it says. As
        in :meth:`ranking`, a finding contained in a larger finding of the same metric and direction whose
        value lies inside its interval is left out unless ``keep_redundant``; identical row sets are listed
        once with all descriptions.

        Args:
            alpha: family-wise error rate, in (0, 1).
            ci: confidence level of the intervals.
            keep_redundant: keep sub-patterns of a listed finding.
            merge_identical: list identical row sets once (``False``: once per kind and id).

        Returns:
            pandas.DataFrame: columns metric, kind, id, description, size, value, ci_low, ci_high, p_adjusted,
            direction; sorted by adjusted p-value, then the max-T statistic, then the bound nearest the reference.
            ``attrs``: alpha, ci, n_hypotheses (of the global family), n_permutations, n_redundant.

        Raises:
            ValueError: alpha or ci outside (0, 1), or a weighted analysis.
        """
        return self.significance.findings(check_alpha(alpha), ci, keep_redundant, merge_identical)

    def discovery_summary(self, alpha: float = 0.05, ci: float = 0.95) -> pd.DataFrame:
        """The comparison of the discovery methods: per kind, candidates, significant subgroups, the best.

        Built from :meth:`findings` (one family-wise error over everything): ``candidates`` counts the
        subgroups of the kind that define one (empty and repeated entropy patterns do not), ``significant``
        the distinct subgroups of the kind with at least one finding (before the redundancy filter), and
        ``best`` the kind's first finding (in the order of :meth:`findings`),
        with its metric, direction, value, interval and adjusted p-value (empty when there is none).

        Args:
            alpha: family-wise error rate of :meth:`findings`.
            ci: confidence level of the intervals.

        Returns:
            pandas.DataFrame: index kind; columns method, candidates, significant, best, metric, direction,
            value, ci_low, ci_high, p_adjusted. ``attrs``: alpha, n_hypotheses, sentence.
        """
        return discovery_summary(self.significance, check_alpha(alpha), ci)

    def discovery_sentence(self, alpha: float = 0.05, ci: float = 0.95) -> str:
        """One sentence comparing the discovery methods, from :meth:`discovery_summary`'s numbers, e.g.
        "the mined patterns found 1 significant subgroup; the clusters and the entropy patterns found none
        (family-wise error 5 % over 140,000 hypotheses)."."""
        return str(self.discovery_summary(alpha, ci).attrs["sentence"])

    def to_aif360(self, X: pd.DataFrame, y_true: Any, y_pred: Any, kind: str, id: Any, **kwargs: Any) -> AIF360Subgroup:
        """Subgroup ``(kind, id)`` as AIF360 datasets and group dicts, named as in ``X``: see
        :func:`~aif360_subjective.detectors.aif360_bridge.subgroup_to_aif360` (the arguments are the table and
        labels given to ``detect_subgroups``)."""
        return subgroup_to_aif360(self, X, y_true, y_pred, kind, id, **kwargs)

    def descriptions(self, kind: str = "entropy") -> list[str]:
        """Readable subgroup descriptions in id order (``cluster=3`` or the pattern text)."""
        return [str(d) for d in self.candidates.descriptions((kind,))]

    # ------------------------------------------------------------------ membership
    def members(self, kind: str, id: Any, compute: bool = False) -> Any:
        """Boolean mask over the rows: membership of subgroup ``(kind, id)``.

        Of an analysis of Dask collections, a lazy boolean Dask Series (the index of X); of a Spark DataFrame, a
        boolean Spark Column of it (``sdf.filter(report.members(...))``); with ``compute=True`` the computed pandas
        Series. In memory ``compute`` changes nothing.

        Raises:
            ValueError: unknown kind or id, or an empty pattern (which defines no subgroup).
        """
        family: Any = self.candidates.family(kind)  # a distributed family has lazy_members / computed_members
        if hasattr(family, "lazy_members"):
            i = self.candidates.position(kind, id)
            return family.computed_members(i) if compute else family.lazy_members(i)
        return self.candidates.rows(kind, id)

    def pattern_conditions(self, id: Any, kind: str = "entropy") -> dict[str, Any]:
        """The attribute -> value conditions of the entropy pattern of cluster ``id`` (``kind="entropy"``) or
        of mined pattern ``id`` (``kind="pattern"``: a numeric condition is ``(low, high, closed)``, the range
        ``low <= x < high``, or ``<= high`` when ``closed``)."""
        check_choice(kind, "kind", self.candidates.condition_kinds)
        fam = self.candidates.family(kind)
        return fam.conditions(self.candidates.position(kind, id))

    def __repr__(self) -> str:
        s = self.summary()
        values = s[self.task_type.default_metric].to_numpy(dtype=np.float64)  # the task's headline metric
        parts = ", ".join(f"{k}={v:.4f}" for k, v in zip(s.index, values, strict=True))
        counted = "".join(f", {f.count_label}={len(f.ids)}" for f in self.candidates.families if f.count_label)
        return (
            f"SubgroupReport(clustering={self.clustering!r}, n_clusters={self.n_clusters}{counted}, "
            f"rows={self.candidates.n_rows}, mean |{self.task_type.headline}| {parts})"
        )


# names whose home moved with the restructuring (issue 28): still importable from here, with a DeprecationWarning
__getattr__ = moved_names(__name__, {
    "KINDS": "aif360_subjective.detectors.candidates",
    "RANKABLE": "aif360_subjective.detectors.ranking",
    "CONTROLS": "aif360_subjective.detectors.ranking",
    "ASCENDING_DEPRECATION": "aif360_subjective.detectors.ranking",
    "INFERENCE_COLUMNS": "aif360_subjective.detectors.significance",
})
