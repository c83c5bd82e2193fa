"""One wording for significance in the report and on the console: the family-wise adjusted p whose family is the
whole report.

:meth:`~aif360_subjective.detectors.SubgroupReport.findings` adjusts every subgroup of every kind, every test and
both directions together (permutation max-T): that is the family the answer speaks of. The rankings and the
per-subgroup tables are shown under the same family (a subgroup is "significant" there exactly when it is a
finding, and its adjusted p is the finding's), so no table calls significant what the answer does not.

The adjusted p-values are Monte-Carlo ones, ``(1 + #{permutations at least as extreme}) / (B + 1)``: none can be
smaller than ``1 / (B + 1)``. At that floor the text says ``≤ 0.005`` (for B = 200), never ``0.005`` as if it
were measured: the data would give a smaller p with more permutations, and ``≤`` is what B permutations show.

References:
    P. H. Westfall and S. S. Young, "Resampling-Based Multiple Testing", 1993.
    B. V. North, D. Curtis and P. C. Sham, "A note on the calculation of empirical P values from Monte Carlo
    procedures", American Journal of Human Genetics 71(2), 2002 (the ``(1 + r) / (B + 1)`` estimate).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ._text import count, format_q

#: Shown for a subgroup's metric that is not a finding of the whole report (its adjusted p is not below alpha, or
#: its interval does not lie on one side).
NOT_SIGNIFICANT = "n.s."


def p_floor(n_permutations: int) -> float:
    """The smallest adjusted p-value ``n_permutations`` permutations can give: ``1 / (B + 1)``."""
    return 1.0 / (int(n_permutations) + 1)


def _rounded_up(x: float) -> str:
    """``x`` rounded *up* to two significant digits and written short (1/201 -> ``0.005``): "≤" stays true."""
    digits = 1 - int(np.floor(np.log10(x)))
    return np.format_float_positional(np.ceil(x * 10**digits - 1e-9) / 10**digits, trim="-")


def at_floor(p: float, n_permutations: int) -> bool:
    """Whether ``p`` is the floor ``1 / (B + 1)`` (within rounding)."""
    return bool(np.isfinite(p) and p <= p_floor(n_permutations) * (1 + 1e-9))


def p_text(p: float, n_permutations: int | None) -> str:
    """An adjusted p-value as text: ``≤ 0.005`` at the floor of B = 200 permutations, ``0.012`` above it, ``–``
    when undefined (without ``n_permutations``: :func:`~._text.format_q`)."""
    if n_permutations is not None and at_floor(p, n_permutations):
        return f"≤ {_rounded_up(p_floor(n_permutations))}"
    return format_q(p)


def floor_note(n_permutations: int) -> str:
    """The sentence explaining ``≤`` at the floor."""
    b = int(n_permutations)
    return (f"An adjusted p written ≤ {_rounded_up(p_floor(b))} is at the floor 1/(B + 1) = 1/{b + 1:,} of B = {b:,} "
            "permutations: no permutation reached the observed value, and that many permutations cannot show a "
            "smaller p-value (n_permutations sets B).")


def tie_note(n_tied: int, n_permutations: int) -> str:
    """The sentence saying how findings tied at the floor are ordered: by the max-T statistic, not by p."""
    return (f"{n_tied:,} findings share that floor, so the p-value does not order them: they are listed by the max-T "
            "statistic (the penalised z of their metric, the evidence each shows before the permutations), then by "
            "the bound of their interval nearest the reference. More permutations (n_permutations above "
            f"{int(n_permutations):,}) would tell their p-values apart.")


def family_text(alpha: float, n_hypotheses: int, n_permutations: int) -> str:
    """``family-wise error 0.05 over the whole report (permutation max-T, B = 200 permutations, 156,288
    hypotheses: every subgroup of every kind, metric and direction)``."""
    return (f"family-wise error {alpha:g} over the whole report (permutation max-T, B = {int(n_permutations):,} "
            f"permutations, {int(n_hypotheses):,} hypotheses: every subgroup of every kind, metric and direction)")


def report_findings(rep: Any, alpha: float, ci: float) -> pd.DataFrame:
    """Every finding of the whole report's family, before nested findings are left out and with one row per kind
    and id (the rows the rankings and per-subgroup tables are checked against)."""
    found: pd.DataFrame = rep.findings(alpha, ci, keep_redundant=True, merge_identical=False)
    return found


def report_family_p(rep: Any, alpha: float, ci: float) -> pd.DataFrame:
    """Per subgroup (index kind, id) and metric (columns): the adjusted p of the whole report's family where the
    metric is a finding (the smaller of the two directions), NaN where it is not."""
    found = report_findings(rep, alpha, ci)
    if not len(found):
        return pd.DataFrame(index=pd.MultiIndex.from_arrays([[], []], names=["kind", "id"]))
    p = found.groupby(["kind", "id", "metric"], sort=False)["p_adjusted"].min()
    return p.unstack("metric")


def in_report_family(rep: Any, rk: pd.DataFrame, metric: str, kind: str, direction: str, alpha: float | None,
                     ci: float, n: int | None) -> pd.DataFrame:
    """A significance-filtered ranking (``rep.ranking(..., n=None)``) restricted to the findings of the whole
    report's family, its adjusted p-values replaced by theirs, then cut to ``n`` rows; ``attrs`` counts the
    subgroups moved to "not significant" (``n_not_in_report_family``). Raw rankings (``alpha`` None, or
    ``control="fdr"``) are returned as they are (cut to ``n``)."""
    col = metric + "_p_adjusted"
    if alpha is None or col not in rk.columns:
        return rk.head(n) if n is not None else rk
    found = report_findings(rep, alpha, ci)
    mine = found[(found["kind"] == kind) & (found["metric"] == metric) & (found["direction"] == direction)]
    p = pd.Series(mine["p_adjusted"].to_numpy(), index=mine["id"].to_numpy())
    p = p[~p.index.duplicated()]
    keep = rk.index.isin(p.index)
    out = rk[keep].copy()
    out[col] = p.reindex(out.index).to_numpy()
    out["rank"] = np.arange(1, len(out) + 1)
    out.attrs = dict(rk.attrs)
    moved = int((~keep).sum())
    out.attrs.update(n_significant=int(len(out)), n_not_in_report_family=moved,
                     n_not_significant=int(rk.attrs.get("n_not_significant", 0)) + moved, family="report")
    return out.head(n) if n is not None else out


def p_columns_text(frame: pd.DataFrame, n_permutations: int) -> pd.DataFrame:
    """A table's adjusted p columns (``_p_adjusted``, ``p_adjusted``) as :func:`p_text`, other p/q columns by
    :func:`~._text.format_q`."""
    out = frame.copy()
    for c in out.columns:
        name = str(c)
        values = out[c].to_numpy(dtype=float, na_value=np.nan) if name.endswith(("_q", "_p", "_p_adjusted")) \
            or name == "p_adjusted" else None
        if values is None:
            continue
        adjusted = name.endswith("_p_adjusted") or name == "p_adjusted"
        out[c] = [p_text(float(v), n_permutations if adjusted else None) for v in values]
    return out


def counts_text(found: pd.DataFrame) -> str:
    """How the findings were counted: ``on 1,234 subgroups; 3,161 more, nested in or around a listed finding and
    saying the same, are left out`` (the redundancy filter's two kinds: a sub-pattern whose rate does not differ
    from the rest of a listed larger finding, and a larger subgroup that only dilutes a listed slice)."""
    subgroups = len(found[["kind", "id"]].drop_duplicates()) if len(found) else 0
    text = f"on {count(subgroups, 'subgroup')}"
    redundant = int(found.attrs.get("n_redundant", 0))
    if redundant:
        text += f"; {redundant:,} more, nested in or around a listed finding and saying the same, are left out"
    return text
