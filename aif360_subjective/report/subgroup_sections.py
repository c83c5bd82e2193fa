"""Report sections of a subgroup-discovery result: the ASDF dashboard's views.

References:
    J. Schäfer and L. Wiese, "ASDF-Dashboard: Automated Subgroup Detection and Fairness Analysis".
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .._validation import check_int
from ..detectors.subgroup_metrics import FAIRNESS_METRICS, SUBGROUP_METRICS, value_format
from ._text import as_float, count, q_columns_as_text, share_text
from .answer import answer_section, as_subgroup_report, subgroup_answer
from .model import Section
from .significance import NOT_SIGNIFICANT, in_report_family, p_columns_text, p_text, report_family_p

SIGN_CONVENTION = (
    "Sign convention: statistical parity, equal opportunity and equalized odds are the rest minus the "
    "subgroup, so a positive value means the subgroup is disadvantaged (it gets the favourable outcome less "
    "often than everyone else) and a negative value means it is favoured. Accuracy error is the subgroup's "
    "accuracy minus the accuracy on all rows (negative = the model errs more on the subgroup)."
)


_METRIC_NAMES = {name: m.label for name, m in SUBGROUP_METRICS.items()}


def subgroup_sections(result: Any, *, n: int = 5, max_subgroups: int = 100,
                      figures: bool = True, model: str | None = None, alpha: float | None = 0.05,
                      min_size: int = 1, ci: float | None = 0.95,
                      alternatives: pd.DataFrame | str | None = None, answer: bool = True) -> list[Section]:
    """A subgroup-discovery result as report sections: the answer, the rankings, then the ASDF dashboard's views
    and the clustering details.

    Args:
        result: a :class:`~aif360_subjective.detectors.SubgroupReport` (from ``detect_subgroups``) or a
            :class:`~aif360_subjective.metrics.SubgroupDiscoveryMetric`.
        n: length of the top-n rankings.
        max_subgroups: at most this many expandable per-subgroup blocks (the largest subgroups first).
        figures: include the matplotlib figures (radar, sizes, rankings).
        model: the name of the model whose predictions were analysed (stated in the first section).
        alpha: the answer lists the findings significant at q < alpha
            (:meth:`~aif360_subjective.detectors.SubgroupReport.findings`) and the rankings only subgroups
            significant at q < alpha (see :meth:`~aif360_subjective.detectors.SubgroupReport.ranking`);
            ``None`` = the seed's raw rankings. With non-uniform instance weights the raw rankings are shown,
            with a note.
        min_size: leave subgroups with fewer rows out of the rankings.
        ci: confidence level of the intervals in the answer, the rankings and the per-subgroup tables, whose
            subgroups with no disparity significant at q < ``alpha`` are greyed; None = the seed's tables (no
            intervals).
        alternatives: when the clustering is lopsided (:attr:`SubgroupReport.lopsided`): the comparison of the
            other clusterers from :func:`lopsided_alternatives` (or
            :func:`~aif360_subjective.detectors.alternative_clusterings`), shown with the non-lopsided
            one it suggests; a string says why it was not computed; None = the report only says how to get it.
        answer: begin with the answer section (:func:`~.answer.subgroup_answer`).

    Returns:
        list of Section: answer, rankings, summary, patterns, sizes, clustering details.

    Raises:
        TypeError: ``result`` is not a subgroup-discovery result.
    """
    rep = as_subgroup_report(result)
    weighted = rep.weighted
    asdf = rep.has_clusters  # the seed's views show its two kinds (clusters and their entropy patterns)
    pattern_text = pattern_texts(whole_numbers_as_int(rep.patterns(all_columns=False))) if asdf else None
    out: list[Section] = []
    if answer:
        found = subgroup_answer(rep, alpha=alpha, ci=ci, pattern_text=pattern_text)
        first = answer_section(found, "Significant findings, smallest adjusted p first: side (disadvantaged or "
                                      "favoured), metric, subgroup (cluster-based subgroups described by their "
                                      "pattern), rows, value with its interval, adjusted p (family-wise, the "
                                      "family being the whole report).")
        if model is not None:
            first.text(f"Predictions analysed: {model}.")
        out.append(first)
    comparison: list[Section] = []  # one self-contained section, placed after the seed's views
    if rep.has_mined_patterns and alpha is not None and not weighted:
        comparison.append(discovery_section(rep, n=n, alpha=alpha, ci=0.95 if ci is None else ci))
    if getattr(rep, "validated", None) is not None:
        comparison.append(validation_section(rep, n=n))
    if not rep.task_type.decisions:
        # the seed's views (radar, per-cluster rates) are those of binary decisions: the task's rankings instead
        return [*out, task_rankings_section(rep, n=n, alpha=alpha, min_size=min_size, ci=ci), *comparison]
    if not asdf or pattern_text is None:
        return out + comparison
    # intervals and q-values for the per-subgroup tables (weighted counts give none: raw tables then)
    inference = None
    family_p = None
    if ci is not None and not weighted:
        inference = pd.concat([rep.subgroup_metrics(ci=ci, kind=k) for k in rep.clustering_kinds])
        if alpha is not None:  # "significant" and "adjusted p" are the whole report's, as in the answer
            family_p = report_family_p(rep, alpha, ci)
    out.append(_rankings_section(rep, n, alpha, min_size, ci, pattern_text, figures))
    out.append(_summary_section(rep, figures))
    out.append(_patterns_section(rep, inference, alpha, ci, max_subgroups, pattern_text, family_p))
    out.append(_sizes_section(rep, figures))
    out.append(_clustering_section(rep, alternatives))
    return out + comparison


def validation_section(rep: Any, *, n: int = 5) -> Section:
    """The validated clusterings: the models by fairness validation index (the selected one and the ``n`` best) and
    why the selected one was chosen (:meth:`~aif360_subjective.detectors.SubgroupReport.cluster_validation`)."""
    cv = rep.cluster_validation()
    shown = cv.sort_values("fairness_index", ascending=False, na_position="last")
    shown = pd.concat([shown[shown["selected"]], shown[~shown["selected"]].head(n)])
    s = Section("Clustering models compared (validated clusterings)")
    s.text(cv.attrs["why"],
           f"Fairness validation index: the largest |z| of {rep.options.selection_metric} among a model's clusters "
           "less sqrt(2 ln K) for its K clusters. Every cluster of every one of the "
           f"{len(cv)} models is a candidate of the report's max-T family (kind 'validated'; the seed's clusters are "
           "kind 'cluster').")
    s.table(shown[["source", "algorithm", "features", "k", "n_clusters", "fairness_index", "max_z",
                   "fairness_separation", "silhouette", "davies_bouldin", "selected"]].round(3),
            caption=f"The selected model and the {min(n, len(cv) - 1)} next by fairness validation index")
    return s


def task_rankings_section(rep: Any, *, n: int = 5, alpha: float | None = 0.05, min_size: int = 1,
                          ci: float | None = 0.95) -> Section:
    """A multi-class, ordinal or regression report's rankings: per metric, the most disadvantaged and most
    favoured subgroups of every kind, with the task and the unit of inference stated."""
    from ..detectors.subgroup_metrics import metric_label

    s = Section("Rankings by metric")
    s.text(f"Task: {rep.task_reason}. Unit of inference: {rep.unit}. Every metric compares the subgroup's mean "
           "of a per-row value with the rest's by a studentized difference of means; the adjusted p-values are "
           "those of a permutation max-T over every subgroup of every kind and both directions of the metric.")
    for metric in rep.candidate_metrics.names:
        base, label = rep.task_type.ranking_arguments(metric)
        name = metric_label(metric)
        for direction in ("disadvantaged", "favoured"):
            rk = rep.ranking(base, kind="all", n=n, direction=direction, alpha=alpha, min_size=min_size,
                             ci=0.95 if ci is None else ci, label=label)
            block = s if direction == "disadvantaged" else s.details(f"{name}: most favoured subgroups")
            _ranking_table(block, rk, name, direction)
    return s


def discovery_section(rep: Any, *, n: int = 5, alpha: float = 0.05, ci: float = 0.95) -> Section:
    """The comparison of the discovery methods (clusters, entropy patterns, mined patterns) as one section.

    For each method: the number of candidates, the number significant and the best subgroup with its
    interval, all under one family-wise error (:meth:`SubgroupReport.discovery_summary`), the sentence that
    follows from those numbers, then the findings (:meth:`SubgroupReport.findings`, first ``4 n``; the answer
    section lists the same findings first).

    Args:
        rep: a :class:`~aif360_subjective.detectors.SubgroupReport` (or a metric holding one in ``report``).
        n: the findings table shows at most ``4 n`` rows.
        alpha: family-wise error rate.
        ci: confidence level of the intervals.

    Returns:
        Section
    """
    rep = as_subgroup_report(rep)
    summary = rep.discovery_summary(alpha, ci)
    s = Section("Discovery methods compared")
    s.text(summary.attrs["sentence"])
    shown = summary[["method", "candidates", "significant", "best", "metric", "direction", "value", "ci_low",
                     "ci_high", "p_adjusted"]].set_index("method")
    found = rep.findings(alpha, ci)
    b = int(found.attrs["n_permutations"])
    s.table(p_columns_text(shown, b),
            f"Per discovery method: candidate subgroups, subgroups with at least one disparity significant at "
            f"family-wise error {alpha:g} (permutation max-T, B = {b:,} permutations, over every candidate of every "
            f"method, every metric and both directions: {summary.attrs['n_hypotheses']:,} hypotheses), and the "
            f"best one (smallest adjusted p) with its {ci:.0%} interval. \"significant\" counts subgroups before "
            f"the nested findings that say the same as a listed one are left out; the answer's {len(found):,} "
            f"findings are counted after ({found.attrs['n_redundant']:,} left out), one per subgroup, metric and "
            "direction.")
    if len(found):
        top = found.head(4 * n).drop(columns=["kind", "id"])
        s.details(f"Findings ({len(found)})").table(
            p_columns_text(top, b),
            f"Significant disparities at family-wise error {alpha:g}, smallest adjusted p first; equal p-values "
            f"(the floor of the permutations) by the max-T statistic, then the interval's bound nearest the "
            f"reference (a sub-pattern whose rate does not differ from the rest of a listed larger subgroup, or a "
            f"larger subgroup that only dilutes a listed slice, is left out: {found.attrs['n_redundant']}).",
            index=False)
    return s


def _summary_section(rep: Any, figures: bool) -> Section:
    s = Section("Subgroup fairness summary")
    n_clusters = rep.n_clusters
    s.text(
        f"The rows were clustered into {count(n_clusters, 'cluster')}. Each cluster is a cluster-based subgroup; its "
        "entropy pattern (the attributes whose values are concentrated in the cluster, with their most frequent "
        "value) defines an entropy-based subgroup: every row of the data matching the pattern. Each subgroup "
        "is compared with the rest of the rows.",
    )
    s.text(SIGN_CONVENTION, kind="note")
    if figures:
        from ..plotting import plot_summary_radar

        s.figure(plot_summary_radar(rep),
                 caption="Summary: mean absolute fairness values, signed mean accuracy error and mean accuracy, "
                         "per kind of subgroup (cluster-based: red circles, entropy-based: blue squares). Each "
                         "axis has its own scale, from 0 (or the lowest value, if negative) at the centre to the "
                         "larger of the two values at the rim (the range is under each axis name), so that accuracy "
                         "does not flatten the fairness axes; the values are in the table below.")
    s.table(rep.summary(), SUMMARY_CAPTION + ".")
    return s


#: What the summary table holds (the console prints the same words above it).
SUMMARY_CAPTION = ("Summary per kind of subgroup: statistical parity, equal opportunity and equalized odds are means "
                   "of absolute values (the size of the gaps, whichever side); accuracy error is the signed mean "
                   "(negative = more errors on the subgroups); accuracy is the mean")


def _sizes_section(rep: Any, figures: bool) -> Section:
    s = Section("Subgroup sizes")
    if figures:
        from ..plotting import plot_subgroup_sizes

        s.figure(plot_subgroup_sizes(rep), caption="Number of rows in every subgroup.")
    table = rep.subgroup_metrics(ci=None)
    sizes = table.loc[table.index.get_level_values(0).isin(("cluster", "entropy")), "size"].unstack(level=0)
    sizes.columns.name = None
    s.details("Rows per subgroup").table(sizes, "Rows per subgroup id (cluster-based and entropy-based).")
    return s


def _patterns_section(rep: Any, inference: pd.DataFrame | None, alpha: float | None, ci: float | None,
                      max_subgroups: int, labels: pd.Series, family_p: pd.DataFrame | None = None) -> Section:
    s = Section("Subgroup patterns")
    metrics = rep.subgroup_metrics(ci=None)
    metrics = metrics[metrics.index.get_level_values(0).isin(("cluster", "entropy"))]
    info = rep.pattern_info()
    pats = whole_numbers_as_int(rep.patterns(all_columns=False))
    s.text("One row per cluster: the value of every dominant attribute of its entropy pattern (– = the attribute "
           "is not part of the pattern). Expand a subgroup to see its metrics.")
    table = whole_numbers_as_int(pats.copy().assign(size=info["size"])[["size", *pats.columns]])
    marks: dict[Any, str] = {}
    if inference is not None and alpha is not None:
        marks = {sid: significance_mark(inference, sid, alpha, family_p) for sid in pats.index}
        column = f"significant (adjusted p < {alpha:g})"
        table.insert(1, column, [_sides(marks[sid]) for sid in pats.index])
        s.table(table, f"Entropy patterns of the clusters. {column}: on which side the cluster or its pattern "
                       f"differs from the rest on at least one fairness metric at adjusted p < {alpha:g} "
                       f"({family_words(family_p)}; the subgroup's block below names the metrics); – = no "
                       "significant "
                       "disparity (the block is greyed).")
    else:
        s.table(table, "Entropy patterns of the clusters.")
    ordered = info.sort_values("size", ascending=False, na_position="last").index[:max_subgroups]
    for sid in ordered:
        _subgroup_block(s, sid, metrics, info, inference, marks, alpha, ci, labels, family_p,
                        int(rep.options.n_permutations))
    if len(pats) > max_subgroups:
        rest = len(pats) - max_subgroups
        s.text(f"{count(rest, 'smaller subgroup')} {'is' if rest == 1 else 'are'} not expanded here.", kind="note")
    return s


def _subgroup_block(s: Section, sid: Any, metrics: pd.DataFrame, info: pd.DataFrame,
                    inference: pd.DataFrame | None, marks: dict[Any, str], alpha: float | None, ci: float | None,
                    labels: pd.Series, family_p: pd.DataFrame | None = None, n_permutations: int | None = None) -> None:
    """One expandable block: the subgroup's metrics (with intervals and q-values when available)."""
    has_rows = sid in metrics.index.get_level_values(1)
    size = info.loc[sid, "size"]
    head = f"Subgroup {sid}: {labels.get(sid) or '(empty pattern)'}"
    if not pd.isna(size):
        head += f" ({count(int(size), 'row')})"
    if sid in marks:
        head += (f" · significant (adjusted p < {alpha:g}): {marks[sid]}" if marks[sid]
                 else f" · no significant disparity (adjusted p < {alpha:g})")
    d = s.details(head, muted=sid in marks and not marks[sid])
    if inference is not None and has_rows and ci is not None:
        if family_p is not None:
            d.table(subgroup_interval_table(inference, sid, ci, alpha, family_p=family_p,
                                            n_permutations=n_permutations),
                    f"Metrics of the cluster and of its entropy pattern (rest minus subgroup), with {ci:.0%} "
                    f"intervals and adjusted p-values ({family_words(family_p)}; {NOT_SIGNIFICANT} = not a finding "
                    f"at adjusted p < {alpha:g}). Significant = a finding of the answer. The intervals are not "
                    "adjusted for the search over every subgroup: an interval may exclude 0 while the subgroup is "
                    "not a finding.")
        else:
            d.table(subgroup_interval_table(inference, sid, ci, alpha),
                    f"Metrics of the cluster and of its entropy pattern (rest minus subgroup), with {ci:.0%} "
                    "intervals, Benjamini-Hochberg q-values (over the subgroups of one kind) and adjusted p-values "
                    f"({ADJUSTED_P_FAMILY}).")
    elif has_rows:
        d.table(metrics.xs(sid, level=1, drop_level=False),
                "Metrics of the cluster and of its entropy pattern (rest minus subgroup).")
    if bool(info.loc[sid, "is_empty"]):
        d.text("The cluster has no dominant attribute: its entropy pattern defines no subgroup.")
    elif bool(info.loc[sid, "is_duplicate"]):
        d.text(f"The pattern repeats the pattern of cluster {info.loc[sid, 'duplicate_of']}.")


