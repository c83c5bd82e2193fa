"""algorithms/inprocessing."""

from .annotator_aware import AnnotatorAwareClassifier  # noqa: F401
