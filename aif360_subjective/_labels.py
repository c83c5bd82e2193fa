"""Label-level concepts shared by the datasets, the metrics and the detectors: one definition of each.

* the majority vote of binary labels with its tie policies,
* the binary entropy of a label share,
* confusion counts (TN, FP, FN, TP) per unit and the rates computed from them,
* the readable name of a group of annotators, items or annotations (a bin, an intersection of attributes).

Everything works in "positive-indicator" space: a label is positive when it equals the favourable label
(AIF360's convention) or the ``pos_label`` of the functional API.

This module sits at the package level, not in ``metrics/``, because ``datasets`` (the lowest layer) needs the
majority vote too and must not import ``metrics``.

References:
    Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine Learning,
    Section 4.1 (majority vote, disagreement with it).
    R. K. E. Bellamy et al., "AI Fairness 360", 2018 (rates from confusion counts).
"""

from __future__ import annotations

from typing import Final, Literal, get_args

import numpy as np
import numpy.typing as npt
import pandas as pd

from ._validation import check_choice

__all__ = [
    "DECIDING_TIE_POLICIES",
    "FN",
    "FP",
    "OneClassPredictionWarning",
    "TIE_POLICIES",
    "TN",
    "TP",
    "TiePolicy",
    "binary_entropy",
    "cell_codes",
    "check_tie",
    "confusion_counts",
    "group_label",
    "majority_vote",
    "one_class_message",
    "ratio",
    "vote_counts",
]

FloatArray = npt.NDArray[np.float64]

#: What an item with as many positive as negative labels becomes in a majority vote.
TiePolicy = Literal["favorable", "unfavorable", "drop"]
#: The tie policies, as strings (the values of :data:`TiePolicy`).
TIE_POLICIES: Final[tuple[str, ...]] = get_args(TiePolicy)
#: The tie policies that always give a label ("drop" leaves a tied vote without one, e.g. no jury verdict).
DECIDING_TIE_POLICIES: Final[tuple[str, ...]] = tuple(t for t in TIE_POLICIES if t != "drop")

#: Confusion cells (positive = favourable): 0 TN, 1 FP, 2 FN, 3 TP (``2 * truth + prediction``).
TN: Final = 0
FP: Final = 1
FN: Final = 2
TP: Final = 3


def check_tie(tie: object, name: str = "tie", *, allow_drop: bool = True) -> str:
    """Validate a majority-vote tie policy.

    Args:
        tie: the value given.
        name: the argument's name (used in the message).
        allow_drop: whether ``"drop"`` (a tie gives no label) is admissible.

    Returns:
        str: ``tie``.

    Raises:
        ValueError: ``tie`` is not one of :data:`TIE_POLICIES` (or :data:`DECIDING_TIE_POLICIES`).
    """
    return check_choice(tie, name, TIE_POLICIES if allow_drop else DECIDING_TIE_POLICIES)


def vote_counts(codes: npt.NDArray[np.int64], positive: npt.NDArray[np.bool_], n_units: int) -> tuple[
    FloatArray, FloatArray
]:
    """Number of labels and of positive labels per unit (e.g. per item).

    Args:
        codes: unit code (0..n_units-1) of every label.
        positive: whether each label is the positive one.
        n_units: number of units.

    Returns:
        ``(n, n_pos)``: float arrays of length ``n_units``.
    """
    n = np.bincount(codes, minlength=n_units).astype(np.float64)
    n_pos = np.bincount(codes, weights=positive, minlength=n_units).astype(np.float64)
    return n, n_pos


