"""An ordinal rating model: each item's rating predicted from its text, on the annotators' rating scale.

Subjective labels are often ratings (POPQUORN offensiveness 1-5, CSC sarcasm 1-6). The traditional pipeline
aggregates the annotators' ratings of an item into one (their mean) and learns it from the item text; the
prediction, rounded to the nearest level of the scale, is the one rating every annotator of the item is
served. Auditing it per annotation (truth: the annotator's own rating) is an ordinal audit
(:mod:`~aif360_subjective.detectors.tasks`).

References:
    Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine Learning
    (the aggregate-then-learn pipeline, Model 1, here on ratings instead of majority labels).
    A. E. Hoerl and R. W. Kennard, "Ridge regression", Technometrics 12, 1970; K. Sparck Jones (1972),
    TF-IDF; scikit-learn's ``TfidfVectorizer`` and ``Ridge``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from aif360.algorithms.transformer import NotFittedError

from ...datasets.multi_annotator import check_multi_annotator_dataset
from .majority_vote import text_columns

__all__ = ["MeanRatingRegressor"]


class MeanRatingRegressor:
    """Predict each item's rating: ridge regression of the annotators' mean rating on TF-IDF of the item text,
    rounded to the nearest level of the scale seen in training.

    Args:
        rating_column: the per-annotation rating column of ``annotation_info`` (POPQUORN ``"rating"``, a LeWiDi
            rating scale ``"raw_label"``).
        alpha: the ridge penalty.

    Attributes (after ``fit``):
        ``levels_``: the rating levels seen in training (sorted).
        ``text_columns_``: the item text columns learnt from.
    """

    def __init__(self, rating_column: str = "rating", alpha: float = 1.0) -> None:
        if not isinstance(rating_column, str):
            raise TypeError(f"rating_column must be a column name (str), got {rating_column!r}")
        self.rating_column = rating_column
        self.alpha = alpha

    def ratings(self, dataset: Any) -> np.ndarray:
        """(annotations,) float ratings of ``dataset``.

        Raises:
            ValueError: the column is missing, or a rating is not a number.
        """
        info = dataset.annotation_info
        if self.rating_column not in info.columns:
            raise ValueError(f"rating_column {self.rating_column!r} is not a column of the annotations' info "
                             f"(columns: {list(map(str, info.columns))})")
        values = pd.to_numeric(info[self.rating_column], errors="coerce")
        if values.isna().any():
            row = int(values.isna().to_numpy().argmax())
            raise ValueError(f"rating column {self.rating_column!r} holds {info[self.rating_column].iloc[row]!r} at "
                             f"row {row}; expected numeric ratings")
        out: np.ndarray = values.to_numpy(dtype=np.float64)
        return out

    def _text(self, dataset: Any, item_ids: np.ndarray) -> pd.Series:
        table = dataset.items.reindex(pd.Index(item_ids))
        out: pd.Series = table[self.text_columns_[0]].fillna("").astype(str)
        for col in self.text_columns_[1:]:  # a loop over the (few) text columns
            out = out + " " + table[col].fillna("").astype(str)
        return out

    def fit(self, dataset: Any) -> MeanRatingRegressor:
        """Learn the items' mean ratings from their text.

        Raises:
            TypeError: not a MultiAnnotatorDataset.
            ValueError: no item text, or no rating column.
        """
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.linear_model import Ridge

        check_multi_annotator_dataset(dataset)
        self.text_columns_ = text_columns(dataset.items)
        if not self.text_columns_:
            raise ValueError("MeanRatingRegressor learns from item text, and the item table has no text column")
        r = self.ratings(dataset)
        mean = pd.Series(r).groupby(pd.Series(np.asarray(dataset.item_ids)), sort=False).mean()
        self.levels_ = np.unique(r)
        self.vectorizer_ = TfidfVectorizer(sublinear_tf=True, ngram_range=(1, 2), max_features=50_000,
                                           strip_accents="unicode")
        x = self.vectorizer_.fit_transform(self._text(dataset, mean.index.to_numpy()))
        self.estimator_ = Ridge(alpha=self.alpha).fit(x, mean.to_numpy())
        return self

    def predict(self, dataset: Any) -> np.ndarray:
        """(annotations,) the predicted rating of each annotation's item, rounded to the nearest training level.

        Raises:
            NotFittedError: ``fit`` was not called.
        """
        if not hasattr(self, "estimator_"):
            raise NotFittedError("MeanRatingRegressor is not fitted: call fit(dataset) first")
        check_multi_annotator_dataset(dataset)
        codes, uniques = pd.factorize(np.asarray(dataset.item_ids))
        raw = self.estimator_.predict(self.vectorizer_.transform(self._text(dataset, np.asarray(uniques))))
        # nearest level (levels sorted): compare with the midpoints between neighbours
        mid = (self.levels_[1:] + self.levels_[:-1]) / 2.0
        out: np.ndarray = self.levels_[np.searchsorted(mid, raw)][codes]
        return out
