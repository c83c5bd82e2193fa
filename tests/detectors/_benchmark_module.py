"""Load a script of ``benchmarks/`` as a module for the tests of its helpers (the scripts are not a package)."""

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def benchmark_module(name: str) -> Iterator[ModuleType]:
    """Yield ``benchmarks/<name>.py`` loaded as a module, registered while it is in use (its dataclasses look
    their module up in ``sys.modules``); for a module-scoped fixture's ``yield from``."""
    spec = importlib.util.spec_from_file_location(f"{name}_bench", BENCHMARKS / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    try:
        spec.loader.exec_module(mod)
        yield mod
    finally:
        sys.modules.pop(spec.name, None)
