"""algorithms/inprocessing: the paper's Model 1 (:class:`MajorityVoteClassifier`) and Model 2
(:class:`AnnotatorAwareClassifier`); :class:`MeanRatingRegressor` predicts ratings for an ordinal audit;
:class:`OneClassPredictionWarning` and :func:`one_class_message` flag a model whose predictions are all one
label; :func:`held_out_logistic` trains a logistic regression on part of a table's rows and predicts the others."""

from ..._labels import OneClassPredictionWarning, one_class_message
from .annotator_aware import AnnotatorAwareClassifier
from .majority_vote import MajorityVoteClassifier, text_columns
from .rating_model import MeanRatingRegressor
from .table_logistic import HeldOutPredictions, held_out_logistic

__all__ = [
    "AnnotatorAwareClassifier",
    "HeldOutPredictions",
    "MajorityVoteClassifier",
    "MeanRatingRegressor",
    "OneClassPredictionWarning",
    "held_out_logistic",
    "one_class_message",
    "text_columns",
]
