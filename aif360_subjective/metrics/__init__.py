"""Fairness metrics for subjective labels and discovered subgroups (AIF360 ``ClassificationMetric``
subclasses)."""

from .subgroup_discovery import SubgroupDiscoveryMetric

__all__ = ["SubgroupDiscoveryMetric"]
