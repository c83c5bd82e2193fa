"""Per-subgroup fairness metrics from confusion counts, vectorised over subgroups.

For subgroup S and rest R (all other rows), with the favourable label p as the positive class:

* statistical parity ``SP = P(yhat=p | R) - P(yhat=p | S)``
* equal opportunity ``EO = TPR_R - TPR_S``
* equalized odds (average odds) ``((FPR_R - FPR_S) + (TPR_R - TPR_S)) / 2``
* accuracy ``P(yhat = y | S)`` and accuracy error ``accuracy(S) - accuracy(all rows)``
* false positive rate ``FPR_R - FPR_S`` (FPR = P(yhat=p | y!=p): favourable predictions the truth does not
  support; the FPR half of equalized odds, with its own test) and its favourable-side twin, the false negative
  rate ``FNR_S - FNR_R`` (FNR = P(yhat!=p | y=p), rows whose truth is favourable; it equals equal opportunity
  and shares its test, in the error-rate form)

Positive values mean S is disadvantaged. This is AIF360's ``ClassificationMetric`` with
``privileged_groups = S`` and ``unprivileged_groups = R``. Undefined rates (no positives or no negatives on a
side) are NaN (``undefined_rates="nan"``, as ``ClassificationMetric``) or ``TPR := 0``, ``FPR := 1``
(``"asdf"``, as the reference dashboard and ``aif360.sklearn``).

References:
    J. Schäfer and L. Wiese, "ASDF-Dashboard: Automated Subgroup Detection and Fairness Analysis", Table 1.
    R. K. E. Bellamy et al., "AI Fairness 360", 2018 (the metric definitions).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from .._deprecation import moved_names
from .._labels import FN, FP, TN, TP, cell_codes, confusion_counts, ratio

__all__ = [
    "value_format",
    "FAIRNESS_METRICS",
    "METRICS",
    "ALL_METRICS",
    "OUTCOME_METRICS",
    "SUBGROUP_METRICS",
    "SubgroupMetric",
    "base_metric",
    "metric_label",
    "cell_codes",
    "counts_by_label",
    "counts_of_rows",
    "metrics_from_counts",
]


@dataclass(frozen=True)
class SubgroupMetric:
    """One per-subgroup metric as every consumer (detectors, report, plots, command line) describes it.

    Attributes:
        name: the column of :meth:`SubgroupReport.subgroup_metrics`.
        direction: ``"larger"`` or ``"smaller"``: the side on which the subgroup is disadvantaged.
        label: the human-readable name shown in reports and plots.
        formula: the definition, S = the subgroup, R = the rest, p = the favourable label.
        reference: the value meaning "no difference" (``"0"`` or ``"overall accuracy"``).
        fairness: whether it compares the subgroup with the rest and has its own test; accuracy does not (its
            test is accuracy error's).
        tasks: the tasks (:data:`~aif360_subjective.detectors.tasks.TASKS`) whose reports hold it.
    """

    name: str
    direction: Literal["larger", "smaller"]
    label: str
    formula: str
    reference: str = "0"
    fairness: bool = True
    tasks: tuple[str, ...] = ("binary",)


#: The registry of subgroup metrics, in the column order of :meth:`SubgroupReport.subgroup_metrics`.
SUBGROUP_METRICS: dict[str, SubgroupMetric] = {
    m.name: m
    for m in (
        SubgroupMetric("statistical_parity", "larger", "Statistical parity", "P(yhat=p | R) - P(yhat=p | S)",
                       tasks=("binary", "multiclass")),
        SubgroupMetric("equal_opportunity", "larger", "Equal opportunity", "TPR_R - TPR_S"),
        SubgroupMetric(
            "equalized_odds", "larger", "Equalized odds", "((FPR_R - FPR_S) + (TPR_R - TPR_S)) / 2"
        ),
        SubgroupMetric(
            "accuracy", "smaller", "Accuracy", "P(yhat = y | S)", reference="overall accuracy", fairness=False
        ),
        SubgroupMetric("accuracy_error", "smaller", "Accuracy error", "accuracy(S) - accuracy(all rows)",
                       tasks=("binary", "multiclass", "ordinal")),
        SubgroupMetric("false_positive_rate", "larger", "False positive rate", "FPR_R - FPR_S"),
        SubgroupMetric("false_negative_rate", "larger", "False negative rate", "FNR_S - FNR_R"),
    )
}

#: The metrics of multi-class, ordinal and regression models and of a per-row ``loss``
#: (:mod:`~aif360_subjective.detectors.error_control.continuous`: a subgroup's mean of a per-row value against the
#: rest's).
#: Higher predictions are taken as favourable: a subgroup predicted lower than the rest (``mean_prediction``), or
#: under-predicted more (``mean_error``), is on the disadvantaged side.
OUTCOME_METRICS: dict[str, SubgroupMetric] = {
    m.name: m
    for m in (
        SubgroupMetric("mean_absolute_error", "larger", "Mean absolute error", "mean|yhat - y| (S) - (R)",
                       tasks=("ordinal", "regression")),
        SubgroupMetric("mean_error", "smaller", "Mean error (bias)", "mean(yhat - y) (S) - (R)",
                       tasks=("ordinal", "regression")),
        SubgroupMetric("mean_prediction", "smaller", "Mean prediction", "mean(yhat) (S) - (R)",
                       tasks=("ordinal", "regression")),
        SubgroupMetric("mean_loss", "larger", "Mean loss", "mean loss (S) - (R)",
                       tasks=("binary", "multiclass", "ordinal", "regression")),
    )
}

#: Metric columns of :meth:`SubgroupReport.subgroup_metrics` of a binary decision, in order.
METRICS: tuple[str, ...] = tuple(SUBGROUP_METRICS)
#: Every metric of every task, binary first.
ALL_METRICS: dict[str, SubgroupMetric] = {**SUBGROUP_METRICS, **OUTCOME_METRICS}
#: The metrics comparing the subgroup with the rest (each has its own test): every metric but accuracy.
FAIRNESS_METRICS: tuple[str, ...] = tuple(m for m in METRICS if SUBGROUP_METRICS[m].fairness)
# TASK_METRICS (per task, its metrics) is the task registry's: :data:`~.tasks.TASK_METRICS`, each task's
# ``metrics`` (:class:`~.tasks.Task`).

def base_metric(name: str) -> str:
    """The registry name of a metric column: ``statistical_parity[c]`` (one class against the others) is
    ``statistical_parity``."""
    return name.split("[", 1)[0] if name.endswith("]") and "[" in name else name


def metric_label(name: str) -> str:
    """The human-readable name of a metric column (``statistical_parity[c]`` -> "Statistical parity (class c)");
    an unknown name as it is."""
    m = ALL_METRICS.get(base_metric(name))
    if m is None:
        return name
    return f"{m.label} (class {name[len(m.name) + 1:-1]})" if name != m.name else m.label


def value_format(name: str) -> str:
    """The format of a metric's values in sentences and tables: signed (``+.3f``) for a difference from the rest
    (its reference is 0), plain (``.3f``) for a level such as the subgroup's accuracy, which has no sign to show."""
    m = ALL_METRICS.get(base_metric(name))
    return ".3f" if m is not None and m.reference != "0" else "+.3f"


# Confusion cells (positive = favourable): TN, FP, FN, TP = 0, 1, 2, 3 and ``cell_codes`` come from the shared
# label module, as do the counts of a partition.


def counts_by_label(cell: np.ndarray, idx: np.ndarray, k: int, weights: np.ndarray | None) -> np.ndarray:
    """(k, 4) confusion counts of a partition (row i in group ``idx[i]``), one ``bincount``."""
    return confusion_counts(idx, k, cell, weights)


def counts_of_rows(cell: np.ndarray, rows: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    """(4,) confusion counts of one subgroup given by its row indices."""
    w = None if weights is None else weights[rows]
    return np.bincount(cell[rows], weights=w, minlength=4).astype(np.float64)


def metrics_from_counts(S: np.ndarray, total: np.ndarray, undefined_rates: str = "nan") -> pd.DataFrame:
    """The metrics of every subgroup (:data:`METRICS`) from its confusion counts.

    Args:
        S: (k, 4) counts of the subgroups (TN, FP, FN, TP with the favourable label positive).
        total: (4,) counts of the whole dataset.
        undefined_rates: ``"nan"`` or ``"asdf"`` (TPR := 0, FPR := 1 where undefined).

    Returns:
        pandas.DataFrame: k rows, columns :data:`METRICS`.
    """
    S = np.atleast_2d(S)
    R = total[None, :] - S
    nan = np.nan
    tpr_fill, fpr_fill = (0.0, 1.0) if undefined_rates == "asdf" else (nan, nan)
    n_S, n_R = S.sum(axis=1), R.sum(axis=1)
    sel_S = ratio(S[:, FP] + S[:, TP], n_S, nan)
    sel_R = ratio(R[:, FP] + R[:, TP], n_R, nan)
    tpr_S = ratio(S[:, TP], S[:, TP] + S[:, FN], tpr_fill)
    tpr_R = ratio(R[:, TP], R[:, TP] + R[:, FN], tpr_fill)
    fpr_S = ratio(S[:, FP], S[:, FP] + S[:, TN], fpr_fill)
    fpr_R = ratio(R[:, FP], R[:, FP] + R[:, TN], fpr_fill)
    acc_S = ratio(S[:, TP] + S[:, TN], n_S, nan)
    acc_all = (total[TP] + total[TN]) / total.sum() if total.sum() > 0 else nan
    eo = tpr_R - tpr_S
    out = pd.DataFrame(
        {
            "statistical_parity": sel_R - sel_S,
            "equal_opportunity": eo,
            "equalized_odds": ((fpr_R - fpr_S) + eo) / 2.0,
            "accuracy": acc_S,
            "accuracy_error": acc_S - acc_all,
            "false_positive_rate": fpr_R - fpr_S,
            # FNR_S - FNR_R = (1 - TPR_S) - (1 - TPR_R): equal opportunity's value
            "false_negative_rate": eo,
        }
    )
    # An empty subgroup (or one covering every row) has no rest to compare with: no metrics.
    # (relative tolerance: with float weights ``total - S`` of a full subgroup is ~1e-13, not 0)
    tiny = 1e-12 * max(float(total.sum()), 1.0)
    empty = (n_S <= tiny) | (n_R <= tiny)
    out.loc[empty, ["statistical_parity", "equal_opportunity", "equalized_odds", "false_positive_rate",
                    "false_negative_rate"]] = nan
    return out


# names whose home moved (issue 39: the tasks are objects of their own registry)
__getattr__ = moved_names(__name__, {"TASK_METRICS": "aif360_subjective.detectors.tasks"})
