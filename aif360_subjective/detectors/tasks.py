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

Each task is an object of the registry (:data:`TASK_TYPES`: :class:`BinaryTask`, :class:`MultiClassTask`,
:class:`OrdinalTask`, :class:`RegressionTask`, subclasses of :class:`Task`) that answers every question the
analysis, the report, the command line and the dashboard ask of a task: its outcome columns, metrics, default
metric, label text and the options it refuses. No other module branches on a task's name.

``task="auto"`` decides: two values are binary; non-numeric values with more than two levels are multi-class
(ordinal when a pandas ordered categorical); integers with at most :data:`MAX_ORDINAL_LEVELS` levels are
ordinal; other numbers are a regression. :attr:`Task.reason` says what was decided and why, so that integer
codes of unordered classes can be told apart (``task="multiclass"``).

References:
    J. Schäfer and L. Wiese, "ASDF-Dashboard: Automated Subgroup Detection and Fairness Analysis" (binary
    classification only, which this module extends).
    M. Lemmerich and M. Becker, "pysubgroup: Easy-to-Use Subgroup Discovery in Python", ECML PKDD 2018 (its
    targets, one class per kind of outcome); AIF360's MDSS ``ScoringFunctions`` (one class per outcome
    distribution) model the same axis.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from .._param_tables import SUBGROUP_PARAMS
from .._validation import check_choice, plain
from .error_control.continuous import OutcomeColumn
from .subgroup_metrics import ALL_METRICS, METRICS, base_metric

__all__ = ["MAX_ORDINAL_LEVELS", "TASKS", "TASK_METRICS", "TASK_TYPES", "BinaryTask", "MultiClassTask",
           "OrdinalTask", "RegressionTask", "Task", "analysis_task", "check_loss", "label_values", "names_decisions",
           "names_label_task", "outcome_columns", "resolve_task", "task_type"]

#: The values of ``task`` (the subgroup parameter table's).
TASKS: tuple[str, ...] = SUBGROUP_PARAMS.choices("task")
#: Integer labels with at most this many levels are taken as ordinal by ``task="auto"`` (rating scales).
MAX_ORDINAL_LEVELS = 11


