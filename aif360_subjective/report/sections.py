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

__all__ = [
    "crowdtruth_sections",
    "lopsided_alternatives",
    "opinion_sections",
    "opinion_summary_table",
    "share_text",
    "significance_mark",
    "subgroup_interval_table",
    "subgroup_sections",
]

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
                      figures: bool = True, model: str | None = None, alpha: float | None = 0.05,
                      min_size: int = 1, ci: float | None = 0.95,
                      alternatives: pd.DataFrame | str | None = None) -> list[Section]:
    """The ASDF dashboard's views of a subgroup-discovery result, as report sections.

    Args:
        result: a :class:`~aif360_subjective.detectors.SubgroupReport` (from ``detect_subgroups``) or a
            :class:`~aif360_subjective.metrics.SubgroupDiscoveryMetric`.
        n: length of the top-n rankings.
        max_subgroups: at most this many expandable per-subgroup blocks (the largest subgroups first).
        figures: include the matplotlib figures (radar, sizes, rankings).
        model: the name of the model whose predictions were analysed (stated in the first section).
        alpha: the rankings list only subgroups significant at q < alpha (see
            :meth:`~aif360_subjective.detectors.SubgroupReport.ranking`); ``None`` = the seed's raw rankings.
            With non-uniform instance weights the raw rankings are shown, with a note.
        min_size: leave subgroups with fewer rows out of the rankings.
        ci: confidence level of the intervals in the rankings and in the per-subgroup tables, whose subgroups
            with no disparity significant at q < ``alpha`` are greyed; None = the seed's tables (no intervals).
        alternatives: when the clustering is lopsided (:attr:`SubgroupReport.lopsided`): the comparison of the
            other clusterers from :func:`lopsided_alternatives` (or
            :func:`~aif360_subjective.detectors.lopsided.alternative_clusterings`), shown with the non-lopsided
            one it suggests; a string says why it was not computed; None = the report only says how to get it.

    Returns:
        list of Section: summary, subgroup sizes, patterns, rankings.

    Raises:
        TypeError: ``result`` is not a subgroup-discovery result.
    """
    rep = _subgroup_report(result)
    rank_ci = 0.95 if ci is None else ci  # the rankings' intervals (shown only with alpha)
    inner = getattr(rep, "report", rep)  # a SubgroupDiscoveryMetric holds its SubgroupReport
    kinds = tuple(getattr(inner, "kinds", ("cluster", "entropy")))
    weighted = bool(getattr(inner, "weighted", False))
    lead: list[Section] = []
    if "pattern" in kinds and alpha is not None and not weighted:
        lead.append(discovery_section(inner, n=n, alpha=alpha, ci=rank_ci))
    if "cluster" not in kinds:
        return lead
    asdf = ["cluster", "entropy"]  # the seed's views below show its two kinds only
    metrics = rep.subgroup_metrics(ci=None)
    metrics = metrics[metrics.index.get_level_values(0).isin(asdf)]
    # intervals and q-values for the per-subgroup tables (weighted counts give none: raw tables then)
    inference = rep.subgroup_metrics(ci=ci) if ci is not None and not weighted else None
    if inference is not None:
        inference = inference[inference.index.get_level_values(0).isin(asdf)]
    summary = rep.summary()
    info = rep.pattern_info() if hasattr(rep, "pattern_info") else None
    plotting = _plots() if figures else None
    out: list[Section] = list(lead)

    s = Section("Subgroup fairness summary")
    n_clusters = len(metrics.loc["cluster"]) if "cluster" in metrics.index.get_level_values(0) else 0
    s.text(
        f"The rows were clustered into {n_clusters} clusters. Each cluster is a cluster-based subgroup; its "
        "entropy pattern (the attributes whose values are concentrated in the cluster, with their most frequent "
        "value) defines an entropy-based subgroup: every row of the data matching the pattern. Each subgroup "
        "is compared with the rest of the rows.",
    )
    if model is not None:
        s.text(f"Predictions analysed: {model}.")
    _clustering_blocks(s, inner, alternatives)
    s.text(SIGN_CONVENTION, kind="note")
    if plotting is not None:
        s.figure(plotting.plot_summary_radar(rep),
                 caption="Summary: mean absolute fairness values, signed mean accuracy error and mean accuracy, "
                         "per kind of subgroup (cluster-based: red circles, entropy-based: blue squares). Each "
                         "axis has its own scale, from 0 (or the lowest value, if negative) at the centre to the "
                         "larger of the two values at the rim (the range is under each axis name), so that accuracy "
                         "does not flatten the fairness axes; the values are in the table below.")
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
    pats = whole_numbers_as_int(rep.patterns(all_columns=False) if _accepts_all_columns(rep) else rep.patterns())
    pattern_text = pattern_texts(pats)
    s.text("One row per cluster: the value of every dominant attribute of its entropy pattern (– = the attribute "
           "is not part of the pattern). Expand a subgroup to see its metrics.")
    table = pats.copy()
    if info is not None:
        table.insert(0, "size", info["size"])
        table = whole_numbers_as_int(table)
    marks: dict[Any, str] = {}
    if inference is not None and alpha is not None:
        marks = {sid: significance_mark(inference, sid, alpha) for sid in pats.index}
        column = f"significant (q < {alpha:g})"
        table.insert(1 if info is not None else 0, column, [_sides(marks[sid]) for sid in pats.index])
        s.table(table, f"Entropy patterns of the clusters. {column}: on which side the cluster or its pattern "
                       f"differs from the rest on at least one fairness metric with Benjamini-Hochberg q < "
                       f"{alpha:g} (over all subgroups of the kind; the subgroup's block below names the metrics); "
                       "– = no significant disparity (the block is greyed).")
    else:
        s.table(table, "Entropy patterns of the clusters.")
    if info is not None:
        ordered = info.sort_values("size", ascending=False, na_position="last").index[:max_subgroups]
    else:
        ordered = pats.index[:max_subgroups]
    labels = pattern_text  # the pattern as the table shows it (integers without decimals)
    for sid in ordered:
        rows = metrics.xs(sid, level=1, drop_level=False) if sid in metrics.index.get_level_values(1) else None
        size = info.loc[sid, "size"] if info is not None else None
        head = f"Subgroup {sid}: {labels.get(sid) or '(empty pattern)'}"
        if size is not None and not pd.isna(size):
            head += f" ({_count(int(size), 'row')})"
        if sid in marks:
            head += (f" · significant (q < {alpha:g}): {marks[sid]}" if marks[sid]
                     else f" · no significant disparity (q < {alpha:g})")
        d = s.details(head, muted=sid in marks and not marks[sid])
        if inference is not None and rows is not None:
            d.table(subgroup_interval_table(inference, sid, ci, alpha),
                    f"Metrics of the cluster and of its entropy pattern (rest minus subgroup), with {ci:.0%} "
                    "intervals and Benjamini-Hochberg q-values"
                    + (f"; significant = q < {alpha:g} (for equalized odds the test asks that the true- and "
                       "false-positive rates both differ in the same direction, so its interval may exclude 0 "
                       "while q is large)" if alpha is not None else "") + ".")
        elif rows is not None:
            d.table(rows, "Metrics of the cluster and of its entropy pattern (rest minus subgroup).")
        if info is not None and bool(info.loc[sid, "is_empty"]):
            d.text("The cluster has no dominant attribute: its entropy pattern defines no subgroup.")
        elif info is not None and bool(info.loc[sid, "is_duplicate"]):
            d.text(f"The pattern repeats the pattern of cluster {info.loc[sid, 'duplicate_of']}.")
    if len(pats) > max_subgroups:
        rest = len(pats) - max_subgroups
        s.text(f"{_count(rest, 'smaller subgroup')} {'is' if rest == 1 else 'are'} not expanded here.", kind="note")
    out.append(s)

    s = Section(f"Top-{n} rankings")
    if weighted and alpha is not None:
        s.text("The analysis used non-uniform instance weights, whose weighted counts give no binomial "
               "intervals or tests: the rankings below are the raw ones (every subgroup by its value).",
               kind="note")
        alpha = None
    if alpha is None:
        s.text("For each fairness metric: the entropy-based subgroups most disadvantaged and most favoured, by "
               "their raw values (no significance filter). Disadvantaged means a larger statistical parity, "
               "equal opportunity or equalized odds, and a smaller accuracy error.")
    else:
        s.text(f"For each fairness metric: the entropy-based subgroups significantly disadvantaged (and "
               f"favoured) at q < {alpha:g} (Benjamini-Hochberg over all subgroups of the kind) whose "
               f"{rank_ci:.0%} interval lies entirely on that side of 0, ordered by the interval bound nearest 0. "
               "Disadvantaged means a larger statistical parity, equal opportunity or equalized odds, and a "
               "smaller accuracy error.")
    for metric in ("statistical_parity", "equal_opportunity", "equalized_odds", "accuracy_error"):
        if metric not in metrics.columns:
            continue
        name = _METRIC_NAMES[metric]
        worst = rep.ranking(metric, kind="entropy", n=n, direction="disadvantaged", alpha=alpha,
                            min_size=min_size, ci=rank_ci)
        if (plotting is not None and metric == "statistical_parity" and hasattr(plotting, "plot_ranking")
                and len(worst)):
            s.figure(plotting.plot_ranking(rep, metric, n=n, direction="disadvantaged", alpha=alpha,
                                           min_size=min_size),
                     caption=f"{name}: the {len(worst)} most disadvantaged entropy-based subgroups"
                             + ("" if alpha is None else f" (significant at q < {alpha:g}; bars: {ci:.0%} "
                                                         "intervals)") + ".")
        _ranking_table(s, patterns_as_in_table(worst, pattern_text), name, "disadvantaged")
        favoured = rep.ranking(metric, kind="entropy", n=n, direction="favoured", alpha=alpha, min_size=min_size,
                               ci=rank_ci)
        _ranking_table(s.details(f"{name}: most favoured subgroups"), patterns_as_in_table(favoured, pattern_text),
                       name, "favoured")
    _ranking_table(s.details(f"Cluster-based rankings by statistical parity (top {n})"),
                   rep.ranking("statistical_parity", kind="cluster", n=n, direction="disadvantaged", alpha=alpha,
                               min_size=min_size, ci=rank_ci), "Statistical parity", "disadvantaged")
    out.append(s)
    return out


