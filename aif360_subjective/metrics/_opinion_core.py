"""Array-level core of the opinion-exclusion metrics (vectorised, no per-annotation loops).

Everything here works on aligned 1-D arrays (one entry per annotation): the annotator's label
``y_true``, the model's prediction ``y_pred``, and integer codes for the item and the annotator.
:class:`~aif360_subjective.metrics.OpinionExclusionMetric` and the functional API in
:mod:`aif360_subjective.sklearn.metrics` are thin faces over :func:`compute_opinion_exclusion`.

Labels are handled as "positive" indicators: ``y == pos_label`` (AIF360's favourable label, or the
``pos_label`` of the functional API). The tie policy of the majority vote ("favorable",
"unfavorable", "drop") refers to that positive label.

References:
    Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine
    Learning. Section 4.1 (ADR, per-user performance, group mean/std) and "Grouping criteria".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from numbers import Integral

import numpy as np
import pandas as pd

from ._opinion_groups import GroupingReport, assign_bins, enforce_min_group_size

TIE_POLICIES = ("favorable", "unfavorable", "drop")
PERFORMANCE_NAMES = (
    "accuracy",
    "balanced_accuracy",
    "true_positive_rate",
    "true_negative_rate",
    "false_positive_rate",
    "false_negative_rate",
    "precision",
    "f1",
)
AMBIGUITY_MEASURES = ("disagreement", "entropy", "uqs")
AGGREGATES = ("annotator", "pooled")
NAN_POLICIES = ("propagate", "omit")
GROUPING_KINDS = ("adr", "ambiguity", "popularity", "labels")


# ----------------------------------------------------------------------------------------------
# encoding and validation
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class EncodedAnnotations:
    """Annotations as aligned arrays with integer codes for items and annotators.

    Attributes:
        t: bool array, annotator's label is the positive label.
        p: bool array, prediction is the positive label.
        item_codes, annotator_codes: int64 codes into ``items`` / ``annotators``.
        items, annotators: the distinct ids (sorted), the codes' categories.
        y_true, y_pred: the raw label arrays (handed to user callables).
    """

    t: np.ndarray
    p: np.ndarray
    item_codes: np.ndarray
    annotator_codes: np.ndarray
    items: pd.Index
    annotators: pd.Index
    y_true: np.ndarray
    y_pred: np.ndarray

    @property
    def n(self) -> int:
        return len(self.t)


def _as_1d(x, name: str) -> np.ndarray:
    arr = x.to_numpy() if isinstance(x, pd.Series | pd.Index) else np.asarray(x)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    return arr


def _factorize(ids: np.ndarray, name: str) -> tuple[np.ndarray, pd.Index]:
    if pd.isna(ids).any():
        rows = np.flatnonzero(pd.isna(ids))[:5].tolist()
        raise ValueError(f"{name} contains missing values at rows {rows}")
    try:
        codes, uniques = pd.factorize(ids, sort=True)
    except TypeError:  # mixed, unorderable ids: keep order of appearance
        codes, uniques = pd.factorize(ids, sort=False)
    return codes.astype(np.int64, copy=False), pd.Index(uniques)


def encode_annotations(y_true, y_pred, item_ids, annotator_ids, pos_label=1) -> EncodedAnnotations:
    """Validate aligned annotation arrays and encode them.

    Args:
        y_true: the annotators' labels, one per annotation.
        y_pred: the model's predictions for the same annotations.
        item_ids: the item of each annotation.
        annotator_ids: the annotator of each annotation.
        pos_label: the positive (favourable) label.

    Returns:
        EncodedAnnotations

    Raises:
        ValueError: on misaligned lengths, missing ids or labels, or more than two distinct labels.
    """
    arrays = {
        "y_true": _as_1d(y_true, "y_true"),
        "y_pred": _as_1d(y_pred, "y_pred"),
        "item_ids": _as_1d(item_ids, "item_ids"),
        "annotator_ids": _as_1d(annotator_ids, "annotator_ids"),
    }
    lengths = {k: len(v) for k, v in arrays.items()}
    if len(set(lengths.values())) != 1:
        raise ValueError(
            f"y_true, y_pred, item_ids and annotator_ids must have the same length, got {lengths}"
        )
    if lengths["y_true"] == 0:
        raise ValueError("no annotations: y_true is empty")
    yt, yp = arrays["y_true"], arrays["y_pred"]
    for name, y in (("y_true", yt), ("y_pred", yp)):
        missing = pd.isna(y)
        if missing.any():
            raise ValueError(
                f"{name} contains missing labels at rows {np.flatnonzero(missing)[:5].tolist()}; "
                "drop those annotations first"
            )
    values = pd.unique(np.concatenate([pd.unique(yt), pd.unique(yp)]).astype(object))
    if len(values) > 2:
        raise ValueError(
            f"labels must be binary: y_true and y_pred hold {len(values)} distinct values "
            f"{sorted(map(repr, values))[:6]}; expected at most two (pos_label={pos_label!r} and one other)"
        )
    if len(values) == 2 and not any(_same(v, pos_label) for v in values):
        raise ValueError(
            f"pos_label={pos_label!r} is not one of the labels {sorted(map(repr, values))} of y_true and y_pred"
        )
    item_codes, items = _factorize(arrays["item_ids"], "item_ids")
    ann_codes, annotators = _factorize(arrays["annotator_ids"], "annotator_ids")
    return EncodedAnnotations(
        t=np.asarray(yt == pos_label, dtype=bool),
        p=np.asarray(yp == pos_label, dtype=bool),
        item_codes=item_codes,
        annotator_codes=ann_codes,
        items=items,
        annotators=annotators,
        y_true=yt,
        y_pred=yp,
    )


def _same(a, b) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def check_choice(value, name: str, choices: Sequence[str]) -> str:
    """Return ``value`` if it is one of ``choices`` else raise a ValueError naming ``name``."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}, got {value!r}")
    return value