def _rankings_section(rep: Any, n: int, alpha: float | None, min_size: int, ci: float | None,
                      pattern_text: pd.Series, figures: bool) -> Section:
    rank_ci = 0.95 if ci is None else ci  # the rankings' intervals (shown only with alpha)
    s = Section(f"Top-{n} rankings")
    if rep.weighted and alpha is not None:
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
               f"favoured) at adjusted p < {alpha:g} (family-wise, the family being the whole report: permutation "
               f"max-T over every subgroup of every kind, every metric and both directions, as in the answer) whose "
               f"{rank_ci:.0%} interval lies entirely on that side of 0, the "
               "smallest adjusted p first, then the interval bound farthest from 0; a sub-pattern that adds "
               "nothing to a listed larger subgroup is left out. Disadvantaged means a larger statistical parity, "
               "equal opportunity or equalized odds, and a smaller accuracy error.")
    columns = rep.subgroup_metrics(ci=None).columns
    for metric in FAIRNESS_METRICS:
        if metric not in columns:
            continue
        name = _METRIC_NAMES[metric]
        worst = _ranking(rep, metric, "entropy", n, "disadvantaged", alpha, min_size, rank_ci)
        if figures and metric == "statistical_parity" and len(worst):
            from ..plotting import plot_ranking

            s.figure(plot_ranking(rep, metric, n=n, direction="disadvantaged", alpha=alpha, min_size=min_size,
                                  ranking=worst),  # the bars are the table's rows
                     caption=f"{name}: the {len(worst)} most disadvantaged entropy-based subgroups"
                             + ("" if alpha is None else f" (significant at adjusted p < {alpha:g}; bars: "
                                                         f"{rank_ci:.0%} intervals)") + ".")
        _ranking_table(s, patterns_as_in_table(worst, pattern_text), name, "disadvantaged",
                       int(rep.options.n_permutations))
        favoured = _ranking(rep, metric, "entropy", n, "favoured", alpha, min_size, rank_ci)
        _ranking_table(s.details(f"{name}: most favoured subgroups"), patterns_as_in_table(favoured, pattern_text),
                       name, "favoured", int(rep.options.n_permutations))
    _ranking_table(s.details(f"Cluster-based rankings by statistical parity (top {n})"),
                   _ranking(rep, "statistical_parity", "cluster", n, "disadvantaged", alpha, min_size, rank_ci),
                   "Statistical parity", "disadvantaged", int(rep.options.n_permutations))
    return s


