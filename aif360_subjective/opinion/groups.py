"""Binning, group-size rules and the grouping summary of the opinion-exclusion metrics.

References:
    Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine
    Learning. Section 4.1 (grouping users by ADR ranges).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from numbers import Integral
from typing import Any, Literal

import numpy as np
import pandas as pd

from .._deprecation import renamed
from .._labels import group_label

__all__ = ["GroupingSummary", "assign_bins", "enforce_min_group_size", "group_label", "validate_bins"]


@dataclass(frozen=True)
class GroupingSummary:
    """What the grouping of an opinion-exclusion analysis did: group counts, and everything skipped,
    merged or dropped (``OpinionExclusionMetric.grouping_summary()``, ``OpinionExclusionResult.grouping_summary``).

    Attributes:
        grouping: the grouping's name ("adr", "ambiguity", "popularity", "demographic", ...).
        unit: what is grouped ("annotator", "item" or "annotation"); ``min_group_size`` counts these.
        aggregate: "annotator" (mean of per-annotator values) or "pooled".
        n_units: number of units (annotators, items or annotations).
        n_groups: number of groups kept.
        n_ungrouped_units: units in no kept group (no value, outside the edges, dropped groups).
        n_ungrouped_annotations: annotations in no kept group.
        excluded: reasons for exclusion with their counts.
        notes: other remarks (e.g. fewer quantile bins than asked).
        empty_groups: labels of bins without any unit (skipped).
        merged_groups: ``(merged labels, new label)`` pairs.
        dropped_groups: labels of groups dropped for being smaller than ``min_group_size``.
        undefined_groups: groups whose performance is undefined (skipped in the summaries).
        n_undefined_units: (group, annotator) units whose performance is undefined.
        n_tie_items: items whose majority-vote tie was dropped (``tie="drop"``).
        n_resolved_tie_items: items whose majority-vote tie the policy resolved (``tie="favorable"`` or
            ``"unfavorable"``): their majority label is the policy's choice, not a majority.
        tie: the tie policy.
    """

    grouping: str
    unit: str
    aggregate: str
    n_units: int
    n_groups: int
    n_ungrouped_units: int = 0
    n_ungrouped_annotations: int = 0
    excluded: dict[str, int] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    empty_groups: tuple[Any, ...] = ()
    merged_groups: tuple[tuple[tuple[Any, ...], Any], ...] = ()
    dropped_groups: tuple[Any, ...] = ()
    undefined_groups: tuple[Any, ...] = ()
    n_undefined_units: int = 0
    n_tie_items: int = 0
    n_resolved_tie_items: int = 0
    tie: str = "favorable"

    def summary(self) -> str:
        """One readable paragraph describing the grouping and what it skipped (its :meth:`text`)."""
        return self.text()

    def text(self) -> str:
        """One readable paragraph describing the grouping and what it skipped."""
        parts = [
            f"grouping={self.grouping!r}: {self.n_groups} group{'' if self.n_groups == 1 else 's'} of {self.unit}s "
            f"({self.aggregate} aggregate), tie policy {self.tie!r}"
        ]
        if self.n_ungrouped_units:
            parts.append(
                f"{self.n_ungrouped_units} {self.unit}s "
                f"({self.n_ungrouped_annotations} annotations) ungrouped"
            )
        parts += [f"{k}: {v}" for k, v in self.excluded.items()]
        if self.empty_groups:
            parts.append(f"empty groups skipped: {_labels(self.empty_groups)}")
        for old, new in self.merged_groups:
            parts.append(f"merged {_labels(old)} into {group_label(new)}")
        if self.dropped_groups:
            parts.append(f"groups dropped (too small): {_labels(self.dropped_groups)}")
        if self.undefined_groups:
            parts.append(f"groups with undefined performance: {_labels(self.undefined_groups)}")
        if self.n_undefined_units:
            parts.append(f"{self.n_undefined_units} (group, annotator) values undefined and skipped")
        if self.n_tie_items:
            parts.append(f"{self.n_tie_items} tied item{'s' if self.n_tie_items != 1 else ''} dropped")
        if self.n_resolved_tie_items:
            parts.append(f"{self.n_resolved_tie_items} tied item{'s' if self.n_resolved_tie_items != 1 else ''} "
                         f"resolved as {self.tie}")
        parts += list(self.notes)
        return "; ".join(parts)


# ``GroupingReport``: the former name of GroupingSummary ("report" now names the HTML report only), with a warning
__getattr__ = renamed(__name__, {"GroupingReport": ("GroupingSummary", lambda: GroupingSummary)})


def _labels(groups: Any) -> str:
    return ", ".join(group_label(g) for g in groups)


def validate_bins(bins: Any) -> tuple[str, Any]:
    """Check the ``bins`` option; return ("int", n) | ("edges", array) | ("quantile", n).

    Raises:
        ValueError: for bins <= 0, fewer than two or non-increasing edges, or a malformed string.
        TypeError: for other types.
    """
    if isinstance(bins, bool):
        raise TypeError(f"bins must be an int, a sequence of edges or 'quantile:N', got {bins!r}")
    if isinstance(bins, Integral):
        if bins <= 0:
            raise ValueError(f"bins must be a positive number of bins, got {bins}")
        return "int", int(bins)
    if isinstance(bins, str):
        head, _, tail = bins.partition(":")
        if head.strip() != "quantile" or not tail.strip().isdigit() or int(tail) <= 0:
            raise ValueError(f"bins as a string must be 'quantile:N' with N a positive integer, got {bins!r}")
        return "quantile", int(tail)
    if isinstance(bins, Sequence | np.ndarray | pd.Index | pd.Series):
        try:
            edges = np.asarray(bins, dtype=np.float64)
        except (TypeError, ValueError) as err:
            raise ValueError(f"bin edges must be numbers, got {bins!r}") from err
        if edges.ndim != 1 or len(edges) < 2:
            raise ValueError(f"bin edges must be a 1-D sequence of at least two numbers, got {bins!r}")
        if np.isnan(edges).any():
            raise ValueError(f"bin edges must not contain NaN, got {bins!r}")
        if not (np.diff(edges) > 0).all():
            raise ValueError(f"bin edges must be strictly increasing, got {edges.tolist()}")
        return "edges", edges
    raise TypeError(f"bins must be an int, a sequence of edges or 'quantile:N', got {type(bins).__name__}")


def assign_bins(values: np.ndarray, bins: Any) -> tuple[np.ndarray, pd.Index, list[str]]:
    """Bin values (NaN = no value).

    * int: that many equal-width bins over the observed range, exactly as :func:`pandas.cut`
      (right-closed; the lowest edge moved down by 0.1 % of the range so the minimum is included;
      a constant range is widened by 0.1 % on each side).
    * sequence: explicit edges, right-closed, the lowest edge included; values outside the edges
      are left ungrouped (and reported).
    * "quantile:N": :func:`pandas.qcut` into N bins of (about) equal counts, duplicate edges merged.

    Args:
        values: one value per unit.
        bins: the ``bins`` option.

    Returns:
        (codes, labels, notes): bin code per value (-1 = none), the bins as a pandas Index of
        Intervals, and remarks for the report.
    """
    kind, arg = validate_bins(bins)
    values = np.asarray(values, dtype=np.float64)
    codes = np.full(len(values), -1, dtype=np.int64)
    present = ~np.isnan(values)
    notes: list[str] = []
    v = values[present]
    if len(v) == 0:
        labels = pd.IntervalIndex.from_breaks(arg if kind == "edges" else [], closed="right")
        return codes, pd.Index(labels, name="group"), ["no value to bin"]
    if kind == "int":
        cat = pd.cut(v, arg)
        codes[present] = cat.codes
        labels = cat.categories
    elif kind == "edges":
        sub = pd.cut(v, arg, right=True, include_lowest=True, labels=False)
        sub = np.where(np.isnan(sub), -1, sub).astype(np.int64)
        codes[present] = sub
        # label with the exact edges (pandas would print the lowest edge shifted down)
        labels = pd.IntervalIndex.from_breaks(arg, closed="right")
        outside = int((sub < 0).sum())
        if outside:
            notes.append(f"{outside} values outside the bin edges [{arg[0]:g}, {arg[-1]:g}] left ungrouped")
    else:
        if len(np.unique(v)) == 1:
            codes[present] = 0
            labels = pd.IntervalIndex([pd.Interval(v[0], v[0], closed="both")])
            notes.append(f"quantile:{arg}: all values equal ({v[0]:g}), one group")
        else:
            cat = pd.qcut(v, arg, duplicates="drop")
            codes[present] = cat.codes
            labels = cat.categories
            if len(labels) < arg:
                notes.append(f"quantile:{arg}: tied values gave only {len(labels)} distinct bins")
    return codes, pd.Index(labels, name="group"), notes


def _merged_label(labels: list[Any]) -> Any:
    first, last = labels[0], labels[-1]
    if isinstance(first, pd.Interval) and isinstance(last, pd.Interval):
        closed_left = first.closed in ("left", "both")
        closed_right = last.closed in ("right", "both")
        sides: dict[tuple[bool, bool], Literal["left", "right", "both", "neither"]] = {
            (False, True): "right", (True, False): "left", (True, True): "both", (False, False): "neither"
        }
        closed = sides[(closed_left, closed_right)]
        return pd.Interval(first.left, last.right, closed=closed)
    return tuple(labels)


def enforce_min_group_size(
    unit_codes: np.ndarray,
    labels: pd.Index,
    sizes: np.ndarray,
    min_group_size: int,
    policy: str,
    ordered: bool,
) -> tuple[np.ndarray, pd.Index, dict[str, Any]]:
    """Skip empty groups, then merge or drop groups smaller than ``min_group_size``.

    Merging (``policy="merge"``): for ordered groups (bins), the smallest group below the minimum
    is merged with its adjacent group having fewer units (the left one on a tie), repeatedly,
    until every group reaches the minimum or one group is left. Unordered groups below the
    minimum are pooled into a single "other" group (kept even if still small, and reported).

    Args:
        unit_codes: group code per unit (-1 = ungrouped).
        labels: group labels.
        sizes: units per group.
        min_group_size: the minimum number of units per group.
        policy: "merge" or "drop".
        ordered: whether the groups are ordered bins.

    Returns:
        (unit_codes, labels, report): recoded units, new labels, and a dict with ``empty``,
        ``merged``, ``dropped`` (tuples) and ``notes``.
    """
    labels_list = list(labels)
    empty = tuple(labels_list[i] for i in np.flatnonzero(sizes == 0))
    # groups as lists of old codes
    groups = [[i] for i in range(len(labels_list)) if sizes[i] > 0]
    gsize = [int(sizes[g[0]]) for g in groups]
    merged, dropped, notes = [], [], []
    if min_group_size > 1 and groups:
        if policy == "drop":
            keep = [s >= min_group_size for s in gsize]
            dropped = [labels_list[g[0]] for g, k in zip(groups, keep, strict=True) if not k]
            groups = [g for g, k in zip(groups, keep, strict=True) if k]
        elif ordered:
            while len(groups) > 1 and min(gsize) < min_group_size:
                i = int(np.argmin(gsize))
                left = gsize[i - 1] if i > 0 else np.inf
                right = gsize[i + 1] if i + 1 < len(groups) else np.inf
                j = i - 1 if left <= right else i + 1
                a, b = min(i, j), max(i, j)
                groups[a:b + 1] = [groups[a] + groups[b]]
                gsize[a:b + 1] = [gsize[a] + gsize[b]]
        else:
            small = [k for k, s in enumerate(gsize) if s < min_group_size]
            if len(small) > 1:
                pooled = [c for k in small for c in groups[k]]
                total = sum(gsize[k] for k in small)
                groups = [g for k, g in enumerate(groups) if k not in small] + [pooled]
                gsize = [s for k, s in enumerate(gsize) if k not in small] + [total]
                if total < min_group_size:
                    notes.append(f"the pooled 'other' group has {total} units, below min_group_size")
            elif len(small) == 1:
                notes.append(
                    f"group {labels_list[groups[small[0]][0]]!r} is below min_group_size "
                    "but there is no other small group to pool it with; kept"
                )
    mapping = np.full(len(labels_list) + 1, -1, dtype=np.int64)  # last slot maps -1 -> -1
    new_labels = []
    for new, g in enumerate(groups):
        mapping[g] = new
        if len(g) == 1:
            new_labels.append(labels_list[g[0]])
        else:
            old = tuple(labels_list[c] for c in sorted(g))
            label = _merged_label(list(old)) if ordered else "other"
            merged.append((old, label))
            new_labels.append(label)
    new_codes = mapping[np.where(unit_codes >= 0, unit_codes, len(labels_list))]
    index = None
    if new_labels and all(isinstance(x, pd.Interval) for x in new_labels):
        try:
            index = pd.Index(pd.IntervalIndex(new_labels), name="group")
        except ValueError:  # mixed closed sides after merging: keep the Interval objects
            index = None
    if index is None:
        index = pd.Index(new_labels, dtype=object, name="group", tupleize_cols=False)
    return new_codes, index, {
        "empty": empty,
        "merged": tuple(merged),
        "dropped": tuple(dropped),
        "notes": tuple(notes),
    }