def discovery_section(rep: Any, *, n: int = 5, alpha: float = 0.05, ci: float = 0.95) -> Section:
    """The comparison of the discovery methods (clusters, entropy patterns, mined patterns) as one section.

    For each method: the number of candidates, the number significant and the best subgroup with its
    interval, all under one family-wise error (:meth:`SubgroupReport.discovery_summary`), the sentence that
    follows from those numbers, then the findings (:meth:`SubgroupReport.findings`, first ``4 n``).

    Args:
        rep: a :class:`~aif360_subjective.detectors.SubgroupReport` (or a metric holding one in ``report``).
        n: the findings table shows at most ``4 n`` rows.
        alpha: family-wise error rate.
        ci: confidence level of the intervals.

    Returns:
        Section
    """
    rep = getattr(rep, "report", rep)
    summary = rep.discovery_summary(alpha, ci)
    s = Section("Discovery methods compared")
    s.text(summary.attrs["sentence"])
    shown = summary[["method", "candidates", "significant", "best", "metric", "direction", "value", "ci_low",
                     "ci_high", "p_adjusted"]].set_index("method")
    s.table(q_columns_as_text(shown),
            f"Per discovery method: candidate subgroups, subgroups with at least one disparity significant at "
            f"family-wise error {alpha:g} (permutation max-T over every candidate of every method, every metric "
            f"and both directions: {summary.attrs['n_hypotheses']:,} hypotheses), and the best one (smallest "
            f"adjusted p) with its {ci:.0%} interval.")
    found = rep.findings(alpha, ci)
    if len(found):
        top = found.head(4 * n).drop(columns=["kind", "id"])
        s.details(f"Findings ({len(found)})").table(
            q_columns_as_text(top),
            f"Significant disparities at family-wise error {alpha:g}, smallest adjusted p first (a sub-pattern "
            f"whose rate does not differ from the rest of a listed larger subgroup is left out: "
            f"{found.attrs['n_redundant']}).", index=False)
    return s


