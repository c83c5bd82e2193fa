"""Figures of the opinion-exclusion metrics (the paper's Figure 3 and a group-size variant).

References:
    Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine
    Learning. Figure 3 (performance of each model on the groups of annotators by ADR).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..opinion.groups import group_label
from ._text import literal

__all__ = ["plot_group_performance", "group_performance_table", "group_interval_tables"]


def group_performance_table(metrics: Mapping) -> pd.DataFrame:
    """Performance of every model (rows) on every group (columns), in the groups' order.

    Args:
        metrics: model name -> :class:`~aif360_subjective.metrics.OpinionExclusionMetric`.

    Returns:
        pandas.DataFrame: index ``model``, columns = group labels (as in the group tables).
    """
    if not isinstance(metrics, Mapping) or not metrics:
        raise ValueError("metrics must be a non-empty dict {model name: OpinionExclusionMetric}")
    rows, order = {}, []
    for name, m in metrics.items():
        if not hasattr(m, "group_performance"):
            raise TypeError(f"metrics[{name!r}] must be an OpinionExclusionMetric, got {type(m).__name__}")
        table = m.group_performance()
        rows[name] = table["performance"]
        order += [g for g in table.index if g not in order]
    out = pd.DataFrame({k: v.reindex(order) for k, v in rows.items()}).T
    out.index.name = "model"
    out.columns = pd.Index(order, name="group", tupleize_cols=False)
    return out


def group_interval_tables(
    metrics: Mapping, ci: float = 0.95, n_boot: int = 1000, random_state=0
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Bootstrap interval bounds of every model's value on every group, laid out as :func:`group_performance_table`.

    Args:
        metrics: model name -> :class:`~aif360_subjective.metrics.OpinionExclusionMetric`.
        ci, n_boot, random_state: as in ``OpinionExclusionMetric.group_performance(ci=...)`` (a fixed seed by
            default, so that a figure is the same on every run).

    Returns:
        tuple of pandas.DataFrame: ``(low, high)``, index ``model``, columns = group labels.
    """
    table = group_performance_table(metrics)
    lows, highs = {}, {}
    for name, m in metrics.items():
        g = m.group_performance(ci=ci, n_boot=n_boot, random_state=random_state)
        lows[name], highs[name] = g["ci_low"], g["ci_high"]
    low = pd.DataFrame({k: v.reindex(table.columns) for k, v in lows.items()}).T.reindex(table.index)
    high = pd.DataFrame({k: v.reindex(table.columns) for k, v in highs.items()}).T.reindex(table.index)
    low.columns = high.columns = table.columns
    return low, high


def _higher_is_better(metrics: Mapping) -> bool:
    """The common direction of the models' measures (a figure cannot colour two directions at once)."""
    directions = {name: bool(m.options.higher_is_better) for name, m in metrics.items()}
    if len(set(directions.values())) > 1:
        raise ValueError(
            "the models' performance measures have opposite directions (higher_is_better: "
            f"{directions}); draw them in separate figures"
        )
    return next(iter(directions.values()))


