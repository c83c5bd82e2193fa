"""algorithms/inprocessing: the paper's Model 1 (:class:`MajorityVoteClassifier`) and Model 2
(:class:`AnnotatorAwareClassifier`)."""

from .annotator_aware import AnnotatorAwareClassifier
from .majority_vote import MajorityVoteClassifier

__all__ = ["AnnotatorAwareClassifier", "MajorityVoteClassifier"]
