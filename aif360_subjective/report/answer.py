"""The answer block: the first lines a reader sees, computed from the numbers printed below them.

One builder per family, shared by the HTML report and the command line so that both say the same thing:

* :func:`opinion_answer`: which group of annotators the model serves worst, with its interval; whether that
  group is served worse than the best-served one (their intervals compared); when a group of one annotator or
  the grouping itself changes how to read the figures, a caveat; with several models, which one is fairer and
  whether the unfairness intervals overlap.
* :func:`subgroup_answer`: the significant findings across every fairness metric
  (:meth:`~aif360_subjective.detectors.SubgroupReport.findings`), the strongest named first.

Each returns an :class:`Answer` (sentences, an optional table, key figures); :func:`answer_section` turns it
into the report's first section.

References:
    A. Balayn, A. Bozzon and Z. Szlavik, "Unfairness towards subjective opinions in Machine Learning", 2019.
    J. Schäfer and L. Wiese, "ASDF-Dashboard: Automated Subgroup Detection and Fairness Analysis".
    P. H. Westfall and S. S. Young, "Resampling-Based Multiple Testing", 1993 (max-T adjusted p-values).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._labels import group_label
from ..detectors.subgroup_metrics import SUBGROUP_METRICS, metric_label, value_format
from ._protocols import HoldsSubgroupReport, OpinionAudit
from ._text import bracket, count, interval_text
from .model import Section
from .significance import at_floor, counts_text, family_text, floor_note, p_text, tie_note

__all__ = [
    "ANSWER_TITLE",
    "Answer",
    "answer_section",
    "as_models",
    "as_subgroup_report",
    "findings_table",
    "opinion_answer",
    "subgroup_answer",
]

#: Title of the answer section (first in every report).
ANSWER_TITLE = "Answer"

#: Findings listed by name in the answer (console and report alike); the rest are counted.
MAX_FINDINGS = 20



def _metric_word(metric: str) -> str:
    """A metric's label from the registry, as a word inside a sentence ("statistical parity")."""
    label = metric_label(metric)
    return label if label == metric else label[0].lower() + label[1:]


@dataclass(frozen=True)
class Answer:
    """The answer block of a report or a console run.

    Attributes:
        lines: the sentences, most important first.
        caveats: sentences that change how to read ``lines`` (shown as warnings).
        table: the rows the sentences summarise (the significant findings of a subgroup analysis), or None.
        facts: key figures (label -> text) for the report's cards.
    """

    lines: tuple[str, ...]
    caveats: tuple[str, ...] = ()
    table: pd.DataFrame | None = None
    facts: dict[str, str] = field(default_factory=dict)

    def text(self, heading: str | None = "Answer:") -> str:
        """The block as console text: a heading, the sentences, the caveats, then the table (if any)."""
        out = ([heading] if heading else []) + list(self.lines) + [f"Note: {c}" for c in self.caveats]
        if self.table is not None and len(self.table):
            with pd.option_context("display.width", 160, "display.max_columns", 20, "display.max_colwidth", 70):
                out.append(self.table.to_string())
        return "\n".join(out)


def answer_section(answer: Answer, caption: str = "") -> Section:
    """The answer as the report's first section (sentences, caveats as warnings, then the table)."""
    s = Section(ANSWER_TITLE)
    s.text(*answer.lines)
    if answer.caveats:
        s.text(*answer.caveats, kind="warning")
    if answer.table is not None and len(answer.table):
        s.table(answer.table, caption, max_rows=None)
    return s


# ------------------------------------------------------------------------------------------- opinion
def as_models(metrics: Any) -> dict[str, OpinionAudit]:
    """A dict model name -> analysis from one analysis or a mapping of them.

    An analysis is an ``OpinionExclusionMetric`` (the class face) or an ``OpinionExclusionResult`` (the function
    face, read through :class:`~aif360_subjective.opinion.ResultAudit`).

    Raises:
        ValueError: no analysis given.
        TypeError: a value is not an opinion-exclusion analysis.
    """
    from ..opinion import OpinionExclusionResult, ResultAudit

    models = dict(metrics) if isinstance(metrics, Mapping) else {"model": metrics}
    if not models:
        raise ValueError("metrics must hold at least one OpinionExclusionMetric or OpinionExclusionResult")
    out: dict[str, OpinionAudit] = {}
    for name, m in models.items():
        if isinstance(m, OpinionExclusionResult):
            m = ResultAudit(m)
        if not isinstance(m, OpinionAudit):
            raise TypeError(f"metrics[{name!r}] must be an OpinionExclusionMetric or an OpinionExclusionResult, "
                            f"got {type(m).__name__}")
        out[str(name)] = m
    return out