# ----------------------------------------------------------------------------------------------
# majority vote, ADR, ambiguity, popularity
# ----------------------------------------------------------------------------------------------
def item_vote_counts(enc: EncodedAnnotations) -> tuple[np.ndarray, np.ndarray]:
    """Number of annotations and of positive labels per item (float arrays over ``enc.items``)."""
    k = len(enc.items)
    n = np.bincount(enc.item_codes, minlength=k).astype(np.float64)
    n_pos = np.bincount(enc.item_codes, weights=enc.t, minlength=k)
    return n, n_pos


def majority_vote(n: np.ndarray, n_pos: np.ndarray, tie: str = "favorable") -> np.ndarray:
    """Majority vote per item in positive-indicator space.

    Args:
        n: annotations per item.
        n_pos: positive labels per item.
        tie: what an exact tie becomes: "favorable" (1.0), "unfavorable" (0.0) or "drop" (NaN).

    Returns:
        numpy.ndarray: 1.0 (positive), 0.0 (negative) or NaN (dropped tie) per item.
    """
    check_choice(tie, "tie", TIE_POLICIES)
    tie_value = {"favorable": 1.0, "unfavorable": 0.0, "drop": np.nan}[tie]
    twice = 2.0 * n_pos  # compare 2*n_pos with n: exact in floating point for counts
    return np.where(twice > n, 1.0, np.where(twice < n, 0.0, tie_value))


@dataclass(frozen=True)
class DisagreementRates:
    """ADR per annotator and what the tie policy removed."""

    adr: np.ndarray  # per annotator code, NaN when no annotation was counted
    n_counted: np.ndarray  # annotations counted per annotator
    n_tie_items: int  # items whose tie was dropped
    n_tie_annotations: int  # annotations on those items (not counted in ADR)
    n_resolved_tie_items: int = 0  # tied items the policy resolved to one label (tie="favorable"/"unfavorable")