def _ranking(rep: Any, metric: str, kind: str, n: int, direction: str, alpha: float | None, min_size: int,
             ci: float) -> pd.DataFrame:
    """A ranking under the whole report's family (:func:`~.significance.in_report_family`)."""
    rk = rep.ranking(metric, kind=kind, n=None, direction=direction, alpha=alpha, min_size=min_size, ci=ci)
    return in_report_family(rep, rk, metric, kind, direction, alpha, ci, n)


def _clustering_section(rep: Any, alternatives: pd.DataFrame | str | None) -> Section:
    s = Section("Clustering details")
    _clustering_blocks(s, rep, alternatives)
    return s


def auto_k_note(rep: Any) -> str | None:
    """The sentence saying that x-means stopped at its upper bound (the number of clusters was chosen
    automatically and equals ``floor(sqrt(n / 2))``), with the next step; None otherwise."""
    from ..detectors.asdf.clustering import default_kmax

    opts = rep.options
    requested = opts.get("n_clusters") if isinstance(opts, dict) else opts.n_clusters
    kmax = default_kmax(len(rep.clusters))
    if requested is not None or rep.n_clusters != kmax:
        return None
    return (f"x-means chose {rep.n_clusters} clusters, its upper bound ⌊√(n/2)⌋ = {kmax} for {len(rep.clusters):,} "
            "rows: it stopped at the bound, not because splitting stopped paying, so the data may hold more "
            "clusters. Choose the number yourself (--n-clusters K on the command line, n_clusters=K in Python) or "
            "compare a few with n_clusters=[...] (the candidates table shows which are lopsided).")