_SIGNIFICANCE_METRICS = ("statistical_parity", "equal_opportunity", "equalized_odds", "accuracy_error")
_KINDS = {"cluster": "cluster", "entropy": "pattern"}


def significance_mark(inference: pd.DataFrame, sid: Any, alpha: float) -> str:
    """The metrics on which subgroup ``sid`` (its cluster or its pattern) differs significantly from the rest.

    Args:
        inference: ``subgroup_metrics(ci=...)`` (with ``<metric>_q`` columns).
        sid: the subgroup id.
        alpha: significance level of the Benjamini-Hochberg q-values.

    Returns:
        str: the metrics grouped by side, e.g. ``"disadvantaged: statistical parity, accuracy error"`` (``(cluster
        only)``/``(pattern only)`` when only one kind is significant); empty when no metric is significant
        (accuracy is left out: its test is accuracy error's).
    """
    from ..detectors.directions import disadvantaged_is_larger

    by_side: dict[str, list[str]] = {}
    for metric in _SIGNIFICANCE_METRICS:
        if metric + "_q" not in inference.columns:
            continue
        sides = {}
        for kind, noun in _KINDS.items():
            if (kind, sid) not in inference.index:
                continue
            row = inference.loc[(kind, sid)]
            q, value = _num(row[metric + "_q"]), _num(row[metric])
            if np.isfinite(q) and q < alpha and np.isfinite(value) and value != 0:
                disadvantaged = (value > 0) == disadvantaged_is_larger(metric)
                sides[noun] = "disadvantaged" if disadvantaged else "favoured"
        name = _METRIC_NAMES[metric].lower()
        if len(set(sides.values())) == 1 and len(sides) == len(_KINDS):
            by_side.setdefault(next(iter(sides.values())), []).append(name)
        else:
            for noun, side in sides.items():
                by_side.setdefault(side, []).append(f"{name} ({noun} only)" if len(sides) == 1 else f"{name} "
                                                    f"({noun})")
    return "; ".join(f"{side}: {', '.join(names)}" for side, names in by_side.items())


