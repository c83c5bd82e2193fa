"""Family-wise error control over thousands of overlapping subgroups: permutation max-T, step-down.

Every candidate subgroup S (a cluster, an entropy subgroup, a pattern; any number, overlapping and nested)
is compared with the rest on four tests, each a standardised count (a z value, positive = S disadvantaged):

* statistical parity: S's favourable predictions ``x`` against ``E = n_S P / N``:
  ``z = (E - x) / sd`` with the hypergeometric ``sd^2 = n_S (P/N) (1 - P/N) (N - n_S) / (N - 1)``;
* equal opportunity: S's true positives among its truth-positive rows (same form, within truth positives);
* equalized odds: ``(z_TPR + z_FPR) / sqrt(2)``, the FPR z formed the same way within truth negatives (the
  average of the two rate differences, as the metric);
* accuracy (and accuracy error, the same hypothesis): S's correct predictions against ``n_S C / N``.

Under the null hypothesis of a test the outcome is exchangeable across rows: for statistical parity and
accuracy the rows' (truth, prediction) pairs are permuted together; for the rates conditioned on the truth
(equal opportunity, equalized odds) the predictions are permuted within the truth-positive and the
truth-negative rows. Each permutation's z of **every** candidate comes from one sparse product
(candidates x rows membership times a rows x batch outcome matrix), and Westfall and Young's step-down
max-T turns them into adjusted p-values: with the hypotheses sorted by decreasing observed z,
``p_(i) = max_{j <= i} (1 + #{b : max_{l >= j} z_b,(l) >= z_(j)}) / (B + 1)``. This controls the family-wise
error (the chance of any false claim) in the strong sense under any dependence between the subgroups, since
the joint law of all z under the permutations is the one under the null (subset pivotality holds for these
standardised counts; Westfall and Young 1993, 2.8). The step-down form rejects at least what the single-step
max-T rejects.

The statistic maximised is ``z - offset``, the offset fixed before any permutation and without the outcome, so
the control holds whatever it is: :func:`class_offsets` (``sqrt(2 ln K)``, K the candidates of the subgroup's
description class; what the reports use by default) lets each class of candidates reach the threshold about
equally often under the null, :func:`scan_penalty` (``sqrt(2 ln(N / n_S))``) favours large subgroups, and no
offset is the plain max-T.

A family holds both directions (one-sided hypotheses "S disadvantaged" and "S favoured") of one test for every
candidate: :func:`max_t` returns the adjusted p-values of each test's family and of the **global family**, the
union of the four test families (8 x candidates hypotheses), for claims about "anything anywhere". The
global family mixes two permutation schemes: its permutation b takes the b-th draw of each scheme, drawn
independently. Under the complete null the test families are positively associated, so the maximum of
independently drawn families is stochastically larger than the true one: the global adjusted p-values are
conservative, never anti-conservative.

References:
    P. H. Westfall and S. S. Young, "Resampling-Based Multiple Testing", Wiley, 1993 (algorithm 2.8,
    step-down max-T).
    J. P. Romano and M. Wolf, "Exact and approximate stepdown methods for multiple hypothesis testing",
    JASA 100, 2005.
"""

from __future__ import annotations

import os
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import scipy.sparse as sp

from .._param_tables import SUBGROUP_PARAMS
from .resampling import Permuter

__all__ = ["ALL_TESTS", "TESTS", "METRIC_TEST", "MaxTResult", "Counter", "MemberCounter", "StackedCounter",
           "as_counter", "max_t", "observed_z", "check_n_permutations", "MAX_PERMUTATIONS", "scan_penalty",
           "class_offsets",
           "draw_permutations", "is_binary"]

