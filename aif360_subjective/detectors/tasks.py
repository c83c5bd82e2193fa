"""What kind of model is audited (binary, multi-class, ordinal, regression) and the per-row values each task compares.

The ASDF paper audits binary classifiers only. Subjective labels are often ordinal (POPQUORN 1-5, CSC 1-6) and
many audited models are multi-class classifiers or regressors: :func:`resolve_task` decides (or checks) the
task from the labels, and :func:`outcome_columns` turns truth and prediction into the per-row values whose
subgroup means are compared with the rest's (:class:`~.continuous.OutcomeColumn`):

* **regression** (a numeric target): ``mean_absolute_error`` (``|yhat - y|``), ``mean_error`` (the signed bias
  ``yhat - y``) and ``mean_prediction`` (``yhat``, the analogue of statistical parity);
* **ordinal** (a few ordered levels: ratings 1-5): the three above on the numeric scale, and ``accuracy_error``
  (exact agreement);
* **multiclass** (unordered classes): ``accuracy_error``, and ``statistical_parity`` of each class against the
  others (one-vs-rest: the share of the subgroup predicted that class);
* any task: ``mean_loss``, a per-row loss given as an array or a callable ``loss(y_true, y_pred)``.

``task="auto"`` decides: two values are binary; non-numeric values with more than two levels are multi-class
(ordinal when a pandas ordered categorical); integers with at most :data:`MAX_ORDINAL_LEVELS` levels are
ordinal; other numbers are a regression. :attr:`Task.reason` says what was decided and why, so that integer
codes of unordered classes can be told apart (``task="multiclass"``).

References:
    J. Schäfer and L. Wiese, "ASDF-Dashboard: Automated Subgroup Detection and Fairness Analysis" (binary
    classification only, which this module extends).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._param_tables import SUBGROUP_PARAMS
from .._validation import check_choice, plain
from .continuous import OutcomeColumn

__all__ = ["MAX_ORDINAL_LEVELS", "TASKS", "Task", "check_loss", "outcome_columns", "resolve_task"]

#: The values of ``task`` (the subgroup parameter table's).
TASKS: tuple[str, ...] = SUBGROUP_PARAMS.choices("task")
#: Integer labels with at most this many levels are taken as ordinal by ``task="auto"`` (rating scales).
MAX_ORDINAL_LEVELS = 11


@dataclass(frozen=True)
class Task:
    """The task of an audit.

    Attributes:
        name: ``"binary"``, ``"multiclass"``, ``"ordinal"`` or ``"regression"``.
        classes: the label values (sorted where they have an order), or None for a regression.
        reason: what was decided and why (``task="auto"``), or that it was given.
    """

    name: str
    classes: tuple[Any, ...] | None
    reason: str


def _values(y: Any, name: str) -> pd.Series:
    """A label vector as a Series with a 0..n-1 index."""
    if isinstance(y, pd.DataFrame):
        if y.shape[1] != 1:
            raise ValueError(f"{name} must be one column, got {y.shape[1]} columns")
        y = y.iloc[:, 0]
    if isinstance(y, pd.Series):
        return y.reset_index(drop=True)
    arr = np.asarray(y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr.ravel()
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-dimensional, got shape {arr.shape}")
    return pd.Series(arr)


def _numeric(s: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)


def resolve_task(y_true: Any, y_pred: Any, task: str = "auto", n: int | None = None) -> Task:
    """Decide (``"auto"``) or check the task from the truth and the prediction.

    Args:
        y_true: ground truth (1-d).
        y_pred: prediction (1-d, same length).
        task: one of :data:`TASKS`.
        n: the rows of ``X`` the labels must align with (optional).

    Returns:
        Task: the task, its classes and a sentence saying what was decided.

    Raises:
        ValueError: an unknown task; lengths that differ; missing values; a regression target (or
            prediction) that is not numeric or holds inf; ``task="binary"`` with more than two label values.
    """
    check_choice(task, "task", TASKS)
    t, p = _values(y_true, "y_true"), _values(y_pred, "y_pred")
    for name, s in (("y_true", t), ("y_pred", p)):
        if n is not None and len(s) != n:
            raise ValueError(f"{name} has {len(s)} values but X has {n} rows; they must be aligned")
    if len(t) != len(p):
        raise ValueError(f"y_true has {len(t)} values and y_pred {len(p)}; they must be aligned")
    for name, s in (("y_true", t), ("y_pred", p)):
        if s.isna().any():
            raise ValueError(f"{name} contains {int(s.isna().sum())} missing values (NaN); every row needs a "
                             "label")
    if _numeric(t) != _numeric(p) and not any(isinstance(s.dtype, pd.CategoricalDtype) for s in (t, p)):
        num, other = ("y_true", "y_pred") if _numeric(t) else ("y_pred", "y_true")
        shown = pd.unique((p if num == "y_true" else t).astype(object))[:5].tolist()
        raise ValueError(f"{num} holds numbers and {other} does not (values such as {shown}): truth and "
                         "prediction must be labels on one scale")
    if task in ("auto", "multiclass") and not (_numeric(t) and _numeric(p)):
        common = set(pd.unique(t.astype(object)).tolist()) & set(pd.unique(p.astype(object)).tolist())
        if not common:
            raise ValueError(f"y_pred's values {pd.unique(p.astype(object))[:5].tolist()} share none with "
                             f"y_true's {pd.unique(t.astype(object))[:5].tolist()}: they must be labels of the "
                             "same classes")
    ordered = any(isinstance(s.dtype, pd.CategoricalDtype) and s.dtype.ordered for s in (t, p))
    numeric = _numeric(t) and _numeric(p)
    if numeric:
        for name, s in (("y_true", t), ("y_pred", p)):
            bad = ~np.isfinite(s.to_numpy(dtype=np.float64))
            if bad.any():
                raise ValueError(f"{name} contains {int(bad.sum())} infinite value(s) (first at row "
                                 f"{int(np.flatnonzero(bad)[0])}); drop or cap them")
    levels = pd.unique(pd.concat([t.astype(object), p.astype(object)], ignore_index=True))
    k = len(levels)
    integral = numeric and bool(np.all(np.mod(np.concatenate([t.to_numpy(np.float64), p.to_numpy(np.float64)]), 1)
                                       == 0))
    cat = next((s.dtype for s in (t, p) if isinstance(s.dtype, pd.CategoricalDtype) and s.dtype.ordered), None)
    if cat is not None:  # an ordered categorical: its own order of levels
        classes: tuple[Any, ...] | None = tuple(c for c in cat.categories if c in set(levels.tolist()))
    else:
        classes = tuple(sorted(levels.tolist())) if numeric else tuple(sorted(levels.tolist(), key=str))
    if task == "auto" and not any(isinstance(x.dtype, pd.CategoricalDtype) for x in (t, p)):
        # no guess from a prediction outside the truth's few labels (text not among them, or whole numbers outside
        # their range): one stray 3 among 0/1 decisions would make the audit ordinal. A 4 on a 1-5 scale whose truths
        # lack it, fractions predicting whole numbers (a regression) and a categorical (it declares its levels) are
        # not refused.
        true_levels = pd.unique(t.astype(object))
        stray = np.zeros(len(p), dtype=bool)
        if not numeric:
            stray = ~p.astype(object).isin(set(true_levels.tolist())).to_numpy()
        elif integral and len(true_levels) <= MAX_ORDINAL_LEVELS:
            tv, pv = t.to_numpy(np.float64), p.to_numpy(np.float64)
            stray = (pv < tv.min()) | (pv > tv.max())
        if stray.any():
            values = pd.unique(p[stray].astype(object))
            shown = ", ".join(repr(plain(v)) for v in values[:5]) + (
                f", ... ({len(values)} values)" if len(values) > 5 else "")
            rows = int(stray.sum())
            raise ValueError(
                f"y_pred holds {len(values)} value{'' if len(values) == 1 else 's'} that y_true never takes: {shown} "
                f"({rows} row{'' if rows == 1 else 's'}, first at row {int(np.flatnonzero(stray)[0])}); y_true's "
                f"labels are {[plain(v) for v in sorted(true_levels.tolist(), key=str)[:10]]}. task='auto' does not "
                "guess the task from a stray prediction: fix y_pred, or pass task='binary', 'multiclass', 'ordinal' "
                "or 'regression'")
    if task == "auto":
        if k <= 2:
            name, why = "binary", f"the labels take {k} values {list(classes or ())}"
        elif ordered:
            name, why = "ordinal", f"the labels are an ordered categorical of {k} levels"
        elif not numeric:
            name, why = "multiclass", f"the labels take {k} non-numeric values"
        elif integral and k <= MAX_ORDINAL_LEVELS:
            name, why = "ordinal", (f"the labels are {k} integer levels from {classes[0]} to {classes[-1]}"
                                    if classes else "")
        else:
            name, why = "regression", ("the labels are numbers with " + ("fractions" if not integral
                                                                          else f"{k} levels"))
        hint = {"ordinal": " (pass task='multiclass' if the codes are unordered classes, task='regression' to "
                           "compare their means only)",
                "regression": "", "binary": "", "multiclass": ""}[name]
        reason = f"task='auto' chose {name!r}: {why}{hint}"
    else:
        name, reason = task, f"task={task!r} (given)"
        if task == "binary" and k > 2:
            raise ValueError(f"task='binary' but y_true and y_pred take {k} values {list(classes or ())[:10]}; "
                             "pass task='multiclass' (unordered classes), 'ordinal' or 'regression'")
        if task in ("regression", "ordinal") and not (numeric or ordered):
            kind = "a regression" if task == "regression" else "an ordinal"
            bad = [v for v in levels.tolist() if not isinstance(v, int | float | np.number)][:5]
            raise ValueError(f"task={task!r} needs numeric labels ({kind} scale), got values such as {bad}; "
                             "pass task='multiclass' for unordered classes")
    if name == "regression":
        classes = None
    return Task(name, classes, reason)


def check_loss(loss: Any, y_true: Any, y_pred: Any, n: int) -> np.ndarray | None:
    """A per-row loss as a finite float array of ``n`` values.

    Args:
        loss: None, an array of ``n`` values, or a callable ``loss(y_true, y_pred)`` returning one.

    Raises:
        TypeError: neither an array nor a callable.
        ValueError: the wrong shape (the callable's output included), or NaN / inf values.
    """
    if loss is None:
        return None
    what = "loss"
    if callable(loss):
        what = f"loss({getattr(loss, '__name__', 'callable')}) returned an array that"
        loss = loss(np.asarray(y_true), np.asarray(y_pred))
    elif isinstance(loss, str | bytes):
        raise TypeError(f"loss must be a per-row array or a callable loss(y_true, y_pred), got {loss!r}")
    try:
        arr = np.asarray(loss, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise TypeError(f"{what} must hold numbers, got {type(loss).__name__}") from err
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr.ravel()
    if arr.shape != (n,):
        raise ValueError(f"{what} must have shape ({n},) (one loss per row), got {arr.shape}")
    bad = ~np.isfinite(arr)
    if bad.any():
        raise ValueError(f"{what} has {int(bad.sum())} NaN or infinite value(s) (first at row "
                         f"{int(np.flatnonzero(bad)[0])})")
    return arr


def outcome_columns(task: Task, y_true: Any, y_pred: Any, loss: np.ndarray | None = None,
                    labels: Any = None) -> list[OutcomeColumn]:
    """The per-row values compared for ``task`` (see the module's docstring), in the registry's order.

    Args:
        task: from :func:`resolve_task`.
        y_true, y_pred: the labels.
        loss: a checked per-row loss (:func:`check_loss`), added as ``mean_loss``.
        labels: for a multi-class task, the classes whose one-vs-rest statistical parity is computed (default
            every class); each column is named ``statistical_parity[<class>]``.

    Returns:
        list: the outcome columns.
    """
    t, p = _values(y_true, "y_true"), _values(y_pred, "y_pred")
    cols: list[OutcomeColumn] = []
    if task.name in ("ordinal", "regression"):
        tv, pv = _scale(t, task), _scale(p, task)
        cols += [
            OutcomeColumn("mean_absolute_error", np.abs(pv - tv), "mean", "S-R", True),
            OutcomeColumn("mean_error", pv - tv, "mean", "S-R", False),
            OutcomeColumn("mean_prediction", pv, "mean", "S-R", False),
        ]
    if task.name in ("ordinal", "multiclass"):
        correct = (t.astype(object).to_numpy() == p.astype(object).to_numpy()).astype(np.float64)
        cols.append(OutcomeColumn("accuracy_error", correct, "proportion", "S-all", False))
    if task.name == "multiclass":
        chosen = list(task.classes or ()) if labels is None else [plain(v) for v in np.atleast_1d(labels)]
        unknown = [c for c in chosen if c not in (task.classes or ())]
        if unknown:
            raise ValueError(f"label={unknown[0]!r} is not a class of the labels {list(task.classes or ())}")
        pred = p.astype(object).to_numpy()
        for c in chosen:
            cols.append(OutcomeColumn(f"statistical_parity[{plain(c)}]", (pred == c).astype(np.float64), "proportion",
                                      "R-S", True))
    if loss is not None:
        is01 = bool(np.all((loss == 0) | (loss == 1)))
        cols.append(OutcomeColumn("mean_loss", loss, "proportion" if is01 else "mean", "S-R", True))
    return cols


def _scale(s: pd.Series, task: Task) -> np.ndarray:
    """Numeric values of an ordinal or regression label (an ordered categorical by its level codes + 1)."""
    if isinstance(s.dtype, pd.CategoricalDtype):  # level 1, 2, ... in the order of the task's classes
        rank = {c: i + 1.0 for i, c in enumerate(task.classes or ())}
        return s.astype(object).map(rank).to_numpy(dtype=np.float64)
    return s.to_numpy(dtype=np.float64)
