"""Fairness metrics for subjective labels and discovered subgroups (AIF360 ``ClassificationMetric``
subclasses), with the opinion-exclusion result types shared by the functional API.

Modules of the opinion-exclusion metrics: :mod:`.opinion_options` (options, declared and checked once),
:mod:`.opinion_annotations` (encoding, ADR), :mod:`.opinion_groupers` (one function per grouping kind),
:mod:`.opinion_groups` (bins, group sizes, summary), :mod:`.opinion_core` (the computation),
:mod:`.opinion_exclusion` (the AIF360 metric class). Perspectivist evaluation beyond the majority vote:
:mod:`.perspectivist` (soft labels, per-annotator scores), :mod:`.jury` (jury verdicts),
:mod:`.group_own_labels` (each group scored against its own labels).
"""

from .jury import jury_verdicts
from .opinion_core import OpinionExclusionResult
from .opinion_exclusion import OpinionExclusionMetric
from .opinion_groups import GroupingReport, GroupingSummary
from .opinion_options import OpinionOptions, check_opinion_options
from .subgroup_discovery import SubgroupDiscoveryMetric

__all__ = [
    "GroupingReport",
    "GroupingSummary",
    "OpinionExclusionMetric",
    "OpinionExclusionResult",
    "OpinionOptions",
    "SubgroupDiscoveryMetric",
    "check_opinion_options",
    "jury_verdicts",
]
