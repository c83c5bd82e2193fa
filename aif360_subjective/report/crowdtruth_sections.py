"""Report sections of CrowdTruth annotator quality and of a filter's removals.

References:
    A. Dumitrache et al., "CrowdTruth 2.0: Quality Metrics for Crowdsourcing with Disagreement", 2018.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ._protocols import FittedCrowdTruthFilter
from ._text import count, were
from .model import Section


def crowdtruth_sections(result: Any, *, n: int = 20, figures: bool = True,
                        annotator_info: pd.DataFrame | None = None) -> list[Section]:
    """CrowdTruth annotator quality (and a filter's removals) as report sections.

    Args:
        result: a fitted :class:`~aif360_subjective.algorithms.preprocessing.CrowdTruthFilter` (its
            ``scores_`` and ``removed_annotators_``) or a
            :class:`~aif360_subjective.quality.CrowdTruthResult`.
        n: rows of the lowest-quality tables.
        figures: include the WQS histogram.
        annotator_info: optional annotator table (indexed by id) joined to the removed annotators
            (e.g. demographics, or a known ``kind`` on generated data).

    Returns:
        list of Section: annotator quality, and removed annotators when ``result`` is a filter.

    Raises:
        TypeError: ``result`` is neither.
    """
    from ..quality.engine import CrowdTruthResult

    fitted = result if isinstance(result, FittedCrowdTruthFilter) else None
    scores = fitted.scores_ if fitted is not None else result
    if not isinstance(scores, CrowdTruthResult):
        raise TypeError(f"expected a fitted CrowdTruthFilter or a CrowdTruthResult, got {type(result).__name__}")
    removed = fitted.removed_annotators_ if fitted is not None else None
    workers = scores.workers
    out: list[Section] = []

    s = Section("Annotator quality (CrowdTruth)")
    s.text(
        "CrowdTruth 2.0 scores every annotator (worker quality score WQS = agreement with the other "
        "annotators of the same items x agreement with the items' overall label distribution, each weighted "
        "by item quality) and every item (unit quality score UQS). Low WQS marks annotators whose labels "
        "agree with nobody: spammers, but possibly also a consistent minority opinion.",
    )
    if figures:
        s.figure(_wqs_histogram(workers, removed), caption="Distribution of the worker quality scores "
                 "(removed annotators in red).")
    cols = [c for c in ("n_units", "wqs", "wwa", "wua") if c in workers.columns]
    s.text("Columns: n_units = items the annotator labelled; wqs = worker quality score; wwa = worker-worker "
           "agreement (with the other annotators of the same items); wua = worker-unit agreement (with the "
           "items' overall label distribution).", kind="note")
    lowest = workers[cols].sort_values("wqs").head(n)
    threshold = fitted.threshold_ if fitted is not None else None
    status = _annotator_status(fitted, lowest.index) if fitted is not None else None
    if status is not None:
        lowest = lowest.assign(status=status)
    caption = f"The {count(min(n, len(workers)), 'annotator')} with the lowest WQS"
    if threshold is not None:
        caption += f" (removal threshold WQS < {threshold:.3f}; status says what the filter did and why)"
    s.table(lowest, caption + ".")
    ucols = [c for c in ("n_workers", "uqs") if c in scores.units.columns]
    s.details(f"The {n} items with the lowest UQS").table(scores.units[ucols].sort_values("uqs").head(n))
    if scores.annotations is not None and len(scores.annotations):
        s.details("Annotation (label) quality scores").table(scores.annotations)
    out.append(s)

    if removed is not None:
        s = Section("Removed annotators")
        n_rem = len(removed)
        s.text(f"The filter removed {n_rem:,} of {count(len(workers), 'annotator')}.")
        table = removed
        if annotator_info is not None:
            table = removed.join(annotator_info, how="left", rsuffix="_info")
        if n_rem:
            s.table(table, "Removed annotators and why.", max_rows=500)
        table_all = fitted.annotators_ if fitted is not None else None
        if table_all is not None and "protected" in table_all:
            kept = table_all[table_all["protected"]]
            if len(kept):
                s.text(f"{count(len(kept), 'annotator')} below the threshold {were(len(kept))} kept: their labels "
                       "are consistent (label-consistency z at least the protection level), the mark of a "
                       "minority opinion rather than of random labelling.")
                s.details(f"Low-WQS annotators kept as a consistent minority ({len(kept):,})").table(
                    kept[["wqs", "consistency_z", "n_annotations"]])
        out.append(s)
    return out


def _annotator_status(result: FittedCrowdTruthFilter, ids: Any) -> list[str] | None:
    """What a fitted filter did with each annotator: removed, kept as protected (with the reason), kept."""
    table = result.annotators_
    if table is None or not {"removed", "protected"} <= set(table.columns):
        return None
    protect_z = result.protect_z
    out = []
    for i in ids:
        row = table.loc[i] if i in table.index else None
        if row is None:
            out.append("–")
        elif bool(row["removed"]):
            out.append("removed")
        elif bool(row["protected"]):
            z = row.get("consistency_z", np.nan)
            level = f" ≥ {protect_z:g}" if protect_z is not None else ""
            out.append(f"kept: protected, consistent labels (z {z:.2f}{level})")
        else:
            out.append("kept")
    return out


def _wqs_histogram(workers: pd.DataFrame, removed: pd.DataFrame | None) -> Any:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.2))
    wqs = workers["wqs"].astype(float)
    bins = np.linspace(0, max(1.0, float(np.nanmax(wqs.to_numpy())) if len(wqs) else 1.0), 26).tolist()
    if removed is not None and len(removed):
        gone = wqs.index.isin(removed.index)
        ax.hist([wqs[~gone].dropna(), wqs[gone].dropna()], bins=bins, stacked=True,
                color=["tab:blue", "tab:red"], label=["kept", "removed"], edgecolor="white")
        ax.legend()
    else:
        ax.hist(wqs.dropna(), bins=bins, color="tab:blue", edgecolor="white")
    ax.set_xlabel("worker quality score (WQS)")
    ax.set_ylabel("annotators")
    return fig