_KINDS = {"cluster": "cluster", "entropy": "pattern"}
#: The family of the adjusted p-values, as the captions say it.
ADJUSTED_P_FAMILY = ("permutation max-T over every subgroup of every kind and both directions of the metric's "
                     "test: a family-wise error")


def family_words(family_p: pd.DataFrame | None) -> str:
    """How the captions name the family of the adjusted p-values they show."""
    if family_p is not None:
        return ("family-wise, the family being the whole report: permutation max-T over every subgroup of every "
                "kind, every metric and both directions, as in the answer")
    return ADJUSTED_P_FAMILY


def significance_mark(inference: pd.DataFrame, sid: Any, alpha: float, family_p: pd.DataFrame | None = None) -> str:
    """The metrics on which subgroup ``sid`` (its cluster or its pattern) differs significantly from the rest:
    adjusted p < ``alpha`` in the permutation max-T family of the metric's test (every subgroup of every kind,
    both directions), the family-wise error the rankings keep.

    Args:
        inference: ``subgroup_metrics(ci=...)`` (with ``<metric>_p_adjusted`` columns).
        sid: the subgroup id.
        alpha: family-wise error rate.
        family_p: :func:`~.significance.report_family_p`: the whole report's adjusted p of each finding; when
            given, a metric is significant exactly when it is a finding (its p read there).

    Returns:
        str: the metrics grouped by side, e.g. ``"disadvantaged: statistical parity, accuracy error"`` (``(cluster
        only)``/``(pattern only)`` when only one kind is significant); empty when no metric is significant
        (accuracy is left out: its test is accuracy error's).
    """
    from ..detectors.directions import disadvantaged_is_larger

    by_side: dict[str, list[str]] = {}
    for metric in FAIRNESS_METRICS:
        if metric + "_p_adjusted" not in inference.columns:
            continue
        sides = {}
        for kind, noun in _KINDS.items():
            if (kind, sid) not in inference.index:
                continue
            row = inference.loc[(kind, sid)]
            p = (_family_p(family_p, kind, sid, metric) if family_p is not None
                 else as_float(row[metric + "_p_adjusted"]))
            value = as_float(row[metric])
            if np.isfinite(p) and p < alpha and np.isfinite(value) and value != 0:
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


