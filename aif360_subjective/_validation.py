"""Boundary checks shared by every subpackage: choices, numbers, fractions, random state, dataset type.

Each public constructor or function validates its arguments with these helpers, once, so an option is
checked the same way (same exception type, same message shape) wherever it is accepted. Errors name the
argument, show the offending value as a plain Python value and say what was expected.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

__all__ = [
    "check_alpha",
    "check_choice",
    "check_ci",
    "check_columns",
    "check_fraction",
    "check_int",
    "check_positive",
    "check_random_state",
    "is_bool",
    "is_number",
    "plain",
]


def plain(value: Any) -> Any:
    """A numpy scalar as the Python value it holds (messages show ``1``, not ``np.int64(1)``)."""
    return value.item() if isinstance(value, np.generic) else value


def is_bool(x: Any) -> bool:
    """True for Python and numpy booleans."""
    return isinstance(x, bool | np.bool_)


def is_number(x: Any) -> bool:
    """True for real numbers (Python or numpy ints and floats); booleans are *not* numbers here."""
    return isinstance(x, numbers.Real) and not is_bool(x)


def check_choice(value: Any, name: str, choices: Iterable[str]) -> str:
    """Return ``value`` if it is one of ``choices``.

    Args:
        value: the value given.
        name: the argument's name (used in the message).
        choices: the admissible strings.

    Raises:
        ValueError: ``value`` is not one of ``choices`` (a non-string included).
    """
    options = list(choices)
    if not isinstance(value, str) or value not in options:
        raise ValueError(f"{name} must be one of {options}, got {plain(value)!r}")
    return value


def check_columns(names: str | Sequence[Any], frame: Any, arg: str) -> list[str]:
    """Every name in ``names`` must be a column of the DataFrame ``frame``.

    Returns:
        list[str]: the names as strings.

    Raises:
        ValueError: naming the argument ``arg``, the unknown columns and the available ones.
    """
    listed = [names] if isinstance(names, str) else list(names)
    out = [str(c) for c in listed]
    missing = [c for c in out if c not in frame.columns]
    if missing:
        raise ValueError(f"{arg}: unknown column(s) {missing}; the columns of X are {list(frame.columns)}")
    return out


def check_int(value: Any, name: str, *, low: int | None = None, high: int | None = None) -> int:
    """An integer (not a bool) in ``[low, high]``.

    Raises:
        TypeError: ``value`` is not an int (floats such as 1.5 or 2.0 included).
        ValueError: ``value`` is outside ``[low, high]``.
    """
    if is_bool(value) or not isinstance(value, numbers.Integral):
        expected = "an int" + (f" >= {low}" if low is not None else "")
        raise TypeError(f"{name} must be {expected}, got {plain(value)!r}")
    v = int(value)
    if low is not None and v < low:
        raise ValueError(f"{name} must be >= {low}, got {v}")
    if high is not None and v > high:
        raise ValueError(f"{name} must be <= {high}, got {v}")
    return v


def check_fraction(value: Any, name: str) -> float:
    """A real number in [0, 1].

    Raises:
        TypeError: ``value`` is not a real number (booleans included).
        ValueError: ``value`` is outside [0, 1] or NaN.
    """
    if not is_number(value):
        raise TypeError(f"{name} must be a number in [0, 1], got {plain(value)!r}")
    v = float(value)
    if not 0.0 <= v <= 1.0:
        raise ValueError(f"{name} must be in [0, 1], got {plain(value)!r}")
    return v


def check_positive(value: Any, name: str) -> float:
    """A finite real number > 0.

    Raises:
        TypeError: ``value`` is not a real number (booleans included).
        ValueError: ``value`` is not finite or not > 0.
    """
    if not is_number(value):
        raise TypeError(f"{name} must be a finite number > 0, got {plain(value)!r}")
    v = float(value)
    if not math.isfinite(v) or v <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {plain(value)!r}")
    return v


def check_ci(value: Any, name: str = "ci") -> float:
    """A confidence level strictly between 0 and 1 (e.g. 0.95).

    Raises:
        ValueError: ``value`` is not a number strictly between 0 and 1 (booleans and strings included; one
            exception type, as the subgroup and the opinion-exclusion metrics always raised it).
    """
    if not is_number(value) or not 0.0 < float(value) < 1.0:
        raise ValueError(
            f"{name} must be a confidence level strictly between 0 and 1 (e.g. 0.95), got {plain(value)!r}"
        )
    return float(value)


def check_alpha(value: Any, name: str = "alpha") -> float:
    """A false-discovery rate (significance level) strictly between 0 and 1 (e.g. 0.05).

    Raises:
        ValueError: ``value`` is not a number strictly between 0 and 1 (booleans and strings included).
    """
    if not is_number(value) or not 0.0 < float(value) < 1.0:
        raise ValueError(
            f"{name} must be a false-discovery rate strictly between 0 and 1 or None, got {plain(value)!r}"
        )
    return float(value)


def check_random_state(value: Any, name: str = "random_state") -> np.random.Generator:
    """A numpy Generator from ``None``, an int seed or a Generator (never numpy's global state).

    Raises:
        TypeError: any other value (booleans included), naming the argument ``name``.
    """
    if isinstance(value, np.random.Generator):
        return value
    if value is None or (isinstance(value, numbers.Integral) and not is_bool(value)):
        return np.random.default_rng(None if value is None else int(value))
    raise TypeError(f"{name} must be None, an int or a numpy Generator, got {plain(value)!r}")
