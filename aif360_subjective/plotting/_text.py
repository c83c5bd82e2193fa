"""Data shown as text in figures: never read as matplotlib math.

Matplotlib reads a label holding two ``$`` as mathtext: a group named ``$0-$25k`` would be drawn as "0 - 25k"
and one holding ``$\\undefined{x}$`` would make drawing fail. Every string that comes from the data (group,
model, column and value names) goes through :func:`literal` first.
"""

from __future__ import annotations

from typing import Any

from .._io import escape_controls

__all__ = ["MAX_TEXT", "literal"]

#: Longest text drawn from the data (characters): a longer name is cut with "…". A 100,000-character group name
#: made the tick label, and with ``bbox_inches="tight"`` the canvas, a hundred thousand characters wide: Agg's
#: ``std::bad_alloc``, which the command line reported as running out of memory.
MAX_TEXT = 100


def literal(value: Any, limit: int = MAX_TEXT) -> str:
    """``value`` as text that matplotlib draws as written: at most ``limit`` characters (longer text is cut and
    ends with "…"), each ``$`` escaped as ``\\$`` (matplotlib shows an escaped dollar as a dollar) and control
    characters as escapes (``\\x1b``; newlines kept)."""
    text = str(value)
    if len(text) > limit:
        text = text[:limit - 1] + "…"
    return escape_controls(text, keep="\n").replace("$", r"\$")
