"""Old import paths and names kept for one release after a module moved or a name changed (listed in
CHANGELOG.md): each warns with a DeprecationWarning naming the new home."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from collections.abc import Callable, Mapping
from typing import Any

from ._lazy import lazy_names


def moved(old: str, new: str) -> None:
    """Make module ``old`` an alias of module ``new`` and warn once that it is deprecated.

    The alias is the new module object itself, so private names imported from the old path keep working and
    nothing is defined twice.
    """
    warnings.warn(f"{old} moved to {new}; the old path will be removed in 0.4", DeprecationWarning, stacklevel=3)
    sys.modules[old] = importlib.import_module(new)


def renamed(module: str, aliases: Mapping[str, tuple[str, Callable[[], Any]]]) -> Callable[[str], Any]:
    """A module ``__getattr__`` (PEP 562) serving former names of renamed objects, with a DeprecationWarning.

    The alias is not a module attribute, so it warns at every use (``from module import Old`` included) and stays
    out of ``__all__`` and of the documentation: the new name has the one public home.

    Args:
        module: the module's ``__name__`` (for the message and the AttributeError).
        aliases: former name -> (new name, a function returning the object under its new name).

    Returns:
        The function to bind as the module's ``__getattr__``.
    """

    def __getattr__(name: str) -> Any:  # noqa: N807 - the module hook's own name
        if name not in aliases:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        new, get = aliases[name]
        warnings.warn(f"{module}.{name} is deprecated: use {new}; the old name will be removed in 0.4",
                      DeprecationWarning, stacklevel=2)
        return get()

    return __getattr__


def renamed_member(old: str, new: str, stacklevel: int = 3) -> None:
    """Warn that method or property ``old`` is a former name of ``new`` (the caller then returns ``new``'s value).

    Args:
        old: the former name, e.g. ``"OpinionExclusionMetric.grouping_report()"``.
        new: the current name, e.g. ``"grouping_summary()"``.
        stacklevel: the frame the warning points at (3: the caller of the method that calls this).
    """
    warnings.warn(f"{old} is deprecated: use {new}; the old name will be removed in 0.4", DeprecationWarning,
                  stacklevel=stacklevel)


def moved_names(module: str, names: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` (PEP 562) for names whose public home is another module: importing one from here
    still works, with a DeprecationWarning naming the home (one ``__all__`` home per name).

    Args:
        module: the module's ``__name__``.
        names: name -> the module that defines it.

    Returns:
        The function to bind as the module's ``__getattr__``.
    """

    def warn(name: str, home: str) -> None:
        warnings.warn(f"import {name} from {home}, not from {module}; the old path will be removed in 0.4",
                      DeprecationWarning, stacklevel=3)

    # not remembered: every import from the old path warns
    return lazy_names(module, names, remember=False, before=warn)


class _MovedModules(importlib.abc.MetaPathFinder):
    """Finds a module's former path and loads the module from its new home, warning once per path."""

    def __init__(self, moves: Mapping[str, str]):
        self.moves = dict(moves)

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.moves:
            return None
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(fullname, self.moves[fullname]))


class _AliasLoader(importlib.abc.Loader):
    """Loads a former module path as the module object of its new home (nothing is executed twice)."""

    def __init__(self, old: str, new: str):
        self.old, self.new = old, new

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> Any:
        warnings.warn(f"{self.old} moved to {self.new}; the old path will be removed in 0.4", DeprecationWarning,
                      stacklevel=2)
        return importlib.import_module(self.new)

    def exec_module(self, module: Any) -> None:
        # The module is the new home's, already executed; the import system then binds it under the old name.
        return None


def moved_modules(moves: Mapping[str, str]) -> None:
    """Keep the former paths of modules that moved inside a package importable, each as an alias of its new home.

    Unlike :func:`moved` (a shim file at the old path), nothing stays at the old place: a finder on
    ``sys.meta_path`` answers for exactly the listed former names. Importing one warns with a DeprecationWarning
    naming the new home, and ``sys.modules[old] is sys.modules[new]``, so private names keep working and nothing
    is defined twice.

    Args:
        moves: former dotted module path -> current dotted module path.
    """
    if not any(isinstance(f, _MovedModules) and f.moves == dict(moves) for f in sys.meta_path):
        sys.meta_path.append(_MovedModules(moves))


def renamed_keyword(where: str, given: Mapping[str, Any], old: str, new: str, value: Any, default: Any) -> Any:
    """The value of keyword ``new`` of ``where``, also given by its former name ``old`` (collected in ``**given``),
    which warns with a DeprecationWarning.

    Args:
        where: the function's name as the user calls it (``"excluded_groups"``).
        given: the function's ``**kwargs``: only ``old`` is admissible there.
        old, new: the former and the current keyword.
        value, default: what ``new`` received, and its default (a non-default ``new`` and ``old`` together are
            refused).

    Raises:
        TypeError: a keyword in ``given`` other than ``old`` (as Python says of an unknown keyword), or both names.
    """
    unknown = [k for k in given if k != old]
    if unknown:
        raise TypeError(f"{where}() got an unexpected keyword argument {unknown[0]!r}")
    if old not in given:
        return value
    if value != default:
        raise TypeError(f"{where}() got both {old}= and {new}=: give {new}= only ({old} is its former name)")
    warnings.warn(f"{where}({old}=...) is deprecated: use {new}=; the old name will be removed in 0.4",
                  DeprecationWarning, stacklevel=3)
    return given[old]
