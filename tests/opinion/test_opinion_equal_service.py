"""The test of equal service, the unfairness interval that can reach 0, cross-fitted ADR bins and the verdict."""

from __future__ import annotations

import dataclasses
import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats

from aif360_subjective.datasets import make_subjective_dataset
from aif360_subjective.metrics import OpinionExclusionMetric
from aif360_subjective.opinion.annotations import encode_annotations
from aif360_subjective.opinion.bootstrap import crossed_group_values
from aif360_subjective.opinion.equal_service import (
    ExclusionTest,
    UnfairnessInterval,
    _satterthwaite,
    p_value_text,
    unfairness_interval,
    verdict_sentence,
)
from aif360_subjective.opinion.options import check_interval_options
from aif360_subjective.opinion.uncertainty import opinion_intervals
from aif360_subjective.sklearn.metrics import opinion_exclusion


def _per_annotator(correct: dict[str, tuple[int, int]]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Annotations whose accuracy per annotator is ``correct[a] = (right, total)`` (predictions all 1)."""
    y, ann, items = [], [], []
    for a, (right, total) in correct.items():  # a handful of annotators in a hand-made case
        y += [1] * right + [0] * (total - right)
        ann += [a] * total
        items += list(range(total))
    return np.array(y), np.ones(len(y), dtype=int), np.array(items), np.array(ann)


FOUR = {"a1": (10, 10), "a2": (8, 10), "a3": (5, 10), "a4": (4, 10)}
PAIRS = pd.Series({"a1": "A", "a2": "A", "a3": "B", "a4": "B"})


def test_permutation_p_value_equals_the_enumeration_by_hand():
    # groups A = {1.0, 0.8}, B = {0.5, 0.4}; between SS = sum_g k_g (m_g - m)^2 with m = 0.675:
    # A={1,.8}/{.5,.4}: 2(.225^2)+2(.225^2) = .2025 (twice); {1,.5}/{.8,.4}: .0225 (twice); {1,.4}/{.8,.5}: .0025
    # (twice): 2 of the 6 distinct assignments reach the observed .2025, p = 1/3
    y, p, items, ann = _per_annotator(FOUR)
    res = opinion_exclusion(y, p, item_ids=items, annotator_ids=ann, grouping=PAIRS, test=True, n_permutations=99,
                            warn_group_size=0, test_statistic="between")
    t = res.exclusion_test
    assert isinstance(t, ExclusionTest) and t.exact and t.n_permutations == 6
    assert t.statistic == pytest.approx(0.2025) and t.p_value == pytest.approx(1 / 3)
    assert t.n_units == 4 and t.n_groups == 2 and t.n_undefined_units == 0
    # the same by brute force over all 4! orderings
    values = np.array([1.0, 0.8, 0.5, 0.4])
    stat = [2 * (values[list(o[:2])].mean() - .675) ** 2 + 2 * (values[list(o[2:])].mean() - .675) ** 2
            for o in itertools.permutations(range(4))]
    assert np.mean(np.array(stat) >= 0.2025 - 1e-12) == pytest.approx(t.p_value)
    assert res.unfairness_ci is None  # the test alone was asked for


def test_std_statistic_and_unequal_groups_by_hand():
    # groups A = {a1}, B = {a2, a3, a4}: 4 distinct assignments (which annotator is alone)
    y, p, items, ann = _per_annotator(FOUR)
    alone = pd.Series({"a1": "A", "a2": "B", "a3": "B", "a4": "B"})
    res = opinion_exclusion(y, p, item_ids=items, annotator_ids=ann, grouping=alone, test=True, n_permutations=99,
                            test_statistic="std", warn_group_size=2)
    t = res.exclusion_test
    # std of (alone, mean of the rest): a1 alone |1 - .5667|/2 = .2167 is the largest of the 4 -> p = 1/4
    assert t.statistic_name == "std" and t.statistic == pytest.approx(abs(1.0 - 1.7 / 3) / 2)
    assert t.p_value == pytest.approx(0.25) and t.n_permutations == 4
    assert t.thin_groups == ("A",) and t.n_thin_groups == 1 and t.thin_threshold == 2


def test_monte_carlo_test_is_seeded_and_counts_the_data_itself():
    ds = make_subjective_dataset(n_items=300, random_state=1)
    pred = ds.with_predictions(ds.labels.ravel())
    kw = dict(item_ids=ds.item_ids, annotator_ids=ds.annotator_ids, pos_label=0.0, test=True, n_permutations=199,
              warn_group_size=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = opinion_exclusion(ds.labels.ravel(), pred.labels.ravel(), random_state=3, **kw).exclusion_test
        b = opinion_exclusion(ds.labels.ravel(), pred.labels.ravel(), random_state=3, **kw).exclusion_test
    assert a == b and not a.exact and a.n_permutations == 199
    assert a.p_value >= 1 / 200 and (a.p_value * 200) == pytest.approx(round(a.p_value * 200))
    assert a.method.startswith("cross-fitted")


def _groups_of(values: list[list[float]], total: int = 100) -> tuple:
    """Annotators with given accuracies (out of ``total``), one list per group."""
    correct, labels = {}, {}
    for g, accs in enumerate(values):
        for i, acc in enumerate(accs):
            correct[f"g{g}a{i}"] = (round(acc * total), total)
            labels[f"g{g}a{i}"] = f"g{g}"
    return *_per_annotator(correct), pd.Series(labels)


def test_unfairness_interval_equals_the_classical_noncentral_f_on_equal_groups():
    y, p, items, ann, groups = _groups_of([[0.6, 0.8, 0.7], [0.65, 0.75, 0.72], [0.7, 0.72, 0.62]])
    res = opinion_exclusion(y, p, item_ids=items, annotator_ids=ann, grouping=groups, warn_group_size=0)
    iv = unfairness_interval(res, 0.95)
    # one-way ANOVA by hand: k = 3, G = 3
    vals = [np.array(g) for g in ([0.6, 0.8, 0.7], [0.65, 0.75, 0.72], [0.7, 0.72, 0.62])]
    means = np.array([v.mean() for v in vals])
    msw = sum(((v - v.mean()) ** 2).sum() for v in vals) / (9 - 3)
    f = 3 * ((means - means.mean()) ** 2).sum() / 2 / msw
    assert iv.df == pytest.approx((2.0, 6.0)) and iv.method == "noncentral F"
    assert stats.f.cdf(f, 2, 6) < 0.975  # the data do not reject "no spread": the interval reaches 0
    assert iv.low == 0.0 and iv.indistinguishable_from_noise
    lam_hi = optimize.brentq(lambda nc: stats.ncf.cdf(f, 2, 6, nc) - 0.025, 1e-9, 1e3)
    assert iv.high == pytest.approx(np.sqrt(lam_hi * msw / (3 * 3)), rel=1e-6)  # lambda = k G theta^2 / sigma^2
    debiased = np.sqrt(max(0.0, ((means - means.mean()) ** 2).sum() - msw / 3 * 2) / 3)
    assert iv.debiased == pytest.approx(debiased) and iv.estimate == pytest.approx(res.unfairness)


def test_equal_groups_give_an_interval_from_0():
    y, p, items, ann, groups = _groups_of([[0.6, 0.8], [0.8, 0.6], [0.7, 0.7]])  # equal means
    res = opinion_exclusion(y, p, item_ids=items, annotator_ids=ann, grouping=groups, ci=0.95, n_boot=200,
                            random_state=0, warn_group_size=0)
    assert res.unfairness == pytest.approx(0.0, abs=1e-12)
    assert tuple(res.unfairness_ci) == (0.0, 0.0) and res.unfairness_ci.debiased == 0.0
    assert "indistinguishable from noise" in repr(res.unfairness_ci)
    # 3 groups of 2: 90 distinct arrangements, 6 of them the data's up to the groups' names, so p >= 1/15 > 0.05:
    # the verdict says the test cannot decide (it used to say "no evidence ... (p = 1)")
    t = res.exclusion_test
    assert t.exact and t.n_permutations == 90 and t.smallest_p == pytest.approx(6 / 90)
    assert res.verdict() == ("the test cannot decide whether a group is served worse: with 6 units in 3 groups the "
                             "smallest p-value it can give is 0.067 (all 90 arrangements), above the level 0.05; "
                             "the groups' accuracy runs from 0.70 to 0.70 (raw figures)")


def test_unequal_sizes_satterthwaite_reduces_to_anova_for_equal_sizes():
    tr1, c, nu = _satterthwaite(np.full(4, 1 / 5))
    assert (tr1, c, nu) == pytest.approx((3 / 5, 1 / 5, 3.0))
    tr1, c, nu = _satterthwaite(np.array([1.0, 1 / 10, 1 / 10]))  # one group of 1, two of 10
    # tr(CW) = (1 - 1/3) * 1.2 = 0.8; tr((CW)^2) = (1 + .01 + .01)(1 - 2/3) + 1.44/9 = 0.5
    assert tr1 == pytest.approx(0.8) and c == pytest.approx(0.5 / 0.8) and nu == pytest.approx(0.64 / 0.5)


def test_verdict_names_the_worst_group_when_the_test_rejects():
    y, p, items, ann, groups = _groups_of([[0.9, 0.92, 0.93, 0.93], [0.6, 0.62, 0.61, 0.61]], total=200)
    res = opinion_exclusion(y, p, item_ids=items, annotator_ids=ann, grouping=groups, ci=0.95, n_boot=200,
                            random_state=0, n_permutations=99, warn_group_size=0)
    t = res.exclusion_test
    assert t.exact and t.n_permutations == 70 and t.p_value == pytest.approx(2 / 70)  # C(8,4): only the data and
    table = res.group_table  # its mirror image reach the observed split
    g = t.groups(0.05)
    assert g.loc["g1", "p_adjusted"] == pytest.approx(2 / 70) and g.loc["g1", "gap"] == pytest.approx(0.92 - 0.61)
    assert g.loc["g1", "significant"] and g.loc["g1", "ci_low"] > 0  # the group is named with its interval
    sentence = res.verdict()
    assert sentence == (f"g1 is served worse than the other groups: accuracy 0.61 [{table.loc['g1', 'ci_low']:.2f}, "
                        f"{table.loc['g1', 'ci_high']:.2f}] against 0.92 for the rest, gap 0.31 "
                        f"[{g.loc['g1', 'ci_low']:.2f}, {g.loc['g1', 'ci_high']:.2f}] (max-T adjusted p = 0.029 over "
                        "2 groups; across-groups test, p = 0.029)")
    assert verdict_sentence(res, alpha=0.01).startswith("the test cannot decide")  # 2/70 > 0.01 is the floor


def test_verdict_with_a_one_annotator_group():
    y, p, items, ann, groups = _groups_of([[0.95], [0.5, 0.52, 0.51, 0.49, 0.5, 0.48, 0.5]], total=400)
    res = opinion_exclusion(y, p, item_ids=items, annotator_ids=ann, grouping=groups, ci=0.95, n_boot=200,
                            random_state=0, n_permutations=99, warn_group_size=0)
    assert res.group_table.loc["g0", ["ci_low", "ci_high"]].isna().all()
    assert res.exclusion_test.p_value == pytest.approx(1 / 8)  # 8 ways to pick the lone annotator
    # 1/8 is also the smallest p-value this design can give: at 0.05 the test cannot decide (not "no evidence")
    assert res.verdict().startswith("the test cannot decide whether a group is served worse: with 8 units in 2 "
                                    "groups the smallest p-value it can give is 0.12")
    assert verdict_sentence(res, alpha=0.2).startswith("g1 is served worse than the other groups: accuracy 0.50 [")
    assert "against 0.95 for the rest, gap 0.45 [" in verdict_sentence(res, alpha=0.2)


def test_p_value_text():
    assert p_value_text(0.41) == "p = 0.41" and p_value_text(0.0004) == "p < 0.001"
    assert p_value_text(0.046) == "p = 0.046" and p_value_text(np.nan) == "p undefined"


# ------------------------------------------------------------------ cross-fitted ADR bins
def _hand_made():
    # items 0..3 (item codes: halves 0, 1, 0, 1), annotators a, b, c on every item, predictions all 1
    labels = {"a": [1, 1, 0, 1], "b": [1, 0, 1, 0], "c": [0, 0, 1, 1]}
    y = np.array([v for a in labels for v in labels[a]])
    ann = np.repeat(list(labels), 4)
    items = np.tile(np.arange(4), 3)
    return y, np.ones_like(y), items, ann


def test_cross_fit_by_hand():
    # majority votes: item0 1 (2 of 3), item1 0, item2 1, item3 1.
    # ADR on half 0 (items 0, 2): a 1/2, b 0, c 1/2; on half 1 (items 1, 3): a 1/2, b 1/2, c 0.
    # bins [0, .25], (.25, 1]. Rows of half 0 take the bin of the ADR on half 1 and vice versa:
    # a: both halves high -> (high, a) with all 4 rows, accuracy 3/4; b: half 0 rows -> high (ADR_1 = 1/2),
    # half 1 rows -> low (ADR_0 = 0); c: half 0 rows -> low (ADR_1 = 0), half 1 rows -> high (ADR_0 = 1/2)
    y, p, items, ann = _hand_made()
    res = opinion_exclusion(y, p, item_ids=items, annotator_ids=ann, bins=[0, 0.25, 1], adr_fit="cross",
                            warn_group_size=0)
    units = res.unit_performance.assign(group=lambda d: d["group"].astype(str))
    got = {(g, a): (n, perf) for g, a, n, perf in units[["group", "annotator", "n_annotations", "performance"]]
           .itertuples(index=False)}
    low, high = (str(x) for x in res.group_table.index)
    assert got == {
        (high, "a"): (4, 0.75),  # labels 1, 1, 0, 1
        (high, "b"): (2, 1.0),  # items 0, 2: labels 1, 1
        (low, "b"): (2, 0.0),  # items 1, 3: labels 0, 0
        (low, "c"): (2, 0.5),  # items 0, 2: labels 0, 1
        (high, "c"): (2, 0.5),  # items 1, 3: labels 0, 1
    }
    assert res.group_table["performance"].tolist() == pytest.approx([0.25, (0.75 + 1.0 + 0.5) / 3])
    assert res.grouping_summary.unit == "annotator half-sample" and res.grouping_summary.n_units == 6
    # the paper's ADR is unchanged: a 2/4, b 1/4, c 1/4; its bins: b, c low (accuracy 1/2 each), a high (3/4)
    assert res.disagreement_rates.to_dict() == {"a": 0.5, "b": 0.25, "c": 0.25}
    same = opinion_exclusion(y, p, item_ids=items, annotator_ids=ann, bins=[0, 0.25, 1], warn_group_size=0)
    assert same.group_table["performance"].tolist() == pytest.approx([0.5, 0.75])


def test_cross_fit_halves_do_not_depend_on_how_the_ids_were_read():
    # items 0..28 as integers (sorted 0, 1, 2, ..., 28) and as text (sorted "0", "1", "10", ..., "19", "2", ...):
    # the halves follow the ids written as text, so both give the same split and the same figures (the command
    # line keeps ids as written; Python callers often pass integers)
    rng = np.random.default_rng(3)
    items = np.repeat(np.arange(29), 5)  # 8 of the 29 items change parity between the two orders
    ann = np.tile(np.arange(5), 29)
    y = rng.integers(0, 2, len(items))
    p = rng.integers(0, 2, len(items))
    as_int = opinion_exclusion(y, p, item_ids=items, annotator_ids=ann, bins=2, adr_fit="cross", warn_group_size=0)
    as_text = opinion_exclusion(y, p, item_ids=items.astype(str), annotator_ids=ann, bins=2, adr_fit="cross",
                                warn_group_size=0)
    assert as_int.unfairness == pytest.approx(as_text.unfairness)
    assert as_int.group_table["performance"].tolist() == pytest.approx(as_text.group_table["performance"].tolist())
    from aif360_subjective.opinion.annotations import item_halves

    halves = [item_halves(encode_annotations(y, p, ids, ann)) for ids in (items, items.astype(str))]
    assert np.array_equal(*halves) and 0.3 < halves[0].mean() < 0.7


def test_adr_test_is_cross_fitted_whichever_fit():
    # half 0's bins (a, c high; b low) score half 1 (a 1.0, b 0.0, c 0.5): between SS .375 for b or a alone in the
    # low bin, 0 for c: p1 = 2/3. Half 1's bins (a, b high; c low) score half 0 (a .5, b 1.0, c .5): .0417 for a
    # or c alone, .1667 for b: p2 = 3/3. p = min(1, 2 min(p1, p2)) = 1.
    y, p, items, ann = _hand_made()
    kw = dict(item_ids=items, annotator_ids=ann, bins=[0, 0.25, 1], test=True, n_permutations=99,
              warn_group_size=0, test_statistic="between")
    same = opinion_exclusion(y, p, **kw).exclusion_test
    cross = opinion_exclusion(y, p, adr_fit="cross", **kw).exclusion_test
    assert same == cross and same.method.startswith("cross-fitted") and same.exact
    assert same.n_permutations == 3 and same.p_value == 1.0 and same.statistic == pytest.approx(0.375)


def test_metric_class_faces_agree():
    ds = make_subjective_dataset(n_items=300, random_state=2)
    pred = ds.with_predictions(ds.labels.ravel())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = OpinionExclusionMetric(ds, pred, bins=4, adr_fit="cross", random_state=4)
        res = opinion_exclusion(ds.labels.ravel(), pred.labels.ravel(), item_ids=ds.item_ids,
                                annotator_ids=ds.annotator_ids, pos_label=0.0, bins=4, adr_fit="cross", ci=0.95,
                                n_boot=200, random_state=4, n_permutations=199)
    assert m.unfairness() == res.unfairness and m.options.adr_fit == "cross"
    t = m.exclusion_test(n_permutations=199)
    assert t.n_permutations == 199 and m.exclusion_test(n_permutations=199) is t  # cached
    assert isinstance(m.unfairness_ci(n_boot=200), UnfairnessInterval)
    assert tuple(m.unfairness_ci(n_boot=200)) == tuple(res.unfairness_ci)
    assert isinstance(m.verdict(n_boot=200, n_permutations=199), str)


# ------------------------------------------------------------------ validation
@pytest.mark.parametrize("kw, exc, match", [
    ({"test": True, "n_permutations": 50}, ValueError, "n_permutations must be >= 99, got 50"),
    ({"test": True, "n_permutations": 99.5}, TypeError, "n_permutations must be an int"),
    ({"test": True, "test_statistic": "anova"}, ValueError, "test_statistic"),
    ({"test": "yes"}, TypeError, "test must be None, True or False, got 'yes'"),
    ({"adr_fit": "both"}, ValueError, "adr_fit"),
    ({"adr_fit": "cross", "grouping": PAIRS}, ValueError, "adr_fit='cross' .* grouping='adr' only"),
])
def test_bad_options_raise(kw, exc, match):
    y, p, items, ann = _per_annotator(FOUR)
    with pytest.raises(exc, match=match):
        opinion_exclusion(y, p, item_ids=items, annotator_ids=ann, warn_group_size=0, **kw)


def test_verdict_without_a_test_raises():
    y, p, items, ann = _per_annotator(FOUR)
    res = opinion_exclusion(y, p, item_ids=items, annotator_ids=ann, warn_group_size=0)
    with pytest.raises(ValueError, match="no test of equal service: pass ci=0.95 or test=True"):
        res.verdict()


# ------------------------------------------------------------------ items as a second source of noise
def test_crossed_bootstrap_redraws_items_by_hand():
    # one annotator right on item 0, wrong on item 1: resampling the 2 items gives accuracy 1, 1/2, 0 with
    # probabilities 1/4, 1/2, 1/4 (the annotator level has nothing to redraw); the default bootstrap instead
    # redraws the annotator's 2 annotations binomially, which gives the same law here
    res = opinion_exclusion(np.array([1, 0]), np.array([1, 1]), item_ids=[0, 1], annotator_ids=["a", "a"],
                            grouping=pd.Series({"a": "g"}), warn_group_size=0)
    enc = encode_annotations(np.array([1, 0]), np.array([1, 1]), np.array([0, 1]), np.array(["a", "a"]))
    reps = opinion_intervals(res, check_interval_options(0.95, 4000, "crossed", ("accuracy",)), 0, enc)
    assert res.row_units.tolist() == [0, 0]
    values = crossed_group_values(np.array([0]), res.row_units, np.array([3, 1]), enc.item_codes, 2, 4, 1,
                                  lambda c: c[..., 3] / c.sum(axis=-1), n_boot=4000,
                                  rng=np.random.default_rng(0))[:, 0]
    shares = [np.mean(values == v) for v in (0.0, 0.5, 1.0)]
    assert shares == pytest.approx([0.25, 0.5, 0.25], abs=0.03)
    assert reps.performance.low == 0.0 and reps.performance.high == 1.0


def test_crossed_bootstrap_widens_the_performance_interval_when_items_differ():
    rng = np.random.default_rng(5)
    effects = rng.uniform(-0.2, 0.2, 30)
    acc = 0.7 + np.tile(effects, 20)  # 20 annotators on the same 30 items
    y = (rng.random(600) < acc).astype(int)
    kw = dict(item_ids=np.tile(np.arange(30), 20), annotator_ids=np.repeat(np.arange(20), 30),
              grouping=pd.Series(np.repeat(["g0", "g1"], 10), index=np.arange(20)), ci=0.95, n_boot=400,
              random_state=0, warn_group_size=0)
    both = opinion_exclusion(y, np.ones(600, int), **kw).performance_ci
    crossed = opinion_exclusion(y, np.ones(600, int), bootstrap_levels="crossed", **kw).performance_ci
    assert crossed.high - crossed.low > 1.25 * (both.high - both.low)  # item noise added


def test_same_fit_verdict_names_the_sorting_artefact_and_seed_figure_stays_available():
    ds = make_subjective_dataset(n_items=300, random_state=2)
    pred = ds.with_predictions(ds.majority_labels())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same = OpinionExclusionMetric(ds, pred, bins=4, random_state=1)
        cross = OpinionExclusionMetric(ds, pred, bins=4, adr_fit="cross", random_state=1)
    assert cross.seed_unfairness() == same.unfairness() == same.seed_unfairness()
    assert cross.unfairness() != same.unfairness() and cross.adr_fit == "cross" and same.adr_fit == "same"
    a, b = same.exclusion_test(n_permutations=999), cross.exclusion_test(n_permutations=999)
    assert (a.p_value, a.statistic, a.method) == (b.p_value, b.statistic, b.method)  # the test is cross-fitted
    # at a level below the smallest attainable p-value (2 / 1000, the data beyond all permutations in one half,
    # Bonferroni-doubled) the test cannot decide; a test that does not reject gives the same-fit sentence
    assert a.smallest_p == pytest.approx(2 / 1000)
    assert verdict_sentence(dataclasses.replace(same.result(), exclusion_test=a), alpha=0.001).startswith(
        "the test cannot decide whether a group is served worse: with ")
    a = dataclasses.replace(a, p_value=0.3)
    res = dataclasses.replace(same.result(), exclusion_test=a)
    assert verdict_sentence(res, alpha=0.05) == (
        f"no evidence that any group is served worse (across-groups test, p = {a.p_value:.2g}); unfairness "
        f"{same.unfairness():.3f} with ADR bins fitted on the scored annotations, part of it a sorting artefact "
        "(adr_fit='cross' removes it)")


def test_test_text():
    y, p, items, ann = _per_annotator(FOUR)
    t = opinion_exclusion(y, p, item_ids=items, annotator_ids=ann, grouping=PAIRS, test=True, n_permutations=99,
                          warn_group_size=0).exclusion_test
    assert t.text() == "p = 0.33 (studentized permutation of annotators across groups, all 6 permutations)"
