"""What a non-binary outcome says of every candidate: the metric table, intervals and max-T of a task's columns.

The binary engine reads confusion counts (:mod:`~.subgroup_metrics`, :mod:`~.inference`, :func:`~.maxt.max_t`);
a multi-class, ordinal or regression audit reads the means of per-row values
(:mod:`~.tasks`, :mod:`~.continuous`). :class:`OutcomeMetrics` offers the significance layer the same things
for them: the metric table (index (kind, id), ``size`` then one column per metric), per-candidate intervals and
p-values, and the max-T over every candidate, metric and direction, each metric its own "test".

References:
    P. H. Westfall and S. S. Young, "Resampling-Based Multiple Testing", Wiley, 1993.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .error_control.continuous import (
    OutcomeColumn,
    bootstrap_intervals,
    max_t_means,
    mean_inference,
    moments,
    moments_z,
    standardise,
)
from .error_control.counters import Counter
from .error_control.maxt import MaxTResult
from .error_control.resampling import Sampling
from .tasks import Task

__all__ = ["OutcomeMetrics", "outcome_metrics"]


@dataclass
class OutcomeMetrics:
    """The metrics of every candidate for a non-binary task (rows in position order).

    Attributes:
        task: the task.
        columns: the per-row values compared (one metric each).
        table: index (kind, id); columns ``size`` then :attr:`names`; NaN for a candidate that defines no
            subgroup.
        counter: the candidates' counter.
        defined: (candidates,) whether each candidate defines a subgroup.
        sampling: the unit of inference and the canonical row order (:class:`~.resampling.Sampling`).
        permutation_seed: seed of the max-T permutations (and of the cluster bootstrap).
        weighted: always False (per-row weights are not supported for these tasks).
    """

    task: Task
    columns: list[OutcomeColumn]
    table: pd.DataFrame
    counter: Counter
    defined: np.ndarray
    sampling: Sampling
    permutation_seed: int
    weighted: bool = False
    _inference: dict[float, dict[str, dict[str, np.ndarray]]] = field(default_factory=dict, repr=False)
    _moments: tuple[np.ndarray, np.ndarray, np.ndarray] | None = field(default=None, repr=False)

    @property
    def task_name(self) -> str:
        """The task (``"multiclass"``, ``"ordinal"``, ``"regression"``)."""
        return self.task.name

    @property
    def task_reason(self) -> str:
        """What ``task="auto"`` decided and why (or that the task was given)."""
        return self.task.reason

    @property
    def all_tests(self) -> tuple[int, ...]:
        """Every metric's test."""
        return tuple(range(len(self.columns)))

    @property
    def overall_accuracy(self) -> float:
        """The share of exact predictions (NaN for a regression, which has no exact predictions)."""
        for c in self.columns:
            if c.metric == "accuracy_error":
                return float(np.mean(c.values))
        return float("nan")

    @property
    def names(self) -> tuple[str, ...]:
        """The metric columns of :attr:`table`, in order."""
        return tuple(c.metric for c in self.columns)

    @property
    def metric_test(self) -> dict[str, int]:
        """Metric -> its position among the max-T's tests (each metric is a test of its own)."""
        return {c.metric: j for j, c in enumerate(self.columns)}

    def reference(self, metric: str) -> float:
        """The value meaning "no difference": 0 for every metric of these tasks."""
        return 0.0

    def _all(self, ci: float) -> dict[str, dict[str, np.ndarray]]:
        if ci not in self._inference:
            out = mean_inference(self.counter, self.columns, ci)
            if self.sampling.groups is not None:
                # rows of a cluster are not independent: percentile intervals of a cluster bootstrap
                boot = bootstrap_intervals(self.counter, self.columns, self.sampling.groups, ci,
                                           random_state=self.permutation_seed, order=self.sampling.order)
                for name, (lo, hi) in boot.items():
                    out[name]["ci_low"], out[name]["ci_high"] = lo, hi
            self._inference[ci] = out
        return self._inference[ci]

    def kind_inference(self, positions: np.ndarray, ci: float, tests: bool = True,
                       counter: Counter | None = None) -> pd.DataFrame:
        """Per metric ``_ci_low``, ``_ci_high``, ``_p`` of the candidates at ``positions`` (NaN where a candidate
        defines no subgroup; ``_p`` NaN without ``tests``). With clusters the p-values are those of rows as
        units, and NaN: only the max-T's adjusted p-values account for the clusters."""
        inf = self._all(ci)
        positions = np.asarray(positions, dtype=np.intp)
        cols: dict[str, np.ndarray] = {}
        ok = self.defined[positions]
        for name in self.names:
            d = inf[name]
            p = d["p"][positions] if tests and self.sampling.groups is None else np.full(len(positions), np.nan)
            for suffix, v in (("_ci_low", d["ci_low"][positions]), ("_ci_high", d["ci_high"][positions]),
                              ("_p", p)):
                cols[name + suffix] = np.where(ok, v, np.nan)
        return pd.DataFrame(cols)

    def run_max_t(self, counter: Counter | None, penalty: bool | np.ndarray, n_permutations: int,
                  tests: tuple[int, ...] | None = None) -> MaxTResult:
        """The max-T over every candidate and every metric (all metrics at once: ``tests`` is accepted for the
        binary engine's interface; each metric's adjusted p-values are those of the full run)."""
        return max_t_means(self.counter if counter is None else counter, self.columns, n_permutations,
                           self.permutation_seed, penalty, order=self.sampling.order, groups=self.sampling.groups,
                           design=self.sampling.design)

    def redundancy_counts(self, positions: np.ndarray, metric: str) -> tuple[np.ndarray, np.ndarray, Any]:
        """What the redundancy filter compares: per candidate ``(n, sum, sum of squares)`` of the metric's
        per-row value (centred), their totals, and the z of one set of rows against another."""
        j = self.names.index(metric)
        # centred (and on a unit scale where the values' squares would leave the float range: a z is scale-free)
        Z, centre, scale = standardise(np.column_stack([c.values for c in self.columns]), unit=False)
        if self._moments is None:
            n_S, s_S, q_S = moments(self.counter, Z)
            assert q_S is not None
            self._moments = (n_S, s_S, q_S)
        n_S, s_S, q_S = self._moments
        col = self.columns[j]
        v = Z[:, j] if col.kind != "proportion" else col.values
        pos = np.asarray(positions, dtype=np.intp)
        if col.kind == "proportion":  # counts of ones, not centred
            s = s_S[pos, j] * scale[j] + n_S[pos] * centre[j]
            q = s
        else:
            s, q = s_S[pos, j], q_S[pos, j]
        counts = np.column_stack([n_S[pos], s, q])
        total = np.array([float(len(v)), float(v.sum()), float((v * v).sum())])
        return counts, total, lambda a, b: moments_z(a, b, col.kind)