def disagreement_rates(enc: EncodedAnnotations, tie: str = "favorable") -> DisagreementRates:
    """Average disagreement rate (ADR) of every annotator with the items' majority vote.

    ADR = share of the annotator's labels that differ from the majority vote of their item,
    the vote being taken over all the item's annotations (the annotator's own included).
    With ``tie="drop"`` the annotations on tied items are not counted; an annotator with no
    counted annotation gets NaN.

    Args:
        enc: encoded annotations.
        tie: tie policy of the majority vote.

    Returns:
        DisagreementRates

    References:
        Balayn et al. (2019), Section 4.1 a).
    """
    n, n_pos = item_vote_counts(enc)
    mv = majority_vote(n, n_pos, tie)
    row_mv = mv[enc.item_codes]
    counted = ~np.isnan(row_mv)
    disagree = counted & (enc.t != (row_mv == 1.0))
    k = len(enc.annotators)
    n_counted = np.bincount(enc.annotator_codes, weights=counted, minlength=k)
    n_dis = np.bincount(enc.annotator_codes, weights=disagree, minlength=k)
    with np.errstate(invalid="ignore", divide="ignore"):
        adr = np.where(n_counted > 0, n_dis / np.where(n_counted > 0, n_counted, 1.0), np.nan)
    return DisagreementRates(
        adr=adr,
        n_counted=n_counted,
        n_tie_items=int(np.isnan(mv).sum()),
        n_tie_annotations=int((~counted).sum()),
        n_resolved_tie_items=int((2.0 * n_pos == n).sum()) - int(np.isnan(mv).sum()),
    )


def item_ambiguity(n: np.ndarray, n_pos: np.ndarray, measure: str = "disagreement") -> np.ndarray:
    """Ambiguity of every item from the split of its annotations.

    Args:
        n: annotations per item.
        n_pos: positive labels per item.
        measure: "disagreement" = share of the item's annotations that differ from its majority
            (min(p, 1 - p), in [0, 0.5]); "entropy" = binary entropy of the label shares in bits
            (in [0, 1]).

    Returns:
        numpy.ndarray: one value per item.
    """
    share = n_pos / n
    if measure == "disagreement":
        return np.minimum(share, 1.0 - share)
    if measure == "entropy":
        with np.errstate(divide="ignore", invalid="ignore"):
            h = -(share * np.log2(share) + (1 - share) * np.log2(1 - share))
        return np.where((share == 0) | (share == 1), 0.0, h)
    raise ValueError(f"ambiguity must be one of ['disagreement', 'entropy'] here, got {measure!r}")


def annotation_popularity(enc: EncodedAnnotations, n: np.ndarray, n_pos: np.ndarray) -> np.ndarray:
    """Share of the item's annotations identical to each annotation (itself included), per row."""
    share_pos = (n_pos / n)[enc.item_codes]
    return np.where(enc.t, share_pos, 1.0 - share_pos)


# ----------------------------------------------------------------------------------------------
# performance
# ----------------------------------------------------------------------------------------------
PerformanceSpec = str | Callable


def resolve_performance(performance) -> tuple[PerformanceSpec, ...]:
    """Validate the ``performance`` option: a name, a callable, or a non-empty list of them."""
    items = list(performance) if isinstance(performance, list | tuple) else [performance]
    if not items:
        raise ValueError("performance must not be an empty list")
    for p in items:
        if isinstance(p, str):
            check_choice(p, "performance", PERFORMANCE_NAMES)
        elif not callable(p):
            raise TypeError(
                f"performance must be a metric name {list(PERFORMANCE_NAMES)}, a callable "
                f"(y_true, y_pred) -> float, or a list of them; got {type(p).__name__} {p!r}"
            )
    return tuple(items)


def performance_name(specs: tuple[PerformanceSpec, ...]) -> str:
    """A readable name for a performance option."""
    names = [s if isinstance(s, str) else getattr(s, "__name__", type(s).__name__) for s in specs]
    return names[0] if len(names) == 1 else "mean(" + ", ".join(names) + ")"


