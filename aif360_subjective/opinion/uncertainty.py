"""How sure the opinion-exclusion figures are: bootstrap intervals and warnings about thin groups.

:func:`opinion_intervals` resamples an :class:`~aif360_subjective.metrics.OpinionExclusionResult` with the
two-level bootstrap of :mod:`~aif360_subjective.opinion.bootstrap` (annotators within each group, then
each drawn annotator's annotations) and gives intervals for the unfairness, the performance and every group's
value. :func:`thin_groups` lists the groups with too few annotators to be read alone, with their share of the
unfairness; both faces warn about them.

References:
    Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine Learning.
    Efron, B. (1987). Better bootstrap confidence intervals. JASA 82(397), 171-185.
"""

from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._labels import cell_codes, ratio
from .._validation import check_random_state
from .annotations import EncodedAnnotations
from .bootstrap import (
    BootstrapInterval,
    bootstrap_group_values,
    bootstrap_interval,
    crossed_group_values,
    mean_across_groups,
    spread_across_groups,
)
from .core import OpinionExclusionResult
from .core import count_score as _count_score
from .equal_service import UnfairnessInterval, unfairness_interval
from .groups import group_label
from .options import IntervalOptions

__all__ = [
    "OpinionIntervals",
    "opinion_intervals",
    "thin_groups",
    "thin_groups_text",
    "warn_single_group",
    "warn_thin_groups",
    "with_intervals",
]


@dataclass(frozen=True)
class OpinionIntervals:
    """Bootstrap intervals of one opinion-exclusion analysis.

    Attributes:
        unfairness: the interval of the true unfairness, by inverting the one-way ANOVA test
            (:func:`~aif360_subjective.opinion.equal_service.unfairness_interval`; it reaches 0 when the spread
            across groups is indistinguishable from noise).
        performance: the bootstrap interval of the performance.
        groups: index ``group`` (as the group table); columns ``ci_low``, ``ci_high`` (bootstrap; NaN for
            one-annotator groups, see ``notes``).
        options: the bootstrap options (level, replicates, resampling levels).
        unfairness_bootstrap: the former bootstrap interval of the unfairness (kept for comparison: it never
            reaches 0, see the guide).
        notes: why some intervals are missing.
    """

    unfairness: UnfairnessInterval
    performance: BootstrapInterval
    groups: pd.DataFrame
    options: IntervalOptions
    unfairness_bootstrap: BootstrapInterval | None = None
    notes: tuple[str, ...] = ()


def _crossed_rows(result: OpinionExclusionResult, enc: EncodedAnnotations | None) -> tuple[np.ndarray, int]:
    """The cell of every annotation row for the crossed bootstrap, and the number of cells."""
    opts = result.options
    assert opts is not None
    if enc is None or result.row_units is None or len(result.row_units) != enc.n:
        raise ValueError(
            "bootstrap_levels='crossed' resamples items and needs the annotation rows: the metric class and the "
            "pandas path of opinion_exclusion have them, the Dask back end does not (use 'both' there)"
        )
    if opts.needs_ratings:
        assert enc.r_true is not None and enc.r_pred is not None and result.unit_cells is not None
        errors = np.abs(enc.r_true - enc.r_pred)
        cells = np.asarray(result.unit_cells, dtype=np.float64)
        pos = np.clip(np.searchsorted(cells, errors), 0, len(cells) - 1)
        # ungrouped rows may hold errors outside the grouped rows' cells: they are not counted anyway
        return np.where(result.row_units >= 0, pos, 0), len(cells)
    return cell_codes(enc.t, enc.p), 4


