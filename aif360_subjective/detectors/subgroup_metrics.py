"""Per-subgroup fairness metrics from confusion counts, vectorised over subgroups.

For subgroup S and rest R (all other rows), with the favourable label p as the positive class:

* statistical parity ``SP = P(yhat=p | R) - P(yhat=p | S)``
* equal opportunity ``EO = TPR_R - TPR_S``
* equalized odds (average odds) ``((FPR_R - FPR_S) + (TPR_R - TPR_S)) / 2``
* accuracy ``P(yhat = y | S)`` and accuracy error ``accuracy(S) - accuracy(all rows)``

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

from .._labels import FN, FP, TN, TP, cell_codes, confusion_counts, ratio

__all__ = [
    "FAIRNESS_METRICS",
    "METRICS",
    "SUBGROUP_METRICS",
    "SubgroupMetric",
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
    """

    name: str
    direction: Literal["larger", "smaller"]
    label: str
    formula: str
    reference: str = "0"
    fairness: bool = True


#: The registry of subgroup metrics, in the column order of :meth:`SubgroupReport.subgroup_metrics`.
SUBGROUP_METRICS: dict[str, SubgroupMetric] = {
    m.name: m
    for m in (
        SubgroupMetric("statistical_parity", "larger", "Statistical parity", "P(yhat=p | R) - P(yhat=p | S)"),
        SubgroupMetric("equal_opportunity", "larger", "Equal opportunity", "TPR_R - TPR_S"),
        SubgroupMetric(
            "equalized_odds", "larger", "Equalized odds", "((FPR_R - FPR_S) + (TPR_R - TPR_S)) / 2"
        ),
        SubgroupMetric(
            "accuracy", "smaller", "Accuracy", "P(yhat = y | S)", reference="overall accuracy", fairness=False
        ),
        SubgroupMetric("accuracy_error", "smaller", "Accuracy error", "accuracy(S) - accuracy(all rows)"),
    )
}

#: Metric columns of :meth:`SubgroupReport.subgroup_metrics`, in order.
METRICS: tuple[str, ...] = tuple(SUBGROUP_METRICS)
#: The metrics comparing the subgroup with the rest (each has its own test): every metric but accuracy.
FAIRNESS_METRICS: tuple[str, ...] = tuple(m.name for m in SUBGROUP_METRICS.values() if m.fairness)

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
    """The five metrics of every subgroup from its confusion counts.

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
        }
    )
    # An empty subgroup (or one covering every row) has no rest to compare with: no metrics.
    # (relative tolerance: with float weights ``total - S`` of a full subgroup is ~1e-13, not 0)
    tiny = 1e-12 * max(float(total.sum()), 1.0)
    empty = (n_S <= tiny) | (n_R <= tiny)
    out.loc[empty, ["statistical_parity", "equal_opportunity", "equalized_odds"]] = nan
    return out