def _family_p(family_p: pd.DataFrame, kind: str, sid: Any, metric: str) -> float:
    """The whole report's adjusted p of (kind, sid) on ``metric``, NaN when it is no finding."""
    if (kind, sid) not in family_p.index or metric not in family_p.columns:
        return float("nan")
    return as_float(family_p.loc[(kind, sid), metric])


def _sides(mark: str) -> str:
    """The sides named by a :func:`significance_mark` (``disadvantaged``, ``favoured``, both), or ``–``."""
    sides = [side for side in ("disadvantaged", "favoured") if f"{side}: " in mark]
    return " & ".join(sides) or "–"


def subgroup_interval_table(inference: pd.DataFrame, sid: Any, ci: float, alpha: float | None, *,
                            family_p: pd.DataFrame | None = None, n_permutations: int | None = None) -> pd.DataFrame:
    """One subgroup's metrics with their intervals, q-values and adjusted p-values: a row per metric, columns per
    kind.

    Args:
        inference: ``subgroup_metrics(ci=ci)``.
        sid: the subgroup id.
        ci: the confidence level (for the column name).
        alpha: adds a ``significant (adjusted p < alpha)`` column (yes/no; – when the metric is undefined);
            None = none.
        family_p: :func:`~.significance.report_family_p`: when given, the adjusted p is the whole report's (``n.s.``
            for a metric that is no finding; ``≤`` at the floor of ``n_permutations``), significant = a finding,
            and the per-kind Benjamini-Hochberg q column is left out (one wording: the answer's family).
        n_permutations: B, for the floor (with ``family_p``).

    Returns:
        pandas.DataFrame: index ``metric``; columns (``cluster``|``pattern``, value / interval / q / adjusted p /
        significant).
    """
    blocks = {}
    for kind, noun in _KINDS.items():
        if (kind, sid) not in inference.index:
            continue
        row = inference.loc[(kind, sid)]
        cols: dict[str, list[Any]] = {"value": [], f"{ci:.0%} interval": [], "q": [], "adjusted p": []}
        if family_p is not None:
            del cols["q"]
        significant = f"significant (adjusted p < {alpha:g})" if alpha is not None else ""
        if alpha is not None:
            cols[significant] = []
        for metric in _METRIC_NAMES:
            value, q = as_float(row[metric]), as_float(row.get(metric + "_q", np.nan))
            p_adj = as_float(row.get(metric + "_p_adjusted", np.nan))
            low, high = as_float(row.get(metric + "_ci_low", np.nan)), as_float(row.get(metric + "_ci_high", np.nan))
            cols["value"].append(value)
            defined = np.isfinite(low) and np.isfinite(high)  # no-break space: the interval never wraps
            f = value_format(metric)
            cols[f"{ci:.0%} interval"].append(f"[{low:{f}},\u00a0{high:{f}}]" if defined else "–")
            if family_p is not None:
                p_fam = _family_p(family_p, kind, sid, metric)
                cols["adjusted p"].append("–" if not np.isfinite(value) else
                                          p_text(p_fam, n_permutations) if np.isfinite(p_fam) else NOT_SIGNIFICANT)
                if alpha is not None:
                    cols[significant].append("–" if not np.isfinite(value) else ("yes" if np.isfinite(p_fam) else "no"))
                continue
            cols["q"].append(p_text(q, None))
            cols["adjusted p"].append(p_text(p_adj, None))
            if alpha is not None:
                cols[significant].append("–" if not np.isfinite(p_adj) else ("yes" if p_adj < alpha else "no"))
        blocks[noun] = pd.DataFrame(cols, index=pd.Index(list(_METRIC_NAMES.values()), name="metric"))
    return pd.concat(blocks, axis=1)