def opinion_intervals(
    result: OpinionExclusionResult, interval: IntervalOptions, random_state: Any = None,
    enc: EncodedAnnotations | None = None,
) -> OpinionIntervals:
    """Bootstrap intervals of the unfairness, the performance and every group's value.

    Groups are held fixed (ADR bins keep their edges, every annotator its group): annotators are resampled
    with replacement *within* their group, then (``levels="both"``) each drawn annotator's annotations are
    redrawn from its own confusion counts, so that a group of one or two annotators still shows the noise of
    its few annotations. Replicates are summarised exactly as the data: the groups' values by the annotator
    mean or the pooled counts (``aggregate``), the unfairness by their population std, the performance by
    their mean. See :mod:`~aif360_subjective.opinion.bootstrap` for the intervals (bias-corrected
    percentile).

    Args:
        result: an analysis (from either face); it carries its units' confusion counts.
        interval: validated bootstrap options
            (:func:`~aif360_subjective.opinion.options.check_interval_options`).
        random_state: None, an int seed or a numpy Generator.
        enc: the encoded annotations (``levels="crossed"`` only: it reweights the rows by item).

    Returns:
        OpinionIntervals

    Raises:
        ValueError: the result was built without unit counts (not by this package's core), or rating errors
            take too many distinct values to be redrawn.
    """
    if result.options is None:
        raise ValueError("result carries no options: build it with opinion_exclusion() or the metric class")
    cells, score = _count_score(result)  # first: it says why a rating measure has no counts
    if result.unit_counts is None:
        raise ValueError("result carries no unit counts: build it with opinion_exclusion() or the metric class")
    rng = check_random_state(random_state)
    opts = result.options
    table = result.group_table
    unit_group = result.unit_performance["group"].cat.codes.to_numpy(np.int64) if len(table) else np.zeros(0, int)
    if interval.levels == "crossed":
        row_cell, n_cells = _crossed_rows(result, enc)
        assert enc is not None and result.row_units is not None

        def cell_score(c: np.ndarray) -> np.ndarray:
            return score(cells(c))

        reps = crossed_group_values(
            unit_group, result.row_units, row_cell, enc.item_codes, len(enc.items), n_cells, len(table),
            cell_score, aggregate=opts.aggregate, n_boot=interval.n_boot, rng=rng,
        )
    else:
        reps = bootstrap_group_values(
            unit_group, cells(result.unit_counts), len(table), score, aggregate=opts.aggregate,
            n_boot=interval.n_boot, rng=rng, levels=interval.levels,
        )
    values = table["performance"].to_numpy(np.float64)
    group_iv = [bootstrap_interval(reps[:, g], values[g], interval.ci) for g in range(len(table))]
    low, high = np.array([iv.low for iv in group_iv]), np.array([iv.high for iv in group_iv])
    # A one-annotator group's interval can only describe that person's annotations, not the group it stands
    # for (redrawing one person's labels says nothing about the group's other members), so none is given.
    single = table["n_annotators"].to_numpy() < 2
    low[single], high[single] = np.nan, np.nan
    notes: tuple[str, ...] = ()
    if single.any():
        notes = (f"{int(single.sum())} group{'s' if single.sum() != 1 else ''} of one annotator "
                 f"({', '.join(group_label(g) for g in table.index[single])}): no interval, one person's "
                 "annotations say nothing about how the group's other members are served",)
    groups = pd.DataFrame({"ci_low": low, "ci_high": high}, index=table.index)
    ok = ~np.isnan(reps)
    n_ok = ok.sum(axis=0)
    mean = ratio(np.where(ok, reps, 0.0).sum(axis=0), n_ok)
    variances = ratio((np.where(ok, reps - mean, 0.0) ** 2).sum(axis=0), n_ok)  # NaN where no replicate
    return OpinionIntervals(
        unfairness=unfairness_interval(result, interval.ci, group_variances=variances),
        performance=bootstrap_interval(mean_across_groups(reps), result.performance, interval.ci),
        groups=groups,
        options=interval,
        unfairness_bootstrap=bootstrap_interval(spread_across_groups(reps), result.unfairness, interval.ci),
        notes=notes,
    )


def with_intervals(result: OpinionExclusionResult, intervals: OpinionIntervals) -> OpinionExclusionResult:
    """The result with its intervals: ``unfairness_ci``, ``performance_ci`` and ``ci_low``/``ci_high`` columns."""
    table = result.group_table.join(intervals.groups)
    return dataclasses.replace(
        result, group_table=table, unfairness_ci=intervals.unfairness, performance_ci=intervals.performance
    )


