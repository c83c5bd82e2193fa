"""Opinion-exclusion metrics on Dask: one distributed pass, then the in-memory grouping on small tables.

What runs where:

1. **Distributed, one pass over the annotations** (:func:`_partition_counts`, per partition): the
   majority vote of every item of the partition, each annotation's agreement with it, and per
   annotator the counts everything else needs -- annotations, annotations counted in ADR,
   disagreements, the confusion counts TP/FP/TN/FN of the predictions. Per-item values never leave
   their partition; the per-annotator tables (one row per annotator, at most a few MB) are summed by
   a tree reduction. Items must live in one partition each: that is checked from the partitions' id
   ranges gathered in the same pass, and only if it fails is the table shuffled by item once and the
   pass repeated (see :mod:`._partitions`).
2. **On the client, per annotator**: ADR = disagreements / counted annotations, the performance from
   the confusion counts with the in-memory :func:`metric_from_counts`, the groups with the in-memory
   :func:`assign_bins` / :func:`prepare_grouping` / :func:`enforce_min_group_size`, and the group
   table from the per-annotator counts. Integer counts are summed exactly, and every division and
   every floating sum is the in-memory one on the same numbers in the same order: the result equals
   the pandas path exactly.

Groupings of items or annotations (``"ambiguity"``, ``"popularity"``) keep their units distributed: the
first pass also returns the range of the units' values, the client sets the bins from it exactly as
the in-memory :func:`assign_bins` does (equal-width bins depend on the minimum and maximum only), and
a second pass returns per (bin, annotator) counts and the units per bin, which the client merges or
drops with the in-memory :func:`enforce_min_group_size`.

Supported on Dask (:data:`SUPPORTED`): the groupings ``"adr"``, ``"demographic"``, a pandas Series of
annotator groups, ``"ambiguity"`` (``"disagreement"``, ``"entropy"``) and ``"popularity"``, with every
named performance (and lists of them), both aggregates, ``min_group_size``/``small_groups``, every tie
policy, and every ``bins`` form except ``"quantile:N"`` for items or annotations. The others
(``"discovered"``, ``ambiguity="uqs"``, quantile bins of items or annotations, callable performances)
raise a ValueError before any computation (:func:`check_dask_options`).

References:
    Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine
    Learning. Section 4.1.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd

# The in-memory pieces reused as they are: all computation names of the core are imported here only.
from aif360_subjective.metrics._opinion_core import (
    OpinionExclusionResult,
    _factorize,
    _ratio,
    _std0,
    annotation_popularity,
    encode_annotations,
    item_ambiguity,
    majority_vote,
    metric_from_counts,
    performance_name,
    resolve_performance,
)
from aif360_subjective.metrics._opinion_groups import (
    GroupingReport,
    assign_bins,
    enforce_min_group_size,
    validate_bins,
)
from aif360_subjective.metrics._opinion_options import prepare_grouping

from . import require_dask
from ._partitions import add_frames, by_item, id_range, items_are_local, tree_reduce

#: What the Dask path supports; everything else raises a ValueError naming the option.
SUPPORTED = {
    "grouping": ("adr", "demographic", "a pandas Series of annotator groups", "ambiguity", "popularity"),
    "performance": ("accuracy", "balanced_accuracy", "true_positive_rate", "true_negative_rate",
                    "false_positive_rate", "false_negative_rate", "precision", "f1", "a list of these"),
}
UNSUPPORTED_GROUPINGS = {
    "discovered": "it clusters annotators on profiles the Dask pass does not compute",
}
#: Groupings whose units (items, annotations) stay distributed: binned in a second pass.
DISTRIBUTED_UNITS = {"ambiguity": "item", "popularity": "annotation"}
_COUNTS = ["n", "n_counted", "n_dis", "tp", "fp", "fn", "tn"]


def check_dask_options(y_true, y_pred, item_ids, annotator_ids, grouping, performance, bins=5,
                       ambiguity="disagreement") -> None:
    """Raise before any computation when an input or option is not supported on Dask.

    Raises:
        ValueError: ids not given as Dask Series, a grouping or a performance the Dask path lacks.
        TypeError: an input that is not a Dask Series.
    """
    import dask.dataframe as dd

    for name, value in (("y_true", y_true), ("y_pred", y_pred), ("item_ids", item_ids),
                        ("annotator_ids", annotator_ids)):
        if value is None or isinstance(value, str):
            raise ValueError(
                f"{name}={value!r}: with Dask inputs, pass {name} as a Dask Series (a column of the same Dask "
                "DataFrame as y_true); index level names are read only from pandas inputs"
            )
        if not isinstance(value, dd.Series):
            raise TypeError(f"{name} must be a Dask Series when y_true is one, got {type(value).__name__}")
    if isinstance(grouping, str) and grouping in UNSUPPORTED_GROUPINGS:
        raise ValueError(
            f"grouping={grouping!r} is not supported on Dask ({UNSUPPORTED_GROUPINGS[grouping]}); supported: "
            f"{list(SUPPORTED['grouping'])}; or compute on pandas"
        )
    if isinstance(grouping, str) and grouping in DISTRIBUTED_UNITS:
        if grouping == "ambiguity" and ambiguity == "uqs":
            raise ValueError("ambiguity='uqs' is not supported on Dask (it runs CrowdTruth on the items); use "
                             "'disagreement' or 'entropy', or compute on pandas")
        if isinstance(bins, str) and bins.strip().startswith("quantile"):
            raise ValueError(
                f"bins={bins!r} is not supported on Dask for grouping={grouping!r} (quantiles of the "
                f"{DISTRIBUTED_UNITS[grouping]}s' values need them all on one machine); use a number of "
                "equal-width bins or explicit edges"
            )
    specs = performance if isinstance(performance, list | tuple) else [performance]
    for spec in specs:
        if callable(spec) and not isinstance(spec, str):
            raise ValueError(
                f"performance={getattr(spec, '__name__', type(spec).__name__)!r}: a callable performance is not "
                f"supported on Dask (it needs each annotator's raw labels on the client); use a named metric: "
                f"{list(SUPPORTED['performance'])}"
            )


def _check_other_options(other: dict) -> None:
    """Options of the public function unknown here must keep its default value."""
    if not other:
        return
    import inspect

    from aif360_subjective.sklearn.metrics import opinion_exclusion

    params = inspect.signature(opinion_exclusion).parameters
    changed = [k for k, v in other.items() if k not in params or not _is_default(v, params[k].default)]
    if changed:
        raise ValueError(f"option(s) {changed} are not supported on Dask; leave them at their defaults or compute "
                         "on pandas")


def _is_default(value, default) -> bool:
    try:
        return value is default or bool(value == default)
    except (TypeError, ValueError):
        return False


def _probe(grouping, pos_label, options: dict) -> None:
    """Validate every option with the in-memory path itself, on a two-annotation probe.

    The checks and their messages are then those of the pandas path, with no copy to keep in step.
    """
    from aif360_subjective.sklearn.metrics import opinion_exclusion

    annotators = ["_probe_a", "_probe_b"]
    if isinstance(grouping, pd.Series) and len(grouping):
        annotators = [grouping.index[0], grouping.index[0]]  # the probe must share an id with the Series
    opinion_exclusion([pos_label, pos_label], [pos_label, pos_label], item_ids=[0, 1], annotator_ids=annotators,
                      grouping=grouping, pos_label=pos_label, **options)


# ----------------------------------------------------------------------------------------------
# the distributed pass
# ----------------------------------------------------------------------------------------------
def _unit_values(kind: str, measure: str, t: np.ndarray, item_codes: np.ndarray, n: np.ndarray,
                 n_pos: np.ndarray) -> np.ndarray:
    """The values binned by a distributed grouping: per item (ambiguity) or per annotation (popularity)."""
    if kind == "ambiguity":
        return item_ambiguity(n, n_pos, measure)
    return annotation_popularity(SimpleNamespace(item_codes=item_codes, t=t), n, n_pos)


def _partition_counts(df: pd.DataFrame, pos_label, tie: str, values: tuple | None = None) -> dict:
    """Per-annotator counts of one partition (all rows of each of its items are in it).

    With ``values=(kind, measure)`` also the range of the grouping's unit values (for equal-width bins).
    """
    out: dict[str, Any] = {"n_rows": len(df)}
    missing = {c: int(df[c].isna().sum()) for c in df.columns}
    out["missing"] = missing
    out["labels"] = (pd.unique(df["y_true"].dropna().to_numpy()), pd.unique(df["y_pred"].dropna().to_numpy()))
    out["range"] = id_range(df["item"].to_numpy())
    if any(missing.values()) or not len(df):
        out["table"], out["n_items"], out["n_tie_items"], out["n_tie_annotations"] = pd.DataFrame(), 0, 0, 0
        return out
    t = np.asarray(df["y_true"].to_numpy() == pos_label, dtype=bool)
    p = np.asarray(df["y_pred"].to_numpy() == pos_label, dtype=bool)
    item_codes, items = pd.factorize(df["item"].to_numpy())
    n = np.bincount(item_codes).astype(np.float64)
    n_pos = np.bincount(item_codes, weights=t)
    mv = majority_vote(n, n_pos, tie)
    row_mv = mv[item_codes]
    counted = ~np.isnan(row_mv)
    disagree = counted & (t != (row_mv == 1.0))
    codes, annotators = pd.factorize(df["annotator"].to_numpy())
    k = len(annotators)

    def count(w=None):
        return np.bincount(codes, weights=w, minlength=k).astype(np.int64)

    tp, fp, fn = count(t & p), count(~t & p), count(t & ~p)
    total = count()
    out["table"] = pd.DataFrame({"n": total, "n_counted": count(counted), "n_dis": count(disagree),
                                 "tp": tp, "fp": fp, "fn": fn, "tn": total - tp - fp - fn},
                                index=pd.Index(annotators))
    out["n_items"] = len(items)
    out["n_tie_items"] = int(np.isnan(mv).sum())
    out["n_tie_annotations"] = int((~counted).sum())
    if values is not None:
        v = _unit_values(*values, t, item_codes, n, n_pos)
        out["value_range"] = (np.nanmin(v), np.nanmax(v))
    return out


def _partition_bins(df: pd.DataFrame, pos_label, kind: str, measure: str, edges: np.ndarray) -> dict:
    """Second pass of a distributed grouping: per (bin, annotator) counts, and units per bin."""
    t = np.asarray(df["y_true"].to_numpy() == pos_label, dtype=bool)
    p = np.asarray(df["y_pred"].to_numpy() == pos_label, dtype=bool)
    item_codes, _ = pd.factorize(df["item"].to_numpy())
    n = np.bincount(item_codes).astype(np.float64)
    n_pos = np.bincount(item_codes, weights=t)
    unit_codes, _, _ = assign_bins(_unit_values(kind, measure, t, item_codes, n, n_pos), edges)
    n_bins = len(edges) - 1
    row_codes = unit_codes[item_codes] if kind == "ambiguity" else unit_codes
    rows = row_codes >= 0
    a_codes, annotators = pd.factorize(df["annotator"].to_numpy()[rows])
    key = row_codes[rows] * np.int64(max(len(annotators), 1)) + a_codes
    pair_codes, pair_keys = pd.factorize(key)
    m = len(pair_keys)
    t, p = t[rows], p[rows]

    def count(w=None):
        return np.bincount(pair_codes, weights=w, minlength=m).astype(np.int64)

    total, tp, fp, fn = count(), count(t & p), count(~t & p), count(t & ~p)
    index = pd.MultiIndex.from_arrays([pair_keys // max(len(annotators), 1),
                                       annotators[pair_keys % max(len(annotators), 1)]], names=["bin", "annotator"])
    table = pd.DataFrame({"n": total, "tp": tp, "fp": fp, "fn": fn, "tn": total - tp - fp - fn}, index=index)
    return {"table": table, "sizes": np.bincount(unit_codes[unit_codes >= 0], minlength=n_bins),
            "outside": int((unit_codes < 0).sum())}


def _combine_bins(parts: list[dict]) -> dict:
    return {"table": add_frames([p["table"] for p in parts]), "sizes": sum(p["sizes"] for p in parts),
            "outside": sum(p["outside"] for p in parts)}


def _combine(parts: list[dict]) -> dict:
    """Merge partition results: sum the tables and counters, keep the ranges in partition order."""
    flat = []
    for p in parts:
        flat.extend(p.get("parts", [p]))
    labels_t = pd.unique(np.concatenate([np.asarray(p["labels"][0], dtype=object) for p in parts]))
    labels_p = pd.unique(np.concatenate([np.asarray(p["labels"][1], dtype=object) for p in parts]))
    missing = {c: sum(p["missing"][c] for p in parts) for c in parts[0]["missing"]}
    ranges = [p["value_range"] for p in parts if p.get("value_range") is not None]
    return {
        "value_range": (min(r[0] for r in ranges), max(r[1] for r in ranges)) if ranges else None,
        # range and length of every original partition (a few tuples), for the locality check
        "parts": [{"range": p["range"], "n_rows": p["n_rows"]} for p in flat],
        "table": add_frames([p["table"] for p in parts]),
        "labels": (labels_t, labels_p),
        "missing": missing,
        **{k: sum(p[k] for p in parts) for k in ("n_rows", "n_items", "n_tie_items", "n_tie_annotations")},
    }


def _counts(frame, pos_label, tie: str, values: tuple | None) -> dict:
    import dask

    parts = [dask.delayed(_partition_counts)(d, pos_label, tie, values) for d in frame.to_delayed()]
    (res,) = dask.compute(tree_reduce(parts, _combine))
    return res


def annotator_counts(y_true, y_pred, item_ids, annotator_ids, *, pos_label=1, tie: str = "favorable",
                     values: tuple | None = None, bins=5) -> dict:
    """Per-annotator counts (ADR numerator and denominator, confusion counts) over Dask Series.

    Returns:
        dict: ``table`` (pandas DataFrame indexed by annotator id: n, n_counted, n_dis, tp, fp, fn, tn),
        ``n_rows``, ``n_items``, ``n_tie_items``, ``n_tie_annotations``, ``shuffled`` (whether the
        table had to be shuffled by item first); with ``values=(grouping, measure)`` for ``"ambiguity"`` or
        ``"popularity"``, ``bins``: a second pass's per (bin, annotator) counts (``table``), units per bin
        (``sizes``), units outside the edges (``outside``), and the bin ``edges`` and ``labels``.

    Raises:
        ValueError: missing ids or labels, non-binary labels, ``pos_label`` not a label.
    """
    require_dask()
    frame = y_true.to_frame("y_true").assign(y_pred=y_pred, item=item_ids, annotator=annotator_ids)
    res = _counts(frame, pos_label, tie, values)
    _check_data(res, pos_label)  # before a shuffle: bad data costs one pass, not two
    shuffled = not items_are_local([p["range"] for p in res["parts"]], [p["n_rows"] for p in res["parts"]])
    if shuffled:
        frame = by_item(frame, "item")
        res = _counts(frame, pos_label, tie, values)
    res["shuffled"] = shuffled
    if values is not None:
        res["bins"] = _bin_pass(frame, pos_label, values, bins, res["value_range"])
    return res


def _bin_pass(frame, pos_label, values: tuple, bins, value_range: tuple) -> dict:
    """Bins over the global range (as the in-memory :func:`assign_bins` sets them), then the second pass."""
    import dask

    kind, arg = validate_bins(bins)
    if kind == "int":  # pandas.cut's edges depend on the minimum and the maximum only
        ends = np.asarray(value_range, dtype=np.float64)
        edges = pd.cut(ends, arg, retbins=True)[1]
        labels = assign_bins(ends, bins)[1]
    else:
        edges = arg
        labels = assign_bins(edges[:1], bins)[1]
    parts = [dask.delayed(_partition_bins)(d, pos_label, *values, edges) for d in frame.to_delayed()]
    (res,) = dask.compute(tree_reduce(parts, _combine_bins))
    notes = []
    if kind == "edges" and res["outside"]:  # the in-memory note, from the in-memory function
        notes = assign_bins(np.full(res["outside"], edges[-1] + 1.0), bins)[2]
    return {**res, "edges": edges, "labels": labels, "notes": notes}


def _check_data(res: dict, pos_label) -> None:
    if res["n_rows"] == 0:
        raise ValueError("no annotations: y_true is empty")
    names = {"y_true": "y_true", "y_pred": "y_pred", "item": "item_ids", "annotator": "annotator_ids"}
    bad = {names[c]: n for c, n in res["missing"].items() if n}
    if bad:
        raise ValueError(f"missing values in {bad} (count per input); drop those annotations first")
    # Label checks: the in-memory encoder on the distinct values (same rules, same messages).
    lt, lp = (np.asarray(v, dtype=object) for v in res["labels"])
    width = max(len(lt), len(lp))
    encode_annotations(np.resize(lt, width), np.resize(lp, width), np.zeros(width), np.zeros(width), pos_label)


# ----------------------------------------------------------------------------------------------
# the small per-annotator part, on the client
# ----------------------------------------------------------------------------------------------
def _performance(specs, counts: pd.DataFrame, nan_policy: str) -> np.ndarray:
    """The in-memory per-unit performance (:func:`unit_performance`) from confusion counts."""
    c = [counts[k].to_numpy(np.float64) for k in ("tp", "fp", "tn", "fn")]
    values = [metric_from_counts(s, *c) for s in specs]
    if len(values) == 1:
        return values[0]
    stacked = np.vstack(values)
    if nan_policy == "propagate":
        return stacked.mean(axis=0)
    defined = ~np.isnan(stacked)
    return _ratio(np.where(defined, stacked, 0.0).sum(axis=0), defined.sum(axis=0).astype(np.float64))


def result_from_counts(
    counts: dict,
    *,
    grouping,
    bins,
    performance,
    tie: str,
    min_group_size: int,
    small_groups: str,
    aggregate: str | None,
    nan_policy: str,
    annotators: pd.DataFrame | None,
    attributes,
    ambiguity: str = "disagreement",
) -> OpinionExclusionResult:
    """The opinion-exclusion result from per-annotator counts (and per (bin, annotator) counts).

    Follows :func:`~aif360_subjective.metrics._opinion_core.compute_opinion_exclusion` step by step.
    For annotator groupings every (group, annotator) unit is one annotator with all its annotations:
    the unit's counts are the annotator's. For "ambiguity" and "popularity" the units' bins come from
    the second pass (``counts["bins"]``), whose per (bin, annotator) counts are summed over merged bins.
    """
    table = counts["table"]
    ids = table.index.to_numpy()
    _, ann_index = _factorize(ids, "annotator_ids")  # the in-memory id order and dtype
    table = table.loc[ann_index]
    ann_index = pd.Index(ann_index, name="annotator")
    specs = resolve_performance(performance)
    # A stand-in for the encoded annotations: prepare_grouping reads only the annotator ids, and for
    # "ambiguity" one item's votes (its name and checks are what is used here, not its values).
    stand_in = SimpleNamespace(annotators=ann_index, items=[0], item_codes=np.zeros(1, dtype=np.int64),
                               t=np.ones(1, dtype=bool))
    spec = prepare_grouping(stand_in, grouping, annotator_table=annotators, attributes=attributes, tie=tie,
                            ambiguity=ambiguity)
    kind = spec["grouping"]
    if aggregate is None:
        aggregate = "pooled" if kind in DISTRIBUTED_UNITS else "annotator"

    n_counted = table["n_counted"].to_numpy(np.float64)
    n_dis = table["n_dis"].to_numpy(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        adr_values = np.where(n_counted > 0, n_dis / np.where(n_counted > 0, n_counted, 1.0), np.nan)
    adr = pd.Series(adr_values, index=ann_index, name="adr")
    perf_values = _performance(specs, table, nan_policy)
    ann_perf = pd.Series(perf_values, index=ann_index, name="performance")

    extra: dict[str, int] = {}
    ordered = True
    unit_kind = DISTRIBUTED_UNITS.get(kind, "annotator")
    if kind in DISTRIBUTED_UNITS:
        bins_res = counts["bins"]
        labels, bin_notes = bins_res["labels"], list(bins_res["notes"])
        n_units_total = counts["n_items"] if kind == "ambiguity" else counts["n_rows"]
        bin_of_bin, labels, bits = enforce_min_group_size(np.arange(len(labels)), labels, bins_res["sizes"],
                                                          min_group_size, small_groups, True)
        n_ungrouped_units = int(bins_res["outside"] + bins_res["sizes"][bin_of_bin < 0].sum())
        pairs = bins_res["table"]
        g = bin_of_bin[pairs.index.get_level_values("bin").to_numpy()]
        a = ann_index.get_indexer(pairs.index.get_level_values("annotator"))
        keep = g >= 0
        pairs = pairs[keep].groupby([g[keep], a[keep]]).sum()  # sorted by group, then annotator position
        pair_group = pairs.index.get_level_values(0).to_numpy(np.int64)
        pair_ann = pairs.index.get_level_values(1).to_numpy(np.int64)
        pair_counts = pairs
    else:
        if kind == "adr":
            if counts["n_tie_annotations"]:
                extra["annotations on dropped ties (not counted in ADR)"] = counts["n_tie_annotations"]
            n_nan = int(np.isnan(adr_values).sum())
            if n_nan:
                extra["annotators without ADR (only tied items)"] = n_nan
            unit_codes, labels, bin_notes = assign_bins(adr_values, bins)
        else:
            ordered, bin_notes = False, []
            lab = spec["annotator_labels"].reindex(ann_index)
            n_missing = int(lab.isna().sum())
            if n_missing:
                extra["annotators without a group label"] = n_missing
            values = lab.to_numpy(dtype=object)
            try:
                codes, uniques = pd.factorize(values, sort=True, use_na_sentinel=True)
            except TypeError:
                codes, uniques = pd.factorize(values, sort=False, use_na_sentinel=True)
            unit_codes = codes.astype(np.int64)
            labels = pd.Index(list(uniques), dtype=object, tupleize_cols=False)
        n_units_total = len(unit_codes)
        unit_sizes = np.bincount(unit_codes[unit_codes >= 0], minlength=len(labels))
        unit_codes, labels, bits = enforce_min_group_size(unit_codes, labels, unit_sizes, min_group_size,
                                                          small_groups, ordered)
        n_ungrouped_units = int((unit_codes < 0).sum())
        # (group, annotator) units: the grouped annotators, by group then annotator (the core's order)
        grouped = np.flatnonzero(unit_codes >= 0)
        pair_ann = grouped[np.lexsort((grouped, unit_codes[grouped]))]
        pair_group = unit_codes[pair_ann]
        pair_counts = table.iloc[pair_ann]
    pair_perf = _performance(specs, pair_counts, nan_policy)
    pair_n = pair_counts["n"].to_numpy(np.int64)
    n_groups = len(labels)
    n_annotations = np.bincount(pair_group, weights=pair_n, minlength=n_groups).astype(np.int64)
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
        pooled = pair_counts[["tp", "fp", "tn", "fn"]].groupby(pair_group).sum()
        pooled = pooled.reindex(np.arange(n_groups), fill_value=0)
        group_perf = _performance(specs, pooled, nan_policy)
    group_index = pd.Index(labels, name="group", tupleize_cols=False)
    group_table = pd.DataFrame(
        {"n_annotators": n_annotators.astype(np.int64), "n_annotations": n_annotations, "performance": group_perf,
         "spread": spread, "n_undefined": n_undefined},
        index=group_index,
    )
    defined_groups = ~np.isnan(group_perf)
    units = pd.DataFrame(
        {
            "group": pd.Categorical.from_codes(pair_group, categories=group_index) if n_groups
            else pd.Categorical([]),
            "annotator": ann_index[pair_ann].rename(None),
            "n_annotations": pair_n,
            "performance": pair_perf,
        }
    )
    report = GroupingReport(
        grouping=spec["grouping_name"],
        unit=unit_kind,
        aggregate=aggregate,
        n_units=n_units_total,
        n_groups=n_groups,
        n_ungrouped_units=n_ungrouped_units,
        n_ungrouped_annotations=int(counts["n_rows"] - pair_n.sum()),
        excluded=extra,
        notes=tuple(bin_notes) + bits["notes"],
        empty_groups=bits["empty"],
        merged_groups=bits["merged"],
        dropped_groups=bits["dropped"],
        undefined_groups=tuple(group_index[~defined_groups]),
        n_undefined_units=int((~defined).sum()),
        n_tie_items=counts["n_tie_items"],
        tie=tie,
    )
    return OpinionExclusionResult(
        disagreement_rates=adr,
        annotator_performance=ann_perf,
        group_table=group_table,
        unit_performance=units,
        unfairness=_std0(group_perf),
        performance=float(np.mean(group_perf[defined_groups])) if defined_groups.any() else np.nan,
        report=report,
        performance_name=performance_name(specs),
        extras={"backend": "dask", "n_annotations": counts["n_rows"], "n_items": counts["n_items"],
                "shuffled_by_item": counts["shuffled"]},
    )


def opinion_exclusion(
    y_true,
    y_pred,
    *,
    item_ids=None,
    annotator_ids=None,
    grouping="adr",
    bins=5,
    performance="accuracy",
    pos_label=1,
    tie: str = "favorable",
    min_group_size: int = 1,
    small_groups: str = "merge",
    aggregate: str | None = None,
    ambiguity: str = "disagreement",
    annotators: pd.DataFrame | None = None,
    attributes=None,
    nan_policy: str = "propagate",
    clustering="kmeans",
    n_clusters: int | None = None,
    random_state=None,
    **other,
) -> OpinionExclusionResult:
    """:func:`aif360_subjective.sklearn.metrics.opinion_exclusion` on Dask Series (same arguments).

    ``other``: options of the public function this path does not know; accepted only at the public
    function's default value (so a new option reaches the Dask path as a clear error, not a wrong result).

    Raises:
        ValueError: an option not supported on Dask (before any computation), or what the in-memory
            path raises for the same options and data.
    """
    require_dask()
    _check_other_options(other)
    check_dask_options(y_true, y_pred, item_ids, annotator_ids, grouping, performance, bins, ambiguity)
    options = dict(bins=bins, performance=performance, tie=tie, min_group_size=min_group_size,
                   small_groups=small_groups, aggregate=aggregate, ambiguity=ambiguity, annotators=annotators,
                   attributes=attributes, nan_policy=nan_policy)
    _probe(grouping, pos_label, options)
    values = (grouping, ambiguity) if isinstance(grouping, str) and grouping in DISTRIBUTED_UNITS else None
    counts = annotator_counts(y_true, y_pred, item_ids, annotator_ids, pos_label=pos_label, tie=tie, values=values,
                              bins=bins)
    return result_from_counts(counts, grouping=grouping, bins=bins, performance=performance, tie=tie,
                              min_group_size=min_group_size, small_groups=small_groups, aggregate=aggregate,
                              nan_policy=nan_policy, annotators=annotators, attributes=attributes,
                              ambiguity=ambiguity)
