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


def verdict_sentence(result: Any, alpha: float | None = None) -> str:
    """The one verdict sentence of an analysis, from its test of equal service and its intervals.

    ``"no evidence that any group is served worse (p = 0.41)"`` when the test does not reject at ``alpha``, with
    the unfairness interval when there is one; ``"group2 is served worst: accuracy 0.80 [0.77, 0.84] against 0.92
    [0.91, 0.93] for group1 (p < 0.001)"`` when it does (worst and best by the measure's direction; the groups'
    bootstrap intervals when computed; a one-annotator group is given without interval, saying why).

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
    p_text = p_value_text(test.p_value)
    if len(table) < 2:
        return f"one group only: nothing to compare ({len(table)} group with a defined value)"
    if not np.isfinite(test.p_value) or test.p_value >= level:
        out = f"no evidence that any group is served worse ({p_text})"
        iv = result.unfairness_ci
        opts = result.options
        if opts is not None and opts.grouping == "adr" and opts.adr_fit == "same" and result.unfairness > 0:
            # the paper's bins are sorted by the scored annotations: their spread holds a sorting artefact, so
            # the interval of the same-fit figure is not read against 0 here (the test is cross-fitted)
            return out + (f"; unfairness {result.unfairness:.3f} with ADR bins fitted on the scored annotations, "
                          "part of it a sorting artefact (adr_fit='cross' removes it)")
        if iv is not None and hasattr(iv, "indistinguishable_from_noise") and np.isfinite(iv.low):
            out += (f"; unfairness {result.unfairness:.3f}, {iv.ci:.0%} interval [{iv.low:.3f}, {iv.high:.3f}]"
                    + (": the spread across groups is indistinguishable from noise"
                       if iv.indistinguishable_from_noise else ""))
        return out
    higher = result.options.higher_is_better if result.options is not None else True
    values = table["performance"].to_numpy(np.float64)
    worst, best = (int(np.argmin(values)), int(np.argmax(values)))
    if not higher:
        worst, best = best, worst
    low = table["ci_low"].to_numpy(np.float64) if "ci_low" in table else np.full(len(table), np.nan)
    high = table["ci_high"].to_numpy(np.float64) if "ci_high" in table else np.full(len(table), np.nan)
    n_ann = table["n_annotators"].to_numpy()
    name = result.performance_name or "performance"
    return (f"{group_label(table.index[worst])} is served worst: {name} "
            f"{_value_text(values[worst], low[worst], high[worst], int(n_ann[worst]))} against "
            f"{_value_text(values[best], low[best], high[best], int(n_ann[best]))} for "
            f"{group_label(table.index[best])} ({p_text})")
