"""The test of equal service on real annotation designs (issue 29, items 2-6): the studentized statistic, the
smallest attainable p-value, designs that cannot answer, the item adjustment, the max-T test of each group, the
detectable gap and the verdict's wording."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats

from aif360_subjective.opinion.design import design_checks
from aif360_subjective.opinion.equal_service import critical_value, item_residuals, smallest_p, tail_p
from aif360_subjective.report._text import interval_text
from aif360_subjective.sklearn.metrics import opinion_exclusion


def _per_annotator(correct: dict[str, tuple[int, int]], shared: bool = True):
    """Annotations whose accuracy per annotator is ``correct[a] = (right, total)`` (predictions all 1); items 0..total-1
    for every annotator (``shared``) or each annotator its own items."""
    y, ann, items = [], [], []
    start = 0
    for a, (right, total) in correct.items():  # a handful of annotators in a hand-made case
        y += [1] * right + [0] * (total - right)
        ann += [a] * total
        items += list(range(start, start + total))
        start += 0 if shared else total
    return np.array(y), np.ones(len(y), dtype=int), np.array(items), np.array(ann)


def _quiet(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return opinion_exclusion(*args, **kwargs)


# ------------------------------------------------------------------ the studentized statistic, by hand
def test_studentized_statistic_by_hand():
    correct = {"a1": (8, 10), "a2": (6, 10), "b1": (10, 20), "b2": (14, 20), "b3": (12, 20)}
    groups = pd.Series({"a1": "A", "a2": "A", "b1": "B", "b2": "B", "b3": "B"})
    y, p, items, ann = _per_annotator(correct)
    res = _quiet(y, p, item_ids=items, annotator_ids=ann, grouping=groups, test=True, n_permutations=99)
    t = res.exclusion_test
    # within-annotator variance of one annotation, pooled: sum n x (1 - x) / sum (n - 1)
    within = (10 * .8 * .2 + 10 * .6 * .4 + 20 * .5 * .5 + 20 * .7 * .3 + 20 * .6 * .4) / (9 + 9 + 19 * 3)
    assert within == pytest.approx(0.24)
    # a (DerSimonian-Laird, weights n): A: weighted mean .7, sum n (x - .7)^2 = .2, S1 - S2/S1 = 20 - 200/20 = 10;
    # B: mean .6, .4, 60 - 1200/60 = 40 -> (.2 + .4 - .24 * (1 + 2)) / 50 < 0
    a = 0.0
    # its variance: 2 (a^2 S2 + 2 a b S1 + b^2 (N - G)) / 50^2 with a = 0
    noise_a = 2 * within**2 * 3 / 50**2
    model_a, model_b = (a * 2 + within * 0.2) / 4, (a * 3 + within * 0.15) / 9
    welch_a, welch_b = 0.02 / 2, 0.02 / 6
    prior = 1000.0  # blend with k - 1 and 1,000 degrees of freedom (studentized.PRIOR_DF)
    var_a = (1 * welch_a + prior * model_a) / (1 + prior)
    var_b = (2 * welch_b + prior * model_b) / (2 + prior)
    w = np.array([1 / var_a, 1 / var_b])
    m = np.array([0.7, 0.6])
    centre = (w * m).sum() / w.sum()
    welch_t = (w * (m - centre) ** 2).sum()
    # Welch's correction with 2 groups: F = T on (1, 1 / lambda) degrees of freedom, lambda = sum_g (1 - w_g/W)^2
    # / df_g, df_g = 2 V_g^2 k_g^2 / Var(a); the statistic is the chi-square (1 df) value of the same tail
    lam = sum((1 - w[i] / w.sum()) ** 2 * noise_a / k**2 / (2 * v**2) for i, (k, v) in enumerate([(2, var_a),
                                                                                                  (3, var_b)]))
    equivalent = stats.chi2.isf(stats.f.sf(welch_t, 1, 1 / lam), 1)
    assert equivalent < welch_t  # the noise of the fitted variance makes the same T less extreme
    assert t.statistic_name == "studentized" and t.statistic == pytest.approx(equivalent, rel=1e-6)
    g = t.group_tests
    se = np.sqrt(var_a + var_b)  # the rest of A is B, whose mean's variance is V_B (and the other way round)
    assert g.loc["A", "se"] == pytest.approx(se) and g.loc["B", "se"] == pytest.approx(se)
    assert g.loc["A", "gap"] == pytest.approx(-0.1) and g.loc["A", "t"] == pytest.approx(-0.1 / se)
    # Satterthwaite: the contrast's variance holds a with the coefficient 1/2 + 1/3
    df = 2 * se**4 / (noise_a * (1 / 2 + 1 / 3) ** 2)
    assert g.loc["A", "df"] == pytest.approx(df) and g.loc["B", "df"] == pytest.approx(df)
    # the parametric p of the omnibus is a floor under the permutation p (valid if either is)
    assert t.p_value >= stats.f.sf(welch_t, 1, 1 / lam) - 1e-12
    assert g.loc["B", "gap"] == pytest.approx(0.1) and g.loc["B", "rest"] == pytest.approx(0.7)
    # 10 arrangements of 2 + 3 annotators, enumerated
    assert t.exact and t.n_permutations == 10 and t.smallest_p == pytest.approx(0.1)


def test_permutation_helpers_by_hand():
    null = np.array([1.0, 2.0, 2.0, 3.0])
    assert tail_p(2.0, null, exact=True)[0] == pytest.approx(3 / 4)
    assert tail_p(2.0, null, exact=False)[0] == pytest.approx(4 / 5)  # the data count once more
    assert smallest_p(null, exact=True) == pytest.approx(1 / 4) and smallest_p(null, exact=False) == 1 / 5
    assert smallest_p(np.ones(9), exact=False) == pytest.approx(9 / 10)  # the permutations cannot move it
    # critical value: p <= alpha exactly when the value exceeds it
    for alpha in (0.2, 0.25, 0.5, 0.75):
        for exact in (True, False):
            c = critical_value(null, exact, alpha)
            for x in (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5):
                assert (tail_p(x, null, exact)[0] <= alpha) == (x > c), (alpha, exact, x)
    assert critical_value(null, True, 0.1) >= null.max()  # 1/4 is the smallest p: no arrangement gets beyond
    assert critical_value(null, False, 0.1) == np.inf


def test_item_residuals_by_hand():
    # item 0: scores 1, 0, 1; item 1: 0, 1; item 2: one annotation
    scores = np.array([1.0, 0.0, 1.0, 0.0, 1.0, 1.0])
    items = np.array([0, 0, 0, 1, 1, 2])
    r = item_residuals(scores, items, 3)
    assert r[:5] == pytest.approx([1 - 0.5, 0 - 1.0, 1 - 0.5, 0 - 1.0, 1 - 0.0]) and np.isnan(r[5])


# ------------------------------------------------------------------ unequal counts: the former statistic failed
def _light_heavy(seed: int):
    rng = np.random.default_rng(seed)
    n = np.concatenate([rng.integers(5, 16, 5), rng.integers(100, 301, 50)])
    acc = np.clip(0.75 + rng.normal(0, 0.05, 55), 0, 1)
    right = rng.binomial(n, acc)
    correct = {f"a{i}": (int(r), int(k)) for i, (r, k) in enumerate(zip(right, n, strict=True))}
    groups = pd.Series(["light"] * 5 + ["heavy"] * 50, index=list(correct))
    return _per_annotator(correct), groups


@pytest.mark.slow
def test_studentized_test_holds_where_the_size_weighted_one_rejects_too_often():
    # light annotators (5-15 annotations) against heavy ones (100-300), no true difference: over 40 seeded datasets
    # the former default rejects far more often than 5%, the studentized one does not
    rejections = {"between": 0, "studentized": 0}
    for seed in range(40):
        (y, p, items, ann), groups = _light_heavy(seed)
        for stat in rejections:
            t = _quiet(y, p, item_ids=items, annotator_ids=ann, grouping=groups, test=True, n_permutations=199,
                       test_statistic=stat, random_state=seed).exclusion_test
            rejections[stat] += t.p_value <= 0.05
    assert rejections["between"] >= 8 and rejections["studentized"] <= 5


def test_counts_that_differ_are_noted():
    (y, p, items, ann), groups = _light_heavy(0)
    t = _quiet(y, p, item_ids=items, annotator_ids=ann, grouping=groups, test=True, n_permutations=99,
               test_statistic="between").exclusion_test
    note = [n for n in t.notes if n.startswith("the groups' annotation counts differ")]
    assert note and "in light" in note[0] and "in heavy" in note[0] and "can reject too often" in note[0]
    assert "annotators are exchangeable" in t.null_hypothesis
    with pytest.warns(UserWarning, match="the groups' annotation counts differ .*: the test's null is that every "
                      "group's annotators have the same expected value, a light annotator's value being noisier "
                      r"\(not that annotators are exchangeable\)"):
        s = opinion_exclusion(y, p, item_ids=items, annotator_ids=ann, grouping=groups, test=True, n_permutations=99,
                              warn_group_size=0).exclusion_test
    assert any("studentized statistic allows for it" in n for n in s.notes)
    assert "same expected value" in s.null_hypothesis and "Welch's corrected F" in s.null_hypothesis


# ------------------------------------------------------------------ designs that cannot answer
def test_three_plus_three_annotators_cannot_decide_at_5_percent():
    # HS-Brexit's design: 3 + 3 annotators, 20 arrangements, 2 of them the data's (the groups swapped): p >= 0.1
    correct = {f"t{i}": (r, 20) for i, r in enumerate((10, 11, 12))} | {f"c{i}": (r, 20) for i, r in
                                                                        enumerate((18, 19, 20))}
    groups = pd.Series({a: a[0] for a in correct})
    y, p, items, ann = _per_annotator(correct)
    res = _quiet(y, p, item_ids=items, annotator_ids=ann, grouping=groups, ci=0.95, n_boot=200, random_state=0)
    assert res.exclusion_test.smallest_p == pytest.approx(0.1) and res.exclusion_test.p_value == pytest.approx(0.1)
    sentence = res.verdict()
    assert sentence.startswith("the test cannot decide whether a group is served worse: with 6 units in 2 groups the "
                               "smallest p-value it can give is 0.1 (all 20 arrangements), above the level 0.05")
    assert "no evidence" not in sentence and "(p = 0.1)" not in sentence


def test_every_group_of_one_annotator_cannot_decide():
    correct = {"a": (8, 10), "b": (5, 10), "c": (9, 10)}
    y, p, items, ann = _per_annotator(correct)
    for stat in ("studentized", "between"):
        res = _quiet(y, p, item_ids=items, annotator_ids=ann, grouping=pd.Series({"a": "A", "b": "B", "c": "C"}),
                     ci=0.95, n_boot=200, random_state=0, test_statistic=stat)
        assert res.exclusion_test.cannot_decide.startswith("every group holds one annotator")
        sentence = res.verdict()
        assert sentence.startswith("the test cannot decide whether a group is served worse: every group holds one "
                                   "annotator") and "p = 1" not in sentence
        assert sentence.endswith("the groups' accuracy runs from 0.50 to 0.90 (raw figures)")


def test_groups_on_separate_items_cannot_decide_and_partial_overlap_is_noted():
    rng = np.random.default_rng(0)
    correct = {f"a{i}": (int(rng.integers(20, 30)), 30) for i in range(12)}
    groups = pd.Series(["A"] * 6 + ["B"] * 6, index=list(correct))
    y, p, items, ann = _per_annotator(correct)
    # each group its own batch of 30 items
    items = items + np.where(np.isin(ann, list(correct)[6:]), 1000, 0)
    res = _quiet(y, p, item_ids=items, annotator_ids=ann, grouping=groups, ci=0.95, n_boot=200, random_state=0)
    t = res.exclusion_test
    assert t.cannot_decide.startswith("the groups share almost no items (group A has 0% of its 180 annotations on "
                                      "items another group also labelled, and the other groups 0% of theirs on its "
                                      "items)")
    assert res.verdict().startswith("the test cannot decide whether a group is served worse: the groups share "
                                    "almost no items")
    # the object agrees with the sentence: no p-value, no interval of the groups' spread, each saying why
    assert not t.decidable and np.isnan(t.p_value) and np.isfinite(t.undecided_p_value)
    assert t.text().startswith("no p-value: the design cannot answer (the groups share almost no items")
    assert np.isnan(res.unfairness_ci.low) and np.isnan(res.unfairness_ci.high)
    assert res.unfairness_ci.method.startswith("no interval: the design cannot answer (the groups share almost")
    assert np.isfinite(res.unfairness)  # the paper's figure itself is still given
    # half of B's items shared with A
    items2 = np.where((items >= 1000) & (items % 1000 < 15), items - 1000, items)
    t2 = _quiet(y, p, item_ids=items2, annotator_ids=ann, grouping=groups, test=True, n_permutations=99).exclusion_test
    assert t2.cannot_decide == "" and t2.decidable and np.isfinite(t2.p_value) and np.isnan(t2.undecided_p_value)
    assert any(n.startswith("the groups labelled partly different items (group A has 50% of its 180 annotations "
                            "on items another group also labelled, and the other groups 50% of theirs on its items)")
               for n in t2.design_notes)
    # a group whose items the others all labelled too (a light group among heavy ones) is not confounded
    light = np.isin(ann, list(correct)[:2])
    items3 = np.where(light, items % 1000, items2)
    t3 = _quiet(y, p, item_ids=items3, annotator_ids=ann, grouping=pd.Series(["L"] * 2 + ["H"] * 10,
                                                                              index=list(correct)),
                test=True, n_permutations=99).exclusion_test
    assert t3.cannot_decide == "" and not any("partly different" in n for n in t3.design_notes)


def test_one_annotation_per_item_is_counted():
    # 40 annotators, each with its own 25 items (1,000 annotations of 1,000 items) but 2 items with a second label
    rng = np.random.default_rng(1)
    y = (rng.random(1000) < 0.8).astype(int)
    ann = np.repeat(np.arange(40), 25)
    items = np.arange(1000)
    items[[10, 500]] = [26, 600]  # two items labelled twice
    groups = pd.Series(np.repeat(["A", "B"], 20), index=np.arange(40))
    res = _quiet(y, np.ones(1000, int), item_ids=items, annotator_ids=ann, grouping=groups, test=True,
                 n_permutations=99)
    from aif360_subjective.opinion.annotations import encode_annotations

    checks = design_checks(res, encode_annotations(y, np.ones(1000, int), items, ann))
    assert checks.n_single_items == 996 and checks.n_items == 998
    assert checks.notes[0].startswith("996 of 998 items carry a single annotation (100% of the 1,000 grouped "
                                      "annotations lie on them)")
    assert res.exclusion_test.design_notes[0] == checks.notes[0]
    assert res.exclusion_test.cannot_decide.startswith("the groups share almost no items")
    # ADR bins on such data: ADR cannot be measured
    adr = _quiet(y, np.ones(1000, int), item_ids=items, annotator_ids=ann, test=True, n_permutations=99)
    assert "ADR, the disagreement with the majority vote, is 0 on those items" in adr.exclusion_test.cannot_decide


# ------------------------------------------------------------------ the item adjustment
def test_item_adjustment_does_not_call_a_group_on_harder_items_served_worse():
    # every annotator labels 40 items; group B's annotators also see 40 hard items nobody in A sees... except two
    # A annotators, so the hard items are shared: the raw test calls B served worse, the adjusted one does not
    rng = np.random.default_rng(3)
    rows = []
    for a in range(20):
        grp = "A" if a < 10 else "B"
        easy = np.arange(40)
        hard = np.arange(100, 140) if (grp == "B" or a < 2) else np.arange(0)
        for it in np.concatenate([easy, hard]):
            acc = 0.9 if it < 100 else 0.55
            rows.append((it, a, grp, int(rng.random() < acc)))
    df = pd.DataFrame(rows, columns=["item", "annotator", "group", "correct"])
    groups = df.drop_duplicates("annotator").set_index("annotator")["group"]
    kw = dict(item_ids=df["item"].to_numpy(), annotator_ids=df["annotator"].to_numpy(), grouping=groups, test=True,
              n_permutations=999, random_state=0)
    raw = _quiet(df["correct"].to_numpy(), np.ones(len(df), int), **kw).exclusion_test
    adjusted = _quiet(df["correct"].to_numpy(), np.ones(len(df), int), test_adjust="items", **kw).exclusion_test
    assert raw.p_value < 0.01 and raw.groups().loc["B", "significant"]
    assert adjusted.p_value > 0.05 and not adjusted.groups()["significant"].any()
    assert adjusted.adjust == "items" and "other annotations of its item" in adjusted.method


def test_item_adjustment_bad_input():
    y, p, items, ann = _per_annotator({"a": (8, 10), "b": (5, 10)})
    groups = pd.Series({"a": "A", "b": "B"})
    with pytest.raises(ValueError, match="test_adjust"):
        _quiet(y, p, item_ids=items, annotator_ids=ann, grouping=groups, test=True, test_adjust="item")
    with pytest.raises(ValueError, match="adjust='items' needs a measure that is a mean over annotations"):
        _quiet(y, p, item_ids=items, annotator_ids=ann, grouping=groups, test=True, test_adjust="items",
               performance="f1")
    with pytest.raises(ValueError, match="aggregate='annotator'"):
        _quiet(y, p, item_ids=items, annotator_ids=ann, grouping=groups, test=True, test_adjust="items",
               aggregate="pooled")


# ------------------------------------------------------------------ the verdict says no more than its tests
def _groups_data(means: list[float], k: int, per: int, seed: int):
    rng = np.random.default_rng(seed)
    correct, labels = {}, {}
    for g, mu in enumerate(means):
        for i in range(k):
            name = f"g{g}a{i}"
            correct[name] = (int(rng.binomial(per, np.clip(mu + rng.normal(0, 0.03), 0, 1))), per)
            labels[name] = f"g{g}"
    return _per_annotator(correct), pd.Series(labels)


def test_verdict_agrees_with_the_group_interval():
    # over seeded datasets: a group is named exactly when its max-T interval excludes 0
    for seed in range(12):
        (y, p, items, ann), groups = _groups_data([0.8, 0.8, 0.8, 0.8 - 0.01 * seed], 6, 60, seed)
        res = _quiet(y, p, item_ids=items, annotator_ids=ann, grouping=groups, ci=0.95, n_boot=200, random_state=0,
                     n_permutations=499)
        g = res.exclusion_test.groups(0.05)
        assert ((g["ci_low"] > 0) | (g["ci_high"] < 0)).tolist() == g["significant"].tolist()
        sentence = res.verdict()
        named = sentence.split(" is served worse than")[0] if " is served worse than" in sentence else None
        if named is not None:
            assert g.loc[named, "significant"] and g.loc[named, "gap"] > 0
            assert g.loc[named, "ci_low"] > 0
        else:
            assert not (g["significant"] & (g["gap"] > 0)).any()


def test_omnibus_rejection_without_a_group_is_worded_as_the_omnibus_test():
    # three groups spread evenly (0.74, 0.80, 0.86): the groups differ, no one group alone need be named
    (y, p, items, ann), groups = _groups_data([0.74, 0.8, 0.86], 8, 80, 11)
    res = _quiet(y, p, item_ids=items, annotator_ids=ann, grouping=groups, ci=0.95, n_boot=200, random_state=0,
                 n_permutations=999)
    t = res.exclusion_test
    assert t.p_value <= 0.05
    sentence = res.verdict()
    if not (t.groups()["significant"] & (t.groups()["gap"] > 0)).any():
        assert sentence.startswith(f"the groups differ (across-groups test, p = {t.p_value:.2g}: a test of all 3 "
                                   "groups together, not of any two), but no single group is served significantly "
                                   "worse than the rest (max-T over 3 groups)")
    else:
        assert "(max-T adjusted p" in sentence and "across-groups test" in sentence


def test_no_evidence_says_what_gap_could_have_been_found_and_names_each_unfairness_figure():
    (y, p, items, ann), groups = _groups_data([0.8, 0.8, 0.8], 10, 60, 4)
    res = _quiet(y, p, item_ids=items, annotator_ids=ann, grouping=groups, ci=0.95, n_boot=200, random_state=0,
                 n_permutations=999)
    t = res.exclusion_test
    assert t.p_value > 0.05
    mdg = t.detectable_gap(0.05)
    c = critical_value(t.max_t_null, t.exact, 0.05)  # a normal value: each group's |t| as its normal equivalent
    g = t.group_tests
    df, se, h, p_rest = (g[col].to_numpy() for col in ("df", "se", "binomial_coef", "rest"))
    c_t = stats.t.ppf(stats.norm.cdf(c), df)  # the group's critical |t| on its degrees of freedom
    t80 = stats.t.ppf(0.8, df)
    assert h == pytest.approx(np.full(len(g), 10 * (1 / 60) / 10**2))  # sum_i 1/n_i / k^2: 10 annotators of 60
    for i in range(len(g)):  # d = (c + t80) s(d) and d = c se + t80 s(d), s(d)^2 = se^2 + h (d (2p - 1) - d^2)
        c_i, t_i, se_i, h_i, p_i = c_t[i], t80[i], se[i], h[i], p_rest[i]

        def s_of(d, se_i=se_i, h_i=h_i, p_i=p_i):
            return np.sqrt(se_i**2 + h_i * (d * (2 * p_i - 1) - d**2))

        d_alt = optimize.brentq(lambda d, c=c_i, t=t_i, f=s_of: d - (c + t) * f(d), 1e-9, p_i)
        d_own = optimize.brentq(lambda d, c=c_i, t=t_i, e=se_i, f=s_of: d - c * e - t * f(d), c_i * se_i, p_i)
        assert mdg.iloc[i] == pytest.approx(max(d_alt, d_own), rel=1e-9)
        assert d_alt > (c_i + t_i) * se_i  # accuracy 0.8 served worse is noisier (p (1 - p) grows)
    sentence = res.verdict()
    assert sentence.startswith(f"no evidence that any group is served worse (across-groups test, p = {t.p_value:.2g}); "
                               f"with these annotators a gap of {mdg.max():.2f} or more between any one group and the "
                               f"rest would have been found 80% of the time ({mdg.min():.2f} for ")
    iv = res.unfairness_ci
    assert (f"unfairness {res.unfairness:.3f} (the paper's std across groups, raw; noise-corrected {iv.debiased:.3f}, "
            f"95% interval of the true spread [{iv.low:.3f}, {iv.high:.3f}])") in sentence


def test_a_raw_figure_outside_its_interval_is_named():
    class Iv(tuple):
        debiased = 0.05

    # POPQUORN by demographics printed "0.187 [0.000, 0.147]"
    assert interval_text(0.187, Iv((0.0, 0.147))) == "0.187 raw; noise-corrected 0.050 [0.000, 0.147]"
    assert interval_text(0.187, (0.0, 0.147)) == "0.187 raw; interval of the noise-corrected value [0.000, 0.147]"
    assert interval_text(0.087, (0.071, 0.104)) == "0.087 [0.071, 0.104]"
    assert interval_text(0.087, (np.nan, np.nan)) == "0.087 [–]"


def test_unfairness_interval_gives_each_group_its_own_variance_when_counts_differ():
    (y, p, items, ann), groups = _light_heavy(0)
    res = _quiet(y, p, item_ids=items, annotator_ids=ann, grouping=groups, test=True, n_permutations=99)
    from aif360_subjective.opinion.equal_service import unfairness_interval

    iv = unfairness_interval(res, 0.95)
    assert iv.method == "noncentral chi-square (each group's own variance: the annotation counts differ)"
    # the same design with equal counts keeps the one-way ANOVA's noncentral F
    (y, p, items, ann), groups = _groups_data([0.8, 0.8], 5, 50, 0)
    res = _quiet(y, p, item_ids=items, annotator_ids=ann, grouping=groups, test=True, n_permutations=99)
    assert unfairness_interval(res, 0.95).method == "noncentral F"


def test_one_annotation_per_item_warns_with_counts():
    rng = np.random.default_rng(2)
    y = (rng.random(300) < 0.8).astype(int)
    items = np.arange(300)
    items[:4] = [299, 298, 297, 296]  # 4 items labelled twice, 292 once
    ann = np.repeat(np.arange(30), 10)
    with pytest.warns(UserWarning, match=r"^292 of 296 items carry a single annotation \(97% of the 300 annotations\)"):
        opinion_exclusion(y, np.ones(300, int), item_ids=items, annotator_ids=ann, warn_group_size=0)


def test_counts_that_differ_warn_with_the_former_statistic():
    (y, p, items, ann), groups = _light_heavy(0)
    with pytest.warns(UserWarning, match="the groups' annotation counts differ"):
        opinion_exclusion(y, p, item_ids=items, annotator_ids=ann, grouping=groups, test=True, n_permutations=99,
                          test_statistic="between", warn_group_size=0)


@pytest.mark.data
def test_real_wikipedia_sample_warns(shared_data):
    from aif360_subjective.datasets import WikipediaTalkDataset
    from aif360_subjective.metrics import OpinionExclusionMetric

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        folder = shared_data / "wikipedia_talk"
        ds = WikipediaTalkDataset.from_labelled_sample(folder / "toxicity_labelled_comments_3k_sample.csv",
                                                       folder / "toxicity_worker_demographics.tsv")
    per_item = pd.Series(ds.item_ids).value_counts()
    with pytest.warns(UserWarning, match=r"items carry a single annotation") as record:
        OpinionExclusionMetric(ds, ds.copy(), grouping="demographic", attributes="gender")
    text = next(str(w.message) for w in record if "single annotation" in str(w.message))
    assert text.startswith(f"{int((per_item == 1).sum()):,} of {len(per_item):,} items carry a single annotation")
    assert len(ds.item_ids) == 3000 and len(per_item) == 2976  # the sample the issue names


def test_detectable_gap_larger_than_possible_is_counted_not_quoted():
    # a group of one annotator with 2 annotations beside well-covered groups: its detectable gap exceeds any possible
    correct = {f"h{i}": (int(r), 200) for i, r in enumerate(np.linspace(50, 70, 16))}  # accuracy about 0.3
    correct |= {"l0": (1, 2)}
    groups = pd.Series({a: ("L" if a.startswith("l") else f"H{int(a[1:]) % 2}") for a in correct})
    y, p, items, ann = _per_annotator(correct)
    res = _quiet(y, p, item_ids=items, annotator_ids=ann, grouping=groups, ci=0.95, n_boot=200, random_state=0,
                 n_permutations=999)
    t = res.exclusion_test
    mdg = t.detectable_gap()
    assert mdg["L"] > t.group_tests.loc["L", "rest"] and mdg["H0"] < 0.2
    sentence = res.verdict()
    assert sentence.startswith("no evidence")
    high, low = max(mdg["H0"], mdg["H1"]), min(mdg["H0"], mdg["H1"])
    assert (f"with these annotators a gap of {high:.2f} or more between a group and the rest would have been found "
            f"80% of the time in 2 of 3 groups ({low:.2f} for ") in sentence
    assert "in the other 1, not even the largest possible gap would have been" in sentence
    assert f"gap of {mdg['L']:.2f}" not in sentence


def test_item_adjusted_verdict_quotes_a_detectable_gap():
    # the adjusted values are differences from the item's other annotations (near 0): the gap is still quoted
    (y, p, items, ann), groups = _groups_data([0.8, 0.8, 0.8], 10, 60, 4)
    res = _quiet(y, p, item_ids=items, annotator_ids=ann, grouping=groups, ci=0.95, n_boot=200, random_state=0,
                 n_permutations=999)
    m = res.exclusion_test
    adjusted = _quiet(y, p, item_ids=items, annotator_ids=ann, grouping=groups, ci=0.95, n_boot=200, random_state=0,
                      n_permutations=999, test_adjust="items")
    assert m.adjust == "none" and adjusted.exclusion_test.adjust == "items"
    sentence = adjusted.verdict()
    assert "with these annotators a gap of " in sentence and "no possible gap" not in sentence
