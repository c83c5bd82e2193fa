"""The dashboard's state, without any user interface: what is recomputed when a control changes, the history of
tried mitigations, and the exports (HTML report, equivalent command line).

Everything shown is computed by the package's own results objects: :func:`~aif360_subjective.detectors.
detect_subgroups` / :class:`~aif360_subjective.detectors.SubgroupReport` for subgroups,
:class:`~aif360_subjective.metrics.OpinionExclusionMetric` for opinion exclusion,
:class:`~aif360_subjective.algorithms.preprocessing.CrowdTruthFilter`,
:class:`~aif360_subjective.algorithms.preprocessing.AnnotatorGroupReweighing`,
:class:`~aif360_subjective.algorithms.inprocessing.MajorityVoteClassifier` and
:class:`~aif360_subjective.algorithms.inprocessing.AnnotatorAwareClassifier` for the models, and the report
sections of :mod:`aif360_subjective.report.sections` for the export. This module only decides what to
recompute: a change of k or of the entropy threshold τ re-cuts the cached clustering (single linkage's tree is
fitted once), a change of metric, direction, α or ``min_size`` only re-ranks. A change of the task (what the model
predicts: binary decisions, classes, ordered levels or numbers) analyses again, with the task's metrics.

References:
    J. Schäfer and L. Wiese, "ASDF-Dashboard: Automated Subgroup Detection and Fairness Analysis", CIKM
    workshops 2022 (the exploration loop). Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards
    subjective opinions in Machine Learning, Section 6 (a human-in-the-loop mitigation methodology).
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import shlex
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import pandas as pd

from .._param_tables import OPINION_PARAMS
from ._recut import CachedClustering, SharedClustering

__all__ = [
    "SubgroupSettings",
    "SubgroupView",
    "SubgroupSession",
    "OpinionSettings",
    "OpinionSession",
    "MITIGATIONS",
    "Source",
    "subgroups_command",
    "parse_bins",
    "metric_choices",
]

#: Hierarchical clusterers: their tree is fitted once and cut at any k.
HIERARCHICAL = {"slink": "single", "ward": "ward"}
#: Settings whose change re-clusters; re-cuts; only re-ranks. (A change of task keeps the clusters, which do not
#: depend on the outcome, but every metric and the permutations change: it analyses again.)
CLUSTER_FIELDS = ("clustering", "categorical", "discovery", "task", "clusterings")
CUT_FIELDS = ("n_clusters", "entropy_threshold")
#: The mitigations of the human-in-the-loop step.
MITIGATIONS = {
    "crowdtruth": "CrowdTruth filter on the training annotations",
    "annotator_aware": "annotator-aware model (Model 2)",
    "reweighting": "annotator groups reweighted to weigh the same (annotator-aware model)",
}


def _draws(s: SubgroupSettings) -> int | None:
    """How many values the equivalent command's clusterer draws from ``detect_subgroups``' random stream before
    the clusters are known (x-means' choice of k for a tree: one seed; k-means: one seed; a tree cut at a given k,
    Birch at a given k, DBSCAN, OPTICS: none), or None when it draws an unknown number (x-means, and k-means or
    Birch with k chosen by x-means): such a setting is clustered again, never re-cut, so that the page's adjusted
    p-values are those of the equivalent command."""
    if s.clustering in HIERARCHICAL:
        return 1 if s.n_clusters is None else 0
    if s.clustering in ("dbscan", "optics"):
        return 0
    if s.clustering == "xmeans" or s.n_clusters is None:
        return None
    return 1 if s.clustering == "kmeans" else 0


def accepts_discovery() -> bool:
    """Whether this installation's ``detect_subgroups`` takes ``discovery=`` (pattern discovery)."""
    from ..detectors import detect_subgroups

    return "discovery" in inspect.signature(detect_subgroups).parameters


def subgroup_kinds() -> tuple[str, ...]:
    """The subgroup kinds this installation's ``SubgroupReport.ranking`` accepts."""
    from ..detectors import candidates

    kinds = candidates.KINDS
    return tuple(kinds) + (("all",) if "all" not in kinds and accepts_discovery() else ())


# ------------------------------------------------------------------------------------------------ the source
@dataclass(frozen=True)
class Source:
    """Where the data came from, as command-line words (for the equivalent command).

    Attributes:
        data: the DATA argument (a path); None when the data were given as Python objects or uploaded.
        options: the input options as they would be typed (``("--label-col", "class", ...)``).
        name: a short name for titles.
    """

    data: str | None = None
    options: tuple[str, ...] = ()
    name: str = "data"


def _command(command: str, source: Source, options: list[str]) -> str:
    data = source.data if source.data is not None else "DATA.csv"
    return shlex.join(["aif360-subjective", command, data, *source.options, *options])


# ------------------------------------------------------------------------------------------------ subgroups
@dataclass(frozen=True)
class SubgroupSettings:
    """The controls of the subgroups tab.

    Attributes:
        clustering: a name of :data:`~aif360_subjective.detectors.asdf.clustering.CLUSTERINGS`.
        n_clusters: k, or None for automatic (x-means).
        entropy_threshold: τ.
        categorical: categorical columns (None: detected).
        metric, kind, direction, alpha, min_size, ci, top: the ranking (:meth:`SubgroupReport.ranking`); the metric
            is a metric column of the report (:func:`metric_choices`): ``statistical_parity[c]`` is one class c of
            a multi-class model against the others (``ranking("statistical_parity", label=c)``).
        discovery: ``detect_subgroups(discovery=...)`` when the installation has pattern discovery, else None.
        task: what the model predicts, ``detect_subgroups(task=...)`` (the subgroup parameter table's values):
            ``"binary"`` analyses the 0/1 decisions, the others the labels as they are
            (:class:`SubgroupSession`'s ``outcomes``).
        clusterings: ``detect_subgroups(clusterings=...)``: the seed's one clustering, or the validated clusterings
            (the page then shows the models by fairness validation index, and ``kind="validated"`` ranks their
            clusters).
    """

    clustering: str = "slink"
    n_clusters: int | None = None
    entropy_threshold: float = 0.65
    categorical: tuple[str, ...] | None = None
    metric: str = "statistical_parity"
    kind: str = "entropy"
    direction: str = "disadvantaged"
    alpha: float | None = 0.05
    min_size: int = 1
    ci: float = 0.95
    top: int = 5
    discovery: str | None = None
    task: str = "binary"
    clusterings: str = "seed"

    def changed(self, other: SubgroupSettings | None) -> set[str]:
        """Names of the fields that differ from ``other`` (all when there is none)."""
        if other is None:
            return {f.name for f in dataclasses.fields(self)}
        return {f.name for f in dataclasses.fields(self) if getattr(self, f.name) != getattr(other, f.name)}


