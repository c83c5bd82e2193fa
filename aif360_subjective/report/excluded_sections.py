"""Report section of a discovery of excluded opinions (:func:`~aif360_subjective.opinion.excluded_groups`).

References:
    Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine Learning.
"""

from __future__ import annotations

from typing import Any

from .model import Section

__all__ = ["FINDING_COLUMNS", "excluded_groups_section"]

#: The columns of a finding shown in the report, in order.
FINDING_COLUMNS = ["description", "n_annotators", "n_annotations", "performance", "rest_performance", "gap",
                   "ci_low", "ci_high", "p_adjusted", "shared_items"]


def excluded_groups_section(ex: Any, max_rows: int = 20) -> Section:
    """"Whose opinions are excluded": the answer, the groups served worse (with their members), and what was searched.

    Args:
        ex: an :class:`~aif360_subjective.opinion.ExcludedGroups`.
        max_rows: most findings listed.

    Returns:
        Section
    """
    s = Section("Whose opinions are excluded")
    s.text(ex.sentence())
    found = ex.findings()
    if len(found):
        shown = found[FINDING_COLUMNS].head(max_rows)
        floor = [ex.at_floor(p) for p in shown["p_adjusted"]]
        # p-values as text: "≤ 0.001" at the smallest B permutations can give, never "0.001" as if measured
        table = shown.assign(p_adjusted=[ex.p_short(p) for p in shown["p_adjusted"]]).set_index("description")
        note = (f"; ≤: the smallest adjusted p a max-T with B = {ex.n_permutations:,} permutations can give"
                if any(floor) and not ex.exact else "")
        raw = "raw" if ex.adjust == "items" else "raw, as is the gap"
        s.table(table,
                caption=f"Annotator groups served worse ({len(found):,} found; performance and rest_performance "
                        f"{raw}; gap = the rest's {ex.performance} minus the group's"
                        f"{', item-adjusted' if ex.adjust == 'items' else ''}, positive = served worse; "
                        f"[ci_low, ci_high] simultaneous bounds of the gap, p_adjusted max-T over every "
                        f"candidate{'' if ex.exact else ', the larger of the permutation and wild-bootstrap p-values'}"
                        f"{note})")
        for i in shown.index[:5]:
            members = [str(m) for m in ex.members(i)]
            s.details(f"Members of {found.loc[i, 'description']} ({len(members)} annotators)").text(
                ", ".join(members))
    s.text(ex.summary().removesuffix(ex.sentence()).strip(), kind="note")
    return s
