"""What the report says about uncertainty: opinion-exclusion intervals and thin groups, subgroup significance,
lopsided clusterings. Every sentence is checked against the library's numbers."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from planted import planted_subgroups

from aif360_subjective.datasets import make_subjective_dataset
from aif360_subjective.detectors import detect_subgroups
from aif360_subjective.metrics import OpinionExclusionMetric
from aif360_subjective.report import Details, Paragraph, Report, Table
from aif360_subjective.report.sections import (
    lopsided_alternatives,
    opinion_sections,
    opinion_summary_table,
    share_text,
    significance_mark,
    subgroup_interval_table,
    subgroup_sections,
)

N_BOOT = 200


def _texts(blocks, kind: str | None = None) -> list[str]:
    out = []
    for b in blocks:
        if isinstance(b, Paragraph) and (kind is None or b.kind == kind):
            out.append(b.text)
        elif isinstance(b, Details):
            out += _texts(b.blocks, kind)
    return out


def _sec(sections, title: str):
    """The section of that title (the order is answer, rankings, then details)."""
    return next(s for s in sections if s.title == title)


UNFAIRNESS = "Opinion-exclusion unfairness"
GROUPS = "Groups ranked from the worst served"
PATTERNS = "Subgroup patterns"
CLUSTERING = "Clustering details"


def _details(blocks) -> list[Details]:
    return [b for b in blocks if isinstance(b, Details)]


@pytest.fixture(scope="module")
def models():
    ds = make_subjective_dataset(n_items=300, n_annotators=40, random_state=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # thin groups: the report's line is tested instead
        return {"Model 1": OpinionExclusionMetric(ds, ds.with_predictions(ds.majority_labels()), bins=5),
                "Model 3": OpinionExclusionMetric(ds, ds.copy(), bins=5)}


# ------------------------------------------------------------------------------------------- opinion side
def test_intervals_next_to_unfairness_and_performance(models):
    sections = opinion_sections(models, figures=False, n_boot=N_BOOT, random_state=7)
    text = _texts(_sec(sections, UNFAIRNESS).blocks)
    m = models["Model 1"]
    u = m.unfairness_ci(ci=0.95, n_boot=N_BOOT, random_state=7)
    p = m.performance_ci(ci=0.95, n_boot=N_BOOT, random_state=7)
    want = (f"Model 1: unfairness {m.unfairness():.3f} [{u[0]:.3f}, {u[1]:.3f}], accuracy {m.performance():.3f} "
            f"[{p[0]:.3f}, {p[1]:.3f}].")
    verdict = m.verdict(ci=0.95, n_boot=N_BOOT, random_state=7)
    assert want in text and not any("Verdict:" in t for t in text)  # the answer section states the verdict
    answer_text = " ".join(_texts(sections[0].blocks))
    assert verdict in answer_text
    alone = _texts(_sec(opinion_sections(models, figures=False, n_boot=N_BOOT, random_state=7, answer=False),
                        UNFAIRNESS).blocks)
    assert f"{want} Verdict: {verdict}." in alone  # without the answer, the details say it
    assert u[0] <= m.unfairness() <= u[1]
    meaning = [t for t in text if t.startswith("Intervals in brackets are 95% confidence intervals")]
    assert len(meaning) == 1 and f"{N_BOOT:,} replicates, seed 7" in meaning[0]
    assert "reaches 0 when the spread is indistinguishable from noise" in meaning[0]
    assert "groups and ADR bin edges held fixed" in meaning[0] and "http" not in meaning[0]
    # the summary table: the interval as a column after each figure
    table = next(b for b in _sec(sections, UNFAIRNESS).blocks if isinstance(b, Table))
    header = table.header[-1]
    assert header[1:5] == ["unfairness", "unfairness 95% interval", "performance", "performance 95% interval"]
    assert table.rows[0][2] == f"[{u[0]:.3f}, {u[1]:.3f}]"


def test_summary_table_columns(models):
    raw = opinion_summary_table(models)
    assert "unfairness_ci_low" not in raw.columns
    table = opinion_summary_table(models, ci=0.9, n_boot=N_BOOT, random_state=1)
    m = models["Model 1"]
    iv = m.unfairness_ci(ci=0.9, n_boot=N_BOOT, random_state=1)
    assert table.loc["Model 1", ["unfairness_ci_low", "unfairness_ci_high"]].tolist() == [iv[0], iv[1]]
    np.testing.assert_allclose(table[["unfairness", "performance"]], raw[["unfairness", "performance"]])


def test_ci_none_gives_the_papers_figures_only(models):
    sections = opinion_sections(models, figures=False, ci=None)
    text = " ".join(_texts(_sec(sections, UNFAIRNESS).blocks))
    assert "[" not in text and "bootstrap" not in text
    table = next(b for b in _sec(sections, UNFAIRNESS).blocks if isinstance(b, Table))
    assert not any("interval" in h for h in table.header[-1])
    groups = next(b for b in _sec(sections, GROUPS).blocks if isinstance(b, Table))
    assert "ci_low" not in groups.header[-1]


def test_group_tables_carry_intervals(models):
    sections = opinion_sections(models, figures=False, n_boot=N_BOOT)
    groups = next(b for b in _sec(sections, GROUPS).blocks if isinstance(b, Table))
    header = groups.header[-1]
    assert "ci_low" in header and "ci_high" in header
    want = models["Model 1"].group_performance(ci=0.95, n_boot=N_BOOT, random_state=0)
    want = want.sort_values("performance", kind="stable")  # worst served first
    col = header.index("ci_low")
    # a group of one annotator gets no interval (shown as a dash)
    assert [r[col] for r in groups.rows] == [f"{v:.3f}" if np.isfinite(v) else "\u2013" for v in want["ci_low"]]


@pytest.mark.slow
def test_reports_are_reproducible(models):
    a = Report("r").extend(opinion_sections(models, n_boot=N_BOOT)).render()
    b = Report("r").extend(opinion_sections(models, n_boot=N_BOOT)).render()
    assert a == b


def test_thin_group_line_names_groups_and_shares(models):
    sections = opinion_sections(models, figures=False, n_boot=N_BOOT)
    warnings_ = _texts(_sec(sections, GROUPS).blocks, kind="warning")
    m = models["Model 1"]
    thin = m.thin_groups()
    assert len(thin)  # this data has groups of one annotator
    line = next(t for t in warnings_ if t.startswith("Model 1:"))
    verb = "holds" if len(thin) == 1 else "hold"
    assert f"{len(thin)} of {len(m.group_performance())} groups {verb} fewer than 5 annotators" in line
    from aif360_subjective.opinion.groups import group_label

    for group, row in thin.iterrows():
        n = int(row["n_annotators"])
        assert f"{group_label(group)} ({n} annotator{'' if n == 1 else 's'}, {row['share_of_unfairness']:.0%} of " \
               "the unfairness)" in line
    # a model whose groups all perform the same has no share to state
    line3 = next(t for t in warnings_ if t.startswith("Model 3:"))
    assert "of the unfairness" not in line3


def test_no_thin_group_line_when_warning_is_off():
    ds = make_subjective_dataset(n_items=300, n_annotators=40, random_state=2)
    m = OpinionExclusionMetric(ds, ds.with_predictions(ds.majority_labels()), bins=5, warn_group_size=0)
    sections = opinion_sections({"M": m}, figures=False, n_boot=N_BOOT)
    assert _texts(_sec(sections, GROUPS).blocks, kind="warning") == []


def test_callable_performance_says_why_there_is_no_interval():
    ds = make_subjective_dataset(n_items=150, n_annotators=20, random_state=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        m = OpinionExclusionMetric(ds, ds.with_predictions(ds.majority_labels()), bins=3,
                                   performance=lambda t, p: float(np.mean(t == p)))
    sections = opinion_sections({"C": m}, n_boot=N_BOOT)
    notes = _texts(_sec(sections, UNFAIRNESS).blocks, kind="note")
    assert any(n.startswith("No intervals: the performance measure of C is a callable") for n in notes)
    assert len(Report("r").extend(sections).figures()) == 2  # heatmap and ADR histogram, raw


def test_bad_ci_is_the_callers_error(models):
    with pytest.raises(ValueError, match="ci"):
        opinion_sections(models, ci=1.5)
    with pytest.raises(ValueError, match="n_boot"):
        opinion_sections(models, n_boot=10)


# ------------------------------------------------------------------------------------------- subgroup side
@pytest.fixture(scope="module")
def planted():
    return planted_subgroups(0)


@pytest.mark.slow
def test_significance_marks_follow_the_adjusted_p_values(planted):
    # "significant" means one thing everywhere (issue 33): a finding of the whole report's family, as the answer
    *_, rep = planted
    from aif360_subjective.report.significance import report_family_p

    sections = subgroup_sections(rep, figures=False, alpha=0.05)
    inference = rep.subgroup_metrics(ci=0.95)
    found = rep.findings(0.05, 0.95, keep_redundant=True, merge_identical=False)
    fairness = ("statistical_parity", "equal_opportunity", "equalized_odds", "accuracy_error")
    blocks = _details(_sec(sections, PATTERNS).blocks)
    assert blocks
    seen = {True: 0, False: 0}
    for d in blocks:
        sid = int(re.match(r"Subgroup (\d+):", d.summary).group(1))
        mine = found[found["kind"].isin(["cluster", "entropy"]) & (found["id"] == sid)
                     & found["metric"].isin(fairness)]
        significant = bool(len(mine))
        assert d.muted is (not significant), d.summary
        assert ("no significant disparity (adjusted p < 0.05)" in d.summary) is (not significant)
        seen[significant] += 1
        table = next(b for b in d.blocks if isinstance(b, Table))
        # no per-kind q-value column: the adjusted p of the answer's family only
        assert table.header[0][1:] == ["cluster"] * 4 + ["pattern"] * 4
        assert "significant (adjusted p < 0.05)" in table.header[1] and "adjusted p" in table.header[1]
        assert "q" not in table.header[1]
    assert seen[True] and seen[False]  # the data has both kinds
    # the pattern table's column says the same
    family_p = report_family_p(rep, 0.05, 0.95)
    pats = next(b for b in _sec(sections, PATTERNS).blocks if isinstance(b, Table))
    col = pats.header[-1].index("significant (adjusted p < 0.05)")
    for row in pats.rows:
        sid = int(row[0])
        assert (row[col] == "–") is (significance_mark(inference, sid, 0.05, family_p) == "")


def test_rankings_in_the_report_are_the_answers_findings(planted):
    """Issue 33: a ranking's adjusted p had its own family (one test, one direction); the report's rankings now
    list only findings of the whole report, with their adjusted p."""
    *_, rep = planted
    from aif360_subjective.report.significance import in_report_family

    found = rep.findings(0.05, 0.95, keep_redundant=True, merge_identical=False)
    rk = rep.ranking("statistical_parity", kind="entropy", n=None)
    shown = in_report_family(rep, rk, "statistical_parity", "entropy", "disadvantaged", 0.05, 0.95, None)
    mine = found[(found["kind"] == "entropy") & (found["metric"] == "statistical_parity")
                 & (found["direction"] == "disadvantaged")].set_index("id")["p_adjusted"]
    assert set(shown.index) <= set(mine.index)
    np.testing.assert_allclose(shown["statistical_parity_p_adjusted"], mine.reindex(shown.index))
    # the whole report's family is larger: its adjusted p is never below the ranking's own
    assert (shown["statistical_parity_p_adjusted"].to_numpy()
            >= rk.loc[shown.index, "statistical_parity_p_adjusted"].to_numpy() - 1e-12).all()
    assert shown.attrs["n_not_significant"] == rk.attrs["n_not_significant"] + len(rk) - len(shown)


def test_mark_names_the_disadvantaged_side(planted):
    *_, rep = planted
    inference = rep.subgroup_metrics(ci=0.95)
    top = rep.ranking("statistical_parity", kind="entropy", n=1)
    assert len(top)
    mark = significance_mark(inference, top.index[0], 0.05)
    assert re.search(r"disadvantaged: [^;]*statistical parity", mark)


def test_interval_table_equals_the_library(planted):
    *_, rep = planted
    inference = rep.subgroup_metrics(ci=0.9)
    defined = inference.loc["entropy", "statistical_parity"].notna()
    sid = int(defined[defined].index[0])
    table = subgroup_interval_table(inference, sid, 0.9, None)
    row = inference.loc[("entropy", sid)]
    assert table.loc["Statistical parity", ("pattern", "value")] == pytest.approx(row["statistical_parity"])
    low, high = row["statistical_parity_ci_low"], row["statistical_parity_ci_high"]
    assert table.loc["Statistical parity", ("pattern", "90% interval")] == f"[{low:+.3f},\u00a0{high:+.3f}]"
    from aif360_subjective.report.sections import format_q

    assert table.loc["Statistical parity", ("pattern", "adjusted p")] == format_q(row["statistical_parity_p_adjusted"])
    assert ("pattern", "significant (adjusted p < 0.05)") not in table.columns  # alpha=None: no such column
    undefined = inference.loc["entropy", "statistical_parity"].isna()
    if undefined.any():  # an empty or repeated pattern: dashes, not "nan"
        t = subgroup_interval_table(inference, int(undefined[undefined].index[0]), 0.9, 0.05)
        assert t.loc["Statistical parity", ("pattern", "90% interval")] == "–"
        assert t.loc["Statistical parity", ("pattern", "significant (adjusted p < 0.05)")] == "–"


def test_ci_none_keeps_the_seed_tables(planted):
    *_, rep = planted
    sections = subgroup_sections(rep, figures=False, ci=None)
    d = _details(_sec(sections, PATTERNS).blocks)[0]
    assert not d.muted and "significant" not in d.summary
    table = next(b for b in d.blocks if isinstance(b, Table))
    assert table.header[-1][:3] == ["kind", "id", "size"]


@pytest.fixture(scope="module")
def chained():
    """Single linkage on a long-tailed numeric column: most clusters are single far-out rows."""
    rng = np.random.default_rng(0)
    n = 3000
    X = pd.DataFrame({"a": rng.choice(["x", "y", "z"], n), "b": rng.normal(size=n), "c": rng.exponential(size=n)})
    y = rng.integers(0, 2, n)
    pred = np.where((X["a"] == "x") & (X["b"] > 0), 0, y)
    return X, y, pred, detect_subgroups(X, y, pred, pos_label=1, n_clusters=10, random_state=0)


@pytest.mark.slow
def test_lopsided_clustering_said_plainly(chained):
    X, y, pred, rep = chained
    lop = rep.lopsided
    assert lop["lopsided"]
    alternatives = lopsided_alternatives(rep, X, y, pred)
    sections = subgroup_sections(rep, figures=False, alternatives=alternatives)
    texts = _texts(_sec(sections, CLUSTERING).blocks)
    sizes = rep.clusters.value_counts()
    assert (f"Clustering: slink into 10 clusters; the largest holds {share_text(sizes.max() / len(X))} of the rows; "
            f"{int((sizes <= 0.01 * len(X)).sum())} of the 10 clusters hold at most 1% of the rows each.") in texts
    assert any(t.startswith(f"This clustering is lopsided: {lop['reason']}.") for t in
               _texts(_sec(sections, CLUSTERING).blocks, kind="warning"))
    name, k = alternatives.attrs["suggestion"]
    assert not alternatives.loc[(name, k), "lopsided"]
    assert any(t.startswith(f"Suggested instead: {name} at {k} clusters") for t in texts)
    assert any(isinstance(b, Table) and "lopsided" in b.header[-1] for b in _sec(sections, CLUSTERING).blocks)


@pytest.mark.slow
def test_lopsided_without_alternatives_or_too_big(chained):
    X, y, pred, rep = chained
    hint = _texts(_sec(subgroup_sections(rep, figures=False), CLUSTERING).blocks, kind="note")
    assert any("alternative_clusterings(X, y_true, y_pred, n_clusters=10)" in t for t in hint)
    bounded = lopsided_alternatives(rep, X, y, pred, max_rows=1000)
    assert isinstance(bounded, str) and "3,000 rows, more than the 1,000" in bounded
    assert bounded in _texts(_sec(subgroup_sections(rep, figures=False, alternatives=bounded), CLUSTERING).blocks)


@pytest.mark.slow
def test_lopsided_alternatives_on_a_sample_say_so(chained):
    X, y, pred, rep = chained
    sampled = lopsided_alternatives(rep, X, y, pred, sample_rows=1000, random_state=3)
    assert sampled.attrs["sample"] == (1000, 3000)
    assert lopsided_alternatives(rep, X, y, pred).attrs["sample"] is None  # 3,000 rows: the whole table
    texts = _texts(_sec(subgroup_sections(rep, figures=False, alternatives=sampled), CLUSTERING).blocks)
    assert any("compared on a random sample of 1,000 of the 3,000 rows" in t for t in texts)


def test_balanced_clustering_has_no_lopsided_warning(planted):
    X, y, pred, rep = planted
    assert not rep.lopsided["lopsided"]
    assert lopsided_alternatives(rep, X, y, pred) is None
    texts = _texts(_sec(subgroup_sections(rep, figures=False), CLUSTERING).blocks)
    assert not any("lopsided" in t for t in texts)
    assert any(t.startswith("Clustering: slink into 12 clusters; the largest holds") for t in texts)


@pytest.mark.slow
def test_cut_uniqueness_only_when_known(planted):
    X, y, pred, rep = planted
    # single linkage knows whether its cut is unique (this categorical data has tied merge distances at the cut)
    # a detail, not a warning: it sits in the clustering details
    texts = _texts(_sec(subgroup_sections(rep, figures=False), CLUSTERING).blocks)
    assert rep.cut_is_unique is False
    assert any(t.startswith("The cut of the merge tree into these clusters is not unique") for t in texts)
    kmeans = detect_subgroups(X, y, pred, clustering="kmeans", n_clusters=12, random_state=0)
    assert kmeans.cut_is_unique is None  # a partitional clustering has no merge tree: nothing is said
    kmeans_texts = _texts(_sec(subgroup_sections(kmeans, figures=False), CLUSTERING).blocks)
    assert "cut of the merge tree" not in " ".join(kmeans_texts)
    saved = rep.cut_is_unique
    try:
        rep.cut_is_unique = True
        texts = _texts(_sec(subgroup_sections(rep, figures=False), CLUSTERING).blocks)
        assert any(t.startswith("The cut of the merge tree into these clusters is unique") for t in texts)
    finally:
        rep.cut_is_unique = saved


def test_muted_details_render_greyed():
    rep = Report("r")
    rep.section("s").details("quiet", muted=True).text("x")
    rep.sections[0].details("loud").text("y")
    html = rep.render()
    assert '<details class="muted">' in html and "<details>" in html
    assert "details.muted > summary" in html


def test_share_text_never_rounds_a_part_to_all():
    assert share_text(0.9997235957126623) == "99.97%"
    assert share_text(1.0) == "100.0%"
    assert share_text(0.347) == "34.7%"


def test_q_values_read_as_less_than_a_thousandth_in_rankings():
    from aif360_subjective.report.sections import format_q, q_columns_as_text

    assert [format_q(v) for v in (0.0, 0.0004, 0.001, 0.0456, np.nan)] == ["< 0.001", "< 0.001", "0.001", "0.046",
                                                                           "–"]
    frame = pd.DataFrame({"statistical_parity": [0.1, 0.2], "statistical_parity_q": [1e-9, 0.2],
                          "statistical_parity_p": [np.nan, 0.04], "size": [3, 4]})
    out = q_columns_as_text(frame)
    assert out["statistical_parity_q"].tolist() == ["< 0.001", "0.200"]
    assert out["statistical_parity_p"].tolist() == ["–", "0.040"]
    assert out["statistical_parity"].tolist() == [0.1, 0.2] and frame["statistical_parity_q"].iloc[0] == 1e-9
