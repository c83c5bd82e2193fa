"""Report sections of an opinion-exclusion audit of one or several models.

References:
    A. Balayn, A. Bozzon and Z. Szlavik, "Unfairness towards subjective opinions in Machine Learning", 2019.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pandas as pd

from .._labels import group_label
from ..opinion.bootstrap import BootstrapInterval
from ._protocols import OpinionAudit
from ._text import interval_text
from .answer import answer_section, as_models, opinion_answer
from .model import Section


def opinion_summary_table(metrics: Any, ci: float | None = None, n_boot: int = 1000,
                          random_state: Any = 0) -> pd.DataFrame:
    """Unfairness and performance of every model (the paper's Table 2 layout), with their intervals on request.

    Args:
        metrics: an OpinionExclusionMetric or a dict model name -> OpinionExclusionMetric.
        ci: confidence level of the bootstrap intervals (``unfairness_ci``/``performance_ci``); None = the
            paper's raw figures only.
        n_boot: bootstrap replicates.
        random_state: seed of the bootstrap (fixed by default, so that a table is the same on every run).

    Returns:
        pandas.DataFrame: index ``model``; columns ``unfairness``, ``performance`` (with ``ci``: followed by
        ``unfairness_ci_low``, ``unfairness_ci_high``, ``performance_ci_low``, ``performance_ci_high``),
        ``worst_group`` (its name), ``worst_group_performance`` and ``performance_gap``.

    Raises:
        ValueError: bad ``ci``/``n_boot``, or ``ci`` with a callable performance measure (no bootstrap).
    """
    models = as_models(metrics)
    rows = {}
    for name, m in models.items():
        row: dict[str, Any] = {"unfairness": m.unfairness(), "performance": m.performance()}
        if ci is not None:
            u = m.unfairness_ci(ci=ci, n_boot=n_boot, random_state=random_state)
            p = m.performance_ci(ci=ci, n_boot=n_boot, random_state=random_state)
            row.update(unfairness_ci_low=u[0], unfairness_ci_high=u[1], performance_ci_low=p[0],
                       performance_ci_high=p[1])
        figs = m.individual_figures()
        worst = figs["worst_group"]
        row["worst_group"] = group_label(worst) if worst is not None else None
        row["worst_group_performance"] = float(figs["worst_group_performance"])
        row["performance_gap"] = float(figs["gap"])
        rows[name] = row
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "model"
    return out


def _with_interval_columns(table: pd.DataFrame, names: tuple[str, ...], ci: float) -> pd.DataFrame:
    """``<name>_ci_low``/``_ci_high`` columns as one ``<name> 95% interval`` text column after ``<name>``."""
    out = table.copy()
    for name in names:
        low, high = out.pop(f"{name}_ci_low"), out.pop(f"{name}_ci_high")
        text = [f"[{a:.3f}, {b:.3f}]" if np.isfinite(a) and np.isfinite(b) else "–" for a, b in zip(low, high,
                                                                                                    strict=True)]
        out.insert(list(out.columns).index(name) + 1, f"{name} {ci:.0%} interval", text)
    return out


def interval_meaning(ci: float, n_boot: int, random_state: Any) -> str:
    """The sentence saying what an opinion-exclusion interval is (shown next to the intervals)."""
    return (f"Intervals in brackets are {ci:.0%} confidence intervals. The unfairness's inverts the one-way ANOVA "
            "test (noncentral F): it holds the true spreads across groups that the data do not reject, and reaches 0 "
            "when the spread is indistinguishable from noise. The performance's and the groups' are bootstrap "
            f"intervals ({n_boot:,} replicates, seed {random_state}): the annotators of each group are resampled "
            "with replacement within the group (groups and ADR bin edges held fixed), then each drawn annotator's "
            "annotations are redrawn. They are conditional on the items annotated and say nothing about annotators "
            "of kinds the data does not hold. A group of one annotator gets no interval: one person's annotations "
            "say nothing about how the group's other members are served.")


def thin_group_line(name: str, m: OpinionAudit) -> str | None:
    """One sentence naming a model's groups with fewer than ``warn_group_size`` annotators (at most ten by name)
    and their share of the unfairness, or None when there is none."""
    thin = m.thin_groups()
    if not len(thin):
        return None
    from ..opinion.uncertainty import thin_groups_text

    text = thin_groups_text(thin, len(m.group_performance()), m.options.warn_group_size)
    return (f"{name}: {text}"
            + ". Their values rest on few people; the share is the group's part of the variance across groups.")


def _intervals_or_reason(models: dict[str, OpinionAudit], ci: float | None,
                         n_boot: int) -> tuple[float | None, str | None]:
    """``ci`` if every model can be bootstrapped, else (None, why not)."""
    if ci is None:
        return None, None
    from ..opinion.options import check_interval_options

    for name, m in models.items():
        performance = m.options.performance
        if any(not isinstance(p, str) for p in performance):
            # a callable performance measure cannot be redrawn from confusion counts
            return None, (f"No intervals: the performance measure of {name} is a callable, which the bootstrap "
                          "cannot redraw from the annotators' counts; the figures are the raw ones.")
        check_interval_options(ci, n_boot, "both", performance)  # a bad ci or n_boot is the caller's error
    return ci, None


def grouping_sentence(m: OpinionAudit) -> str:
    """How the annotators (or annotations) of an analysis are grouped, in words (from its options)."""
    kind = m.options.grouping
    perf = m.performance_name()
    how = {
        "adr": "by their average disagreement rate (ADR) with the majority vote of their items",
        "ambiguity": "by the ambiguity (label entropy) of the items they labelled",
        "popularity": "by how often their label agrees with the most popular label",
        "demographic": "by the intersections of their attributes"
                       + (f" ({', '.join(m.options.attributes)})" if m.options.attributes else ""),
        "discovered": "by subgroups discovered in their attributes",
        "series": "by the groups given with the analysis",
    }.get(kind, f"by {kind}")
    return (f"Annotators are grouped {how}. For every annotator the model's {perf} on that annotator's own labels "
            "is computed and averaged within each group. Unfairness is the standard deviation of the groups' "
            "values (0 = every group of opinions is served equally well); performance is their mean.")


def opinion_sections(metrics: Any, *, figures: bool = True, ci: float | None = 0.95, n_boot: int = 1000,
                     random_state: Any = 0, answer: bool = True, verdicts: bool | None = None) -> list[Section]:
    """An opinion-exclusion audit of one or several models, as report sections: the answer, the groups ranked
    from the worst served, the figures, then the details.

    Args:
        metrics: an :class:`~aif360_subjective.metrics.OpinionExclusionMetric` or a dict model name -> metric
            (all with the same grouping, e.g. Models 1-3 of the paper).
        figures: include the matplotlib figures (Figure 3 heatmap, ADR distribution).
        ci: confidence level of the bootstrap intervals shown next to the unfairness, the performance and every
            group's value; None = the paper's raw figures only. A performance measure given as a callable has no
            intervals: the report then says so and shows the raw figures.
        n_boot: bootstrap replicates.
        random_state: seed of the bootstrap (fixed by default: the same report on every run).
        answer: begin with the answer section (:func:`~.answer.opinion_answer`).
        verdicts: repeat each model's verdict of the test of equal service in the unfairness section (default:
            only without the answer section, which states it; pass False when the report shows the answer
            elsewhere).

    Returns:
        list of Section: answer, groups ranked, unfairness per model (with the figure), ADR distribution,
        grouping details.

    Raises:
        TypeError: a value is not an OpinionExclusionMetric.
        ValueError: no metric given, or a bad ``ci``/``n_boot``.
    """
    models = as_models(metrics)
    first = next(iter(models.values()))
    perf = first.performance_name()
    ci, no_ci = _intervals_or_reason(models, ci, n_boot)
    out: list[Section] = []
    if verdicts is None:
        verdicts = not answer
    elif not isinstance(verdicts, bool):
        raise TypeError(f"verdicts must be True, False or None, got {verdicts!r}")
    if answer:
        out.append(answer_section(opinion_answer(models, ci=ci, n_boot=n_boot, random_state=random_state)))

    s = Section("Groups ranked from the worst served")
    s.text(grouping_sentence(first))
    higher = bool(first.options.higher_is_better)
    for i, (name, m) in enumerate(models.items()):
        block = s if i == 0 else s.details(f"Groups of {name}, worst served first")
        table = (m.group_performance() if ci is None
                 else m.group_performance(ci=ci, n_boot=n_boot, random_state=random_state))
        table = table.sort_values("performance", ascending=higher, na_position="last", kind="stable")
        caption = (f"Groups for {name}, worst served first: annotators, annotations, mean {perf} and its spread "
                   "within the group")
        if ci is not None:
            caption += f"; ci_low and ci_high bound the {ci:.0%} interval of the group's {perf}"
        block.table(table, caption + ".")
    for name, m in models.items():
        line = thin_group_line(name, m)
        if line is not None:
            s.text(line, kind="warning")
    out.append(s)

    s = Section("Opinion-exclusion unfairness")
    if first.options.grouping == "adr":
        s.text(_adr_fit_note(models), kind="note")
    if ci is not None:
        for name, m in models.items():
            u = m.unfairness_ci(ci=ci, n_boot=n_boot, random_state=random_state)
            p = m.performance_ci(ci=ci, n_boot=n_boot, random_state=random_state)
            line = f"{name}: unfairness {interval_text(m.unfairness(), u)}, {perf} {interval_text(m.performance(), p)}."
            if verdicts:  # the test of equal service and the intervals in one sentence (the answer says it too)
                line += f" Verdict: {m.verdict(ci=ci, n_boot=n_boot, random_state=random_state)}."
            # only a bootstrap interval can be widened to contain its estimate
            widened = [w for w, iv in (("unfairness", u), (perf, p)) if isinstance(iv, BootstrapInterval)
                       and iv.extended]
            if widened:
                line += (f" The {' and '.join(widened)} interval{'s were' if len(widened) > 1 else ' was'} widened "
                         "to contain the estimate: almost every replicate fell on one side of it.")
            s.text(line)
        s.text(interval_meaning(ci, n_boot, random_state), kind="note")
    elif no_ci is not None:
        s.text(no_ci, kind="note")
    caption = ("Unfairness and performance per model (lower unfairness is fairer; performance is the mean over the "
               "groups, so it depends on the grouping)")
    summary = opinion_summary_table(models, ci=ci, n_boot=n_boot, random_state=random_state)
    if ci is not None:
        caption += f", each followed by its {ci:.0%} interval"
        summary = _with_interval_columns(summary, ("unfairness", "performance"), ci)
    s.table(summary, caption + ".")
    if figures:
        from ..plotting import plot_group_performance

        n_groups = max(len(m.group_performance()) for m in models.values())
        by_adr = first.options.grouping == "adr"
        kind = "heatmap" if n_groups <= DOT_PLOT_FROM else "dots"
        caption = (f"{perf[:1].upper() + perf[1:]} of every model on every group of annotators"
                   + (" (the paper's Figure 3)" if by_adr and kind == "heatmap" else ""))
        if kind == "dots":
            caption += (f"; {n_groups} groups are too many for a readable heatmap: one row per group, worst served "
                        "first")
        if ci is not None:
            caption += (f"; {'under each value' if kind == 'heatmap' else 'bars:'} its {ci:.0%} interval"
                        + (", under each group its number of annotators, next to each model its unfairness and "
                           "performance with their intervals" if kind == "heatmap" else ""))
        s.figure(plot_group_performance(models, kind=kind, ci=ci, n_boot=n_boot, random_state=random_state),
                 caption=caption + ".")
    out.append(s)

    s = Section("Disagreement with the majority (ADR)")
    adr = first.disagreement_rates()
    s.text(f"{int(adr.notna().sum()):,} annotators; median ADR {adr.median():.3f}, "
           f"{float((adr > 0.5).mean()):.1%} disagree with the majority on more than half of their items.")
    if figures:
        s.figure(_adr_histogram(adr), caption="Distribution of the annotators' average disagreement rate.")
    s.details("ADR of every annotator (highest first)").table(
        adr.sort_values(ascending=False).rename("adr").to_frame(), max_rows=500)
    out.append(s)

    s = Section("Grouping details")
    rep = first.grouping_summary()
    s.text(rep.summary())
    fields = {f.name: getattr(rep, f.name) for f in dataclasses.fields(rep)}
    shown = {k: (v if isinstance(v, (str, int, float)) else (repr(v) if v else "–")) for k, v in fields.items()}
    s.details("All grouping figures").table(
        pd.Series(shown, name="value", dtype=object).rename_axis("field").to_frame())
    out.append(s)
    return out


def _adr_fit_note(models: dict[str, OpinionAudit]) -> str:
    """Which ADR fit the figures use (the paper's, or cross-fitted with the paper's unfairness beside it), and
    that the test behind each verdict is cross-fitted."""
    cross = [name for name, m in models.items() if m.options.adr_fit == "cross"]
    if not cross:
        fit = ("ADR bins are fitted on the same annotations the performance is scored on (the paper's method, "
               "adr_fit='same'; the figures below are the paper's).")
    else:
        fit = ("ADR bins are cross-fitted (adr_fit='cross': each annotation grouped by its annotator's ADR on the "
               "other half of the items); the paper's unfairness, with bins fitted on the scored annotations: "
               + ", ".join(f"{name} {models[name].seed_unfairness():.3f}" for name in cross) + ".")
    return (fit + " The test behind each verdict is cross-fitted (bins from one half of each annotator's items, "
            "performance on the other), so the sorting of annotators by their own labels cannot pass for "
            "unfairness there.")


#: Groups from which the report draws a dot plot with intervals instead of a heatmap.
DOT_PLOT_FROM = 12


def _adr_histogram(adr: pd.Series) -> Any:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.2))
    values = adr.dropna().to_numpy(dtype=float)
    ax.hist(values, bins=np.linspace(0, 1, 21).tolist(), color="tab:blue", edgecolor="white")
    ax.set_xlabel("average disagreement rate with the majority")
    ax.set_ylabel("annotators")
    ax.set_xlim(0, 1)
    return fig
