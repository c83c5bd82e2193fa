"""One recipe for what a subgroup analysis shows, read by the command line and the dashboard.

From a :class:`~aif360_subjective.detectors.report.SubgroupReport` it decides, once, which parts to build: the
entropy patterns written as in the report's table (when the seed's clustering ran), the other clusterers compared
when that clustering is lopsided (binary decisions, whose rates the comparison scores), the answer (the
significant findings), and the HTML report's key figures and sections (:func:`subgroup_report`). The ``subgroups``
command prints and writes it; the dashboard shows it and writes the same report.

References:
    J. Schäfer and L. Wiese, "ASDF-Dashboard: Automated Subgroup Detection and Fairness Analysis".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from .answer import Answer, subgroup_answer
from .model import Report
from .subgroup_sections import lopsided_alternatives, pattern_texts, subgroup_sections, whole_numbers_as_int

__all__ = ["SubgroupRecipe", "entropy_pattern_text", "subgroup_recipe", "subgroup_report"]


@dataclass(frozen=True)
class SubgroupRecipe:
    """The parts of one subgroup analysis that the console and the HTML report show.

    Attributes:
        report: the ``SubgroupReport``.
        pattern_text: the entropy pattern of every cluster as the report's pattern table writes it (integer
            values without decimals), or None when no clustering ran.
        alternatives: the other clusterers compared at the same number of clusters when the clustering is
            lopsided (:func:`~.subgroup_sections.lopsided_alternatives`: a table, or a sentence saying why none
            was computed), None otherwise or for a task other than binary decisions.
        answer: the answer block (the significant findings under one family-wise error).
    """

    report: Any
    pattern_text: pd.Series | None
    alternatives: pd.DataFrame | str | None
    answer: Answer


def entropy_pattern_text(rep: Any) -> pd.Series | None:
    """The entropy patterns of ``rep``'s clusters as the report's pattern table writes them (None without a
    clustering): the answer, the console and the report name a cluster by the same text."""
    return pattern_texts(whole_numbers_as_int(rep.patterns(all_columns=False))) if rep.has_clusters else None


def subgroup_recipe(rep: Any, X: Any, y_true: Any, y_pred: Any, *, random_state: Any = 0,
                    alpha: float | None = 0.05, ci: float | None = 0.95) -> SubgroupRecipe:
    """The parts of the analysis ``rep`` of ``X`` (with the truth and prediction it was given) to show.

    Args:
        rep: a ``SubgroupReport``.
        X, y_true, y_pred: the data ``rep`` was computed on (binary decisions: the 0/1 labels given to
            ``detect_subgroups``), read by the comparison of the other clusterers.
        random_state: seed of that comparison.
        alpha, ci: the answer's family-wise error rate (None: no significance filter) and confidence level.

    Returns:
        SubgroupRecipe
    """
    # a lopsided clustering: compare the other clusterers (bounded in rows), which score binary rates
    alternatives = (lopsided_alternatives(rep, X, y_true, y_pred, random_state=random_state)
                    if rep.has_clusters and rep.task_type.decisions else None)
    texts = entropy_pattern_text(rep)
    return SubgroupRecipe(rep, texts, alternatives, subgroup_answer(rep, alpha=alpha, ci=ci, pattern_text=texts))


def subgroup_report(recipe: SubgroupRecipe, title: str, summary: Sequence[str], *, n: int = 5,
                    model: str | None = None, alpha: float | None = 0.05, min_size: int = 1,
                    ci: float | None = 0.95) -> Report:
    """The HTML report of a recipe: the answer's key figures, the number of clusters (when the clustering ran),
    then :func:`~.subgroup_sections.subgroup_sections` (answer, rankings, the seed's views or the task's
    rankings, the comparison of the discovery methods).

    Args:
        recipe: from :func:`subgroup_recipe`.
        title, summary: the report's title and summary paragraphs.
        n, model, alpha, min_size, ci: as :func:`~.subgroup_sections.subgroup_sections`.

    Returns:
        Report
    """
    rep = recipe.report
    report = Report(title, summary=list(summary))
    report.add_facts(recipe.answer.facts)
    if rep.has_clusters:
        report.fact("clusters", rep.n_clusters)
    report.extend(subgroup_sections(rep, n=n, model=model, alpha=alpha, min_size=min_size, ci=ci,
                                    alternatives=recipe.alternatives))
    return report
