"""Significance of the subgroup family, as functions over ``(candidates, metrics, options)``.

* :func:`kind_intervals`: intervals, mid-p values and Benjamini-Hochberg q-values of one kind's candidates
  (:mod:`~aif360_subjective.detectors.error_control.inference`);
* :func:`run_max_t`: the permutation max-T over every candidate of every kind (:mod:`~.maxt`);
* :func:`findings_frame`: every significant disparity under one family-wise error;
* :class:`Significance`: the one object that owns the caches (each interval table, max-T run and findings
  table is computed once per report); the rankings are in :mod:`~aif360_subjective.detectors.ranking`.

References:
    P. H. Westfall and S. S. Young, "Resampling-Based Multiple Testing", Wiley, 1993.
    Y. Benjamini and Y. Hochberg, "Controlling the false discovery rate", JRSS B 57, 1995.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .. import _progress as progress
from .._validation import check_alpha
from .candidates import CandidateMetrics, Candidates
from .directions import sort_descending
from .error_control.inference import benjamini_hochberg, check_ci
from .error_control.maxt import MaxTResult, class_offsets
from .options import AnalysisOptions
from .outcome_metrics import OutcomeMetrics
from .redundancy import merge_rows, redundant_among
from .subgroup_metrics import base_metric

__all__ = ["INFERENCE_COLUMNS", "FINDINGS_COLUMNS", "Significance", "check_unweighted", "kind_intervals",
           "run_max_t", "findings_frame"]

#: The metrics of a binary decision or of another task (both offer what the significance layer reads).
AnyMetrics = CandidateMetrics | OutcomeMetrics
#: Columns per metric of ``subgroup_metrics(ci=...)``.
INFERENCE_COLUMNS = ("_ci_low", "_ci_high", "_p", "_q", "_p_adjusted")
#: Columns of :func:`findings_frame`.
FINDINGS_COLUMNS = ("metric", "kind", "id", "description", "size", "value", "ci_low", "ci_high", "p_adjusted",
                    "direction")


def check_unweighted(metrics: CandidateMetrics | OutcomeMetrics) -> None:
    """Intervals and tests count rows: refuse a weighted analysis.

    Raises:
        ValueError: the analysis used non-uniform instance weights.
    """
    if metrics.weighted:
        raise ValueError(
            "ci and alpha need unweighted rows: this analysis used non-uniform instance weights, whose "
            "weighted counts are not binomial. Pass ci=None (and alpha=None to ranking) for the weighted "
            "point estimates, or rerun without weights (use_instance_weights=False / sample_weight=None)"
        )


def kind_intervals(candidates: Candidates, metrics: AnyMetrics, kind: str, ci: float,
                   tests: bool) -> pd.DataFrame:
    """Intervals, p-values (``tests``) and q-values of the candidates of ``kind`` (NaN where a candidate defines
    no subgroup); the q-values' family is the kind's candidates with a defined p-value, per metric."""
    pos = candidates.positions(kind)
    df = metrics.kind_inference(pos, ci, tests, candidates.counter())
    df.loc[~candidates.family(kind).defined(), :] = np.nan
    # the q columns joined at once (one at a time fragments the frame: pandas' PerformanceWarning with 200 classes)
    q = {m + "_q": benjamini_hochberg(df[m + "_p"].to_numpy()) for m in metrics.names}
    return pd.concat([df, pd.DataFrame(q, index=df.index)], axis=1)


def run_max_t(candidates: Candidates, metrics: AnyMetrics, options: AnalysisOptions,
              tests: tuple[int, ...] | None = None) -> MaxTResult:
    """Permutation max-T over every candidate of every kind, with the penalty of ``options.max_t_penalty``, in
    the analysis' unit of inference (rows, or clusters with ``groups``)."""
    check_unweighted(metrics)
    kind = options.max_t_penalty
    penalty = class_offsets(candidates.description_classes()) if kind == "classes" else kind == "size"
    return metrics.run_max_t(candidates.counter(), penalty, options.n_permutations,
                             tuple(sorted(metrics.all_tests if tests is None else tests)))