def _sides(mark: str) -> str:
    """The sides named by a :func:`significance_mark` (``disadvantaged``, ``favoured``, both), or ``–``."""
    sides = [side for side in ("disadvantaged", "favoured") if f"{side}: " in mark]
    return " & ".join(sides) or "–"


def _num(x: Any) -> float:
    """A cell as a float, NaN for pandas' NA/None."""
    return np.nan if pd.isna(x) else float(x)


def subgroup_interval_table(inference: pd.DataFrame, sid: Any, ci: float, alpha: float | None) -> pd.DataFrame:
    """One subgroup's metrics with their intervals and q-values: a row per metric, columns per kind.

    Args:
        inference: ``subgroup_metrics(ci=ci)``.
        sid: the subgroup id.
        ci: the confidence level (for the column name).
        alpha: adds a ``significant (q < alpha)`` column (yes/no; – when the metric is undefined); None = none.

    Returns:
        pandas.DataFrame: index ``metric``; columns (``cluster``|``pattern``, value / interval / q / significant).
    """
    blocks = {}
    for kind, noun in _KINDS.items():
        if (kind, sid) not in inference.index:
            continue
        row = inference.loc[(kind, sid)]
        cols: dict[str, list] = {"value": [], f"{ci:.0%} interval": [], "q": []}
        if alpha is not None:
            cols[f"significant (q < {alpha:g})"] = []
        for metric in _METRIC_NAMES:
            value, q = _num(row[metric]), _num(row.get(metric + "_q", np.nan))
            low, high = _num(row.get(metric + "_ci_low", np.nan)), _num(row.get(metric + "_ci_high", np.nan))
            cols["value"].append(value)
            defined = np.isfinite(low) and np.isfinite(high)  # no-break space: the interval never wraps
            cols[f"{ci:.0%} interval"].append(f"[{low:+.3f},\u00a0{high:+.3f}]" if defined else "–")
            cols["q"].append(format_q(q))
            if alpha is not None:
                cols[f"significant (q < {alpha:g})"].append("–" if not np.isfinite(q) else
                                                            ("yes" if q < alpha else "no"))
        blocks[noun] = pd.DataFrame(cols, index=pd.Index(list(_METRIC_NAMES.values()), name="metric"))
    return pd.concat(blocks, axis=1)


#: Largest table on which :func:`lopsided_alternatives` runs the other clusterers (a few seconds each).
ALTERNATIVES_MAX_ROWS = 50_000


def lopsided_alternatives(result: Any, X: Any, y_true: Any, y_pred: Any, pos_label: Any = 1, *,
                          max_rows: int = ALTERNATIVES_MAX_ROWS, random_state: Any = 0) -> pd.DataFrame | str | None:
    """The other clusterers compared at the same number of clusters, when the clustering used is lopsided.

    Args:
        result: the SubgroupReport (or SubgroupDiscoveryMetric) of ``X``.
        X, y_true, y_pred, pos_label: the data it was computed on (as given to ``detect_subgroups``).
        max_rows: on larger tables nothing is computed (each clusterer costs seconds to minutes there).
        random_state: seed of the clusterers.

    Returns:
        pandas.DataFrame (:func:`~aif360_subjective.detectors.lopsided.alternative_clusterings`, its
        ``attrs["suggestion"]`` names a non-lopsided one), a string saying why nothing was computed, or None when
        the clustering is not lopsided.
    """
    inner = getattr(result, "report", result)
    lop = getattr(inner, "lopsided", None)
    if not lop or not lop.get("lopsided"):
        return None
    if len(X) > max_rows:
        return (f"The other clusterers were not compared: the table has {len(X):,} rows, more than the "
                f"{max_rows:,} the report compares them on (each takes seconds to minutes there); run "
                "alternative_clusterings(X, y_true, y_pred, n_clusters) yourself.")
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    from ..detectors.lopsided import alternative_clusterings

    with warnings.catch_warnings():
        # birch finding fewer subclusters than asked shows in the table's n_found column, not as a warning
        warnings.simplefilter("ignore", ConvergenceWarning)
        return alternative_clusterings(X, y_true, y_pred, inner.n_clusters, pos_label, current=inner.clustering,
                                       categorical_features=inner.categorical_features or None,
                                       random_state=random_state)


def share_text(share: float) -> str:
    """A share as a percentage with one decimal, more where one decimal would round a part up to 100 % (99.97 %
    of the rows is not all of them)."""
    text = f"{share:.1%}"
    digits = 1
    while share < 1 and text.startswith("100.") and digits < 6:
        digits += 1
        text = f"{share:.{digits}%}"
    return text