#: The five tests, in the order of :attr:`MaxTResult.z` columns.
TESTS = ("statistical_parity", "equal_opportunity", "equalized_odds", "accuracy", "false_positive_rate")
#: Which test each subgroup metric uses (accuracy error is the same hypothesis as accuracy; the false negative
#: rate gap is the true positive rate gap with the sign turned, equal opportunity's hypothesis).
METRIC_TEST = {
    "statistical_parity": 0,
    "equal_opportunity": 1,
    "equalized_odds": 2,
    "accuracy": 3,
    "accuracy_error": 3,
    "false_positive_rate": 4,
    "false_negative_rate": 1,
}
#: Every test.
ALL_TESTS = tuple(range(len(TESTS)))
#: Default number of permutations: p-values resolve to 1/201, ten times finer than alpha = 0.05.
DEFAULT_PERMUTATIONS: int = SUBGROUP_PARAMS.default("n_permutations")
_BATCH = 50
#: Batches of permutations counted at the same time (scipy's sparse products release the GIL).
_WORKERS = max(1, min(2, os.cpu_count() or 1))
_TIE = 1e-9  # z values equal up to float rounding count as ties (>=)
#: Hypotheses per family whose step-down adjusted p-value is exact (see ``_StepDown``).
STEP_DOWN_EXACT = 512


#: Most permutations accepted: adjusted p-values then resolve to 1e-5; time and the kept maxima grow with B (a
#: mistyped 10**9 ended in MemoryError after a long run instead of failing at once).
MAX_PERMUTATIONS: int = int(SUBGROUP_PARAMS["n_permutations"].bounds()[1] or 0)


def check_n_permutations(n_permutations: Any) -> int:
    """Validate ``n_permutations`` (an int from 19, so that p = 0.05 can be reached, to :data:`MAX_PERMUTATIONS`).

    Raises:
        TypeError: not an int.
        ValueError: below 19 or above :data:`MAX_PERMUTATIONS`.
    """
    # the subgroup table's rule (19 to 100,000), with its reason
    SUBGROUP_PARAMS.check("n_permutations", n_permutations)
    return int(n_permutations)


@dataclass(frozen=True)
class MaxTResult:
    """Adjusted p-values of every candidate.

    Attributes:
        z: (m, 5) observed z per test (:data:`TESTS`), positive = disadvantaged; NaN where undefined.
        p_adjusted: (m, 5, 2) adjusted p-values within each (test, direction) family, directions
            (disadvantaged, favoured): the family of one ranking; NaN where undefined.
        p_two_sided: (m, 5) adjusted p-values within each test's family of both directions.
        p_global: (m, 5, 2) adjusted p-values in the global family (every test, both directions).
        n_permutations: B.
        n_hypotheses: defined hypotheses per test family (4,) and in the global family.
        tests: the tests adjusted (the others' p-values are NaN; the global family needs all of them).
        offset: (m,) the amount subtracted from each candidate's z before maximising (its penalty): the
            statistic of candidate i is ``z - offset[i]`` in the disadvantaged direction, ``-z - offset[i]``
            in the favoured one.
    """

    z: np.ndarray
    p_adjusted: np.ndarray
    p_two_sided: np.ndarray
    p_global: np.ndarray
    n_permutations: int
    n_hypotheses: tuple[tuple[int, ...], int]
    offset: np.ndarray | None = None
    tests: tuple[int, ...] = ALL_TESTS
    unit: str = "rows"

    def statistic(self, test: int, direction: int = 0) -> np.ndarray:
        """(m,) the maximised statistic of one test and direction (0 disadvantaged, 1 favoured)."""
        z = self.z[:, test] if direction == 0 else -self.z[:, test]
        return z - (0.0 if self.offset is None else self.offset)


def _sd(k: np.ndarray, K: float, N: float) -> np.ndarray:
    """Hypergeometric standard deviation of the successes in k draws (K successes among N)."""
    if N <= 1:
        return np.zeros_like(k, dtype=np.float64)
    p = K / N
    var = k * p * (1.0 - p) * (N - k) / (N - 1.0)
    return np.sqrt(np.maximum(var, 0.0))