class Significance:
    """The caches of one report's significance: intervals per (ci, kind, tests), max-T runs, findings tables.

    Args:
        candidates: the candidate families.
        metrics: their metrics and counts.
        options: the analysis options (permutations, penalty).
    """

    def __init__(self, candidates: Candidates, metrics: AnyMetrics, options: AnalysisOptions) -> None:
        self.candidates = candidates
        self.metrics = metrics
        self.options = options
        #: The progress reporter of the analysis that built the report (:mod:`aif360_subjective._progress`): its
        #: max-T runs when a question first needs it, after ``detect_subgroups`` has returned.
        self.reporter = progress.current()
        self._intervals: dict[tuple[float, str, bool], pd.DataFrame] = {}
        self._max_t: dict[tuple[int, ...], MaxTResult] = {}
        # the answer, the console, the comparison of the discovery methods and the report ask for the same
        # findings; their redundancy filter is the costly part
        self._findings: dict[tuple[float, float, bool, bool], pd.DataFrame] = {}

    def clear(self) -> None:
        """Forget every cached result (benchmarks time the computations, not the caches)."""
        self._intervals.clear()
        self._max_t.clear()
        self._findings.clear()

    def max_t(self, tests: tuple[int, ...] | None = None) -> MaxTResult:
        """:func:`run_max_t` (computed once). A ranking of one metric asks for its own test only and gets the
        same adjusted p-values as the full run (which the findings need) at a quarter of the cost."""
        every = tuple(self.metrics.all_tests)
        full = self._max_t.get(every)
        if full is not None:
            return full
        key = tuple(sorted(every if tests is None else tests))
        if key not in self._max_t:
            with progress.reporting(self.reporter):
                self._max_t[key] = run_max_t(self.candidates, self.metrics, self.options, key)
        return self._max_t[key]

    def intervals(self, ci: float, tests: bool = True, kinds: Sequence[str] | None = None,
                  adjusted: bool = True) -> pd.DataFrame:
        """Intervals, p, q and adjusted p of the candidates of ``kinds`` (default: every kind), in position order.

        ``tests=False``: no mid-p values or q-values (NaN; the max-T filter does not need them, and they cost
        about 0.3 ms per subgroup), unless already computed. ``adjusted=False``: the ``_p_adjusted`` columns are
        NaN (no max-T run for them; rankings read the adjusted p-values of their own test)."""
        ci = check_ci(ci)
        check_unweighted(self.metrics)
        kinds = self.candidates.kinds if kinds is None else tuple(kinds)
        parts: list[pd.DataFrame] = []
        undefined: dict[str, dict[str, int]] = {}
        for kind in kinds:
            key = (ci, kind, True) if (ci, kind, True) in self._intervals or tests else (ci, kind, False)
            if key not in self._intervals:
                self._intervals[key] = kind_intervals(self.candidates, self.metrics, kind, ci, key[2])
            df = self._intervals[key]
            has = self.candidates.family(kind).defined()
            for m in self.metrics.names:
                col = m + ("_p" if key[2] else "_ci_low")
                undefined.setdefault(m, {})[kind] = int(np.sum(has & np.isnan(df[col].to_numpy())))
            parts.append(df)
        names = self.metrics.names
        cols4 = [m + s for m in names for s in ("_ci_low", "_ci_high", "_p", "_q")]
        inf = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame({c: np.zeros(0) for c in cols4})
        rows = (np.concatenate([self.candidates.positions(k) for k in kinds]) if kinds
                else np.zeros(0, dtype=np.intp))
        mt = self.max_t() if adjusted else None
        # two-sided: one family holds both directions of the test (the columns joined at once, not one at a time)
        adj = {m + "_p_adjusted": mt.p_two_sided[rows, self.metrics.metric_test[m]] if mt is not None
               else np.full(len(inf), np.nan) for m in names}
        inf = pd.concat([inf, pd.DataFrame(adj, index=inf.index)], axis=1)
        inf = inf[[m + s for m in names for s in INFERENCE_COLUMNS]]
        inf.index = self.metrics.table.index[rows]
        inf.attrs = {
            "ci": ci,
            "family": "_q: all subgroups of one kind with a defined p-value, per metric (Benjamini-Hochberg); "
                      "_p_adjusted: every subgroup of every kind, both directions, per test (permutation "
                      "max-T, family-wise error)",
            "undefined": undefined,
            "n_permutations": self.options.n_permutations,
            "unit": self.metrics.sampling.unit,
        }
        return inf

    def findings(self, alpha: float, ci: float, keep_redundant: bool, merge_identical: bool) -> pd.DataFrame:
        """:func:`findings_frame` (computed once per arguments; a copy, callers may edit their table)."""
        key = (check_alpha(alpha), check_ci(ci), bool(keep_redundant), bool(merge_identical))
        if key not in self._findings:
            self._findings[key] = findings_frame(self, alpha, ci, keep_redundant, merge_identical)
        return self._findings[key].copy()