def _clustering_blocks(s: Any, inner: Any, alternatives: pd.DataFrame | str | None) -> None:
    """How balanced the clustering is, said plainly; when lopsided, the other clusterers compared."""
    lop = getattr(inner, "lopsided", None)
    if lop:
        k = lop["n_clusters"]
        tiny = lop["tiny_clusters"]
        s.text(f"Clustering: {getattr(inner, 'clustering', 'the clusterer')} into {_count(k, 'cluster')}; the "
               f"largest holds {share_text(lop['largest_share'])} of the rows; {tiny} of the {k} clusters hold at "
               "most 1% of the rows each.")
        if lop["lopsided"]:
            s.text(f"This clustering is lopsided: {lop['reason']}. Its subgroups are then nearly all rows or a "
                   "handful of rows, and the fairness of such subgroups says little about the data (a lopsided "
                   "clustering has a cluster of at least 90% of the rows, or more than half of its clusters at "
                   "1% of the rows or less).", kind="warning")
            _alternatives_blocks(s, alternatives, k)
    unique = getattr(inner, "cut_is_unique", None)  # set by clusterers that can detect tied merge distances
    if unique is not None:
        s.text("The cut of the merge tree into these clusters is unique (no tied merge distances at the cut)."
               if bool(unique) else
               "The cut of the merge tree into these clusters is not unique: merge distances are tied at the "
               f"cut (distance {getattr(inner, 'cut_distance', float('nan')):.6g}), so another exact algorithm "
               "can give another, equally valid clustering into as many clusters, whose subgroups may differ.",
               kind="text" if bool(unique) else "warning")
    selection = getattr(inner, "model_selection", None)
    if isinstance(selection, pd.DataFrame) and "lopsided" in selection.columns and len(selection):
        n_lop = int(selection["lopsided"].astype(bool).sum())
        s.details(f"Candidate clusterings compared ({len(selection)}; {n_lop} lopsided)").table(
            selection, "The candidates of the automatic choice; largest_share = share of rows in the largest "
                       "cluster, tiny_clusters = clusters with at most 1% of the rows, lopsided as defined above.")


def _alternatives_blocks(s: Any, alternatives: pd.DataFrame | str | None, k: int) -> None:
    if alternatives is None:
        s.text("Compare other clusterers at the same number of clusters with alternative_clusterings(X, y_true, "
               f"y_pred, n_clusters={k}) (aif360_subjective.detectors.lopsided), or pass its result to this report.",
               kind="note")
        return
    if isinstance(alternatives, str):
        s.text(alternatives, kind="note")
        return
    suggestion = alternatives.attrs.get("suggestion")
    if suggestion is None:
        s.text(f"Every other clusterer compared at {k} clusters is lopsided too: this data has no balanced "
               "clustering at this number of clusters among those tried.", kind="note")
    else:
        name, k_alt = suggestion
        row = alternatives.loc[[suggestion]].iloc[0] if suggestion in alternatives.index else None
        detail = ""
        if row is not None:
            detail = (f": its largest cluster holds {share_text(float(row['largest_share']))} of the rows and "
                      f"{int(row['tiny_clusters'])} of its clusters hold at most 1%")
            if "fairness_separation" in row and np.isfinite(float(row["fairness_separation"])):
                detail += f"; fairness separation {float(row['fairness_separation']):.3f}"
        s.text(f"Suggested instead: {name} at {k_alt if k_alt is not None else k} clusters, the not-lopsided "
               f"clusterer that best separates the favourable-prediction rates{detail}.", kind="note")
    s.table(alternatives, "The other clusterers at the same number of clusters (fairness-aware comparison): "
                          "fairness_separation = how far the clusters' favourable-prediction rates spread; "
                          "largest_share, tiny_clusters and lopsided as above.")


def format_q(q: float) -> str:
    """A q-value (or p-value) as read in tables: ``< 0.001`` rather than ``0.000``; ``–`` when undefined."""
    return "–" if not np.isfinite(q) else ("< 0.001" if q < 0.001 else f"{q:.3f}")


def q_columns_as_text(frame: pd.DataFrame) -> pd.DataFrame:
    """The ``_q`` and ``_p`` columns of a ranking or metrics table formatted by :func:`format_q`."""
    out = frame.copy()
    for c in out.columns:
        if str(c).endswith(("_q", "_p", "_p_adjusted")) or str(c) == "p_adjusted":
            out[c] = [format_q(float(v)) for v in out[c].to_numpy(dtype=float, na_value=np.nan)]
    return out


def _ranking_table(block: Any, rk: pd.DataFrame, name: str, direction: str) -> None:
    """A ranking as a table, or the sentence saying that no subgroup is significant (with the counts)."""
    a = rk.attrs
    if len(rk) or a.get("alpha") is None:
        block.table(q_columns_as_text(rk), f"{name}: most {direction} subgroups", index=True)
        return
    left = [f"{a['n_not_significant']} not significant"]
    left += [f"{a[k]} {label}" for k, label in (("n_undefined", "with undefined rates"),
                                                 ("n_too_small", f"below {a['min_size']} rows")) if a.get(k)]
    test = "q" if a.get("control") == "fdr" else "adjusted p"
    block.text(f"{name}: no subgroup is significantly {direction} at {test} < {a['alpha']:g} "
               f"({', '.join(left)}).")


