"""The statistic of the excluded-groups search: per-annotation scores, annotator data, the studentized gap of every
candidate from sparse sums, and its draws (annotator permutations, wild-bootstrap signs).

Nothing here knows the candidates' descriptions, the options or the result
(:mod:`~aif360_subjective.opinion.excluded` builds on it).

**The statistic.** The unit of analysis is the annotator (its annotations are not independent: they share the
annotator's view). Annotator ``a`` has ``n_a`` counted annotations and performance ``y_a`` (the mean of the
per-annotation score: 1 for a correct prediction, the absolute error for MAE, ...). A group's performance is
the weighted mean ``m_S = sum w_a y_a / sum w_a`` with the random-effects weights ``w_a = n_a / (1 + (n_a - 1)
rho)``, ``rho = tau^2 / (tau^2 + sigma^2)``, from the count model ``Var(y_a) = tau^2 + sigma^2 / n_a`` of the test
of equal service, fitted once over all annotators: ``sigma^2`` the pooled within-annotator variance of one
annotation's score, ``tau^2`` the annotators' spread fitted by
:func:`~aif360_subjective.opinion.studentized.group_moments` (every annotator in one group). The weights are the
inverse variances of ``y_a`` under that model: between the annotator mean of the paper (``rho = 1``, every annotator
alike, however few its annotations) and the pooled mean (``rho = 0``, where an annotator with 500 annotations
outweighs a hundred with 5). With heavy-tailed counts the first drowns in the noise of light annotators and the
second rests on a handful of heavy ones; the weights take the best of both.
The gap ``rest - group`` (positive = the group is served worse) is studentized by a cluster-robust (sandwich)
variance with annotators as clusters, ``V_S = k/(k - 1) sum_a w_a^2 (y_a - m_S)^2 / (sum w_a)^2`` for the ``k``
annotators of the group (Welch's form for weighted means), floored at the variance the annotations' own noise
gives (``sum w_a^2 sigma^2 / n_a / (sum w_a)^2``) so that five annotators who happen to agree do not get a
near-zero denominator. ``T = gap / sqrt(V_S + V_rest)``. The sandwich rests on the group's own annotators, and a
studentized statistic keeps a permutation test valid when the groups' variances differ (unequal annotation counts),
which an unstudentized one does not (Janssen 1997; Chung and Romano 2013), but only asymptotically: ``T`` of a group
of a dozen annotators, most with a handful of annotations, has heavier tails than the normal. ``T`` is therefore
put on the normal scale before the candidates are compared, ``z = Phi^-1(F_nu(T))`` with Student's ``t`` on Welch and
Satterthwaite's degrees of freedom ``nu = (V_S + V_R)^2 / (V_S^2 / (k_S - 1) + V_R^2 / (k_R - 1))``, ``k`` Kish's
effective number of annotators ``(sum w)^2 / sum w^2`` of each side: a small group's extreme ``T`` no longer sets
everybody's threshold (the test of equal service does the same, :func:`.studentized.normal_equivalent`).

**Sums.** Every quantity above is a sum over the candidate's units (annotators, or annotator halves with the
cross-fitted ADR) of a few columns of :class:`AnnotatorData`, so every candidate's statistic under a batch of
permutations is one sparse product (:class:`Sums`); a wild-bootstrap draw keeps every column linear in the
annotator's sign (:func:`wild_parts`, :class:`Flips`).

References:
    Janssen, A. (1997). Studentized permutation tests for non-i.i.d. hypotheses and the generalized
    Behrens-Fisher problem. Statistics & Probability Letters 36, 9-21.
    Chung, E., Romano, J. P. (2013). Exact and asymptotically robust permutation tests. Annals of Statistics
    41(2), 484-507.
    Cameron, A. C., Miller, D. L. (2015). A practitioner's guide to cluster-robust inference. Journal of Human
    Resources 50(2) (the sandwich with k/(k-1)).
    Wu, C. F. J. (1986). Jackknife, bootstrap and other resampling methods in regression analysis. Annals of
    Statistics 14(4), 1261-1295 (the wild bootstrap).
    Cameron, A. C., Gelbach, J. B., Miller, D. L. (2008). Bootstrap-based improvements for inference with clustered
    errors. Review of Economics and Statistics 90(3), 414-427 (the wild cluster bootstrap, Rademacher signs).
    Satterthwaite, F. E. (1946). An approximate distribution of estimates of variance components. Biometrics
    Bulletin 2(6), 110-114; Welch, B. L. (1947). The generalization of Student's problem when several different
    population variances are involved. Biometrika 34, 28-35.
    Kish, L. (1965). Survey Sampling. Wiley (the effective sample size of a weighted mean).
    Searle, S. R., Casella, G., McCulloch, C. E. (1992). Variance Components. Wiley (unbalanced one-way ANOVA
    estimators of the variance components).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse as sp

from .._maxt import ClassNull
from .options import ORDINAL_PERFORMANCES
from .studentized import group_moments, larger_root, normal_equivalent, t_from_normal, unit_columns

__all__ = ["AnnotatorData", "BATCH", "Flips", "Stat", "Sums", "annotation_scores", "annotator_data", "batch_sizes",
           "class_maxima", "count_model", "data_totals", "detectable_gap", "enumerated_smallest_p", "from_normal",
           "item_adjusted", "overall_mean", "statistic", "to_normal", "wild_parts"]

#: Draws per batch of the sparse products.
BATCH = 64


def annotation_scores(performance: str, t: np.ndarray, p: np.ndarray, r_true: np.ndarray | None,
            r_pred: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """(counted rows, score per row): the performance is the mean score over the counted rows."""
    ones = np.ones(len(t), dtype=bool)
    if performance in ORDINAL_PERFORMANCES:
        assert r_true is not None and r_pred is not None
        err = np.abs(r_true - r_pred)
        return ones, (err if performance == "mae" else (err <= 1.0).astype(np.float64))
    table = {
        "accuracy": (ones, t == p),
        "true_positive_rate": (t, p),
        "false_negative_rate": (t, ~p),
        "true_negative_rate": (~t, ~p),
        "false_positive_rate": (~t, p),
        "precision": (p, t),
    }
    rows, score = table[performance]
    return np.asarray(rows, dtype=bool), np.asarray(score, dtype=np.float64)


def item_adjusted(score: np.ndarray, items: np.ndarray, n_items: int) -> tuple[np.ndarray, np.ndarray]:
    """Each score minus the mean score of the other annotations of its item; (kept rows, adjusted scores)."""
    n = np.bincount(items, minlength=n_items).astype(np.float64)
    total = np.bincount(items, weights=score, minlength=n_items)
    keep = n[items] >= 2
    with np.errstate(divide="ignore", invalid="ignore"):
        others = (total[items] - score) / (n[items] - 1.0)
    return keep, np.where(keep, score - others, 0.0)



#: Per-half columns of the annotator data: weight, weighted score, the sandwich's three sums, the floor, presence.
_W, _A, _Q0, _Q1, _Q2, _F, _K = range(7)
#: Cross columns (annotators with both halves present): w0 w1, w0 w1 (y0 + y1), w0 w1 y0 y1, both present.
_X0, _X1, _X2, _XB = range(4)


def count_model(y_a: np.ndarray, n_a: np.ndarray, sq: np.ndarray) -> tuple[float, float]:
    """(sigma2, tau2) of the count model ``Var(y_a) = tau2 + sigma2 / n_a``: ``sigma2`` the pooled variance of one
    annotation's score within an annotator, ``tau2`` the annotators' spread fitted by
    :func:`~aif360_subjective.opinion.studentized.group_moments` (every annotator in one group, ``b = sigma2``).

    Args:
        y_a: each annotator's mean score.
        n_a: its scored annotations.
        sq: the sum of its squared scores.
    """
    k, N = len(n_a), float(n_a.sum())
    within = float(sq.sum() - (n_a * y_a**2).sum())
    sigma2 = max(within / (N - k), 0.0) if k < N else 0.0
    if k < 2:
        return sigma2, 0.0
    mom = group_moments(unit_columns(y_a, n_a).sum(axis=0)[None, :], within=sigma2)
    tau2 = float(mom.a)
    return sigma2, tau2 if np.isfinite(tau2) else 0.0


@dataclass(frozen=True)
class AnnotatorData:
    """The annotator-level data the statistic needs: per half ``h`` a (annotators, 7) array, and the cross terms."""

    halves: list[np.ndarray]
    cross: np.ndarray | None


def annotator_data(w_a: np.ndarray, w_u: np.ndarray, n_a: np.ndarray, n_u: np.ndarray, y_u: np.ndarray,
                   sigma2: float) -> AnnotatorData:
    """The columns every candidate's statistic sums, per annotator and half.

    Args:
        w_a: each annotator's weight.
        w_u: (annotators, halves) its weight per half, ``w_a n_u / n_a``.
        n_a: its scored annotations.
        n_u: (annotators, halves) scored annotations per half.
        y_u: (annotators, halves) mean score per half (0 where a half has none).
        sigma2: the count model's variance of one annotation's score.
    """
    halves = []
    for h in range(n_u.shape[1]):
        w, y, nh = w_u[:, h], y_u[:, h], n_u[:, h]
        # the floor: the annotations' own noise in w y, w^2 sigma2 / n_u with w = w_a n_u / n_a
        halves.append(np.column_stack([w, w * y, w * w, w * w * y, w * w * y * y,
                                       w_a**2 * nh * sigma2 / n_a**2, (nh > 0).astype(np.float64)]))
    cross = None
    if n_u.shape[1] == 2:
        ww = w_u[:, 0] * w_u[:, 1]
        cross = np.column_stack([ww, ww * (y_u[:, 0] + y_u[:, 1]), ww * y_u[:, 0] * y_u[:, 1],
                                 ((n_u[:, 0] > 0) & (n_u[:, 1] > 0)).astype(np.float64)])
    return AnnotatorData(halves, cross)


def data_totals(data: AnnotatorData) -> dict[str, np.ndarray]:
    """The sums over every unit :func:`statistic` takes as ``totals``."""
    totals = {"h": np.sum([d.sum(axis=0) for d in data.halves], axis=0)}
    if data.cross is not None:
        totals["c"] = data.cross.sum(axis=0)
    return totals


def overall_mean(totals: dict[str, np.ndarray]) -> float:
    """The weighted mean score over every annotator (the wild bootstrap's null)."""
    return float(totals["h"][_A] / totals["h"][_W])


def _variance(m: np.ndarray, q0: np.ndarray, q1: np.ndarray, q2: np.ndarray, cross: tuple[np.ndarray, ...] | None,
              floor: np.ndarray, k: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Cluster-robust variance of a weighted mean ``m`` with weight sum ``w`` over ``k`` annotators, floored."""
    ss = q2 - 2.0 * m * q1 + m * m * q0
    if cross is not None:
        x0, x1, x2 = cross
        ss = ss + 2.0 * (x2 - m * x1 + m * m * x0)
    with np.errstate(divide="ignore", invalid="ignore"):
        robust = np.where(k > 1.0, k / (k - 1.0) * np.maximum(ss, 0.0), np.nan)
        out: np.ndarray = np.maximum(robust, floor) / (w * w)
    return out


class Stat(NamedTuple):
    """A candidate's statistic under one arrangement (each field an array over candidates and draws)."""

    gap: np.ndarray  #: rest minus group (positive = served worse)
    se: np.ndarray  #: its cluster-robust standard error
    t: np.ndarray  #: ``gap / se``
    k_s: np.ndarray  #: annotators in the group
    k_r: np.ndarray  #: annotators in the rest
    df: np.ndarray  #: Welch-Satterthwaite degrees of freedom of ``t``
    z: np.ndarray  #: ``t`` on the normal scale: ``Phi^-1(F_df(t))``


def _effective_count(w: np.ndarray, w2: np.ndarray) -> np.ndarray:
    """Kish's effective number of annotators ``(sum w)^2 / sum w^2`` of a weighted mean."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out: np.ndarray = w * w / w2
    return out


def to_normal(t: np.ndarray, df: np.ndarray) -> np.ndarray:
    """Signed :func:`~aif360_subjective.opinion.studentized.normal_equivalent`: ``Phi^-1(F_df(t))``."""
    return np.asarray(np.sign(t) * normal_equivalent(t, df), dtype=np.float64)


def from_normal(z: np.ndarray, df: np.ndarray) -> np.ndarray:
    """The inverse of :func:`to_normal` (infinite ``z`` stay infinite)."""
    return np.where(np.isfinite(z), np.sign(z) * t_from_normal(z, df), z)


def statistic(parts: dict[str, np.ndarray], totals: dict[str, np.ndarray], higher: bool) -> Stat:
    """Every candidate's :class:`Stat` from its sums ``parts`` (each (m, b) per column) and the totals.

    ``parts`` keys: ``"h<j>"`` (m, b, 7) sums of half j's columns over the candidate's units; with two halves
    ``"c0"``, ``"c1"`` (cross columns over annotators whose half 0 / half 1 is in the candidate) and ``"cb"`` (both).
    ``totals``: ``"h"`` the (7,) or (b, 7) sums over every unit, ``"c"`` the cross columns'.
    """
    halves = [parts[k] for k in sorted(k for k in parts if k.startswith("h"))]
    s: np.ndarray = np.sum(halves, axis=0)
    tot = totals["h"]
    r = tot - s
    two = "cb" in parts
    cross_s: np.ndarray | None
    cross_r: np.ndarray | None
    if two:
        cb, c0, c1 = parts["cb"], parts["c0"], parts["c1"]
        cross_s = cb
        cross_r = totals["c"] - c0 - c1 + cb
        k_s = s[..., _K] - cb[..., _XB]
        k_r = r[..., _K] - cross_r[..., _XB]
        # an annotator's weight is w0 + w1: its square adds the cross term twice
        w2_s, w2_r = s[..., _Q0] + 2.0 * cb[..., _X0], r[..., _Q0] + 2.0 * cross_r[..., _X0]
    else:
        cross_s = cross_r = None
        k_s, k_r = s[..., _K], r[..., _K]
        w2_s, w2_r = s[..., _Q0], r[..., _Q0]
    with np.errstate(divide="ignore", invalid="ignore"):
        m_s = s[..., _A] / s[..., _W]
        m_r = r[..., _A] / r[..., _W]
    v_s = _variance(m_s, s[..., _Q0], s[..., _Q1], s[..., _Q2],
                    None if cross_s is None else (cross_s[..., _X0], cross_s[..., _X1], cross_s[..., _X2]),
                    s[..., _F], k_s, s[..., _W])
    v_r = _variance(m_r, r[..., _Q0], r[..., _Q1], r[..., _Q2],
                    None if cross_r is None else (cross_r[..., _X0], cross_r[..., _X1], cross_r[..., _X2]),
                    r[..., _F], k_r, r[..., _W])
    gap = (m_r - m_s) if higher else (m_s - m_r)
    se = np.sqrt(v_s + v_r)
    # Welch-Satterthwaite: each side's variance on (effective annotators - 1) degrees of freedom
    n_s = np.maximum(_effective_count(s[..., _W], w2_s) - 1.0, 1.0)
    n_r = np.maximum(_effective_count(r[..., _W], w2_r) - 1.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se > 0, gap / se, np.nan)
        df = (v_s + v_r) ** 2 / (v_s * v_s / n_s + v_r * v_r / n_r)
    return Stat(gap, se, t, k_s, k_r, df, to_normal(t, df))


class Sums:
    """Every candidate's sums under a batch of annotator permutations: sparse products of the memberships."""

    def __init__(self, members: sp.csc_matrix, n_annotators: int, n_halves: int, data: AnnotatorData):
        self.H = n_halves
        self.data = data
        mt = sp.csr_matrix(members.T, dtype=np.float64)  # (candidates, units), unit = annotator * H + half
        self.M = [sp.csr_matrix(mt[:, h::n_halves]) for h in range(n_halves)]
        if n_halves == 2:
            self.Mb = sp.csr_matrix(self.M[0].multiply(self.M[1]))

    def sums(self, perm: np.ndarray) -> dict[str, np.ndarray]:
        """``perm``: (b, annotators) the annotator whose data each annotator slot receives."""
        b = perm.shape[0]
        out = {}

        def product(M: sp.csr_matrix, D: np.ndarray) -> np.ndarray:
            q = D.shape[1]
            stacked = D[perm.T].reshape(perm.shape[1], b * q)  # (annotators, b * q)
            return np.asarray(M @ stacked).reshape(M.shape[0], b, q)

        for h in range(self.H):
            out[f"h{h}"] = product(self.M[h], self.data.halves[h])
        if self.H == 2:
            assert self.data.cross is not None
            out["c0"] = product(self.M[0], self.data.cross)
            out["c1"] = product(self.M[1], self.data.cross)
            out["cb"] = product(self.Mb, self.data.cross)
        return out


def wild_parts(data: AnnotatorData, mean: float) -> tuple[AnnotatorData, AnnotatorData]:
    """The annotator columns of the wild bootstrap as ``base + v * delta`` for a sign ``v = +-1`` per annotator.

    Under the null every annotator's mean score is the overall weighted mean ``mean``; the draw gives unit ``u`` the
    score ``y*_u = mean + v_a (y_u - mean)`` (both halves of an annotator the same sign: the annotator is the
    cluster). Every column is then linear in ``v`` (``v^2 = 1``): ``w y* = w mean + v w e``, ``w^2 y*^2 = w^2 (mean^2 +
    e^2) + v 2 w^2 mean e``, ``w0 w1 y0* y1* = w0 w1 (mean^2 + e0 e1) + v w0 w1 mean (e0 + e1)``, with ``e = y -
    mean``; weights, floors and presence do not change.
    """
    bases, deltas = [], []
    for d in data.halves:
        w = d[:, _W]
        with np.errstate(divide="ignore", invalid="ignore"):
            e = np.where(w > 0, d[:, _A] / w - mean, 0.0)
        base, delta = d.copy(), np.zeros_like(d)
        base[:, _A], delta[:, _A] = w * mean, w * e
        base[:, _Q1], delta[:, _Q1] = w * w * mean, w * w * e
        base[:, _Q2], delta[:, _Q2] = w * w * (mean * mean + e * e), 2.0 * w * w * mean * e
        bases.append(base)
        deltas.append(delta)
    cross_base = cross_delta = None
    if data.cross is not None:
        h0, h1 = data.halves
        ww = data.cross[:, _X0]
        with np.errstate(divide="ignore", invalid="ignore"):
            e0 = np.where(h0[:, _W] > 0, h0[:, _A] / h0[:, _W] - mean, 0.0)
            e1 = np.where(h1[:, _W] > 0, h1[:, _A] / h1[:, _W] - mean, 0.0)
        cross_base, cross_delta = data.cross.copy(), np.zeros_like(data.cross)
        cross_base[:, _X1], cross_delta[:, _X1] = 2.0 * ww * mean, ww * (e0 + e1)
        cross_base[:, _X2], cross_delta[:, _X2] = ww * (mean * mean + e0 * e1), ww * mean * (e0 + e1)
    return AnnotatorData(bases, cross_base), AnnotatorData(deltas, cross_delta)


class Flips:
    """Every candidate's sums under a batch of wild-bootstrap sign draws (the counterpart of :class:`Sums`)."""

    def __init__(self, sums: Sums, base: AnnotatorData, delta: AnnotatorData):
        self.sums, self.delta = sums, delta
        self.fixed = {f"h{h}": np.asarray(M @ base.halves[h]) for h, M in enumerate(sums.M)}
        self.total = {"h": np.sum([d.sum(axis=0) for d in base.halves], axis=0)}
        if base.cross is not None:
            self.fixed |= {"c0": np.asarray(sums.M[0] @ base.cross), "c1": np.asarray(sums.M[1] @ base.cross),
                           "cb": np.asarray(sums.Mb @ base.cross)}
            self.total["c"] = base.cross.sum(axis=0)

    def sums_and_totals(self, signs: np.ndarray) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """``signs``: (b, annotators) of +-1. Returns the candidates' (m, b, q) sums and the (b, q) totals."""
        b = signs.shape[0]

        def product(M: sp.csr_matrix, fixed: np.ndarray, D: np.ndarray) -> np.ndarray:
            q = D.shape[1]
            stacked = (signs.T[:, :, None] * D[:, None, :]).reshape(D.shape[0], b * q)
            return np.asarray(fixed[:, None, :] + np.asarray(M @ stacked).reshape(M.shape[0], b, q), dtype=np.float64)

        d = self.delta
        out = {f"h{h}": product(M, self.fixed[f"h{h}"], d.halves[h]) for h, M in enumerate(self.sums.M)}
        totals = {"h": self.total["h"][None, :] + sum(signs @ dh for dh in d.halves)}
        if d.cross is not None:
            out |= {"c0": product(self.sums.M[0], self.fixed["c0"], d.cross),
                    "c1": product(self.sums.M[1], self.fixed["c1"], d.cross),
                    "cb": product(self.sums.Mb, self.fixed["cb"], d.cross)}
            totals["c"] = self.total["c"][None, :] + signs @ d.cross
        return out, totals


def batch_sizes(n: int) -> list[int]:
    """``n`` draws in batches of at most :data:`BATCH`."""
    return [min(BATCH, n - i) for i in range(0, n, BATCH)]


def class_maxima(stats: Any, cls: np.ndarray, n_classes: int, moments: np.ndarray | None = None, *,
                 z: np.ndarray | None = None, keep: int = 0) -> tuple[ClassNull, ClassNull]:
    """The nulls of ``z`` and ``-z`` by class: each :attr:`~aif360_subjective._maxt.ClassNull.class_max` is the
    (draws, classes) largest statistic of each class under each draw.

    Args:
        stats: an iterable of :class:`Stat`, one per batch of draws (each field (candidates, b)).
        cls: each candidate's class.
        n_classes: the number of classes.
        moments: if given, (candidates, 3) accumulates per candidate the draws with a finite ``T``, the sum of their
            ``T`` and the sum of their ``T^2``.
        z: the observed ``z`` (needed with ``keep``).
        keep: for the step-down of "served worse" (the ``z`` null only), the ``z`` of each class's ``keep`` largest
            observed candidates are kept too (:class:`~aif360_subjective._maxt.ClassNull`); 0: the maxima only.

    Raises:
        ValueError: ``keep`` without the observed ``z``.
    """
    if keep and z is None:
        raise ValueError("class_maxima(keep > 0) needs the observed z, to know which candidates to keep")
    observed = np.zeros(len(cls)) if z is None else np.asarray(z, dtype=np.float64)
    pos, neg = ClassNull(observed, cls, n_classes, keep), ClassNull(-observed, cls, n_classes)
    for st in stats:
        if moments is not None:
            ok_t = np.isfinite(st.t)
            t0 = np.where(ok_t, st.t, 0.0)
            moments += np.column_stack([ok_t.sum(axis=1), t0.sum(axis=1), (t0 * t0).sum(axis=1)])
        pos.add(st.z)
        neg.add(-st.z)
    return pos, neg


def detectable_gap(c: np.ndarray, se: np.ndarray, obs: dict[str, np.ndarray], keep: np.ndarray, sigma2: float,
                    totals: dict[str, np.ndarray], *, binary: bool, higher: bool) -> np.ndarray:
    """The gap ``g`` a candidate's ``T`` reaches ``c`` at: ``g = c se(g)``.

    ``se(g)`` is the standard error the candidate would have with its performance moved by ``g``. For scores of 0 or 1
    (rates, accuracy) moving the group's mean ``mu`` moves the variance of one of its annotations from ``mu (1 - mu)``
    to ``(mu - g)(1 - mu + g)`` (``(mu + g)(1 - mu - g)`` where lower is better): the annotations' part of the group's
    variance, its floor ``F / W^2`` (``sigma^2`` per annotation), grows by the factor ``1 + (g b - g^2) / sigma^2``
    with ``b = 2 mu - 1`` (``1 - 2 mu``), ``mu`` the overall weighted mean. Then ``g^2 = c^2 (V + A (g b - g^2))``
    with ``V = se^2``, ``A = F / (W^2 sigma^2)``: the positive root of ``(1 + c^2 A) g^2 - c^2 A b g - c^2 V = 0``.
    Other scores (MAE, item-adjusted ones) keep ``g = c se``.
    """
    if not binary or sigma2 <= 0:
        return np.asarray(c * se, dtype=np.float64)
    s = np.sum([obs[key][:, 0] for key in obs if key.startswith("h")], axis=0)[keep]
    mu = float(totals["h"][_A] / totals["h"][_W])
    b = 2.0 * mu - 1.0 if higher else 1.0 - 2.0 * mu
    with np.errstate(divide="ignore", invalid="ignore"):
        a = s[:, _F] / (s[:, _W] ** 2 * sigma2)
    c2a = c * c * a
    with np.errstate(divide="ignore", invalid="ignore"):
        root = larger_root(1.0 + c2a, c2a * b / 2.0, -c * c * se * se)
    return np.asarray(np.where(np.isfinite(root) & (c > 0), root, c * se), dtype=np.float64)


def enumerated_smallest_p(members: sp.csc_matrix, perms: np.ndarray, k: int, H: int, m: int) -> float:
    """The share of permutations that map the candidates onto themselves (each onto itself or onto another, e.g. a
    group and its complement): they give the observed maximum whatever the data, so it is the smallest p-value
    these annotators allow."""
    dense = members.toarray().reshape(k, H, m)
    bit = (2.0 ** np.arange(k * H)).reshape(k, H, 1)
    own_keys = np.sort((dense * bit).sum(axis=(0, 1)))
    same = np.ones(len(perms), dtype=bool)
    for i in range(0, len(perms), 4096):
        blk = perms[i:i + 4096]
        keys = np.sort((dense[blk] * bit[None]).sum(axis=(1, 2)), axis=1)
        same[i:i + 4096] = (keys == own_keys[None]).all(axis=1)
    return float(same.mean())
