"""An :class:`~aif360_subjective.opinion.core.OpinionExclusionResult` read through the accessors of the metric
class, so that what reads one face (the HTML report's builders) reads the other.

The function face (:func:`~aif360_subjective.opinion.functional.opinion_exclusion`) returns a frozen result of
values; :class:`~aif360_subjective.metrics.OpinionExclusionMetric` answers methods (``unfairness()``,
``group_performance(ci=...)``, ``verdict()``). :class:`ResultAudit` gives the result those methods: the figures are
the result's own, and the bootstrap intervals are redrawn from the confusion counts the result carries (its
``unit_counts``), with the same function and the same seed as the metric's, so both faces give the same report.

References:
    Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine Learning.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pandas as pd

from .core import OpinionExclusionResult, individual_figures
from .groups import GroupingSummary
from .options import OpinionOptions, check_interval_options
from .uncertainty import OpinionIntervals, opinion_intervals, thin_groups, with_intervals
from .verdict import verdict_sentence

__all__ = ["ResultAudit"]


class ResultAudit:
    """The metric class's accessors over a function-face result (what the report's builders read).

    Args:
        result: an analysis from :func:`~aif360_subjective.sklearn.metrics.opinion_exclusion`.

    Raises:
        TypeError: ``result`` is not an OpinionExclusionResult, or it carries no options.
    """

    def __init__(self, result: OpinionExclusionResult) -> None:
        if not isinstance(result, OpinionExclusionResult):
            raise TypeError(f"result must be an OpinionExclusionResult, got {type(result).__name__}")
        if result.options is None:
            raise TypeError("result carries no options: build it with opinion_exclusion (either face's core)")
        self.result = result
        self.options: OpinionOptions = result.options
        self._bootstraps: dict[Any, OpinionIntervals] = {}

    def _intervals(self, ci: Any, n_boot: Any, random_state: Any, levels: Any) -> OpinionIntervals:
        # one bootstrap per option set, as the metric class keeps (its replicates describe the same draws)
        interval = check_interval_options(ci, n_boot, levels, self.options.performance)
        if interval.levels == "crossed" and self.result.row_units is None:
            raise ValueError("bootstrap_levels='crossed' needs the annotation rows, which this result does not "
                             "carry (the Dask back end): use 'both'")
        seed = self.options.random_state if random_state is None else random_state
        key = (interval, id(seed) if isinstance(seed, np.random.Generator) else seed)
        if key not in self._bootstraps:
            self._bootstraps[key] = opinion_intervals(self.result, interval, seed)
        return self._bootstraps[key]

    @property
    def grouping(self) -> str | pd.Series:
        """The grouping as the metric class holds it: its name, or the user's Series mapping annotators to groups."""
        if self.options.grouping == "series" and self.options.group_labels is not None:
            return self.options.group_labels
        return self.options.grouping

    def unfairness(self) -> float:
        """The population std of the groups' performance (the result's ``unfairness``)."""
        return float(self.result.unfairness)

    def performance(self) -> float:
        """The mean of the groups' performance."""
        return float(self.result.performance)

    def performance_name(self) -> str:
        """A readable name of the performance option."""
        return self.result.performance_name

    def group_performance(self, ci: float | None = None, n_boot: int = 1000, random_state: Any = None,
                          bootstrap_levels: str = "both") -> pd.DataFrame:
        """The group table; with ``ci``, the bootstrap interval of every group (``ci_low``, ``ci_high``)."""
        table = self.result.group_table.drop(columns=["ci_low", "ci_high"], errors="ignore")
        if ci is None:
            return table.copy()
        return table.join(self._intervals(ci, n_boot, random_state, bootstrap_levels).groups)

    def unfairness_ci(self, ci: float = 0.95, n_boot: int = 1000, random_state: Any = None,
                      bootstrap_levels: str = "both") -> Any:
        """The interval of the true unfairness (as ``OpinionExclusionMetric.unfairness_ci``)."""
        return self._intervals(ci, n_boot, random_state, bootstrap_levels).unfairness

    def performance_ci(self, ci: float = 0.95, n_boot: int = 1000, random_state: Any = None,
                       bootstrap_levels: str = "both") -> Any:
        """The bootstrap interval of the performance."""
        return self._intervals(ci, n_boot, random_state, bootstrap_levels).performance

    def disagreement_rates(self) -> pd.Series:
        """ADR per annotator."""
        return self.result.disagreement_rates.copy()

    def thin_groups(self) -> pd.DataFrame:
        """Groups with fewer annotators than ``warn_group_size`` and their share of the unfairness."""
        return thin_groups(self.result, self.options.warn_group_size)

    def individual_figures(self) -> pd.Series:
        """Individual-level figures: ``annotator_std``, worst/best group and value, ``gap``."""
        return individual_figures(self.result)

    def annotator_group_performance(self) -> pd.DataFrame:
        """Performance of every (group, annotator) unit."""
        return self.result.unit_performance.copy()

    def grouping_summary(self) -> GroupingSummary:
        """What the grouping did."""
        return self.result.grouping_summary

    def seed_unfairness(self) -> float:
        """The paper's unfairness (ADR bins fitted on the scored annotations).

        Raises:
            ValueError: the result was cross-fitted (``adr_fit="cross"``): the paper's figure needs the annotations
                again; run ``opinion_exclusion(..., adr_fit="same")`` for it.
        """
        if self.options.adr_fit != "same":
            raise ValueError("this result is cross-fitted (adr_fit='cross'); the paper's unfairness needs the "
                             "annotations again: run opinion_exclusion(..., adr_fit='same') for it")
        return self.unfairness()

    def verdict(self, ci: float = 0.95, n_boot: int = 1000, random_state: Any = None,
                n_permutations: int = 9999, adjust: str | None = None) -> str:  # noqa: ARG002 - the result's test
        """The verdict sentence of the result's test of equal service, with the intervals at ``ci``.

        ``adjust`` (None: the result's own) must be the item adjustment the result's test was run with
        (``opinion_exclusion(..., test_adjust=)``): the result carries one test.

        Raises:
            ValueError: the result carries no test (``opinion_exclusion(..., ci=0.95)`` or ``test=True`` runs it),
                or ``adjust`` differs from its test's.
        """
        test = self.result.exclusion_test
        if test is None:
            raise ValueError("this result carries no test of equal service: call opinion_exclusion(..., ci=0.95) "
                             "or test=True")
        if adjust is not None and adjust != test.adjust:
            raise ValueError(f"adjust={adjust!r}, but this result's test was run with test_adjust={test.adjust!r}: "
                             f"call opinion_exclusion(..., test_adjust={adjust!r})")
        bare = dataclasses.replace(self.result, group_table=self.group_performance())
        return verdict_sentence(with_intervals(bare, self._intervals(ci, n_boot, random_state, "both")))
