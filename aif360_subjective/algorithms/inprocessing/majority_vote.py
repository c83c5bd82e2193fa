"""A majority-vote classifier: one prediction per item, the paper's Model 1.

References:
    Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine
    Learning. Section 4.2 and Table 2, Model 1 (samples only, trained on the majority-vote labels:
    the "traditional" aggregation of crowdsourced labels).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from aif360.algorithms import Transformer
from aif360.algorithms.transformer import NotFittedError
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression

from ..._labels import check_tie
from ..._validation import check_random_state
from ...datasets.multi_annotator import check_multi_annotator_dataset

__all__ = ["MajorityVoteClassifier"]


def _check_estimator(estimator: Any) -> None:
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


class MajorityVoteClassifier(Transformer):
    """Predict each item's label: a scikit-learn classifier trained on the majority vote of the annotators.

    The traditional pipeline (the paper's Model 1): the annotations of every training item are aggregated by
    majority vote (:meth:`~aif360_subjective.datasets.MultiAnnotatorDataset.majority_vote`, tie policy ``tie``),
    and a classifier learns the item features -> majority label. ``predict`` returns one label per item,
    broadcast to every (item, annotator) row, so the result aligns with the input rows like
    :class:`~aif360_subjective.algorithms.inprocessing.AnnotatorAwareClassifier` (the paper's Model 2) and goes
    straight into :class:`~aif360_subjective.metrics.OpinionExclusionMetric`.

    References:
        Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine
        Learning. Table 2 (Model 1).
    """

    def __init__(self, estimator: Any = None, tie: str = "favorable", random_state: Any = None) -> None:
        """
        Args:
            estimator: an unfitted scikit-learn classifier (cloned at ``fit``); default
                ``LogisticRegression(max_iter=1000)``.
            tie: majority-vote tie policy of the training labels: "favorable", "unfavorable" or "drop"
                (tied items are left out of training).
            random_state: None, an int or a numpy Generator: seeds the estimator's own ``random_state`` when
                it has one left at None, so that equal seeds give equal models. The default logistic
                regression (lbfgs) is deterministic.

        Raises:
            TypeError: ``estimator`` is not a scikit-learn classifier, or ``random_state`` is not None, an
                int or a Generator.
            ValueError: ``tie`` is not a tie policy.
        """
        _check_estimator(estimator)
        check_tie(tie)
        check_random_state(random_state)
        super().__init__(estimator=estimator, tie=tie, random_state=random_state)
        self.estimator = estimator
        self.tie = tie
        self.random_state = random_state

    @staticmethod
    def _item_rows(dataset: Any) -> tuple[np.ndarray, np.ndarray]:
        """Item code of every row and the first row of every item (item features are the same on all of them)."""
        codes, uniques = pd.factorize(dataset.item_ids)
        first = np.full(len(uniques), -1, dtype=np.intp)
        first[codes[::-1]] = np.arange(len(codes) - 1, -1, -1)
        return codes, first

    def _item_features(self, dataset: Any, rows: np.ndarray) -> np.ndarray:
        names = list(dataset.feature_names)
        cols = np.asarray([names.index(c) for c in dataset.item_feature_names], dtype=np.intp)
        return np.asarray(dataset.features[np.ix_(rows, cols)], dtype=np.float64)

    def fit(self, dataset: Any) -> MajorityVoteClassifier:
        """Train on the majority-vote labels of the items of ``dataset``.

        Args:
            dataset (MultiAnnotatorDataset): training annotations.

        Returns:
            MajorityVoteClassifier: self.

        Raises:
            TypeError: ``dataset`` is not a MultiAnnotatorDataset.
            ValueError: no item features, or the majority votes hold a single label value.
        """
        check_multi_annotator_dataset(dataset)
        if not dataset.item_feature_names:
            raise ValueError("the dataset has no item features to learn from (MultiAnnotatorDataset(items=...))")
        mv = dataset.majority_vote(self.tie)
        y = mv.labels.ravel()
        if len(np.unique(y)) < 2:
            raise ValueError(
                f"the majority votes of the {len(y)} training items hold a single label value; a classifier "
                "needs both"
            )
        est = seeded_estimator(self.estimator, LogisticRegression(max_iter=1000), self.random_state)
        # majority_vote's features are the item features, in the dataset's order
        self.estimator_ = est.fit(mv.features, y)
        self.item_features_ = list(dataset.item_feature_names)
        self.favorable_label_ = dataset.favorable_label
        self.n_training_items_ = len(y)
        self.n_dropped_ties_ = int(mv.metadata.get("n_dropped_ties", 0))
        return self

    def predict(self, dataset: Any) -> Any:
        """Predict the label of every item of ``dataset``, for each of its (item, annotator) rows.

        Args:
            dataset (MultiAnnotatorDataset): the annotations to predict (labels ignored).

        Returns:
            MultiAnnotatorDataset: a classified copy aligned with the rows (labels = the item's prediction,
            scores = probability of the favourable label when the estimator has ``predict_proba``).

        Raises:
            NotFittedError: ``fit`` was not called.
            TypeError: ``dataset`` is not a MultiAnnotatorDataset.
            ValueError: the item features differ from those seen in ``fit``.
        """
        if not hasattr(self, "estimator_"):
            raise NotFittedError("MajorityVoteClassifier is not fitted: call fit(dataset) first")
        check_multi_annotator_dataset(dataset)
        if list(dataset.item_feature_names) != self.item_features_:
            raise ValueError(
                f"the dataset's item features {list(dataset.item_feature_names)} differ from those seen in fit: "
                f"{self.item_features_}"
            )
        codes, first = self._item_rows(dataset)
        x = self._item_features(dataset, first)
        pred = self.estimator_.predict(x)[codes]  # one prediction per item, broadcast to its rows
        scores = None
        if hasattr(self.estimator_, "predict_proba"):
            classes = list(self.estimator_.classes_)
            if self.favorable_label_ in classes:
                scores = self.estimator_.predict_proba(x)[:, classes.index(self.favorable_label_)][codes]
        return dataset.with_predictions(dataset.decode_labels(pred), scores=scores)
