"""Whose opinions are excluded: discover the annotator groups a model serves worse.

:func:`excluded_groups` searches every conjunction of up to ``max_conditions`` annotator attribute values (numeric
attributes cut into ranges, the ADR cross-fitted; :mod:`.excluded_candidates`) for groups whose annotators the
model serves worse than the other annotators, and holds the family-wise error over all of them.

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

**Family-wise error: two nulls, the larger p-value.** (1) *Permutations.* The annotators' attribute rows are
permuted as a whole (each annotator's data keeps its annotations, its items and its weight; only who belongs to
which group changes). For each permutation every candidate's ``z`` is computed from one sparse product (candidates x
annotators membership times annotators x permutations sums), and the maximum of ``z - offset`` over all candidates
gives the null distribution of the largest statistic. Under exchangeable annotators this is exact. (2) *A wild
bootstrap of annotators* (Wu 1986; Cameron, Gelbach and Miller 2008): every annotator keeps its group and its
weight, and its scores become ``mean + v_a (y_a - mean)`` with a random sign ``v_a`` and ``mean`` the overall weighted
mean (the null: every group served alike). Each annotator keeps its own spread where it is, so this null holds when
a group's annotators differ among themselves more than the others do, where permuting them mixes them with calmer
ones and is too permissive (``benchmarks/excluded_groups.py --only spread``). The sign draws enter the same sparse
products (every column of the annotator data is linear in ``v_a``). A candidate's adjusted p-value is the larger of
the two single-step max-T p-values (Westfall and Young 1993), the share of draws whose maximum reaches its own
statistic: exact under exchangeable annotators and valid under unequal spreads, and close to either where both hold.
With at most 8 annotators every permutation is enumerated and the p-values are exact; the wild bootstrap, whose
256 sign patterns cannot tell spreads apart, is not run (the summary says so).

The test is one-sided, "served worse": ``T`` is skewed (a group that happens to hold many annotators the model
serves well, each with a small variance, gets a long tail towards "served better"), and that tail must not raise
the bar of the question asked. A group is reported when ``z`` passes both nulls' thresholds ``c + offset``; on the
scale of ``T`` that is the column ``threshold``, ``F_nu^-1(Phi(c + offset))``, which gives the simultaneous lower
bounds ``ci_low = gap - threshold * se``, so a group is reported exactly when ``ci_low > 0``; ``ci_high`` is the
simultaneous upper bound from the other direction's max-T (each bound holds for every candidate at once with
probability 1 - alpha). The offset balances the classes of candidates (those with 1, 2, 3 conditions): it is the
median, over the draws, of the class's largest ``z``, so that the few single attributes do not compete with the
hundreds of pairs and each class reaches the threshold about equally often under the null (Beran's balanced
simultaneous confidence sets). The median is taken over the B draws and the observed arrangement together, so the
offset statistic treats the observed arrangement as one of the B + 1 alike and the Monte Carlo permutation test
stays exact under exchangeability (``benchmarks/excluded_groups.py --only exact``).

**Power, and its limit.** The gap's estimate is about as precise as its standard error says
(``benchmarks/excluded_groups.py``: the spread of a planted group's gap over simulations against its mean ``se``),
and the weights are the inverse variances under the count model, so no other weighting of the annotators does much
better; what a search costs is its threshold: ``T`` must pass the largest of some hundred candidates' statistics
(about 3.6 for two conditions among 91 candidates in the benchmark's heavy-tailed design, against 1.645 for one
group chosen in advance). The guide gives the planted groups' rates, and why a search treating the candidates alike
cannot find a pair served 0.07 worse 9 times in 10 in that design.

**Balance, a trade-off.** ``balance="conditions"`` (the default) is the balanced max-T above; ``balance="none"`` is
the plain single-step max-T: one class, no offsets, every candidate against the same threshold, the 1 - alpha
quantile of the largest ``z`` of all candidates. Neither is better everywhere. Balancing gives the few single
attributes a threshold of their own, below the plain one (they are found more easily) and the many intersections
one above it (they are found less easily); the plain max-T does the opposite, since with some hundred pairs among
the candidates its threshold is about the pairs' own. ``benchmarks/excluded_groups.py --only planted`` prints both
on the same simulated data (the guide quotes the figures).

**Items.** ``adjust="items"`` replaces each annotation's score by its difference from the mean score of the
*other* annotations of the same item: a group whose annotators saw harder items is then not called excluded.
Annotations of items annotated once are dropped (counted).

References:
    Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine Learning
    (performance per annotator, groups of annotators, ADR).
    Schäfer, J., Wiese, L. ASDF-Dashboard: Automated Subgroup Detection and Fairness Analysis (discovering the
    subgroups instead of choosing them).
    Westfall, P. H., Young, S. S. (1993). Resampling-Based Multiple Testing. Wiley (max-T).
    Beran, R. (1988). Balanced simultaneous confidence sets. JASA 83(403), 679-686.
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

import itertools
import math
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .._param_tables import OPINION_PARAMS
from .._validation import check_alpha, check_choice, check_int, check_random_state, check_same_index, plain
from ..detectors.maxt import check_n_permutations
from .annotations import EncodedAnnotations, check_ratings, check_unique_pairs, cross_fit, encode_annotations
from .excluded_candidates import ADR_ATTRIBUTE, build_candidates, count_small_groups
from .functional import _binary_view, _ids
from .options import ORDINAL_PERFORMANCES, PERFORMANCES
from .studentized import group_moments, larger_root, normal_equivalent, t_from_normal, unit_columns

__all__ = ["ADJUSTMENTS", "BALANCES", "DISCOVERY_PERFORMANCES", "DiscoveryOptions", "ExcludedGroups",
           "check_discovery_options", "discover_excluded", "excluded_groups"]

#: ``adjust=``: raw scores, or each annotation against the other annotations of its item.
ADJUSTMENTS = ("none", "items")
#: ``balance=``: the classes of the max-T. "conditions": the candidates of each number of conditions form a class
#: with its own offset (Beran's balance: the few single attributes do not compete with the hundreds of pairs);
#: "none": one class, the plain single-step max-T, every candidate against the same threshold.
BALANCES = OPINION_PARAMS.choices("balance")
#: The measures a discovery can score: each a mean of a per-annotation score over some of the annotations (the
#: rows it counts, the score of a row). Balanced accuracy and F1 are not such means.
DISCOVERY_PERFORMANCES = ("accuracy", "true_positive_rate", "true_negative_rate", "false_positive_rate",
                          "false_negative_rate", "precision", "mae", "within_one")
#: Power the minimum detectable gap is stated for.
DETECTABLE_POWER = 0.8
_Z_POWER = 0.8416212335729143  # the standard normal quantile of DETECTABLE_POWER
#: Below this share of a finding's annotations on items other annotators also labelled, the answer warns that the
#: raw gap may be the items' difficulty.
SHARED_WARNING = 0.5
#: With ``adjust="items"``, below this share of a group's annotations on items other annotators also labelled, the
#: item-by-item comparison has (almost) nothing to compare: the answer says it cannot decide about that group.
SHARED_NONE = 0.05
#: Most annotators whose every permutation is enumerated (8! = 40,320).
EXACT_MAX_ANNOTATORS = 8
_BATCH = 64
_TIE = 1e-9
#: Candidates x annotations above which the share of shared items is computed for the first candidates only.
_SHARED_BUDGET = 200_000_000
_SHARED_TOP = 200


# ----------------------------------------------------------------------------------------------
# the result
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ExcludedGroups:
    """What :func:`excluded_groups` found.

    Attributes:
        table: every candidate tested, most excluded first (by ``ci_low``, the gap the data vouch for; then by the
            statistic), index ``candidate``, with the columns of :meth:`findings`.
        alpha: the family-wise error level.
        performance: the performance measure's name.
        higher_is_better: its direction.
        adjust: "none" or "items".
        balance: the classes of the max-T, "conditions" (offsets by number of conditions) or "none" (one
            threshold for every candidate).
        critical_value: ``c``, the permutation max-T's critical value on the normal scale: a candidate is reported
            when ``z - offset > c`` (inf: nothing can be) and the wild bootstrap's condition holds too.
        wild_critical_value: the wild bootstrap max-T's critical value on the normal scale (NaN when every
            permutation is enumerated and the wild bootstrap is not run).
        smallest_p: the smallest adjusted p-value these annotators allow.
        n_permutations: permutations drawn (or enumerated, ``exact``).
        exact: whether every permutation was enumerated.
        counts: what was tested, skipped and dropped, with counts (see :meth:`summary`).
        annotator_units: per unit (row of the membership), its annotator id.
        members_matrix: (units, candidates) membership of the candidates in ``table`` order.
    """

    table: pd.DataFrame
    alpha: float
    performance: str
    higher_is_better: bool
    adjust: str
    critical_value: float
    smallest_p: float
    n_permutations: int
    exact: bool
    counts: dict[str, Any]
    annotator_units: pd.Index
    members_matrix: sp.csc_matrix
    attributes: tuple[str, ...] = ()
    max_conditions: int = 2
    min_annotators: int = 5
    notes: tuple[str, ...] = field(default_factory=tuple)
    balance: str = "conditions"
    wild_critical_value: float = np.nan
    #: the permutation engine's inputs (annotator data, totals), for checks; not part of the result's meaning
    engine: Any = field(default=None, repr=False, compare=False)

    def findings(self) -> pd.DataFrame:
        """The groups served worse (adjusted p-value <= alpha, positive gap), most excluded first.

        Returns:
            pandas.DataFrame: index ``candidate`` (the id :meth:`members` takes); columns ``description``,
            ``n_conditions``, ``n_annotators``, ``n_annotations``, ``performance`` and ``rest_performance`` (the
            group's and the rest's weighted performance, raw scores), ``gap`` (rest minus group for measures where
            higher is better, group minus rest otherwise: positive = served worse; item-adjusted scores with
            ``adjust="items"``), ``se``, ``t`` (``gap / se``), ``df`` (its Welch-Satterthwaite degrees of freedom),
            ``z`` (``t`` on the normal scale, the statistic the max-T compares), ``ci_low``, ``ci_high``
            (simultaneous lower and upper bounds of the gap, each at 1 - alpha over every candidate), ``p_adjusted``
            (max-T over every candidate: the larger of ``p_permutation`` and ``p_wild``, the permutation's and the
            wild bootstrap's; ``p_wild`` NaN when every permutation is enumerated), ``detectable_gap`` (the gap
            found with 80% power: ``(threshold + 0.84 s) se(g)``, ``s`` the spread of the candidate's ``t`` under
            the permutations, at least 1, ``se(g)`` the standard error with the group's performance moved by the
            gap), ``threshold`` (the ``t`` above which a candidate is reported: both nulls' critical value plus its
            class's offset, on the candidate's degrees of freedom), ``shared_items`` (share of the group's
            annotations on items some other annotator also annotated; NaN when not computed).
        """
        t = self.table
        return t[(t["p_adjusted"] <= self.alpha) & (t["gap"] > 0)]

    def candidates(self) -> pd.DataFrame:
        """Every candidate tested (served worse or better), in the order and with the columns of :meth:`findings`."""
        return self.table

    def members(self, i: Any) -> pd.Index:
        """The annotator ids of candidate ``i`` (an index label of :meth:`findings` / :meth:`candidates`).

        Raises:
            KeyError: no such candidate.
        """
        if i not in self.table.index:
            raise KeyError(f"no candidate {i!r}: use an index label of findings() or candidates() "
                           f"(0 to {len(self.table) - 1})")
        col = self.table.index.get_loc(i)
        rows = self.members_matrix[:, col].nonzero()[0]
        ids: pd.Index = pd.Index(pd.unique(self.annotator_units[rows]), name="annotator")
        return ids

    def at_floor(self, p: float) -> bool:
        """Whether ``p`` is the smallest adjusted p-value these permutations can give (:attr:`smallest_p`)."""
        return bool(np.isfinite(p) and p <= self.smallest_p * (1 + 1e-9))

    def p_short(self, p: float) -> str:
        """An adjusted p-value for a table: ``0.012``, or ``≤ 0.001`` at the smallest B Monte Carlo permutations can
        give (more permutations could show a smaller one; enumerated permutations give it exactly)."""
        if self.at_floor(p) and not self.exact:
            return f"≤ {_rounded_up(self.smallest_p)}"
        return f"{p:.3g}"

    def p_text(self, p: float) -> str:
        """``adjusted p = 0.012``, or at the smallest p-value the permutations can give, ``adjusted p ≤ 0.001 (the
        smallest a max-T with B = 999 permutations can give)``."""
        if self.at_floor(p):
            if self.exact:  # every permutation enumerated: the p-value is exact, and no data could give less
                return (f"adjusted p = {p:.3g} (the smallest any data can give with these "
                        f"{self.counts['n_annotators']:,} annotators: every permutation enumerated)")
            return (f"adjusted p {self.p_short(p)} (the smallest a max-T with B = {self.n_permutations:,} "
                    "permutations can give)")
        return f"adjusted p = {p:.3g}"

    def sentence(self) -> str:
        """The answer in one sentence."""
        found = self.findings()
        c = self.counts
        what = (f"{c['n_candidates']:,} annotator group{'s' if c['n_candidates'] != 1 else ''} of up to "
                f"{self.max_conditions} condition{'s' if self.max_conditions != 1 else ''}")
        if c["n_candidates"] == 0:
            up_to = _count(self.max_conditions, 'condition')
            return (f"Cannot answer: no annotator group of up to {up_to} holds at least "
                    f"{self.min_annotators} annotators with at least {self.min_annotators} others to compare "
                    f"({c['n_small_groups']:,} smaller groups not tested).")
        if self.smallest_p > self.alpha:
            return (f"Cannot decide: with {c['n_annotators']:,} annotators the smallest attainable adjusted p-value is "
                    f"{self.smallest_p:.3g}, above alpha = {self.alpha:g}; no group can be shown to be served worse.")
        adj = " (item-adjusted)" if self.adjust == "items" else ""
        if len(found):
            top = found.iloc[0]
            more = (f"; {len(found) - 1} more group{'s' if len(found) > 2 else ''} served worse"
                    if len(found) > 1 else "")
            shared = float(top["shared_items"])
            caveat = ""
            if self.adjust == "none" and np.isfinite(shared) and shared < SHARED_WARNING:
                caveat = (f" Only {shared:.0%} of this group's annotations are on items other annotators also "
                          "labelled: the gap may be the difficulty of its items; adjust='items' compares annotators "
                          "on the same items.")
            return (f"Served worse: {top['description']} ({int(top['n_annotators']):,} annotators), gap "
                    f"{top['gap']:.3f}{adj} [{top['ci_low']:.3f}, {top['ci_high']:.3f}], "
                    f"{self.p_text(float(top['p_adjusted']))}, among {what}{more}.{caveat}{self._unshared_text()}")
        mdg = self.table["detectable_gap"].to_numpy(dtype=np.float64)
        single = self.table["n_conditions"].to_numpy() == 1
        usable = ~self._unshared()  # a gap of a group compared with nobody could not have been found
        pool = mdg[single & usable] if (single & usable).any() else mdg[usable]
        pool = pool[np.isfinite(pool)]
        tail = ""
        if len(pool):
            tail = (f"; with these annotators a gap{adj} of {np.min(pool):.3f} (largest single-condition group) to "
                    f"{np.max(pool):.3f} (smallest) would have been found about {DETECTABLE_POWER:.0%} of the time "
                    "(normal approximation)")
        return (f"No annotator group is served worse at alpha = {self.alpha:g} among {what}{tail}."
                f"{self._unshared_text()}")

    def _unshared(self) -> np.ndarray:
        """Per candidate: item-adjusted, and (almost) none of its annotations on items other annotators labelled."""
        shared = self.table["shared_items"].to_numpy(dtype=np.float64)
        if self.adjust != "items":
            return np.zeros(len(shared), dtype=bool)
        with np.errstate(invalid="ignore"):
            blind: np.ndarray = np.isfinite(shared) & (shared < SHARED_NONE)
        return blind

    def _unshared_text(self) -> str:
        """The groups the item-adjusted comparison cannot decide about ("" when none)."""
        blind = self._unshared()
        if not blind.any():
            return ""
        names = self.table.loc[blind, "description"].head(3).tolist()
        n = int(blind.sum())
        return (f" Cannot decide about {_count(n, 'group')} ({'; '.join(names)}{', ...' if n > 3 else ''}): under "
                f"{SHARED_NONE:.0%} of {'its' if n == 1 else 'their'} annotations are on items other annotators "
                f"also labelled, so compared item by item {'it has' if n == 1 else 'they have'} no one to be compared "
                "with.")

    def summary(self) -> str:
        """What was searched, tested, skipped and dropped, with counts, then the answer (:meth:`sentence`)."""
        c = self.counts
        parts = [
            f"{c['n_annotators']:,} annotators, {c['n_annotations']:,} annotations scored by {self.performance} "
            f"({'higher' if self.higher_is_better else 'lower'} is better), adjust={self.adjust!r}",
            f"attributes: {', '.join(self.attributes)}; up to {_count(self.max_conditions, 'condition')}",
            (f"{_count(c['n_candidates'], 'candidate group')} tested (max-T over all of them, "
             f"{'every one of ' if self.exact else ''}{self.n_permutations:,} permutations of annotators"
             f"{'' if self.exact else ' and as many wild-bootstrap draws, p the larger of the two'}"
             f"{_BALANCE_TEXT[self.balance]})"
             if c["n_candidates"] else "no candidate group to test"),
            f"{_count(c['n_small_groups'], 'attribute-value group')} with fewer than {self.min_annotators} annotators "
            "not tested",
        ]
        if c.get("n_small_rest"):
            parts.append(f"{_count(c['n_small_rest'], 'candidate')} not tested: fewer than {self.min_annotators} other "
                         "annotators to compare with")
        if c.get("n_identical"):
            parts.append(f"{_count(c['n_identical'], 'conjunction')} holding the same annotators as a shorter one "
                         "kept once")
        for a, n in c.get("missing", {}).items():
            parts.append(f"{_count(n, 'annotator')} without a value of {a} (in no condition on it)")
        if c.get("n_without_attributes"):
            parts.append(f"{_count(c['n_without_attributes'], 'annotator')} absent from the annotator table")
        if c.get("n_no_scored_annotation"):
            parts.append(f"{_count(c['n_no_scored_annotation'], 'annotator')} without a scored annotation left out")
        if c.get("n_single_annotation_items"):
            parts.append(f"{_count(c['n_single_annotation_items'], 'annotation')} of items annotated once dropped "
                         "(no other annotation to compare with)")
        parts += list(self.notes)
        if np.isfinite(self.critical_value):
            wild = (f", wild bootstrap {self.wild_critical_value:.3f}" if np.isfinite(self.wild_critical_value)
                    else "")
            parts.append(f"critical value {self.critical_value:.3f} (normal scale; permutations{wild})")
        return "; ".join(parts) + ". " + self.sentence()

    def __str__(self) -> str:
        return self.summary()


#: What :meth:`ExcludedGroups.summary` says of the balance (nothing for the default).
_BALANCE_TEXT = {"conditions": "", "none": "; balance='none': one threshold for every candidate, no class offsets"}


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _rounded_up(x: float) -> str:
    """``x`` rounded *up* to two significant digits (1/201 -> ``0.005``), so that "≤" stays true."""
    digits = 1 - int(np.floor(np.log10(x)))
    return np.format_float_positional(np.ceil(x * 10**digits - 1e-9) / 10**digits, trim="-")


#: Which annotations each measure counts (for messages).
_COUNTED = {"accuracy": "every annotation", "true_positive_rate": "the annotations labelled positive",
            "false_negative_rate": "the annotations labelled positive",
            "true_negative_rate": "the annotations labelled negative",
            "false_positive_rate": "the annotations labelled negative",
            "precision": "the annotations predicted positive", "mae": "every annotation",
            "within_one": "every annotation"}


# ----------------------------------------------------------------------------------------------
# scores per annotation
# ----------------------------------------------------------------------------------------------
def _scores(performance: str, t: np.ndarray, p: np.ndarray, r_true: np.ndarray | None,
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


def _item_adjusted(score: np.ndarray, items: np.ndarray, n_items: int) -> tuple[np.ndarray, np.ndarray]:
    """Each score minus the mean score of the other annotations of its item; (kept rows, adjusted scores)."""
    n = np.bincount(items, minlength=n_items).astype(np.float64)
    total = np.bincount(items, weights=score, minlength=n_items)
    keep = n[items] >= 2
    with np.errstate(divide="ignore", invalid="ignore"):
        others = (total[items] - score) / (n[items] - 1.0)
    return keep, np.where(keep, score - others, 0.0)


# ----------------------------------------------------------------------------------------------
# the statistic from group sums
# ----------------------------------------------------------------------------------------------
#: Per-half columns of the annotator data: weight, weighted score, the sandwich's three sums, the floor, presence.
_W, _A, _Q0, _Q1, _Q2, _F, _K = range(7)
#: Cross columns (annotators with both halves present): w0 w1, w0 w1 (y0 + y1), w0 w1 y0 y1, both present.
_X0, _X1, _X2, _XB = range(4)


def _count_model(y_a: np.ndarray, n_a: np.ndarray, sq: np.ndarray) -> tuple[float, float]:
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
class _Data:
    """The annotator-level data the statistic needs: per half ``h`` a (annotators, 7) array, and the cross terms."""

    halves: list[np.ndarray]
    cross: np.ndarray | None


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


class _Stat(NamedTuple):
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


def _to_normal(t: np.ndarray, df: np.ndarray) -> np.ndarray:
    """Signed :func:`~aif360_subjective.opinion.studentized.normal_equivalent`: ``Phi^-1(F_df(t))``."""
    return np.asarray(np.sign(t) * normal_equivalent(t, df), dtype=np.float64)


def _from_normal(z: np.ndarray, df: np.ndarray) -> np.ndarray:
    """The inverse of :func:`_to_normal` (infinite ``z`` stay infinite)."""
    return np.where(np.isfinite(z), np.sign(z) * t_from_normal(z, df), z)


def _statistic(parts: dict[str, np.ndarray], totals: dict[str, np.ndarray], higher: bool) -> _Stat:
    """Every candidate's :class:`_Stat` from its sums ``parts`` (each (m, b) per column) and the totals.

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
    return _Stat(gap, se, t, k_s, k_r, df, _to_normal(t, df))