def whole_numbers_as_int(frame: pd.DataFrame) -> pd.DataFrame:
    """Float columns holding only whole numbers (integer attributes with NaN = "not in the pattern") as
    nullable integers, so that tables and captions show ``96`` and ``-1``, not ``96.000`` or ``-1.0``."""
    out = frame.copy()
    for c in out.columns:
        col = out[c]
        if pd.api.types.is_float_dtype(col):
            vals = col.dropna().to_numpy(dtype=float)
            if len(vals) and np.isfinite(vals).all() and (vals == np.round(vals)).all():
                out[c] = col.astype("Int64")
    return out


def pattern_texts(patterns: pd.DataFrame) -> pd.Series:
    """``attr=value AND ...`` per subgroup id, values formatted as in the pattern table."""
    from .model import format_value

    # pd.isna per cell: with mixed nullable dtypes, where(notna, None) hands back NaN, shown as "attr=–"
    return pd.Series(
        {sid: " AND ".join(f"{c}={format_value(v)}" for c, v in row.items() if not pd.isna(v))
         for sid, row in patterns.astype(object).iterrows()}, dtype=object)


def patterns_as_in_table(ranking: pd.DataFrame, pattern_text: pd.Series) -> pd.DataFrame:
    """A ranking whose ``subgroup`` column shows the patterns in the table's form (see :func:`pattern_texts`)."""
    if "subgroup" not in ranking.columns or not len(ranking):
        return ranking
    texts = pattern_text.reindex(ranking.index)
    return ranking.assign(subgroup=texts.where(texts.notna(), ranking["subgroup"]))


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


def opinion_summary_table(metrics: Any, ci: float | None = None, n_boot: int = 1000,
                          random_state: Any = 0) -> pd.DataFrame:
    """Unfairness and performance of every model (the paper's Table 2 layout), with their intervals on request.

    Args:
        metrics: an OpinionExclusionMetric or a dict model name -> OpinionExclusionMetric.
        ci: confidence level of the bootstrap intervals (``unfairness_ci``/``performance_ci``); None = the
            paper's raw figures only.
        n_boot: bootstrap replicates.
        random_state: seed of the bootstrap (fixed by default, so that a table is the same on every run).

    Returns:
        pandas.DataFrame: index ``model``; columns ``unfairness``, ``performance`` (with ``ci``: followed by
        ``unfairness_ci_low``, ``unfairness_ci_high``, ``performance_ci_low``, ``performance_ci_high``) and, when
        available, ``worst_group_performance`` and ``performance_gap``.

    Raises:
        ValueError: bad ``ci``/``n_boot``, or ``ci`` with a callable performance measure (no bootstrap).
    """
    models = _as_models(metrics)
    rows = {}
    for name, m in models.items():
        row = {"unfairness": m.unfairness(), "performance": m.performance()}
        if ci is not None:
            u = m.unfairness_ci(ci=ci, n_boot=n_boot, random_state=random_state)
            p = m.performance_ci(ci=ci, n_boot=n_boot, random_state=random_state)
            row.update(unfairness_ci_low=u[0], unfairness_ci_high=u[1], performance_ci_low=p[0],
                       performance_ci_high=p[1])
        if hasattr(m, "worst_group_performance"):
            row["worst_group_performance"] = m.worst_group_performance()
        if hasattr(m, "performance_gap"):
            row["performance_gap"] = m.performance_gap()
        rows[name] = row
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "model"
    return out


def interval_text(estimate: float, interval: Any, digits: int = 3) -> str:
    """``0.087 [0.071, 0.104]``: a figure with its interval (``[–]`` when the interval is undefined)."""
    low, high = float(interval[0]), float(interval[1])
    bounds = f"[{low:.{digits}f}, {high:.{digits}f}]" if np.isfinite(low) and np.isfinite(high) else "[–]"
    return f"{estimate:.{digits}f} {bounds}"


def _with_interval_columns(table: pd.DataFrame, names: tuple[str, ...], ci: float) -> pd.DataFrame:
    """``<name>_ci_low``/``_ci_high`` columns as one ``<name> 95% interval`` text column after ``<name>``."""
    out = table.copy()
    for name in names:
        low, high = out.pop(f"{name}_ci_low"), out.pop(f"{name}_ci_high")
        text = [f"[{a:.3f}, {b:.3f}]" if np.isfinite(a) and np.isfinite(b) else "–" for a, b in zip(low, high,
                                                                                                    strict=True)]
        out.insert(out.columns.get_loc(name) + 1, f"{name} {ci:.0%} interval", text)
    return out


