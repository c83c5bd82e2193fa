"""Opinion-exclusion metrics on Dask: distributed counts, then the in-memory core on them.

What runs where:

1. **Distributed, one pass over the annotations** (:func:`_partition_counts`, per partition): the
   majority vote of every item of the partition, each annotation's agreement with it, and per
   annotator the counts everything else needs -- annotations counted in ADR, disagreements, the
   confusion counts TN/FP/FN/TP of the predictions. Per-item values never leave their partition; the
   per-annotator tables (one row per annotator, at most a few MB) are summed by a tree reduction.
   Items must live in one partition each: that is checked from the partitions' id ranges gathered in
   the same pass, and only if it fails is the table shuffled by item once and the pass repeated (see
   :mod:`._partitions`).
2. **On the client**: ADR from the counts with the in-memory
   :func:`~aif360_subjective.opinion.annotations.adr_from_counts`, the groups with the in-memory
   :func:`~aif360_subjective.opinion.groupers.group_annotators` and
   :func:`~aif360_subjective.opinion.groups.enforce_min_group_size`, and then everything after
   the counts -- performances, group table, unfairness, summary -- by the in-memory core's one entry
   point :func:`~aif360_subjective.opinion.core.result_from_counts`, the function the pandas path
   calls too. Integer counts are summed exactly, so the result equals the pandas path's bit for bit
   (bootstrap intervals included: they redraw the result's unit counts).

Groupings of items or annotations (``"ambiguity"``, ``"popularity"``) keep their units distributed: the
first pass also returns the range of the units' values, the client sets the bins from it exactly as
the in-memory :func:`~aif360_subjective.opinion.groups.assign_bins` does (equal-width bins depend
on the minimum and maximum only), and a second pass returns per (bin, annotator) counts (and histograms
of errors for "mae"/"within_one") and the units per bin, which the client merges or drops with the
in-memory ``enforce_min_group_size``.

Ratings (``positive_from``, :class:`RatingPass`): the pass reads the binary view ``rating >= positive_from``
for the majority vote and the confusion counts, takes each item's median rating for ``adr_reference="median"``
and, for "mae" and "within_one", counts per annotator the annotations at each absolute error |rating -
predicted|; the client turns those histograms into the units' histograms over the grouped annotations' distinct
errors, and the core computes the measures from them (as on pandas). More than ``MAX_ERROR_CELLS`` distinct
errors are only known after the pass: a ValueError then.

Supported on Dask: see :data:`UNSUPPORTED` for what is not (a ValueError before any computation,
:func:`opinion_options`).

One core, two engines: every pass is a function of one partition's rows run through the engines' one interface
(``map`` and ``reduce`` of :class:`~aif360_subjective._dask.parts.DaskParts` or
:class:`~aif360_subjective._spark.partitions.SparkPartitions`), on the :class:`Annotations` of an engine: the
paired columns ``y_true``, ``y_pred``, ``item``, ``annotator`` and how to put each item's rows in one partition.
:class:`DaskAnnotations` is Dask's; the Spark face (:mod:`._spark`) adds its own and nothing else.

References:
    Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine
    Learning. Section 4.1.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Protocol

import numpy as np
import pandas as pd

from aif360_subjective._labels import FN, FP, TN, TP, cell_codes, confusion_counts, majority_vote, vote_counts

from .._dask import check_workers, require_dask
from .._dask._partitions import add_frames, by_item, id_kind, id_range, items_are_local
from .._dask.parts import DaskParts
from .._spark import is_spark_dataframe
from .._validation import duplicate_pairs_error
from .annotations import (
    MAX_ERROR_CELLS,
    CrossFit,
    DisagreementRates,
    HalfCounts,
    _factorize,
    adr_from_counts,
    check_positive_from,
    encode_annotations,
    error_histogram,
    has_repeats,
    item_ambiguity,
    median_disagreements,
    row_popularity,
)
from .core import (
    GroupCounts,
    OpinionExclusionResult,
    counts_suffice,
    histograms_suffice,
    result_from_counts,
)
from .data_form import data_columns
from .groupers import ANNOTATOR_GROUPINGS, group_annotators, group_by_adr_cross
from .groups import assign_bins, enforce_min_group_size, validate_bins
from .options import (
    IntervalOptions,
    OpinionOptions,
    check_grouping,  # the Series/annotator overlap check, repeated once the annotator ids are known
    check_interval_options,
    check_opinion_options,
)

#: What the Dask path does not support, and why (a ValueError naming the option, before any computation).
UNSUPPORTED = {
    "grouping='discovered'": "it clusters annotators on profiles the Dask pass does not compute",
    "ambiguity='uqs'": "it runs CrowdTruth on the items",
    "bins='quantile:N' for 'ambiguity'/'popularity'": "quantiles of the items' or annotations' values need them "
                                                        "all on one machine",
    "a callable performance": "it needs each unit's raw labels on the client",
}
#: Groupings whose units (items, annotations) stay distributed: binned in a second pass.
DISTRIBUTED_UNITS = {"ambiguity": "item", "popularity": "annotation"}
#: The OpinionOptions fields this path implements; any other field must keep its default (a new option of the
#: core reaches the Dask path as a clear error, not as a silently ignored setting).
HANDLED_FIELDS = frozenset({
    "grouping", "group_labels", "bins", "performance", "tie", "min_group_size", "small_groups", "aggregate",
    "ambiguity", "attributes", "nan_policy", "clustering", "n_clusters", "random_state", "warn_group_size",
    "higher_is_better", "adr_reference", "adr_fit",
})
_CELLS = ["tn", "fp", "fn", "tp"]  # the column order of the confusion counts: TN, FP, FN, TP
assert [TN, FP, FN, TP] == [0, 1, 2, 3]


def _check_inputs(y_true: Any, y_pred: Any, item_ids: Any, annotator_ids: Any) -> None:
    import dask.dataframe as dd

    for name, value in (("y_true", y_true), ("y_pred", y_pred), ("item_ids", item_ids),
                        ("annotator_ids", annotator_ids)):
        if value is None or isinstance(value, str):
            raise ValueError(
                f"{name}={value!r}: with Dask inputs, pass {name} as a Dask Series (a column of the same Dask "
                "DataFrame as y_true); index level names are read only from pandas inputs"
            )
        if not isinstance(value, dd.Series):
            raise TypeError(f"{name} must be a Dask Series when one of y_true, y_pred, item_ids, annotator_ids "
                            f"is, got {type(value).__name__}")
    # One collection: the Series are paired partition by partition, by position (the pandas rule), which needs the
    # same partitions; Series read separately (another block size, another file order) are refused, not re-paired.
    inputs = {"y_true": y_true, "y_pred": y_pred, "item_ids": item_ids, "annotator_ids": annotator_ids}
    for name, value in list(inputs.items())[1:]:
        if value.npartitions != y_true.npartitions or tuple(value.divisions) != tuple(y_true.divisions):
            other = "" if value.npartitions != y_true.npartitions else ", other divisions"
            raise ValueError(
                f"{name} and y_true come from different Dask collections ({value.npartitions} vs "
                f"{y_true.npartitions} partitions{other}): pass columns of one Dask DataFrame (ddf['label'], "
                "ddf['pred'], ...), read once"
            )


#: The columns of the paired frame, and the argument each comes from.
_PAIRED = {"y_true": "y_true", "y_pred": "y_pred", "item": "item_ids", "annotator": "annotator_ids"}


def _pair_partition(*parts: pd.Series) -> pd.DataFrame:
    """One partition of the four inputs as one frame, paired by position after checking that they match (same
    length, same index: the pandas rule, :func:`~aif360_subjective._validation.check_same_index`)."""
    first = parts[0]
    for name, part in zip(list(_PAIRED.values())[1:], parts[1:], strict=True):
        if len(part) != len(first) or not part.index.equals(first.index):
            raise ValueError(
                f"{name} and y_true do not match row for row in a partition ({len(part)} vs {len(first)} rows"
                f"{'' if len(part) != len(first) else ', different index'}): Series are paired by position; pass "
                "columns of one Dask DataFrame"
            )
    return pd.DataFrame({col: part.to_numpy() for col, part in zip(_PAIRED, parts, strict=True)}, index=first.index)


def _columns_of_one_frame(series: tuple[Any, ...]) -> bool:
    """Whether every Series is a plain column of one and the same Dask DataFrame (``ddf["label"]``, ...)."""
    try:
        from dask.dataframe.dask_expr._expr import Projection
    except ImportError:  # another Dask: take the checked path
        return False
    exprs = [getattr(s, "expr", None) for s in series]
    if not all(isinstance(e, Projection) for e in exprs):
        return False
    return len({e.frame._name for e in exprs}) == 1  # noqa: SLF001 (Dask's expression key: no public accessor)


def paired_frame(y_true: Any, y_pred: Any, item_ids: Any, annotator_ids: Any) -> Any:
    """The four Dask Series as one Dask DataFrame (columns y_true, y_pred, item, annotator), partition by
    partition and by position (checked in each partition when it is computed)."""
    import dask.dataframe as dd

    series = (y_true, y_pred, item_ids, annotator_ids)
    if _columns_of_one_frame(series):
        # columns of one frame share every partition and its index: the blockwise assign pairs them by position
        # (and Dask fuses it with the read), so the per-partition check has nothing to find
        return y_true.to_frame("y_true").assign(y_pred=y_pred, item=item_ids, annotator=annotator_ids)
    from dask.dataframe.utils import make_meta

    meta = _pair_partition(*(make_meta(s) for s in series))  # each Series' empty frame of its dtype
    # partition i of each input with partition i of the others (no alignment by index: that is the check's job)
    return dd.map_partitions(_pair_partition, *series, meta=meta, align_dataframes=False,
                             enforce_metadata=False)


def _unsupported(option: str, given: str, engine: str = "Dask") -> ValueError:
    return ValueError(f"{given}: {option} is not supported on {engine} ({UNSUPPORTED[option]}); compute on pandas "
                      f"(docs/guide/{engine.lower()}.rst lists what the {engine} path supports)")


def opinion_options(
    y_true: Any, y_pred: Any, item_ids: Any, annotator_ids: Any, *, annotator_table: pd.DataFrame | None,
    positive_from: Any, option_args: dict[str, Any],
) -> OpinionOptions:
    """Validate the inputs and options of a Dask run, before any computation.

    The options are checked by the one options check of both faces,
    :func:`~aif360_subjective.metrics.check_opinion_options` (same exceptions, same messages). The annotator
    ids are not known before the counting pass: the check runs on the ids of a grouping Series (or none), and
    the one check that needs the data's ids (a grouping Series must share some) runs again after the pass.

    Raises:
        TypeError: an input that is not a Dask Series; a bad option type.
        ValueError: a bad option value, or an option not supported on Dask (:data:`UNSUPPORTED`).
        RuntimeError: a distributed cluster with a worker that cannot import this package or runs another
            version (:func:`~aif360_subjective._dask.check_workers`).
    """
    require_dask()
    _check_inputs(y_true, y_pred, item_ids, annotator_ids)
    options = distributed_options(annotator_table=annotator_table, positive_from=positive_from,
                                  option_args=option_args, engine="Dask")
    check_workers()  # a distributed cluster: every worker must import this package
    return options


def distributed_options(*, annotator_table: pd.DataFrame | None, positive_from: Any, option_args: dict[str, Any],
                        engine: str) -> OpinionOptions:
    """The options check of a distributed run (``engine``: "Dask" or "Spark"), before any computation: the one
    options check of every face, then what the distributed passes do not support (:data:`UNSUPPORTED`, and any
    option of the core outside :data:`HANDLED_FIELDS` away from its default), named with the engine.

    Raises:
        TypeError: a bad option type.
        ValueError: a bad option value, or an option the distributed passes do not support.
    """
    grouping = option_args.get("grouping")
    if isinstance(grouping, str) and grouping == "discovered":  # before its n_clusters is checked against 0 ids
        raise _unsupported("grouping='discovered'", "grouping='discovered'", engine)
    placeholder = pd.Index(grouping.index) if isinstance(grouping, pd.Series) else pd.Index([])
    options = check_opinion_options(
        annotators=placeholder, annotator_table=annotator_table,
        default_attributes=() if annotator_table is None else list(annotator_table.columns),
        has_ratings=positive_from is not None, **option_args,
    )
    if not counts_suffice(options.performance) and not histograms_suffice(options.performance):
        raise _unsupported("a callable performance", f"performance={options.performance_name!r}", engine)
    if options.grouping in DISTRIBUTED_UNITS:
        if options.grouping == "ambiguity" and options.ambiguity == "uqs":
            raise _unsupported("ambiguity='uqs'", "grouping='ambiguity' with ambiguity='uqs'", engine)
        if validate_bins(options.bins)[0] == "quantile":
            raise _unsupported("bins='quantile:N' for 'ambiguity'/'popularity'",
                               f"bins={options.bins!r} with grouping={options.grouping!r}", engine)
    for f in dataclasses.fields(OpinionOptions):
        if f.name not in HANDLED_FIELDS and (f.default is dataclasses.MISSING
                                             or not _is_default(getattr(options, f.name), f.default)):
            raise ValueError(f"option {f.name}={getattr(options, f.name)!r} is not supported on {engine}; leave it "
                             f"at its default or compute on pandas")
    return options


def check_row_options(engine: str, *, test_adjust: str, bootstrap_levels: str | None) -> None:
    """Refuse, before any pass, the test and interval options that read annotation rows, which the distributed
    passes do not keep (``bootstrap_levels``: None when no intervals are asked for).

    Raises:
        ValueError: ``bootstrap_levels="crossed"`` or ``test_adjust="items"``, named with the engine.
    """
    if bootstrap_levels == "crossed":
        raise ValueError("bootstrap_levels='crossed' resamples items and needs the annotation rows: the metric class "
                         f"and the pandas path of opinion_exclusion have them, the {engine} back end does not (use "
                         "'both' there)")
    if test_adjust == "items":
        raise ValueError("test_adjust='items' compares each annotation with the other annotations of its item and "
                         f"needs the annotation rows; the {engine} back end has only counts: compute on pandas")


def _is_default(value: Any, default: Any) -> bool:
    try:
        return value is default or bool(value == default)
    except (TypeError, ValueError):
        return False


# ----------------------------------------------------------------------------------------------
# the distributed passes
# ----------------------------------------------------------------------------------------------
def _unit_values(kind: str, measure: str, t: np.ndarray, item_codes: np.ndarray, n: np.ndarray,
                 n_pos: np.ndarray) -> np.ndarray:
    """The values binned by a distributed grouping: per item (ambiguity) or per annotation (popularity)."""
    if kind == "ambiguity":
        return item_ambiguity(n, n_pos, measure)
    return row_popularity(t, item_codes, n, n_pos)


def _cell_counts(codes: np.ndarray, t: np.ndarray, p: np.ndarray, k: int) -> dict[str, np.ndarray]:
    """Integer confusion counts per code (exact sums over partitions)."""
    c = confusion_counts(codes, k, cell_codes(t, p)).astype(np.int64)
    return {name: c[:, cell] for name, cell in zip(_CELLS, (TN, FP, FN, TP), strict=True)}


@dataclasses.dataclass(frozen=True)
class RatingPass:
    """What the passes do with ratings (``positive_from`` given): the cut of the binary view, the ADR reference
    (``median``: the item's median rating) and whether to count histograms of absolute errors (``errors``)."""

    cut: float
    median: bool = False
    errors: bool = False


def _views(df: pd.DataFrame, pos_label: Any, rating: RatingPass | None) -> dict[str, Any]:
    """The positive indicators ``t``, ``p`` of a partition's rows, and with ratings the ratings themselves.

    With ratings the labels are the in-memory binary view (1 = rating >= cut, else 0; ``pos_label`` picks the
    positive one), the ratings numbers as the in-memory ``check_ratings`` reads them (numeric strings converted);
    ``bad`` counts the values that are not numbers.
    """
    if rating is None:
        yt, yp = df["y_true"].to_numpy(), df["y_pred"].to_numpy()
        return {"t": np.asarray(yt == pos_label, dtype=bool), "p": np.asarray(yp == pos_label, dtype=bool),
                "labels": (pd.unique(df["y_true"].dropna().to_numpy()), pd.unique(df["y_pred"].dropna().to_numpy())),
                "bad": {}}
    rt, rp = (np.asarray(pd.to_numeric(df[c], errors="coerce"), dtype=np.float64) for c in ("y_true", "y_pred"))
    bad = {"y_true": int((~np.isfinite(rt)).sum()), "y_pred": int((~np.isfinite(rp)).sum())}
    bt, bp = (rt >= rating.cut).astype(np.int64), (rp >= rating.cut).astype(np.int64)
    return {"t": bt == pos_label, "p": bp == pos_label, "rt": rt, "rp": rp, "bad": bad,
            "labels": (pd.unique(bt), pd.unique(bp)) if not any(bad.values()) else (np.zeros(0), np.zeros(0))}


def _error_table(codes: np.ndarray, annotators: pd.Index, rt: np.ndarray, rp: np.ndarray) -> pd.DataFrame | None:
    """Per annotator, the annotations at each absolute error (columns = the partition's distinct errors); None
    past :data:`MAX_ERROR_CELLS` distinct errors."""
    hist, cells = error_histogram(np.abs(rt - rp), codes, len(annotators))
    if hist is None:
        return None
    return pd.DataFrame(hist, index=pd.Index(annotators), columns=pd.Index(cells))


def _row_agreement(view: dict[str, Any], item_codes: np.ndarray, n_items: int, tie: str,
                   rating: RatingPass | None) -> tuple[np.ndarray, np.ndarray, dict[str, int]]:
    """Per row of a partition holding all rows of its items: counted in ADR, disagrees with the reference (the
    in-memory :func:`~aif360_subjective.opinion.annotations.row_disagreements` rules); and the tie counters."""
    t = view["t"]
    if rating is not None and rating.median:  # the in-memory median reference: every annotation counted, no tie
        disagree = median_disagreements(view["rt"], item_codes, n_items)
        return np.ones(len(t), dtype=bool), disagree, {"n_tie_items": 0, "n_tie_annotations": 0,
                                                       "n_resolved_tie_items": 0}
    n, n_pos = vote_counts(item_codes, t, n_items)
    mv = majority_vote(n, n_pos, tie)
    row_mv = mv[item_codes]
    counted = ~np.isnan(row_mv)
    n_tie_items = int(np.isnan(mv).sum())
    return counted, counted & (t != (row_mv == 1.0)), {
        "n_tie_items": n_tie_items, "n_tie_annotations": int((~counted).sum()),
        "n_resolved_tie_items": int((2.0 * n_pos == n).sum()) - n_tie_items}


def _partition_counts(df: pd.DataFrame, pos_label: Any, tie: str, values: tuple[str, str] | None = None,
                      rating: RatingPass | None = None) -> dict:
    """Per-annotator counts of one partition (all rows of each of its items are in it).

    With ``values=(kind, measure)`` also the range of the grouping's unit values (for equal-width bins); with
    ``rating`` the binary view of the ratings, the median reference and the histograms of errors (``errors``:
    per annotator, None past ``MAX_ERROR_CELLS`` distinct errors).
    """
    out: dict[str, Any] = {"n_rows": len(df), "duplicates": None}
    missing = {c: int(df[c].isna().sum()) for c in df.columns}
    out["missing"] = missing
    view = _views(df, pos_label, rating)
    out["labels"], out["bad_ratings"] = view["labels"], view["bad"]
    out["range"] = id_range(df["item"].to_numpy())
    out["kind"] = id_kind(df["item"].to_numpy())
    out["errors"] = pd.DataFrame()
    zero = ("n_items", "n_tie_items", "n_tie_annotations", "n_resolved_tie_items")
    if any(missing.values()) or any(view["bad"].values()) or not len(df):
        out["table"] = pd.DataFrame()
        out.update(dict.fromkeys(zero, 0))
        return out
    t, p = view["t"], view["p"]
    item_codes, items = pd.factorize(df["item"].to_numpy())
    codes, annotators = pd.factorize(df["annotator"].to_numpy())
    k = len(annotators)
    # The in-memory rule; every row of an item is in this partition, so every duplicate is seen. Rows are taken in
    # index order (a shuffle by item does not keep the row order), so the row named is the pandas face's.
    key = item_codes.astype(np.int64) * max(k, 1) + codes
    if has_repeats(key):
        try:
            order = np.argsort(df.index.to_numpy(), kind="stable")
        except TypeError:  # an unorderable index: the partition's order
            order = np.arange(len(df))
        dup = pd.Series(key[order]).duplicated().to_numpy()
        i = int(order[int(dup.argmax())])
        out["duplicates"] = (int(dup.sum()), df["item"].iloc[i], df["annotator"].iloc[i], df.index[i])
    n, n_pos = vote_counts(item_codes, t, len(items))
    counted, disagree, ties = _row_agreement(view, item_codes, len(items), tie, rating)
    out.update(ties)
    out["table"] = pd.DataFrame({"n_counted": np.bincount(codes, weights=counted, minlength=k).astype(np.int64),
                                 "n_dis": np.bincount(codes, weights=disagree, minlength=k).astype(np.int64),
                                 **_cell_counts(codes, t, p, k)},
                                index=pd.Index(annotators))
    out["n_items"] = len(items)
    if rating is not None and rating.errors:
        out["errors"] = _error_table(codes, annotators, view["rt"], view["rp"])
    if values is not None:
        v = _unit_values(*values, t, item_codes, n, n_pos)
        out["value_range"] = (np.nanmin(v), np.nanmax(v)) if (~np.isnan(v)).any() else None
    return out


def _add_errors(tables: list[pd.DataFrame | None]) -> pd.DataFrame | None:
    """Sum the per-annotator histograms of errors; None once they hold more than ``MAX_ERROR_CELLS`` errors."""
    if any(t is None for t in tables):
        return None
    out = add_frames([t for t in tables if t is not None])
    return None if len(out.columns) > MAX_ERROR_CELLS else out.fillna(0)


def _combine(parts: list[dict]) -> dict:
    """Merge partition results: sum the tables and counters, keep the ranges in partition order."""
    flat = []
    for p in parts:
        flat.extend(p.get("parts", [p]))
    labels_t = pd.unique(np.concatenate([np.asarray(p["labels"][0], dtype=object) for p in parts]))
    labels_p = pd.unique(np.concatenate([np.asarray(p["labels"][1], dtype=object) for p in parts]))
    missing = {c: sum(p["missing"][c] for p in parts) for c in parts[0]["missing"]}
    bad = {c: sum(p["bad_ratings"][c] for p in parts) for c in parts[0]["bad_ratings"]}
    ranges = [p["value_range"] for p in parts if p.get("value_range") is not None]
    dups = [p["duplicates"] for p in parts if p["duplicates"] is not None]
    return {
        "duplicates": (sum(d[0] for d in dups), *_first_row(dups)[1:]) if dups else None,
        "value_range": (min(r[0] for r in ranges), max(r[1] for r in ranges)) if ranges else None,
        # range and length of every original partition (a few tuples), for the locality check
        "parts": [{"range": p["range"], "n_rows": p["n_rows"], "kind": p["kind"]} for p in flat],
        "table": add_frames([p["table"] for p in parts]),
        "labels": (labels_t, labels_p),
        "missing": missing,
        "bad_ratings": bad,
        "errors": _add_errors([p["errors"] for p in parts]),
        **{k: sum(p[k] for p in parts)
           for k in ("n_rows", "n_items", "n_tie_items", "n_tie_annotations", "n_resolved_tie_items")},
    }


def _first_row(dups: list[tuple]) -> tuple:
    """The duplicate with the smallest row label (the first in partition order if labels do not compare)."""
    try:
        return min(dups, key=lambda d: d[3])
    except TypeError:
        return dups[0]


def _partition_bins(df: pd.DataFrame, pos_label: Any, kind: str, measure: str, edges: np.ndarray,
                    rating: RatingPass | None = None) -> dict:
    """Second pass of a distributed grouping: per (bin, annotator) counts, and units per bin."""
    view = _views(df, pos_label, rating)
    t, p = view["t"], view["p"]
    item_codes, items = pd.factorize(df["item"].to_numpy())
    n, n_pos = vote_counts(item_codes, t, len(items))
    values = _unit_values(kind, measure, t, item_codes, n, n_pos)
    unit_codes, _, _ = assign_bins(values, edges)
    n_bins = len(edges) - 1
    row_codes = unit_codes[item_codes] if kind == "ambiguity" else unit_codes
    rows = row_codes >= 0
    a_codes, annotators = pd.factorize(df["annotator"].to_numpy()[rows])
    width = np.int64(max(len(annotators), 1))
    pair_codes, pair_keys = pd.factorize(row_codes[rows] * width + a_codes)
    index = pd.MultiIndex.from_arrays([pair_keys // width, annotators[pair_keys % width]], names=["bin", "annotator"])
    table = pd.DataFrame(_cell_counts(pair_codes, t[rows], p[rows], len(pair_keys)), index=index)
    errors = (_error_table(pair_codes, index, view["rt"][rows], view["rp"][rows])
              if rating is not None and rating.errors else pd.DataFrame())
    nan = np.isnan(values)
    return {"table": table, "errors": errors, "sizes": np.bincount(unit_codes[unit_codes >= 0], minlength=n_bins),
            "outside": int(((unit_codes < 0) & ~nan).sum()), "n_nan": int(nan.sum())}


def _combine_bins(parts: list[dict]) -> dict:
    return {"table": add_frames([p["table"] for p in parts]), "sizes": sum(p["sizes"] for p in parts),
            "errors": _add_errors([p["errors"] for p in parts]),
            **{k: sum(p[k] for p in parts) for k in ("outside", "n_nan")}}


class Annotations(Protocol):
    """The annotations of one engine, paired in the columns ``y_true``, ``y_pred``, ``item``, ``annotator``.

    ``parts``: their partitions (``map`` and ``reduce`` of the engines' one interface); ``by_item(kinds)``: the
    annotations with each item's rows in one partition (one shuffle; ``kinds``: the partitions' id kinds);
    ``names``: how the four columns are named in messages; ``row_labels``: whether a partition's index labels
    are the rows' own (a Dask Series' index; a Spark DataFrame has none); ``engine``: the result's backend.
    """

    @property
    def parts(self) -> Any: ...

    @property
    def names(self) -> dict[str, str]: ...

    @property
    def row_labels(self) -> bool: ...

    @property
    def engine(self) -> str: ...

    def by_item(self, kinds: list[str | None]) -> Annotations: ...


#: How the Dask face's four inputs are named in messages.
_DASK_NAMES = {"y_true": "y_true", "y_pred": "y_pred", "item": "item_ids", "annotator": "annotator_ids"}


class DaskAnnotations:
    """The paired Dask DataFrame of :func:`paired_frame` as :class:`Annotations`."""

    names = _DASK_NAMES
    row_labels = True
    engine = "dask"

    def __init__(self, frame: Any):
        self.frame = frame
        self.parts = DaskParts(frame, optimize=True)  # one frame: the projection may reach the read

    def by_item(self, kinds: list[str | None]) -> DaskAnnotations:
        return DaskAnnotations(by_item(self.frame, "item", kinds))


def _counts(parts: Any, pos_label: Any, tie: str, values: tuple[str, str] | None, rating: RatingPass | None) -> dict:
    res: dict = parts.reduce(_partition_counts, _combine, pos_label, tie, values, rating)
    return res


def annotator_counts(annotations: Annotations, *, pos_label: Any = 1, tie: str = "favorable",
                     values: tuple[str, str] | None = None, bins: Any = 5, rating: RatingPass | None = None) -> dict:
    """Per-annotator counts (ADR numerator and denominator, confusion counts) over an engine's
    :class:`Annotations`.

    Returns:
        dict: ``table`` (pandas DataFrame indexed by annotator id: n_counted, n_dis, tn, fp, fn, tp),
        ``n_rows``, ``n_items``, ``n_tie_items``, ``n_tie_annotations``, ``n_resolved_tie_items``, ``shuffled``
        (whether the table had to be shuffled by item first), ``annotations`` (those later passes read: each item's
        rows in one partition); with ``values=(grouping, measure)`` for
        ``"ambiguity"`` or ``"popularity"``, ``bins``: a second pass's per (bin, annotator) counts (``table``),
        units per bin (``sizes``), units outside the edges (``outside``), units without a value (``n_nan``),
        and the bin ``edges``, ``labels`` and binning ``notes``. With ``rating`` (:class:`RatingPass`) the
        labels are the binary view of the ratings, and ``errors`` holds per annotator the annotations at each
        absolute error |rating - predicted| (columns: the distinct errors; None past ``MAX_ERROR_CELLS``).

    Raises:
        ValueError: missing ids or labels, non-binary labels, ``pos_label`` not a label, ratings that are not
            numbers.
    """
    res = _counts(annotations.parts, pos_label, tie, values, rating)
    _check_data(res, pos_label, annotations.names, annotations.row_labels)  # before a shuffle: bad data, one pass
    shuffled = not items_are_local([p["range"] for p in res["parts"]], [p["n_rows"] for p in res["parts"]])
    if shuffled:
        annotations = annotations.by_item([p["kind"] for p in res["parts"]])
        res = _counts(annotations.parts, pos_label, tie, values, rating)
        # a pair split over partitions shows only once its item's rows are together
        _check_pairs(res, annotations.names, annotations.row_labels)
    res["shuffled"] = shuffled
    res["annotations"] = annotations  # items local to one partition each: what later passes read
    if values is not None:
        res["bins"] = _bin_pass(annotations.parts, pos_label, values, bins, res["value_range"], rating)
    return res


# ----------------------------------------------------------------------------------------------
# cross-fitting: per (annotator, half of its items) counts
# ----------------------------------------------------------------------------------------------
def _partition_items(df: pd.DataFrame) -> np.ndarray:
    """The distinct item ids of a partition written as text, sorted (the in-memory :func:`item_halves` ranks
    the ids as text)."""
    return np.sort(np.asarray(pd.unique(df["item"].to_numpy()).astype(str), dtype=object))


def _partition_halves(df: pd.DataFrame, items: np.ndarray, item_half: np.ndarray, pos_label: Any, tie: str,
                      rating: RatingPass | None) -> dict:
    """Per (annotator, half) of one partition (all rows of its items in it): the ADR counts, the confusion counts
    and, for measures on ratings, the histograms of absolute errors. ``items``/``item_half``: this partition's
    sorted item ids as text and the half of each (from their global rank)."""
    if not len(df):
        return {"table": pd.DataFrame(), "errors": pd.DataFrame()}
    view = _views(df, pos_label, rating)
    item_codes, uniq = pd.factorize(df["item"].to_numpy())
    if not np.array_equal(_partition_items(df), items):  # the halves are this partition's items' only
        raise RuntimeError("the annotations' partitions changed between the passes of the cross-fitting (a "
                           "partition holds other items than in the pass before): read them from files or persist "
                           "them first")
    counted, disagree, _ = _row_agreement(view, item_codes, len(uniq), tie, rating)
    half = item_half[np.searchsorted(items, np.asarray(uniq.astype(str), dtype=object))][item_codes]
    codes, annotators = pd.factorize(df["annotator"].to_numpy())
    k = len(annotators)
    unit = 2 * codes.astype(np.int64) + half
    index = pd.MultiIndex.from_arrays([np.repeat(np.asarray(annotators), 2), np.tile([0, 1], k)],
                                      names=["annotator", "half"])
    table = pd.DataFrame({"n_counted": np.bincount(unit, weights=counted, minlength=2 * k).astype(np.int64),
                          "n_dis": np.bincount(unit, weights=disagree, minlength=2 * k).astype(np.int64),
                          **_cell_counts(unit, view["t"], view["p"], 2 * k)}, index=index)
    errors = (_error_table(unit, index, view["rt"], view["rp"]) if rating is not None and rating.errors
              else pd.DataFrame())
    return {"table": table, "errors": errors}


def _combine_halves(parts: list[dict]) -> dict:
    return {"table": add_frames([p["table"] for p in parts]), "errors": _add_errors([p["errors"] for p in parts])}


def half_counts(counts: dict, ann_index: pd.Index, pos_label: Any, tie: str, rating: RatingPass | None) -> HalfCounts:
    """Two passes over the frame of :func:`annotator_counts` (items local): the partitions' distinct item ids,
    whose global rank as text sets every item's half on the client (the in-memory :func:`item_halves`: one id per
    item travels, no row), then per (annotator, half) counts summed over partitions."""
    parts = counts["annotations"].parts
    item_lists = parts.map(_partition_items)
    every = np.concatenate([np.asarray(x, dtype=object) for x in item_lists]) if item_lists else np.zeros(0, object)
    rank = np.empty(len(every), dtype=np.int64)
    rank[np.argsort(every, kind="stable")] = np.arange(len(every))
    bounds = np.cumsum([0] + [len(x) for x in item_lists])
    each = [(item_lists[i], rank[bounds[i]:bounds[i + 1]] % 2) for i in range(len(item_lists))]
    res = parts.reduce(_partition_halves, _combine_halves, pos_label, tie, rating, each=each)
    full = pd.MultiIndex.from_arrays([np.repeat(ann_index.to_numpy(), 2), np.tile([0, 1], len(ann_index))],
                                     names=["annotator", "half"])
    table = res["table"].reindex(full, fill_value=0)
    k = len(ann_index)
    n_counted = table["n_counted"].to_numpy(np.float64)
    fit = CrossFit(row_half=np.zeros(0, np.int64), adr=adr_from_counts(table["n_dis"].to_numpy(np.float64),
                                                                        n_counted).reshape(k, 2),
                   n_counted=n_counted.reshape(k, 2))
    cell_counts = table[_CELLS].to_numpy(np.int64).reshape(k, 2, 4)
    if rating is None or not rating.errors:
        return HalfCounts(fit=fit, counts=cell_counts)
    if res["errors"] is None:
        _annotator_errors({"errors": None}, ann_index)  # its ValueError: too many distinct errors
    cells = np.sort(res["errors"].columns.to_numpy(np.float64))
    hist = res["errors"].reindex(index=full, columns=cells, fill_value=0).fillna(0).to_numpy().astype(np.int64)
    return HalfCounts(fit=fit, counts=cell_counts, errors=hist.reshape(k, 2, -1), cells=cells)


def _bin_pass(parts: Any, pos_label: Any, values: tuple[str, str], bins: Any, value_range: tuple,
              rating: RatingPass | None = None) -> dict:
    """Bins over the global range (as the in-memory :func:`assign_bins` sets them), then the second pass."""
    kind, arg = validate_bins(bins)
    if kind == "int":  # pandas.cut's edges depend on the minimum and the maximum only
        ends = np.asarray(value_range, dtype=np.float64)
        edges = pd.cut(ends, arg, retbins=True)[1]
        labels = assign_bins(ends, bins)[1]
    else:
        edges = arg
        labels = assign_bins(edges[:1], bins)[1]
    res = parts.reduce(_partition_bins, _combine_bins, pos_label, *values, edges, rating)
    notes: list[str] = []
    if kind == "edges" and res["outside"]:  # the in-memory note, written by the in-memory function
        notes = assign_bins(np.full(res["outside"], edges[-1] + 1.0), bins)[2]
    return {**res, "edges": edges, "labels": labels, "notes": notes}


def _check_data(res: dict, pos_label: Any, names: dict[str, str], row_labels: bool) -> None:
    if res["n_rows"] == 0:
        raise ValueError(f"no annotations: {names['y_true']} is empty")
    bad = {names[c]: n for c, n in res["missing"].items() if n}
    if bad:
        raise ValueError(f"missing values in {bad} (count per input); drop those annotations first")
    bad = {c: n for c, n in res["bad_ratings"].items() if n}
    if bad:
        raise ValueError(f"with positive_from, y_true and y_pred must hold numeric ratings: {bad} value(s) (count per "
                         "input) are not numbers")
    # Label checks: the in-memory encoder on the distinct values (same rules, same messages).
    lt, lp = (np.asarray(v, dtype=object) for v in res["labels"])
    width = max(len(lt), len(lp))
    encode_annotations(np.resize(lt, width), np.resize(lp, width), np.zeros(width), np.arange(width), pos_label)
    _check_pairs(res, names, row_labels)


def _check_pairs(res: dict, names: dict[str, str], row_labels: bool) -> None:
    """The in-memory duplicate rule, with its message (the row is the index label of the Dask Series; a Spark
    DataFrame has no row labels, and its ids are named by their columns)."""
    if res["duplicates"] is not None:
        n, item, annotator, row = res["duplicates"]
        raise duplicate_pairs_error(n, item, annotator, row if row_labels else None,
                                    item_name="item" if row_labels else names["item"],
                                    annotator_name="annotator" if row_labels else names["annotator"])


# ----------------------------------------------------------------------------------------------
# the counts of the core, on the client
# ----------------------------------------------------------------------------------------------
def group_counts(counts: dict, options: OpinionOptions, annotator_table: pd.DataFrame | None) -> GroupCounts:
    """The core's :class:`~aif360_subjective.opinion.core.GroupCounts` from the distributed counts.

    For annotator groupings every (group, annotator) unit is one annotator with all its annotations: the unit's
    counts are the annotator's. For "ambiguity" and "popularity" the units' bins come from the second pass
    (``counts["bins"]``), whose per (bin, annotator) counts are summed over merged bins.
    """
    table = counts["table"]
    _, ann_index = _factorize(table.index.to_numpy(), "annotator_ids")  # the in-memory id order and dtype
    table = table.loc[ann_index]
    if options.grouping == "series":
        check_grouping(options.group_labels, ann_index)
    n_counted = table["n_counted"].to_numpy(np.float64)
    rates = DisagreementRates(
        adr=adr_from_counts(table["n_dis"].to_numpy(np.float64), n_counted), n_counted=n_counted,
        n_tie_items=counts["n_tie_items"], n_tie_annotations=counts["n_tie_annotations"],
        n_resolved_tie_items=counts["n_resolved_tie_items"],
    )
    ann_counts = table[_CELLS].to_numpy(np.float64)
    common = {"annotators": ann_index, "rates": rates, "annotator_counts": ann_counts,
              "n_annotations": counts["n_rows"]}
    ann_errors = ann_cells = None
    if options.needs_ratings:
        ann_errors, ann_cells = _annotator_errors(counts, ann_index)
        common.update(annotator_errors=ann_errors, annotator_cells=ann_cells)
    if options.grouping == "adr" and options.adr_fit == "cross":
        return _cross_group_counts(counts["halves"], options, rates, common)
    if options.grouping in ANNOTATOR_GROUPINGS:
        groups = group_annotators(options, ann_index, rates, annotator_table)
        sizes = np.bincount(groups.codes[groups.codes >= 0], minlength=len(groups.labels))
        unit_codes, labels, size_notes = enforce_min_group_size(
            groups.codes, groups.labels, sizes, options.min_group_size, options.small_groups, groups.ordered
        )
        grouped = np.flatnonzero(unit_codes >= 0)
        order = grouped[np.lexsort((grouped, unit_codes[grouped]))]  # by group, then annotator (the core's order)
        unit_counts, cells = ann_counts[order], None
        if ann_errors is not None and ann_cells is not None:
            # the in-memory cells: the distinct errors of the grouped annotations only
            present = ann_errors[order].sum(axis=0) > 0
            unit_counts, cells = ann_errors[order][:, present], ann_cells[present]
        return GroupCounts(
            **common, unit="annotator", n_units=len(unit_codes), n_ungrouped_units=int((unit_codes < 0).sum()),
            labels=labels, group=unit_codes[order], annotator=order, counts=unit_counts, cells=cells,
            unit_annotations=ann_counts[order].sum(axis=1).astype(np.int64),
            excluded=groups.excluded, notes=groups.notes + size_notes["notes"], size_notes=size_notes,
        )
    bins = counts["bins"]
    bin_group, labels, size_notes = enforce_min_group_size(
        np.arange(len(bins["labels"])), bins["labels"], bins["sizes"], options.min_group_size,
        options.small_groups, True,
    )
    pairs = bins["table"]
    g = bin_group[pairs.index.get_level_values("bin").to_numpy()] if len(pairs) else np.zeros(0, np.int64)
    a = ann_index.get_indexer(pairs.index.get_level_values("annotator")) if len(pairs) else np.zeros(0, np.int64)
    keep = g >= 0
    unit_counts, cells = None, None
    if keep.any():
        if ann_cells is not None:  # the pairs' histograms, in the pairs' order, summed over merged bins alike
            errors = bins["errors"].reindex(index=pairs.index, columns=ann_cells, fill_value=0).fillna(0)
            errors = errors[keep].groupby([g[keep], a[keep]]).sum()
        pairs = pairs[keep].groupby([g[keep], a[keep]]).sum()  # sorted by group, then annotator code
        pair_group, pair_ann = (pairs.index.get_level_values(k).to_numpy(np.int64) for k in (0, 1))
        pair_counts = pairs[_CELLS].to_numpy(np.float64)
        if ann_cells is not None:
            hist = errors.to_numpy().astype(np.int64)
            present = hist.sum(axis=0) > 0  # the in-memory cells: the distinct errors of the grouped rows
            unit_counts, cells = hist[:, present], ann_cells[present]
    else:  # every group dropped
        pair_group, pair_ann, pair_counts = np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros((0, 4))
        if ann_cells is not None:
            unit_counts, cells = np.zeros((0, 0), np.int64), np.zeros(0)
    kind = options.grouping
    excluded = {"items without an ambiguity score": bins["n_nan"]} if bins["n_nan"] else {}
    return GroupCounts(
        **common, unit=DISTRIBUTED_UNITS[kind], n_units=counts["n_items"] if kind == "ambiguity" else counts["n_rows"],
        n_ungrouped_units=int(bins["outside"] + bins["n_nan"] + bins["sizes"][bin_group < 0].sum()),
        labels=labels, group=pair_group, annotator=pair_ann,
        counts=pair_counts if unit_counts is None else unit_counts, cells=cells,
        unit_annotations=pair_counts.sum(axis=1).astype(np.int64),
        excluded=excluded, notes=tuple(bins["notes"]) + size_notes["notes"], size_notes=size_notes,
    )


def _cross_group_counts(halves: HalfCounts, options: OpinionOptions, rates: DisagreementRates,
                        common: dict[str, Any]) -> GroupCounts:
    """``adr_fit="cross"``: the in-memory :func:`group_by_adr_cross` on the half ADRs; the annotations of each
    (annotator, half) go to the group of the *other* half's ADR, and the (group, annotator) units sum them (the
    pandas path's pairs, in its order: by group, then annotator)."""
    groups = group_by_adr_cross(halves.fit, options, rates)
    sizes = np.bincount(groups.codes[groups.codes >= 0], minlength=len(groups.labels))
    unit_codes, labels, size_notes = enforce_min_group_size(
        groups.codes, groups.labels, sizes, options.min_group_size, options.small_groups, groups.ordered
    )
    k = halves.counts.shape[0]
    ann = np.repeat(np.arange(k, dtype=np.int64), 2)
    half = np.tile(np.array([0, 1], dtype=np.int64), k)
    group = unit_codes[2 * ann + (1 - half)]  # the half-unit whose ADR groups these annotations
    cells2 = halves.counts.reshape(2 * k, 4)
    keep = (group >= 0) & (cells2.sum(axis=1) > 0)  # the pandas path builds pairs from rows: empty halves add none
    pair_codes, pair_keys = pd.factorize(group[keep] * np.int64(max(k, 1)) + ann[keep], sort=True)
    n_pairs = len(pair_keys)

    def summed(values: np.ndarray) -> np.ndarray:
        out = np.zeros((n_pairs, values.shape[-1]), dtype=np.int64)
        np.add.at(out, pair_codes, values[keep])
        return out

    pair_counts = summed(cells2)
    unit_counts, cells = pair_counts.astype(np.float64), None
    if halves.errors is not None and halves.cells is not None:
        hist = summed(halves.errors.reshape(2 * k, -1))
        present = hist.sum(axis=0) > 0  # the in-memory cells: the distinct errors of the grouped rows
        unit_counts, cells = hist[:, present], halves.cells[present]
    return GroupCounts(
        **common, unit=groups.unit, n_units=len(groups.codes), n_ungrouped_units=int((unit_codes < 0).sum()),
        labels=labels, group=(pair_keys // max(k, 1)).astype(np.int64), annotator=(pair_keys % max(k, 1)).astype(
            np.int64), counts=unit_counts, cells=cells, unit_annotations=pair_counts.sum(axis=1).astype(np.int64),
        excluded=groups.excluded, notes=groups.notes + size_notes["notes"], size_notes=size_notes,
    )


def _annotator_errors(counts: dict, ann_index: pd.Index) -> tuple[np.ndarray, np.ndarray]:
    """Every annotator's histogram of absolute errors over the sorted distinct errors of all annotations."""
    errors = counts["errors"]
    if errors is None:
        raise ValueError(
            f"the absolute errors |rating - predicted| take more than {MAX_ERROR_CELLS} distinct values: on Dask the "
            "measures on ratings ('mae', 'within_one') are computed from histograms of at most that many errors "
            "(found out after the counting pass); round the predicted ratings to the scale, or compute on pandas"
        )
    cells = np.sort(errors.columns.to_numpy(np.float64))
    hist = errors.reindex(index=ann_index, columns=cells, fill_value=0).fillna(0)
    return hist.to_numpy().astype(np.int64), cells


def opinion_exclusion(y_true: Any, y_pred: Any, item_ids: Any, annotator_ids: Any, *, options: OpinionOptions,
                      annotator_table: pd.DataFrame | None = None, pos_label: Any = 1,
                      positive_from: float | None = None) -> OpinionExclusionResult:
    """The opinion-exclusion result of Dask Series, with options validated by :func:`opinion_options`.

    With ``positive_from`` (checked), ``y_true`` and ``y_pred`` are ratings, as on pandas: the binary view
    ``rating >= positive_from`` for the majority vote and the binary measures, the histograms of absolute errors
    for "mae" and "within_one", the items' median ratings for ``adr_reference="median"``.

    Returns:
        OpinionExclusionResult: as the pandas path's on the same data, with ``extras`` ``backend="dask"``,
        ``n_annotations``, ``n_items``, ``shuffled_by_item``.

    Raises:
        ValueError: what the in-memory path raises for the same data (missing values, non-binary labels,
            a grouping Series sharing no annotator id); for "mae"/"within_one", absolute errors taking more than
            ``MAX_ERROR_CELLS`` distinct values (after the pass).
    """
    require_dask()
    result, _ = analyse(DaskAnnotations(paired_frame(y_true, y_pred, item_ids, annotator_ids)), options=options,
                        annotator_table=annotator_table, pos_label=pos_label, positive_from=positive_from)
    return result


def analyse(annotations: Annotations, *, options: OpinionOptions, annotator_table: pd.DataFrame | None = None,
            pos_label: Any = 1, positive_from: float | None = None,
            halves: bool = False) -> tuple[OpinionExclusionResult, HalfCounts | None]:
    """:func:`opinion_exclusion` on an engine's :class:`Annotations`, and with ``halves=True`` (or
    ``adr_fit="cross"``) the per (annotator, half) counts of cross-fitting (:func:`half_counts`), which the
    cross-fitted test of ADR bins reads. The result's ``extras`` name the engine (``backend``); a Spark run's
    add ``driver_bytes``, the pickled counts that reached the driver."""
    values = (options.grouping, options.ambiguity) if options.grouping in DISTRIBUTED_UNITS else None
    rating = None if positive_from is None else RatingPass(
        cut=positive_from, median=options.adr_reference == "median", errors=options.needs_ratings)
    counts = annotator_counts(annotations, pos_label=pos_label, tie=options.tie, values=values, bins=options.bins,
                              rating=rating)
    half = None
    if halves or (options.grouping == "adr" and options.adr_fit == "cross"):
        _, ann_index = _factorize(counts["table"].index.to_numpy(), "annotator_ids")
        half = half_counts(counts, ann_index, pos_label, options.tie, rating)
        counts["halves"] = half
    result = result_from_counts(group_counts(counts, options, annotator_table), options)
    extras = {"backend": annotations.engine, "n_annotations": counts["n_rows"], "n_items": counts["n_items"],
              "shuffled_by_item": counts["shuffled"]}
    driver_bytes = getattr(counts["annotations"].parts, "driver_bytes", None)  # Spark counts them (all passes)
    if driver_bytes is not None:
        extras["driver_bytes"] = int(driver_bytes)
    return dataclasses.replace(result, extras=extras), half


def distributed_face(data: Any, y_true: Any, y_pred: Any, item_ids: Any, annotator_ids: Any, *,
                     annotators: pd.DataFrame | None, pos_label: Any, positive_from: Any, option_args: dict[str, Any],
                     ci: float | None, n_boot: int, bootstrap_levels: str, test_adjust: str,
                     test: bool) -> tuple[OpinionExclusionResult, IntervalOptions | None, HalfCounts | None]:
    """``opinion_exclusion`` on a Spark DataFrame (``data=``) or on Dask inputs: every check before any pass, then
    :func:`analyse`; the interval options and, when ``test`` and ADR groups, the per (annotator, half) counts the
    cross-fitted test reads (the caller adds intervals and the test, as on pandas).

    Raises:
        TypeError, ValueError: bad inputs or options, or options the distributed passes do not support (named
            with the engine).
        RuntimeError: workers or executors that cannot import this package or run another version.
    """
    if is_spark_dataframe(data):
        from .._spark import check_workers as check_executors
        from ._spark import spark_annotations

        annotations: Annotations = spark_annotations(data, y_true, y_pred, item_ids, annotator_ids)
        options = distributed_options(annotator_table=annotators, positive_from=positive_from,
                                      option_args=option_args, engine="Spark")
        check_executors(annotations.frame.sparkSession)  # type: ignore[attr-defined]
    else:
        y_true, y_pred, item_ids, annotator_ids = data_columns(data, y_true, y_pred, item_ids, annotator_ids)
        options = opinion_options(y_true, y_pred, item_ids, annotator_ids, annotator_table=annotators,
                                  positive_from=positive_from, option_args=option_args)
        annotations = DaskAnnotations(paired_frame(y_true, y_pred, item_ids, annotator_ids))
    check_row_options(annotations.engine.capitalize(), test_adjust=test_adjust,
                      bootstrap_levels=None if ci is None else bootstrap_levels)
    interval = None if ci is None else check_interval_options(ci, n_boot, bootstrap_levels, options.performance)
    cut = None if positive_from is None else check_positive_from(positive_from, pos_label)
    # ADR groups are tested cross-fitted: one more pass counts per (annotator, half of its items)
    result, halves = analyse(annotations, options=options, annotator_table=annotators, pos_label=pos_label,
                             positive_from=cut, halves=test and options.grouping == "adr")
    return result, interval, halves
