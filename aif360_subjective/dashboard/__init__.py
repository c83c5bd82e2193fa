"""The interactive dashboard (extra ``[dashboard]``): subgroup discovery and the opinion-exclusion audit with the
human-in-the-loop step, in a browser tab (``aif360-subjective dashboard DATA``) or a Jupyter cell
(``Dashboard(...)``), from one Panel code base.

Importing this package does not import Panel: :class:`Dashboard` loads it on first use, and the state logic
(:mod:`aif360_subjective.dashboard.state`) needs none.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names

if TYPE_CHECKING:
    from .app import Dashboard

__all__ = ["Dashboard"]

__getattr__ = lazy_names(__name__, {"Dashboard": ".app"})