class _Sums:
    """Every candidate's sums under a batch of annotator permutations: sparse products of the memberships."""

    def __init__(self, members: sp.csc_matrix, n_annotators: int, n_halves: int, data: _Data):
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


def _wild_parts(data: _Data, mean: float) -> tuple[_Data, _Data]:
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
    return _Data(bases, cross_base), _Data(deltas, cross_delta)


class _Flips:
    """Every candidate's sums under a batch of wild-bootstrap sign draws (the counterpart of :class:`_Sums`)."""

    def __init__(self, sums: _Sums, base: _Data, delta: _Data):
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


@dataclass(frozen=True)
class _Direction:
    """The max-T of one direction: offsets, critical value and adjusted p-values of every candidate."""

    offset: np.ndarray
    critical_value: float = np.inf
    p_adjusted: np.ndarray | None = None

    @classmethod
    def from_null(cls, class_max: np.ndarray, classes: np.ndarray, t: np.ndarray, alpha: float,
                  exact: bool, balanced: bool = True) -> _Direction:
        """From the (permutations, classes) largest statistic of each class under the permutations.

        Balanced max-T: each class's statistics are offset by the median of the class's largest statistic under
        the permutations, so that the few single attributes and the many pairs, the small groups and the large
        ones, reach the threshold about equally often; the null distribution is that of the largest offset
        statistic over every candidate. Monte Carlo: ``p = (1 + #{null >= s}) / (B + 1)``, the median taken over the
        B permutations *and the observed arrangement*: the offset statistic is then the same function of the B + 1
        arrangements whichever of them is the observed one, so under exchangeable annotators the observed one's
        rank is uniform and the test exact (a median of the B permutations alone treats the observed arrangement
        differently, which makes the p-values slightly too small); exact: ``#{null >= s} / B`` (the identity is
        among the permutations). ``balanced=False``: every offset 0, the plain max-T (``balance="none"``).
        """
        pool = class_max
        if not exact:
            signed = np.where(np.isfinite(t), t, -np.inf)
            observed = np.array([signed[classes == c].max(initial=-np.inf) for c in range(class_max.shape[1])])
            pool = np.vstack([class_max, observed[None, :]])
        centre = np.median(pool, axis=0)
        centre = np.where(np.isfinite(centre), centre, 0.0)
        if not balanced:  # one threshold for every candidate
            centre = np.zeros_like(centre)
        offset = centre[classes]
        null = (class_max - centre[None, :]).max(axis=1)
        ref = np.sort(null)[::-1] if exact else np.concatenate([[np.inf], np.sort(null)[::-1]])
        n_ref = len(ref)
        s_obs = np.where(np.isfinite(t), t, -np.inf) - offset
        n_ge = n_ref - np.searchsorted(ref[::-1], s_obs - _TIE, side="left")
        k_rej = int(math.floor(alpha * n_ref + 1e-9))
        crit = float(ref[k_rej]) if k_rej < n_ref else -np.inf
        return cls(offset=offset, critical_value=crit, p_adjusted=n_ge / n_ref)


