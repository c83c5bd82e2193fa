"""Names a package serves on first use (PEP 562): one module ``__getattr__`` for every lazy name of the package.

A package lists the public names it defines elsewhere and imports each home module only when the name is first
read, so importing the package stays cheap: a Dask or Spark worker needs only the core of :mod:`.opinion`, and
``import aif360_subjective.dashboard`` must not import Panel. :func:`._deprecation.moved_names` serves former import
paths the same way, with a warning.

References:
    PEP 562, "Module __getattr__ and __dir__" (https://peps.python.org/pep-0562/).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(module: str, homes: Mapping[str, str], fallback: Callable[[str], Any] | None = None,
               remember: bool = True, before: Callable[[str, str], None] | None = None) -> Callable[[str], Any]:
    """A module ``__getattr__`` (PEP 562) importing each of ``homes``'s names from its home on first use.

    Args:
        module: the module's ``__name__``.
        homes: name -> the module that defines it; a home starting with ``.`` is relative to ``module``.
        fallback: called with a name not in ``homes`` (a former name served by :func:`._deprecation.renamed`);
            without it such a name raises AttributeError.
        remember: store the value as a module attribute, so later reads never reach ``__getattr__`` again.
        before: called with (name, home) before each import (a deprecation warning).

    Returns:
        The function to bind as the module's ``__getattr__``.
    """

    def __getattr__(name: str) -> Any:  # noqa: N807 - the module hook's own name
        home = homes.get(name)
        if home is None:
            if fallback is not None:
                return fallback(name)
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        if before is not None:
            before(name, home)
        value = getattr(importlib.import_module(home, package=module if home.startswith(".") else None), name)
        if remember:
            setattr(sys.modules[module], name, value)
        return value

    return __getattr__