def majority_vote(n: npt.ArrayLike, n_pos: npt.ArrayLike, tie: str = "favorable") -> FloatArray:
    """Majority vote per unit in positive-indicator space.

    A unit is positive when strictly more than half of its labels are positive (``2 * n_pos > n``, exact
    for counts in floating point), negative when strictly fewer are; an exact tie follows ``tie``.

    Args:
        n: labels per unit.
        n_pos: positive labels per unit.
        tie: "favorable" (tie -> 1.0), "unfavorable" (tie -> 0.0) or "drop" (tie -> NaN).

    Returns:
        numpy.ndarray: 1.0, 0.0 or NaN per unit.

    Raises:
        ValueError: ``tie`` is not a tie policy.
    """
    check_tie(tie)
    tie_value = {"favorable": 1.0, "unfavorable": 0.0, "drop": np.nan}[tie]
    twice = 2.0 * np.asarray(n_pos, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    return np.where(twice > n, 1.0, np.where(twice < n, 0.0, tie_value))


def binary_entropy(share: FloatArray) -> FloatArray:
    """Binary entropy in bits of a positive share ``p``: ``-(p log2 p + (1-p) log2 (1-p))``, 0 at p in {0, 1}.

    Args:
        share: share of positive labels per unit, in [0, 1].

    Returns:
        numpy.ndarray: values in [0, 1] (never -0.0).
    """
    share = np.asarray(share, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -(share * np.log2(share) + (1.0 - share) * np.log2(1.0 - share))
    return np.where((share == 0.0) | (share == 1.0), 0.0, h) + 0.0  # + 0.0 turns -0.0 into 0.0


def cell_codes(t: npt.NDArray[np.bool_], p: npt.NDArray[np.bool_]) -> npt.NDArray[np.intp]:
    """Confusion cell per row (:data:`TN`, :data:`FP`, :data:`FN`, :data:`TP`) from boolean truth and prediction."""
    return 2 * np.asarray(t).astype(np.intp) + np.asarray(p).astype(np.intp)


def confusion_counts(
    codes: npt.NDArray[np.integer],
    n_units: int,
    cells: npt.NDArray[np.intp],
    weights: FloatArray | None = None,
) -> FloatArray:
    """Confusion counts of every unit in one ``bincount``.

    Args:
        codes: unit code (0..n_units-1) of every row.
        n_units: number of units.
        cells: confusion cell of every row (:func:`cell_codes`).
        weights: optional row weights.

    Returns:
        numpy.ndarray: shape ``(n_units, 4)``, columns TN, FP, FN, TP.
    """
    flat = np.asarray(codes, dtype=np.intp) * 4 + cells
    return np.bincount(flat, weights=weights, minlength=4 * n_units).reshape(n_units, 4).astype(np.float64)


def ratio(num: npt.ArrayLike, den: npt.ArrayLike, fill: float = np.nan) -> FloatArray:
    """``num / den`` where ``den > 0``, ``fill`` elsewhere (an undefined rate)."""
    numerator = np.asarray(num, dtype=np.float64)
    denominator = np.asarray(den, dtype=np.float64)
    out = np.full(numerator.shape, fill, dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


class OneClassPredictionWarning(UserWarning):
    """Every prediction of a model is the same label: a constant classifier, whose performance is that of
    always answering that label and whose fairness figures say nothing about reading the items."""


def one_class_message(predictions: npt.ArrayLike, what: str = "the model") -> str | None:
    """The warning text when ``predictions`` hold a single label value, else None.

    The command line prints it and adds it to the report; :class:`OneClassPredictionWarning` carries it from
    the library's models.

    Args:
        predictions: the predicted labels (any shape; missing values are ignored).
        what: who predicted, for the message (e.g. ``"Model 1 (majority vote)"``).

    Returns:
        str | None: e.g. ``"Model 1 predicts 0 for all 4,578 predictions: a constant classifier. ..."``; None
        for fewer than two predictions.
    """
    values = pd.Series(np.asarray(predictions).ravel()).dropna()
    distinct = values.unique()
    if len(values) < 2 or len(distinct) > 1:  # one prediction is no evidence of a constant classifier
        return None
    value = distinct[0]
    value = value.item() if hasattr(value, "item") else value
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return (f"{what} predicts {value!r} for all {len(values):,} predictions: a constant classifier. Its "
            "performance is that of always answering this label, and its fairness figures measure the labels' "
            "spread, not a model that reads the items.")


def group_label(group: object, spec: str = ".2f", sep: str = "\u2013") -> str:
    """Readable name of a group, the one form used in tables, figures, the command line and text: an
    ADR/ambiguity bin ``0.00–0.07`` (bounds formatted with ``spec``; pandas' widened lowest edge ``-0.000333``
    shows as ``0.00``, never as a negative edge), an intersection of attributes joined by `` & `` (``Man &
    Asian``, each part formatted the same way), a whole float as an integer (``45`` rather than ``45.0``), or
    the value itself."""
    if isinstance(group, pd.Interval):
        return f"{_bound(group.left, spec)}{sep}{_bound(group.right, spec)}"
    if isinstance(group, tuple):
        return " & ".join(group_label(g, spec, sep) for g in group)
    if isinstance(group, float) and group.is_integer():
        return str(int(group))
    return str(group)


def _bound(value: float, spec: str) -> str:
    text = f"{value:{spec}}"
    return text[1:] if text.startswith("-") and float(text) == 0.0 else text