def interval_meaning(ci: float, n_boot: int, random_state: Any) -> str:
    """The sentence saying what an opinion-exclusion interval is (shown next to the intervals)."""
    return (f"Intervals in brackets are {ci:.0%} bootstrap confidence intervals ({n_boot:,} replicates, seed "
            f"{random_state}): the annotators of each group are resampled with replacement within the group (groups "
            "and ADR bin edges held fixed), then each drawn annotator's annotations are redrawn; the interval is the "
            "bias-corrected percentile interval of the replicates. It shows how much a figure could move with other "
            "annotators of the same groups and other annotations by them; it says nothing about annotators of kinds "
            "the data does not hold. A group of one or two annotators gives a wide interval, not a certain one.")


def thin_group_line(name: str, m: Any) -> str | None:
    """One sentence naming a model's groups with fewer than ``warn_group_size`` annotators and their share of the
    unfairness, or None when there is none (or the metric has no ``thin_groups``)."""
    if not hasattr(m, "thin_groups"):
        return None
    thin = m.thin_groups()
    if not len(thin):
        return None
    from ..opinion.uncertainty import thin_groups_text

    text = thin_groups_text(thin, len(m.group_performance()), m.options.warn_group_size)
    return (f"{name}: {text}"
            + ". Their values rest on few people; the share is the group's part of the variance across groups.")


def _intervals_or_reason(models: dict[str, Any], ci: float | None, n_boot: int) -> tuple[float | None, str | None]:
    """``ci`` if every model can be bootstrapped, else (None, why not)."""
    if ci is None:
        return None, None
    from ..opinion.options import check_interval_options

    for name, m in models.items():
        if not hasattr(m, "unfairness_ci"):
            return None, f"{name} has no bootstrap intervals (not an OpinionExclusionMetric of this package)."
        performance = getattr(getattr(m, "options", None), "performance", ("accuracy",))
        if any(not isinstance(p, str) for p in performance):
            # a callable performance measure cannot be redrawn from confusion counts
            return None, (f"No intervals: the performance measure of {name} is a callable, which the bootstrap "
                          "cannot redraw from the annotators' counts; the figures are the raw ones.")
        check_interval_options(ci, n_boot, "both", performance)  # a bad ci or n_boot is the caller's error
    return ci, None