def confusion_counts(codes: np.ndarray, n_units: int, t: np.ndarray, p: np.ndarray):
    """TP, FP, TN, FN per unit code (float arrays of length ``n_units``)."""
    tp = np.bincount(codes, weights=t & p, minlength=n_units)
    fp = np.bincount(codes, weights=~t & p, minlength=n_units)
    fn = np.bincount(codes, weights=t & ~p, minlength=n_units)
    tn = np.bincount(codes, minlength=n_units) - tp - fp - fn
    return tp, fp, tn, fn


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.full(num.shape, np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return out


def metric_from_counts(name: str, tp, fp, tn, fn) -> np.ndarray:
    """A named performance metric from confusion counts; NaN where it is undefined.

    ``balanced_accuracy`` follows scikit-learn: the mean recall over the classes present in
    ``y_true`` (so it equals TPR or TNR for a unit with a single true class). ``precision`` is
    undefined without predicted positives, ``f1`` = 2TP / (2TP + FP + FN) without any of them.
    """
    if name == "accuracy":
        return _ratio(tp + tn, tp + fp + tn + fn)
    if name == "true_positive_rate":
        return _ratio(tp, tp + fn)
    if name == "false_negative_rate":
        return _ratio(fn, tp + fn)
    if name == "true_negative_rate":
        return _ratio(tn, tn + fp)
    if name == "false_positive_rate":
        return _ratio(fp, tn + fp)
    if name == "precision":
        return _ratio(tp, tp + fp)
    if name == "f1":
        return _ratio(2 * tp, 2 * tp + fp + fn)
    if name == "balanced_accuracy":
        tpr, tnr = _ratio(tp, tp + fn), _ratio(tn, tn + fp)
        both = np.where(np.isnan(tpr), tnr, np.where(np.isnan(tnr), tpr, (tpr + tnr) / 2))
        return both
    raise ValueError(f"unknown performance metric {name!r}; expected one of {list(PERFORMANCE_NAMES)}")


def _callable_per_unit(func: Callable, codes: np.ndarray, n_units: int, y_true, y_pred) -> np.ndarray:
    # A user callable can only be evaluated unit by unit: one call per unit (not per row).
    order = np.argsort(codes, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(codes, minlength=n_units))])
    yt, yp = y_true[order], y_pred[order]
    out = np.full(n_units, np.nan)
    for u in range(n_units):
        lo, hi = bounds[u], bounds[u + 1]
        if hi > lo:
            value = func(yt[lo:hi], yp[lo:hi])
            try:
                out[u] = float(value)
            except (TypeError, ValueError):
                name = getattr(func, "__name__", type(func).__name__)
                raise ValueError(
                    f"performance callable {name!r} returned {value!r}; it must return a number"
                ) from None
    return out


def unit_performance(
    specs: tuple[PerformanceSpec, ...],
    codes: np.ndarray,
    n_units: int,
    enc: EncodedAnnotations,
    rows: np.ndarray | None = None,
    nan_policy: str = "propagate",
) -> np.ndarray:
    """Performance per unit (annotator, group, or (group, annotator) pair).

    Args:
        specs: resolved performance option.
        codes: unit code per selected row (0..n_units-1).
        n_units: number of units.
        enc: encoded annotations.
        rows: indices of the rows ``codes`` refers to (None = all rows).
        nan_policy: how a list of metrics combines undefined values: "propagate" (the average is
            NaN if any metric is undefined for that unit, so every average mixes the same
            metrics) or "omit" (average of the defined ones; NaN only if none is defined).

    Returns:
        numpy.ndarray: one value per unit, NaN where undefined (or for units without rows).
    """
    t, p = (enc.t, enc.p) if rows is None else (enc.t[rows], enc.p[rows])
    counts = None
    values = []
    for spec in specs:
        if isinstance(spec, str):
            if counts is None:
                counts = confusion_counts(codes, n_units, t, p)
            values.append(metric_from_counts(spec, *counts))
        else:
            yt, yp = (enc.y_true, enc.y_pred) if rows is None else (enc.y_true[rows], enc.y_pred[rows])
            values.append(_callable_per_unit(spec, codes, n_units, yt, yp))
    if len(values) == 1:
        return values[0]
    stacked = np.vstack(values)
    if nan_policy == "propagate":
        return stacked.mean(axis=0)
    defined = ~np.isnan(stacked)
    n_def = defined.sum(axis=0)
    total = np.where(defined, stacked, 0.0).sum(axis=0)
    return _ratio(total, n_def.astype(np.float64))


