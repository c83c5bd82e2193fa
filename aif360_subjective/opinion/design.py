"""Can this annotation design answer "is some group served worse"? Checks with counts, before any verdict.

Three designs defeat the test of equal service whatever its statistic:

* **one annotation per item** (the Wikipedia Talk sample: 3,000 annotations of 2,976 items): the majority vote of
  an item is its one annotation, so ADR is 0 by construction, and an item's difficulty cannot be told from the
  annotator who labelled it;
* **groups that labelled different items** (each group its own batch): item difficulty and group are confounded,
  and no permutation of annotators can separate them. A partial overlap can be handled by comparing each annotation
  with the other annotations of the same item (``adjust="items"``);
* **annotation counts that differ between groups**: annotators are then not exchangeable (a light annotator's value
  is noisier), which the size-weighted statistic assumes; the studentized statistic allows for it
  (:mod:`~aif360_subjective.opinion.studentized`).

:func:`design_checks` counts all three; the test carries the result and the verdict says "cannot decide" when a
blocking condition holds.

References:
    Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine Learning.
    Owen, A. B. (2007). The pigeonhole bootstrap. The Annals of Applied Statistics 1(2), 386-411 (crossed
    designs of annotators and items).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .groups import group_label

if TYPE_CHECKING:
    from .annotations import EncodedAnnotations
    from .core import OpinionExclusionResult

__all__ = ["DesignChecks", "OVERLAP_BLOCK", "OVERLAP_NOTE", "SINGLE_SHARE", "COUNT_RATIO", "count_note",
           "design_checks", "single_annotation_text", "warn_design"]

#: Below this share of a group's annotations on items another group also labelled, there is no verdict.
OVERLAP_BLOCK = 0.10
#: Below this share the verdict notes that item difficulty can pass for a group difference.
OVERLAP_NOTE = 0.90
#: From this share of annotations on items with a single annotation, the design is flagged.
SINGLE_SHARE = 0.5
#: From this ratio of the groups' median annotations per annotator, the counts are said to differ.
COUNT_RATIO = 2.0


@dataclass(frozen=True)
class DesignChecks:
    """What the annotation design allows (:func:`design_checks`).

    Attributes:
        n_annotations: grouped annotations.
        n_items: items among them.
        n_single_items: items with exactly one annotation (over every annotation, grouped or not).
        single_share: share of the grouped annotations that lie on such items.
        overlap: the smallest, over the groups, of the larger of two shares: the group's annotations on items
            another group also labelled, and the other groups' annotations on items this group labelled (1 = the
            group's items, or the others', all seen by both sides; NaN for groupings of items or annotations, where
            the question does not arise, or with one group).
        overlap_group: the group with that smallest share.
        notes: caveats, with counts.
        blocking: why the design cannot answer ("" when it can).
    """

    n_annotations: int
    n_items: int
    n_single_items: int
    single_share: float
    overlap: float
    overlap_group: Any
    notes: tuple[str, ...]
    blocking: str


def design_checks(result: OpinionExclusionResult, enc: EncodedAnnotations, adjust: str = "none") -> DesignChecks:
    """Count the designs that cannot answer: one annotation per item, groups on different items.

    Args:
        result: an analysis on pandas (it carries ``row_units``).
        enc: its encoded annotations.
        adjust: the test's item adjustment ("none" or "items"): with "items" a partial overlap is not noted.

    Returns:
        DesignChecks
    """
    opts = result.options
    per_item = np.bincount(enc.item_codes, minlength=len(enc.items))
    rows = np.flatnonzero(result.row_units >= 0) if result.row_units is not None else np.arange(enc.n)
    items = enc.item_codes[rows]
    n_ann = len(rows)
    n_items = int(np.count_nonzero(np.bincount(items, minlength=len(enc.items))))
    n_single = int(np.count_nonzero(per_item == 1))
    single_share = float(np.mean(per_item[items] == 1)) if n_ann else float("nan")
    notes: list[str] = []
    blocking = ""
    if n_ann and single_share >= SINGLE_SHARE:
        text = (f"{n_single:,} of {len(enc.items):,} items carry a single annotation ({single_share:.0%} of the "
                f"{n_ann:,} grouped annotations lie on them): there the majority vote is that annotation itself, "
                "so no disagreement can be seen and an item's difficulty cannot be told from its annotator")
        if opts is not None and opts.grouping == "adr":
            blocking = text + "; ADR, the disagreement with the majority vote, is 0 on those items by construction"
        else:
            notes.append(text)
    overlap, overlap_group = float("nan"), None
    units = result.unit_performance
    table = result.group_table
    if (result.grouping_summary.unit == "annotator" and result.row_units is not None and len(table) >= 2
            and n_ann):
        n_groups = len(table)
        unit_group = units["group"].cat.codes.to_numpy(np.int64)
        group = unit_group[result.row_units[rows]]
        # one entry per (item, group) pair present, with the group's annotations of the item
        pairs, c_ig = np.unique(items * n_groups + group, return_counts=True)
        p_item, p_group = pairs // n_groups, pairs % n_groups
        groups_per_item = np.bincount(p_item, minlength=len(enc.items))
        rows_per_item = np.bincount(items, minlength=len(enc.items))
        n_g = np.bincount(group, minlength=n_groups)
        # own: the group's annotations on items another group also labelled; theirs: the other groups'
        # annotations on items this group labelled. A group compared on a subset of the others' items (or the
        # others on a subset of its items) is not confounded with item difficulty: either share near 1 will do.
        own = np.bincount(p_group, weights=c_ig * (groups_per_item[p_item] >= 2), minlength=n_groups) / np.maximum(
            n_g, 1)
        theirs = np.bincount(p_group, weights=rows_per_item[p_item] - c_ig, minlength=n_groups) / np.maximum(
            n_ann - n_g, 1)
        share = np.maximum(own, theirs)
        present = n_g > 0
        if present.sum() >= 2:
            i = int(np.flatnonzero(present)[np.argmin(share[present])])
            overlap, overlap_group = float(share[i]), table.index[i]
            where = (f"group {group_label(overlap_group)} has {own[i]:.0%} of its {int(n_g[i]):,} annotations on "
                     f"items another group also labelled, and the other groups {theirs[i]:.0%} of theirs on its "
                     "items")
            if overlap < OVERLAP_BLOCK:
                blocking = blocking or (f"the groups share almost no items ({where}): item difficulty and group "
                                        "cannot be told apart")
            elif overlap < OVERLAP_NOTE and adjust == "none":
                notes.append(f"the groups labelled partly different items ({where}): a harder batch can pass for a "
                             "group served worse; adjust='items' compares each annotation with the other "
                             "annotations of the same item")
    return DesignChecks(n_annotations=n_ann, n_items=n_items, n_single_items=n_single, single_share=single_share,
                        overlap=overlap, overlap_group=overlap_group, notes=tuple(notes), blocking=blocking)


def count_note(group_table_index: Any, unit_group: np.ndarray, unit_n: np.ndarray) -> str:
    """The note when the groups' annotation counts per annotator differ (median ratio >= :data:`COUNT_RATIO`), else
    "".

    Args:
        group_table_index: the groups' labels (group-table order).
        unit_group: group code of every unit in the test.
        unit_n: annotations of every unit.
    """
    if not len(unit_group):
        return ""
    order = np.lexsort((unit_n, unit_group))
    g, n = unit_group[order], np.asarray(unit_n, dtype=np.float64)[order]
    codes, starts, sizes = np.unique(g, return_index=True, return_counts=True)
    if len(codes) < 2:
        return ""
    # the median of each group's sorted counts, by position (no loop over groups' rows)
    med = (n[starts + (sizes - 1) // 2] + n[starts + sizes // 2]) / 2.0
    lo, hi = int(np.argmin(med)), int(np.argmax(med))
    if med[lo] <= 0 or med[hi] / med[lo] < COUNT_RATIO:
        return ""
    return (f"the groups' annotation counts differ (median {med[lo]:,.0f} annotations per annotator in "
            f"{group_label(group_table_index[codes[lo]])}, {med[hi]:,.0f} in "
            f"{group_label(group_table_index[codes[hi]])}): annotators are then not exchangeable, so the 'between' "
            "and 'std' statistics can reject too often; the studentized statistic (the default) allows for it")


def single_annotation_text(enc: EncodedAnnotations) -> str:
    """The warning when at least :data:`SINGLE_SHARE` of the annotations lie on items with a single annotation
    (e.g. the Wikipedia Talk sample: 3,000 annotations of 2,976 items), else ""."""
    if not enc.n:
        return ""
    per_item = np.bincount(enc.item_codes, minlength=len(enc.items))
    share = float(np.mean(per_item[enc.item_codes] == 1))
    if share < SINGLE_SHARE:
        return ""
    n_single = int(np.count_nonzero(per_item == 1))
    return (f"{n_single:,} of {len(enc.items):,} items carry a single annotation ({share:.0%} of the {enc.n:,} "
            "annotations): there the majority vote is the annotation itself, so ADR and disagreement cannot be "
            "measured and an item's difficulty cannot be told from its annotator; this design cannot say whose "
            "opinions a model excludes (several annotations per item are needed)")


def warn_design(enc: EncodedAnnotations) -> str:
    """Warn (UserWarning) when the annotations mostly lie on items with a single annotation (with the counts).

    Returns:
        str: the warning's text, "" when none was given.
    """
    text = single_annotation_text(enc)
    if text:
        warnings.warn(text, UserWarning, stacklevel=3)
    return text