def _overlap(a: Any, b: Any) -> bool | None:
    """Whether two intervals share a point (None when either is undefined)."""
    lo1, hi1, lo2, hi2 = (float(a[0]), float(a[1]), float(b[0]), float(b[1]))
    if not np.isfinite([lo1, hi1, lo2, hi2]).all():
        return None
    return lo1 <= hi2 and lo2 <= hi1


def _pooled_accuracy(m: OpinionAudit) -> float:
    """Accuracy over every grouped annotation (each annotation counts once): the per-unit accuracies weighted by
    their annotations."""
    units = m.annotator_group_performance()
    n = units["n_annotations"].to_numpy(dtype=np.float64)
    v = units["performance"].to_numpy(dtype=np.float64)
    ok = ~np.isnan(v)
    return float((v[ok] * n[ok]).sum() / n[ok].sum()) if n[ok].sum() > 0 else float("nan")


def _one_model_lines(name: str, m: OpinionAudit, ci: float | None, n_boot: int, random_state: Any,
                     prefix: str, test_adjust: str = "none") -> tuple[list[str], list[str], dict[str, str]]:
    perf = m.performance_name()
    table = m.group_performance() if ci is None else m.group_performance(ci=ci, n_boot=n_boot,
                                                                         random_state=random_state)
    lines: list[str] = []
    caveats: list[str] = []
    facts: dict[str, str] = {}
    values = table["performance"].to_numpy(dtype=np.float64)
    if not np.isfinite(values).any():
        return [f"{prefix}no group has a defined {perf}: nothing to compare."], [], {}
    higher = bool(m.options.higher_is_better)
    # by position: group labels may be tuples (intersections), which .loc would read as several keys
    low, high = int(np.nanargmin(values)), int(np.nanargmax(values))
    i_worst, i_best = (low, high) if higher else (high, low)
    worst, best = table.index[i_worst], table.index[i_best]
    w, b = table.iloc[i_worst], table.iloc[i_best]

    def lone(row: Any) -> bool:  # a one-annotator group: its bootstrap interval would cover nothing (issue 19)
        return int(row["n_annotators"]) < 2 and not np.isfinite(float(row["ci_low"]))

    def figure(row: Any) -> str:
        if ci is None:
            return f"{row['performance']:.3f}"
        if lone(row):
            return f"{row['performance']:.3f} (one annotator: no interval)"
        return interval_text(row["performance"], (row["ci_low"], row["ci_high"]))

    n_w = int(w["n_annotators"])
    served = "served" if prefix else "Served"
    lines.append(f"{prefix}{served} worst: {group_label(worst)} ({count(n_w, 'annotator')}), {perf} {figure(w)}"
                 + (f" ({ci:.0%} interval)" if ci is not None and not lone(w) else "")
                 + f"; best served: {group_label(best)} "
                 f"({count(int(b['n_annotators']), 'annotator')}), {figure(b)}; {count(len(table), 'group')}.")
    facts["served worst"] = group_label(worst)
    if len(table) < 2:
        lines.append("Only one group: there is no other group to compare it with.")
    elif ci is None:
        lines.append("Without intervals (--ci none / ci=None) the data cannot say whether the gap of "
                     f"{abs(float(b['performance']) - float(w['performance'])):.3f} is more than chance.")
    else:
        # the test of equal service decides, in its own words (one verdict logic: the analysis')
        verdict = (m.verdict(ci=ci, n_boot=n_boot, random_state=random_state) if test_adjust == "none" else
                   m.verdict(ci=ci, n_boot=n_boot, random_state=random_state, adjust=test_adjust))  # else its own
        lines.append(f"Test of equal service: {verdict}.")
    u = m.unfairness()
    if ci is not None:
        ui = m.unfairness_ci(ci=ci, n_boot=n_boot, random_state=random_state)
        pi = m.performance_ci(ci=ci, n_boot=n_boot, random_state=random_state)
        lines.append(f"Unfairness (standard deviation of the groups' {perf}) {interval_text(u, ui)}; {perf} "
                     f"{interval_text(m.performance(), pi)}.")
    else:
        lines.append(f"Unfairness (standard deviation of the groups' {perf}) {u:.3f}; {perf} "
                     f"{m.performance():.3f}.")
    # The headline performance is the mean over groups (the paper's definition): it moves with the grouping.
    headline = f"The {perf} above is the mean over the groups (each group counts once), so it changes with the grouping"
    if perf == "accuracy":
        headline += f"; accuracy over all {int(table['n_annotations'].sum()):,} grouped annotations: " \
                    f"{_pooled_accuracy(m):.3f}"
    lines.append(headline + ".")
    singles = int((table["n_annotators"] == 1).sum())
    if singles and singles * 2 >= len(table):
        caveats.append(f"{singles} of {len(table)} groups hold a single annotator. Such a group's value is one "
                       "person's, and its interval only redraws that person's annotations, so a narrow interval "
                       "there is not certainty about the group: group by fewer attributes or raise the minimum "
                       "group size.")
    return lines, caveats, facts