# ----------------------------------------------------------------------------------------------
# the whole computation
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class OpinionExclusionResult:
    """Everything the opinion-exclusion metric computes (see :func:`compute_opinion_exclusion`)."""

    disagreement_rates: pd.Series  # per annotator
    annotator_performance: pd.Series  # per annotator, over all its annotations
    group_table: pd.DataFrame  # index "group"
    unit_performance: pd.DataFrame  # per (group, annotator) unit: group, annotator, n, performance
    unfairness: float
    performance: float
    report: GroupingReport
    performance_name: str = ""
    extras: dict = field(default_factory=dict)


def _std0(x: np.ndarray) -> float:
    x = x[~np.isnan(x)]
    return float(np.std(x)) if len(x) else np.nan


def compute_opinion_exclusion(
    enc: EncodedAnnotations,
    *,
    grouping: str = "adr",
    bins=5,
    performance="accuracy",
    tie: str = "favorable",
    min_group_size: int = 1,
    small_groups: str = "merge",
    aggregate: str | None = None,
    item_values: np.ndarray | None = None,
    annotator_labels: pd.Series | None = None,
    nan_policy: str = "propagate",
    grouping_name: str | None = None,
) -> OpinionExclusionResult:
    """Group, score and summarise a model's performance across annotators (the paper's method).

    Args:
        enc: encoded annotations (:func:`encode_annotations`).
        grouping: "adr" (annotators binned by ADR), "ambiguity" (items binned by ``item_values``),
            "popularity" (annotations binned by the share of identical labels on their item) or
            "labels" (annotators grouped by ``annotator_labels``).
        bins: int (equal-width bins over the observed range, pandas.cut semantics), a sequence of
            increasing edges (right-closed, lowest included) or "quantile:N". Ignored for "labels".
        performance: metric name, callable ``(y_true, y_pred) -> float`` or a list of them (averaged
            per unit, see ``nan_policy``).
        tie: majority-vote tie policy ("favorable", "unfavorable", "drop").
        min_group_size: groups with fewer units (annotators for "adr"/"labels", items for
            "ambiguity", annotations for "popularity") are merged or dropped (``small_groups``).
            The default 1 keeps every non-empty group, as in the paper.
        small_groups: "merge" (with the adjacent bin of fewer units; unordered groups are pooled
            into one "other" group) or "drop".
        aggregate: "annotator" = group value is the mean of the per-annotator performances in the
            group (the paper); "pooled" = the performance over the group's pooled annotations.
            None = "annotator" for annotator groupings, "pooled" for "ambiguity"/"popularity".
        item_values: ambiguity score per item code (grouping "ambiguity").
        annotator_labels: group label per annotator, indexed by annotator id (grouping "labels");
            missing annotators or NaN labels are left ungrouped and reported.
        nan_policy: combination of undefined values for a list of metrics ("propagate"/"omit").
        grouping_name: the name reported (defaults to ``grouping``).

    Returns:
        OpinionExclusionResult

    References:
        Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine
        Learning. Section 4.1 and "Grouping criteria".
    """
    check_choice(grouping, "grouping", GROUPING_KINDS)
    check_choice(tie, "tie", TIE_POLICIES)
    check_choice(small_groups, "small_groups", ("merge", "drop"))
    check_choice(nan_policy, "nan_policy", NAN_POLICIES)
    if not isinstance(min_group_size, Integral) or isinstance(min_group_size, bool) or min_group_size < 1:
        raise ValueError(f"min_group_size must be an integer >= 1, got {min_group_size!r}")
    if aggregate is None:
        aggregate = "pooled" if grouping in ("ambiguity", "popularity") else "annotator"
    check_choice(aggregate, "aggregate", AGGREGATES)
    specs = resolve_performance(performance)

    n_ann = len(enc.annotators)
    dr = disagreement_rates(enc, tie)
    ann_index = pd.Index(enc.annotators, name="annotator")
    adr = pd.Series(dr.adr, index=ann_index, name="adr")
    ann_perf_values = unit_performance(specs, enc.annotator_codes, n_ann, enc, nan_policy=nan_policy)
    ann_perf = pd.Series(ann_perf_values, index=ann_index, name="performance")

    # ---- 1. group code of every unit of the grouping, then of every row
    ordered = True
    extra_reasons: dict[str, int] = {}
    if grouping == "adr":
        unit_kind, unit_values = "annotator", dr.adr
        if dr.n_tie_annotations:
            extra_reasons["annotations on dropped ties (not counted in ADR)"] = dr.n_tie_annotations
        n_nan = int(np.isnan(dr.adr).sum())
        if n_nan:
            extra_reasons["annotators without ADR (only tied items)"] = n_nan
        unit_codes, labels, bin_notes = assign_bins(unit_values, bins)
    elif grouping == "ambiguity":
        if item_values is None or len(item_values) != len(enc.items):
            raise ValueError("grouping='ambiguity' needs item_values, one per item")
        unit_kind, unit_values = "item", np.asarray(item_values, dtype=np.float64)
        n_nan = int(np.isnan(unit_values).sum())
        if n_nan:
            extra_reasons["items without an ambiguity score"] = n_nan
        unit_codes, labels, bin_notes = assign_bins(unit_values, bins)
    elif grouping == "popularity":
        n, n_pos = item_vote_counts(enc)
        unit_kind, unit_values = "annotation", annotation_popularity(enc, n, n_pos)
        unit_codes, labels, bin_notes = assign_bins(unit_values, bins)
    else:
        if annotator_labels is None:
            raise ValueError("grouping 'labels' needs annotator_labels")
        unit_kind, ordered, bin_notes = "annotator", False, []
        lab = annotator_labels.reindex(enc.annotators)
        n_missing = int(lab.isna().sum())
        if n_missing:
            extra_reasons["annotators without a group label"] = n_missing
        values = lab.to_numpy(dtype=object)
        try:
            codes, uniques = pd.factorize(values, sort=True, use_na_sentinel=True)
        except TypeError:  # unorderable mixed labels: order of first appearance
            codes, uniques = pd.factorize(values, sort=False, use_na_sentinel=True)
        unit_codes = codes.astype(np.int64)
        labels = pd.Index(list(uniques), dtype=object, tupleize_cols=False)

    row_of_unit = {"annotator": enc.annotator_codes, "item": enc.item_codes, "annotation": None}[unit_kind]
    n_units_total = len(unit_codes)
    unit_sizes = np.bincount(unit_codes[unit_codes >= 0], minlength=len(labels))

    # ---- 2. empty groups, then min_group_size
    unit_codes, labels, report_bits = enforce_min_group_size(
        unit_codes, labels, unit_sizes, min_group_size, small_groups, ordered
    )
    row_codes = unit_codes if row_of_unit is None else unit_codes[row_of_unit]

    # ---- 3. units = (group, annotator) pairs over grouped rows
    rows = np.flatnonzero(row_codes >= 0)
    g_rows, a_rows = row_codes[rows], enc.annotator_codes[rows]
    n_groups = len(labels)
    pair_codes, pair_uniques = pd.factorize(g_rows * np.int64(n_ann) + a_rows, sort=True)
    pair_group = (pair_uniques // n_ann).astype(np.int64)
    pair_ann = (pair_uniques % n_ann).astype(np.int64)
    n_pairs = len(pair_uniques)
    pair_perf = unit_performance(specs, pair_codes, n_pairs, enc, rows=rows, nan_policy=nan_policy)
    pair_n = np.bincount(pair_codes, minlength=n_pairs)

    # ---- 4. group table
    n_annotations = np.bincount(g_rows, minlength=n_groups)
    n_annotators = np.bincount(pair_group, minlength=n_groups)
    defined = ~np.isnan(pair_perf)
    n_undefined = np.bincount(pair_group, weights=~defined, minlength=n_groups).astype(np.int64)
    s1 = np.bincount(pair_group, weights=np.where(defined, pair_perf, 0.0), minlength=n_groups)
    s2 = np.bincount(pair_group, weights=np.where(defined, pair_perf**2, 0.0), minlength=n_groups)
    k = np.bincount(pair_group, weights=defined, minlength=n_groups)
    mean_ann = _ratio(s1, k)
    spread = np.sqrt(np.maximum(_ratio(s2, k) - mean_ann**2, 0.0))
    if aggregate == "annotator":
        group_perf = mean_ann
    else:
        group_perf = unit_performance(specs, g_rows, n_groups, enc, rows=rows, nan_policy=nan_policy)
    group_index = pd.Index(labels, name="group", tupleize_cols=False)
    table = pd.DataFrame(
        {
            "n_annotators": n_annotators.astype(np.int64),
            "n_annotations": n_annotations.astype(np.int64),
            "performance": group_perf,
            "spread": spread,
            "n_undefined": n_undefined,
        },
        index=group_index,
    )
    defined_groups = ~np.isnan(group_perf)
    unfairness = _std0(group_perf)
    overall = float(np.mean(group_perf[defined_groups])) if defined_groups.any() else np.nan

    units = pd.DataFrame(
        {
            "group": pd.Categorical.from_codes(pair_group, categories=group_index)
            if n_groups
            else pd.Categorical([]),
            "annotator": enc.annotators[pair_ann],
            "n_annotations": pair_n.astype(np.int64),
            "performance": pair_perf,
        }
    )
    report = GroupingReport(
        grouping=grouping_name or grouping,
        unit=unit_kind,
        aggregate=aggregate,
        n_units=n_units_total,
        n_groups=n_groups,
        n_ungrouped_units=int((unit_codes < 0).sum()),
        n_ungrouped_annotations=int(enc.n - len(rows)),
        excluded=extra_reasons,
        notes=tuple(bin_notes) + report_bits["notes"],
        empty_groups=report_bits["empty"],
        merged_groups=report_bits["merged"],
        dropped_groups=report_bits["dropped"],
        undefined_groups=tuple(group_index[~defined_groups]),
        n_undefined_units=int((~defined).sum()),
        n_tie_items=dr.n_tie_items,
        n_resolved_tie_items=dr.n_resolved_tie_items,
        tie=tie,
    )
    return OpinionExclusionResult(
        disagreement_rates=adr,
        annotator_performance=ann_perf,
        group_table=table,
        unit_performance=units,
        unfairness=unfairness,
        performance=overall,
        report=report,
        performance_name=performance_name(specs),
    )


def individual_figures(result: OpinionExclusionResult) -> pd.Series:
    """Individual-level figures (paper §4.4): spread over annotators, worst group, max-min gap.

    Returns:
        pandas.Series: ``annotator_std`` (population std of the per-annotator performance),
        ``worst_group``, ``worst_group_performance``, ``best_group``, ``best_group_performance``,
        ``gap`` (best minus worst group performance). Undefined values are skipped.
    """
    perf = result.group_table["performance"].dropna()
    worst = perf.idxmin() if len(perf) else None
    best = perf.idxmax() if len(perf) else None
    return pd.Series(
        {
            "annotator_std": _std0(result.annotator_performance.to_numpy()),
            "worst_group": worst,
            "worst_group_performance": perf.min() if len(perf) else np.nan,
            "best_group": best,
            "best_group_performance": perf.max() if len(perf) else np.nan,
            "gap": (perf.max() - perf.min()) if len(perf) else np.nan,
        },
        name="individual",
        dtype=object,
    )
