"""Report sections built from the package's results.

* :func:`subgroup_sections`: the ASDF dashboard's views (summary radar, subgroup sizes, the pattern table with
  expandable per-subgroup metrics, top-5 rankings) of a subgroup-discovery result.
* :func:`opinion_sections`: an opinion-exclusion audit of one or several models (Figure 3 heatmap, group
  tables, ADR distribution, what the grouping merged or skipped).
* :func:`crowdtruth_sections`: CrowdTruth annotator quality and the annotators a filter removed.

Each returns a list of :class:`~.model.Section` to add to a :class:`~.model.Report` with ``report.extend``.
Every string from the data (ids, attribute names and values) reaches the page escaped by the template.

References:
    J. Schäfer and L. Wiese, "ASDF-Dashboard: Automated Subgroup Detection and Fairness Analysis".
    A. Balayn, A. Bozzon and Z. Szlavik, "Unfairness towards subjective opinions in Machine Learning", 2019.
    A. Dumitrache et al., "CrowdTruth 2.0: Quality Metrics for Crowdsourcing with Disagreement", 2018.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from .model import Section

__all__ = ["crowdtruth_sections", "opinion_sections", "subgroup_sections"]

SIGN_CONVENTION = (
    "Sign convention: statistical parity, equal opportunity and equalized odds are the rest minus the "
    "subgroup, so a positive value means the subgroup is disadvantaged (it gets the favourable outcome less "
    "often than everyone else) and a negative value means it is favoured. Accuracy error is the subgroup's "
    "accuracy minus the accuracy on all rows (negative = the model errs more on the subgroup)."
)

_METRIC_NAMES = {
    "statistical_parity": "Statistical parity",
    "equal_opportunity": "Equal opportunity",
    "equalized_odds": "Equalized odds",
    "accuracy": "Accuracy",
    "accuracy_error": "Accuracy error",
}


def _plots():
    from .. import plotting

    return plotting


def _subgroup_report(obj: Any):
    """Accept a SubgroupReport or a SubgroupDiscoveryMetric (both have the same accessors)."""
    needed = ("patterns", "subgroup_metrics", "summary", "ranking")
    if not all(hasattr(obj, n) for n in needed):
        raise TypeError(f"expected a SubgroupReport or SubgroupDiscoveryMetric, got {type(obj).__name__}")
    return obj


def subgroup_sections(result: Any, *, n: int = 5, max_subgroups: int = 100,
                      figures: bool = True) -> list[Section]:
    """The ASDF dashboard's views of a subgroup-discovery result, as report sections.

    Args:
        result: a :class:`~aif360_subjective.detectors.SubgroupReport` (from ``detect_subgroups``) or a
            :class:`~aif360_subjective.metrics.SubgroupDiscoveryMetric`.
        n: length of the top-n rankings.
        max_subgroups: at most this many expandable per-subgroup blocks (the largest subgroups first).
        figures: include the matplotlib figures (radar, sizes, rankings).

    Returns:
        list of Section: summary, subgroup sizes, patterns, rankings.

    Raises:
        TypeError: ``result`` is not a subgroup-discovery result.
    """
    rep = _subgroup_report(result)
    metrics = rep.subgroup_metrics()
    summary = rep.summary()
    info = rep.pattern_info() if hasattr(rep, "pattern_info") else None
    plotting = _plots() if figures else None
    out: list[Section] = []

    s = Section("Subgroup fairness summary")
    n_clusters = len(metrics.loc["cluster"]) if "cluster" in metrics.index.get_level_values(0) else 0
    s.text(
        f"The rows were clustered into {n_clusters} clusters. Each cluster is a cluster-based subgroup; its "
        "entropy pattern (the attributes whose values are concentrated in the cluster, with their most frequent "
        "value) defines an entropy-based subgroup: every row of the data matching the pattern. Each subgroup "
        "is compared with the rest of the rows.",
    )
    if getattr(rep, "cut_is_unique", None) is False:
        s.text(
            f"The cut into {n_clusters} clusters falls inside a tie of merge distances ({rep.cut_distance:.6g}): "
            "the single-linkage tree is not unique there and another exact algorithm can give other, equally "
            "valid clusters.",
            kind="note",
        )
    s.text(SIGN_CONVENTION, kind="note")
    if plotting is not None:
        s.figure(plotting.plot_summary_radar(rep),
                 caption="Summary: mean absolute fairness values and mean accuracy, per kind of subgroup "
                         "(cluster-based in red, entropy-based in blue).")
    s.table(summary, "Summary per kind of subgroup (means of absolute values; accuracy error signed).")
    out.append(s)

    s = Section("Subgroup sizes")
    if plotting is not None:
        s.figure(plotting.plot_subgroup_sizes(rep), caption="Number of rows in every subgroup.")
    sizes = metrics["size"].unstack(level=0) if "size" in metrics else None
    if sizes is not None:
        sizes.columns.name = None
        s.details("Rows per subgroup").table(sizes, "Rows per subgroup id (cluster-based and entropy-based).")
    out.append(s)

    s = Section("Subgroup patterns")
    pats = rep.patterns(all_columns=False) if _accepts_all_columns(rep) else rep.patterns()
    s.text("One row per cluster: the value of every dominant attribute of its entropy pattern (– = the attribute "
           "is not part of the pattern). Expand a subgroup to see its metrics.")
    table = pats.copy()
    if info is not None:
        table.insert(0, "size", info["size"])
    s.table(table, "Entropy patterns of the clusters.")
    if info is not None:
        ordered = info.sort_values("size", ascending=False, na_position="last").index[:max_subgroups]
        labels = info["pattern"]
    else:
        ordered = pats.index[:max_subgroups]
        labels = pd.Series({i: "" for i in pats.index})
    for sid in ordered:
        rows = metrics.xs(sid, level=1, drop_level=False) if sid in metrics.index.get_level_values(1) else None
        size = info.loc[sid, "size"] if info is not None else None
        head = f"Subgroup {sid}: {labels.loc[sid] or '(empty pattern)'}"
        if size is not None and not pd.isna(size):
            head += f" ({int(size):,} rows)"
        d = s.details(head)
        if rows is not None:
            d.table(rows, "Metrics of the cluster and of its entropy pattern (rest minus subgroup).")
        if info is not None and bool(info.loc[sid, "is_empty"]):
            d.text("The cluster has no dominant attribute: its entropy pattern defines no subgroup.")
        elif info is not None and bool(info.loc[sid, "is_duplicate"]):
            d.text(f"The pattern repeats the pattern of cluster {info.loc[sid, 'duplicate_of']}.")
    if len(pats) > max_subgroups:
        s.text(f"{len(pats) - max_subgroups} smaller subgroups are not expanded here.", kind="note")
    out.append(s)

    s = Section(f"Top-{n} rankings")
    s.text("For each fairness metric: the subgroups most disadvantaged (largest positive values) and most "
           "favoured (most negative values), among the entropy-based subgroups.")
    for metric in ("statistical_parity", "equal_opportunity", "equalized_odds", "accuracy_error"):
        if metric not in metrics.columns:
            continue
        name = _METRIC_NAMES[metric]
        if plotting is not None and metric == "statistical_parity" and hasattr(plotting, "plot_ranking"):
            s.figure(plotting.plot_ranking(rep, metric, n=n, ascending=False),
                     caption=f"{name}: the {n} most disadvantaged entropy-based subgroups.")
        s.table(rep.ranking(metric, kind="entropy", n=n, ascending=False),
                f"{name}: most disadvantaged subgroups", index=True)
        with_details = s.details(f"{name}: most favoured subgroups")
        with_details.table(rep.ranking(metric, kind="entropy", n=n, ascending=True))
    s.details(f"Cluster-based rankings by statistical parity (top {n})").table(
        rep.ranking("statistical_parity", kind="cluster", n=n, ascending=False))
    out.append(s)
    return out


def _accepts_all_columns(rep: Any) -> bool:
    import inspect

    try:
        return "all_columns" in inspect.signature(rep.patterns).parameters
    except (TypeError, ValueError):
        return False


def _as_models(metrics: Any) -> dict[str, Any]:
    models = dict(metrics) if isinstance(metrics, Mapping) else {"model": metrics}
    if not models:
        raise ValueError("metrics must hold at least one OpinionExclusionMetric")
    for name, m in models.items():
        if not all(hasattr(m, a) for a in ("unfairness", "performance", "group_performance",
                                           "disagreement_rates")):
            raise TypeError(f"metrics[{name!r}] must be an OpinionExclusionMetric, got {type(m).__name__}")
    return {str(k): v for k, v in models.items()}


def opinion_summary_table(metrics: Any) -> pd.DataFrame:
    """Unfairness and performance of every model (the paper's Table 2 layout).

    Args:
        metrics: an OpinionExclusionMetric or a dict model name -> OpinionExclusionMetric.

    Returns:
        pandas.DataFrame: index ``model``; columns ``unfairness``, ``performance`` and, when available,
        ``worst_group_performance`` and ``performance_gap``.
    """
    models = _as_models(metrics)
    rows = {}
    for name, m in models.items():
        row = {"unfairness": m.unfairness(), "performance": m.performance()}
        if hasattr(m, "worst_group_performance"):
            row["worst_group_performance"] = m.worst_group_performance()
        if hasattr(m, "performance_gap"):
            row["performance_gap"] = m.performance_gap()
        rows[name] = row
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "model"
    return out


def opinion_sections(metrics: Any, *, figures: bool = True) -> list[Section]:
    """An opinion-exclusion audit of one or several models, as report sections.

    Args:
        metrics: an :class:`~aif360_subjective.metrics.OpinionExclusionMetric` or a dict model name -> metric
            (all with the same grouping, e.g. Models 1-3 of the paper).
        figures: include the matplotlib figures (Figure 3 heatmap, ADR distribution).

    Returns:
        list of Section: unfairness per model, group tables, ADR distribution, grouping details.

    Raises:
        TypeError: a value is not an OpinionExclusionMetric.
        ValueError: no metric given.
    """
    models = _as_models(metrics)
    first = next(iter(models.values()))
    perf = first.performance_name() if hasattr(first, "performance_name") else "performance"
    out: list[Section] = []

    s = Section("Opinion-exclusion unfairness")
    s.text(
        "Annotators are grouped by their average disagreement rate (ADR) with the majority vote of their items. "
        f"For every annotator the model's {perf} on that annotator's own labels is computed and averaged within "
        "each group. Unfairness is the standard deviation of the groups' values (0 = every group of opinions "
        "is served equally well); performance is their mean.",
    )
    s.table(opinion_summary_table(models), "Unfairness and performance per model (lower unfairness is fairer).")
    if figures:
        from ..plotting import plot_group_performance

        s.figure(plot_group_performance(models, kind="heatmap"),
                 caption=f"{perf} of every model on every group of annotators (the paper's Figure 3).")
    out.append(s)

    s = Section("Groups of annotators")
    for i, (name, m) in enumerate(models.items()):
        block = s if i == 0 else s.details(f"Group table of {name}")
        block.table(m.group_performance(), f"Groups for {name}: annotators, annotations, mean {perf} and its "
                                           "spread within the group.")
    out.append(s)

    s = Section("Disagreement with the majority (ADR)")
    adr = first.disagreement_rates()
    s.text(f"{int(adr.notna().sum()):,} annotators; median ADR {adr.median():.3f}, "
           f"{float((adr > 0.5).mean()):.1%} disagree with the majority on more than half of their items.")
    if figures:
        s.figure(_adr_histogram(adr), caption="Distribution of the annotators' average disagreement rate.")
    s.details("ADR of every annotator (highest first)").table(
        adr.sort_values(ascending=False).rename("adr").to_frame(), max_rows=500)
    out.append(s)

    if hasattr(first, "grouping_report"):
        s = Section("Grouping details")
        rep = first.grouping_report()
        s.text(rep.summary() if hasattr(rep, "summary") else str(rep))
        if dataclasses.is_dataclass(rep):
            fields = {f.name: getattr(rep, f.name) for f in dataclasses.fields(rep)}
            shown = {k: (v if isinstance(v, (str, int, float)) else (repr(v) if v else "–")) for k, v in fields.items()}
            s.details("All grouping figures").table(
                pd.Series(shown, name="value", dtype=object).rename_axis("field").to_frame())
        out.append(s)
    return out


def _adr_histogram(adr: pd.Series):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.2))
    values = adr.dropna().to_numpy(dtype=float)
    ax.hist(values, bins=np.linspace(0, 1, 21), color="tab:blue", edgecolor="white")
    ax.set_xlabel("average disagreement rate with the majority")
    ax.set_ylabel("annotators")
    ax.set_xlim(0, 1)
    return fig


def crowdtruth_sections(result: Any, *, n: int = 20, figures: bool = True,
                        annotator_info: pd.DataFrame | None = None) -> list[Section]:
    """CrowdTruth annotator quality (and a filter's removals) as report sections.

    Args:
        result: a fitted :class:`~aif360_subjective.algorithms.preprocessing.CrowdTruthFilter` (its
            ``scores_`` and ``removed_annotators_``) or a
            :class:`~aif360_subjective.quality.CrowdTruthResult`.
        n: rows of the lowest-quality tables.
        figures: include the WQS histogram.
        annotator_info: optional annotator table (indexed by id) joined to the removed annotators
            (e.g. demographics, or a known ``kind`` on generated data).

    Returns:
        list of Section: annotator quality, and removed annotators when ``result`` is a filter.

    Raises:
        TypeError: ``result`` is neither.
    """
    scores = getattr(result, "scores_", result)
    if not (hasattr(scores, "workers") and hasattr(scores, "units")):
        raise TypeError(f"expected a fitted CrowdTruthFilter or a CrowdTruthResult, got {type(result).__name__}")
    removed = getattr(result, "removed_annotators_", None)
    workers = scores.workers
    out: list[Section] = []

    s = Section("Annotator quality (CrowdTruth)")
    s.text(
        "CrowdTruth 2.0 scores every annotator (worker quality score WQS = agreement with the other "
        "annotators of the same items x agreement with the items' overall label distribution, each weighted "
        "by item quality) and every item (unit quality score UQS). Low WQS marks annotators whose labels "
        "agree with nobody: spammers, but possibly also a consistent minority opinion.",
    )
    if figures:
        s.figure(_wqs_histogram(workers, removed), caption="Distribution of the worker quality scores "
                 "(removed annotators in red).")
    cols = [c for c in ("n_units", "wqs", "wwa", "wua") if c in workers.columns]
    s.table(workers[cols].sort_values("wqs").head(n), f"The {n} annotators with the lowest WQS.")
    ucols = [c for c in ("n_workers", "uqs") if c in scores.units.columns]
    s.details(f"The {n} items with the lowest UQS").table(scores.units[ucols].sort_values("uqs").head(n))
    if hasattr(scores, "annotations"):
        s.details("Annotation (label) quality scores").table(scores.annotations)
    out.append(s)

    if removed is not None:
        s = Section("Removed annotators")
        n_rem = len(removed)
        s.text(f"The filter removed {n_rem:,} of {len(workers):,} annotators.")
        table = removed
        if annotator_info is not None:
            table = removed.join(annotator_info, how="left", rsuffix="_info")
        if n_rem:
            s.table(table, "Removed annotators and why.", max_rows=500)
        kept = getattr(result, "protected_annotators_", None)
        if kept is not None and len(kept):
            s.details(f"Low-quality annotators kept as a consistent minority ({len(kept):,})").table(kept)
        out.append(s)
    return out


def _wqs_histogram(workers: pd.DataFrame, removed: pd.DataFrame | None):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.2))
    wqs = workers["wqs"].astype(float)
    bins = np.linspace(0, max(1.0, float(np.nanmax(wqs.to_numpy())) if len(wqs) else 1.0), 26)
    if removed is not None and len(removed):
        gone = wqs.index.isin(removed.index)
        ax.hist([wqs[~gone].dropna(), wqs[gone].dropna()], bins=bins, stacked=True,
                color=["tab:blue", "tab:red"], label=["kept", "removed"], edgecolor="white")
        ax.legend()
    else:
        ax.hist(wqs.dropna(), bins=bins, color="tab:blue", edgecolor="white")
    ax.set_xlabel("worker quality score (WQS)")
    ax.set_ylabel("annotators")
    return fig


