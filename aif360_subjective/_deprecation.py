"""Old import paths kept for one release after a module moved (listed in CHANGELOG.md)."""

from __future__ import annotations

import importlib
import sys
import warnings


def moved(old: str, new: str) -> None:
    """Make module ``old`` an alias of module ``new`` and warn once that it is deprecated.

    The alias is the new module object itself, so private names imported from the old path keep working and
    nothing is defined twice.
    """
    warnings.warn(f"{old} moved to {new}; the old path will be removed in 0.4", DeprecationWarning, stacklevel=3)
    sys.modules[old] = importlib.import_module(new)
