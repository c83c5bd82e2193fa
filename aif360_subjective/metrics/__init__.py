"""Fairness metrics for subjective labels and discovered subgroups (AIF360 ``ClassificationMetric``
subclasses), with the opinion-exclusion result types shared by the functional API.

The opinion-exclusion engine lives in :mod:`aif360_subjective.opinion`; :mod:`.opinion_exclusion` is its AIF360
metric class. Perspectivist evaluation beyond the majority vote:
:mod:`.perspectivist` (soft labels, per-annotator scores), :mod:`.jury` (jury verdicts),
:mod:`.group_own_labels` (each group scored against its own labels).
"""

from .._deprecation import renamed
from ..opinion import GroupingSummary, OpinionExclusionResult, OpinionOptions, check_opinion_options
from .jury import jury_verdicts
from .opinion_exclusion import OpinionExclusionMetric
from .subgroup_discovery import SubgroupDiscoveryMetric

__all__ = [
    "GroupingSummary",
    "OpinionExclusionMetric",
    "OpinionExclusionResult",
    "OpinionOptions",
    "SubgroupDiscoveryMetric",
    "check_opinion_options",
    "jury_verdicts",
]

# ``GroupingReport``: the former name of GroupingSummary, served with a DeprecationWarning
__getattr__ = renamed(__name__, {"GroupingReport": ("GroupingSummary", lambda: GroupingSummary)})