@dataclass(frozen=True)
class Task:
    """The task of an audit: what its labels are, which per-row values it compares and how it speaks of them.

    One class per task (:data:`TASK_TYPES`); every question the analysis, the report, the command line and the
    dashboard ask of a task is a member here, so that no other code branches on a task's name.

    Attributes:
        classes: the label values (sorted where they have an order), or None for a regression.
        reason: what was decided and why (``task="auto"``), or that it was given.
        name: ``"binary"``, ``"multiclass"``, ``"ordinal"`` or ``"regression"`` (a class attribute).
        decisions: the labels are binary decisions: the metrics come from the confusion counts of the favourable
            label, and the seed's views (radar of rates, per-cluster rates, the fairness-aware choice of k,
            the other clusterers' comparison) apply; otherwise the subgroups' means of per-row values
            (:meth:`outcome_columns`) are compared.
        metrics: the metrics a ranking of its reports accepts (``mean_loss`` joins them with a ``loss``), the
            first being the default (:attr:`default_metric`).
        favourable: how its reports say which side is favourable (after the sign of each metric).
    """

    classes: tuple[Any, ...] | None
    reason: str

    name: ClassVar[str] = ""
    decisions: ClassVar[bool] = False
    metrics: ClassVar[tuple[str, ...]] = ()
    favourable: ClassVar[str] = ""
    #: Whether its labels are classes (:attr:`classes`; a regression's are numbers).
    has_classes: ClassVar[bool] = True
    #: The note ``task="auto"`` adds after choosing this task (how to choose another reading of the labels).
    auto_hint: ClassVar[str] = ""

    @property
    def default_metric(self) -> str:
        """The metric a report of this task leads with (its summary's headline, a ranking's default)."""
        return self.metrics[0]

    @property
    def default_direction(self) -> str:
        """The side on which :attr:`default_metric` says a subgroup is disadvantaged (``"larger"`` or
        ``"smaller"``, :class:`~.subgroup_metrics.SubgroupMetric`)."""
        return ALL_METRICS[self.default_metric].direction

    @property
    def headline(self) -> str:
        """How a report's one-line summary names its mean metric (``SubgroupReport``'s repr)."""
        return f"{self.default_metric} ({self.name})"

    # ------------------------------------------------------------------ label text
    def label_line(self, favourable_label: str) -> str:
        """The console line naming what the labels are (the favourable label of binary decisions, else the
        task)."""
        return f"task: {self.name}"

    def label_sentence(self, favourable_label: str) -> str:
        """The report summary's sentence on the labels (the favourable label, or what ``task`` decided)."""
        return f"{self.reason[0].upper()}{self.reason[1:]}."

    def sign_sentence(self, names: tuple[str, ...], word: Callable[[str], str]) -> str:
        """Which sign of each of the metric columns ``names`` means "disadvantaged", and which side counts as
        favourable (``word`` writes a metric column inside a sentence)."""
        larger = [word(m) for m in names if ALL_METRICS[base_metric(m)].direction == "larger"]
        smaller = [word(m) for m in names if ALL_METRICS[base_metric(m)].direction == "smaller"]
        parts = (["a positive " + ", ".join(larger)] if larger else []) + (
            ["a negative " + ", ".join(smaller)] if smaller else [])
        bases = {base_metric(m) for m in names}
        how = ["means: subgroup minus rest"]
        if "statistical_parity" in bases:
            how.append("statistical parity: rest minus subgroup")
        if "accuracy_error" in bases:
            how.append("accuracy error: subgroup minus all rows")
        text = " or ".join(parts)
        return f"{text[0].upper()}{text[1:]} means the subgroup is disadvantaged ({'; '.join(how)}); {self.favourable}."

    # ------------------------------------------------------------------ metrics
    def ranking_arguments(self, column: str) -> tuple[str, Any]:
        """The ``(metric, label)`` of ``SubgroupReport.ranking`` that ranks by metric column ``column``
        (``statistical_parity[c]`` is ``statistical_parity`` with the class ``c``, as the labels hold it)."""
        base = base_metric(column)
        if base == column:
            return column, None
        classes = {str(c): c for c in (self.classes or ())}
        return base, classes.get(column[len(base) + 1:-1])

    def summary(self, parts: Mapping[str, pd.DataFrame], names: tuple[str, ...]) -> pd.DataFrame:
        """A report's summary (the dashboard's radar): a row per kind of :meth:`summary_means` of its metric table
        ``parts[kind]`` (index ``kind``)."""
        rows = {kind: self.summary_means(part, names) for kind, part in parts.items()}
        out = pd.DataFrame.from_dict(rows, orient="index", columns=self.summary_columns(names))
        out.index.name = "kind"
        return out

    def summary_means(self, part: pd.DataFrame, names: tuple[str, ...]) -> dict[str, float]:
        """One kind's row of the report's summary (its radar): the mean absolute value of each metric column of
        ``part`` (NaN skipped)."""
        return {m: part[m].abs().mean() for m in names}

    def summary_columns(self, names: tuple[str, ...]) -> list[str] | None:
        """The summary's columns (None: those of :meth:`summary_means`)."""
        return list(names)

    def family_text(self, names: tuple[str, ...]) -> str:
        """What the findings' family holds, in words."""
        return ("every subgroup of every kind, the metrics " + ", ".join(names)
                + " (a studentized difference of means each), both directions; permutation max-T")

    # ------------------------------------------------------------------ per-row values
    def check_options(self, n_clusters: Any, sample_weight: Any, loss: Any) -> None:
        """What this task does not take (``detect_subgroups``' arguments).

        Raises:
            ValueError: per-row weights, or a list of ``n_clusters`` (the fairness-aware choice of k compares
                binary rates).
        """
        if sample_weight is not None:
            raise ValueError(f"sample_weight applies to binary decisions; task={self.name!r} compares unweighted "
                             "means")
        if n_clusters is not None and not isinstance(n_clusters, int | np.integer):
            raise ValueError(f"n_clusters={n_clusters!r}: the fairness-aware choice of k compares binary rates; give "
                             f"one number of clusters (or None) with task={self.name!r}")

    def outcome_columns(self, y_true: Any, y_pred: Any, loss: np.ndarray | None = None,
                        labels: Any = None) -> list[OutcomeColumn]:
        """The per-row values compared for this task (see the module's docstring), in the registry's order.

        Args:
            y_true, y_pred: the labels.
            loss: a checked per-row loss (:func:`check_loss`), added as ``mean_loss``.
            labels: for a multi-class task, the classes whose one-vs-rest statistical parity is computed (default
                every class); each column is named ``statistical_parity[<class>]``.

        Raises:
            ValueError: a ``labels`` value that is not a class.
        """
        cols = self._columns(_values(y_true, "y_true"), _values(y_pred, "y_pred"), labels)
        if loss is not None:
            is01 = bool(np.all((loss == 0) | (loss == 1)))
            cols.append(OutcomeColumn("mean_loss", loss, "proportion" if is01 else "mean", "S-R", True))
        return cols

    def _columns(self, t: pd.Series, p: pd.Series, labels: Any) -> list[OutcomeColumn]:
        return []

    @classmethod
    def check_given(cls, k: int, classes: tuple[Any, ...] | None, numeric: bool, ordered: bool,
                    levels: list[Any]) -> None:
        """Refuse labels this task cannot read when ``task`` names it (``k`` label values, ``levels``)."""


