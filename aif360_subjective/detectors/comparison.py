"""The comparison of the discovery methods (the candidate families): per family, its candidates, its
significant subgroups and its best finding, and one sentence saying so."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .significance import Significance

__all__ = ["discovery_summary", "discovery_sentence"]


def discovery_summary(sig: Significance, alpha: float, ci: float) -> pd.DataFrame:
    """Per family: candidates, significant subgroups, the best finding (see ``SubgroupReport.discovery_summary``)."""
    every = sig.findings(alpha, ci, keep_redundant=True, merge_identical=False)
    listed = sig.findings(alpha, ci, keep_redundant=False, merge_identical=True)
    rows = []
    for fam in sig.candidates.families:
        mine = every[every["kind"] == fam.kind]
        top = listed[listed["kind"] == fam.kind]
        best: Any = top.iloc[0] if len(top) else (mine.iloc[0] if len(mine) else None)
        rows.append({
            "kind": fam.kind,
            "method": fam.method,
            "candidates": int(fam.defined().sum()),
            "significant": int(mine["id"].nunique()),
            "best": "" if best is None else best["description"],
            "metric": "" if best is None else best["metric"],
            "direction": "" if best is None else best["direction"],
            "value": np.nan if best is None else float(best["value"]),
            "ci_low": np.nan if best is None else float(best["ci_low"]),
            "ci_high": np.nan if best is None else float(best["ci_high"]),
            "p_adjusted": np.nan if best is None else float(best["p_adjusted"]),
        })
    out = pd.DataFrame(rows).set_index("kind") if rows else pd.DataFrame()
    out.attrs = {"alpha": float(alpha), "n_hypotheses": every.attrs["n_hypotheses"]}
    names = {f.kind: f.method_name for f in sig.candidates.families}
    out.attrs["sentence"] = discovery_sentence(out, names)
    return out


def discovery_sentence(summary: pd.DataFrame, names: dict[str, str]) -> str:
    """"The mined patterns found 2 significant subgroups; the clusters and the entropy patterns found none
    (...)." from the numbers of :func:`discovery_summary` (``names``: kind -> the method's name)."""
    if len(summary) == 0:
        return "No discovery method ran."
    found = [f"{names[str(k)]} found {_count(int(r['significant']), 'significant subgroup')}"
             for k, r in summary.iterrows() if r["significant"] > 0]
    none = [names[str(k)] for k, r in summary.iterrows() if r["significant"] == 0]
    parts = list(found)
    if none:
        parts.append(f"{_join(none)} found none")
    text = "; ".join(parts)
    alpha = summary.attrs.get("alpha", 0.05)
    n_h = summary.attrs.get("n_hypotheses", 0)
    return (f"{text[0].upper()}{text[1:]} (family-wise error {alpha:.0%} over {n_h:,} hypotheses: every "
            "candidate, metric and direction).")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
