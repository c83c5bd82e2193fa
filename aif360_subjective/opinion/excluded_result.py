"""The answer of :func:`~aif360_subjective.opinion.excluded_groups`: the table of every candidate tested, the
findings, their members, the sentence and the summary (:class:`ExcludedGroups`).

It reads the table the search (:mod:`~aif360_subjective.opinion.excluded`) built and states it; it computes no
statistic.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

__all__ = ["DETECTABLE_POWER", "ExcludedGroups", "SCORE_IS_ZERO_ONE", "SHARED_NONE", "SHARED_WARNING"]

#: Power the minimum detectable gap is stated for.
DETECTABLE_POWER = 0.8
#: Below this share of a finding's annotations on items other annotators also labelled, the answer warns that the
#: raw gap may be the items' difficulty.
SHARED_WARNING = 0.5
#: With ``adjust="items"``, below this share of a group's annotations on items other annotators also labelled, the
#: item-by-item comparison has (almost) nothing to compare: the answer says it cannot decide about that group.
SHARED_NONE = 0.05
#: The measures whose per-annotation score is 0 or 1 (rates, accuracy): a group's mean lies in [0, 1], which bounds
#: the gap a group can have (the mean absolute error is bounded by the rating scale, which the result does not hold).
SCORE_IS_ZERO_ONE = frozenset({"accuracy", "true_positive_rate", "true_negative_rate", "false_positive_rate",
                               "false_negative_rate", "precision", "within_one"})

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
        step_down: whether ``p_adjusted`` (and ``p_permutation``, ``p_wild``) are Westfall and Young's free step-down
            p-values (the critical values, thresholds and intervals are the single step's either way).
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
    step_down: bool = False
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
        if c["n_candidates"] == 0 and c.get("constant_score") is not None and self.adjust == "items":
            return (f"Cannot answer: every item-adjusted {self.performance} score is {c['constant_score']:g}: on "
                    "each item the annotations scored all get the same score (as with a model predicting one label "
                    "per item), so compared item by item no annotator group can be served worse or better "
                    f"({c.get('n_undefined', 0):,} groups of at least {self.min_annotators} annotators have no defined "
                    "statistic); without adjust='items' the groups are compared on their raw scores.")
        if c["n_candidates"] == 0 and c.get("constant_score") is not None:
            return (f"Cannot answer: every scored annotation has the same {self.performance} score "
                    f"({c['constant_score']:g}), so no annotator group can be served worse or better than the others "
                    f"({c.get('n_undefined', 0):,} groups of at least {self.min_annotators} annotators have no defined "
                    "statistic).")
        if c["n_candidates"] and c.get("n_annotations") == c.get("n_annotators"):
            return (f"Cannot answer: each of the {c['n_annotators']:,} annotators has one scored annotation"
                    f"{' (after the item adjustment)' if self.adjust == 'items' else ''}, so an annotator's own "
                    "spread cannot be told from the spread between annotators, which the test and its detectable "
                    "gap rest on.")
        if c["n_candidates"] == 0:
            return (f"Cannot answer: no annotator group of up to {self.max_conditions} conditions holds at least "
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
            p_top = float(top["p_adjusted"])
            borderline = ""
            if p_top > self.alpha / 2:  # at the edge of alpha: the evidence is thin, whatever the point estimate
                borderline = (f" Borderline: the adjusted p is above alpha / 2 = {self.alpha / 2:g} and the interval "
                              f"starts at {top['ci_low']:.3f}, near no gap.")
            return (f"Served worse: {top['description']} ({int(top['n_annotators']):,} annotators), gap "
                    f"{top['gap']:.3f}{adj} [{top['ci_low']:.3f}, {top['ci_high']:.3f}], "
                    f"{self.p_text(p_top)}, among {what}{more}.{borderline}{caveat}{self._unshared_text()}")
        if self._confounded_with_items():
            return (f"Cannot answer: under {SHARED_NONE:.0%} of every group's annotations are on items someone "
                    f"outside the group also labelled (most items carry one annotation), so a group's "
                    f"{self.performance} measures its items as much as its annotators; no gap can be stated among "
                    f"{what}.")
        return f"No annotator group is served worse at alpha = {self.alpha:g} among {what}{self._detectable_text()}"

    def gap_bound(self) -> np.ndarray:
        """Per candidate, the largest gap its measure allows (inf when the result cannot bound it): for a 0/1 score,
        the group's mean cannot leave [0, 1], so the gap is at most the rest's performance (the rest's shortfall
        from 1 where lower is better); an item-adjusted score is a difference of two such means, at most 1 apart
        on average in the group's favour or against it."""
        n = len(self.table)
        if self.performance not in SCORE_IS_ZERO_ONE:
            return np.full(n, np.inf)
        if self.adjust == "items":
            return np.ones(n)
        rest = self.table["rest_performance"].to_numpy(dtype=np.float64)
        return rest if self.higher_is_better else 1.0 - rest

    def _detectable_text(self) -> str:
        """"; with these annotators a gap of ... would have been found ...", bounded by what the measure allows, then
        the groups the item-adjusted comparison cannot decide about."""
        adj = " (item-adjusted)" if self.adjust == "items" else ""
        mdg = self.table["detectable_gap"].to_numpy(dtype=np.float64)
        reachable = np.isfinite(mdg) & (mdg <= self.gap_bound())
        single = self.table["n_conditions"].to_numpy() == 1
        usable = ~self._unshared()  # a gap of a group compared with nobody could not have been found
        among = single & usable if (single & usable).any() else usable
        pool = mdg[among & reachable]
        n_out = int((among & np.isfinite(mdg) & ~reachable).sum())
        out = ""
        if len(pool):
            out = (f"; with these annotators a gap{adj} of {np.min(pool):.3f} (largest single-condition group) to "
                   f"{np.max(pool):.3f} (smallest) would have been found about {DETECTABLE_POWER:.0%} of the time "
                   "(normal approximation)")
            if n_out:
                out += (f"; for {_count(n_out, 'other group')} no gap {self.performance} allows would be found "
                        "that reliably")
        elif n_out:
            out = (f"; but with these annotators no gap{adj} that {self.performance} allows would be found "
                   f"{DETECTABLE_POWER:.0%} of the time (the smallest such gap, {np.nanmin(mdg[among]):.3f}, is "
                   "larger than the largest possible): the search cannot answer on these data")
        return out + "." + self._unshared_text()

    def _confounded_with_items(self) -> bool:
        """Without the item adjustment, whether (almost) no group shares items with annotators outside it: under
        :data:`SHARED_NONE` of the scored annotations are on items with another one, or every tested group's known
        ``shared_items`` is below it."""
        if self.adjust != "none" or not len(self.table):
            return False
        if self.counts.get("shared_share", 1.0) < SHARED_NONE:  # (almost) every item carries one annotation
            return True
        shared = self.table["shared_items"].to_numpy(dtype=np.float64)
        known = shared[np.isfinite(shared)]
        return bool(len(known)) and bool(np.all(known < SHARED_NONE))

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
            f"attributes: {', '.join(self.attributes)}; up to {self.max_conditions} conditions",
            (f"{_count(c['n_candidates'], 'candidate group')} tested (max-T over all of them, "
             f"{'every one of ' if self.exact else ''}{self.n_permutations:,} permutations of annotators"
             f"{'' if self.exact else ' and as many wild-bootstrap draws, p the larger of the two'}"
             f"{_BALANCE_TEXT[self.balance]}{_STEP_DOWN_TEXT if self.step_down else ''})"
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
#: What :meth:`ExcludedGroups.summary` says of ``step_down=True`` (nothing for the default, the single step).
_STEP_DOWN_TEXT = ("; step-down p-values (each candidate against the candidates not more significant than it), "
                   "intervals and thresholds of the single step")


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _rounded_up(x: float) -> str:
    """``x`` rounded *up* to two significant digits (1/201 -> ``0.005``), so that "≤" stays true."""
    digits = 1 - int(np.floor(np.log10(x)))
    return np.format_float_positional(np.ceil(x * 10**digits - 1e-9) / 10**digits, trim="-")