class _Standardiser:
    """The margins of the five tests.

    Under a permutation of rows (or of predictions within the truth strata) the margins are fixed: the
    expected counts and standard deviations are computed once. Under a permutation of whole clusters the
    truth moves with the prediction, so the truth-positive rows of each candidate (``n1``) change from one
    permutation to the next: :meth:`z` then takes them and standardises each permuted count with its own margins.

    Args:
        counter: the candidates (a :class:`Counter`, or their (rows, m) membership, counted once here).
        t, p: truth and prediction (0/1 floats).
    """

    def __init__(self, counter: Counter | sp.spmatrix, t: np.ndarray, p: np.ndarray):
        counter = as_counter(counter)
        c = (t == p).astype(np.float64)
        N = float(len(t))
        fixed = counter.count(np.column_stack([np.ones(len(t)), t]))
        n_S, n1_S = fixed[:, 0], fixed[:, 1]
        self.size = n_S
        self.n1 = n1_S
        self.N = N
        self.P, self.T1, self.F0, self.C = (float(p.sum()), float((t * p).sum()), float(((1 - t) * p).sum()),
                                            float(c.sum()))
        self.N1 = float(t.sum())
        self.N0 = N - self.N1
        self.expected, self.inv_sd = self._margins(n1_S[:, None])

    def _margins(self, n1_S: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Expected counts and inverse standard deviations of the four counts, each (m, 1) or (m, b) as ``n1_S``
        (the truth-positive rows of each candidate)."""
        n_S = self.size[:, None]
        n0_S = n_S - n1_S
        N, N1, N0 = self.N, self.N1, self.N0
        zero = 0.0 * n1_S
        expected = [n_S * self.P / N + zero, n1_S * self.T1 / N1 if N1 else zero,
                    n0_S * self.F0 / N0 if N0 else zero, n_S * self.C / N + zero]
        sd = [_sd(n_S, self.P, N) + zero, _sd(n1_S, self.T1, N1), _sd(n0_S, self.F0, N0), _sd(n_S, self.C, N) + zero]
        with np.errstate(divide="ignore", invalid="ignore"):
            inv = [np.where(d > 1e-12, 1.0 / d, np.nan) for d in sd]
        return expected, inv

    def z(self, counts: list[np.ndarray] | list[np.ndarray | None],
          n1: np.ndarray | None = None) -> list[np.ndarray | None]:
        """z of each test (:data:`TESTS`) from the observed (or permuted) counts: favourable predictions, true
        positives, false positives, correct predictions; each (m, b), or None (not computed: its z is None
        too). ``n1``: (m, b) truth-positive rows of each candidate under each permutation (clusters permuted),
        or None (fixed margins)."""
        e, inv = (self.expected, self.inv_sd) if n1 is None else self._margins(n1)
        z = [None if cnt is None else (e[i] - cnt) * inv[i] for i, cnt in enumerate(counts)]
        # a cluster permutation can leave a candidate without truth positives (or negatives): undefined, and it
        # must not be the maximum
        z_eodds = None if z[1] is None or z[2] is None else (z[1] + z[2]) / np.sqrt(2.0)
        return [z[0], z[1], z_eodds, z[3], z[2]]

    def z_all(self, counts: list[np.ndarray]) -> list[np.ndarray]:
        """:meth:`z` of all four counts: every test's z."""
        out = [z for z in self.z(counts) if z is not None]
        if len(out) != len(TESTS):
            raise ValueError("z_all needs the four counts")
        return out


def observed_z(members: sp.spmatrix, t: np.ndarray, p: np.ndarray) -> np.ndarray:
    """(m, 5) observed z of every candidate (columns of the rows x m boolean ``members``) per test."""
    t, p = np.asarray(t, dtype=np.float64), np.asarray(p, dtype=np.float64)
    counter = MemberCounter(members)
    return _observed(counter, _Standardiser(counter, t, p), t, p)


def _observed(counter: Counter, std: _Standardiser, t: np.ndarray, p: np.ndarray) -> np.ndarray:
    """(m, 5) observed z per test from the candidates' counts (one product of four columns)."""
    obs = counter.count(np.column_stack([p, t * p, (1 - t) * p, t == p]))
    return np.column_stack([z[:, 0] for z in std.z_all([obs[:, [i]] for i in range(4)])])


class _StepDown:
    """Accumulates the step-down exceedance counts of one family over permutation batches.

    The successive maxima are exact for the :data:`STEP_DOWN_EXACT` most significant hypotheses; every
    later one gets the single-step max-T p-value (the share of permutations whose maximum over the whole
    family reaches it), raised to the last exact one. The single-step value is never below the step-down
    value, so the tail stays valid (conservative) while a batch costs two passes over the family instead of a
    sort-ordered cumulative maximum of all of it; the hypotheses near ``alpha`` are always among the first
    few hundred.
    """

    def __init__(self, observed: np.ndarray):
        finite = np.isfinite(observed)
        self.index = np.flatnonzero(finite)
        self.order = self.index[np.argsort(-observed[self.index], kind="stable")]
        self.sorted_obs = observed[self.order]
        self.head = self.order[:STEP_DOWN_EXACT]
        self.tail = np.zeros(len(observed), dtype=bool)
        self.tail[self.order[STEP_DOWN_EXACT:]] = True
        self.count = np.zeros(len(self.order), dtype=np.int64)
        self.maxima: list[np.ndarray] = []
        self.size = len(observed)

    def add(self, perm: np.ndarray) -> None:
        """``perm``: (b, hypotheses) permuted statistics (NaN = not defined)."""
        if len(self.order) == 0:
            return
        # the maximum over the hypotheses after the exact head (-inf when there are none)
        rest = perm[:, self.tail].max(axis=1) if len(self.head) < len(self.order) else np.full(len(perm), -np.inf)
        self.add_parts(perm[:, self.head], rest)

    def add_parts(self, head: np.ndarray, rest: np.ndarray) -> None:
        """One batch given the head hypotheses' permuted statistics ``head`` (b, len(head), in the order of
        ``self.head``) and the maximum over the rest of the family ``rest`` (b,)."""
        if len(self.order) == 0:
            return
        h = len(self.head)
        v = np.column_stack([head, rest])  # defined hypotheses only: finite
        succ = np.maximum.accumulate(v[:, ::-1], axis=1)[:, ::-1]
        self.count[:h] += np.sum(succ[:, :h] >= self.sorted_obs[None, :h] - _TIE, axis=0)
        self.maxima.append(succ[:, 0])

    def adjusted(self, n_perm: int) -> np.ndarray:
        out = np.full(self.size, np.nan)
        if len(self.order) == 0:
            return out
        h = len(self.head)
        count = self.count.copy()
        if h < len(self.order):
            maxima = np.sort(np.concatenate(self.maxima))
            # single step: permutations whose family maximum reaches the observed statistic
            count[h:] = len(maxima) - np.searchsorted(maxima, self.sorted_obs[h:] - _TIE, side="left")
        p = (count + 1.0) / (n_perm + 1.0)
        out[self.order] = np.maximum.accumulate(p)  # monotone: never below a more significant hypothesis
        return out


class _Families:
    """The families of :func:`max_t` over the 8 blocks of hypotheses (test, direction), fed in one pass per block.

    Each block (a test and a direction) holds one hypothesis per candidate; each family is a list of blocks
    (``members``): in :func:`max_t` each block alone (one ranking), the two blocks of a test, and all eight
    (the global family). A family needs, per
    permutation, its head hypotheses' statistics and the maximum over the rest. The heads of the families
    that share a block are gathered once (with the undefined hypotheses), set aside, and the block's maximum
    over everything else is one reduction: every family's "rest" is then the maximum of those block maxima
    and of its few set-aside hypotheses outside its own head. One pass per block, instead of one per family
    and block (three times the work), and no copies of the blocks.
    """

    def __init__(self, blocks_observed: list[np.ndarray], members: list[list[int]]):
        m = len(blocks_observed[0])
        self.m = m
        self.members = members
        self.families = [_StepDown(np.concatenate([blocks_observed[k] for k in ks])) for ks in self.members]
        aside: list[set[int]] = [set(np.flatnonzero(~np.isfinite(o)).tolist()) for o in blocks_observed]
        for ks, sd in zip(self.members, self.families, strict=True):
            for pos in sd.head.tolist():
                aside[ks[pos // m]].add(pos % m)
        self.aside = [np.array(sorted(a), dtype=np.intp) for a in aside]
        self.head_at, self.extra_at = [], []
        for ks, sd in zip(self.members, self.families, strict=True):
            # position of each hypothesis of the family within the concatenation of its blocks' set-aside rows
            local = {}
            start = 0
            for j, k in enumerate(ks):
                for r, col in enumerate(self.aside[k].tolist()):
                    local[j * m + col] = start + r
                start += len(self.aside[k])
            self.head_at.append(np.array([local[pos] for pos in sd.head.tolist()], dtype=np.intp))
            in_head = set(sd.head.tolist())
            finite_tail = sd.tail
            self.extra_at.append(np.array([i for pos, i in local.items() if pos not in in_head and finite_tail[pos]],
                                          dtype=np.intp))

    def add(self, blocks: list[np.ndarray]) -> None:
        """``blocks``: the (m, b) permuted statistics, in block order; overwritten (their set-aside rows)."""
        gathered, rest = [], []
        for blk, aside in zip(blocks, self.aside, strict=True):
            gathered.append(blk[aside])
            blk[aside] = -np.inf
            rest.append(blk.max(axis=0, initial=-np.inf))
        for ks, sd, head_at, extra_at in zip(self.members, self.families, self.head_at, self.extra_at, strict=True):
            g = np.concatenate([gathered[k] for k in ks]) if len(ks) > 1 else gathered[ks[0]]
            r = np.max([rest[k] for k in ks], axis=0)
            if len(extra_at):
                r = np.maximum(r, g[extra_at].max(axis=0))
            sd.add_parts(g[head_at].T, r)

    def adjusted(self, n_perm: int) -> list[np.ndarray]:
        """Adjusted p-values per family, in the order of ``self.members``."""
        return [sd.adjusted(n_perm) for sd in self.families]


def is_binary(Y: np.ndarray) -> bool:
    """Whether every value of ``Y`` is 0 or 1 (counted exactly in 16 bits; other values are weights)."""
    return Y.dtype == bool or bool(np.all((Y == 0) | (Y == 1)))


def float_ones(M: sp.spmatrix) -> sp.spmatrix:
    """The 0/1 sparse matrix ``M`` (no repeated entries) with float64 ones: weights are summed in 64 bits, and
    scipy's ``astype`` would sort and merge entries first."""
    return type(M)((np.ones(M.nnz), M.indices, M.indptr), shape=M.shape)


class MemberCounter:
    """Counts of every subgroup's rows in 0/1 columns, by sparse products on 16-bit integers.

    A sparse product's inner loop runs once per (stored entry, right-hand column); on 16-bit integers it
    vectorises over twice the lanes of float32 (``benchmarks/maxt_speed.py`` times both). A 16-bit count is
    exact up to 65,535, so the rows are taken in blocks of at most that many and the blocks' counts added in 64
    bits. The products release the GIL (two run at once on two cores). Columns of other values (weights) are
    summed in float64.

    Args:
        members: (rows, m) boolean membership, one column per subgroup.
    """

    _BLOCK = 2**16 - 1

    def __init__(self, members: sp.spmatrix):
        MT = sp.csr_matrix(sp.csc_matrix(members).T, dtype=np.uint16)
        n = MT.shape[1]
        self.shape = (n, MT.shape[0])  # (rows, subgroups), as ``members``
        self.blocks = [(s0, min(n, s0 + self._BLOCK)) for s0 in range(0, n, self._BLOCK)] or [(0, 0)]
        self.MT = [MT] if len(self.blocks) == 1 else [MT[:, s0:s1] for s0, s1 in self.blocks]

    def count(self, Y: np.ndarray) -> np.ndarray:
        """(m, c) float64: rows of each subgroup where each column of the (rows, c) 0/1 array ``Y`` is 1; for a
        ``Y`` of other values (weights), their sums over each subgroup's rows."""
        Y = np.asarray(Y)
        binary = is_binary(Y)
        cnt = np.zeros((self.MT[0].shape[0], Y.shape[1]), dtype=np.float64)
        for M, (s0, s1) in zip(self.MT, self.blocks, strict=True):
            cnt += M @ Y[s0:s1].astype(np.uint16) if binary else float_ones(M) @ Y[s0:s1].astype(np.float64)
        return cnt


class Counter(Protocol):
    """Anything that counts every candidate's rows: ``shape`` (rows, candidates) and ``count(Y)`` -> (candidates,
    columns of Y) exact counts of the rows where each 0/1 column of ``Y`` is 1 (:class:`MemberCounter`,
    :class:`~.cell_counts.CellCounter`, :class:`StackedCounter`)."""

    shape: tuple[int, int]

    def count(self, Y: np.ndarray) -> np.ndarray: ...


class StackedCounter:
    """Several counters' candidates one after the other (the kinds of a report, each counted its own way).

    Args:
        parts: counters of the same rows.
    """

    def __init__(self, parts: list[Counter]):
        if not parts:
            raise ValueError("StackedCounter needs at least one counter")
        rows = {c.shape[0] for c in parts}
        if len(rows) != 1:
            raise ValueError(f"the counters count different rows: {sorted(rows)}")
        self.parts = parts
        self.shape = (rows.pop(), sum(c.shape[1] for c in parts))

    def count(self, Y: np.ndarray) -> np.ndarray:
        """(candidates, c) counts, the parts' candidates in order."""
        return np.vstack([c.count(Y) for c in self.parts])


def as_counter(members: Counter | sp.spmatrix | np.ndarray) -> Counter:
    """A counter as it is; a (rows, candidates) membership matrix as a :class:`MemberCounter`."""
    if hasattr(members, "count") and hasattr(members, "shape") and not isinstance(members, np.ndarray | sp.spmatrix):
        return members
    return MemberCounter(members)


class _PermutedCounts:
    """The four counts of every candidate under a batch of permutations (a :class:`Counter`)."""

    def __init__(self, counter: Counter, t: np.ndarray):
        self.counter = counter
        self.t = np.asarray(t, dtype=bool)[:, None]

    def counts(self, p_a: np.ndarray, c_a: np.ndarray, p_b: np.ndarray,
               need: tuple[bool, ...] = (True, True, True, True),
               t_b: np.ndarray | None = None) -> list[np.ndarray | None]:
        """Favourable and correct predictions (pairs permuted jointly: ``p_a``, ``c_a``), true and false
        positives (predictions permuted within the truth strata: ``p_b``); each (m, b) float64, or None where
        ``need`` is False (a count no requested test uses is not computed). With ``t_b`` (the truths permuted
        with ``p_b``: whole clusters moved) a fifth count is returned: each candidate's truth-positive rows."""
        b = p_a.shape[1]
        fav = p_b > 0
        t = self.t if t_b is None else t_b > 0
        # a prediction permuted within the truth strata is a true positive on truth-positive rows, a false
        # positive on the others
        which = [i for i in range(4) if need[i]] + ([4] if t_b is not None else [])
        cnt = self.counter.count(np.hstack([_part(i, p_a, c_a, t, fav) for i in which]))
        out: list[np.ndarray | None] = [None] * 5
        for j, i in enumerate(which):
            out[i] = cnt[:, j * b:(j + 1) * b]
        return out if t_b is not None else out[:4]


def _part(i: int, p_a: np.ndarray, c_a: np.ndarray, t: np.ndarray, fav: np.ndarray) -> np.ndarray:
    """Count ``i`` of :meth:`_PermutedCounts.counts`: favourable predictions, true positives, false positives,
    correct predictions, truth positives."""
    out: np.ndarray
    if i == 0:
        out = p_a > 0
    elif i == 1:
        out = t & fav
    elif i == 2:
        out = ~t & fav
    else:
        out = c_a > 0 if i == 3 else np.broadcast_to(t, fav.shape)
    return out


def scan_penalty(size: np.ndarray, n: int) -> np.ndarray:
    """``sqrt(2 ln(n / size))``: the size penalty of the max-T statistic (0 for a subgroup of every row)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out: np.ndarray = np.sqrt(2.0 * np.log(np.maximum(n / np.maximum(size, 1.0), 1.0)))
    return out


def class_offsets(classes: np.ndarray) -> np.ndarray:
    """``sqrt(2 ln K)`` per candidate, ``K`` the number of candidates of its description class.

    The penalty of the max-T statistic: the maximum of ``K`` standard normal z values grows like
    ``sqrt(2 ln K)``, so subtracting it lets every class of candidates (the clusters; the entropy patterns;
    the mined patterns of each shape: number of conditions and how many of them are numeric ranges) exceed the
    permutation threshold about equally often under the null hypothesis. A two-condition conjunction of
    categorical values then competes with the other 240-odd conjunctions of its shape, not with the thousands of
    three-condition patterns with numeric ranges that dominate the candidates. The classes depend on the
    features only, never on the outcome, so the permutation max-T stays valid whatever the classes are.

    Args:
        classes: (m,) hashable class label per candidate.

    Returns:
        numpy.ndarray: (m,) offsets (0 for a class of one candidate).
    """
    _, inverse, counts = np.unique(np.asarray(classes), return_inverse=True, return_counts=True)
    return np.sqrt(2.0 * np.log(counts[inverse.ravel()].astype(np.float64)))


def draw_permutations(
    rng: np.random.Generator, p: np.ndarray, pos: np.ndarray, neg: np.ndarray, b: int
) -> tuple[np.ndarray, np.ndarray]:
    """``b`` permutations of both schemes: row indices (n, b) for the joint permutation of (truth,
    prediction) pairs, and the predictions (n, b) permuted within the truth-positive rows ``pos`` and within
    the truth-negative rows ``neg``."""
    n = len(p)
    idx = rng.permuted(np.tile(np.arange(n), (b, 1)), axis=1).T
    p_b = np.empty((n, b))
    p_b[pos] = p[pos][rng.permuted(np.tile(np.arange(len(pos)), (b, 1)), axis=1).T]
    p_b[neg] = p[neg][rng.permuted(np.tile(np.arange(len(neg)), (b, 1)), axis=1).T]
    return idx, p_b


def max_t(
    members: sp.spmatrix | Counter,
    t: np.ndarray,
    p: np.ndarray,
    n_permutations: int = DEFAULT_PERMUTATIONS,
    random_state: np.random.Generator | int | None = None,
    penalty: bool | np.ndarray = True,
    tests: tuple[int, ...] | None = None,
    *,
    order: np.ndarray | None = None,
    groups: np.ndarray | None = None,
    design: str = "between",
) -> MaxTResult:
    """Step-down max-T adjusted p-values of every candidate subgroup, per test and globally.

    Args:
        members: (rows, m) boolean sparse (or dense) membership, one column per candidate, or a
            :class:`Counter` of the m candidates (the reports count mined patterns through their cells).
        t: truth, 1 = favourable (0/1 array).
        p: prediction, 1 = favourable (0/1 array).
        n_permutations: B (>= 19).
        random_state: numpy Generator or int seed (the permutations).
        penalty: what is subtracted from each candidate's z before maximising: ``True`` the size penalty
            ``sqrt(2 ln(N / n_S))`` (:func:`scan_penalty`), ``False`` nothing, or an (m,) array of offsets
            fixed without the outcome (the reports pass :func:`class_offsets` of the description classes).
        tests: which tests (positions in :data:`TESTS`; default all) to adjust; the others' adjusted p-values
            are NaN, and so is the global family unless all are asked for. Each test's adjusted p-values are the
            same whichever others are asked for (the permutations are drawn the same way), so a ranking of one
            metric pays for one test.
        order: the canonical row order the permutations are drawn in
            (:func:`~.resampling.canonical_order` of the rows' keys): with it the p-values do not depend on the
            order in which the rows were given. None: the rows' own order.
        groups: (rows,) dense cluster codes (:func:`~.resampling.check_groups`): the permutations move whole
            clusters (``design="between"``; every test is then standardised with its permuted margins, since
            the truth moves with the prediction) or rows within clusters (``design="within"``; the conditional
            tests permute within cluster x truth). None: rows are the units.
        design: ``"between"`` or ``"within"`` (with ``groups``).

    Returns:
        MaxTResult

    References:
        P. H. Westfall and S. S. Young, "Resampling-Based Multiple Testing", 1993.
    """
    B = check_n_permutations(n_permutations)
    rng = np.random.default_rng(random_state)
    counter = as_counter(members)  # one 16-bit copy of the memberships (or the cells) for every count below
    n, m = counter.shape
    t = np.asarray(t, dtype=np.float64)
    p = np.asarray(p, dtype=np.float64)
    c = (t == p).astype(np.float64)
    std = _Standardiser(counter, t, p)
    z_obs = _observed(counter, std, t, p)
    size = std.size
    if isinstance(penalty, np.ndarray):
        pen = np.asarray(penalty, dtype=np.float64).reshape(m, 1)
    else:
        pen = scan_penalty(size, n)[:, None] if penalty else np.zeros((m, 1))
    s_obs = z_obs - pen[:, [0]]
    s_fav = -z_obs - pen[:, [0]]
    # families: per (test, direction) (one ranking), per test (both directions), global (everything)
    tests = ALL_TESTS if tests is None else tuple(sorted(set(int(f) for f in tests)))
    if not tests or not set(tests) <= set(ALL_TESTS):
        raise ValueError(f"tests must be positions in {TESTS}, got {tests!r}")
    n_all = len(ALL_TESTS)
    blocks = [s for f in tests for s in (s_obs[:, f], s_fav[:, f])]
    members_of = [[j] for j in range(len(blocks))] + [[2 * i, 2 * i + 1] for i in range(len(tests))]
    if len(tests) == n_all:
        members_of.append(list(range(2 * n_all)))
    fams = _Families(blocks, members_of)
    # counts each test needs: SP favourable predictions; EO true positives; EOdds true and false positives;
    # accuracy correct predictions; FPR false positives
    uses = {0: (0,), 1: (1,), 2: (1, 2), 3: (3,), 4: (2,)}
    need = tuple(any(i in uses[f] for f in tests) for i in range(4))
    permuter = Permuter(n, order, groups, design)
    by_clusters = groups is not None and design == "between"
    strata = None
    if groups is not None and design == "within":
        # the conditional tests permute predictions within cluster x truth
        strata = Permuter(n, order, np.asarray(groups, dtype=np.int64) * 2 + (t == 1), "within")
    pos, neg = np.flatnonzero(t == 1), np.flatnonzero(t != 1)
    permuted = _PermutedCounts(counter, t)

    def feed(counts: list[np.ndarray | None]) -> None:
        n1 = counts[4] if by_clusters else None
        zs = std.z(counts[:4], n1)  # each (m, b); None for tests not asked for
        asked = [z for f in tests if (z := zs[f]) is not None]
        stats = [s for z in asked for s in (z - pen, -z - pen)]
        if by_clusters:
            for st in stats:  # a candidate a permutation leaves without a margin has no statistic there
                st[np.isnan(st)] = -np.inf
        fams.add(stats)

    # The permutations are drawn here, in batch order, from the one generator (the same draws whatever the
    # threads do); the sparse products, which release the GIL, run two batches at a time on two cores; the
    # families take the batches in order.
    in_flight: deque[Future[list[np.ndarray | None]]] = deque()
    with ThreadPoolExecutor(max_workers=_WORKERS) as pool:
        done = 0
        while done < B:
            b = min(_BATCH, B - done)
            idx = permuter.draw(rng, b)
            if by_clusters:  # truth and prediction move together with their cluster
                job = pool.submit(permuted.counts, p[idx], c[idx], p[idx], need, t[idx])
            else:
                p_b = p[strata.draw(rng, b)] if strata is not None else permuter.draw_within(rng, [pos, neg], p, b)
                job = pool.submit(permuted.counts, p[idx], c[idx], p_b, need)
            in_flight.append(job)
            if len(in_flight) >= _WORKERS:
                feed(in_flight.popleft().result())
            done += b
        while in_flight:
            feed(in_flight.popleft().result())
    adj = fams.adjusted(B)
    k = len(tests)
    p_adj = np.full((m, n_all, 2), np.nan)
    p_two = np.full((m, n_all), np.nan)
    n_test = [0] * n_all
    for i, f in enumerate(tests):
        p_adj[:, f, 0], p_adj[:, f, 1] = adj[2 * i], adj[2 * i + 1]
        p_two[:, f] = np.fmin(*adj[2 * k + i].reshape(2, m))
        n_test[f] = len(fams.families[2 * k + i].order)
    if k == n_all:
        p_glob = adj[-1].reshape(n_all, 2, m).transpose(2, 0, 1)
        n_glob = len(fams.families[-1].order)
    else:
        p_glob, n_glob = np.full((m, n_all, 2), np.nan), 0
    return MaxTResult(
        z=z_obs, p_adjusted=p_adj, p_two_sided=p_two, p_global=p_glob, n_permutations=B,
        n_hypotheses=(tuple(n_test), n_glob), tests=tests,
        offset=pen[:, 0].copy(), unit=permuter.unit,
    )
