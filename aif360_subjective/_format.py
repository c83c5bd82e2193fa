"""The one readable form of a group's name, used by the tables, the figures, the command line and the reports.

It sits at the package level (it imports nothing of the package) so that the generic report model can format a
bin or an intersection without knowing any metric.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

__all__ = ["group_label"]


def group_label(group: Any, spec: str = ".2f", sep: str = "\u2013") -> str:
    """Readable name of a group: an ADR/ambiguity bin ``0.00–0.07`` (bounds formatted with ``spec``; pandas'
    widened lowest edge ``-0.000333`` shows as ``0.00``, never as a negative edge), an intersection of attributes
    joined by `` & `` (``Man & Asian``), or the value itself.

    Args:
        group: a group label (a pandas Interval, a tuple of attribute values, or any value).
        spec: format of a bin's bounds.
        sep: separator of a bin's bounds (an en dash).

    Returns:
        str: the label.
    """
    if isinstance(group, pd.Interval):
        return f"{_bound(group.left, spec)}{sep}{_bound(group.right, spec)}"
    if isinstance(group, tuple):
        return " & ".join(map(group_label, group))
    if isinstance(group, float) and group.is_integer():
        return str(int(group))
    return str(group)


def _bound(value: float, spec: str) -> str:
    text = f"{value:{spec}}"
    return text[1:] if text.startswith("-") and float(text) == 0.0 else text