def opinion_answer(metrics: Any, *, ci: float | None = 0.95, n_boot: int = 1000,
                   random_state: Any = 0, test_adjust: str = "none") -> Answer:
    """The answer block of an opinion-exclusion audit of one or several models.

    For each model: the worst-served group with its interval and the best-served one; whether any group is
    served worse than chance would make it: the verdict of the test of equal service
    (``OpinionExclusionMetric.verdict``: annotators permuted across groups, with the unfairness interval); the
    unfairness and performance with their intervals; that the performance is the mean over the groups (and,
    for accuracy, the accuracy over every annotation). With several models: the fairer one (lower unfairness)
    and whether the unfairness intervals overlap.

    Args:
        metrics: an ``OpinionExclusionMetric`` or a dict model name -> metric.
        ci: confidence level of the intervals; None = the raw figures (no comparison can then be made).
        n_boot: bootstrap replicates.
        random_state: seed of the bootstrap (the same as the report's, so the figures agree).
        test_adjust: the item adjustment of the test of equal service behind the verdict ("none" or "items").

    Returns:
        Answer: the sentences, caveats and key figures.

    Raises:
        TypeError: a value is not an opinion-exclusion analysis.
        ValueError: no analysis given, or a bad ``ci``/``n_boot``.
    """
    models = as_models(metrics)
    lines: list[str] = []
    caveats: list[str] = []
    facts: dict[str, str] = {}
    several = len(models) > 1
    for name, m in models.items():
        ls, cs, fs = _one_model_lines(name, m, ci, n_boot, random_state, f"{name}: " if several else "",
                                      test_adjust)
        lines += ls
        caveats += [c for c in cs if c not in caveats]
        if not several:
            facts.update(fs)
    if several:
        ranked = sorted(models.items(), key=lambda kv: kv[1].unfairness())
        (fair_name, fair), (next_name, nxt) = ranked[0], ranked[1]
        text = (f"Fairer: {fair_name} (unfairness {fair.unfairness():.3f}) rather than {next_name} "
                f"({nxt.unfairness():.3f})")
        if ci is not None:
            a = fair.unfairness_ci(ci=ci, n_boot=n_boot, random_state=random_state)
            b = nxt.unfairness_ci(ci=ci, n_boot=n_boot, random_state=random_state)
            overlap = _overlap(a, b)
            if overlap is None:
                text += "; an unfairness interval is undefined, so no comparison"
            elif overlap:
                text += (f"; their {ci:.0%} intervals overlap ({bracket(a)} and {bracket(b)}), so these data do not "
                         "show which is fairer")
            else:
                text += f"; their {ci:.0%} intervals do not overlap"
        lines.insert(0, text + ".")
        facts["fairer model"] = fair_name
    return Answer(tuple(lines), tuple(caveats), None, facts)