def _batch_sizes(n: int) -> list[int]:
    """``n`` draws in batches of at most :data:`_BATCH`."""
    return [min(_BATCH, n - i) for i in range(0, n, _BATCH)]


def _class_maxima(stats: Any, cls: np.ndarray, n_classes: int,
                  moments: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The largest ``z`` and ``-z`` of each class under each draw: two (draws, classes) arrays.

    Args:
        stats: an iterable of :class:`_Stat`, one per batch of draws (each field (candidates, b)).
        cls: each candidate's class.
        n_classes: the number of classes.
        moments: if given, (candidates, 3) accumulates per candidate the draws with a finite ``T``, the sum of their
            ``T`` and the sum of their ``T^2``.
    """
    pos: list[np.ndarray] = []
    neg: list[np.ndarray] = []
    for st in stats:
        if moments is not None:
            ok_t = np.isfinite(st.t)
            t0 = np.where(ok_t, st.t, 0.0)
            moments += np.column_stack([ok_t.sum(axis=1), t0.sum(axis=1), (t0 * t0).sum(axis=1)])
        ok_z = np.isfinite(st.z)
        for out, signed in ((pos, st.z), (neg, -st.z)):
            stat = np.where(ok_z, signed, -np.inf)
            out.append(np.stack([stat[cls == c].max(axis=0) for c in range(n_classes)], axis=1))
    return np.concatenate(pos), np.concatenate(neg)


def _detectable_gap(c: np.ndarray, se: np.ndarray, obs: dict[str, np.ndarray], keep: np.ndarray, sigma2: float,
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


def _smallest_p(members: sp.csc_matrix, perms: np.ndarray, k: int, H: int, m: int) -> float:
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


# ----------------------------------------------------------------------------------------------
# validation
# ----------------------------------------------------------------------------------------------
def _check_attributes(annotators: Any, attributes: Any, present: pd.Index) -> tuple[pd.DataFrame, list[str]]:
    if not isinstance(annotators, pd.DataFrame):
        raise TypeError(f"annotators must be a pandas DataFrame indexed by annotator id (one column per attribute), "
                        f"got {type(annotators).__name__}")
    columns = [str(c) for c in annotators.columns]
    if attributes is None:
        attrs = list(annotators.columns)
        if not attrs:
            raise ValueError("annotators has no attribute column: pass a table with one column per attribute, or "
                             f"attributes=[{ADR_ATTRIBUTE!r}] for the cross-fitted ADR alone")
    else:
        attrs = [attributes] if isinstance(attributes, str) else list(attributes)
        if not attrs:
            raise ValueError("attributes must name at least one annotator attribute, got an empty list")
    unknown = [a for a in attrs if a not in annotators.columns and a != ADR_ATTRIBUTE]
    if unknown:
        raise ValueError(f"attributes {[plain(a) for a in unknown]} are not columns of the annotators table "
                         f"(columns: {columns}; {ADR_ATTRIBUTE!r} asks for the cross-fitted ADR)")
    if len(set(attrs)) != len(attrs):
        raise ValueError(f"attributes names an attribute twice: {attrs}")
    if not annotators.index.isin(present).any():
        raise ValueError(f"annotators shares no id with annotator_ids (its index holds e.g. "
                         f"{[plain(v) for v in annotators.index[:3]]}, the annotators are e.g. "
                         f"{[plain(v) for v in present[:3]]}): index it by annotator id, with the same dtype")
    table = annotators.reindex(present)
    for a in attrs:
        if a == ADR_ATTRIBUTE and a not in annotators.columns:
            continue
        n_values = table[a].nunique(dropna=True)
        if n_values < 2:
            shown = [plain(v) for v in pd.unique(table[a].dropna())]
            raise ValueError(f"attributes: {a!r} has {'a single value ' + repr(shown[0]) if n_values else 'no value'} "
                             f"among the {len(present)} annotators of the data, so it cannot split them; leave it out")
    return table, [str(a) if not isinstance(a, str) else a for a in attrs]


def _check_performance(performance: Any) -> str:
    if not isinstance(performance, str):
        raise TypeError(f"performance must be one of {list(DISCOVERY_PERFORMANCES)} (a name: a discovery scores "
                        f"each annotation), got {type(performance).__name__} {performance!r}")
    if performance in PERFORMANCES and performance not in DISCOVERY_PERFORMANCES:
        raise ValueError(f"performance {performance!r} is not a mean of per-annotation scores, which the discovery "
                         f"compares across annotators; use one of {list(DISCOVERY_PERFORMANCES)}")
    return check_choice(performance, "performance", DISCOVERY_PERFORMANCES)


# ----------------------------------------------------------------------------------------------
# the function
# ----------------------------------------------------------------------------------------------
def excluded_groups(
    y_true: Any,
    y_pred: Any,
    *,
    item_ids: Any = None,
    annotator_ids: Any = None,
    annotators: pd.DataFrame,
    attributes: str | list[str] | None = None,
    max_conditions: int = 2,
    adjust: str = "none",
    alpha: float = 0.05,
    n_perm: int = 999,
    min_annotators: int = 5,
    performance: str = "accuracy",
    ranges: int = 4,
    balance: str = "conditions",
    pos_label: Any = 1,
    positive_from: float | None = None,
    tie: str = "favorable",
    random_state: Any = None,
) -> ExcludedGroups:
    """Discover the annotator groups whose opinions a model excludes: served worse than the other annotators.

    See the module docstring for the statistic, the permutation max-T and the item adjustment.

    Args:
        y_true: the annotators' labels (ratings for ``"mae"``/``"within_one"``), one per annotation.
        y_pred: the model's prediction for each annotation.
        item_ids, annotator_ids: item and annotator of each annotation (arrays aligned with ``y_true``, or index
            level names of ``y_true``; default levels ``"item"``, ``"annotator"``).
        annotators: annotator attributes, a DataFrame indexed by annotator id.
        attributes: the columns of ``annotators`` to combine (default: all); ``"adr"`` (when no column has that
            name) adds the annotator's ADR, cross-fitted on item halves.
        max_conditions: most conditions per group, 1 to 3.
        adjust: "none" (raw scores) or "items" (each annotation against the other annotations of its item).
        alpha: family-wise error level over every candidate.
        n_perm: Monte Carlo permutations of annotators (>= 19 and enough to reach ``alpha``); with at most 8
            annotators every permutation is enumerated instead.
        min_annotators: fewest annotators in a group, and in the rest it is compared with (>= 2); smaller groups are
            counted in the summary.
        performance: one of :data:`DISCOVERY_PERFORMANCES`.
        ranges: quantile ranges a numeric attribute (and the ADR) is cut into (>= 2).
        balance: the classes of the max-T (:data:`BALANCES`). "conditions" (default): the candidates of each number
            of conditions get their own threshold, so the few single attributes are found more easily and the
            many intersections less easily. "none": the plain max-T, one threshold for every candidate, lower than
            the balanced one for intersections (found more easily) and higher for single attributes.
        pos_label: the positive label of the rates (binary labels).
        positive_from: with ratings, the lowest rating of the positive class (the majority vote of the ADR uses
            ``rating >= positive_from``; without it the ADR measures disagreement with the item's median rating).
        tie: majority-vote tie policy of the ADR.
        random_state: seed or numpy Generator of the permutations.

    Returns:
        ExcludedGroups: :meth:`~ExcludedGroups.findings`, :meth:`~ExcludedGroups.members`,
        :meth:`~ExcludedGroups.summary`, :meth:`~ExcludedGroups.sentence`.

    Raises:
        ValueError: an annotator table without a named attribute, an attribute with one value, ``min_annotators``
            < 2, ``max_conditions`` outside 1-3, an unknown ``adjust``, ``balance`` or ``performance``, misaligned
            inputs.
        TypeError: ``annotators`` not a DataFrame, an option of the wrong type.

    References:
        Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine Learning.
        Westfall, P. H., Young, S. S. (1993). Resampling-Based Multiple Testing.
        Chung, E., Romano, J. P. (2013). Exact and asymptotically robust permutation tests.
        Beran, R. (1988). Balanced simultaneous confidence sets (``balance="conditions"``).

    Examples:
        >>> ex = excluded_groups(y, p, item_ids=items, annotator_ids=who, annotators=table,  # doctest: +SKIP
        ...                      attributes=["gender", "age"], adjust="items", random_state=0)
        >>> ex.findings()[["description", "gap", "p_adjusted"]]  # doctest: +SKIP
    """
    opts = check_discovery_options(max_conditions=max_conditions, min_annotators=min_annotators, ranges=ranges,
                                   adjust=adjust, alpha=alpha, n_perm=n_perm, performance=performance,
                                   random_state=random_state, balance=balance)
    info = PERFORMANCES[opts.performance]

    # -- encode (the opinion-exclusion faces' checks and messages)
    check_same_index({"y_true": y_true, "y_pred": y_pred, "item_ids": item_ids, "annotator_ids": annotator_ids})
    ratings = None
    yt, yp = y_true, y_pred
    if info.needs_ratings:
        if positive_from is not None:
            yt, yp, ratings = _binary_view(y_true, y_pred, positive_from, pos_label)
        else:
            n = len(y_true)
            ratings = (check_ratings(y_true, "y_true", n), check_ratings(y_pred, "y_pred", n))
            yt = yp = np.zeros(n, dtype=np.int64)  # no binary view: the ADR uses the median rating
            pos_label = 1
    elif positive_from is not None:
        yt, yp, _ = _binary_view(y_true, y_pred, positive_from, pos_label)
    enc = encode_annotations(yt, yp, _ids(y_true, item_ids, "item", "item_ids"),
                             _ids(y_true, annotator_ids, "annotator", "annotator_ids"), pos_label=pos_label,
                             ratings=ratings)
    check_unique_pairs(enc.item_codes, enc.annotator_codes, enc.items, enc.annotators)
    reference = "median" if (info.needs_ratings and positive_from is None) else "majority"
    return discover_excluded(enc, annotators, attributes, opts, tie=tie, adr_reference=reference)


@dataclass(frozen=True)
class DiscoveryOptions:
    """The validated options of a discovery (:func:`check_discovery_options`)."""

    max_conditions: int
    min_annotators: int
    ranges: int
    adjust: str
    alpha: float
    n_perm: int
    performance: str
    rng: np.random.Generator
    balance: str = "conditions"


def check_discovery_options(*, max_conditions: Any = 2, min_annotators: Any = 5, ranges: Any = 4, adjust: Any = "none",
                            alpha: Any = 0.05, n_perm: Any = 999, performance: Any = "accuracy",
                            random_state: Any = None, balance: Any = "conditions") -> DiscoveryOptions:
    """Validate the options of :func:`excluded_groups` (the same checks and messages for every face).

    Raises:
        ValueError: ``max_conditions`` outside 1-3, ``min_annotators`` < 2, ``ranges`` < 2, an unknown ``adjust``,
            ``balance`` (:data:`BALANCES`; a non-string included) or ``performance``, ``alpha`` outside (0, 1), too
            few permutations to reach ``alpha``.
        TypeError: an option of the wrong type.
    """
    max_conditions = check_int(max_conditions, "max_conditions", low=1, high=3)
    min_annotators = check_int(min_annotators, "min_annotators", low=2)
    ranges = check_int(ranges, "ranges", low=2)
    check_choice(adjust, "adjust", ADJUSTMENTS)
    check_choice(balance, "balance", BALANCES)
    alpha = check_alpha(alpha)
    n_perm = check_n_permutations(n_perm)
    if alpha * (n_perm + 1) < 1:
        raise ValueError(f"n_perm={n_perm} cannot reach alpha={alpha:g} (the smallest p-value is 1 / (n_perm + 1)): "
                         f"use n_perm >= {math.ceil(1 / alpha) - 1}")
    return DiscoveryOptions(max_conditions=max_conditions, min_annotators=min_annotators, ranges=ranges,
                            adjust=adjust, alpha=alpha, n_perm=n_perm, performance=_check_performance(performance),
                            rng=check_random_state(random_state), balance=balance)


def discover_excluded(enc: EncodedAnnotations, annotators: Any, attributes: Any, opts: DiscoveryOptions, *,
                      tie: str = "favorable", adr_reference: str = "majority") -> ExcludedGroups:
    """The discovery on encoded annotations (the core both faces call; see :func:`excluded_groups`).

    Args:
        enc: encoded annotations (their binary view for the ADR; ratings for the measures on ratings).
        annotators: annotator attributes, a DataFrame indexed by annotator id.
        attributes: the attributes to combine (None = every column), ``"adr"`` for the cross-fitted ADR.
        opts: :func:`check_discovery_options`.
        tie: majority-vote tie policy of the ADR.
        adr_reference: "majority" or "median" (ratings), as for ``adr_fit="cross"``.

    Returns:
        ExcludedGroups
    """
    max_conditions, min_annotators, ranges = opts.max_conditions, opts.min_annotators, opts.ranges
    adjust, alpha, n_perm, performance, rng = opts.adjust, opts.alpha, opts.n_perm, opts.performance, opts.rng
    info = PERFORMANCES[performance]
    table, attrs = _check_attributes(annotators, attributes, enc.annotators)
    use_adr = ADR_ATTRIBUTE in attrs and ADR_ATTRIBUTE not in annotators.columns
    counts: dict[str, Any] = {"n_without_attributes": int((~enc.annotators.isin(annotators.index)).sum())}

    # -- scores, counted rows, item adjustment
    rows, score = _scores(performance, enc.t, enc.p, enc.r_true, enc.r_pred)
    raw = score.copy()
    if adjust == "items":
        items_rows = np.where(rows, enc.item_codes, len(enc.items))  # uncounted rows on a dummy item
        keep, adjusted = _item_adjusted(np.where(rows, score, 0.0), items_rows, len(enc.items) + 1)
        counts["n_single_annotation_items"] = int((rows & ~keep).sum())
        rows = rows & keep
        score = adjusted

    # -- units: annotators, or annotator halves (ADR cross-fitted on item halves, the opinion core's split)
    H = 2 if use_adr else 1
    half = np.zeros(enc.n, dtype=np.int64)
    adr_halves = None
    if use_adr:
        fit = cross_fit(enc, tie, adr_reference)
        half, adr_halves = fit.row_half, fit.adr
    n_all = len(enc.annotators)
    a_codes = enc.annotator_codes[rows]
    u_codes = a_codes * H + half[rows]
    n_u = np.bincount(u_codes, minlength=n_all * H).astype(np.float64).reshape(n_all, H)
    s_u = np.bincount(u_codes, weights=score[rows], minlength=n_all * H).reshape(n_all, H)
    raw_u = np.bincount(u_codes, weights=raw[rows], minlength=n_all * H).reshape(n_all, H)
    n_a = n_u.sum(axis=1)
    scored = n_a > 0
    counts["n_no_scored_annotation"] = int((~scored).sum())
    keep_a = np.flatnonzero(scored)
    n_u, s_u, raw_u, n_a = n_u[keep_a], s_u[keep_a], raw_u[keep_a], n_a[keep_a]
    ann_ids = enc.annotators[keep_a]
    k = len(keep_a)
    if k == 0:
        left = " left after adjust='items'" if adjust == "items" else ""
        raise ValueError(f"performance {performance!r} scores none of the {enc.n} annotations (it counts "
                         f"{_COUNTED[performance]}, and there are none{left}): choose another performance measure")

    # -- random-effects weights from the count model Var(y_a) = tau2 + sigma2 / n_a over all annotators (fixed
    # before permuting): sigma2 the pooled within-annotator variance of one annotation's score, tau2 fitted by the
    # test of equal service's own moments (studentized.group_moments, all annotators as one group)
    sq = np.bincount(a_codes, weights=score[rows] ** 2, minlength=n_all)[keep_a]
    y_a = s_u.sum(axis=1) / n_a
    sigma2, tau2 = _count_model(y_a, n_a, sq)
    rho = tau2 / (tau2 + sigma2) if tau2 + sigma2 > 0 else 0.0
    w_a = n_a / (1.0 + (n_a - 1.0) * rho)
    with np.errstate(divide="ignore", invalid="ignore"):
        y_u = np.where(n_u > 0, s_u / n_u, 0.0)
    w_u = w_a[:, None] * n_u / n_a[:, None]
    halves = []
    for h in range(H):
        w, y, nh = w_u[:, h], y_u[:, h], n_u[:, h]
        # the floor: the annotations' own noise in w y, w^2 sigma2 / n_u with w = w_a n_u / n_a
        halves.append(np.column_stack([w, w * y, w * w, w * w * y, w * w * y * y,
                                       w_a**2 * nh * sigma2 / n_a**2, (nh > 0).astype(np.float64)]))
    cross = None
    if H == 2:
        ww = w_u[:, 0] * w_u[:, 1]
        cross = np.column_stack([ww, ww * (y_u[:, 0] + y_u[:, 1]), ww * y_u[:, 0] * y_u[:, 1],
                                 ((n_u[:, 0] > 0) & (n_u[:, 1] > 0)).astype(np.float64)])
    data = _Data(halves, cross)

    # -- candidates over the units
    unit_table = table.loc[ann_ids, [a for a in attrs if not (use_adr and a == ADR_ATTRIBUTE)]]
    unit_table = unit_table.loc[unit_table.index.repeat(H)].reset_index(drop=True)
    if use_adr:
        assert adr_halves is not None
        # unit (a, h) scores half h, grouped by the ADR on the other half (CrossFit.half_unit)
        unit_table[ADR_ATTRIBUTE] = adr_halves[keep_a][:, ::-1].ravel()
        unit_table = unit_table[attrs]
    cand = build_candidates(unit_table, max_conditions, min_annotators, ranges)
    counts["n_identical"] = cand.n_identical
    counts["missing"] = cand.missing
    small_table = table.loc[ann_ids, [a for a in attrs if not (use_adr and a == ADR_ATTRIBUTE)]]
    if adr_halves is not None:
        both = adr_halves[keep_a]
        defined = np.isfinite(both)
        with np.errstate(divide="ignore", invalid="ignore"):
            mean_adr = np.where(defined, both, 0.0).sum(axis=1) / defined.sum(axis=1)
        small_table = small_table.assign(**{ADR_ATTRIBUTE: mean_adr})
    counts["n_small_groups"] = count_small_groups(small_table, attrs, max_conditions, ranges, min_annotators)
    counts["n_annotators"] = k
    counts["n_annotations"] = int(n_a.sum())

    members = cand.members
    identity = np.arange(k)[None, :]
    sums = _Sums(members, k, H, data)
    totals = {"h": np.sum([d.sum(axis=0) for d in halves], axis=0)}
    if cross is not None:
        totals["c"] = cross.sum(axis=0)
    obs = sums.sums(identity)
    gap, se, t, k_s, k_r, df, z = (x[:, 0] for x in _statistic(obs, totals, info.higher_is_better))
    ok = (k_s >= min_annotators) & (k_r >= min_annotators) & np.isfinite(t)
    counts["n_small_rest"] = int(((k_s >= min_annotators) & (k_r < min_annotators)).sum())
    keep_c = np.flatnonzero(ok)
    members = sp.csc_matrix(members[:, keep_c])
    descriptions = [cand.descriptions[i] for i in keep_c]
    n_cond = cand.n_conditions[keep_c]
    gap, se, t, k_s, df, z = gap[keep_c], se[keep_c], t[keep_c], k_s[keep_c], df[keep_c], z[keep_c]
    m = len(keep_c)
    counts["n_candidates"] = m
    # classes of candidates: their number of conditions (the few single attributes do not compete with the many pairs)
    classes, cls = np.unique(n_cond, return_inverse=True)  # the classes of the balanced max-T
    cls = np.asarray(cls, dtype=np.intp).ravel()

    # -- the null distribution of the largest statistic, in each direction: permutations of annotators (exact when
    # the annotators are exchangeable), and a wild bootstrap of annotators (each keeps its own spread: valid when the
    # annotators of a group differ among themselves more than the others do); the p-value is the larger of the two
    exact = k <= EXACT_MAX_ANNOTATORS
    smallest_p = 1.0 / (n_perm + 1)
    none = _Direction(np.zeros(m))
    worse = better = wild_worse = wild_better = none  # served worse (T), served better (-T)
    moments = np.zeros((m, 3))  # per candidate: permutations with a T, sum of T, sum of T^2
    if m:
        sums = _Sums(members, k, H, data)
        if exact:
            perms = np.array(list(itertools.permutations(range(k))), dtype=np.int64)
            batches = [perms[i:i + 4096] for i in range(0, len(perms), 4096)]
        else:
            batches = [rng.permuted(np.tile(np.arange(k), (b, 1)), axis=1) for b in _batch_sizes(n_perm)]
        pos, neg = _class_maxima((_statistic(sums.sums(perm), totals, info.higher_is_better) for perm in batches),
                                 cls, len(classes), moments)
        if exact:
            smallest_p = _smallest_p(members, perms, k, H, m)
        balanced = opts.balance == "conditions"
        worse = _Direction.from_null(pos, cls, z, alpha, exact, balanced)
        better = _Direction.from_null(neg, cls, -z, alpha, exact, balanced)
        if not exact:
            mean = float(totals["h"][_A] / totals["h"][_W])
            flips = _Flips(sums, *_wild_parts(data, mean))
            draws = (flips.sums_and_totals(rng.choice(np.array([-1.0, 1.0]), size=(b, k)))
                     for b in _batch_sizes(n_perm))
            pos, neg = _class_maxima((_statistic(*d, info.higher_is_better) for d in draws), cls, len(classes))
            wild_worse = _Direction.from_null(pos, cls, z, alpha, False, balanced)
            wild_better = _Direction.from_null(neg, cls, -z, alpha, False, balanced)
    p_perm = worse.p_adjusted if worse.p_adjusted is not None else np.zeros(m)
    p_wild = wild_worse.p_adjusted if wild_worse.p_adjusted is not None else np.full(m, np.nan)
    p_adj = np.fmax(p_perm, p_wild)
    offset, crit = worse.offset, worse.critical_value
    # the threshold z must pass: both schemes' (each its critical value plus the candidate's class offset); on the
    # scale of T through the candidate's own degrees of freedom
    z_threshold = np.fmax(crit + offset, wild_worse.critical_value + wild_worse.offset if not exact else np.nan)
    z_better = np.fmax(better.critical_value + better.offset,
                       wild_better.critical_value + wild_better.offset if not exact else np.nan)
    threshold, threshold_better = _from_normal(z_threshold, df), _from_normal(z_better, df)
    half_width = np.maximum(threshold, 0.0) * se
    upper_width = np.maximum(threshold_better, 0.0) * se
    # the gap found with 80% power: T must exceed the threshold, and T spreads around gap / se with the spread of
    # the candidate's T under the permutations (above 1 when its standard error is itself noisy: few annotators,
    # heavy-tailed counts), never taken below 1
    n_t = np.maximum(moments[:, 0], 1.0)
    var_t = moments[:, 2] / n_t - (moments[:, 1] / n_t) ** 2
    spread = np.maximum(np.sqrt(np.maximum(var_t, 0.0)), 1.0)
    detectable = _detectable_gap(threshold + _Z_POWER * spread, se, obs, keep_c, sigma2, totals,
                                 binary=performance != "mae" and adjust == "none", higher=info.higher_is_better)

    # -- raw performance of the group and the rest (the weighted means of the raw scores)
    raw_cols = [np.column_stack([w_u[:, h], w_u[:, h] * np.where(n_u[:, h] > 0, raw_u[:, h] / np.maximum(n_u[:, h], 1),
                                                                  0.0)]) for h in range(H)]
    mt = sp.csr_matrix(members.T, dtype=np.float64)
    g_raw: np.ndarray = (np.sum([np.asarray(mt[:, h::H] @ raw_cols[h]) for h in range(H)], axis=0) if m
                         else np.zeros((0, 2)))
    t_raw: np.ndarray = np.sum([rc.sum(axis=0) for rc in raw_cols], axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        perf_s = g_raw[:, 1] / g_raw[:, 0]
        perf_r = (t_raw[1] - g_raw[:, 1]) / (t_raw[0] - g_raw[:, 0])
    n_ann_s = np.asarray(mt @ n_u.ravel()).ravel() if m else np.zeros(0)

    tbl = pd.DataFrame({
        "description": descriptions,
        "n_conditions": n_cond,
        "n_annotators": k_s.astype(np.int64),
        "n_annotations": n_ann_s.astype(np.int64),
        "performance": perf_s,
        "rest_performance": perf_r,
        "gap": gap,
        "se": se,
        "t": t,
        "df": df,
        "z": z,
        "ci_low": gap - half_width,
        "ci_high": gap + upper_width,
        "p_adjusted": p_adj,
        "p_permutation": p_perm,
        "p_wild": p_wild,
        "detectable_gap": detectable,
        "threshold": threshold,
    })
    # most excluded first: by the lower end of the simultaneous interval, the gap the data vouch for (reported groups,
    # whose interval excludes 0, come first; a subgroup's larger but noisier gap, or its parent's diluted one, rank
    # below the group itself), then by the statistic (all ends are -inf when nothing can be reported)
    order = np.lexsort((-(t - threshold), -(gap - half_width)))
    tbl = tbl.iloc[order].reset_index(drop=True)
    tbl.index.name = "candidate"
    members = sp.csc_matrix(members[:, order])
    tbl["shared_items"] = _shared_items(enc, rows, half, H, keep_a, members, counts["n_annotations"])
    unit_ann = pd.Index(np.repeat(np.asarray(ann_ids, dtype=object), H), name="annotator")
    notes = []
    if exact and m:
        notes.append(f"with {k} annotators every permutation is enumerated and the permutation p-value is exact when "
                     "annotators are exchangeable; the wild bootstrap, which guards against groups whose annotators "
                     "differ among themselves more than the others do, needs more annotators and was not run")
    if use_adr:
        notes.append("ADR cross-fitted on item halves: each annotator's annotations of one half are grouped by its "
                     "ADR on the other half")
    return ExcludedGroups(
        table=tbl, alpha=alpha, performance=performance, higher_is_better=info.higher_is_better, adjust=adjust,
        critical_value=crit, wild_critical_value=wild_worse.critical_value if not exact else np.nan,
        smallest_p=smallest_p, n_permutations=math.factorial(k) if exact else n_perm, exact=exact,
        counts=counts, annotator_units=unit_ann, members_matrix=members, attributes=tuple(attrs),
        max_conditions=max_conditions, min_annotators=min_annotators, notes=tuple(notes), balance=opts.balance,
        engine=(data, totals),
    )


def _shared_items(enc: Any, rows: np.ndarray, half: np.ndarray, H: int, keep_a: np.ndarray, members: sp.csc_matrix,
                  n_annotations: int) -> np.ndarray:
    """Per candidate, the share of its annotations on items some annotator outside it also annotated."""
    m = members.shape[1]
    out = np.full(m, np.nan)
    if not m:
        return out
    pos = np.full(len(enc.annotators), -1, dtype=np.int64)
    pos[keep_a] = np.arange(len(keep_a))
    r = np.flatnonzero(rows & (pos[enc.annotator_codes] >= 0))
    unit = pos[enc.annotator_codes[r]] * H + half[r]
    A = sp.csr_matrix((np.ones(len(r)), (unit, enc.item_codes[r])), shape=(members.shape[0], len(enc.items)))
    item_total = np.asarray(A.sum(axis=0)).ravel()
    top = m if m * n_annotations <= _SHARED_BUDGET else min(m, _SHARED_TOP)
    mt = sp.csr_matrix(members[:, :top].T, dtype=np.float64)
    for s0 in range(0, top, 64):
        P = sp.csr_matrix(mt[s0:s0 + 64] @ A)
        rows_of = np.repeat(np.arange(P.shape[0]), np.diff(P.indptr))
        shared = P.data * (item_total[P.indices] - P.data > 0)
        num = np.bincount(rows_of, weights=shared, minlength=P.shape[0])
        den = np.bincount(rows_of, weights=P.data, minlength=P.shape[0])
        with np.errstate(divide="ignore", invalid="ignore"):
            out[s0:s0 + P.shape[0]] = num / den
    return out