@dataclass
class SubgroupView:
    """What the subgroups tab shows for one setting.

    Attributes:
        report: the :class:`~aif360_subjective.detectors.SubgroupReport`.
        ranking: ``report.ranking(...)`` for the settings.
        settings: the settings.
        k: the number of clusters of the clustering (x-means' when automatic).
        step: what was recomputed: ``"clustering"``, ``"cut"`` (the cached clustering re-cut) or ``"ranking"``.
        seconds: time of that step.
        notes: sentences for the page (lopsided clustering, tied cut, empty ranking, what ``task="auto"`` decided,
            a metric the task does not have).
    """

    report: Any
    ranking: pd.DataFrame
    settings: SubgroupSettings
    k: int
    step: str
    seconds: float
    notes: list[str] = field(default_factory=list)


class SubgroupSession:
    """Subgroup discovery that re-cuts instead of re-clustering.

    The first analysis (and any change of clusterer, categorical columns or discovery method) runs
    :func:`~aif360_subjective.detectors.detect_subgroups` as the ``subgroups`` command does. A change of k or τ
    runs it again on the cached clustering (:class:`~aif360_subjective.dashboard._recut.CachedClustering`):
    single linkage's and ward's tree is cut at the new k, a flat clustering keeps its labels when only τ
    changes, and the mined patterns, which depend on neither, are kept (``patterns_from``: no mining again; a
    change of clusterer keeps them too, a change of categorical columns mines again). A change of the ranking's
    metric, kind, direction, α, ``min_size``, ``ci`` or length only calls
    :meth:`~aif360_subjective.detectors.SubgroupReport.ranking`.

    A task other than binary (``SubgroupSettings.task``: multi-class, ordinal, regression, or ``"auto"`` deciding
    from the labels) analyses ``outcomes``, the truth and prediction as they are, with that task's metrics (mean
    absolute error, mean error, mean prediction, accuracy error, each class's statistical parity).

    Args:
        X: the attribute table (rows = instances).
        y_true, y_pred: 0/1 truth and prediction, 1 = favourable (the binary task); None when there are no binary
            decisions (a continuous outcome without a favourable label): the binary task is then refused.
        random_state: seed of x-means, k-means and the silhouette sample.
        model: the name of the model whose predictions are analysed (for the report).
        source: where the data came from (for the equivalent command).
        outcomes: (truth, prediction) as in the data, for the other tasks (default: ``y_true`` and ``y_pred``).

    Raises:
        ValueError, TypeError: as :func:`~aif360_subjective.detectors.detect_subgroups` for bad data; arrays that
            are not one value per row of ``X``.
    """

    def __init__(self, X: pd.DataFrame, y_true: Any, y_pred: Any, *, random_state: int = 0,
                 model: str = "the predictions", source: Source | None = None,
                 outcomes: tuple[Any, Any] | None = None) -> None:
        if not isinstance(X, pd.DataFrame):
            raise TypeError(f"X must be a pandas DataFrame, got {type(X).__name__}")
        self.X = X
        if (y_true is None) != (y_pred is None):
            raise ValueError("give both y_true and y_pred (binary decisions), or neither (outcomes only)")
        if y_true is None and outcomes is None:
            raise ValueError("give y_true and y_pred (binary decisions), outcomes (the labels as they are), or both")
        self.y_true = None if y_true is None else np.asarray(y_true)
        self.y_pred = None if y_pred is None else np.asarray(y_pred)
        # the labels as they are (a Series keeps an ordered categorical's order)
        self.outcomes: tuple[Any, Any] = ((self.y_true, self.y_pred) if outcomes is None else
                                          (_labels(outcomes[0]), _labels(outcomes[1])))
        for name, values in (("y_true", self.y_true), ("y_pred", self.y_pred), ("outcomes[0]", self.outcomes[0]),
                             ("outcomes[1]", self.outcomes[1])):
            if values is not None and len(values) != len(X):
                raise ValueError(f"{name} has {len(values)} values; it must have one value per row of X ({len(X)})")
        self.random_state = random_state
        self.model = model
        self.source = source or Source()
        self.view: SubgroupView | None = None
        self._shared: SharedClustering | None = None
        # the last report holding mined patterns, and the categorical columns and task they were mined with
        self._mined: tuple[tuple[tuple[str, ...] | None, str], Any] | None = None
        self._k_auto: int | None = None
        self.n_clusterings = 0  # how often a clustering was fitted (the tests check re-cuts do not)

    # -------------------------------------------------------------------------------------------------
    def labels_for(self, task: str) -> tuple[Any, Any, str]:
        """The truth and prediction ``detect_subgroups`` analyses for ``task``, and the task passed: the 0/1
        decisions for ``"binary"`` (and for ``"auto"`` when the labels take two values, as the ``subgroups``
        command decides), else the labels as they are.

        Raises:
            ValueError: an unknown task; the binary task without binary decisions (no favourable label).
        """
        from .._param_tables import SUBGROUP_PARAMS
        from ..detectors.tasks import BinaryTask, names_decisions, resolve_task

        SUBGROUP_PARAMS.check("task", task)
        if task == "auto":
            chosen = resolve_task(*self.outcomes, task="auto")
            if chosen.decisions and self.y_true is None:
                raise ValueError(f"{chosen.reason}: binary decisions need a favourable label; choose it (the data "
                                 "tab), or the task multiclass to compare the two labels as classes")
            if chosen.decisions:
                return self.y_true, self.y_pred, chosen.name
        if not names_decisions(task):
            return self.outcomes[0], self.outcomes[1], task
        if self.y_true is None:
            raise ValueError("the binary task needs binary decisions: choose a favourable label (the data tab), or "
                             "a task that compares the labels as they are (multiclass, ordinal, regression, auto)")
        return self.y_true, self.y_pred, BinaryTask.name

    def _detect(self, s: SubgroupSettings, clustering: Any, n_clusters: int | None) -> Any:
        from ..detectors import detect_subgroups

        y_true, y_pred, task = self.labels_for(s.task)
        kwargs: dict[str, Any] = {}
        if s.discovery is not None:
            kwargs["discovery"] = s.discovery
        if s.clusterings != "seed":  # the seed's runs call detect_subgroups as they always did
            kwargs["clusterings"] = s.clusterings
        categorical = None if s.categorical is None else tuple(s.categorical)
        # mining depends on neither the clustering, k nor τ; kept per task, whose reports hold other metrics
        key = (categorical, s.task)
        if s.discovery in ("both", "patterns") and self._mined is not None and self._mined[0] == key:
            kwargs["patterns_from"] = self._mined[1]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the page shows the tie and lopsided notes itself
            rep = detect_subgroups(
                self.X, y_true, y_pred, pos_label=1, clustering=clustering, n_clusters=n_clusters,
                entropy_threshold=s.entropy_threshold,
                categorical_features=None if categorical is None else list(categorical),
                random_state=self.random_state, task=task, **kwargs,
            )
        if s.discovery in ("both", "patterns"):
            self._mined = (key, rep)
        return rep

    def _fit(self, s: SubgroupSettings) -> Any:
        """A full analysis; caches the clustering for later re-cuts."""
        from ..detectors import detect_categorical, encode_for_clustering
        from ..detectors.asdf.clustering import HierarchicalTree

        self._check_k(s.n_clusters)
        cat = detect_categorical(self.X) if s.categorical is None else list(s.categorical)
        self.n_clusterings += 1
        if s.clustering in HIERARCHICAL:
            Z, _ = encode_for_clustering(self.X, cat)
            self._shared = SharedClustering(Z, tree=HierarchicalTree.fit(Z, HIERARCHICAL[s.clustering]))
            if s.n_clusters is None:  # x-means chooses k as the command does; the cut then uses the cached tree
                rep = self._detect(s, s.clustering, None)
                self._k_auto = rep.n_clusters
                return rep
            return self._detect(s, CachedClustering(self._shared, seeded=_draws(s) == 1), s.n_clusters)
        rep = self._detect(s, s.clustering, s.n_clusters)
        Z, _ = encode_for_clustering(self.X, cat)
        self._shared = SharedClustering(Z, labels=rep.clusters.to_numpy())
        self._k_auto = rep.n_clusters if s.n_clusters is None else None
        return rep

    def _check_k(self, k: int | None) -> None:
        n = len(self.X)
        if k is not None and not 2 <= k <= n:
            raise ValueError(f"k (number of clusters) must be between 2 and the number of rows ({n:,}), got {k}")

    def _cut(self, s: SubgroupSettings) -> Any:
        self._check_k(s.n_clusters)
        assert self._shared is not None  # a clustering was fitted before any re-cut
        cached = CachedClustering(self._shared, seeded=_draws(s) == 1)
        if self._shared.tree is None:
            return self._detect(s, cached, None)
        k = self._k_auto if s.n_clusters is None else s.n_clusters
        return self._detect(s, cached, k)

    def update(self, settings: SubgroupSettings) -> SubgroupView:
        """The view for ``settings``, recomputing as little as the change needs.

        Returns:
            SubgroupView

        Raises:
            ValueError: a setting out of range (e.g. k larger than the number of rows); the previous view is
                kept.
        """
        prev = self.view
        changed = settings.changed(None if prev is None else prev.settings)
        flat_k = prev is not None and prev.settings.clustering not in HIERARCHICAL and "n_clusters" in changed
        # the validated clusterings are fitted with the analysis: a new k or τ is a new analysis, not a re-cut
        flat_k = flat_k or (settings.clusterings != "seed" and bool(changed & set(CUT_FIELDS)))
        t0 = time.perf_counter()
        if prev is None or changed & set(CLUSTER_FIELDS) or flat_k or _draws(settings) is None:
            step, rep = "clustering", self._fit(settings)
        elif changed & set(CUT_FIELDS):
            step, rep = "cut", self._cut(settings)
        else:
            step, rep = "ranking", prev.report
        notes = []
        choices = metric_choices(rep)
        if settings.metric not in choices:  # another task's metric: the task's first, said in the notes
            notes.append(f"Ranked by {choices[0]}: the {rep.task} task has no {settings.metric} (its metrics: "
                         f"{', '.join(choices[:-1])}).")
            settings = dataclasses.replace(settings, metric=choices[0])
        metric, label = rep.task_type.ranking_arguments(settings.metric)
        rk = rep.ranking(metric, kind=settings.kind, n=settings.top, direction=settings.direction,
                         alpha=settings.alpha, min_size=settings.min_size, ci=settings.ci, label=label)
        seconds = time.perf_counter() - t0
        if not rep.task_type.decisions:
            notes.insert(0, f"Task: {rep.task_reason}.")
        elif settings.task == "auto":  # decided on the labels as they are (labels_for)
            notes.insert(0, "Task: 'auto' chose 'binary': the labels take two values (the favourable label of the "
                            "data tab is the favourable decision).")
        view = SubgroupView(rep, rk, settings, int(rep.n_clusters), step, seconds,
                            notes + self._notes(rep, rk, settings))
        self.view = view
        return view

    def _notes(self, rep: Any, rk: pd.DataFrame, s: SubgroupSettings) -> list[str]:
        notes = []
        lop = rep.lopsided
        if lop["lopsided"]:
            k_text = f"{rep.n_clusters} cluster{'' if rep.n_clusters == 1 else 's'}"
            notes.append(f"The clustering ({s.clustering}, {k_text}) is lopsided: {lop['reason']}. "
                         "Another clusterer or k may give comparable subgroups.")
        unique, distance = rep.cut_is_unique, rep.cut_distance
        if self._shared is not None and self._shared.tree is not None:
            unique, distance = self._shared.tree.cut_is_unique(rep.n_clusters)
        if unique is False:
            k_text = f"{rep.n_clusters} cluster{'' if rep.n_clusters == 1 else 's'}"
            notes.append(f"The cut into {k_text} falls inside a tie of merge distances "
                         f"({distance:.6g}): other, equally valid clusterings exist.")
        a = rk.attrs
        metric = s.metric.replace("_", " ")
        if not len(rk) and s.alpha is not None:
            notes.append(f"No {s.kind}-based subgroup is significantly {s.direction} by {metric} at adjusted p < "
                         f"{s.alpha:g}, family-wise over every subgroup (permutation max-T): "
                         f"{a.get('n_not_significant', 0)} not significant, {a.get('n_undefined', 0)} undefined, "
                         f"{a.get('n_too_small', 0)} below the minimum size.")
        return notes


    def copy_for_session(self) -> SubgroupSession:
        """A copy for another browser session: the same data, fitted clustering and first view (results objects
        are never modified), its own later views."""
        return copy.copy(self)

    # -------------------------------------------------------------------------------------------------
    def subgroup_detail(self, kind: str, sid: Any) -> pd.DataFrame:
        """One subgroup's metrics with their intervals and q-values (the click on a subgroup).

        Returns:
            pandas.DataFrame: index metric; columns value, ci_low, ci_high, q.

        Raises:
            ValueError: no analysis yet, or an unknown subgroup.
        """
        if self.view is None:
            raise ValueError("no analysis yet")
        rep, ci = self.view.report, self.view.settings.ci
        table = rep.subgroup_metrics(ci=ci)
        if (kind, sid) not in table.index:
            raise ValueError(f"no subgroup ({kind!r}, {sid!r}) in the current analysis")
        row = table.loc[(kind, sid)]
        names = list(rep.candidate_metrics.names)  # the task's metrics (a binary decision's seven)
        out = pd.DataFrame({
            "value": [row[m] for m in names],
            "ci_low": [row.get(f"{m}_ci_low", np.nan) for m in names],
            "ci_high": [row.get(f"{m}_ci_high", np.nan) for m in names],
            "q": [row.get(f"{m}_q", np.nan) for m in names],
            "p_adjusted": [row.get(f"{m}_p_adjusted", np.nan) for m in names],
        }, index=pd.Index(names, name="metric"))
        out.attrs["size"] = row["size"]
        cands = rep.candidates
        out.attrs["description"] = str(cands.family(kind).description(cands.position(kind, sid)))
        return out

    def command(self) -> str:
        """The ``aif360-subjective subgroups`` command giving the same analysis (and report with ``--out``)."""
        s = self.view.settings if self.view is not None else SubgroupSettings()
        opts = ["--clustering", s.clustering, "--entropy-threshold", f"{s.entropy_threshold:g}"]
        if s.n_clusters is not None:
            opts += ["--n-clusters", str(s.n_clusters)]
        if s.categorical is not None:
            opts += ["--categorical", *s.categorical]
        if s.discovery is not None:
            opts += ["--discovery", s.discovery]
        if s.task != SubgroupSettings.task:  # the command's default (binary decisions) goes without saying
            opts += ["--task", s.task]
        opts += ["--alpha", "none" if s.alpha is None else f"{s.alpha:g}", "--min-size", str(s.min_size),
                 "--ci", f"{s.ci:g}", "--top", str(s.top), "--seed", str(self.random_state), "--out", "report.html"]
        return _command("subgroups", self.source, opts)

    def report(self, title: str | None = None) -> Any:
        """The current view as the report the ``subgroups`` command writes (a :class:`~aif360_subjective.report.
        Report`; ``.render()`` gives the self-contained HTML)."""
        from ..report.subgroup_recipe import subgroup_recipe, subgroup_report

        if self.view is None:
            raise ValueError("no analysis yet")
        s = self.view.settings
        rep = self.view.report
        if getattr(rep, "clustering", s.clustering) != s.clustering:
            # a re-cut's report names the cached clustering; the report names the clusterer: run the equivalent
            # command's analysis (the same clusters and, as the re-cut takes the command's random draws, the same
            # adjusted p-values)
            rep = self._detect(s, s.clustering, s.n_clusters)
        # the command's recipe (its answer, patterns and, for binary decisions, the other clusterers compared)
        recipe = subgroup_recipe(rep, self.X, self.y_true, self.y_pred, random_state=self.random_state,
                                 alpha=s.alpha, ci=s.ci)
        return subgroup_report(recipe, title or f"Subgroup fairness of {self.source.name}",
                               [f"{len(self.X):,} rows, {self.X.shape[1]} attributes; predictions of {self.model}."],
                               n=s.top, model=self.model, alpha=s.alpha, min_size=s.min_size, ci=s.ci)


