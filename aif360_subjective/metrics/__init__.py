"""metrics."""

from .opinion_exclusion import OpinionExclusionMetric  # noqa: F401