#: Largest table on which :func:`lopsided_alternatives` compares the other clusterers at all.
ALTERNATIVES_MAX_ROWS = 1_000_000
#: Past this many rows the other clusterers are compared on a seeded random sample of this many rows: whether
#: a clusterer is lopsided at k clusters (a cluster of 90 % of the rows, most clusters at 1 % or less) shows on
#: a sample, while the whole table costs k-means' restarts and ward's O(n^2) merge matrix on every row
#: (``benchmarks/lopsided_alternatives.py`` times it).
ALTERNATIVES_SAMPLE_ROWS = 5_000


def lopsided_alternatives(result: Any, X: Any, y_true: Any, y_pred: Any, pos_label: Any = 1, *,
                          max_rows: int = ALTERNATIVES_MAX_ROWS, sample_rows: int = ALTERNATIVES_SAMPLE_ROWS,
                          random_state: Any = 0) -> pd.DataFrame | str | None:
    """The other clusterers compared at the same number of clusters, when the clustering used is lopsided.

    Args:
        result: the SubgroupReport (or SubgroupDiscoveryMetric) of ``X``.
        X, y_true, y_pred, pos_label: the data it was computed on (as given to ``detect_subgroups``).
        max_rows: on larger tables nothing is computed.
        sample_rows: larger tables are compared on a random sample of this many rows (drawn with
            ``random_state``; ``attrs["sample"]`` is then ``(sample_rows, rows)``); an int >= 2, and below the
            number of clusters the whole table is used.
        random_state: seed of the clusterers (and of the sample).

    Returns:
        pandas.DataFrame (:func:`~aif360_subjective.detectors.alternative_clusterings`, its
        ``attrs["suggestion"]`` names a non-lopsided one), a string saying why nothing was computed, or None when
        the clustering is not lopsided.
    """
    inner = as_subgroup_report(result)
    sample_rows = check_int(sample_rows, "sample_rows", low=2)
    if not inner.lopsided["lopsided"]:
        return None
    if len(X) > max_rows:
        return (f"The other clusterers were not compared: the table has {len(X):,} rows, more than the "
                f"{max_rows:,} the report compares them on (each takes seconds to minutes there); run "
                "alternative_clusterings(X, y_true, y_pred, n_clusters) yourself.")
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    from ..detectors import alternative_clusterings

    n = len(X)
    sample = None
    if n > sample_rows >= inner.n_clusters:
        sample = np.sort(np.random.default_rng(random_state).choice(n, sample_rows, replace=False))
        X = X.iloc[sample] if isinstance(X, pd.DataFrame) else np.asarray(X)[sample]
        y_true, y_pred = np.asarray(y_true)[sample], np.asarray(y_pred)[sample]
    with warnings.catch_warnings():
        # birch finding fewer subclusters than asked shows in the table's n_found column, not as a warning
        warnings.simplefilter("ignore", ConvergenceWarning)
        table = alternative_clusterings(X, y_true, y_pred, inner.n_clusters, pos_label, current=inner.clustering,
                                        categorical_features=inner.categorical_features or None,
                                        random_state=random_state)
    table.attrs["sample"] = None if sample is None else (int(sample_rows), int(n))
    return table


