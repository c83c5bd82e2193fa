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

**Keyed permutations** (``permutation="keyed"``, rows as the units). Both schemes permute classes: the rows'
(truth, prediction) pairs (:data:`CLASSES`), and the predictions within each truth. A permutation of classes is
fixed by the class counts and a permutation ``pi_b`` of the row positions (the row at position ``i`` takes the
class whose cumulative range holds ``pi_b(i)``), and a keyed bijection gives ``pi_b(i)`` from ``(seed, b, i)``
alone (:mod:`.keyed_permutation`). So every candidate's permuted counts are sums of its rows' own terms, which a
table split in partitions adds up like the observed counts: :func:`max_t_from_counts` takes the observed class
counts and the permuted counts (:data:`COUNTS`), or a provider of them, and returns what :func:`max_t` with
``permutation="keyed"`` returns on the same rows. It is the same exact permutation test as the classical one,
with other draws. Clustered rows (``groups``) and the continuous outcomes (:mod:`.continuous`) have no keyed
form.

References:
    P. H. Westfall and S. S. Young, "Resampling-Based Multiple Testing", Wiley, 1993 (algorithm 2.8,
    step-down max-T).
    J. P. Romano and M. Wolf, "Exact and approximate stepdown methods for multiple hypothesis testing",
    JASA 100, 2005.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import numpy as np
import scipy.sparse as sp

from ..._maxt import StepDown
from ..._param_tables import SUBGROUP_PARAMS
from ..._progress import tracked
from ..._validation import check_choice
from .cluster_permutation import BinaryZ, ClusterPermutation, binary_columns
from .counters import Counter, DeferredCounts, MemberCounter, PackedColumns, PermutedCounts, as_counter, deferred_count
from .keyed_permutation import derive_seed, permuted_classes, seed_of
from .resampling import Permuter
from .row_permutations import HeldDraws, permuted_columns

__all__ = ["ALL_TESTS", "TESTS", "METRIC_TEST", "BATCH", "WORKERS", "Families", "MaxTResult", "adjust_tests",
           "candidate_offsets", "cluster_max_t", "max_t", "pipelined", "observed_z", "check_n_permutations",
           "permutations_in",
           "MAX_PERMUTATIONS", "scan_penalty", "class_offsets", "draw_permutations", "PERMUTATIONS", "CLASSES",
           "COUNTS", "PermutedCountsProvider", "KeyedScheme", "KeyedCounts", "keyed_positions", "counts_needed",
           "max_t_from_counts"]

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
#: How :func:`max_t` draws its permutations: shuffles from the generator, or keyed bijections of the row positions.
PERMUTATIONS = ("classical", "keyed")
#: The (truth, prediction) class of each code ``2 truth + prediction``: the last axis of observed class counts.
CLASSES = ((0, 0), (0, 1), (1, 0), (1, 1))
#: The permuted counts of a candidate the tests read, the last axis of permuted counts
#: (:func:`max_t_from_counts`): favourable and correct predictions (the pairs permuted jointly), true and false
#: positives (the predictions permuted within the truths).
COUNTS = ("favourable", "true_positive", "false_positive", "correct")
#: Default number of permutations: p-values resolve to 1/201, ten times finer than alpha = 0.05.
DEFAULT_PERMUTATIONS: int = SUBGROUP_PARAMS.default("n_permutations")
_T = TypeVar("_T")
BATCH = 50
#: Batches of permutations counted at the same time (scipy's sparse products release the GIL).
WORKERS = max(1, min(2, os.cpu_count() or 1))
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
        unit: the unit of inference, in words.
        permutation: how the permutations were drawn (:data:`PERMUTATIONS`).
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
    permutation: str = "classical"

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
        fixed = counter.count(np.column_stack([np.ones(len(t)), t]))
        self._setup(fixed[:, 0], fixed[:, 1], float(len(t)), float(t.sum()), float(p.sum()), float((t * p).sum()),
                    float(((1 - t) * p).sum()), float(c.sum()))

    @classmethod
    def from_classes(cls, observed: np.ndarray, totals: np.ndarray) -> _Standardiser:
        """The margins from every candidate's (m, 4) counts of the (truth, prediction) classes
        (:data:`CLASSES`) and the table's (4,) counts."""
        self = cls.__new__(cls)
        n00, n01, n10, n11 = (float(v) for v in totals)
        self._setup(observed.sum(axis=1), observed[:, 2] + observed[:, 3], n00 + n01 + n10 + n11, n10 + n11,
                    n01 + n11, n11, n01, n00 + n11)
        return self

    def _setup(self, n_S: np.ndarray, n1_S: np.ndarray, N: float, N1: float, P: float, T1: float, F0: float,
               C: float) -> None:
        self.size = n_S
        self.n1 = n1_S
        self.N = N
        self.P, self.T1, self.F0, self.C = P, T1, F0, C
        self.N1 = N1
        self.N0 = N - N1
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
        z: list[np.ndarray | None] = []
        for i, cnt in enumerate(counts):
            d = None if cnt is None else e[i] - cnt
            if d is not None:
                d *= inv[i]  # over the difference: the same numbers, one (m, b) array fewer at a time
            z.append(d)
        # a cluster permutation can leave a candidate without truth positives (or negatives): undefined, and it
        # must not be the maximum
        z_eodds = None
        if z[1] is not None and z[2] is not None:
            z_eodds = _eodds(z[1], z[2], np.empty_like(z[1]))
        return [z[0], z[1], z_eodds, z[3], z[2]]

    def z_all(self, counts: list[np.ndarray]) -> list[np.ndarray]:
        """:meth:`z` of all four counts: every test's z."""
        out = [z for z in self.z(counts) if z is not None]
        if len(out) != len(TESTS):
            raise ValueError("z_all needs the four counts")
        return out


