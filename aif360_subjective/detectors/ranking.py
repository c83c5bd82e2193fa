"""The subgroup rankings, in named steps: check, raw order, significant set, order, filter, frame.

:func:`ranking` is what ``SubgroupReport.ranking`` returns (its docstring says what the ranking means); each step
below is a plain function over the :class:`~.significance.Significance` of a report (its candidates, metrics
and caches).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._param_tables import SUBGROUP_PARAMS
from .._validation import check_alpha, check_choice
from .directions import check_direction, sort_descending
from .redundancy import merge_rows, redundant_among
from .significance import Significance
from .subgroup_metrics import METRICS, base_metric

__all__ = ["CONTROLS", "RANKABLE", "ASCENDING_DEPRECATION", "RankingQuery", "check_query", "ranking"]

#: What ``alpha`` controls in a ranking.
CONTROLS: tuple[str, ...] = SUBGROUP_PARAMS.choices("control")
#: Columns a ranking accepts.
RANKABLE = (*METRICS, "size")
ASCENDING_DEPRECATION = (
    "ranking(ascending=...) is deprecated: use direction='disadvantaged' or 'favoured' (the side depends on the "
    "metric), and alpha=None for the raw ranking that ascending gives"
)


@dataclass(frozen=True)
class RankingQuery:
    """A checked ranking request (see ``SubgroupReport.ranking`` for the arguments)."""

    metric: str
    kind: str
    n: int | None
    direction: str
    alpha: float | None
    min_size: int
    ci: float
    descending: bool
    control: str
    keep_redundant: bool
    deprecated: bool  # ascending= was given: the seed's raw ranking


@dataclass
class _Selection:
    """The ranked subgroups: which (``keep``, over the kind's positions), in what ``order`` (over the kept ones),
    their values, the extra columns and the counts of ``attrs``."""

    keep: np.ndarray
    order: np.ndarray
    values: np.ndarray
    extra: dict[str, np.ndarray] = field(default_factory=dict)
    attrs: dict[str, Any] = field(default_factory=dict)


def check_query(sig: Significance, metric: str, kind: str, n: int | None, direction: Any, alpha: float | None,
                min_size: int, ci: float, ascending: bool | None, control: str,
                keep_redundant: bool, label: Any = None) -> RankingQuery:
    """Step 1, **check**: validate the arguments (and warn about the deprecated ``ascending``). ``label``: the
    class of a multi-class audit's one-vs-rest statistical parity (``statistical_parity[label]``)."""
    metric = metric_column(sig, metric, label)
    check_choice(kind, "kind", (*sig.candidates.known_kinds, "all"))
    if kind != "all":
        sig.candidates.family(kind)
    check_choice(control, "control", CONTROLS)
    if n is not None and (isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1):
        raise ValueError(f"n must be a positive int or None, got {n!r}")
    if isinstance(min_size, bool) or not isinstance(min_size, int | np.integer) or min_size < 1:
        raise ValueError(f"min_size must be a positive int, got {min_size!r}")
    if isinstance(direction, bool | np.bool_) and ascending is None:
        # the old positional call ranking(metric, kind, n, ascending)
        ascending, direction = bool(direction), "disadvantaged"
    check_direction(direction)
    if ascending is not None:
        warnings.warn(ASCENDING_DEPRECATION, DeprecationWarning, stacklevel=4)
        if not isinstance(ascending, bool | np.bool_):
            raise TypeError(f"ascending must be True or False, got {ascending!r}")
        descending, alpha = not bool(ascending), None
    else:
        descending = sort_descending(base_metric(metric), direction)
    if metric == "size":
        alpha = None
    if alpha is not None:
        alpha = check_alpha(alpha)
    return RankingQuery(metric, kind, n, direction, alpha, int(min_size), ci, descending, control,
                        bool(keep_redundant), ascending is not None)


def metric_column(sig: Significance, metric: Any, label: Any = None) -> str:
    """The metric column a ranking reads: ``metric`` itself, or ``statistical_parity[label]`` for one class of a
    multi-class audit.

    Raises:
        ValueError: a metric this report does not hold (naming the ones it does), a ``label`` that is not one of
            its classes, or a ``label`` where the metric has no classes.
    """
    names = sig.metrics.names
    per_class = [m for m in names if base_metric(m) != m]
    if label is not None:
        if not per_class or metric != "statistical_parity":
            raise ValueError(f"label={label!r} applies to a multi-class report's statistical_parity (one class "
                             f"against the others); this report's metrics are {list(names)}")
        column = f"statistical_parity[{label}]"
        if column not in names:
            classes = [m[len("statistical_parity["):-1] for m in per_class]
            raise ValueError(f"label={label!r} is not one of the classes {classes}")
        return column
    if metric == "statistical_parity" and per_class and metric not in names:
        raise ValueError("statistical_parity of a multi-class report compares one class with the others: pass "
                         f"label= one of {[m[len('statistical_parity['):-1] for m in per_class]}")
    check_choice(metric, "metric", (*names, "size"))
    return str(metric)


def raw_order(part: pd.DataFrame, q: RankingQuery, big: np.ndarray) -> _Selection:
    """Step 2, **raw order** (``alpha=None``): every subgroup by its value, missing values last, ties in id
    order."""
    values = part[q.metric].to_numpy(dtype=np.float64, na_value=np.nan)[big]
    finite = ~np.isnan(values)
    key = np.where(finite, -values if q.descending else values, 0.0)
    order = np.lexsort((np.arange(len(values)), key, ~finite))  # defined first, by value, id order
    return _Selection(big, order, values, attrs={"n_too_small": int(np.sum(~big))})


def significant_set(sig: Significance, q: RankingQuery, pos: np.ndarray, kinds: tuple[str, ...],
                    big: np.ndarray) -> tuple[_Selection, np.ndarray, np.ndarray]:
    """Step 3, **significant set**: the subgroups whose test (adjusted p, or q with ``control="fdr"``) is below
    ``alpha`` and whose interval lies on the requested side of the reference. Returns the selection (order
    not yet set), and the interval's bound nearest the reference and the adjusted p-values (all positions)."""
    assert q.alpha is not None  # the raw ranking has no significant set
    metric, test_no = q.metric, sig.metrics.metric_test[q.metric]
    inf = sig.intervals(q.ci, tests=q.control == "fdr", kinds=kinds, adjusted=False)
    lo, hi = inf[metric + "_ci_low"].to_numpy(), inf[metric + "_ci_high"].to_numpy()
    qv = inf[metric + "_q"].to_numpy()
    ref = sig.metrics.reference(metric)
    side_index = 0 if q.direction == "disadvantaged" else 1
    mt = sig.max_t((test_no,))
    p_dir = mt.p_adjusted[pos, test_no, side_index]
    test = qv if q.control == "fdr" else p_dir
    test_other = qv if q.control == "fdr" else mt.p_adjusted[pos, test_no, 1 - side_index]
    has = sig.candidates.defined(kinds)
    defined = ~np.isnan(test) & ~np.isnan(lo) & ~np.isnan(hi)
    # the subgroup's value must lie on the requested side of the reference: its bound nearest it does
    bound, side, bound_col = (lo, lo > ref, "_ci_low") if q.descending else (hi, hi < ref, "_ci_high")
    candidates = has & big & defined
    # too few clusters to reach alpha: nothing is ranked significant, and the attrs say why (never "not significant")
    undecidable = sig.metrics.sampling.undecidable(q.alpha, mt.n_permutations) if q.control != "fdr" else ""
    with np.errstate(invalid="ignore"):
        keep = candidates & (test < q.alpha) & side & (not undecidable)
        # significant on the other side: not "not significant" (a favoured subgroup in a ranking of the
        # disadvantaged ones, and vice versa)
        other = (candidates & ~keep & (test_other < q.alpha) & ((hi < ref) if q.descending else (lo > ref))
                 & (not undecidable))
    n_significant = int(keep.sum())
    attrs = dict(
        ci=float(q.ci), control=q.control, reference=float(ref), bound_column=metric + bound_col,
        n_subgroups=int(len(has)), n_no_metrics=int(np.sum(~has)), n_too_small=int(np.sum(has & ~big)),
        n_undefined=int((has & big & ~defined).sum()),
        n_not_significant=int(np.sum(candidates) - n_significant - int(other.sum())),
        n_other_side=int(other.sum()), n_significant=n_significant, undecidable=undecidable,
    )
    extra = {metric + "_ci_low": lo, metric + "_ci_high": hi}
    extra.update({metric + "_q": qv} if q.control == "fdr" else {metric + "_p_adjusted": p_dir})
    return _Selection(keep, np.zeros(0, dtype=np.intp), np.zeros(0), extra, attrs), bound, p_dir


def significant_order(sig: Significance, q: RankingQuery, pos: np.ndarray, sel: _Selection, bound: np.ndarray,
                      p_dir: np.ndarray) -> np.ndarray:
    """Step 4, **order**: with ``control="fwer"`` the strongest evidence first (the adjusted p-value accounts for
    the search over every candidate; the unadjusted interval does not), then the max-T statistic, then the bound
    nearest the reference; with ``"fdr"`` by that bound alone.

    Equal adjusted p-values are common: every finding stronger than all B permutations sits at the floor
    1 / (B + 1), and the statistic (the penalised z) then orders them by the evidence each shows. Ordering them by
    the bound instead was measured (issue 38, 5,000 rows, ``colour=g AND age ≥ t`` planted, regression): with the
    one-sided conditions among the candidates the statistic put the planted slice first (Jaccard 0.91-1.0) where
    the largest bound put a noisy sub-slice first (the bound's maximum over thousands of nested candidates is the
    luckiest of them: Jaccard 0.6-0.7). A broad parent diluting a slice is left out by the redundancy filter
    when the slice is listed, and so is a sub-slice whose luckier rate does not differ from the rest of a larger
    listed one that nothing makes redundant (:func:`~.redundancy.redundant`); a parent that is a listed slice
    diluted, whose other rows show no effect while the slice's rate differs from them, is decided after the
    slice and left out, even when its smaller penalty makes it the stronger (``score < -0.8347`` above
    ``income < 25,700 AND score < -0.8347``). More permutations for the tied findings (Besag and Clifford's
    sequential draws) could not reorder them: the step-down adjusted p-value never decreases as the statistic
    falls, so the extra draws would separate the tied p-values in the statistic's order; the answer says how
    ties are ordered.

    References:
        J. Besag and P. Clifford, "Sequential Monte Carlo p-values", Biometrika 78(2), 1991. P. H. Westfall and
        S. S. Young, "Resampling-Based Multiple Testing", 1993 (the step-down max-T).
    """
    keep = sel.keep
    n_significant = int(keep.sum())
    key = -bound[keep] if q.descending else bound[keep]
    if q.control == "fwer":
        side_index = 0 if q.direction == "disadvantaged" else 1
        test_no = sig.metrics.metric_test[q.metric]
        stat = sig.max_t((test_no,)).statistic(test_no, side_index)[pos][keep]
        return np.lexsort((np.arange(n_significant), key, -stat, p_dir[keep]))
    return np.lexsort((np.arange(n_significant), key))


def filter_redundant(sig: Significance, q: RankingQuery, pos: np.ndarray, sel: _Selection) -> None:
    """Step 5, **filter**: unless ``keep_redundant``, leave out the listed subgroups that a nested listed one
    represents (:func:`~.redundancy.redundant`); ``sel.keep`` and ``sel.order`` lose them, in place."""
    n_significant = int(sel.keep.sum())
    red = np.zeros(n_significant, dtype=bool)
    if not q.keep_redundant and n_significant > 1:
        kept_pos = np.flatnonzero(sel.keep)[sel.order]
        mt = sig.max_t((sig.metrics.metric_test[q.metric],))
        red[sel.order] = redundant_among(sig.candidates, sig.metrics, pos[kept_pos], q.metric, mt)
    sub = np.flatnonzero(sel.keep)
    sel.keep[sub[red]] = False
    sel.order = np.argsort(np.argsort(sel.order)[~red], kind="stable")  # same order, redundant removed
    sel.attrs["n_redundant"] = int(red.sum())


def ranking_frame(sig: Significance, q: RankingQuery, pos: np.ndarray, kinds: tuple[str, ...],
                  sel: _Selection) -> pd.DataFrame:
    """Step 6, **frame**: the ranked rows (identical row sets merged with ``kind="all"``), the first ``n``."""
    part = sig.metrics.table.iloc[pos]
    keep, order = sel.keep, sel.order
    kept = part[keep]
    ids = kept.index.to_numpy() if q.kind == "all" else kept.index.get_level_values("id").to_numpy()
    desc = sig.candidates.descriptions(kinds)[keep]
    if q.kind == "all" and len(order):
        # identical row sets: the first of each set in rank order, with every description of the set
        lead, texts = merge_rows(sig.candidates.row_keys()[pos[keep][order]], desc[order])
        desc = desc.copy()
        desc[order[lead]] = texts[lead]
        order = order[lead]
    order = order[:q.n] if q.n is not None else order
    columns: dict[str, Any] = {"rank": np.arange(1, len(order) + 1)}
    if q.metric != "size":
        columns[q.metric] = sel.values[order]
    columns["size"] = kept["size"].to_numpy()[order]
    columns["subgroup"] = desc[order].tolist()
    columns.update({c: v[keep][order] for c, v in sel.extra.items()})
    if q.kind == "all":
        index = pd.MultiIndex.from_tuples(list(ids[order]), names=["kind", "id"]) if len(order) else \
            pd.MultiIndex.from_arrays([[], []], names=["kind", "id"])
    else:
        index = pd.Index(ids[order], name="id")
    out = pd.DataFrame(columns, index=index)
    out.attrs.update({"direction": None if q.deprecated else q.direction, "alpha": q.alpha, "min_size": q.min_size})
    out.attrs.update(sel.attrs)
    return out


def ranking(sig: Significance, metric: str, kind: str = "entropy", n: int | None = 5,
            direction: Any = "disadvantaged", alpha: float | None = 0.05, min_size: int = 1, *, ci: float = 0.95,
            ascending: bool | None = None, control: str = "fwer", keep_redundant: bool = False,
            label: Any = None) -> pd.DataFrame:
    """The subgroups most disadvantaged (or favoured) by a metric, significant ones only by default: the core of
    :meth:`SubgroupReport.ranking <aif360_subjective.detectors.SubgroupReport.ranking>` (its arguments, one for one).

    "Disadvantaged" follows :data:`~aif360_subjective.detectors.directions.DIRECTIONS`: larger statistical
    parity, equal opportunity and equalized odds (rest minus subgroup), smaller accuracy error and
    accuracy (below the overall accuracy).

    With ``alpha`` (default 0.05) only subgroups whose disparity in the requested direction is
    significant are ranked: the adjusted p-value below ``alpha`` **and** the ``ci`` interval entirely on
    that side of the reference (0, or the overall accuracy for ``accuracy``). With ``control="fwer"``
    (default) the adjusted p-value is the permutation max-T one (``<metric>_p_adjusted``): its family is
    every subgroup of **every kind** the report holds, in the requested direction of the metric's test (the
    ``_p_adjusted`` column of :meth:`~aif360_subjective.detectors.SubgroupReport.subgroup_metrics` is
    two-sided: its family holds both directions), so that on data without any effect a ranking lists
    something with probability at most ``alpha``, however many overlapping candidates were mined (see
    :mod:`~aif360_subjective.detectors.error_control.maxt`).
    ``control="fdr"`` is the previous filter: Benjamini-Hochberg q-values over the subgroups of one kind
    (``<metric>_q``), which bound the expected share of false claims among those listed, not the chance of any.

    With ``control="fwer"`` they are ordered by adjusted p-value (the strongest evidence once the search
    over every candidate is accounted for: a small pattern that only just passes comes after a clear one),
    then (equal p-values: the floor 1 / (B + 1) of the permutations) by the max-T statistic, the penalised z,
    then by the interval's bound nearest the reference; with ``"fdr"`` by that bound alone: the first
    subgroup is the one disadvantaged "by at least X with 95 % confidence" for the largest X (the 95 %
    intervals are per subgroup, not adjusted for the search). Unless ``keep_redundant``, a
    significant subgroup is left out when a nested listed one says the same
    (:func:`~aif360_subjective.detectors.redundancy.redundant`): a sub-pattern whose rate does not differ
    from the other rows of a larger listed subgroup holding it (its extra conditions add nothing the data
    can tell apart from chance: the more general description is listed instead, even when the
    sub-pattern's luckier rate makes it the stronger), or a larger subgroup whose rows outside a listed
    smaller one are treated like everyone else (the smaller one diluted: when the smaller one's rate differs
    from those rows, the larger is decided after it, so a one-condition parent whose smaller penalty makes
    it the stronger does not come before the slice that carries its effect).

    ``attrs`` says how many subgroups were left out and why (``n_no_metrics`` empty/repeated patterns,
    ``n_too_small`` below ``min_size``, ``n_undefined`` undefined rates, ``n_other_side`` significant in the
    other direction, ``n_not_significant`` the rest of the tested ones, ``n_redundant``), plus
    ``n_significant``, ``direction``, ``alpha``, ``control``, ``ci``, ``reference`` and ``bound_column``.
    ``alpha=None`` is the seed's raw ranking: every subgroup by its value (missing values last, ties in id order).

    With ``kind="all"`` every kind is ranked together, the index is (kind, id), and subgroups with
    identical rows (a cluster and its entropy pattern, say) are listed once, under the first kind, with
    all their descriptions joined by ``" | "``.

    Args:
        sig: the report's :class:`~.significance.Significance` (candidates, metrics, caches).
        metric, kind, n, direction, alpha, min_size, ci, ascending, control, keep_redundant, label: as
            :meth:`SubgroupReport.ranking <aif360_subjective.detectors.SubgroupReport.ranking>`.

    Returns:
        pandas.DataFrame: the ranking, with its ``attrs``.
    """
    q = check_query(sig, metric, kind, n, direction, alpha, min_size, ci, ascending, control, keep_redundant, label)
    metric = q.metric
    pos = sig.candidates.positions(kind)
    kinds = sig.candidates.kinds if kind == "all" else (kind,)
    part = sig.metrics.table.iloc[pos]
    big = part["size"].to_numpy(dtype=np.float64, na_value=0.0) >= q.min_size
    if q.alpha is None:
        sel = raw_order(part, q, big)
    else:
        sel, bound, p_dir = significant_set(sig, q, pos, kinds, big)
        sel.order = significant_order(sig, q, pos, sel, bound, p_dir)
        filter_redundant(sig, q, pos, sel)
        sel.values = part[metric].to_numpy(dtype=np.float64, na_value=np.nan)[sel.keep]
    return ranking_frame(sig, q, pos, kinds, sel)
