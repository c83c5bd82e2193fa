"""What the two classifiers of annotations share, written once: the paper's Model 1
(:class:`~aif360_subjective.algorithms.inprocessing.MajorityVoteClassifier`, trained on the items' majority votes)
and Model 2 (:class:`~aif360_subjective.algorithms.inprocessing.AnnotatorAwareClassifier`, trained on the individual
annotations) differ in the training set they draw from a dataset; the checks, the seeded scikit-learn estimator, its
fit and the fitted state are :class:`AnnotationClassifier`'s.

References:
    Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine
    Learning. Section 4.2 and Table 2 (Models 1 and 2).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Self

import numpy as np
from aif360.algorithms import Transformer
from aif360.algorithms.transformer import NotFittedError
from sklearn.base import clone

from ...datasets.multi_annotator import check_multi_annotator_dataset

__all__ = ["AnnotationClassifier", "TrainingSet", "check_estimator", "favorable_scores", "seeded_estimator"]


def check_estimator(estimator: Any) -> None:
    """An unfitted scikit-learn classifier or None (the estimator argument of both models).

    Raises:
        TypeError: ``estimator`` lacks ``fit``, ``predict`` or ``get_params``.
    """
    if estimator is not None and not all(hasattr(estimator, a) for a in ("fit", "predict", "get_params")):
        raise TypeError(
            "estimator must be an unfitted scikit-learn classifier (with fit, predict and get_params) or "
            f"None, got {type(estimator).__name__} {estimator!r}"
        )


def seeded_estimator(estimator: Any, default: Any, random_state: Any) -> Any:
    """A clone of ``estimator`` (``default`` when None), its own ``random_state`` seeded from ``random_state``
    when it has one left at None (numpy's global state is never used)."""
    est = clone(default if estimator is None else estimator)
    if random_state is not None and est.get_params().get("random_state", 0) is None:
        rng = np.random.default_rng(random_state)
        est.set_params(random_state=int(rng.integers(0, 2**31 - 1)))
    return est


def favorable_scores(estimator: Any, x: Any, favorable_label: Any) -> np.ndarray | None:
    """The fitted ``estimator``'s probability of ``favorable_label`` for the rows ``x``; None when it has no
    ``predict_proba`` or never saw that label."""
    if not hasattr(estimator, "predict_proba"):
        return None
    classes = list(estimator.classes_)
    if favorable_label not in classes:
        return None
    scores: np.ndarray = estimator.predict_proba(x)[:, classes.index(favorable_label)]
    return scores


@dataclass(frozen=True)
class TrainingSet:
    """What a classifier of annotations learns from, drawn from a dataset by its ``_training_set``.

    Attributes:
        x: the features, one row per training example.
        y: the labels, one per row of ``x``.
        default: the estimator used when the classifier was given none.
        sample_weight: the rows' weights, or None: uniform weights are left out, so that an unweighted fit stays
            bit-identical to the estimator's own default.
    """

    x: Any
    y: np.ndarray
    default: Any
    sample_weight: np.ndarray | None = None


def check_two_labels(y: np.ndarray, what: str) -> None:
    """A classifier needs both labels among its training labels ``y`` (``what``: those labels, in words).

    Raises:
        ValueError: ``y`` holds a single label value.
    """
    if len(np.unique(y)) < 2:
        raise ValueError(f"{what} hold a single label value; a classifier needs both")


class AnnotationClassifier(Transformer):
    """Base of the classifiers trained on a MultiAnnotatorDataset: a subclass draws its :class:`TrainingSet` from
    the dataset (``_training_set``) and sets the attributes ``estimator`` and ``random_state``; :meth:`fit` does
    the rest."""

    estimator: Any
    random_state: Any

    def _training_set(self, dataset: Any) -> TrainingSet:
        """The features, labels and default estimator the classifier learns from (a checked dataset)."""
        raise NotImplementedError

    def fit(self, dataset: Any) -> Self:
        """Train on ``dataset``: MajorityVoteClassifier on the majority votes of its items, AnnotatorAwareClassifier
        on its individual annotations (with their instance weights when they are not uniform).

        Args:
            dataset (MultiAnnotatorDataset): training annotations.

        Returns:
            Self: the classifier, fitted.

        Raises:
            TypeError: ``dataset`` is not a MultiAnnotatorDataset.
            ValueError: the training labels hold a single label value, or (MajorityVoteClassifier) the items have no
                text and no features to learn from, or named text columns are missing.
        """
        check_multi_annotator_dataset(dataset)
        training = self._training_set(dataset)
        est = seeded_estimator(self.estimator, training.default, self.random_state)
        if training.sample_weight is None:
            self.estimator_ = est.fit(training.x, training.y)
        else:
            self.estimator_ = est.fit(training.x, training.y, sample_weight=training.sample_weight)
        self.favorable_label_ = dataset.favorable_label
        return self

    def _check_fitted(self, dataset: Any) -> None:
        """Before a prediction: the classifier is fitted and ``dataset`` is a MultiAnnotatorDataset.

        Raises:
            NotFittedError: ``fit`` was not called.
            TypeError: ``dataset`` is not a MultiAnnotatorDataset.
        """
        if not hasattr(self, "estimator_"):
            raise NotFittedError(f"{type(self).__name__} is not fitted: call fit(dataset) first")
        check_multi_annotator_dataset(dataset)
