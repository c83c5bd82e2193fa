"""A logistic regression trained on part of a table's rows and scored on the others (the command line's
``--model logistic``): predictions to audit when a table holds the truth but no model's output.

References:
    scikit-learn's ``LogisticRegression``, ``OneHotEncoder``, ``StandardScaler`` and ``train_test_split``
    (F. Pedregosa et al., JMLR 12, 2011).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from ..._validation import check_random_state, is_number

__all__ = ["HeldOutPredictions", "held_out_logistic"]


@dataclass(frozen=True)
class HeldOutPredictions:
    """What :func:`held_out_logistic` trained and predicted.

    Attributes:
        test_rows: positions of the held-out rows, in table order.
        predictions: 1 where the model predicts the favourable label on the held-out rows, else 0.
        n_train: rows the model was trained on.
        n_attributes: columns it learned from.
        test_size: the share of rows held out.
    """

    test_rows: npt.NDArray[np.int64]
    predictions: npt.NDArray[np.int64]
    n_train: int
    n_attributes: int
    test_size: float


def held_out_logistic(
    X: pd.DataFrame,
    positive: Any,
    *,
    test_size: float = 0.3,
    random_state: int | None = 0,
    categorical: Sequence[str] = (),
) -> HeldOutPredictions:
    """Train a logistic regression on a stratified share of the rows and predict the held-out rows.

    Non-numeric columns (and the ``categorical`` ones) are one-hot coded, the numeric ones standardised; the
    split is stratified by the label, so both parts hold both labels.

    Args:
        X: the attribute columns, one row per instance.
        positive: per row, whether the truth is the favourable label (booleans or 0/1).
        test_size: share of the rows held out, strictly between 0 and 1.
        random_state: seed of the split (an int, or None for a fresh one).
        categorical: numeric columns to code as categories too.

    Returns:
        HeldOutPredictions: the held-out rows (in table order) and the predictions on them.

    Raises:
        TypeError: ``X`` is not a DataFrame.
        ValueError: ``test_size`` outside (0, 1), ``positive`` of another length than ``X``, fewer than 2 rows of
            a label, or ``categorical`` naming no column of ``X``.
    """
    from sklearn.compose import ColumnTransformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    if not isinstance(X, pd.DataFrame):
        raise TypeError(f"X must be a pandas DataFrame, got {type(X).__name__}")
    if not is_number(test_size) or not 0.0 < float(test_size) < 1.0:
        raise ValueError(f"test_size must be a share strictly between 0 and 1, got {test_size!r}")
    y = np.asarray(positive).astype(bool)
    if y.shape != (len(X),):
        raise ValueError(f"positive must hold one value per row of X ({len(X)}), got shape {y.shape}")
    unknown = [c for c in categorical if c not in X.columns]
    if unknown:
        raise ValueError(f"categorical: unknown column(s) {unknown}; the columns of X are {list(X.columns)}")
    counts = np.bincount(y.astype(np.int64), minlength=2)
    if counts.min() < 2:
        raise ValueError(f"a logistic regression on a split of the rows needs at least 2 rows of each label; the "
                         f"table has {counts[1]} favourable and {counts[0]} other")
    seed = int(check_random_state(random_state).integers(2**32 - 1)) if random_state is None else random_state
    cat = [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c]) or c in categorical]
    num = [c for c in X.columns if c not in cat]
    prep = ColumnTransformer([("cat", OneHotEncoder(handle_unknown="ignore"), cat), ("num", StandardScaler(), num)])
    rows = np.arange(len(X))
    train, test = train_test_split(rows, test_size=float(test_size), random_state=seed, stratify=y)
    train, test = np.sort(train), np.sort(test)  # held-out rows in table order
    model = make_pipeline(prep, LogisticRegression(max_iter=1000)).fit(X.iloc[train], y[train])
    pred = np.asarray(model.predict(X.iloc[test])).astype(np.int64)
    return HeldOutPredictions(test.astype(np.int64), pred, len(train), X.shape[1], float(test_size))