def _scale_columns(task: Task, t: pd.Series, p: pd.Series) -> list[OutcomeColumn]:
    """Mean absolute error, mean error and mean prediction on the numeric scale of the labels."""
    tv, pv = _scale(t, task), _scale(p, task)
    return [
        OutcomeColumn("mean_absolute_error", np.abs(pv - tv), "mean", "S-R", True),
        OutcomeColumn("mean_error", pv - tv, "mean", "S-R", False),
        OutcomeColumn("mean_prediction", pv, "mean", "S-R", False),
    ]


def _accuracy_column(t: pd.Series, p: pd.Series) -> OutcomeColumn:
    """Exact agreement of truth and prediction."""
    correct = (t.astype(object).to_numpy() == p.astype(object).to_numpy()).astype(np.float64)
    return OutcomeColumn("accuracy_error", correct, "proportion", "S-all", False)


def _check_scale(name: str, numeric: bool, ordered: bool, levels: list[Any]) -> None:
    """A task given that reads a numeric scale needs numeric (or ordered categorical) labels."""
    if not (numeric or ordered):
        kind = "a regression" if name == RegressionTask.name else "an ordinal"
        bad = [v for v in levels if not isinstance(v, int | float | np.number)][:5]
        raise ValueError(f"task={name!r} needs numeric labels ({kind} scale), got values such as {bad}; "
                         "pass task='multiclass' for unordered classes")


@dataclass(frozen=True)
class BinaryTask(Task):
    """Binary decisions: the confusion counts of the favourable label (the seed's metrics)."""

    name: ClassVar[str] = "binary"
    decisions: ClassVar[bool] = True
    metrics: ClassVar[tuple[str, ...]] = METRICS

    @property
    def headline(self) -> str:
        """Statistical parity, abbreviated."""
        return "SP"

    def label_line(self, favourable_label: str) -> str:
        """The favourable label."""
        return f"favourable label: {favourable_label}"

    def label_sentence(self, favourable_label: str) -> str:
        """The favourable label."""
        return f"Favourable label {favourable_label}."

    def sign_sentence(self, names: tuple[str, ...], word: Callable[[str], str]) -> str:
        """The seed's metrics' signs."""
        return ("Positive values of statistical parity, equal opportunity and equalized odds (rest minus subgroup), "
                "negative accuracy errors and an accuracy below the overall one mean the subgroup is disadvantaged.")

    def summary_means(self, part: pd.DataFrame, names: tuple[str, ...]) -> dict[str, float]:
        """The seed's radar: the signed mean accuracy error, the means of the absolute statistical parity, equal
        opportunity and equalized odds, and the mean accuracy."""
        return {
            "accuracy_error": part["accuracy_error"].mean(),
            "statistical_parity": part["statistical_parity"].abs().mean(),
            "equal_opportunity": part["equal_opportunity"].abs().mean(),
            "equalized_odds": part["equalized_odds"].abs().mean(),
            "accuracy": part["accuracy"].mean(),
        }

    def summary_columns(self, names: tuple[str, ...]) -> list[str] | None:
        """Those of the radar."""
        return None

    def family_text(self, names: tuple[str, ...]) -> str:
        """The binary engine's tests (:data:`~.maxt.TESTS`)."""
        from .error_control.maxt import TESTS

        return ("every subgroup of every kind, the tests " + ", ".join(TESTS)
                + " (accuracy error shares accuracy's, the false negative rate equal opportunity's), both "
                  "directions; permutation max-T")

    def check_options(self, n_clusters: Any, sample_weight: Any, loss: Any) -> None:
        """Binary decisions take no per-row loss (their metrics come from the confusion counts)."""
        if loss is not None:
            raise ValueError("loss= is compared as mean_loss by a task other than binary; for binary decisions "
                             "the metrics come from the confusion counts (pass task='multiclass' to audit a loss "
                             "beside the accuracy)")

    @classmethod
    def check_given(cls, k: int, classes: tuple[Any, ...] | None, numeric: bool, ordered: bool,
                    levels: list[Any]) -> None:
        """At most two label values."""
        if k > 2:
            raise ValueError(f"task='binary' but y_true and y_pred take {k} values {list(classes or ())[:10]}; "
                             "pass task='multiclass' (unordered classes), 'ordinal' or 'regression'")