def _eodds(z_tpr: np.ndarray, z_fpr: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Equalized odds' z, ``(z_TPR + z_FPR) / sqrt(2)``, written in ``out`` (which may be ``z_tpr``: the same sum
    and quotient, one (m, b) array fewer)."""
    np.add(z_tpr, z_fpr, out=out)
    out /= np.sqrt(2.0)
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


class _StepDown(StepDown):
    """The step-down of one family of :func:`max_t` (:class:`~aif360_subjective._maxt.StepDown`, the package's one
    max-T tail), exact for the :data:`STEP_DOWN_EXACT` most significant hypotheses (read when the family is built)."""

    def __init__(self, observed: np.ndarray):
        super().__init__(observed, head=STEP_DOWN_EXACT)


class Families:
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

    def add(self, blocks: Iterable[np.ndarray]) -> None:
        """``blocks``: the (m, b) permuted statistics, in block order; overwritten (their set-aside rows). Each is
        reduced (its set-aside rows and its maximum over the rest) before the next is read, so an iterator that
        forms them one at a time holds one at a time."""
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


def _check_tests(tests: Any) -> tuple[int, ...]:
    out = ALL_TESTS if tests is None else tuple(sorted(set(int(f) for f in tests)))
    if not out or not set(out) <= set(ALL_TESTS):
        raise ValueError(f"tests must be positions in {TESTS}, got {tests!r}")
    return out


def counts_needed(tests: tuple[int, ...]) -> tuple[bool, bool, bool, bool]:
    """Which of the four permuted counts (:data:`COUNTS`) the ``tests`` use: statistical parity the favourable
    predictions, equal opportunity the true positives, equalized odds the true and false positives, accuracy the
    correct predictions, the false positive rate the false positives."""
    uses = {0: (0,), 1: (1,), 2: (1, 2), 3: (3,), 4: (2,)}
    need = tuple(any(i in uses[f] for f in tests) for i in range(4))
    return need[0], need[1], need[2], need[3]


def candidate_offsets(penalty: bool | np.ndarray, size: np.ndarray, n: int, m: int) -> np.ndarray:
    """(m, 1) the amount subtracted from each candidate's z (see :func:`max_t`'s ``penalty``)."""
    if isinstance(penalty, np.ndarray):
        return np.asarray(penalty, dtype=np.float64).reshape(m, 1)
    return scan_penalty(size, n)[:, None] if penalty else np.zeros((m, 1))


def pipelined(total: int, submit: Callable[[ThreadPoolExecutor, int], Future[_T]]) -> Iterator[_T]:
    """The results of ``submit(pool, b)`` for batches of at most :data:`BATCH` of ``total`` draws, in batch order.

    ``submit`` draws its batch (here, in batch order, from the caller's one generator: the same draws whatever the
    threads do) and hands the work to the pool; the work (sparse products, which release the GIL) runs
    :data:`WORKERS` batches at a time, and the caller takes the results in order.
    """
    in_flight: deque[Future[_T]] = deque()
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        done = 0
        while done < total:
            b = min(BATCH, total - done)
            in_flight.append(submit(pool, b))
            if len(in_flight) >= WORKERS:
                yield in_flight.popleft().result()
            done += b
        while in_flight:
            yield in_flight.popleft().result()


def permutations_in(batch: Sequence[np.ndarray | None] | list[np.ndarray]) -> int:
    """The permutations of a batch (the columns of its (m, b) arrays; None where no test asked for the count;
    a :class:`~.counters.DeferredCounts` says without summing its counts)."""
    if isinstance(batch, DeferredCounts):
        return batch.n_permutations
    return next((a.shape[1] for a in batch if a is not None), 0)


class _ZOfCounts(Protocol):
    """What :func:`adjust_tests` standardises a batch with: :class:`_Standardiser`, or the cluster blocks' tests
    (:mod:`.cluster_permutation`)."""

    def z(self, counts: list[np.ndarray | None], n1: np.ndarray | None = None) -> list[np.ndarray | None]: ...


def adjust_tests(std: _ZOfCounts, z_obs: np.ndarray, pen: np.ndarray, tests: tuple[int, ...], B: int,
            batches: Iterable[Sequence[np.ndarray | None]], by_clusters: bool = False, unit: str = "rows",
            permutation: str = "classical") -> MaxTResult:
    """The step-down families of :func:`max_t` fed with the permuted counts of every batch (each the list of
    :data:`COUNTS` as (m, b) arrays, None where no test uses it, and with ``by_clusters`` a fifth: the
    candidates' permuted truth-positive rows), and the adjusted p-values."""
    m = len(z_obs)
    s_obs = z_obs - pen[:, [0]]
    s_fav = -z_obs - pen[:, [0]]
    # families: per (test, direction) (one ranking), per test (both directions), global (everything)
    n_all = len(ALL_TESTS)
    blocks = [s for f in tests for s in (s_obs[:, f], s_fav[:, f])]
    members_of = [[j] for j in range(len(blocks))] + [[2 * i, 2 * i + 1] for i in range(len(tests))]
    if len(tests) == n_all:
        members_of.append(list(range(2 * n_all)))
    fams = Families(blocks, members_of)
    for counts in tracked(batches, "max-T permutations", B, "permutations", permutations_in):
        fams.add(_statistics(std, counts, tests, pen, by_clusters))
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
        offset=pen[:, 0].copy(), unit=unit, permutation=permutation,
    )


