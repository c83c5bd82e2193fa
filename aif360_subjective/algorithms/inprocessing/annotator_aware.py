"""An annotator-aware classifier: one prediction per (item, annotator), the paper's Model 2.

References:
    Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine
    Learning. Section 4.2 ("algorithmic bias": models conditioned on the users, user
    characteristics as features) and Table 2, Model 2 (samples + demographics, trained on the
    individual annotations).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from ..._validation import check_random_state
from ...datasets.multi_annotator import MultiAnnotatorDataset
from .annotation_classifier import (
    AnnotationClassifier,
    TrainingSet,
    check_estimator,
    check_two_labels,
    favorable_scores,
)

__all__ = ["AnnotatorAwareClassifier"]


class AnnotatorAwareClassifier(AnnotationClassifier):
    """Predict each annotator's label: a scikit-learn classifier on item + annotator features.

    Trained on the individual annotations (not their majority vote), with features

    * the item features of the dataset (standardised),
    * the annotator's attributes (the dataset's protected attributes, one-hot coded, a missing value
      being its own category),
    * optionally (``interactions=True``, the default) the products of the two, so the model can
      learn that a group of annotators reads some kind of item differently (a linear model would
      otherwise only shift every prediction of a group the same way),
    * optionally (``annotator_ids=True``) a one-hot code of the annotators seen in training (a
      per-annotator offset); an annotator not seen in training gets no id column and is predicted
      from its attributes alone.

    Non-uniform instance weights of the training dataset (e.g. from
    :class:`~aif360_subjective.algorithms.preprocessing.AnnotatorGroupReweighing`) are passed to the
    estimator's ``fit`` as ``sample_weight``.

    ``predict`` returns a classified copy of the dataset: a label per (item, annotator) row, the
    favourable label's probability as scores when the estimator has ``predict_proba``.

    References:
        Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine
        Learning. Section 4.2 and Table 2 (Model 2).
    """

    def __init__(
        self,
        estimator: Any = None,
        use_attributes: bool = True,
        interactions: bool = True,
        annotator_ids: bool = False,
        attributes: list[str] | None = None,
        random_state: Any = None,
    ) -> None:
        """
        Args:
            estimator: an unfitted scikit-learn classifier (cloned at ``fit``); default
                ``LogisticRegression(max_iter=1000)``.
            use_attributes: use the annotators' attributes as features.
            interactions: add item feature x annotator attribute products.
            annotator_ids: add a one-hot code of the training annotators.
            attributes: the annotator attributes to use (default: all protected attributes).
            random_state: None, an int or a numpy Generator: seeds the estimator's own ``random_state``
                when it has one left at None (e.g. ``SGDClassifier``), so that equal seeds give equal
                models (numpy's global state is never used). The default logistic regression is
                deterministic.

        Raises:
            TypeError: ``estimator`` is not a scikit-learn classifier, or ``random_state`` is not None, an
                int or a Generator.
        """
        check_random_state(random_state)
        check_estimator(estimator)
        super().__init__(
            estimator=estimator,
            use_attributes=use_attributes,
            interactions=interactions,
            annotator_ids=annotator_ids,
            attributes=attributes,
            random_state=random_state,
        )
        self.estimator = estimator
        self.use_attributes = use_attributes
        self.interactions = interactions
        self.annotator_ids = annotator_ids
        self.attributes = attributes
        self.random_state = random_state

    # ------------------------------------------------------------------ features
    def _columns(self, dataset: MultiAnnotatorDataset) -> tuple[list[int], list[int]]:
        names = list(dataset.feature_names)
        items = [names.index(c) for c in dataset.item_feature_names]
        if not self.use_attributes:
            return items, []
        attrs = list(dataset.protected_attribute_names) if self.attributes is None else list(self.attributes)
        missing = [a for a in attrs if a not in names]
        if missing:
            raise ValueError(
                f"attributes {missing} are not annotator attributes of the dataset; "
                f"available: {list(dataset.protected_attribute_names)}"
            )
        return items, [names.index(a) for a in attrs]

    def _design(self, dataset: MultiAnnotatorDataset, fit: bool) -> Any:
        item_cols, attr_cols = self._columns(dataset)
        if fit:
            self.item_features_ = [dataset.feature_names[j] for j in item_cols]
            self.attribute_names_ = [dataset.feature_names[j] for j in attr_cols]
            if not item_cols and not attr_cols and not self.annotator_ids:
                raise ValueError("the dataset has no item features nor annotator attributes to learn from")
        elif [dataset.feature_names[j] for j in item_cols] != self.item_features_ or [
            dataset.feature_names[j] for j in attr_cols
        ] != self.attribute_names_:
            raise ValueError(
                "the dataset's item features / annotator attributes differ from those seen in fit: "
                f"expected {self.item_features_} / {self.attribute_names_}"
            )
        blocks = []
        x_items = dataset.features[:, item_cols]
        if item_cols:
            if fit:
                self.scaler_ = StandardScaler().fit(x_items)
            x_items = self.scaler_.transform(x_items)
            blocks.append(sp.csr_matrix(x_items))
        if attr_cols:
            codes = dataset.features[:, attr_cols]
            if fit:
                self.attribute_encoder_ = OneHotEncoder(handle_unknown="ignore").fit(codes)
            onehot = sp.csr_matrix(self.attribute_encoder_.transform(codes))
            blocks.append(onehot)
            if self.interactions and item_cols:
                # row-wise outer product item features x one-hot attributes, built column block by
                # column block (n_item_features sparse products), never per row
                inter = [onehot.multiply(x_items[:, [j]]) for j in range(x_items.shape[1])]
                blocks.append(sp.hstack(inter, format="csr"))
        if self.annotator_ids:
            ids = np.asarray(dataset.annotator_ids, dtype=object).reshape(-1, 1)
            if fit:
                self.id_encoder_ = OneHotEncoder(handle_unknown="ignore").fit(ids)
            blocks.append(sp.csr_matrix(self.id_encoder_.transform(ids)))
        return sp.hstack(blocks, format="csr")

    # ------------------------------------------------------------------ Transformer API
    def _training_set(self, dataset: MultiAnnotatorDataset) -> TrainingSet:
        """The individual annotations of ``dataset``: item and annotator features, labels and instance weights."""
        y = dataset.labels.ravel()
        check_two_labels(y, "the training annotations")
        x = self._design(dataset, fit=True)
        w = np.asarray(dataset.instance_weights, dtype=np.float64)
        self.n_training_annotators_ = len(np.unique(np.asarray(dataset.annotator_ids, dtype=object)))
        # non-uniform instance weights (e.g. AnnotatorGroupReweighing) reach the estimator
        return TrainingSet(x, y, LogisticRegression(max_iter=1000), w if np.ptp(w) > 0 else None)

    def predict(self, dataset: MultiAnnotatorDataset) -> MultiAnnotatorDataset:
        """Predict a label for every (item, annotator) row of ``dataset``.

        Args:
            dataset (MultiAnnotatorDataset): the annotations to predict (labels ignored).

        Returns:
            MultiAnnotatorDataset: a classified copy (labels = predictions, scores = probability of
            the favourable label when available).

        Raises:
            NotFittedError: ``fit`` was not called.
        """
        self._check_fitted(dataset)
        x = self._design(dataset, fit=False)
        pred = self.estimator_.predict(x)
        scores = favorable_scores(self.estimator_, x, self.favorable_label_)
        # the dataset codes string labels as 1.0/0.0; with_predictions expects the input's values
        return dataset.with_predictions(dataset.decode_labels(pred), scores=scores)