@dataclass(frozen=True)
class MultiClassTask(Task):
    """Unordered classes: accuracy error, and each class's prediction rate against the others."""

    name: ClassVar[str] = "multiclass"
    metrics: ClassVar[tuple[str, ...]] = ("accuracy_error", "statistical_parity")
    favourable: ClassVar[str] = ("each class's statistical parity counts being predicted that class as favourable "
                                 "(whether it is depends on the class)")

    def _columns(self, t: pd.Series, p: pd.Series, labels: Any) -> list[OutcomeColumn]:
        chosen = list(self.classes or ()) if labels is None else [plain(v) for v in np.atleast_1d(labels)]
        unknown = [c for c in chosen if c not in (self.classes or ())]
        if unknown:
            raise ValueError(f"label={unknown[0]!r} is not a class of the labels {list(self.classes or ())}")
        pred = p.astype(object).to_numpy()
        return [_accuracy_column(t, p), *(
            OutcomeColumn(f"statistical_parity[{plain(c)}]", (pred == c).astype(np.float64), "proportion", "R-S",
                          True) for c in chosen)]


@dataclass(frozen=True)
class OrdinalTask(Task):
    """A few ordered levels (ratings 1-5): the numeric scale's three metrics and accuracy error."""

    name: ClassVar[str] = "ordinal"
    metrics: ClassVar[tuple[str, ...]] = ("mean_absolute_error", "mean_error", "mean_prediction", "accuracy_error")
    favourable: ClassVar[str] = "higher predictions count as favourable"
    auto_hint: ClassVar[str] = (" (pass task='multiclass' if the codes are unordered classes, task='regression' to "
                                "compare their means only)")

    def _columns(self, t: pd.Series, p: pd.Series, labels: Any) -> list[OutcomeColumn]:
        return [*_scale_columns(self, t, p), _accuracy_column(t, p)]

    @classmethod
    def check_given(cls, k: int, classes: tuple[Any, ...] | None, numeric: bool, ordered: bool,
                    levels: list[Any]) -> None:
        """Numeric or ordered labels."""
        _check_scale(cls.name, numeric, ordered, levels)


@dataclass(frozen=True)
class RegressionTask(Task):
    """A numeric target: mean absolute error, mean error (bias) and mean prediction."""

    name: ClassVar[str] = "regression"
    metrics: ClassVar[tuple[str, ...]] = ("mean_absolute_error", "mean_error", "mean_prediction")
    favourable: ClassVar[str] = "higher predictions count as favourable"
    has_classes: ClassVar[bool] = False

    def _columns(self, t: pd.Series, p: pd.Series, labels: Any) -> list[OutcomeColumn]:
        return _scale_columns(self, t, p)

    @classmethod
    def check_given(cls, k: int, classes: tuple[Any, ...] | None, numeric: bool, ordered: bool,
                    levels: list[Any]) -> None:
        """Numeric labels."""
        _check_scale(cls.name, numeric, ordered, levels)


#: The task registry: name -> class (the subgroup parameter table's tasks but ``"auto"``).
TASK_TYPES: dict[str, type[Task]] = {t.name: t for t in (BinaryTask, MultiClassTask, OrdinalTask, RegressionTask)}
#: Per task, its metrics (``mean_loss`` joins them when a ``loss`` is given; multi-class statistical parity is
#: one class against the others, ``label=``).
TASK_METRICS: dict[str, tuple[str, ...]] = {name: t.metrics for name, t in TASK_TYPES.items()}