def _with_interval(table: pd.DataFrame, row: str, what: str) -> str:
    """``0.087 [0.071, 0.104]`` from a summary table (the figure alone without interval columns)."""
    from ..report.sections import interval_text

    value = float(cast(Any, table.loc[row, what]))
    if f"{what}_ci_low" not in table.columns:
        return f"{value:.3f}"
    return interval_text(value, (table.loc[row, f"{what}_ci_low"], table.loc[row, f"{what}_ci_high"]))


def _labels(values: Any) -> Any:
    """Labels as analysed: a Series as it is (an ordered categorical keeps its order), anything else an array."""
    return values.reset_index(drop=True) if isinstance(values, pd.Series) else np.asarray(values)


def metric_choices(report: Any) -> list[str]:
    """The metric columns a report can be ranked by (its task's metrics: a binary decision's seven; mean absolute
    error, mean error and mean prediction of an ordinal or regression model, with accuracy error for ordinal;
    accuracy error and ``statistical_parity[c]`` per class of a multi-class model), then ``size``."""
    return [*report.candidate_metrics.names, "size"]


def subgroups_command(session: SubgroupSession) -> str:
    """The equivalent ``subgroups`` command of a session (see :meth:`SubgroupSession.command`)."""
    return session.command()


# ------------------------------------------------------------------------------------------------ opinion
@dataclass(frozen=True)
class OpinionSettings:
    """The controls of the opinion tab (the ``audit`` command's options).

    Attributes:
        grouping: "adr", "ambiguity", "popularity", "demographic" or "discovered".
        bins: as ``audit --bins``: an int, ``"quantile:N"`` or comma-separated edges.
        attributes: annotator attributes for "demographic" (None: all).
        min_group_size: smaller groups are merged with a neighbour.
        performance: the performance measure.
        ci: interval level, or None for the paper's raw figures.
        n_boot: bootstrap replicates.
    """

    grouping: str = "adr"
    bins: str = "5"
    attributes: tuple[str, ...] | None = None
    min_group_size: int = 1
    performance: str = "accuracy"
    ci: float | None = 0.95
    n_boot: int = 1000

    def metric_key(self) -> tuple[Any, ...]:
        return (self.grouping, self.bins, self.attributes, self.min_group_size, self.performance)


