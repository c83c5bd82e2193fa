"""Small text helpers shared by the report's sections and the command line (counts, shares, q-values,
figures with their intervals)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd


def share_text(share: float) -> str:
    """A share as a percentage with one decimal, more where one decimal would round a part up to 100 % (99.97 %
    of the rows is not all of them)."""
    text = f"{share:.1%}"
    digits = 1
    while share < 1 and text.startswith("100.") and digits < 6:
        digits += 1
        text = f"{share:.{digits}%}"
    return text


def format_q(q: float) -> str:
    """A q-value (or p-value) as read in tables: ``< 0.001`` rather than ``0.000``; ``–`` when undefined."""
    return "–" if not np.isfinite(q) else ("< 0.001" if q < 0.001 else f"{q:.3f}")


def q_columns_as_text(frame: pd.DataFrame) -> pd.DataFrame:
    """The ``_q`` and ``_p`` columns of a ranking or metrics table formatted by :func:`format_q`."""
    out = frame.copy()
    for c in out.columns:
        if str(c).endswith(("_q", "_p", "_p_adjusted")) or str(c) == "p_adjusted":
            out[c] = [format_q(float(v)) for v in out[c].to_numpy(dtype=float, na_value=np.nan)]
    return out


def bracket(interval: Any, digits: int = 3) -> str:
    """``[0.071, 0.104]``: an interval's bounds (``[–]`` when undefined)."""
    low, high = float(interval[0]), float(interval[1])
    return f"[{low:.{digits}f}, {high:.{digits}f}]" if np.isfinite(low) and np.isfinite(high) else "[–]"


def interval_text(estimate: float, interval: Any, digits: int = 3) -> str:
    """``0.087 [0.071, 0.104]``: a figure with its interval (``[–]`` when the interval is undefined).

    A figure that lies outside its interval is never printed as if it were inside: the unfairness interval is the
    interval of the true spread across groups, around the noise-corrected estimate, while the paper's raw std is
    biased upwards and can lie above it. Then each figure is named: ``0.187 raw; noise-corrected 0.052 [0.000,
    0.147]`` (``interval.debiased`` when the interval carries it, else ``0.187 raw; interval of the noise-corrected
    value [0.000, 0.147]``).
    """
    low, high = float(interval[0]), float(interval[1])
    bounds = f"[{low:.{digits}f}, {high:.{digits}f}]" if np.isfinite(low) and np.isfinite(high) else "[–]"
    shown = float(f"{estimate:.{digits}f}") if np.isfinite(estimate) else estimate
    if np.isfinite(low) and np.isfinite(high) and np.isfinite(shown) and not (
            float(f"{low:.{digits}f}") <= shown <= float(f"{high:.{digits}f}")):
        debiased = getattr(interval, "debiased", None)
        if debiased is not None and np.isfinite(debiased):
            return f"{estimate:.{digits}f} raw; noise-corrected {debiased:.{digits}f} {bounds}"
        return f"{estimate:.{digits}f} raw; interval of the noise-corrected value {bounds}"
    return f"{estimate:.{digits}f} {bounds}"


def count(n: int, noun: str) -> str:
    """``1 annotator``, ``5 annotators``."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def were(n: int) -> str:
    return "was" if n == 1 else "were"


def as_float(x: Any) -> float:
    """A cell as a float, NaN for pandas' NA/None."""
    return np.nan if pd.isna(x) else float(x)
