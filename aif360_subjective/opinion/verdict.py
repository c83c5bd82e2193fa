"""The verdict sentence of an opinion-exclusion analysis: one sentence from its test of equal service and its
intervals (:mod:`~aif360_subjective.opinion.equal_service`).

It reads only the result's fields, so that :class:`~aif360_subjective.opinion.core.OpinionExclusionResult`
(``result.verdict()``) can call it without the test module.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .groups import group_label

__all__ = ["p_value_text", "verdict_sentence"]


def p_value_text(p: float) -> str:
    """``p = 0.41``, ``p = 0.046``, ``p < 0.001``; ``p undefined`` for NaN."""
    if not np.isfinite(p):
        return "p undefined"
    return "p < 0.001" if p < 0.001 else f"p = {p:.2g}"


def _value_text(value: float, low: float, high: float, n_annotators: int) -> str:
    if n_annotators < 2:
        return f"{value:.2f} (one annotator: no interval)"
    if np.isfinite(low) and np.isfinite(high):
        return f"{value:.2f} [{low:.2f}, {high:.2f}]"
    return f"{value:.2f}"


#: Groups named after the first one that is served significantly worse ("also served worse: ...").
_MAX_ALSO = 5


def _raw_range(table: Any, name: str) -> str:
    values = table["performance"].to_numpy(np.float64)
    return f"the groups' {name} runs from {np.nanmin(values):.2f} to {np.nanmax(values):.2f} (raw figures)"


def _unfairness_clause(result: Any, test_rejects: bool) -> str:
    """The unfairness with its interval, each figure named: the raw std is the paper's, the interval is for the
    true spread and holds the noise-corrected estimate (the raw one can lie above it)."""
    iv = result.unfairness_ci
    if iv is None or not hasattr(iv, "indistinguishable_from_noise") or not np.isfinite(iv.low):
        return ""
    out = (f"; unfairness {result.unfairness:.3f} (the paper's std across groups, raw; noise-corrected "
           f"{iv.debiased:.3f}, {iv.ci:.0%} interval of the true spread [{iv.low:.3f}, {iv.high:.3f}])")
    if iv.indistinguishable_from_noise:
        return out + ": the spread across groups is indistinguishable from noise"
    if not test_rejects:
        out += (": this interval, from an F approximation, excludes 0 where the permutation test does not reject, "
                "so the evidence is borderline")
    return out


def _detectable_clause(result: Any, test: Any, level: float) -> str:
    """"; with these annotators a gap of 0.12 or more between any one group and the rest would have been found 80% of
    the time (0.06 for g1)"; for a measure in [0, 1], a gap no group could show (larger than the rest's value, or
    than 1 minus it) is counted instead of quoted."""
    mdg = test.detectable_gap(level) if hasattr(test, "detectable_gap") else None
    if mdg is None or not np.isfinite(mdg.to_numpy(np.float64)).any():
        return ""
    opts = result.options
    gaps = mdg.dropna()
    rest = test.group_tests["rest"].reindex(gaps.index).to_numpy(np.float64)
    if opts is not None and opts.unit_interval and getattr(test, "adjust", "none") == "items":
        room = np.ones(len(gaps))  # differences from the item's other annotations: at most 1 apart
    elif opts is not None and opts.unit_interval:
        room = rest if opts.higher_is_better else 1.0 - rest
    else:
        room = np.full(len(gaps), np.inf)
    possible = gaps.to_numpy(np.float64) <= room
    easiest = gaps.index[int(np.argmin(gaps.to_numpy()))]
    if possible.all():
        return (f"; with these annotators a gap of {gaps.max():.2f} or more between any one group and the rest would "
                f"have been found 80% of the time ({gaps.min():.2f} for {group_label(easiest)})")
    n_out = int((~possible).sum())
    if not possible.any():
        return ("; with these annotators no possible gap between one group and the rest would have been found 80% "
                "of the time (the groups hold too few annotators or annotations)")
    return (f"; with these annotators a gap of {gaps[possible].max():.2f} or more between a group and the rest would "
            f"have been found 80% of the time in {int(possible.sum())} of {len(gaps)} groups ({gaps.min():.2f} for "
            f"{group_label(easiest)}); in the other {n_out}, not even the largest possible gap would have been")


def verdict_sentence(result: Any, alpha: float | None = None) -> str:
    """The one verdict sentence of an analysis, from its test of equal service and its intervals.

    It says no more than its tests:

    * a group is named as served worse only when its own test (each group against the rest, max-T adjusted over
      the groups: ``exclusion_test.groups()``) rejects at ``alpha``, with the gap's simultaneous interval, which
      then excludes 0: "g2 is served worse than the other groups: accuracy 0.70 [0.66, 0.74] against 0.80 for the
      rest, gap 0.10 [0.04, 0.16] (max-T adjusted p = 0.002 over 4 groups; across-groups test, p = 0.001)";
    * when only the test across all groups rejects (or the test names no group, as the cross-fitted ADR test),
      "the groups differ (across-groups test, p = 0.018: a test of all 6 groups together, not of any two) ...";
    * otherwise "no evidence that any group is served worse (across-groups test, p = 0.41)", with the gap that the
      test would have found 80% of the time, and the unfairness with each figure named (raw, noise-corrected,
      interval of the true spread);
    * when the design cannot answer (every group of one annotator, groups on different items, a smallest
      attainable p-value above ``alpha``), "the test cannot decide ...: <why>", with the raw range of the groups.

    Args:
        result: an analysis with its test (``opinion_exclusion(..., ci=0.95)`` or ``test=True``; the metric
            class' :meth:`~aif360_subjective.metrics.OpinionExclusionMetric.verdict`).
        alpha: the test's level; None = 1 - the intervals' level, or 0.05 without intervals.

    Returns:
        str

    Raises:
        ValueError: the result carries no test.
    """
    test = result.exclusion_test
    if test is None:
        raise ValueError("the result carries no test of equal service: pass ci=0.95 or test=True to "
                         "opinion_exclusion (the metric class: m.verdict())")
    level = (1.0 - result.unfairness_ci.ci) if (alpha is None and result.unfairness_ci is not None) else alpha
    level = 0.05 if level is None else float(level)
    table = result.group_table.dropna(subset=["performance"])
    name = result.performance_name or "performance"
    if len(table) < 2:
        return f"one group only: nothing to compare ({len(table)} group with a defined value)"
    reason = test.undecidable(level) if hasattr(test, "undecidable") else ""
    if reason:
        return f"the test cannot decide whether a group is served worse: {reason}; {_raw_range(table, name)}"
    n_groups = len(table)
    omnibus = f"across-groups test, {p_value_text(test.p_value)}"
    rejects = bool(np.isfinite(test.p_value) and test.p_value <= level)
    groups = test.groups(level) if hasattr(test, "groups") else None
    if groups is not None:
        worse = groups[groups["significant"].to_numpy(bool) & (groups["gap"].to_numpy(np.float64) > 0)]
        if len(worse):
            order = np.lexsort((-worse["t"].to_numpy(np.float64), worse["p_adjusted"].to_numpy(np.float64)))
            worse = worse.iloc[order]
            label, row = worse.index[0], worse.iloc[0]
            gap = f"gap {row['gap']:.2f} [{row['ci_low']:.2f}, {row['ci_high']:.2f}]"
            tested = f"max-T adjusted {p_value_text(float(row['p_adjusted']))} over {len(groups)} groups; {omnibus}"
            if getattr(test, "adjust", "none") == "items":
                what = (f"{group_label(label)} is served worse than the other groups on the same items: {name} "
                        f"compared with the other annotations of each item, {gap} ({tested})")
            else:
                pos = table.index.get_loc(label) if label in table.index else None
                if pos is not None and not isinstance(pos, int):
                    pos = None
                value = float(row["value"])
                if pos is not None:
                    t_row = table.iloc[pos]
                    low = float(t_row["ci_low"]) if "ci_low" in table else np.nan
                    high = float(t_row["ci_high"]) if "ci_high" in table else np.nan
                    value_text = _value_text(value, low, high, int(t_row["n_annotators"]))
                else:
                    value_text = f"{value:.2f}"
                what = (f"{group_label(label)} is served worse than the other groups: {name} {value_text} against "
                        f"{float(row['rest']):.2f} for the rest, {gap} ({tested})")
            if len(worse) > 1:
                others = [group_label(g) for g in worse.index[1:1 + _MAX_ALSO]]
                more = len(worse) - 1 - len(others)
                what += "; also served worse: " + ", ".join(others) + (f" and {more} more" if more > 0 else "")
            return what
    if rejects:
        together = f"{omnibus}: a test of all {n_groups} groups together, not of any two"
        if groups is not None:
            return (f"the groups differ ({together}), but no single group is served significantly worse than the "
                    f"rest (max-T over {len(groups)} groups)")
        why = (" ".join(n for n in test.notes if "names no single" in n) if getattr(test, "notes", ()) else "")
        return f"the groups differ ({together}){'; ' + why if why else ''}"
    out = f"no evidence that any group is served worse ({omnibus})"
    out += _detectable_clause(result, test, level)
    opts = result.options
    if opts is not None and opts.grouping == "adr" and opts.adr_fit == "same" and result.unfairness > 0:
        # the paper's bins are sorted by the scored annotations: their spread holds a sorting artefact, so
        # the interval of the same-fit figure is not read against 0 here (the test is cross-fitted)
        return out + (f"; unfairness {result.unfairness:.3f} with ADR bins fitted on the scored annotations, "
                      "part of it a sorting artefact (adr_fit='cross' removes it)")
    return out + _unfairness_clause(result, rejects)