# ------------------------------------------------------------------------------------------- subgroups
def as_subgroup_report(result: Any) -> Any:
    """The :class:`~aif360_subjective.detectors.SubgroupReport` of a result (itself, or the one a
    ``SubgroupDiscoveryMetric`` holds).

    Raises:
        TypeError: ``result`` is neither.
    """
    from ..detectors.report import SubgroupReport

    if isinstance(result, SubgroupReport):
        return result
    if isinstance(result, HoldsSubgroupReport) and isinstance(result.report, SubgroupReport):
        return result.report
    raise TypeError(f"expected a SubgroupReport or SubgroupDiscoveryMetric, got {type(result).__name__}")


def findings_table(findings: pd.DataFrame, pattern_text: pd.Series | None = None) -> pd.DataFrame:
    """The findings as the answer shows them: one row per finding, the subgroup described in words, the value
    with its interval and the adjusted p-value as text.

    Args:
        findings: :meth:`SubgroupReport.findings`.
        pattern_text: the entropy pattern's text per cluster id (to describe a cluster and its entropy pattern
            as the report's pattern table writes them), or None. Mined patterns keep their own description: their
            ids are not cluster ids.
    """
    desc = []
    for kind, sid, text in zip(findings["kind"], findings["id"], findings["description"], strict=True):
        if kind == "cluster":
            pat = pattern_text.get(sid) if pattern_text is not None else None
            desc.append(f"cluster {sid}" + (f" (mostly {pat})" if pat else ""))
        elif kind == "entropy" and pattern_text is not None:
            desc.append(pattern_text.get(sid, text))
        else:
            desc.append(text)
    ci = findings.attrs.get("ci", 0.95)
    b = findings.attrs.get("n_permutations")  # "≤ 0.005" at the floor 1/(B + 1) of the permutations
    return pd.DataFrame({
        "side": findings["direction"].to_numpy(),
        "metric": [_metric_word(m) for m in findings["metric"]],
        "subgroup": desc,
        "rows": findings["size"].astype("Int64").to_numpy(),
        # no-break spaces: a value and its interval stay on one line
        f"value [{ci:.0%} interval]": [
            f"{v:{f}}\u00a0[{lo:{f}},\u00a0{hi:{f}}]" for f, v, lo, hi in
            zip(map(value_format, findings["metric"]), findings["value"], findings["ci_low"], findings["ci_high"],
                strict=True)],
        "adjusted p": [p_text(float(q), b).replace(" ", "\u00a0") for q in findings["p_adjusted"]],
    }, index=pd.RangeIndex(1, len(findings) + 1, name="#"))


def _finding_text(one: pd.DataFrame, pattern_text: pd.Series | None) -> str:
    """One finding in words: ``subgroup (N rows), metric +0.123 [+0.069, +0.174], adjusted p < 0.001``."""
    top = findings_table(one, pattern_text).iloc[0]
    row = one.iloc[0]
    f = value_format(row["metric"])
    return (f"{top['subgroup']} ({top['rows']:,} rows), {top['metric']} {row['value']:{f}} "
            f"[{row['ci_low']:{f}}, {row['ci_high']:{f}}], adjusted p "
            f"{p_text(float(row['p_adjusted']), one.attrs.get('n_permutations'))}")


