"""Pre-processing algorithms.

* :class:`CrowdTruthFilter`: removes low-quality annotators (CrowdTruth 2.0 scores) while keeping
  annotators whose disagreement is consistent.
* :class:`AnnotatorGroupReweighing`: instance weights that make every group of annotators weigh the same in
  training.
"""

from .crowdtruth_filter import CrowdTruthFilter, label_consistency_z
from .group_reweighing import AnnotatorGroupReweighing

__all__ = ["AnnotatorGroupReweighing", "CrowdTruthFilter", "label_consistency_z"]
