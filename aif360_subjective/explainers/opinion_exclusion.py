"""Text explanations of the opinion-exclusion metrics, in the style of AIF360's MetricTextExplainer.

References:
    Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine
    Learning. Section 4.1.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from aif360.explainers import MetricTextExplainer

from .._deprecation import renamed_member
from ..metrics.opinion_exclusion import OpinionExclusionMetric
from ..opinion.groups import group_label

__all__ = ["OpinionExclusionTextExplainer"]


class OpinionExclusionTextExplainer(MetricTextExplainer):
    """Explain the values of an :class:`~aif360_subjective.metrics.OpinionExclusionMetric` in text.

    Every AIF360 metric of the underlying ClassificationMetric is still explained by the inherited
    methods (e.g. ``accuracy()``); the methods below cover the opinion-exclusion ones.
    """

    metric: OpinionExclusionMetric

    def __init__(self, metric: Any) -> None:
        """
        Args:
            metric (OpinionExclusionMetric): the metric to explain.

        Raises:
            TypeError: ``metric`` is not an OpinionExclusionMetric.
        """
        if not isinstance(metric, OpinionExclusionMetric):
            raise TypeError(f"metric must be an OpinionExclusionMetric, got {type(metric).__name__}")
        super().__init__(metric)

    def _perf(self) -> str:
        return str(self.metric.performance_name())

    def _direction(self) -> str:
        # the measure's direction, declared once in opinion.options.PERFORMANCES
        return self.metric.options.direction_text

    def unfairness(self) -> str:
        m = self.metric
        n_groups = m.grouping_summary().n_groups
        return (
            f"Opinion-exclusion unfairness (standard deviation of the model's mean {self._perf()} across "
            f"{n_groups} group{'' if n_groups == 1 else 's'} of annotators, 0 = all groups served equally): "
            f"{m.unfairness()}"
        )

    def performance(self) -> str:
        return (
            f"General performance (mean {self._perf()} across the groups of annotators, {self._direction()}): "
            f"{self.metric.performance()}"
        )

    def disagreement_rates(self) -> str:
        adr = self.metric.disagreement_rates()
        n_def, n_nan = int(adr.notna().sum()), int(adr.isna().sum())
        return (
            f"Average disagreement rate with the majority vote (ADR) over {n_def} annotators: "
            f"mean {adr.mean():.3f}, median {adr.median():.3f}, min {adr.min():.3f}, max {adr.max():.3f}; "
            f"{_count(n_nan, 'annotator')} without ADR"
        )

    def annotator_performance(self) -> str:
        perf = self.metric.annotator_performance()
        return (
            f"Per-annotator {self._perf()}: mean {perf.mean():.3f}, std {perf.std(ddof=0):.3f}, "
            f"min {perf.min():.3f}, max {perf.max():.3f} ({int(perf.isna().sum())} undefined)"
        )

    def group_performance(self) -> str:
        table = self.metric.group_performance()
        lines = [f"Mean {self._perf()} per group ({self.metric.grouping_summary().grouping}; {self._direction()}):"]
        for g, row in table.iterrows():
            value = "undefined" if np.isnan(row["performance"]) else f"{row['performance']:.3f}"
            lines.append(
                f"  {group_label(g)}: {value} over {_count(int(row['n_annotators']), 'annotator')} "
                f"({_count(int(row['n_annotations']), 'annotation')}, spread {row['spread']:.3f}"
                + (f", {int(row['n_undefined'])} undefined" if row["n_undefined"] else "")
                + ")"
            )
        return "\n".join(lines)

    def annotator_unfairness(self) -> str:
        return (
            f"Individual-level unfairness (standard deviation of the per-annotator {self._perf()}): "
            f"{self.metric.annotator_unfairness()}"
        )

    def worst_group(self) -> str:
        m = self.metric
        extreme = "lowest" if m.options.higher_is_better else "highest"
        return (
            f"Worst-served group ({extreme} {self._perf()}, {self._direction()}): {group_label(m.worst_group())} "
            f"({self._perf()} {m.worst_group_performance()})"
        )

    def performance_gap(self) -> str:
        return (
            f"Gap between the best- and the worst-served group ({self._perf()}): "
            f"{self.metric.performance_gap()}"
        )

    def grouping_summary(self) -> str:
        return "Grouping: " + str(self.metric.grouping_summary().text())

    def grouping_report(self) -> str:
        """Deprecated: the former name of :meth:`grouping_summary` (warns; removed in 0.4)."""
        renamed_member("OpinionExclusionTextExplainer.grouping_report()", "grouping_summary()")
        return self.grouping_summary()


def _count(n: int, noun: str) -> str:
    """``1 annotator``, ``2 annotators``."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"