def alternatives_sample_text(alternatives: pd.DataFrame, form: str = " (compared {})") -> str:
    """``form`` filled with ``"on a random sample of 5,000 of the 48,842 rows"`` when the comparison was sampled,
    else ``""``."""
    sample = alternatives.attrs.get("sample")
    return "" if not sample else form.format(f"on a random sample of {sample[0]:,} of the {sample[1]:,} rows")


def _clustering_blocks(s: Section, rep: Any, alternatives: pd.DataFrame | str | None) -> None:
    """How balanced the clustering is, said plainly; when lopsided, the other clusterers compared; x-means at
    its bound; ties at the cut of the merge tree; the candidates of an automatic choice."""
    lop = rep.lopsided
    k = lop["n_clusters"]
    s.text(f"Clustering: {rep.clustering} into {count(k, 'cluster')}; the largest holds "
           f"{share_text(lop['largest_share'])} of the rows; {lop['tiny_clusters']} of the {count(k, 'cluster')} hold "
           "at most 1% of the rows each.")
    note = auto_k_note(rep)
    if note is not None:
        s.text(note, kind="warning")
    if lop["lopsided"]:
        s.text(f"This clustering is lopsided: {lop['reason']}. Its subgroups are then nearly all rows or a "
               "handful of rows, and the fairness of such subgroups says little about the data (a lopsided "
               "clustering has a cluster of at least 90% of the rows, or more than half of its clusters at "
               "1% of the rows or less).", kind="warning")
        _alternatives_blocks(s, alternatives, k)
    unique = rep.cut_is_unique  # set by clusterers that can detect tied merge distances
    if unique is not None:
        s.text("The cut of the merge tree into these clusters is unique (no tied merge distances at the cut)."
               if bool(unique) else
               "The cut of the merge tree into these clusters is not unique: merge distances are tied at the "
               f"cut (distance {rep.cut_distance:.6g}), so another exact algorithm can give another, equally valid "
               "clustering into as many clusters, whose subgroups may differ.")
    selection = rep.model_selection
    if isinstance(selection, pd.DataFrame) and "lopsided" in selection.columns and len(selection):
        n_lop = int(selection["lopsided"].astype(bool).sum())
        s.details(f"Candidate clusterings compared ({len(selection)}; {n_lop} lopsided)").table(
            selection, "The candidates of the automatic choice; largest_share = share of rows in the largest "
                       "cluster, tiny_clusters = clusters with at most 1% of the rows, lopsided as defined above.")


