"""Pre-processing algorithms.

* :class:`CrowdTruthFilter`: removes low-quality annotators (CrowdTruth 2.0 scores) while keeping
  annotators whose disagreement is consistent.
"""

from .crowdtruth_filter import CrowdTruthFilter, label_consistency_z

__all__ = ["CrowdTruthFilter", "label_consistency_z"]