def plot_group_performance(
    metrics: Mapping,
    kind: str = "heatmap",
    ax=None,
    cmap: str | None = None,
    annotate: bool = True,
    fmt: str = "{:.2f}",
    vmin: float | str | None = "auto",
    vmax: float | str | None = "auto",
    show_summary: bool = True,
    ci: float | None = None,
    n_boot: int = 1000,
    random_state=0,
):
    """Performance of several models on the groups of annotators.

    ``kind="heatmap"`` draws the paper's Figure 3: one row per model, one column per group (ADR
    range), each cell coloured and annotated with the group's performance; the row labels carry the
    model's unfairness and general performance. ``kind="bars"`` draws grouped bars (one colour per
    model) with the groups' sizes (annotators) as a grey line on a secondary axis. ``kind="dots"`` draws one
    row per group, worst served first (by the first model), one dot per model with its interval as a horizontal
    bar: readable with many groups (the report switches to it past 12 groups), long group names shortened with
    "…" (the group tables hold them in full).

    With ``ci`` every value carries its bootstrap interval (two-level bootstrap, groups held fixed; see
    ``OpinionExclusionMetric.unfairness_ci``): under the value in each heatmap cell, as error bars on the bars,
    and next to the unfairness and performance in the model labels. ``ci=None`` draws the paper's raw figure.

    The colours follow the performance measure's direction
    (:data:`~aif360_subjective.opinion.options.PERFORMANCES`): green is always the better end, so a
    lower-is-better measure such as ``"mae"`` uses the reversed colormap, and its colour range starts at 0 and
    ends at the data's largest value (MAE is in rating units, not a rate in [0, 1]).

    Args:
        metrics: model name -> OpinionExclusionMetric (all with the same grouping).
        kind: "heatmap", "bars" or "dots".
        ax: matplotlib Axes to draw on (a new figure when None).
        cmap: colormap of the heatmap, low to high values; None = ``"RdYlGn"`` when higher is better,
            ``"RdYlGn_r"`` when lower is better.
        annotate: write the values in the heatmap cells.
        fmt: format of the annotations.
        vmin, vmax: colour range (None = data range; ``"auto"`` = 0 to 1 for rates, 0 to the data's maximum for
            measures outside [0, 1] such as ``"mae"`` or callables).
        show_summary: add "(unfairness u, performance p)" to the model labels.
        ci: confidence level of the intervals (e.g. 0.95); None = no intervals (the paper's figure).
        n_boot: bootstrap replicates of the intervals.
        random_state: seed of the bootstrap (fixed by default: the same figure on every run).

    Returns:
        matplotlib.axes.Axes: the Axes drawn on (``ax.figure`` is the Figure). For "bars" the
        secondary axis with the group sizes is ``ax.sizes_ax``.

    Raises:
        ValueError: empty ``metrics``, unknown ``kind``, or models whose measures have opposite directions.
    """
    import matplotlib.pyplot as plt

    if kind not in ("heatmap", "bars", "dots"):
        raise ValueError(f"kind must be 'heatmap', 'bars' or 'dots', got {kind!r}")
    table = group_performance_table(metrics)
    if kind == "dots":
        return _plot_dots(metrics, table, ax, ci, n_boot, random_state)
    if ax is None:
        width = max(6.0, 1.1 * table.shape[1] + 3)
        per_row = 0.6 if ci is None else 0.95  # the interval lines need room
        height = max(2.5, per_row * table.shape[0] + 1.5) if kind == "heatmap" else 4.5
        _, ax = plt.subplots(figsize=(width, height))
    labels = [literal(group_label(g)) for g in table.columns]  # data, not mathtext
    first = next(iter(metrics.values()))
    higher = _higher_is_better(metrics)
    if cmap is None:
        cmap = "RdYlGn" if higher else "RdYlGn_r"
    unit = first.options.unit_interval
    values_all = table.to_numpy(dtype=float)
    top = float(np.nanmax(values_all)) if np.isfinite(values_all).any() else 1.0
    if vmin == "auto":
        vmin = 0.0
    if vmax == "auto":
        vmax = 1.0 if unit else max(top, 1e-12)
    grouping = first.grouping if isinstance(first.grouping, str) else "group"
    low = high = None
    if ci is not None:
        low, high = group_interval_tables(metrics, ci=ci, n_boot=n_boot, random_state=random_state)
    model_labels = [_model_label(name, m, show_summary, ci, n_boot, random_state) for name, m in metrics.items()]
    perf_name = literal(first.performance_name())
    if kind == "heatmap":
        values = table.to_numpy(dtype=float)
        im = ax.imshow(np.ma.masked_invalid(values), cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto")
        ticks = labels
        if ci is not None:  # an interval is read with the group's size: name it under the group
            sizes = first.group_performance()["n_annotators"].reindex(table.columns)
            ticks = [f"{lab}\n{_annotators(n)}" for lab, n in zip(labels, sizes, strict=True)]
        # rotate when the names would run into each other (many groups, or long names such as "Black or
        # African American")
        longest = max(len(line) for tick in ticks for line in tick.split("\n"))
        tilt = len(labels) > 6 or longest * len(labels) > 70
        ax.set_xticks(range(len(labels)), labels=ticks, rotation=30 if tilt else 0, ha="right" if tilt else "center",
                      rotation_mode="anchor" if tilt else "default")
        ax.set_yticks(range(len(model_labels)), labels=model_labels)
        if annotate:
            lo, hi = np.nanmin(values) if vmin is None else vmin, np.nanmax(values) if vmax is None else vmax
            for (i, j), v in np.ndenumerate(values):
                if np.isfinite(v):
                    dark = (v - lo) / (hi - lo + 1e-12) < 0.25 or (v - lo) / (hi - lo + 1e-12) > 0.85
                    colour = "white" if dark else "black"
                    if low is None:
                        ax.text(j, i, fmt.format(v), ha="center", va="center", color=colour)
                        continue
                    # the value, and under it (smaller) its interval: one text per cell, so the two never drift
                    a, b = low.iat[i, j], high.iat[i, j]
                    bounds = f"[{fmt.format(a)}, {fmt.format(b)}]" if np.isfinite(a) and np.isfinite(b) else "[–]"
                    ax.text(j, i, f"{fmt.format(v)}\n{bounds}", ha="center", va="center", color=colour,
                            fontsize="small", linespacing=1.3)
        ax.figure.colorbar(im, ax=ax, label=f"{perf_name} ({first.options.direction_text})")
        ax.set_xlabel(f"{grouping} groups" if grouping != "adr" else "annotators' ADR range")
        ax.set_title(f"{perf_name} per group of annotators")
    else:
        n_models, n_groups = table.shape
        x = np.arange(n_groups)
        width = 0.8 / n_models
        for k, (lab, (name, row)) in enumerate(zip(model_labels, table.iterrows(), strict=True)):
            vals = row.to_numpy(dtype=float)
            yerr = None
            if low is not None:
                # intervals as error bars; a missing bound draws no bar rather than a misleading one
                yerr = np.vstack([vals - low.loc[name].to_numpy(float), high.loc[name].to_numpy(float) - vals])
                yerr = np.where(np.isfinite(yerr), np.maximum(yerr, 0.0), 0.0)
            ax.bar(x - 0.4 + width * (k + 0.5), vals, width, label=lab, yerr=yerr,
                   capsize=3 if yerr is not None else 0)
        ax.set_xticks(x, labels=labels, rotation=30 if n_groups > 6 else 0)
        ax.set_ylabel(f"{perf_name} ({first.options.direction_text})")
        top_y = (1.0 if unit else top) if vmax is None else (max(vmax, 1.0) if unit else vmax)
        ax.set_ylim(0, top_y * 1.05)
        sizes = first.group_performance()["n_annotators"].reindex(table.columns)
        ax2 = ax.twinx()
        ax2.plot(x, sizes.to_numpy(dtype=float), color="grey", marker="o", linestyle="--", label="annotators")
        ax2.set_ylabel("annotators per group")
        ax2.set_ylim(bottom=0)
        ax.sizes_ax = ax2
        ax.legend(loc="lower left", fontsize="small")
        ax.set_xlabel(f"{grouping} groups" if grouping != "adr" else "annotators' ADR range")
        title = f"{perf_name} per group of annotators (line: group size"
        ax.set_title(title + (f"; bars: {ci:.0%} intervals)" if ci is not None else ")"))
    if kind == "heatmap" and ci is not None:
        ax.set_title(f"{perf_name} per group of annotators [{ci:.0%} interval]")
    return ax


#: Longest group name drawn in a dot plot (longer ones end with "…").
MAX_LABEL = 42


def _short(label: str) -> str:
    return literal(label, MAX_LABEL)  # cut to MAX_LABEL characters, drawn as written


def _plot_dots(metrics: Mapping, table: pd.DataFrame, ax, ci: float | None, n_boot: int, random_state):
    """One row per group (worst served first, by the first model), one dot per model, intervals as bars."""
    import matplotlib.pyplot as plt

    first = next(iter(metrics.values()))
    higher = _higher_is_better(metrics)
    order = table.iloc[0].sort_values(ascending=higher, na_position="last", kind="stable").index
    table = table[order]
    n_groups = table.shape[1]
    if ax is None:
        _, ax = plt.subplots(figsize=(8.5, max(3.0, 0.24 * n_groups + 1.2)))
    low = high = None
    if ci is not None:
        low, high = group_interval_tables(metrics, ci=ci, n_boot=n_boot, random_state=random_state)
        low, high = low[order], high[order]
    y = np.arange(n_groups)
    n_models = table.shape[0]
    offsets = (np.arange(n_models) - (n_models - 1) / 2) * (0.6 / max(n_models, 1))
    sizes = first.group_performance()["n_annotators"].reindex(order)
    for k, name in enumerate(table.index):
        vals = table.loc[name].to_numpy(dtype=float)
        xerr = None
        if low is not None:
            xerr = np.vstack([vals - low.loc[name].to_numpy(float), high.loc[name].to_numpy(float) - vals])
            xerr = np.where(np.isfinite(xerr), np.maximum(xerr, 0.0), 0.0)
        ax.errorbar(vals, y + offsets[k], xerr=xerr, fmt="o", markersize=3.5, capsize=0, elinewidth=1,
                    label=str(name))
    ax.set_yticks(y, labels=[f"{_short(group_label(g))} ({int(n)})" if pd.notna(n) else _short(group_label(g))
                             for g, n in zip(order, sizes, strict=True)], fontsize="x-small")
    ax.invert_yaxis()  # worst served at the top
    ax.set_ylim(n_groups - 0.5, -0.5)
    perf_name = first.performance_name()
    ax.set_xlabel(f"{perf_name} ({first.options.direction_text})")
    ax.grid(axis="x", alpha=0.3)
    if n_models > 1:
        ax.legend(loc="lower right", fontsize="small")
    ax.set_title(f"{perf_name} per group of annotators, worst served first (annotators in brackets"
                 + (f"; bars: {ci:.0%} intervals)" if ci is not None else ")"), fontsize="medium")
    return ax


def _annotators(n) -> str:
    if pd.isna(n):
        return ""
    return f"{int(n):,} annotator{'' if int(n) == 1 else 's'}"


def _model_label(name, m, show_summary: bool, ci: float | None, n_boot: int, random_state) -> str:
    """``name`` and, with ``show_summary``, its unfairness and performance (with their intervals when ``ci``)."""
    name = literal(name)
    if not show_summary:
        return name
    if ci is None:
        return f"{name}\n(unfairness {m.unfairness():.2f}, performance {m.performance():.2f})"
    u = m.unfairness_ci(ci=ci, n_boot=n_boot, random_state=random_state)
    p = m.performance_ci(ci=ci, n_boot=n_boot, random_state=random_state)
    return (f"{name}\nunfairness {m.unfairness():.2f} [{u[0]:.2f}, {u[1]:.2f}]\n"
            f"performance {m.performance():.2f} [{p[0]:.2f}, {p[1]:.2f}]")