#: The permuted counts (:data:`COUNTS`) each test's z reads.
_COUNTS_OF = ((0,), (1,), (1, 2), (3,), (2,))


def _statistics(std: _ZOfCounts, counts: Sequence[np.ndarray | None], tests: tuple[int, ...], pen: np.ndarray,
                by_clusters: bool) -> Iterator[np.ndarray]:
    """The (m, b) statistics of one batch, in :func:`adjust_tests`' block order (per asked test, ``z - pen`` then
    ``-z - pen``), formed one test at a time: :meth:`Families.add` reduces each block before the next is made, so
    a batch holds its counts and one test's blocks, not every test's z and statistics at once (the same
    arithmetic on the same numbers: the same statistics)."""
    n1 = counts[4] if by_clusters else None
    every = std.z(list(counts[:4]), n1) if n1 is not None else None  # margins permuted too: once per batch
    for at, f in enumerate(tests):
        if every is not None:
            z = every[f]
        elif f == 2 and counts[1] is not None and counts[2] is not None:
            # equalized odds: its two rates' z one at a time, summed into the first (the same numbers)
            z_tpr, z_fpr = std.z([None, counts[1], None, None])[1], std.z([None, None, counts[2], None])[4]
            assert z_tpr is not None and z_fpr is not None
            z = _eodds(z_tpr, z_fpr, out=z_tpr)
            del z_fpr
        else:
            z = std.z([counts[i] if i in _COUNTS_OF[f] else None for i in range(4)])[f]
        if isinstance(counts, DeferredCounts):  # the counts no later test reads are let go (all after the last)
            counts.forget(i for g in tests[at + 1:] for i in _COUNTS_OF[g])
        if z is None:  # a test whose counts were not made
            continue
        if by_clusters:  # a candidate a permutation leaves without a margin has no statistic there
            for st in (z - pen, -z - pen):
                st[np.isnan(st)] = -np.inf
                yield st
            continue
        yield z - pen
        # the favoured direction's statistics over this test's own z (formed for it alone): the same numbers as
        # -z - pen, two (m, b) arrays fewer than forming both directions at once
        z = np.negative(z, out=z)
        z -= pen
        yield z


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
    permutation: str = "classical",
    draws: HeldDraws | None = None,
) -> MaxTResult:
    """Step-down max-T adjusted p-values of every candidate subgroup, per test and globally.

    Args:
        members: (rows, m) boolean sparse (or dense) membership, one column per candidate, or a
            :class:`Counter` of the m candidates (the reports count mined patterns through their cells).
        t: truth, 1 = favourable (0/1 array).
        p: prediction, 1 = favourable (0/1 array).
        n_permutations: B (>= 19).
        random_state: numpy Generator or int seed (the permutations). With ``permutation="keyed"`` an int is the
            key itself (:func:`~.keyed_permutation.seed_of`), so a Dask computation given the same int draws the
            same permutations.
        penalty: what is subtracted from each candidate's z before maximising: ``True`` the size penalty
            ``sqrt(2 ln(N / n_S))`` (:func:`scan_penalty`; in clusters, ``G / g_S``, when whole blocks of unequal
            sizes are permuted: :mod:`.cluster_permutation`), ``False`` nothing, or an (m,) array of offsets
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
        permutation: ``"classical"`` (shuffles drawn from the generator) or ``"keyed"`` (the same two schemes,
            each permutation a keyed bijection of the row positions, :class:`KeyedCounts`: what a table split in
            partitions computes without moving rows, :func:`max_t_from_counts`). Both are exact permutation
            tests; their p-values differ as two seeds' do. ``"keyed"`` takes rows as the units (no ``groups``).
        draws: with an int ``random_state``, rows as the units and ``"classical"``: the permuted columns of a
            run of some tests held for a later run of every test with the same seed (:class:`~.row_permutations.
            HeldDraws`; a report's ranking, then its findings): the later run reads them instead of drawing
            them again (the same permutations, the same p-values), and lets them go. None: nothing held.

    Returns:
        MaxTResult

    Raises:
        ValueError: ``permutation="keyed"`` with ``groups``, or truths or predictions other than 0/1; an unknown
            ``permutation``.

    References:
        P. H. Westfall and S. S. Young, "Resampling-Based Multiple Testing", 1993.
    """
    B = check_n_permutations(n_permutations)
    check_choice(permutation, "permutation", PERMUTATIONS)
    counter = as_counter(members)  # one 16-bit copy of the memberships (or the cells) for every count below
    n, m = counter.shape
    t = np.asarray(t, dtype=np.float64)
    p = np.asarray(p, dtype=np.float64)
    tests = _check_tests(tests)
    if permutation == "keyed":
        if groups is not None:
            raise ValueError("permutation='keyed' takes rows as the units: with groups= (clustered rows) use "
                             "permutation='classical'")
        keyed = KeyedCounts(counter, t, p, seed_of(random_state), order=order)
        return max_t_from_counts(keyed.observed(), keyed.totals, keyed, B, penalty, tests, workers=WORKERS)
    rng = np.random.default_rng(random_state)
    permuter = Permuter(n, order, groups, design)
    if permuter.blocks_of_any_size:  # clusters of unequal sizes: whole outcome blocks permuted among clusters
        assert groups is not None
        return cluster_max_t(counter, t, p, groups, B, rng, penalty, tests, permuter.unit)
    c = (t == p).astype(np.float64)
    std = _Standardiser(counter, t, p)
    z_obs = _observed(counter, std, t, p)
    pen = candidate_offsets(penalty, std.size, n, m)
    need = counts_needed(tests)
    by_clusters = groups is not None and design == "between"
    strata = None
    if groups is not None and design == "within":
        # the conditional tests permute predictions within cluster x truth
        strata = Permuter(n, order, np.asarray(groups, dtype=np.int64) * 2 + (t == 1), "within")
    pos, neg = np.flatnonzero(t == 1), np.flatnonzero(t != 1)
    permuted = PermutedCounts(counter, t)
    # the draws are those of the seed, the rows' order and B (a report's t and p are its own)
    key = (random_state, n, B, BATCH, None if order is None else id(order))
    rows_drawn = _rows_drawn(permuter, rng, t, p, need, B, key, draws if groups is None else None)

    def submit(pool: ThreadPoolExecutor, b: int) -> Future[Sequence[np.ndarray | None]]:
        if groups is None:  # rows as the units: the same draws, straight into the 0/1 block the counter reads
            Y, layout = rows_drawn(b)
            return pool.submit(_counted, counter, Y, b, layout)
        idx = permuter.draw(rng, b)
        if by_clusters:  # truth and prediction move together with their cluster
            return pool.submit(permuted.counts, p[idx], c[idx], p[idx], need, t[idx])
        p_b = p[strata.draw(rng, b)] if strata is not None else permuter.draw_within(rng, [pos, neg], p, b)
        return pool.submit(permuted.counts, p[idx], c[idx], p_b, need)

    return adjust_tests(std, z_obs, pen, tests, B, pipelined(B, submit), by_clusters, permuter.unit)