def task_type(name: str) -> type[Task]:
    """The class of the task named ``name``.

    Raises:
        ValueError: ``name`` is not a task of the registry (``"auto"`` included: it decides from the labels).
    """
    check_choice(name, "task", tuple(TASK_TYPES))
    return TASK_TYPES[name]


def names_decisions(task: str) -> bool:
    """Whether a ``task`` choice names binary decisions (``"auto"`` does not: it decides from the labels)."""
    return task in TASK_TYPES and TASK_TYPES[task].decisions


def names_label_task(task: str) -> bool:
    """Whether a ``task`` choice names a task that compares the labels as they are (multi-class, ordinal,
    regression; neither binary decisions nor ``"auto"``)."""
    return task in TASK_TYPES and not TASK_TYPES[task].decisions


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
    kind: type[Task]
    if task == "auto":
        if k <= 2:
            kind, why = BinaryTask, f"the labels take {k} values {list(classes or ())}"
        elif ordered:
            kind, why = OrdinalTask, f"the labels are an ordered categorical of {k} levels"
        elif not numeric:
            kind, why = MultiClassTask, f"the labels take {k} non-numeric values"
        elif integral and k <= MAX_ORDINAL_LEVELS:
            kind, why = OrdinalTask, (f"the labels are {k} integer levels from {classes[0]} to {classes[-1]}"
                                      if classes else "")
        else:
            kind, why = RegressionTask, ("the labels are numbers with " + ("fractions" if not integral
                                                                            else f"{k} levels"))
        reason = f"task='auto' chose {kind.name!r}: {why}{kind.auto_hint}"
    else:
        kind, reason = TASK_TYPES[task], f"task={task!r} (given)"
        kind.check_given(k, classes, numeric, ordered, levels.tolist())
    return kind(classes if kind.has_classes else None, reason)


def analysis_task(y_true: Any, y_pred: Any, task: str, n: int) -> Task:
    """The task of a ``detect_subgroups`` analysis. Two-valued labels under ``task="auto"`` are binary decisions,
    checked (with their usual messages) by ``check_labels``, as are the labels of ``task="binary"``; anything else
    by :func:`resolve_task`."""
    if names_decisions(task):  # check_labels validates, with its own messages
        return BinaryTask((), "task='binary' (given)")
    if task == "auto":
        try:
            values = pd.unique(pd.concat([pd.Series(np.asarray(label_values(y)).ravel()) for y in (y_true, y_pred)],
                                         ignore_index=True).dropna())
        except (TypeError, ValueError):  # ragged or odd input: resolve_task and check_labels say what is wrong
            values = np.zeros(0)
        if len(values) <= 2:
            return BinaryTask(tuple(values.tolist()), f"task='auto' chose 'binary': the labels take "
                                                      f"{len(values)} values {values.tolist()}")
    return resolve_task(y_true, y_pred, task, n)


def label_values(y: Any) -> Any:
    """Labels as plain values (a one-column DataFrame or Series as its values; anything else as an array)."""
    if isinstance(y, pd.DataFrame):
        return y.iloc[:, 0].to_numpy()
    return y.to_numpy() if isinstance(y, pd.Series) else np.asarray(y)


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
    """The per-row values compared for ``task`` (:meth:`Task.outcome_columns`).

    Args:
        task: from :func:`resolve_task`.
        y_true, y_pred: the labels.
        loss: a checked per-row loss (:func:`check_loss`), added as ``mean_loss``.
        labels: for a multi-class task, the classes whose one-vs-rest statistical parity is computed (default
            every class); each column is named ``statistical_parity[<class>]``.

    Returns:
        list: the outcome columns.
    """
    return task.outcome_columns(y_true, y_pred, loss, labels)


def _scale(s: pd.Series, task: Task) -> np.ndarray:
    """Numeric values of an ordinal or regression label (an ordered categorical by its level codes + 1)."""
    if isinstance(s.dtype, pd.CategoricalDtype):  # level 1, 2, ... in the order of the task's classes
        rank = {c: i + 1.0 for i, c in enumerate(task.classes or ())}
        return s.astype(object).map(rank).to_numpy(dtype=np.float64)
    return s.to_numpy(dtype=np.float64)