def opinion_sections(metrics: Any, *, figures: bool = True, ci: float | None = 0.95, n_boot: int = 1000,
                     random_state: Any = 0) -> list[Section]:
    """An opinion-exclusion audit of one or several models, as report sections.

    Args:
        metrics: an :class:`~aif360_subjective.metrics.OpinionExclusionMetric` or a dict model name -> metric
            (all with the same grouping, e.g. Models 1-3 of the paper).
        figures: include the matplotlib figures (Figure 3 heatmap, ADR distribution).
        ci: confidence level of the bootstrap intervals shown next to the unfairness, the performance and every
            group's value; None = the paper's raw figures only. A performance measure given as a callable has no
            intervals: the report then says so and shows the raw figures.
        n_boot: bootstrap replicates.
        random_state: seed of the bootstrap (fixed by default: the same report on every run).

    Returns:
        list of Section: unfairness per model, group tables, ADR distribution, grouping details.

    Raises:
        TypeError: a value is not an OpinionExclusionMetric.
        ValueError: no metric given, or a bad ``ci``/``n_boot``.
    """
    models = _as_models(metrics)
    first = next(iter(models.values()))
    perf = first.performance_name() if hasattr(first, "performance_name") else "performance"
    ci, no_ci = _intervals_or_reason(models, ci, n_boot)
    out: list[Section] = []

    s = Section("Opinion-exclusion unfairness")
    s.text(
        "Annotators are grouped by their average disagreement rate (ADR) with the majority vote of their items. "
        f"For every annotator the model's {perf} on that annotator's own labels is computed and averaged within "
        "each group. Unfairness is the standard deviation of the groups' values (0 = every group of opinions "
        "is served equally well); performance is their mean.",
    )
    if ci is not None:
        for name, m in models.items():
            u = m.unfairness_ci(ci=ci, n_boot=n_boot, random_state=random_state)
            p = m.performance_ci(ci=ci, n_boot=n_boot, random_state=random_state)
            line = f"{name}: unfairness {interval_text(m.unfairness(), u)}, {perf} {interval_text(m.performance(), p)}."
            widened = [w for w, iv in (("unfairness", u), (perf, p)) if getattr(iv, "extended", False)]
            if widened:
                line += (f" The {' and '.join(widened)} interval{'s were' if len(widened) > 1 else ' was'} widened "
                         "to contain the estimate: almost every replicate fell on one side of it, a sign of very "
                         "small groups.")
            s.text(line)
        s.text(interval_meaning(ci, n_boot, random_state), kind="note")
    elif no_ci is not None:
        s.text(no_ci, kind="note")
    for name, m in models.items():
        line = thin_group_line(name, m)
        if line is not None:
            s.text(line, kind="warning")
    caption = "Unfairness and performance per model (lower unfairness is fairer)"
    summary = opinion_summary_table(models, ci=ci, n_boot=n_boot, random_state=random_state)
    if ci is not None:
        caption += f", each followed by its {ci:.0%} interval"
        summary = _with_interval_columns(summary, ("unfairness", "performance"), ci)
    s.table(summary, caption + ".")
    if figures:
        from ..plotting import plot_group_performance

        by_adr = isinstance(first.grouping, str) and first.grouping == "adr"
        caption = (f"{perf[:1].upper() + perf[1:]} of every model on every group of annotators"
                   + (" (the paper's Figure 3)" if by_adr else ""))
        if ci is not None:
            caption += (f"; under each value its {ci:.0%} interval, under each group its number of annotators, "
                        "next to each model its unfairness and performance with their intervals")
        s.figure(plot_group_performance(models, kind="heatmap", ci=ci, n_boot=n_boot, random_state=random_state),
                 caption=caption + ".")
    out.append(s)

    s = Section("Groups of annotators")
    for i, (name, m) in enumerate(models.items()):
        block = s if i == 0 else s.details(f"Group table of {name}")
        table = (m.group_performance() if ci is None
                 else m.group_performance(ci=ci, n_boot=n_boot, random_state=random_state))
        caption = f"Groups for {name}: annotators, annotations, mean {perf} and its spread within the group"
        if ci is not None:
            caption += f"; ci_low and ci_high bound the {ci:.0%} interval of the group's {perf}"
        block.table(table, caption + ".")
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
    s.text("Columns: n_units = items the annotator labelled; wqs = worker quality score; wwa = worker-worker "
           "agreement (with the other annotators of the same items); wua = worker-unit agreement (with the "
           "items' overall label distribution).", kind="note")
    lowest = workers[cols].sort_values("wqs").head(n)
    threshold = getattr(result, "threshold_", None)
    status = _annotator_status(result, lowest.index)
    if status is not None:
        lowest = lowest.assign(status=status)
    caption = f"The {_count(min(n, len(workers)), 'annotator')} with the lowest WQS"
    if threshold is not None:
        caption += f" (removal threshold WQS < {threshold:.3f}; status says what the filter did and why)"
    s.table(lowest, caption + ".")
    ucols = [c for c in ("n_workers", "uqs") if c in scores.units.columns]
    s.details(f"The {n} items with the lowest UQS").table(scores.units[ucols].sort_values("uqs").head(n))
    if hasattr(scores, "annotations"):
        s.details("Annotation (label) quality scores").table(scores.annotations)
    out.append(s)

    if removed is not None:
        s = Section("Removed annotators")
        n_rem = len(removed)
        s.text(f"The filter removed {n_rem:,} of {_count(len(workers), 'annotator')}.")
        table = removed
        if annotator_info is not None:
            table = removed.join(annotator_info, how="left", rsuffix="_info")
        if n_rem:
            s.table(table, "Removed annotators and why.", max_rows=500)
        table_all = getattr(result, "annotators_", None)
        if table_all is not None and "protected" in table_all:
            kept = table_all[table_all["protected"]]
            if len(kept):
                s.text(f"{_count(len(kept), 'annotator')} below the threshold {_were(len(kept))} kept: their labels "
                       "are consistent (label-consistency z at least the protection level), the mark of a "
                       "minority opinion rather than of random labelling.")
                s.details(f"Low-WQS annotators kept as a consistent minority ({len(kept):,})").table(
                    kept[["wqs", "consistency_z", "n_annotations"]])
        out.append(s)
    return out


def _annotator_status(result: Any, ids) -> list[str] | None:
    """What a fitted filter did with each annotator: removed, kept as protected (with the reason), kept."""
    table = getattr(result, "annotators_", None)
    if table is None or not {"removed", "protected"} <= set(table.columns):
        return None
    protect_z = getattr(result, "protect_z", None)
    out = []
    for i in ids:
        row = table.loc[i] if i in table.index else None
        if row is None:
            out.append("–")
        elif bool(row["removed"]):
            out.append("removed")
        elif bool(row["protected"]):
            z = row.get("consistency_z", np.nan)
            level = f" ≥ {protect_z:g}" if protect_z is not None else ""
            out.append(f"kept: protected, consistent labels (z {z:.2f}{level})")
        else:
            out.append("kept")
    return out


def _count(n: int, noun: str) -> str:
    """``1 annotator``, ``5 annotators``."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _were(n: int) -> str:
    return "was" if n == 1 else "were"


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