def _alternatives_blocks(s: Any, alternatives: pd.DataFrame | str | None, k: int) -> None:
    if alternatives is None:
        s.text("Compare other clusterers at the same number of clusters with alternative_clusterings(X, y_true, "
               f"y_pred, n_clusters={k}) (aif360_subjective.detectors.asdf.lopsided), or pass its result to this "
               "report.",
               kind="note")
        return
    if isinstance(alternatives, str):
        s.text(alternatives, kind="note")
        return
    suggestion = alternatives.attrs.get("suggestion")
    if suggestion is None:
        sample = alternatives_sample_text(alternatives, ' ({})')
        s.text(f"Every other clusterer compared at {count(k, 'cluster')}{sample} "
               "is lopsided too: this data has no balanced clustering at this number of clusters among those tried.",
               kind="note")
    else:
        name, k_alt = suggestion
        row = alternatives.loc[[suggestion]].iloc[0] if suggestion in alternatives.index else None
        detail = ""
        if row is not None:
            detail = (f": its largest cluster holds {share_text(float(row['largest_share']))} of the rows and "
                      f"{int(row['tiny_clusters'])} of its clusters hold at most 1%")
            if "fairness_separation" in row and np.isfinite(float(row["fairness_separation"])):
                detail += f"; fairness separation {float(row['fairness_separation']):.3f}"
        s.text(f"Suggested instead: {name} at {count(k_alt if k_alt is not None else k, 'cluster')}, the not-lopsided "
               f"clusterer that best separates the favourable-prediction rates{detail}"
               f"{alternatives_sample_text(alternatives)}.", kind="note")
    s.table(alternatives, "The other clusterers at the same number of clusters (fairness-aware comparison"
                          f"{alternatives_sample_text(alternatives, '; {}')}): "
                          "fairness_separation = how far the clusters' favourable-prediction rates spread; "
                          "largest_share, tiny_clusters and lopsided as above.")


def _ranking_table(block: Any, rk: pd.DataFrame, name: str, direction: str, n_permutations: int | None = None) -> None:
    """A ranking as a table, or the sentence saying that no subgroup is significant (with the counts)."""
    a = rk.attrs
    if len(rk) or a.get("alpha") is None:
        shown = p_columns_text(rk, n_permutations) if n_permutations is not None else q_columns_as_text(rk)
        block.table(shown, f"{name}: most {direction} subgroups", index=True)
        return
    if a.get("undecidable"):
        block.text(f"{name}: {a['undecidable']}.")
        return
    other = "favoured" if direction == "disadvantaged" else "disadvantaged"
    left = [f"{a['n_not_significant']} not significant"]
    if a.get("n_other_side"):
        left.append(f"{a['n_other_side']} significantly {other}")
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
