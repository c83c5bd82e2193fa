"""Fairness metrics for subjective labels and discovered subgroups (AIF360 ``ClassificationMetric``
subclasses)."""

from .opinion_exclusion import OpinionExclusionMetric
from .subgroup_discovery import SubgroupDiscoveryMetric

__all__ = ["OpinionExclusionMetric", "SubgroupDiscoveryMetric"]
