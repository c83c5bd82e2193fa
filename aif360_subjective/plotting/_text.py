"""Data shown as text in figures: never read as matplotlib math.

Matplotlib reads a label holding two ``$`` as mathtext: a group named ``$0-$25k`` would be drawn as "0 - 25k"
and one holding ``$\\undefined{x}$`` would make drawing fail. Every string that comes from the data (group,
model, column and value names) goes through :func:`literal` first.
"""

from __future__ import annotations

from typing import Any

from .._io import escape_controls

__all__ = ["literal"]


def literal(value: Any) -> str:
    """``value`` as text that matplotlib draws as written: each ``$`` escaped as ``\\$`` (matplotlib shows an
    escaped dollar as a dollar) and control characters as escapes (``\\x1b``; newlines kept)."""
    return escape_controls(str(value), keep="\n").replace("$", r"\$")