def _short(text: str, limit: int = 48) -> str:
    """A card's text: at most ``limit`` characters (the answer's sentence holds the whole description)."""
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def subgroup_answer(result: Any, *, alpha: float | None = 0.05, ci: float | None = 0.95,
                    pattern_text: pd.Series | None = None, max_findings: int = MAX_FINDINGS) -> Answer:
    """The answer block of a subgroup-discovery result: its significant findings across every metric.

    Args:
        result: a ``SubgroupReport`` or ``SubgroupDiscoveryMetric``.
        alpha: family-wise error rate of the findings (permutation max-T over every subgroup, metric and
            direction); None (the seed's raw view) = no findings, said so.
        ci: confidence level of the intervals (None: 0.95).
        pattern_text: pattern text per cluster id, as the report's pattern table writes it.
        max_findings: findings listed in the table (the same list in the console and the report); the rest
            are counted.

    Returns:
        Answer: the sentences and the findings table.
    """
    rep = as_subgroup_report(result)
    if rep.weighted:
        return Answer(("The analysis used non-uniform instance weights, whose weighted counts give no binomial "
                       "intervals or tests: no finding can be called significant; see the raw rankings below.",))
    if alpha is None:
        return Answer(("No significance filter was asked for (alpha none): the rankings below are the seed's raw "
                       "ones, and none of their values is shown to be more than chance.",))
    ci = 0.95 if ci is None else ci
    found = rep.findings(alpha, ci)
    n_tested = int(found.attrs["n_hypotheses"])
    n_perm = int(found.attrs["n_permutations"])
    family = family_text(alpha, n_tested, n_perm)
    names = tuple(getattr(rep.candidate_metrics, "names", SUBGROUP_METRICS))
    task = rep.task_type
    unit = str(getattr(rep, "unit", "rows"))
    lines: list[str] = []
    caveats: list[str] = []
    facts: dict[str, str] = {}
    if not len(found):
        lines.append(f"No subgroup differs significantly from the rest on any metric at {family}.")
        facts["significant findings"] = "0"
    else:
        n_dis = int((found["direction"] == "disadvantaged").sum())
        n_fav = len(found) - n_dis
        present = set(found["metric"].unique())  # once: the findings can be tens of thousands of rows
        metrics = ", ".join(_metric_word(m) for m in names if m in present)
        # a finding is a subgroup on one metric in one direction: counted with its subgroups and the sub-patterns
        # left out, so that the discovery table's count of significant subgroups (before they are left out) agrees
        lines.append(f"{count(len(found), 'significant finding')} (a subgroup, a metric and a direction each) at "
                     f"{family}: {n_dis:,} disadvantaged, {n_fav:,} favoured, on {metrics}; {counts_text(found)}.")
        dis = found[found["direction"] == "disadvantaged"]
        if len(dis):
            top = findings_table(dis.iloc[:1], pattern_text).iloc[0]
            lines.append(f"Most significantly disadvantaged: {_finding_text(dis.iloc[:1], pattern_text)}.")
            facts["most disadvantaged"] = _short(str(top["subgroup"]))
            # the strongest disadvantaged finding of every other metric too, so that no metric's gap is left to
            # the table (the first finding may be on statistical parity while an equal-opportunity gap is larger)
            for metric in names:
                part = dis[dis["metric"] == metric]
                if len(part) and metric != dis["metric"].iloc[0]:
                    lines.append(f"By {_metric_word(metric)}: {_finding_text(part.iloc[:1], pattern_text)}.")
        else:
            lines.append("No subgroup is significantly disadvantaged; every finding is a favoured subgroup.")
        lines.append(task.sign_sentence(names, _metric_word))
        facts["significant findings"] = f"{len(found):,}"
        n_floor = sum(at_floor(float(q), n_perm) for q in found["p_adjusted"].to_numpy(dtype=float))
        if n_floor:
            lines.append(floor_note(n_perm))
        if n_floor > 1:
            lines.append(tie_note(n_floor, n_perm))
    if not task.decisions:  # binary decisions are the seed's case, said by the favourable label
        lines.append(f"Task: {rep.task_reason}.")
        facts["task"] = task.name
    if not unit.startswith("rows ("):
        lines.append(f"Unit of inference: {unit}.")
        facts["unit of inference"] = unit
    sampled = getattr(rep, "cluster_sample", None)
    if sampled is not None:  # the clusters' shapes come from a sample: said, never silently
        lines.append(rep.clustering_note())
        facts["clustered rows"] = f"a random sample of {sampled:,} of {len(rep.clusters):,}"
    mining = rep.mining_note() if hasattr(rep, "mining_note") else ""
    if mining:  # a length of patterns was not mined (max_patterns): said, never silently
        lines.append(mining)
    lop = rep.lopsided
    if lop.get("lopsided"):
        caveats.append(f"The clustering is lopsided ({lop['reason']}): its subgroups are nearly all rows or a "
                       "handful of rows; the clustering details compare the other clusterers at the same number of "
                       "clusters.")
    table = findings_table(found.iloc[:max_findings], pattern_text)
    if len(found) > max_findings:
        # the per-subgroup details expand the clusters only: the rest are in SubgroupReport.findings()
        lines.append(f"The table lists the first {max_findings} findings (smallest adjusted p first); "
                     f"{len(found) - max_findings:,} more are not shown (SubgroupReport.findings() lists every one).")
    return Answer(tuple(lines), tuple(caveats), table, facts)
