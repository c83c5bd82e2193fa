"""A majority-vote classifier: one prediction per item, the paper's Model 1.

References:
    Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine
    Learning. Section 4.2 and Table 2, Model 1 (samples only, trained on the majority-vote labels:
    the "traditional" aggregation of crowdsourced labels).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression

from ..._labels import OneClassPredictionWarning, check_tie, one_class_message
from ..._validation import check_random_state
from .annotation_classifier import (
    AnnotationClassifier,
    TrainingSet,
    check_estimator,
    check_two_labels,
    favorable_scores,
)

__all__ = ["MajorityVoteClassifier", "text_columns"]

#: A text column holds strings whose median length is at least this many words (a name of a few words, such as
#: "synthetic item 12", is a label, not text) ...
MIN_MEDIAN_WORDS = 5
#: ... and distinct values on more than this share of the items (a category such as "hate speech detection" or
#: "reddit" repeats; a post does not).
MIN_DISTINCT_SHARE = 0.5


def text_columns(items: pd.DataFrame) -> list[str]:
    """The free-text columns of an item table: string values of at least :data:`MIN_MEDIAN_WORDS` words (median)
    that differ between items (distinct on more than :data:`MIN_DISTINCT_SHARE` of them).

    Examples: POPQUORN ``text``; LeWiDi 2023 ``text``; MultiPICo ``post``, ``reply``; CSC ``context``,
    ``response``; Wikipedia Talk ``comment``. Categories (``lang``, ``annotation_task``, ``source``) and dicts
    (``soft_label``) are not text.

    Args:
        items: one row per item.

    Returns:
        list[str]: the text columns, in table order (empty when there is none).
    """
    if not isinstance(items, pd.DataFrame) or items.empty:
        return []
    found = []
    for col in items.columns:
        values = items[col].dropna()
        if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values) or values.empty:
            continue
        if pd.api.types.infer_dtype(values, skipna=True) != "string":  # dicts/lists (soft labels) are not text
            continue
        values = values.astype(str)
        words = values.str.count(r"\S+")
        if words.median() >= MIN_MEDIAN_WORDS and values.nunique() > MIN_DISTINCT_SHARE * len(items):
            found.append(str(col))
    return found


def _check_text(text: Any) -> None:
    if text is None or (isinstance(text, str) and text == "auto"):
        return
    if isinstance(text, str) or not isinstance(text, Sequence) or not all(isinstance(c, str) for c in text) \
            or not text:
        raise TypeError(f"text must be 'auto', None or a non-empty list of item column names, got {text!r}")


class MajorityVoteClassifier(AnnotationClassifier):
    """Predict each item's label: a scikit-learn classifier trained on the majority vote of the annotators.

    The traditional pipeline (the paper's Model 1): the annotations of every training item are aggregated by
    majority vote (:meth:`~aif360_subjective.datasets.MultiAnnotatorDataset.majority_vote`, tie policy ``tie``),
    and a classifier learns the item features -> majority label. ``predict`` returns one label per item,
    broadcast to every (item, annotator) row, so the result aligns with the input rows like
    :class:`~aif360_subjective.algorithms.inprocessing.AnnotatorAwareClassifier` (the paper's Model 2) and goes
    straight into :class:`~aif360_subjective.metrics.OpinionExclusionMetric`.

    **What it learns from.** With ``text="auto"`` (default), an item table with free text (see
    :func:`text_columns`: POPQUORN, the LeWiDi datasets, MultiPICo, CSC, Wikipedia Talk) is read as TF-IDF word
    uni- and bigrams of the text columns joined (``sublinear_tf``, at most 50,000 terms), and the default
    classifier is a logistic regression with balanced class weights (a majority class of 80% would otherwise
    often win every item). Without text, the numeric item features (:attr:`item_feature_names`) and
    ``LogisticRegression(max_iter=1000)``, as before. ``text=None`` forces the numeric features; a list names
    the text columns. ``text_columns_`` says which were used.

    A model whose predictions are all one label is flagged: ``predict`` warns with
    :class:`~aif360_subjective.algorithms.inprocessing.OneClassPredictionWarning`.

    References:
        Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine
        Learning. Table 2 (Model 1).
        K. Sparck Jones (1972). A statistical interpretation of term specificity and its application in
        retrieval. Journal of Documentation 28(1) (TF-IDF); scikit-learn's ``TfidfVectorizer``.
    """

    def __init__(self, estimator: Any = None, tie: str = "favorable", random_state: Any = None,
                 text: str | Sequence[str] | None = "auto") -> None:
        """
        Args:
            estimator: an unfitted scikit-learn classifier (cloned at ``fit``); default
                ``LogisticRegression(max_iter=1000)``.
            tie: majority-vote tie policy of the training labels: "favorable", "unfavorable" or "drop"
                (tied items are left out of training).
            random_state: None, an int or a numpy Generator: seeds the estimator's own ``random_state`` when
                it has one left at None, so that equal seeds give equal models. The default logistic
                regression (lbfgs) is deterministic.
            text: ``"auto"`` = learn from the items' free-text columns when the item table has any, else from
                the numeric item features; ``None`` = the numeric item features only; a list = these item
                columns as text.

        Raises:
            TypeError: ``estimator`` is not a scikit-learn classifier, ``random_state`` is not None, an
                int or a Generator, or ``text`` is not "auto", None or a list of column names.
            ValueError: ``tie`` is not a tie policy.
        """
        check_estimator(estimator)
        check_tie(tie)
        check_random_state(random_state)
        _check_text(text)
        super().__init__(estimator=estimator, tie=tie, random_state=random_state, text=text)
        self.estimator = estimator
        self.tie = tie
        self.random_state = random_state
        self.text = text

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

    def _text_columns(self, dataset: Any) -> list[str]:
        """The text columns to learn from (empty: the numeric item features)."""
        if self.text is None:
            return []
        items = dataset.items
        if self.text == "auto":
            return text_columns(items)
        missing = [c for c in self.text if c not in items.columns]
        if missing:
            raise ValueError(f"text columns {missing} are not columns of the item table (columns: "
                             f"{list(map(str, items.columns))})")
        return list(self.text)

    def _item_text(self, dataset: Any, item_ids: Any) -> pd.Series:
        """The text columns of the items ``item_ids`` joined by a space (a missing text is empty)."""
        table = dataset.items.reindex(pd.Index(item_ids))
        cols = self.text_columns_
        out: pd.Series = table[cols[0]].fillna("").astype(str)
        for col in cols[1:]:  # a loop over the (few) columns; the rows are joined vectorised
            out = out + " " + table[col].fillna("").astype(str)
        return out

    def _training_set(self, dataset: Any) -> TrainingSet:
        """The majority votes of the items of ``dataset`` and their text (or numeric item features)."""
        text = self._text_columns(dataset)
        if not text and not dataset.item_feature_names:
            raise ValueError("the dataset has no item text and no item features to learn from "
                             "(MultiAnnotatorDataset(items=...) with a text column or numeric columns)")
        mv = dataset.majority_vote(self.tie)
        y = mv.labels.ravel()
        check_two_labels(y, f"the majority votes of the {len(y)} training items")
        self.text_columns_ = text
        if text:
            from sklearn.feature_extraction.text import TfidfVectorizer

            default = LogisticRegression(max_iter=1000, class_weight="balanced")
            self.vectorizer_ = TfidfVectorizer(sublinear_tf=True, ngram_range=(1, 2), max_features=50_000,
                                               strip_accents="unicode")
            x = self.vectorizer_.fit_transform(self._item_text(dataset, mv.metadata["item_ids"]))
        else:
            default = LogisticRegression(max_iter=1000)
            self.vectorizer_ = None
            x = mv.features  # majority_vote's features are the item features, in the dataset's order
        self.item_features_ = list(dataset.item_feature_names)
        self.n_training_items_ = len(y)
        self.n_dropped_ties_ = int(mv.metadata.get("n_dropped_ties", 0))
        return TrainingSet(x, y, default)

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
            ValueError: the item features (or text columns) differ from those seen in ``fit``.

        Warns:
            OneClassPredictionWarning: every prediction is the same label.
        """
        self._check_fitted(dataset)
        if self.text_columns_:
            missing = [c for c in self.text_columns_ if c not in dataset.items.columns]
            if missing:
                raise ValueError(f"the item table lacks the text columns {missing} seen in fit")
        elif list(dataset.item_feature_names) != self.item_features_:
            raise ValueError(
                f"the dataset's item features {list(dataset.item_feature_names)} differ from those seen in fit: "
                f"{self.item_features_}"
            )
        codes, first = self._item_rows(dataset)
        if self.text_columns_:
            x = self.vectorizer_.transform(self._item_text(dataset, np.asarray(dataset.item_ids)[first]))
        else:
            x = self._item_features(dataset, first)
        pred = self.estimator_.predict(x)[codes]  # one prediction per item, broadcast to its rows
        scores = favorable_scores(self.estimator_, x, self.favorable_label_)
        if scores is not None:
            scores = scores[codes]
        labels = dataset.decode_labels(pred)
        message = one_class_message(labels, "MajorityVoteClassifier")  # in the input's own label values
        if message is not None:
            warnings.warn(message, OneClassPredictionWarning, stacklevel=2)
        return dataset.with_predictions(labels, scores=scores)
