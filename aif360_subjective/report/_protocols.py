"""What the report's builders need of the package's results, stated once as Protocols.

The builders check their inputs with ``isinstance`` against these (and against
:class:`~aif360_subjective.detectors.report.SubgroupReport`) instead of probing attribute by attribute, so a
result that lacks a piece fails at the door with one ``TypeError`` naming what it is, not halfway through a
report. :class:`~aif360_subjective.metrics.OpinionExclusionMetric` satisfies :class:`OpinionAudit`;
:class:`~aif360_subjective.metrics.SubgroupDiscoveryMetric` satisfies :class:`HoldsSubgroupReport`.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import pandas as pd

__all__ = ["FittedCrowdTruthFilter", "HoldsSubgroupReport", "OpinionAudit"]


@runtime_checkable
class OpinionAudit(Protocol):
    """An opinion-exclusion analysis of one model (the face :class:`OpinionExclusionMetric`)."""

    options: Any

    def unfairness(self) -> float: ...

    def performance(self) -> float: ...

    def performance_name(self) -> str: ...

    def group_performance(self, ci: float | None = None, n_boot: int = 1000, random_state: Any = None,
                          bootstrap_levels: str = "both") -> pd.DataFrame: ...

    def unfairness_ci(self, ci: float = 0.95, n_boot: int = 1000, random_state: Any = None,
                      bootstrap_levels: str = "both") -> Any: ...

    def performance_ci(self, ci: float = 0.95, n_boot: int = 1000, random_state: Any = None,
                       bootstrap_levels: str = "both") -> Any: ...

    def disagreement_rates(self) -> pd.Series: ...

    def thin_groups(self) -> pd.DataFrame: ...

    def individual_figures(self) -> pd.Series: ...

    def annotator_group_performance(self) -> pd.DataFrame: ...

    def grouping_summary(self) -> Any: ...

    def seed_unfairness(self) -> float: ...

    def verdict(self, ci: float = 0.95, n_boot: int = 1000, random_state: Any = None,
                n_permutations: int = 9999, adjust: str = "none") -> str: ...


@runtime_checkable
class HoldsSubgroupReport(Protocol):
    """A face of subgroup discovery that holds its :class:`SubgroupReport` (``SubgroupDiscoveryMetric``)."""

    report: Any


@runtime_checkable
class FittedCrowdTruthFilter(Protocol):
    """A fitted ``CrowdTruthFilter``: its scores, the removed annotators and why, the threshold used, the
    per-annotator table (removed, protected) and the protection level."""

    scores_: Any
    removed_annotators_: pd.DataFrame
    threshold_: float
    annotators_: pd.DataFrame
    protect_z: float