#: What a held batch is replaced by once the run of every test has taken it (its block then freed when counted).
_SPENT = PackedColumns(np.zeros((0, 0), dtype=np.uint8), 0)


def _rows_drawn(permuter: Permuter, rng: np.random.Generator, t: np.ndarray, p: np.ndarray,
               need: tuple[bool, bool, bool, bool], B: int, key: tuple[Any, ...],
               draws: HeldDraws | None) -> Callable[[int], tuple[PackedColumns, tuple[bool, ...]]]:
    """The packed block of each batch of rows as the units, in batch order, and which counts it holds (each a
    block of ``b`` columns): drawn by :func:`~.row_permutations.permuted_columns`, or read from ``draws`` when
    they hold the same ``key``'s (an int seed first; see :func:`max_t`'s ``draws``). A run of some tests with
    ``draws`` draws every count and holds the blocks; the run of every test reads them and lets them go."""
    every = (True, True, True, True)
    n_batches = -(-B // BATCH)
    if draws is None or not isinstance(key[0], int | np.integer) or not draws.fits(permuter.n, B):
        return lambda b: (permuted_columns(permuter, rng, b, t, p, need), need)
    held = draws.held(key, n_batches)
    if held is not None and need == every:
        draws.forget()  # taken by the run of every test, the last to read them (an interrupted run draws anew)
    batches = iter(range(n_batches))

    def drawn(b: int) -> tuple[PackedColumns, tuple[bool, ...]]:
        i = next(batches)
        if held is not None:
            block = held[i]
            if need == every:  # the run of every test is the last to read them: each let go once counted
                held[i] = _SPENT
        else:
            block = permuted_columns(permuter, rng, b, t, p, every)
            if need != every:
                draws.hold(key, block)
        return (block, every) if need == every else HeldDraws.prefix(block, b, need)
    return drawn


def _counted(counter: Counter, Y: PackedColumns, b: int, need: tuple[bool, ...]) -> DeferredCounts:
    """The four permuted counts (:data:`COUNTS`, None where not needed) from the packed block of
    :func:`~.row_permutations.permuted_columns`: the pass over the rows here (a worker's), each count's
    candidates summed when :func:`_statistics` first reads it (:class:`~.counters.DeferredCounts`)."""
    # the package's counters read packed columns a block of rows at a time; any other counter reads np.asarray
    # of them (the whole boolean block): the same counts either way
    return DeferredCounts(deferred_count(counter, Y), b, need)


class PermutedCountsProvider(Protocol):
    """Anything that gives the permuted counts of every candidate for a range of permutations:
    ``provider(b_start, b_stop, need)`` -> (m, b_stop - b_start, 4) float64 counts (:data:`COUNTS`; the
    columns ``need`` marks False may hold anything, e.g. NaN). :class:`KeyedCounts` counts rows in memory;
    :func:`~.dask_counts.permuted_counts` counts the partitions of a Dask DataFrame."""

    def __call__(self, b_start: int, b_stop: int, need: tuple[bool, bool, bool, bool]) -> np.ndarray: ...


def _class_codes(t: np.ndarray, p: np.ndarray) -> np.ndarray:
    """(rows,) the (truth, prediction) class of each row, ``2 t + p`` (:data:`CLASSES`).

    Raises:
        ValueError: a truth or prediction other than 0 and 1.
    """
    for name, v in (("t", t), ("p", p)):
        bad = ~((v == 0) | (v == 1))
        if bad.any():
            raise ValueError(f"{name} must hold 0/1 values for the keyed permutations (a class per row), got "
                             f"{v[np.flatnonzero(bad)[0]].item()!r} at row {int(np.flatnonzero(bad)[0])}")
    out: np.ndarray = (2 * t + p).astype(np.int64)
    return out


def keyed_positions(t: np.ndarray, order: np.ndarray | None = None, start: int = 0,
                    stratum_start: tuple[int, int] = (0, 0)) -> tuple[np.ndarray, np.ndarray]:
    """The rows' positions the keyed permutations are evaluated at: ``(position, within)``, each (rows,) int64.

    ``position`` is the row's place among all rows, ``within`` its place among the rows of its truth (the
    stratum the predictions are permuted in). The places run in ``order`` (the canonical order; None: the rows'
    own order), from ``start`` and ``stratum_start[truth]``: a partition of a larger table passes the rows
    before it (all of them, and those of each truth).
    """
    t = np.asarray(t)
    n = len(t)
    seq = np.arange(n) if order is None else np.asarray(order, dtype=np.intp)
    position = np.empty(n, dtype=np.int64)
    position[seq] = start + np.arange(n, dtype=np.int64)
    within = np.empty(n, dtype=np.int64)
    for s in (0, 1):
        rows = seq[t[seq] == s]
        within[rows] = stratum_start[s] + np.arange(len(rows), dtype=np.int64)
    return position, within


@dataclass(frozen=True)
class KeyedScheme:
    """The two permutation schemes of :func:`max_t`, as keyed permutations of row positions.

    * **joint** (statistical parity, accuracy): the rows' (truth, prediction) classes (:data:`CLASSES`) are
      permuted over all rows: row ``i`` takes the class whose cumulative range holds ``pi_b(i)``
      (:func:`~.keyed_permutation.permuted_classes` with the table's class counts ``totals``; stream
      ``derive_seed(seed, 0)``);
    * **within the truths** (equal opportunity, equalized odds, false positive rate): the predictions are
      permuted among the rows of each truth ``s``, at their places within it (stream ``derive_seed(seed, 1 +
      s)``, counts ``(n_s0, n_s1)``).

    A row's permuted classes depend on the seed, the counts and its positions only: a partition computes its own.

    Attributes:
        seed: the key (an int in [0, 2**64)).
        totals: (4,) the table's counts of the (truth, prediction) classes.
    """

    seed: int
    totals: np.ndarray

    def columns(self, b_start: int, b_stop: int, t: np.ndarray, position: np.ndarray, within: np.ndarray,
                need: tuple[bool, bool, bool, bool] = (True, True, True, True)) -> np.ndarray:
        """(rows, k b) 0/1 uint8: for each needed count (:data:`COUNTS`, in order; k of them) the (rows, b)
        block of the rows it counts under permutations ``b_start`` to ``b_stop - 1``."""
        b = b_stop - b_start
        t = np.asarray(t) == 1
        blocks: list[np.ndarray | None] = [None] * 4
        if need[0] or need[3]:
            joint = permuted_classes(derive_seed(self.seed, 0), b_start, b_stop, position, self.totals)
            blocks[0] = joint & 1  # classes (0, 1) and (1, 1): a favourable prediction
            blocks[3] = ((joint == 0) | (joint == 3)).view(np.uint8)  # truth = prediction
        if need[1] or need[2]:
            fav = np.zeros((len(t), b), dtype=np.uint8)
            for s in (0, 1):
                rows = np.flatnonzero(t == s)
                n_s = self.totals[2 * s:2 * s + 2]
                if len(rows) and n_s.sum():
                    fav[rows] = permuted_classes(derive_seed(self.seed, 1 + s), b_start, b_stop, within[rows], n_s)
            # a prediction permuted within the truths: a true positive on truth-positive rows, else a false one
            blocks[1] = fav * t[:, None]
            blocks[2] = fav * ~t[:, None]
        chosen = [blocks[i] for i in range(4) if need[i]]
        return np.hstack([blk for blk in chosen if blk is not None]) if chosen else np.zeros((len(t), 0), np.uint8)

    @staticmethod
    def assemble(counts: np.ndarray, b: int, need: tuple[bool, bool, bool, bool]) -> np.ndarray:
        """(m, b, 4) permuted counts from the (m, k b) counts of :meth:`columns`' blocks (NaN where not needed)."""
        out = np.full((counts.shape[0], b, 4), np.nan)
        for j, i in enumerate(i for i in range(4) if need[i]):
            out[:, :, i] = counts[:, j * b:(j + 1) * b]
        return out


class KeyedCounts:
    """The keyed permuted counts of every candidate, counted in memory (a :class:`PermutedCountsProvider`).

    Args:
        counter: the candidates (a :class:`Counter`, or their (rows, m) membership).
        t, p: truth and prediction (0/1).
        seed: the key (an int in [0, 2**64)).
        order: the canonical order of the rows (None: positions ``0`` to ``N - 1`` as given; what a Dask
            computation of the same rows uses).

    Raises:
        ValueError: truths or predictions other than 0/1.
    """

    def __init__(self, counter: Counter | sp.spmatrix, t: np.ndarray, p: np.ndarray, seed: int,
                 order: np.ndarray | None = None):
        self.counter = as_counter(counter)
        t, p = np.asarray(t, dtype=np.float64), np.asarray(p, dtype=np.float64)
        if len(t) != self.counter.shape[0] or len(p) != len(t):
            raise ValueError(f"t and p must have one value per row ({self.counter.shape[0]}), got {len(t)} and "
                             f"{len(p)}")
        self.classes = _class_codes(t, p)
        self.totals = np.bincount(self.classes, minlength=4).astype(np.int64)
        self.t = t
        self.scheme = KeyedScheme(seed, self.totals)
        self.position, self.within = keyed_positions(t, order)

    def observed(self) -> np.ndarray:
        """(m, 4) every candidate's counts of the (truth, prediction) classes (:data:`CLASSES`)."""
        onehot = (self.classes[:, None] == np.arange(4)[None, :]).astype(np.uint8)
        return self.counter.count(onehot)

    def __call__(self, b_start: int, b_stop: int,
                 need: tuple[bool, bool, bool, bool] = (True, True, True, True)) -> np.ndarray:
        """(m, b_stop - b_start, 4) permuted counts (:data:`COUNTS`; NaN where ``need`` is False)."""
        Y = self.scheme.columns(b_start, b_stop, self.t, self.position, self.within, need)
        return KeyedScheme.assemble(self.counter.count(Y), b_stop - b_start, need)


def _check_counts(x: Any, name: str, shape: tuple[int | None, ...]) -> np.ndarray:
    a = np.asarray(x, dtype=np.float64)
    if a.ndim != len(shape) or any(s is not None and s != d for s, d in zip(shape, a.shape, strict=True)):
        want = " x ".join("any" if s is None else str(s) for s in shape)
        raise ValueError(f"{name} must have shape ({want}), got {a.shape}")
    return a


def max_t_from_counts(
    observed: np.ndarray,
    totals: np.ndarray,
    permuted: np.ndarray | PermutedCountsProvider,
    n_permutations: int | None = None,
    penalty: bool | np.ndarray = True,
    tests: tuple[int, ...] | None = None,
    *,
    workers: int = 1,
) -> MaxTResult:
    """:func:`max_t` from counts: the observed class counts of every candidate and its counts under each permutation.

    The max-T of the rows (no clusters) reads the rows only through counts: per candidate, its rows of each
    (truth, prediction) class, and under permutation ``b`` its favourable predictions and correct predictions
    (the pairs permuted jointly) and its true and false positives (the predictions permuted within the truths).
    Whoever counts them (a Dask computation summing its partitions, :func:`~.dask_counts.permuted_counts`) gets the
    same result as :func:`max_t` with ``permutation="keyed"`` on the same rows, to rounding.

    Args:
        observed: (m, 4) counts of every candidate's rows in each class of :data:`CLASSES`.
        totals: (4,) the table's rows in each class.
        permuted: (m, B, 4) permuted counts (:data:`COUNTS`), or a :class:`PermutedCountsProvider` called for
            batches of permutations in order.
        n_permutations: B (default: ``permuted.shape[1]``; needed with a provider).
        penalty: as :func:`max_t` (``True``: the size penalty of each candidate's rows).
        tests: as :func:`max_t`.
        workers: batches a provider computes at a time (threads; 1: one after the other).

    Returns:
        MaxTResult: as :func:`max_t`'s (``unit="rows"``).

    Raises:
        ValueError: shapes that do not fit, negative counts, a candidate with more rows of a class than the
            table, a provider's batch of the wrong shape, ``n_permutations`` missing with a provider or not
            ``permuted.shape[1]``.
    """
    obs = _check_counts(observed, "observed", (None, 4))
    tot = _check_counts(totals, "totals", (4,))
    m = len(obs)
    if (obs < 0).any() or (tot < 0).any():
        raise ValueError("observed and totals must be non-negative counts")
    over = obs > tot[None, :] + 1e-9
    if over.any():
        i, c = np.argwhere(over)[0]
        raise ValueError(f"observed counts exceed the table's: candidate {int(i)} has {obs[i, c]:g} rows of class "
                         f"{CLASSES[c]} (truth, prediction), the table {tot[c]:g}")
    array = None if callable(permuted) else _check_counts(permuted, "permuted", (m, None, 4))
    if array is not None:
        if n_permutations is not None and n_permutations != array.shape[1]:
            raise ValueError(f"n_permutations ({n_permutations}) must be permuted.shape[1] ({array.shape[1]})")
        n_permutations = array.shape[1]
    if n_permutations is None:
        raise ValueError("n_permutations is needed with a provider of permuted counts")
    B = check_n_permutations(n_permutations)
    tests = _check_tests(tests)
    need = counts_needed(tests)
    std = _Standardiser.from_classes(obs, tot)
    z_obs = _observed_from_classes(std, obs)
    pen = candidate_offsets(penalty, std.size, int(round(tot.sum())), m)

    def batch(b0: int, b1: int) -> list[np.ndarray | None]:
        arr = array[:, b0:b1] if array is not None else _check_counts(
            permuted(b0, b1, need), f"the provider's batch ({b0}, {b1})", (m, b1 - b0, 4))  # type: ignore[operator]
        return [np.ascontiguousarray(arr[:, :, i]) if need[i] else None for i in range(4)]

    def batches() -> Iterator[list[np.ndarray | None]]:
        bounds = [(b0, min(B, b0 + BATCH)) for b0 in range(0, B, BATCH)]
        if workers <= 1 or array is not None:
            yield from (batch(b0, b1) for b0, b1 in bounds)
            return
        in_flight: deque[Future[list[np.ndarray | None]]] = deque()
        with ThreadPoolExecutor(max_workers=workers) as pool:
            for b0, b1 in bounds:
                in_flight.append(pool.submit(batch, b0, b1))
                if len(in_flight) >= workers:
                    yield in_flight.popleft().result()
            while in_flight:
                yield in_flight.popleft().result()

    return adjust_tests(std, z_obs, pen, tests, B, batches(), unit="rows", permutation="keyed")


def _observed_from_classes(std: _Standardiser, observed: np.ndarray) -> np.ndarray:
    """(m, 5) observed z per test from every candidate's class counts (:data:`CLASSES`)."""
    n00, n01, n10, n11 = (observed[:, [j]] for j in range(4))
    del n10
    return np.column_stack([z[:, 0] for z in std.z_all([n01 + n11, n11, n01, n00 + n11])])


def cluster_max_t(counter: Counter, t: np.ndarray, p: np.ndarray, groups: np.ndarray, n_permutations: int,
               random_state: np.random.Generator | int | None, penalty: bool | np.ndarray,
               tests: tuple[int, ...], unit: str) -> MaxTResult:
    """:func:`~.maxt.max_t` of binary decisions, whole outcome blocks permuted among clusters of unequal sizes.

    Args:
        counter, t, p: as :func:`~.maxt.max_t`.
        groups: (rows,) dense cluster codes.
        n_permutations: B, the permutations (validated by the caller).
        random_state: the draws' generator or seed.
        penalty: as :func:`~.maxt.max_t`.
        tests: the tests adjusted (validated).
        unit: the unit of inference, in words.

    Returns:
        MaxTResult: as :func:`~.maxt.max_t`'s.
    """
    rng = np.random.default_rng(random_state)
    counter = as_counter(counter)
    n, m = counter.shape
    cols, at = binary_columns(t, p, counts_needed(tests))
    flips = ClusterPermutation(counter, groups, cols)
    obs = flips.observed()
    full: list[np.ndarray | None] = [None] * 4
    for j, i in enumerate(at):
        full[i] = obs[:, [j]]
    zs = BinaryZ().z(full)
    z_obs = np.column_stack([np.full(m, np.nan) if z is None else z[:, 0] for z in zs])
    pen = candidate_offsets(penalty, flips.clusters, flips.n_clusters, m)  # the size penalty counts clusters

    def batch(signs: np.ndarray) -> list[np.ndarray | None]:
        stats = flips.statistics(signs)
        out: list[np.ndarray | None] = [None] * 5
        for j, i in enumerate(at):
            out[i] = stats[j]
        return out

    batches = pipelined(n_permutations, lambda pool, b: pool.submit(batch, flips.draw(rng, b)))
    # by_clusters: an undefined statistic is never a draw's maximum (the fifth entry, the margins, is not used)
    return adjust_tests(BinaryZ(), z_obs, pen, tests, n_permutations, batches, True, unit)
