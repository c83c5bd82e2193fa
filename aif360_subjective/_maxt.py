"""The max-T tail: from draws of the null statistics to critical values and adjusted p-values.

Every resampling test of the package ends the same way: it has an observed statistic per hypothesis (a candidate
group, a direction, a test) and, for each of ``B`` draws of the null (keyed permutations of rows, permutations of
annotators, wild-bootstrap signs, or every arrangement enumerated), the hypotheses' statistics under that draw or only
their maximum. Who draws, and what the statistic is, stays with each engine; this module holds what follows, once:

* **one tie rule**: a draw is at least as extreme as an observed value ``s`` when it is ``>= s - tie(s)``,
  ``tie(s) = TIE * max(1, |s|)`` (:func:`tie_tolerance`). The same statistic summed in another order (a permuted
  arrangement that is the observed one again, two candidates holding the same annotators) differs in its last bits;
  the rounding of a sum grows with its magnitude, so the tolerance is relative (an absolute ``1e-9`` is below the
  rounding of a sum of squares near ``1e8``) and never below ``TIE`` (a statistic near 0 still has the rounding of
  its larger terms). NaN draws (a statistic undefined under that draw) never count as extreme; they still count as
  draws;
* **one "+1" rule** (:func:`p_from_counts`): with every arrangement enumerated (the observed one among them)
  ``p = #{draws >= s} / B``; with ``B`` Monte Carlo draws the observed arrangement counts as one more
  ``p = (1 + #{draws >= s}) / (B + 1)``, never 0, and exact under exchangeability (Phipson and Smyth 2010);
* **single step** (:func:`tail_p` of the maxima) and **step-down** (:class:`StepDown`): Westfall and Young's free
  step-down, the hypotheses sorted by decreasing observed statistic, ``p_(i) = max_{j <= i} P(max_{l >= j} S*_(l)
  >= s_(j))`` with each probability counted with the rules above (successive maxima over the hypotheses not yet
  rejected); it rejects at least what the single step rejects and holds the family-wise error in the strong sense
  under subset pivotality (Westfall and Young 1993; Romano and Wolf 2005);
* **the critical value** (:func:`critical_value`) of a null of maxima at a level ``alpha``;
* **balanced offsets** (:func:`balanced_offsets`) for classes of candidates: each class's statistic is offset by the
  median of the class's largest statistic, the median taken over the draws and, Monte Carlo, the observed
  arrangement too (:func:`class_tail`, Beran 1988).

References:
    Westfall, P. H., Young, S. S. (1993). Resampling-Based Multiple Testing. Wiley (algorithm 2.8, the free
    step-down max-T).
    Romano, J. P., Wolf, M. (2005). Exact and approximate stepdown methods for multiple hypothesis testing. JASA
    100(469), 94-108.
    Phipson, B., Smyth, G. K. (2010). Permutation p-values should never be zero: calculating exact p-values when
    permutations are randomly drawn. Stat. Appl. Genet. Mol. Biol. 9(1), Article 39 (the "+1").
    Beran, R. (1988). Balanced simultaneous confidence sets. JASA 83(403), 679-686 (the class offsets).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np

__all__ = ["TIE", "STEP_DOWN_HEAD", "ClassNull", "StepDown", "Tail", "balanced_offsets", "class_tail",
           "count_at_least", "critical_value", "p_from_counts", "step_down", "tail_p", "tie_tolerance"]

#: Relative tolerance of a tie (see :func:`tie_tolerance`).
TIE: Final[float] = 1e-9
#: Hypotheses per family whose step-down p-value is computed exactly by default (see :class:`StepDown`).
STEP_DOWN_HEAD: Final[int] = 512


def tie_tolerance(values: float | np.ndarray) -> np.ndarray:
    """How far below an observed value a draw still ties with it: ``TIE * max(1, |s|)`` (0 for an infinite ``s``).

    Relative, because the rounding of a statistic summed in another order grows with its magnitude; never below
    ``TIE``, because a statistic near 0 still carries the rounding of its larger terms.

    Args:
        values: observed statistics.

    Returns:
        numpy.ndarray: the tolerance of each (same shape; 0 where the value is not finite).
    """
    v = np.asarray(values, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        out: np.ndarray = np.where(np.isfinite(v), TIE * np.maximum(1.0, np.abs(v)), 0.0)
    return out


def p_from_counts(count: int | np.ndarray, n_draws: int, exact: bool) -> np.ndarray:
    """The "+1" rule: ``count / B`` when every arrangement was enumerated (the observed one among them), else
    ``(1 + count) / (B + 1)`` (the observed arrangement counts as one of the B + 1 alike).

    Args:
        count: draws at least as extreme as the observed value.
        n_draws: ``B``.
        exact: whether the draws are every arrangement.

    Returns:
        numpy.ndarray: the p-values.
    """
    off = 0 if exact else 1
    return np.asarray((off + np.asarray(count, dtype=np.float64)) / (off + n_draws), dtype=np.float64)


def count_at_least(null: np.ndarray, observed: float | np.ndarray) -> np.ndarray:
    """``#{draws >= s - tie(s)}`` for each observed ``s`` (NaN draws never count; a NaN ``s`` counts none).

    Args:
        null: (B,) the null statistic of each draw.
        observed: observed statistics.

    Returns:
        numpy.ndarray: int64 counts, the shape of ``observed``.
    """
    null = np.asarray(null, dtype=np.float64).ravel()
    ref = np.sort(null[~np.isnan(null)])
    obs = np.asarray(observed, dtype=np.float64)
    out: np.ndarray = len(ref) - np.searchsorted(ref, obs - tie_tolerance(obs), side="left")
    return out.astype(np.int64)


def tail_p(observed: float | np.ndarray, null: np.ndarray, exact: bool) -> np.ndarray:
    """Tail p-values of observed statistics against one null (a single test, or a single-step max-T against the
    draws' maxima): :func:`count_at_least` through :func:`p_from_counts`.

    Args:
        observed: observed statistics.
        null: (B,) the null statistic (or maximum) of each draw.
        exact: whether the draws are every arrangement (the observed one among them).

    Returns:
        numpy.ndarray: (n,) p-values (at least 1-d); NaN where the observed value is NaN, or every one when there
        is no draw.
    """
    obs = np.atleast_1d(np.asarray(observed, dtype=np.float64))
    null = np.asarray(null, dtype=np.float64).ravel()
    if not len(null):
        return np.full(len(obs), np.nan)
    p = p_from_counts(count_at_least(null, obs), len(null), exact)
    return np.where(np.isnan(obs), np.nan, p)


def critical_value(null: np.ndarray, alpha: float, exact: bool) -> float:
    """The critical value of a null of maxima at level ``alpha``: the ``(k + 1)``-th largest draw of the reference,
    ``k = floor(alpha (B + off))`` the draws allowed at or above a rejected value (the reference holds the observed
    arrangement as ``+inf`` when Monte Carlo, ``off = 1``).

    A statistic ``s`` has ``p <= alpha`` (:func:`tail_p`) exactly when it exceeds ``c`` by more than a tie,
    ``s - tie(s) > c``; ``c + tie(c)`` is the value to exceed (up to rounding).

    Args:
        null: (B,) the draws' maxima (NaN draws count as draws, never as extreme).
        alpha: the level.
        exact: whether the draws are every arrangement.

    Returns:
        float: ``c``; +inf when no value can reach ``alpha``, -inf when every one does.
    """
    null = np.asarray(null, dtype=np.float64).ravel()
    ref = np.sort(null[~np.isnan(null)])[::-1]
    off = 0 if exact else 1
    j = int(np.floor(alpha * (off + len(null)) + 1e-9)) - off  # 1e-9: alpha (B + off) an integer up to rounding
    if j < 0 or not len(ref):
        return float("inf")
    if j >= len(ref):
        return float("-inf")
    return float(ref[j])


def balanced_offsets(class_max: np.ndarray, observed_class_max: np.ndarray, exact: bool,
                     balanced: bool = True) -> np.ndarray:
    """Each class's offset: the median over the draws of the class's largest statistic (Beran's balance).

    Monte Carlo, the median is taken over the B draws *and the observed arrangement* (``observed_class_max``): the
    offset statistic is then the same function of the B + 1 arrangements whichever of them is the observed one, so
    under exchangeability the observed one's rank is uniform and the test exact. Enumerated, the observed
    arrangement is among the draws already. A median that is not finite (a class without a statistic in most
    draws) gives 0.

    Args:
        class_max: (B, C) the largest statistic of each class under each draw (-inf: none).
        observed_class_max: (C,) each class's largest observed statistic.
        exact: whether the draws are every arrangement.
        balanced: False: every offset 0 (the plain max-T, one class).

    Returns:
        numpy.ndarray: (C,) offsets.
    """
    class_max = np.asarray(class_max, dtype=np.float64)
    pool = class_max if exact else np.vstack([class_max, np.asarray(observed_class_max, np.float64)[None, :]])
    centre = np.median(pool, axis=0)
    centre = np.where(np.isfinite(centre), centre, 0.0)
    if not balanced:
        centre = np.zeros_like(centre)
    return np.asarray(centre, dtype=np.float64)


def _successive_counts(bar: np.ndarray, head: np.ndarray, rest: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One batch of the step-down: ``head`` (b, h) the null statistics of the h most significant hypotheses, in
    decreasing order of their observed ones, ``rest`` (b,) the maximum over every other hypothesis, ``bar`` (h,) the
    observed values less their ties. Returns the (h,) draws whose successive maximum ``max_{l >= j} S*_l`` reaches
    ``bar[j]``, and the (b,) maxima over the whole family."""
    v = np.column_stack([head, rest])
    succ = np.maximum.accumulate(v[:, ::-1], axis=1)[:, ::-1]
    h = len(bar)
    return np.sum(succ[:, :h] >= bar[None, :], axis=0), succ[:, 0]


class StepDown:
    """The free step-down max-T of one family, accumulated over batches of draws.

    The hypotheses with a non-finite observed statistic are not part of the family (their p-value is NaN).
    The successive maxima are exact for the ``head`` most significant hypotheses; every later one gets the
    single-step p-value (from the maxima over the whole family), raised to the last exact one. The single-step
    value is never below the step-down value, so the tail stays valid (conservative) while a batch costs two passes
    over the family instead of a sort-ordered cumulative maximum of all of it; the hypotheses near ``alpha`` are
    among the first few hundred.

    Args:
        observed: (m,) observed statistics (larger = more extreme).
        head: hypotheses with exact step-down p-values (default :data:`STEP_DOWN_HEAD`).

    Attributes:
        order: the family's hypotheses, most significant first.
        head: the first ``head`` of them.
        tail: (m,) mask of the family's hypotheses after the head.
    """

    def __init__(self, observed: np.ndarray, head: int = STEP_DOWN_HEAD):
        observed = np.asarray(observed, dtype=np.float64)
        index = np.flatnonzero(np.isfinite(observed))  # not kept: the order holds the same hypotheses
        self.order = index[np.argsort(-observed[index], kind="stable")]
        self.sorted_obs = observed[self.order]
        self.head = self.order[:head]
        self.tail = np.zeros(len(observed), dtype=bool)
        self.tail[self.order[head:]] = True
        self._bar = self.sorted_obs[:len(self.head)] - tie_tolerance(self.sorted_obs[:len(self.head)])
        #: the head's counts, summed batch by batch (the rest's are counted from the maxima at the end: a count
        #: per hypothesis of the family was held through every batch before, 5 MB per 670,000 hypotheses)
        self.count = np.zeros(len(self.head), dtype=np.int64)
        self.maxima: list[np.ndarray] = []
        self.size = len(observed)

    def add(self, null: np.ndarray) -> None:
        """One batch: ``null`` (b, m) the hypotheses' statistics under b draws (the family's must not be NaN)."""
        if len(self.order) == 0:
            return
        rest = null[:, self.tail].max(axis=1) if len(self.head) < len(self.order) else np.full(len(null), -np.inf)
        self.add_parts(null[:, self.head], rest)

    def add_parts(self, head: np.ndarray, rest: np.ndarray) -> None:
        """One batch given the head hypotheses' statistics ``head`` (b, len(head), in the order of :attr:`head`) and
        the maximum over the rest of the family ``rest`` (b,)."""
        if len(self.order) == 0:
            return
        count, maxima = _successive_counts(self._bar, head, rest)
        self.count += count
        self.maxima.append(maxima)

    def adjusted(self, n_draws: int, exact: bool = False) -> np.ndarray:
        """(m,) adjusted p-values after ``n_draws`` draws (NaN outside the family)."""
        out = np.full(self.size, np.nan)
        if len(self.order) == 0:
            return out
        h = len(self.head)
        count = np.zeros(len(self.order), dtype=np.int64)
        count[:h] = self.count
        if h < len(self.order):  # single step: draws whose family maximum reaches the observed statistic
            count[h:] = count_at_least(np.concatenate(self.maxima), self.sorted_obs[h:])
        out[self.order] = np.maximum.accumulate(p_from_counts(count, n_draws, exact))  # monotone in the order
        return out


def step_down(observed: np.ndarray, null: np.ndarray, exact: bool) -> np.ndarray:
    """Free step-down adjusted p-values of every hypothesis from the full (B, m) null (every hypothesis exact).

    Args:
        observed: (m,) observed statistics (non-finite: not part of the family, p NaN).
        null: (B, m) the statistics under each draw.
        exact: whether the draws are every arrangement.

    Returns:
        numpy.ndarray: (m,) adjusted p-values.
    """
    null = np.asarray(null, dtype=np.float64)
    sd = StepDown(observed, head=null.shape[1])
    sd.add(null)
    return sd.adjusted(len(null), exact)


class ClassNull:
    """The null of one family of candidates in classes, accumulated over batches of draws.

    Per draw it keeps each class's largest statistic (what the single step and the offsets need) and, with
    ``keep > 0``, the statistics of each class's ``keep`` largest observed candidates and each class's maximum over
    its other candidates: enough for the step-down of the first ``keep`` candidates of any offsets, since an offset
    is the same for a whole class (so the order within a class does not depend on it).

    Args:
        observed: (m,) observed statistics (non-finite: -inf).
        classes: (m,) each candidate's class, 0 to ``n_classes - 1``.
        n_classes: the number of classes.
        keep: candidates per class whose statistics are kept (0: the class maxima only).
    """

    def __init__(self, observed: np.ndarray, classes: np.ndarray, n_classes: int, keep: int = 0):
        obs = np.asarray(observed, dtype=np.float64)
        self.observed = np.where(np.isfinite(obs), obs, -np.inf)
        self.classes = np.asarray(classes, dtype=np.intp)
        self.n_classes = n_classes
        self.keep = keep
        self._in_class = [np.flatnonzero(self.classes == c) for c in range(n_classes)]
        kept = [ix[np.argsort(-self.observed[ix], kind="stable")[:keep]] for ix in self._in_class] if keep else []
        self.kept = np.sort(np.concatenate(kept)).astype(np.intp) if kept else np.zeros(0, dtype=np.intp)
        is_kept = np.zeros(len(obs), dtype=bool)
        is_kept[self.kept] = True
        self._others = [ix[~is_kept[ix]] for ix in self._in_class]
        self._max: list[np.ndarray] = []
        self._kept: list[np.ndarray] = []
        self._rest: list[np.ndarray] = []

    def add(self, stats: np.ndarray) -> None:
        """One batch: ``stats`` (m, b) every candidate's statistic under b draws (non-finite: -inf)."""
        stats = np.where(np.isfinite(stats), stats, -np.inf)
        self._max.append(np.stack([stats[ix].max(axis=0, initial=-np.inf) for ix in self._in_class], axis=1))
        if self.keep:
            self._kept.append(stats[self.kept].T)
            self._rest.append(np.stack([stats[ix].max(axis=0, initial=-np.inf) for ix in self._others], axis=1))

    @property
    def class_max(self) -> np.ndarray:
        """(B, C) each class's largest statistic under each draw."""
        return np.concatenate(self._max) if self._max else np.zeros((0, self.n_classes))

    def kept_null(self) -> tuple[np.ndarray, np.ndarray]:
        """``(kept statistics (B, kept), rest maxima (B, C))`` (the step-down's parts).

        Raises:
            ValueError: built with ``keep=0``.
        """
        if not self.keep:
            raise ValueError("ClassNull(keep=0) keeps the class maxima only: pass keep > 0 for a step-down")
        return np.concatenate(self._kept), np.concatenate(self._rest)


@dataclass(frozen=True)
class Tail:
    """The max-T of one family: offsets, critical value and adjusted p-values of every candidate.

    Attributes:
        offset: (m,) what is subtracted from each candidate's statistic (its class's offset).
        critical_value: the single-step critical value of the offset statistic (:func:`critical_value`).
        p_adjusted: (m,) adjusted p-values (single-step, or step-down).
    """

    offset: np.ndarray
    critical_value: float
    p_adjusted: np.ndarray


def class_tail(class_max: np.ndarray, classes: np.ndarray, observed: np.ndarray, alpha: float, exact: bool, *,
               balanced: bool = True, step_down: ClassNull | None = None, head: int = STEP_DOWN_HEAD) -> Tail:
    """The max-T of candidates in classes, from each class's largest statistic under each draw.

    The statistic compared is ``s = observed - offset`` (:func:`balanced_offsets`; a non-finite observed value is
    -inf, p = 1); the null is the largest offset statistic over every candidate. Single step: :func:`tail_p` of that
    maximum. Step-down (``step_down`` given, the :class:`ClassNull` the draws were accumulated in with ``keep >=
    head``): the free step-down over the candidates, exact for the first ``head`` of them and single-step after
    (:class:`StepDown`); with balanced offsets it applies to the offset statistics.

    Args:
        class_max: (B, C) each class's largest statistic under each draw.
        classes: (m,) each candidate's class.
        observed: (m,) each candidate's observed statistic.
        alpha: the level of the critical value.
        exact: whether the draws are every arrangement.
        balanced: offsets by class (False: the plain max-T).
        step_down: None for the single step, else the draws' :class:`ClassNull`.
        head: candidates with exact step-down p-values (at most ``step_down.keep``).

    Returns:
        Tail

    Raises:
        ValueError: ``head`` above what ``step_down`` kept.
    """
    classes = np.asarray(classes, dtype=np.intp)
    obs = np.asarray(observed, dtype=np.float64)
    signed = np.where(np.isfinite(obs), obs, -np.inf)
    n_classes = class_max.shape[1]
    observed_max = np.array([signed[classes == c].max(initial=-np.inf) for c in range(n_classes)])
    centre = balanced_offsets(class_max, observed_max, exact, balanced)
    offset = centre[classes]
    null = (class_max - centre[None, :]).max(axis=1)
    s = signed - offset
    crit = critical_value(null, alpha, exact)
    if step_down is None:
        return Tail(offset=offset, critical_value=crit, p_adjusted=tail_p(s, null, exact))
    if head > step_down.keep:
        raise ValueError(f"head={head} is above the {step_down.keep} candidates per class the null kept")
    kept_stats, rest = step_down.kept_null()
    kept = step_down.kept
    sd = StepDown(s, head=head)
    # the first ``head`` candidates of the family are among each class's ``keep`` largest: a class's candidates keep
    # their order whatever its offset; the longest prefix kept (all of it, but for rounding in the subtraction)
    column = np.full(len(s), -1, dtype=np.intp)
    column[kept] = np.arange(len(kept))
    at = column[sd.head]
    short = np.flatnonzero(at < 0)
    if len(short):
        sd = StepDown(s, head=int(short[0]))
        at = at[:short[0]]
    kept_null = kept_stats - centre[classes[kept]][None, :]
    outside = np.ones(len(kept), dtype=bool)
    outside[at] = False
    rest_null = (rest - centre[None, :]).max(axis=1)
    if outside.any():
        rest_null = np.maximum(rest_null, kept_null[:, outside].max(axis=1))
    sd.add_parts(kept_null[:, at], rest_null)
    p = sd.adjusted(len(class_max), exact)
    # a candidate without a finite statistic is outside the step-down's family: its single-step p (1 for -inf)
    return Tail(offset=offset, critical_value=crit, p_adjusted=np.where(np.isnan(p), tail_p(s, null, exact), p))
