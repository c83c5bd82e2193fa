"""Functional metrics in the style of :mod:`aif360.sklearn.metrics`: re-exports only.

The opinion-exclusion functions live in :mod:`aif360_subjective.opinion.functional` (they call the same core as
:class:`~aif360_subjective.metrics.OpinionExclusionMetric`); the perspectivist scores (soft labels, LeWiDi Task
A, and per-annotator predictions, Task B) in :mod:`aif360_subjective.metrics.perspectivist`.
"""

from aif360_subjective.metrics.perspectivist import (
    annotator_error_rate,
    manhattan_distance,
    normalized_absolute_distance,
    soft_cross_entropy,
    soft_labels,
    wasserstein_distance,
)
from aif360_subjective.opinion.functional import (
    annotator_performance,
    disagreement_rates,
    opinion_exclusion,
    opinion_group_performance,
    opinion_individual_figures,
    opinion_performance,
    opinion_unfairness,
)

__all__ = [
    "annotator_error_rate",
    "annotator_performance",
    "disagreement_rates",
    "manhattan_distance",
    "normalized_absolute_distance",
    "opinion_exclusion",
    "opinion_group_performance",
    "opinion_individual_figures",
    "opinion_performance",
    "opinion_unfairness",
    "soft_cross_entropy",
    "soft_labels",
    "wasserstein_distance",
]
