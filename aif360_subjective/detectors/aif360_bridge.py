"""From :func:`~aif360_subjective.detectors.detect_subgroups` to AIF360: a discovered subgroup as an AIF360 dataset
pair and the group dicts its metrics and mitigators take.

:func:`subgroup_to_aif360` builds, from the table the report was computed on, a ``BinaryLabelDataset`` of the
truth and one of the predictions whose protected attribute is membership of the subgroup (1 = in it, 0 = the
rest), with the subgroup and the rest as AIF360 ``unprivileged_groups`` / ``privileged_groups``. Everything is
named as in the table: categorical columns become one-hot features ``column=value`` with the original category
names (AIF360's own ``StandardDataset`` convention), and the protected attribute's map reads the subgroup's
description (``race=African-American AND priors_count ∈ [5, 38]``), never codes such as ``race=0.0``.

The subgroup is the **unprivileged** group: the one a mitigator (e.g. AIF360's ``Reweighing``) is asked to help.
AIF360's differences are unprivileged minus privileged, i.e. *subgroup minus rest*: the negative of the report's
values (rest minus subgroup, positive = the subgroup disadvantaged). ``AIF360Subgroup.sign`` records this, and the
tests check ``ClassificationMetric`` against :meth:`SubgroupReport.subgroup_metrics` to the last digit.

Only public :class:`~aif360_subjective.detectors.SubgroupReport` methods are used (``members``, ``descriptions``,
``clusters``, ``categorical_features``, ``pos_label``).

References:
    R. K. E. Bellamy et al., "AI Fairness 360: An Extensible Toolkit for Detecting, Understanding, and Mitigating
    Unwanted Algorithmic Bias", 2018 (``BinaryLabelDataset``, group dicts, ``ClassificationMetric``).
    J. Schäfer and L. Wiese, "ASDF-Dashboard: Automated Subgroup Detection and Fairness Analysis".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._validation import check_choice

if TYPE_CHECKING:
    from .report import SubgroupReport

__all__ = ["AIF360Subgroup", "SUBGROUP_ATTRIBUTE", "subgroup_to_aif360"]

#: Default name of the protected attribute holding membership of the subgroup.
SUBGROUP_ATTRIBUTE = "subgroup"
#: Kinds of subgroups a report can hold.
_KINDS = ("cluster", "entropy", "pattern", "validated")


@dataclass(frozen=True)
class AIF360Subgroup:
    """A discovered subgroup in AIF360's terms.

    Attributes:
        dataset: ``BinaryLabelDataset`` of the truth labels (favourable label 1.0 = the report's ``pos_label``).
        classified_dataset: the same rows with the predictions as labels.
        unprivileged_groups: ``[{attribute: 1.0}]``, the subgroup.
        privileged_groups: ``[{attribute: 0.0}]``, the rest.
        description: the subgroup in the table's own names.
        kind: ``"cluster"``, ``"entropy"``, ``"pattern"`` or ``"validated"`` (a cluster of a validated clustering
            model: ``report.validated.chosen()`` gives the kind and ids of the selected model's clusters).
        id: the subgroup's id in the report.
        size: rows in the subgroup.
        sign: -1: an AIF360 difference (unprivileged minus privileged) is the report's value times ``sign``.
    """

    dataset: Any
    classified_dataset: Any
    unprivileged_groups: list[dict[str, float]]
    privileged_groups: list[dict[str, float]]
    description: str
    kind: str
    id: Any
    size: int
    sign: int = -1


def _description(report: SubgroupReport, kind: str, id: Any) -> str:
    descriptions = report.descriptions(kind)
    ids = (list(range(len(descriptions))) if kind in ("pattern", "validated")
           else sorted(pd.unique(report.clusters).tolist()))
    return str(descriptions[ids.index(id)])


def _features(X: pd.DataFrame, categorical: list[str]) -> pd.DataFrame:
    """Numeric columns as float, categorical ones one-hot as ``column=value`` in the original names."""
    parts = []
    for c in X.columns:
        col = X[c]
        if c in categorical or not (pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col)):
            values = col.astype(object).astype(str)
            dummies = pd.get_dummies(values, prefix=str(c), prefix_sep="=", dtype=np.float64)
            parts.append(dummies)
        else:
            parts.append(col.astype(np.float64).rename(str(c)).to_frame())
    return pd.concat(parts, axis=1)


def _label_map(y: np.ndarray, pos_label: Any) -> dict[float, Any]:
    others = [v for v in pd.unique(pd.Series(y, dtype=object)) if v != pos_label]
    other = others[0] if len(others) == 1 else f"not {pos_label}"
    return {1.0: pos_label, 0.0: other}


def subgroup_to_aif360(report: SubgroupReport, X: Any, y_true: Any, y_pred: Any, kind: str, id: Any, *,
                       attribute: str = SUBGROUP_ATTRIBUTE) -> AIF360Subgroup:
    """Subgroup ``(kind, id)`` of ``report`` as AIF360 datasets and group dicts.

    Args:
        report: the result of :func:`~aif360_subjective.detectors.detect_subgroups`.
        X: the feature table given to ``detect_subgroups`` (same rows, same order).
        y_true: the truth labels given to it.
        y_pred: the predictions given to it.
        kind: ``"cluster"``, ``"entropy"``, ``"pattern"`` or ``"validated"`` (a cluster of a validated clustering
            model: ``report.validated.chosen()`` gives the kind and ids of the selected model's clusters).
        id: the subgroup's id (as in the report's rankings and findings).
        attribute: name of the protected attribute holding membership (1.0 = in the subgroup); it must not be a
            column of ``X``.

    Returns:
        AIF360Subgroup: ``dataset``, ``classified_dataset``, ``unprivileged_groups`` (the subgroup),
        ``privileged_groups`` (the rest), ``description`` and the sign linking AIF360's differences to the
        report's values.

    Raises:
        ValueError: unknown kind or id, an empty entropy pattern, ``X`` or the labels not the ones the report was
            computed on (number of rows, index), or ``attribute`` already a column of ``X``.
        TypeError: ``X`` is not a DataFrame.

    References:
        R. K. E. Bellamy et al., "AI Fairness 360", 2018.
    """
    check_choice(kind, "kind", _KINDS)
    if not isinstance(X, pd.DataFrame):
        raise TypeError(f"X must be the pandas DataFrame given to detect_subgroups, got {type(X).__name__}")
    n = len(report.clusters)
    if len(X) != n or not X.index.equals(report.clusters.index):
        raise ValueError(f"X must be the table the report was computed on: {n:,} rows with the same index, got "
                         f"{len(X):,} rows" + ("" if len(X) != n else " with another index"))
    yt = np.asarray(y_true, dtype=object).ravel()
    yp = np.asarray(y_pred, dtype=object).ravel()
    for name, y in (("y_true", yt), ("y_pred", yp)):
        if len(y) != n:
            raise ValueError(f"{name} has {len(y):,} values but the report has {n:,} rows")
    if attribute in X.columns:
        raise ValueError(f"attribute {attribute!r} is a column of X: name the membership attribute otherwise")
    inside = report.members(kind, id)  # validates kind and id
    description = _description(report, kind, id)
    features = _features(X, list(report.categorical_features))
    features.index = pd.RangeIndex(n)
    features[attribute] = inside.astype(np.float64)
    pos = report.pos_label
    truth = features.assign(label=(yt == pos).astype(np.float64))
    predicted = features.assign(label=(yp == pos).astype(np.float64))
    metadata = {"protected_attribute_maps": [{1.0: description, 0.0: f"not ({description})"}],
                "label_maps": [_label_map(yt, pos)]}

    from .._compat import import_aif360_quietly

    import_aif360_quietly()
    from aif360.datasets import BinaryLabelDataset

    def dataset(frame: pd.DataFrame) -> Any:
        out = BinaryLabelDataset(df=frame, label_names=["label"], protected_attribute_names=[attribute],
                                 favorable_label=1.0, unfavorable_label=0.0, metadata=metadata)
        out.instance_names = [str(i) for i in X.index]  # the table's own row names
        return out

    return AIF360Subgroup(dataset=dataset(truth), classified_dataset=dataset(predicted),
                          unprivileged_groups=[{attribute: 1.0}], privileged_groups=[{attribute: 0.0}],
                          description=description, kind=kind, id=id, size=int(inside.sum()))