def parse_bins(text: str) -> Any:
    """``audit --bins`` syntax: an int, ``quantile:N`` or comma-separated edges.

    Raises:
        ValueError: anything else.
    """
    text = str(text).strip()
    if text.isdigit():
        return int(text)
    if text.startswith("quantile:") and text[9:].isdigit():
        return text
    try:
        return [float(x) for x in text.split(",")]
    except ValueError:
        raise ValueError(f"bins {text!r}: expected an int, 'quantile:N' or comma-separated edges like 0,0.2,0.5,1") \
            from None


class OpinionSession:
    """Opinion-exclusion audit of several models on the same held-out items, and mitigations tried on them.

    The annotations are split by item (``test_size`` held out, seeded); the paper's Model 1
    (:class:`~aif360_subjective.algorithms.inprocessing.MajorityVoteClassifier`) and Model 2
    (:class:`~aif360_subjective.algorithms.inprocessing.AnnotatorAwareClassifier`) are trained on the rest where
    the data lets them learn (Model 1: the item text as TF-IDF, as ``audit --model majority``, or numeric item
    features; Model 2: numeric item features or annotator attributes; :attr:`notes` says what each learned from),
    and every model is audited on the held-out items. Predictions given by the caller
    (aligned with the rows of ``dataset``) are audited on the same items.

    Args:
        dataset (MultiAnnotatorDataset): the annotations.
        predictions: model name -> classified copy of ``dataset`` (same rows), optional.
        test_size: share of the items held out.
        seed: seed of the split, the models and the bootstrap.
        train_models: train Model 1 and Model 2 (needs item features).
        source: where the data came from (for the equivalent command).

    Raises:
        TypeError: ``dataset`` is not a MultiAnnotatorDataset.
        ValueError: no model to audit.
    """

    def __init__(self, dataset: Any, *, predictions: Mapping[str, Any] | None = None, test_size: float = 0.3,
                 seed: int = 0, train_models: bool = True, source: Source | None = None) -> None:
        from ..datasets.multi_annotator import check_multi_annotator_dataset

        check_multi_annotator_dataset(dataset)
        self.dataset = dataset
        self.seed = seed
        self.test_size = test_size
        self.source = source or Source()
        self.notes: list[str] = []
        self.train, self.test = dataset.split([1 - test_size], shuffle=True, seed=seed)
        self.models: dict[str, Any] = {}
        from ..algorithms.inprocessing.majority_vote import text_columns

        # Model 1 learns from the item text (TF-IDF, as ``audit --model majority``) or the numeric item features;
        # Model 2 from the numeric item features and the annotators' attributes
        self.can_train_majority = bool(dataset.item_feature_names) or bool(text_columns(dataset.items))
        self.can_train_aware = bool(dataset.item_feature_names) or bool(len(dataset.annotators.columns))
        self.can_train = self.can_train_majority or self.can_train_aware
        if train_models:
            self._train_models()
        held_out = np.isin(np.asarray(dataset.item_ids), pd.unique(np.asarray(self.test.item_ids)))
        for name, classified in (predictions or {}).items():
            if len(classified.labels) != len(dataset.labels):
                raise ValueError(f"predictions[{name!r}] has {len(classified.labels)} rows, the dataset "
                                 f"{len(dataset.labels)}")
            self.models[str(name)] = self._align(classified.subset(held_out))
        if not self.models:
            raise ValueError("no model to audit: give predictions, or data whose items have text or numeric features "
                             "or whose annotators have attributes")
        self._metrics: dict[tuple[Any, ...], dict[str, Any]] = {}
        self._intervals: dict[tuple[Any, ...], pd.DataFrame] = {}
        self.history: list[dict[str, Any]] = []

    def _train_models(self) -> None:
        """Model 1 and Model 2 where the data lets them learn, with a note saying what each learned from."""
        from .._labels import OneClassPredictionWarning
        from ..algorithms.inprocessing import AnnotatorAwareClassifier, MajorityVoteClassifier

        with warnings.catch_warnings():  # a constant model is named in the notes, not warned in the console
            warnings.simplefilter("ignore", OneClassPredictionWarning)
            if self.can_train_majority:
                m1 = MajorityVoteClassifier(random_state=self.seed).fit(self.train)
                self.models["Model 1 (majority vote)"] = m1.predict(self.test)
                what = (f"TF-IDF of the item text ({', '.join(m1.text_columns_)})" if m1.text_columns_ else
                        f"the numeric item features ({', '.join(m1.item_features_)})")
                self.notes.append(f"Model 1 (majority vote) learns from {what}.")
            if self.can_train_aware:
                m2 = AnnotatorAwareClassifier(random_state=self.seed).fit(self.train)
                self.models["Model 2 (annotator-aware)"] = m2.predict(self.test)
                parts = ([f"the numeric item features ({', '.join(m2.item_features_)})"] if m2.item_features_
                         else []) + ([f"the annotators' attributes ({', '.join(m2.attribute_names_)})"]
                                     if m2.attribute_names_ else [])
                self.notes.append(f"Model 2 (annotator-aware) learns from {' and '.join(parts)}"
                                  + ("" if m2.item_features_ else "; not from the item text, so it predicts one "
                                     "label per group of annotators") + ".")
        if not self.can_train:
            self.notes.append("The items have neither text nor numeric features and the annotators no attributes: "
                              "no model can be trained, so the mitigations that retrain a model are not available.")
        for name, pred in self.models.items():
            values = np.unique(pred.labels.ravel())
            if len(values) == 1:
                self.notes.append(f"{name} predicts {pred.decode_labels(values)[0]!r} for every held-out "
                                  "annotation.")

    def trainable(self, kind: str, baseline: str | None = None) -> str | None:
        """Why mitigation ``kind`` cannot run against ``baseline`` on this data, or None when it can."""
        baseline = baseline or next(iter(self.models))
        aware = kind in ("annotator_aware", "reweighting") or (kind == "crowdtruth" and "annotator" in
                                                                 baseline.lower())
        if aware and not self.can_train_aware:
            return ("the annotator-aware model needs numeric item features or annotator attributes, and this data "
                    "has neither")
        if not aware and not self.can_train_majority:
            return "the majority-vote model needs item text or numeric item features, and this data has neither"
        return None

    def copy_for_session(self) -> OpinionSession:
        """A copy for another browser session: the same data and fitted models (and cached metrics), its own history."""
        clone = copy.copy(self)
        clone.history = []
        return clone

    def _align(self, classified: Any) -> Any:
        """A classified subset in the row order of ``self.test`` (the split may reorder rows)."""
        key = pd.MultiIndex.from_arrays([np.asarray(classified.item_ids), np.asarray(classified.annotator_ids)])
        want = pd.MultiIndex.from_arrays([np.asarray(self.test.item_ids), np.asarray(self.test.annotator_ids)])
        pos = key.get_indexer(want)
        return self.test.with_predictions(self.test.decode_labels(classified.labels.ravel()[pos]))

    # -------------------------------------------------------------------------------------------------
    def metrics(self, s: OpinionSettings, names: Sequence[str] | None = None) -> dict[str, Any]:
        """``OpinionExclusionMetric`` of every model for the settings (cached per grouping and measure).

        Raises:
            ValueError: a bad option (the metric's own message).
        """
        key = s.metric_key()
        if key not in self._metrics:
            out = {}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # thin groups: the page shows thin_group_line per model
                for name, pred in self.models.items():
                    out[name] = self._metric(pred, s)
            self._metrics[key] = out
        got = self._metrics[key]
        return got if names is None else {n: got[n] for n in names}

    def _metric(self, pred: Any, s: OpinionSettings) -> Any:
        from ..metrics import OpinionExclusionMetric

        return OpinionExclusionMetric(self.test, pred, grouping=s.grouping, bins=parse_bins(s.bins),
                                      performance=s.performance,
                                      attributes=None if s.attributes is None else list(s.attributes),
                                      min_group_size=s.min_group_size, random_state=self.seed)

    def summary(self, s: OpinionSettings, intervals: bool = True) -> pd.DataFrame:
        """Unfairness and performance per model (:func:`~aif360_subjective.report.sections.opinion_summary_table`),
        with intervals when ``intervals`` and ``s.ci`` (computed once per setting, then cached)."""
        from ..report.sections import opinion_summary_table

        ci = s.ci if intervals else None
        key = (*s.metric_key(), ci, s.n_boot)
        if key not in self._intervals:
            self._intervals[key] = opinion_summary_table(self.metrics(s), ci=ci, n_boot=s.n_boot,
                                                         random_state=self.seed)
        return self._intervals[key]

    def has_intervals(self, s: OpinionSettings) -> bool:
        """Whether the intervals of the setting are computed already."""
        return s.ci is None or (*s.metric_key(), s.ci, s.n_boot) in self._intervals

    def group_table(self, name: str, s: OpinionSettings, intervals: bool = True) -> pd.DataFrame:
        """``group_performance`` of one model (with its intervals when asked)."""
        m = self.metrics(s)[name]
        if intervals and s.ci is not None:
            out: pd.DataFrame = m.group_performance(ci=s.ci, n_boot=s.n_boot, random_state=self.seed)
        else:
            out = m.group_performance()
        return out

    def thin_notes(self, s: OpinionSettings) -> list[str]:
        """The thin-group sentence of every model (as the report writes it)."""
        from ..report.sections import thin_group_line

        return [line for name, m in self.metrics(s).items() if (line := thin_group_line(name, m)) is not None]

    def answer(self, s: OpinionSettings, name: str, intervals: bool = True) -> str:
        """Who is served worst by model ``name``, and how sure.

        With intervals: the metric's own verdict (:meth:`~aif360_subjective.metrics.OpinionExclusionMetric.verdict`:
        the test of equal service and the intervals) when the installation has it. Without intervals (the first,
        fast view) or without a verdict method: worst and best group from the group table, with their intervals
        when computed and whether they overlap.
        """
        m = self.metrics(s)[name]
        if intervals and s.ci is not None and hasattr(m, "verdict"):
            return f"{name}: {m.verdict(ci=s.ci, n_boot=s.n_boot, random_state=self.seed)}."
        table = self.group_table(name, s, intervals)
        perf = m.performance_name() if hasattr(m, "performance_name") else s.performance
        from ..opinion.groups import group_label

        values = table["performance"].to_numpy(dtype=float)
        labels = list(table.index)  # positions, not .loc: intersections of attributes are tuples
        if np.isfinite(values).sum() < 2:
            return f"{name}: fewer than two groups have a {perf}; there is nothing to compare."
        w = labels.index(m.worst_group())  # the worst group follows the measure's direction (mae: highest)
        b = int(np.nanargmax(values)) if values[w] == np.nanmin(values) else int(np.nanargmin(values))
        has_ci = "ci_low" in table.columns
        nan = np.full(len(values), np.nan)
        low = table["ci_low"].to_numpy(dtype=float) if has_ci else nan
        high = table["ci_high"].to_numpy(dtype=float) if has_ci else nan

        def fig(i: int) -> str:
            v = f"{values[i]:.3f}"
            if has_ci and np.isfinite(low[i]) and np.isfinite(high[i]):
                v += f" [{low[i]:.3f}, {high[i]:.3f}]"
            return v

        text = (f"{name}: the group served worst is {group_label(labels[w])} ({perf} {fig(w)}); the best served is "
                f"{group_label(labels[b])} ({fig(b)}).")
        if has_ci:
            if np.isfinite([low[w], high[w], low[b], high[b]]).all():
                if high[w] < low[b] or high[b] < low[w]:
                    text += f" Their {s.ci:.0%} intervals do not overlap."
                else:
                    text += (f" Their {s.ci:.0%} intervals overlap: these intervals alone do not show that the two "
                             "groups are served differently.")
        else:
            text += " (Intervals not computed yet.)"
        return text

    # -------------------------------------------------------------------------------------------------
    def mitigate(self, kind: str, s: OpinionSettings, *, baseline: str | None = None,
                 threshold: float | str = "auto") -> pd.DataFrame:
        """Try a mitigation and compare it with a baseline model on the same held-out items.

        Args:
            kind: ``"crowdtruth"`` (the baseline's model retrained on the training annotations left by
                :class:`~aif360_subjective.algorithms.preprocessing.CrowdTruthFilter` with ``threshold``),
                ``"annotator_aware"`` (Model 2 instead of the baseline) or ``"reweighting"`` (Model 2 trained
                with :class:`~aif360_subjective.algorithms.preprocessing.AnnotatorGroupReweighing` on the
                current grouping; ADR bins for the item and annotation groupings).
            s: the opinion settings (grouping, measure, intervals).
            baseline: the model compared with (default: the first).
            threshold: the CrowdTruth filter's WQS threshold (``"auto"`` or a number in [0, 1]).

        Returns:
            pandas.DataFrame: index ``before``/``after``; unfairness and performance with their intervals (as
            :meth:`summary`). The row is added to :attr:`history`.

        Raises:
            ValueError: unknown kind, no trainable model, a bad threshold.
        """
        from ..algorithms.inprocessing import AnnotatorAwareClassifier, MajorityVoteClassifier
        from ..algorithms.preprocessing import AnnotatorGroupReweighing, CrowdTruthFilter
        from ..report.sections import opinion_summary_table

        if kind not in MITIGATIONS:
            raise ValueError(f"mitigation must be one of {list(MITIGATIONS)}, got {kind!r}")
        baseline = baseline or next(iter(self.models))
        if baseline not in self.models:
            raise ValueError(f"baseline must be one of {list(self.models)}, got {baseline!r}")
        why = self.trainable(kind, baseline)
        if why is not None:
            raise ValueError(f"{MITIGATIONS[kind]}: {why}")
        t0 = time.perf_counter()
        detail = ""
        removed = 0
        if kind == "crowdtruth":
            if isinstance(threshold, str) and threshold != "auto":
                threshold = float(threshold)
            f = CrowdTruthFilter(threshold=threshold).fit(self.train)
            clean = f.transform(self.train)
            removed = len(f.removed_annotators_)
            model = (AnnotatorAwareClassifier(random_state=self.seed) if "annotator" in baseline.lower()
                     else MajorityVoteClassifier(random_state=self.seed))
            pred = model.fit(clean).predict(self.test)
            detail = (f"threshold {threshold if isinstance(threshold, str) else f'{threshold:g}'} "
                      f"(WQS {f.threshold_:.3f}); {removed} annotators removed from training")
        elif kind == "annotator_aware":
            pred = AnnotatorAwareClassifier(random_state=self.seed).fit(self.train).predict(self.test)
        else:
            grouping = s.grouping if s.grouping in ("adr", "demographic", "discovered") else "adr"
            rw = AnnotatorGroupReweighing(grouping=grouping, bins=parse_bins(s.bins) if grouping == "adr" else 5,
                                          attributes=None if s.attributes is None else list(s.attributes),
                                          min_group_size=s.min_group_size, random_state=self.seed)
            weighted = rw.fit_transform(self.train)
            pred = AnnotatorAwareClassifier(random_state=self.seed).fit(weighted).predict(self.test)
            detail = f"{len(rw.group_weights_)} {grouping} groups, weights {rw.group_weights_['weight'].min():.2f}–" \
                     f"{rw.group_weights_['weight'].max():.2f}"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            after = self._metric(pred, s)
        before = self.metrics(s)[baseline]
        # how many held-out predictions the mitigation changed (0 explains an unchanged audit)
        changed = int((pred.labels.ravel() != self.models[baseline].labels.ravel()).sum())
        n_rows = len(pred.labels)
        changed_text = f"{changed:,} of {n_rows:,} held-out predictions differ from the baseline's"
        detail = f"{detail}; {changed_text}" if detail else changed_text
        table = opinion_summary_table({"before": before, "after": after}, ci=s.ci, n_boot=s.n_boot,
                                      random_state=self.seed)
        seconds = time.perf_counter() - t0
        row: dict[str, Any] = {"mitigation": MITIGATIONS[kind], "setting": detail, "baseline": baseline,
                               "grouping": s.grouping, "measure": s.performance}
        for what in ("unfairness", "performance"):
            for side in ("before", "after"):
                row[f"{what} {side}"] = _with_interval(table, side, what)
        row["seconds"] = round(seconds, 2)
        self.history.append(row)
        table.attrs["detail"] = detail
        table.attrs["removed"] = removed
        table.attrs["changed"] = changed
        return table

    def history_frame(self) -> pd.DataFrame:
        """The tried mitigations, one row each (index = try number from 1)."""
        out = pd.DataFrame(self.history)
        out.index = pd.RangeIndex(1, len(out) + 1, name="try")
        return out

    def excluded(self, name: str, s: OpinionSettings, *, adjust: str = OPINION_PARAMS.default("adjust"),
                 max_conditions: int = OPINION_PARAMS.default("max_conditions"),
                 balance: str = OPINION_PARAMS.default("balance"),
                 step_down: bool = OPINION_PARAMS.default("step_down")) -> Any:
        """Whose opinions model ``name`` excludes: the annotator groups it serves worse
        (:meth:`~aif360_subjective.metrics.OpinionExclusionMetric.excluded_groups` on the held-out items, with the
        settings' measure and attributes; cached per model and options).

        Args:
            name: the model.
            s: the view's settings (measure and attributes).
            adjust, max_conditions, balance, step_down: the discovery's options
                (:func:`~aif360_subjective.opinion.excluded_groups`; ``balance`` one of
                :data:`~aif360_subjective.opinion.excluded.BALANCES`; ``step_down`` True for step-down p-values).

        Raises:
            ValueError: a measure the discovery cannot score (e.g. f1), an unknown ``balance``, or the library's
                message.
            TypeError: ``step_down`` not True or False.
        """
        key = (name, s.performance, s.attributes, adjust, max_conditions, balance, step_down)
        cache: dict[tuple[Any, ...], Any] = self.__dict__.setdefault("_excluded", {})
        if key not in cache:
            metric = self.metrics(s)[name]
            attrs = None if s.attributes is None else list(s.attributes)
            cache[key] = metric.excluded_groups(attributes=attrs, adjust=adjust, max_conditions=max_conditions,
                                                performance=s.performance, random_state=self.seed,
                                                balance=balance, step_down=step_down)
        self.__dict__.setdefault("_last_search", {})[name] = key  # what the export reports for this model
        return cache[key]

    def _excluded_sections(self, s: OpinionSettings) -> list[Any]:
        """"Whose opinions are excluded" of each model's last search with the view's measure and attributes (a
        search with other ones does not answer for this view)."""
        from ..report.excluded_sections import excluded_groups_section

        cache = self.__dict__.get("_excluded", {})
        sections = []
        for name, key in self.__dict__.get("_last_search", {}).items():
            if (key[1], key[2]) != (s.performance, s.attributes):
                continue
            sec = excluded_groups_section(cache[key])
            if len(self.models) > 1:
                sec.title += f": {name}"
            sections.append(sec)
        return sections

    def discover_command(self, s: OpinionSettings, *, adjust: str = OPINION_PARAMS.default("adjust"),
                         max_conditions: int = OPINION_PARAMS.default("max_conditions"),
                         balance: str = OPINION_PARAMS.default("balance"),
                         step_down: bool = OPINION_PARAMS.default("step_down")) -> str:
        """The ``aif360-subjective audit ... --discover`` command of the discovery view."""
        opts = ["--performance", s.performance]
        if s.attributes is not None:
            opts += ["--attributes", *s.attributes]
        opts += ["--discover", "--adjust", adjust, "--max-conditions", str(max_conditions), "--balance", balance,
                 *(["--step-down"] if step_down else []), "--ci", "none", "--seed", str(self.seed)]
        if "--prediction-col" not in self.source.options and "--predictions" not in self.source.options:
            first = next(iter(self.models))
            opts += ["--model", "annotator-aware" if "annotator" in first.lower() else "majority",
                     "--test-size", f"{self.test_size:g}"]
        return _command("audit", self.source, opts)

    def command(self, s: OpinionSettings) -> str:
        """The ``aif360-subjective audit`` command closest to the view (the command audits one model: the first)."""
        opts = ["--grouping", s.grouping, "--bins", s.bins, "--min-group-size", str(s.min_group_size),
                "--performance", s.performance]
        if s.attributes is not None:
            opts += ["--attributes", *s.attributes]
        opts += ["--ci", "none" if s.ci is None else f"{s.ci:g}", "--n-boot", str(s.n_boot), "--seed", str(self.seed)]
        if "--prediction-col" not in self.source.options and "--predictions" not in self.source.options:
            first = next(iter(self.models))
            opts += ["--model", "annotator-aware" if "annotator" in first.lower() else "majority",
                     "--test-size", f"{self.test_size:g}"]
        opts += ["--out", "report.html"]
        return _command("audit", self.source, opts)

    def report(self, s: OpinionSettings, title: str | None = None) -> Any:
        """The current view as the report the ``audit`` command writes, all models side by side, plus the
        history of tried mitigations."""
        from ..report import Report
        from ..report.model import Section
        from ..report.sections import opinion_sections

        test = self.test
        report = Report(title or f"Opinion-exclusion audit of {self.source.name}",
                        summary=[f"{len(test.labels):,} held-out annotations of {test.n_items:,} items by "
                                 f"{test.n_annotators:,} annotators.", *self.notes])
        summary = self.summary(s, intervals=s.ci is not None)
        for name in summary.index:
            report.fact(f"unfairness, {name}", summary.loc[name, "unfairness"])
        report.extend(opinion_sections(self.metrics(s), ci=s.ci, n_boot=s.n_boot, random_state=self.seed))
        report.extend(self._excluded_sections(s))
        if self.history:
            sec = Section("Mitigations tried")
            sec.text("Each mitigation was audited on the same held-out items as its baseline, with the grouping and "
                     "measure of its row.")
            sec.table(self.history_frame(), "Tried mitigations: unfairness and performance before and after.")
            report.extend([sec])
        return report