def findings_frame(sig: Significance, alpha: float, ci: float, keep_redundant: bool,
                   merge_identical: bool) -> pd.DataFrame:
    """Every (metric, candidate, direction) whose global max-T adjusted p-value is below ``alpha`` and whose
    interval lies on that side of the reference; see ``SubgroupReport.findings``."""
    candidates, metrics = sig.candidates, sig.metrics
    inf = sig.intervals(ci, tests=False)
    mt = sig.max_t()
    index = metrics.table.index
    kinds, ids = index.get_level_values("kind").to_numpy(), index.get_level_values("id").to_numpy()
    desc = candidates.descriptions()
    has = candidates.defined()
    # too few clusters to exchange or sign-flip: no adjusted p-value can reach alpha, and the answer says it cannot
    # decide (a Monte Carlo p-value below the design's smallest would be luck of the draws, not evidence)
    undecidable = metrics.sampling.undecidable(alpha, int(mt.n_permutations))
    if undecidable:
        has = np.zeros_like(has)
    sizes = metrics.table["size"].to_numpy(dtype=np.float64, na_value=0.0)
    frames, n_redundant = [], 0
    for metric in metrics.names:
        value = metrics.table[metric].to_numpy(dtype=np.float64, na_value=np.nan)
        lo, hi = inf[metric + "_ci_low"].to_numpy(), inf[metric + "_ci_high"].to_numpy()
        ref = metrics.reference(metric)
        test_no = metrics.metric_test[metric]
        for d, direction in enumerate(("disadvantaged", "favoured")):
            descending = sort_descending(base_metric(metric), direction)  # statistical_parity[c] too
            side = lo > ref if descending else hi < ref
            pg = mt.p_global[:, test_no, d]
            with np.errstate(invalid="ignore"):  # an undefined value is never a finding, whatever its p
                keep = np.flatnonzero(has & (pg < alpha) & side & np.isfinite(value))
            if len(keep) == 0:
                continue
            bound = -lo[keep] if descending else hi[keep]
            stat = mt.statistic(test_no, d)[keep]
            keep = keep[np.lexsort((np.arange(len(keep)), bound, -stat, pg[keep]))]
            if not keep_redundant and len(keep) > 1:
                red = redundant_among(candidates, metrics, keep, metric, mt)
                n_redundant += int(red.sum())
                keep = keep[~red]
            texts = desc[keep]
            lead = np.arange(len(keep))
            if merge_identical:
                lead, texts = merge_rows(candidates.row_keys()[keep], texts)
            keep = keep[lead]
            frames.append(pd.DataFrame({
                "metric": metric, "kind": kinds[keep], "id": ids[keep], "description": texts[lead],
                "size": sizes[keep].astype(np.int64), "value": value[keep], "ci_low": lo[keep],
                "ci_high": hi[keep], "p_adjusted": pg[keep], "direction": direction,
                "_strength": -mt.statistic(test_no, d)[keep],
            }))
    cols = list(FINDINGS_COLUMNS)
    out = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame({c: [] for c in [*cols, "_strength"]})
    if len(out):
        # ties in adjusted p (many findings at the floor 1 / (B + 1)) are broken by the strength of the evidence,
        # the max-T statistic (the penalised z), never by the order of the metrics
        out = out.sort_values(["p_adjusted", "_strength"], kind="stable").reset_index(drop=True)
    out = out[cols]
    attrs: dict[str, Any] = {
        "alpha": float(alpha), "ci": float(ci), "n_hypotheses": int(mt.n_hypotheses[1]),
        "n_permutations": int(mt.n_permutations), "n_redundant": n_redundant,
        "family": metrics.task.family_text(metrics.names), "unit": metrics.sampling.unit, "task": metrics.task_name,
        "undecidable": undecidable}
    out.attrs.update(attrs)
    return out