def thin_groups(result: OpinionExclusionResult, min_annotators: int) -> pd.DataFrame:
    """The groups with fewer than ``min_annotators`` annotators and their weight in the unfairness.

    A group's share of the unfairness is its share of the variance across groups:
    ``(v_g - mean)^2 / sum_h (v_h - mean)^2`` over the groups with a defined value (the unfairness is the
    square root of the mean of these squares), NaN when every group has the same value.

    Args:
        result: an analysis.
        min_annotators: the threshold (0 = no group is thin).

    Returns:
        pandas.DataFrame: index ``group``; columns ``n_annotators``, ``n_annotations``, ``performance``,
        ``share_of_unfairness`` (in [0, 1]), ordered as in the group table.
    """
    table = result.group_table
    values = table["performance"].to_numpy(np.float64)
    defined = ~np.isnan(values)
    dev = np.where(defined, values - (values[defined].mean() if defined.any() else np.nan), np.nan) ** 2
    total = np.nansum(dev)
    share = dev / total if total > 0 else np.full(len(values), np.nan)
    out = table[["n_annotators", "n_annotations", "performance"]].assign(share_of_unfairness=share)
    return out[out["n_annotators"] < min_annotators]


def _percent(share: float) -> str:
    # a share is never rounded to 0% or 100% unless it is exactly that
    if 0.0 < share < 0.005:
        return "<1%"
    if 0.995 <= share < 1.0:
        return ">99%"
    return f"{share:.0%}"


def thin_groups_text(thin: pd.DataFrame, n_groups: int, min_annotators: int, quote: bool = False) -> str:
    """The sentence naming thin groups: ``2 of 5 groups hold fewer than 5 annotators: 0.20–0.27 (2 annotators,
    5% of the unfairness); ...`` (one wording for the warning, the report and the command line); at most
    :data:`MAX_NAMED` groups by name, then ``and N more``.

    Args:
        thin: :func:`thin_groups` of an analysis (non-empty).
        n_groups: the analysis' number of groups.
        min_annotators: the threshold used.
        quote: quote the group names (as in a Python warning).
    """
    parts = []
    # at most MAX_NAMED groups by name (a 176-group grouping would otherwise print a paragraph of names)
    for group, row in thin.iloc[:MAX_NAMED].iterrows():
        n = int(row["n_annotators"])
        share = float(row["share_of_unfairness"])
        weight = f", {_percent(share)} of the unfairness" if np.isfinite(share) else ""
        label = repr(group_label(group)) if quote else group_label(group)
        parts.append(f"{label} ({n} annotator{'s' if n != 1 else ''}{weight})")
    if len(thin) > MAX_NAMED:
        parts.append(f"and {len(thin) - MAX_NAMED:,} more")
    verb = "holds" if len(thin) == 1 else "hold"
    return (f"{len(thin)} of {n_groups} group{'s' if n_groups != 1 else ''} {verb} fewer than {min_annotators} "
            "annotators: " + "; ".join(parts))


#: Thin groups named in :func:`thin_groups_text`; the others are counted ("and N more").
MAX_NAMED = 10


def warn_thin_groups(result: OpinionExclusionResult) -> pd.DataFrame:
    """Warn (UserWarning) when groups hold fewer annotators than the result's ``warn_group_size`` option.

    Returns:
        pandas.DataFrame: the thin groups (:func:`thin_groups`), empty when none.
    """
    size = result.options.warn_group_size if result.options is not None else 0
    thin = thin_groups(result, size)
    if len(thin):
        warnings.warn(
            thin_groups_text(thin, len(result.group_table), size, quote=True)
            + ". Their values rest on few people: read the unfairness with its interval (ci=0.95) or raise "
            "min_group_size",
            UserWarning,
            stacklevel=3,
        )
    return thin


def warn_single_group(result: OpinionExclusionResult) -> bool:
    """Warn (UserWarning) when at most one group has a defined performance: the unfairness, the standard deviation
    across groups, is then 0 by construction (or undefined), not a measurement.

    Returns:
        bool: whether the warning was given.
    """
    perf = result.group_table["performance"] if "performance" in result.group_table else pd.Series(dtype=float)
    defined = perf.dropna()
    if len(defined) > 1:
        return False
    if len(defined) == 1:
        what = (f"only one group ({group_label(defined.index[0])!r}) has a defined performance: the unfairness, the "
                "standard deviation across groups, is 0 by construction, not a finding")
    else:
        what = "no group has a defined performance: the unfairness is undefined"
    warnings.warn(f"{what}; to compare groups, use more bins, another grouping or a smaller minimum group size",
                  UserWarning, stacklevel=3)
    return True
