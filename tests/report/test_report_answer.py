"""The answer block (console and report alike) and the sentences that used to mislead: each checked against
numbers computed by hand or read from the library next to it."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from planted import planted_subgroups

from aif360_subjective._labels import group_label
from aif360_subjective.datasets import MultiAnnotatorDataset, make_subjective_dataset
from aif360_subjective.detectors import detect_subgroups
from aif360_subjective.detectors.subgroup_metrics import value_format
from aif360_subjective.metrics import OpinionExclusionMetric
from aif360_subjective.report import Paragraph, Report, Table
from aif360_subjective.report.answer import (
    ANSWER_TITLE,
    findings_table,
    opinion_answer,
    subgroup_answer,
)
from aif360_subjective.report.sections import (
    interval_meaning,
    opinion_sections,
    opinion_summary_table,
    pattern_texts,
    subgroup_sections,
    whole_numbers_as_int,
)
from aif360_subjective.report.subgroup_sections import SUMMARY_CAPTION, auto_k_note

N_BOOT = 200

# Everything predicted 0 (the favourable label). Women: w1 is right on 1 of 4, w2 on 2 of 4 (group 0.375);
# men: m1 on 5 of 5, m2 on 3 of 4 (group 0.875). Unfairness = std(0.375, 0.875) = 0.25; performance (mean over
# the groups) 0.625; accuracy over the 17 annotations 11 / 17.
ROWS = [("i1", "w1", 1), ("i2", "w1", 1), ("i3", "w1", 1), ("i4", "w1", 0),
        ("i1", "w2", 1), ("i2", "w2", 1), ("i3", "w2", 0), ("i4", "w2", 0),
        ("i1", "m1", 0), ("i2", "m1", 0), ("i3", "m1", 0), ("i4", "m1", 0), ("i5", "m1", 0),
        ("i1", "m2", 0), ("i2", "m2", 0), ("i3", "m2", 0), ("i4", "m2", 1)]
PEOPLE = pd.DataFrame({"gender": ["Woman", "Woman", "Man", "Man"]},
                      index=pd.Index(["w1", "w2", "m1", "m2"], name="annotator"))


def _paragraphs(blocks, kind=None):
    return [b.text for b in blocks if isinstance(b, Paragraph) and (kind is None or b.kind == kind)]


@pytest.fixture(scope="module")
def hand():
    ds = MultiAnnotatorDataset(pd.DataFrame(ROWS, columns=["item", "annotator", "label"]), annotators=PEOPLE,
                               favorable_label=0, unfavorable_label=1)
    pred = ds.with_predictions(pd.Series(0, index=["i1", "i2", "i3", "i4", "i5"]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # groups of two: the thin-group warning
        return OpinionExclusionMetric(ds, pred, grouping="demographic", attributes=["gender"])


def test_hand_case_figures(hand):
    assert hand.unfairness() == pytest.approx(0.25)
    assert hand.performance() == pytest.approx(0.625)
    g = hand.group_performance()
    assert g.loc["Woman", "performance"] == pytest.approx(0.375)
    assert g.loc["Man", "performance"] == pytest.approx(0.875)


def test_answer_names_the_worst_group_with_its_interval(hand):
    ans = opinion_answer(hand, n_boot=N_BOOT, random_state=3)
    g = hand.group_performance(ci=0.95, n_boot=N_BOOT, random_state=3)
    w, b = g.loc["Woman"], g.loc["Man"]
    assert ans.lines[0] == (f"Served worst: Woman (2 annotators), accuracy 0.375 [{w['ci_low']:.3f}, "
                            f"{w['ci_high']:.3f}] (95% interval); best served: Man (2 annotators), 0.875 "
                            f"[{b['ci_low']:.3f}, {b['ci_high']:.3f}]; 2 groups.")
    # whether the gap is more than chance: the test of equal service's verdict, in its own words
    assert ans.lines[1] == f"Test of equal service: {hand.verdict(ci=0.95, n_boot=N_BOOT, random_state=3)}."
    # the headline performance is the mean over groups, and the plain accuracy is given next to it
    assert "mean over the groups (each group counts once), so it changes with the grouping" in ans.lines[3]
    assert f"accuracy over all 17 grouped annotations: {11 / 17:.3f}." in ans.lines[3]
    assert ans.facts["served worst"] == "Woman"


def test_one_annotator_group_is_given_without_interval(named_groups_metric):
    m = named_groups_metric(lambda i: f"g{i}", n_annotators=12)  # one annotator per group
    ans = opinion_answer(m, n_boot=N_BOOT)
    g = m.group_performance()
    worst = g["performance"].idxmin()
    assert ans.lines[0].startswith(f"Served worst: {worst} (1 annotator), accuracy "
                                   f"{g.loc[worst, 'performance']:.3f} (one annotator: no interval)")


def test_no_intervals_says_no_comparison(hand):
    ans = opinion_answer(hand, ci=None)
    assert "[" not in ans.lines[0]
    assert ans.lines[1].startswith("Without intervals") and "0.500" in ans.lines[1]


@pytest.mark.slow
def test_several_models_say_which_is_fairer_and_whether_intervals_overlap():
    ds = make_subjective_dataset(n_items=300, n_annotators=40, random_state=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        models = {"Model 1": OpinionExclusionMetric(ds, ds.with_predictions(ds.majority_labels()), bins=5),
                  "Model 3": OpinionExclusionMetric(ds, ds.copy(), bins=5)}
    ans = opinion_answer(models, n_boot=N_BOOT)
    a = models["Model 3"].unfairness_ci(ci=0.95, n_boot=N_BOOT, random_state=0)
    b = models["Model 1"].unfairness_ci(ci=0.95, n_boot=N_BOOT, random_state=0)
    assert models["Model 3"].unfairness() < models["Model 1"].unfairness()
    assert ans.lines[0].startswith("Fairer: Model 3 (unfairness 0.000) rather than Model 1 "
                                   f"({models['Model 1'].unfairness():.3f})")
    overlap = a[0] <= b[1] and b[0] <= a[1]
    assert ("intervals overlap" in ans.lines[0]) is bool(overlap)
    assert ("do not overlap" in ans.lines[0]) is (not overlap)
    assert ans.facts["fairer model"] == "Model 3"


def test_answer_is_the_first_section_and_says_the_same(hand):
    sections = opinion_sections(hand, figures=False, n_boot=N_BOOT, random_state=3)
    assert sections[0].title == ANSWER_TITLE
    ans = opinion_answer(hand, n_boot=N_BOOT, random_state=3)
    assert _paragraphs(sections[0].blocks, "text") == list(ans.lines)
    assert sections[1].title == "Groups ranked from the worst served"
    table = next(b for b in sections[1].blocks if isinstance(b, Table))
    assert [r[0] for r in table.rows] == ["Woman", "Man"]  # worst served first


def test_demographic_report_does_not_say_adr(hand):
    """The demographic report used to say "Annotators are grouped by their average disagreement rate (ADR)"."""
    text = " ".join(_paragraphs(opinion_sections(hand, figures=False, ci=None)[1].blocks))
    assert "grouped by the intersections of their attributes (gender)" in text
    assert "grouped by their average disagreement rate" not in text
    ds = make_subjective_dataset(n_items=100, n_annotators=15, random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        adr = OpinionExclusionMetric(ds, ds.with_predictions(ds.majority_labels()), bins=3)
    assert "grouped by their average disagreement rate (ADR)" in " ".join(
        _paragraphs(opinion_sections(adr, figures=False, ci=None)[1].blocks))


def test_interval_box_does_not_promise_wide_intervals_for_one_annotator():
    """The box said "A group of one or two annotators gives a wide interval", contradicted by narrow intervals of
    one-annotator groups in the same reports."""
    text = interval_meaning(0.95, 1000, 0)
    assert "gives a wide interval" not in text
    assert "A group of one annotator gets no interval" in text


def test_single_annotator_caveat_when_most_groups_are_one_person(named_groups_metric):
    # one group per annotator: every group is a single person
    m = named_groups_metric(lambda i: f"g{i}", n_annotators=12)
    ans = opinion_answer(m, n_boot=N_BOOT)
    n = len(m.group_performance())
    assert ans.caveats and ans.caveats[0].startswith(f"{n} of {n} groups hold a single annotator.")
    assert "narrow interval there is not certainty" in ans.caveats[0]


def test_no_caveat_when_groups_are_large(hand):
    assert opinion_answer(hand, n_boot=N_BOOT).caveats == ()


def test_summary_table_names_the_worst_group(hand):
    table = opinion_summary_table(hand)
    assert table.loc["model", "worst_group"] == "Woman"
    assert table.loc["model", "worst_group_performance"] == pytest.approx(0.375)


@pytest.mark.slow
def test_many_groups_draw_a_dot_plot(named_groups_metric):
    m = named_groups_metric(lambda i: f"group {i % 15:02d}", n_annotators=30)
    assert len(m.group_performance()) == 15
    sections = opinion_sections(m, n_boot=N_BOOT)
    caption = next(b.caption for s in sections for b in s.blocks if hasattr(b, "png_base64")
                   and "every group" in b.caption)
    assert "15 groups are too many for a readable heatmap: one row per group, worst served first" in caption


def test_thin_group_line_names_at_most_ten():
    from aif360_subjective.opinion.uncertainty import thin_groups_text

    thin = pd.DataFrame({"n_annotators": [1] * 13, "n_annotations": [5] * 13, "performance": [0.5] * 13,
                         "share_of_unfairness": [np.nan] * 13}, index=pd.Index([f"g{i}" for i in range(13)]))
    text = thin_groups_text(thin, 20, 5)
    assert text.startswith("13 of 20 groups hold fewer than 5 annotators: g0 (1 annotator); ")
    assert "g9 (1 annotator); and 3 more" in text and "g10" not in text


def test_group_labels_one_form():
    assert group_label(("Man", "Asian")) == "Man & Asian"
    assert group_label(pd.Interval(-0.0008, 0.16)) == "0.00–0.16"
    assert group_label(pd.Interval(0.0193, 0.158)) == "0.02–0.16"
    assert group_label(5.0) == "5"
    # the report's tables use the same form
    from aif360_subjective.report import format_value

    assert format_value(pd.Interval(-0.0008, 0.16)) == "0.00–0.16"


# ----------------------------------------------------------------------------------------------- subgroups
@pytest.fixture(scope="module")
def planted():
    return planted_subgroups(1)


def test_findings_follow_their_rule(planted):
    *_, rep = planted
    found = rep.findings(0.05)
    assert list(found.columns) == ["metric", "kind", "id", "description", "size", "value", "ci_low", "ci_high",
                                   "p_adjusted", "direction"]
    assert len(found) and (found["p_adjusted"] < 0.05).all()
    # the disadvantaged side of each metric: rest minus subgroup > 0, or accuracy (error) below the reference
    dis = found[found.direction == "disadvantaged"]
    larger = dis.metric.isin(["statistical_parity", "equal_opportunity", "equalized_odds"])
    assert (dis.loc[larger, "ci_low"] > 0).all()
    assert (dis.loc[dis.metric == "accuracy_error", "ci_high"] < 0).all()
    with pytest.raises(ValueError, match="alpha"):
        rep.findings(1.5)


def test_findings_hand_case():
    """One planted subgroup: 100 rows of a=x all predicted unfavourable, 100 rows of a=y all favourable; the
    truth is favourable on half of each. Statistical parity of a=x (rest minus subgroup) = 1 - 0 = 1."""
    X = pd.DataFrame({"a": ["x"] * 100 + ["y"] * 100})
    y = np.tile([0, 1], 100)
    pred = np.r_[np.zeros(100, int), np.ones(100, int)]
    rep = detect_subgroups(X, y, pred, pos_label=1, n_clusters=2, random_state=0)
    found = rep.findings(0.05)
    sp = found[(found.metric == "statistical_parity") & (found.direction == "disadvantaged")]
    assert len(sp) == 1  # the cluster, its entropy pattern and the mined pattern hold the same rows: listed once
    row = sp.iloc[0]
    assert "a=x" in row["description"] and row["value"] == pytest.approx(1.0) and row["size"] == 100


@pytest.mark.slow
def test_subgroup_answer_is_the_same_in_console_and_report(planted):
    *_, rep = planted
    texts = pattern_texts(whole_numbers_as_int(rep.patterns(all_columns=False)))
    ans = subgroup_answer(rep, pattern_text=texts)
    found = rep.findings(0.05)
    assert ans.lines[0].startswith(f"{len(found)} significant finding")
    section = subgroup_sections(rep, figures=False)[0]
    assert section.title == ANSWER_TITLE
    assert _paragraphs(section.blocks, "text")[:len(ans.lines)] == list(ans.lines)
    table = next(b for b in section.blocks if isinstance(b, Table))
    console = ans.text()
    assert len(table.rows) == len(ans.table) == min(len(found), 20)
    for row in table.rows:
        assert row[3] in console  # the same subgroup descriptions in both faces
    top = findings_table(found[found.direction == "disadvantaged"].iloc[:1], texts).iloc[0]
    assert f"Most significantly disadvantaged: {top['subgroup']}" in ans.lines[1]


def test_no_findings_says_how_many_were_tested():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.choice(["x", "y"], 300)})
    rep = detect_subgroups(X, rng.integers(0, 2, 300), rng.integers(0, 2, 300), n_clusters=2, random_state=0)
    found = rep.findings(0.05)
    assert len(found) == 0  # random predictions: nothing to find
    ans = subgroup_answer(rep)
    assert ans.lines[0] == (f"No subgroup differs significantly from the rest on any metric at family-wise error "
                            f"0.05 over the whole report (permutation max-T, B = 200 permutations, "
                            f"{found.attrs['n_hypotheses']:,} hypotheses: every subgroup of every kind, metric and "
                            "direction).")
    assert ans.facts["significant findings"] == "0"


def test_summary_caption_does_not_contradict_itself():
    """The console said "means of absolute values; positive = subgroup disadvantaged": an absolute value has no
    side."""
    assert "positive = subgroup disadvantaged" not in SUMMARY_CAPTION
    assert "means of absolute values (the size of the gaps, whichever side)" in SUMMARY_CAPTION
    assert "accuracy error is the signed mean" in SUMMARY_CAPTION


@pytest.mark.slow
def test_xmeans_at_its_bound_is_said(planted):
    *_, rep = planted
    assert auto_k_note(rep) is None  # n_clusters was given
    # 40 well separated blobs of 10 rows: x-means keeps splitting up to its bound floor(sqrt(400 / 2)) = 14
    rng = np.random.default_rng(0)
    centres = rng.uniform(-100, 100, size=(40, 2))
    X = pd.DataFrame(centres[np.repeat(np.arange(40), 10)] + rng.normal(scale=0.5, size=(400, 2)), columns=["a", "b"])
    auto = detect_subgroups(X, rng.integers(0, 2, 400), rng.integers(0, 2, 400), pos_label=1, clustering="kmeans",
                            random_state=0)
    assert auto.n_clusters == 14
    note = auto_k_note(auto)
    assert note.startswith("x-means chose 14 clusters, its upper bound ⌊√(n/2)⌋ = 14 for 400 rows")
    assert "--n-clusters K" in note
    page = Report("r").extend(subgroup_sections(auto, figures=False)).render()
    assert "its upper bound" in page
    # below the bound: nothing is said
    few = detect_subgroups(X.iloc[:40], np.zeros(40, int), np.zeros(40, int), pos_label=1, clustering="kmeans",
                           n_clusters=None, random_state=0)
    assert (auto_k_note(few) is None) is (few.n_clusters != 4)


def test_not_significant_counts_exclude_the_other_side(planted):
    *_, rep = planted
    from aif360_subjective.cli._common import significance_line

    fav = rep.ranking("statistical_parity", kind="entropy", n=None, direction="favoured")
    dis = rep.ranking("statistical_parity", kind="entropy", n=None, direction="disadvantaged")
    assert dis.attrs["n_other_side"] == fav.attrs["n_significant"]
    empty = dis.iloc[:0]
    empty.attrs = dict(dis.attrs)
    line = significance_line(empty, "statistical parity", "subgroup")
    assert f"{dis.attrs['n_not_significant']} not significant, {dis.attrs['n_other_side']} significantly favoured" \
        in line


def test_every_metric_with_a_disadvantaged_finding_is_named(planted):
    """On Adult the console named no equal-opportunity gap although the report ranked one: the answer now names
    the strongest disadvantaged finding of every metric that has one."""
    *_, rep = planted
    found = rep.findings(0.05)
    dis = found[found.direction == "disadvantaged"]
    ans = subgroup_answer(rep)
    text = " ".join(ans.lines)
    first = dis["metric"].iloc[0]
    for metric in dis["metric"].unique():
        if metric != first:
            word = metric.replace("_", " ")
            assert f"By {word}: " in text
            row = dis[dis.metric == metric].iloc[0]
            f = value_format(metric)  # a level (accuracy) unsigned, a difference signed
            assert f"{word} {row['value']:{f}} [{row['ci_low']:{f}}, {row['ci_high']:{f}}]" in text
    assert len(dis["metric"].unique()) >= 2  # the planted data has gaps on several metrics


def test_a_one_annotator_worst_group_is_not_labelled_with_an_interval(hand):
    class OneAnnotatorWorst:
        """The hand case with its worst group reduced to one annotator without an interval."""

        def __getattr__(self, name):
            return getattr(hand, name)

        def group_performance(self, *args, **kwargs):
            table = hand.group_performance(*args, **kwargs).copy()
            if "ci_low" in table:
                table.loc["Woman", ["n_annotators", "ci_low", "ci_high"]] = [1, float("nan"), float("nan")]
            return table

    ans = opinion_answer(OneAnnotatorWorst(), n_boot=N_BOOT, random_state=3)
    assert ans.lines[0].startswith("Served worst: Woman (1 annotator), accuracy 0.375 (one annotator: no interval);")


def test_mined_patterns_keep_their_description_when_their_id_is_also_a_cluster_id():
    """The answer once described mined pattern 1 by the text of cluster 1's entropy pattern (COMPAS: a 1,494-row
    'priors_count ∈ [5, 38]' shown as 'c_charge_degree=Felony AND race=Native American AND sex=Male')."""
    found = pd.DataFrame({"metric": ["statistical_parity"] * 3, "kind": ["pattern", "entropy", "cluster"],
                          "id": [1, 1, 1], "description": ["age ∈ [20, 30)", "sex=f", "cluster 1"],
                          "size": [40, 30, 20], "value": [0.2] * 3, "ci_low": [0.1] * 3, "ci_high": [0.3] * 3,
                          "p_adjusted": [0.01] * 3, "direction": ["disadvantaged"] * 3})
    texts = pd.Series({1: "sex=f AND age=young"})
    table = findings_table(found, texts)
    assert table["subgroup"].tolist() == ["age ∈ [20, 30)", "sex=f AND age=young",
                                          "cluster 1 (mostly sex=f AND age=young)"]


def test_answer_says_where_the_unlisted_findings_are(planted):
    *_, rep = planted
    ans = subgroup_answer(rep, max_findings=1)
    n = len(rep.findings())
    assert n > 1
    assert ans.lines[-1].endswith(f"{n - 1:,} more are not shown (SubgroupReport.findings() lists every one).")


def test_one_group_is_one_group_not_1_groups(named_groups_metric):
    """Issue 33: "1 groups" in the answer, the explainer and the grouping summary."""
    from aif360_subjective.explainers.opinion_exclusion import OpinionExclusionTextExplainer

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the single-group warning: unfairness 0 by construction
        m = named_groups_metric(lambda i: "everyone", n_annotators=10)
        ans = opinion_answer(m, ci=None)
        text = " ".join([*ans.lines, OpinionExclusionTextExplainer(m).unfairness(), m.grouping_summary().text()])
    assert "1 groups" not in text
    assert ans.lines[0].endswith("; 1 group.")


def test_answer_says_the_permutations_the_floor_and_how_findings_are_counted(planted):
    """Issue 33: every adjusted p read 0.005, the floor of 200 permutations, and neither the console nor the report
    said so; "6,238 findings" beside "9,399 significant subgroups" was not explained."""
    *_, rep = planted
    found = rep.findings(0.05)
    ans = subgroup_answer(rep)
    b = found.attrs["n_permutations"]
    assert f"B = {b} permutations" in ans.lines[0]
    floor = 1 / (b + 1)
    at_floor = np.isclose(found["p_adjusted"].to_numpy(dtype=float), floor)
    assert at_floor.any()  # the planted subgroup is beyond every permutation
    table = ans.table
    # at the floor "≤ 0.005", never "0.005" as if it were measured; above it the value
    assert b == 200  # the default: 1/201 = 0.004975, written "≤ 0.005" (rounded up, so that "≤" stays true)
    assert (table["adjusted p"][at_floor[:len(table)]] == "≤\u00a00.005").all()
    assert not (table["adjusted p"] == "0.005").any()
    assert any(line.startswith(f"An adjusted p written ≤ 0.005 is at the floor 1/(B + 1) = 1/{b + 1:,}")
               for line in ans.lines)
    # the findings' count names the subgroups it is made of and the nested findings left out (sub-patterns and
    # diluted parents alike)
    subgroups = len(found[["kind", "id"]].drop_duplicates())
    assert f"on {subgroups:,} subgroup" in ans.lines[0]
    if found.attrs["n_redundant"]:
        assert (f"{found.attrs['n_redundant']:,} more, nested in or around a listed finding and saying the same, "
                "are left out") in ans.lines[0]


def test_the_count_of_findings_left_out_names_both_kinds_of_redundant_finding():
    """Hand-made findings: 3 rows on 2 subgroups; the redundancy filter's count (sub-patterns and diluted parents
    alike) is said as nested findings, and nothing is said when it left none out."""
    from aif360_subjective.report.significance import counts_text

    found = pd.DataFrame({"kind": ["patterns", "patterns", "asdf"], "id": [4, 4, 1]})
    found.attrs["n_redundant"] = 1234
    assert counts_text(found) == ("on 2 subgroups; 1,234 more, nested in or around a listed finding and saying "
                                  "the same, are left out")
    found.attrs["n_redundant"] = 0
    assert counts_text(found) == "on 2 subgroups"
    assert counts_text(found.iloc[:0]) == "on 0 subgroups"


def test_a_level_is_printed_without_a_sign_and_a_difference_with_one():
    from aif360_subjective.detectors.subgroup_metrics import value_format
    from aif360_subjective.report.answer import findings_table

    assert value_format("accuracy") == ".3f"  # the subgroup's own accuracy: a level
    assert value_format("accuracy_error") == "+.3f" and value_format("statistical_parity[dog]") == "+.3f"
    assert value_format("mean_absolute_error") == "+.3f"  # continuous metrics: subgroup minus rest
    findings = pd.DataFrame({"kind": ["pattern", "pattern"], "id": [0, 1], "description": ["a=1", "b=2"],
                             "direction": ["disadvantaged"] * 2, "metric": ["accuracy", "accuracy_error"],
                             "size": [10, 12], "value": [0.713, -0.152], "ci_low": [0.64, -0.222],
                             "ci_high": [0.776, -0.091], "p_adjusted": [0.004, 0.004]})
    values = findings_table(findings).iloc[:, 4].tolist()
    assert values == ["0.713\u00a0[0.640,\u00a00.776]", "-0.152\u00a0[-0.222,\u00a0-0.091]"]
