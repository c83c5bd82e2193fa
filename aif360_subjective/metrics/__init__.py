"""Fairness metrics for subjective labels and discovered subgroups (AIF360 ``ClassificationMetric``
subclasses)."""

from .jury import jury_verdicts
from .opinion_exclusion import OpinionExclusionMetric
from .subgroup_discovery import SubgroupDiscoveryMetric

__all__ = ["OpinionExclusionMetric", "SubgroupDiscoveryMetric"]
__all__ += ["jury_verdicts"]