def outcome_metrics(counter: Counter, index: pd.MultiIndex, sizes: Any, defined: np.ndarray, task: Task,
                    columns: list[OutcomeColumn], sampling: Sampling, permutation_seed: int) -> OutcomeMetrics:
    """The metric table of every candidate for a non-binary task (values as :func:`~.continuous.mean_inference`).

    Args:
        counter: the candidates' counter, in position order.
        index: the candidates' (kind, id) index.
        sizes: rows per candidate.
        defined: whether each candidate defines a subgroup.
        task, columns: from :mod:`~.tasks`.
        sampling: unit of inference and row order.
        permutation_seed: seed of the max-T.
    """
    m = OutcomeMetrics(task=task, columns=columns, table=pd.DataFrame(index=index), counter=counter,
                       defined=np.asarray(defined, dtype=bool), sampling=sampling,
                       permutation_seed=int(permutation_seed))
    values = mean_inference(counter, columns, 0.95)  # the values do not depend on ci
    if sampling.groups is None:  # with clusters the intervals come from the cluster bootstrap, when asked for
        m._inference[0.95] = values  # noqa: SLF001 (the module's own builder fills the cache it defines)
    # one frame built at once: a column added at a time fragments it (pandas' PerformanceWarning with 200 classes)
    cols: dict[str, Any] = {"size": pd.array(np.asarray(sizes), dtype="Int64")}
    cols.update({c.metric: np.where(m.defined, values[c.metric]["value"], np.nan) for c in columns})
    m.table = pd.DataFrame(cols, index=index)
    return m
