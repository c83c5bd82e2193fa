"""Parameter rules declared once: the admissible values of an option, as data.

An option's rule is a :class:`Param`: its name, its default, one line of help and the constraints a value may meet
(:class:`Interval` for numbers, :class:`Options` for names, :class:`Instance` for objects, :data:`NONE`). A
value is valid when it meets any one of them. A :class:`ParamTable` holds the rules of one family of options
(``aif360_subjective._param_tables``); the same table drives the library's checks (:meth:`ParamTable.check`),
the command line's ``choices`` and help, and the dashboard's widget options, so a vocabulary is typed once.

The error contract of the package holds: a value of a type no constraint takes raises ``TypeError``, a value of
the right type outside the rules ``ValueError``; both messages name the argument, the value and what is
expected (``max_length must be an int >= 1, got 0``).

This module is on the ground floor: it imports nothing of the package (nor numpy), so the command line can read
the tables without loading the analysis.

References:
    F. Pedregosa et al., "Scikit-learn: Machine Learning in Python", JMLR 12, 2011: the idea of declaring each
    estimator's parameter constraints as data (``_parameter_constraints``, ``Interval``, ``StrOptions``) and
    validating from the declaration; this module is a separate implementation of that idea.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

__all__ = ["NONE", "Constraint", "Instance", "Interval", "Options", "Param", "ParamTable", "shown"]


def shown(value: Any) -> Any:
    """A numpy scalar as the Python value it holds, for messages (``1``, not ``np.int64(1)``)."""
    item = getattr(value, "item", None)
    if callable(item) and getattr(value, "ndim", None) == 0:
        return item()
    return value


def _number(value: float) -> str:
    """A bound as a reader writes it: ``100,000``, ``0.5``, ``1``."""
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:g}"


class Constraint(Protocol):
    """One admissible kind of value of an option."""

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` meets the constraint."""
        ...

    def same_type(self, value: Any) -> bool:
        """Whether ``value`` has the type the constraint is about (a failed check is then a ValueError)."""
        ...

    def describe(self) -> str:
        """What the constraint admits, as the end of ``must be ...`` (``an int >= 1``)."""
        ...


@dataclass(frozen=True)
class Interval:
    """Integers (``kind="int"``) or real numbers (``kind="real"``) between ``low`` and ``high``.

    Booleans are neither (``True`` is not a count). NaN and the infinities are in no interval.

    Attributes:
        kind: ``"int"`` or ``"real"`` (a real interval also takes ints).
        low, high: the bounds; ``None`` = unbounded on that side.
        closed: which bounds belong to the interval: ``"both"``, ``"left"``, ``"right"`` or ``"neither"``.
    """

    kind: Literal["int", "real"]
    low: float | None = None
    high: float | None = None
    closed: Literal["both", "left", "right", "neither"] = "both"

    def same_type(self, value: Any) -> bool:
        if isinstance(value, bool) or type(value).__name__ == "bool_":
            return False
        return isinstance(value, numbers.Integral if self.kind == "int" else numbers.Real)

    def accepts(self, value: Any) -> bool:
        if not self.same_type(value):
            return False
        v = float(value)
        if not math.isfinite(v):  # no option of the package takes NaN or an infinity
            return False
        if self.low is not None and (v < self.low or (v == self.low and self.closed in ("right", "neither"))):
            return False
        return not (self.high is not None
                    and (v > self.high or (v == self.high and self.closed in ("left", "neither"))))

    def bounds_text(self) -> str:
        """The bounds alone: ``>= 1``, ``in [0, 1]``, ``from 100 to 100,000``, ``strictly between 0 and 1``."""
        low, high = self.low, self.high
        if low is not None and high is not None:
            if self.kind == "int" and self.closed == "both":
                return f"from {_number(low)} to {_number(high)}"
            if self.closed == "neither":
                return f"strictly between {_number(low)} and {_number(high)}"
            left = "[" if self.closed in ("both", "left") else "("
            right = "]" if self.closed in ("both", "right") else ")"
            return f"in {left}{_number(low)}, {_number(high)}{right}"
        if low is not None:
            return f"{'>=' if self.closed in ('both', 'left') else '>'} {_number(low)}"
        if high is not None:
            return f"{'<=' if self.closed in ('both', 'right') else '<'} {_number(high)}"
        return ""

    def broken_bound(self, value: Any) -> str:
        """The bound a value of the right type breaks, as the end of ``must be ...``: the side it falls on for a
        count (``>= 100``, ``<= 100,000``), the whole interval for a real number (``in [0, 1]``)."""
        if self.kind == "int" and self.low is not None and self.high is not None and self.closed == "both":
            return f">= {_number(self.low)}" if float(value) < self.low else f"<= {_number(self.high)}"
        if self.kind == "real" and (self.low is None or self.high is None):
            return self.describe()  # ``a finite number > 0``: an infinity breaks it too
        return self.bounds_text()

    def describe(self) -> str:
        # a real interval open on one side still excludes the infinities: say so
        bounded = self.low is not None and self.high is not None
        noun = "an int" if self.kind == "int" else "a number" if bounded else "a finite number"
        bounds = self.bounds_text()
        return f"{noun} {bounds}" if bounds else noun


@dataclass(frozen=True)
class Options:
    """One of a fixed set of names.

    For an option that takes only names (and maybe ``None``), any other value raises ``ValueError``, a non-string
    included, as the package always did for choices; an option that also takes objects (a clustering name or a
    clusterer) raises ``TypeError`` for a value that is neither.

    Attributes:
        values: the admissible names, in the order help and widgets list them.
    """

    values: tuple[str, ...]

    def same_type(self, value: Any) -> bool:
        return isinstance(value, str)

    def accepts(self, value: Any) -> bool:
        return isinstance(value, str) and value in self.values

    def describe(self) -> str:
        return f"one of {list(self.values)}"


@dataclass(frozen=True)
class Instance:
    """An object with a property a predicate checks (a clusterer, a callable, a pandas Series).

    Attributes:
        test: the predicate.
        description: what it admits (``a scikit-learn clusterer instance``).
    """

    test: Callable[[Any], bool]
    description: str

    def same_type(self, value: Any) -> bool:
        return self.test(value)

    def accepts(self, value: Any) -> bool:
        return self.test(value)

    def describe(self) -> str:
        return self.description


@dataclass(frozen=True)
class _NoneConstraint:
    def same_type(self, value: Any) -> bool:
        return value is None

    def accepts(self, value: Any) -> bool:
        return value is None

    def describe(self) -> str:
        return "None"


#: The constraint admitting ``None`` (an option's "not given", "automatic" or "off").
NONE: Constraint = _NoneConstraint()


@dataclass(frozen=True)
class Param:
    """The rule of one option.

    Attributes:
        name: the option's Python name (the command line writes it ``--name-with-dashes``).
        constraints: the admissible kinds of values; a value is valid when it meets any of them.
        default: the default of the library's functions.
        help: one line saying what the option does (docstrings, ``--help``, widget tooltips).
        why: why the bounds are what they are, appended to a ValueError (``the smallest p-value is ...``).
    """

    name: str
    constraints: tuple[Constraint, ...]
    default: Any = None
    help: str = ""
    why: str = ""

    def expected(self) -> str:
        """What the option admits, in words (``None or an int >= 2``)."""
        return " or ".join(c.describe() for c in self.constraints)

    def check(self, value: Any, name: str | None = None) -> Any:
        """Return ``value`` if it meets one of the constraints.

        Args:
            value: the value given.
            name: the argument's name in the message (default: :attr:`name`).

        Raises:
            TypeError: no constraint is about values of this type.
            ValueError: a constraint is about this type, but the value breaks it.
        """
        if any(c.accepts(value) for c in self.constraints):
            return value
        name = name or self.name
        message = f"{name} must be {self.expected()}, got {shown(value)!r}"
        typed = [c for c in self.constraints if c.same_type(value)]
        names_only = all(isinstance(c, Options) or c == NONE for c in self.constraints)
        if not names_only and not typed:
            raise TypeError(message)
        intervals = [c for c in self.constraints if isinstance(c, Interval)]
        if len(intervals) == 1 and typed == intervals:
            # the type is right: say which bound the value breaks (``n_boot must be >= 100, got 50``)
            got = _number(value) if intervals[0].kind == "int" else repr(shown(value))  # 1,000,000,000
            message = f"{name} must be {intervals[0].broken_bound(value)}, got {got}"
        raise ValueError(f"{message} ({self.why})" if self.why else message)

    def invalid_values(self) -> list[Any]:
        """Values the rule refuses, generated from its constraints (for the faces' tests, as scikit-learn's common
        tests generate invalid parameter values): an unknown name, a value on the far side of each bound of an
        interval (and an open bound itself), a value of a type no constraint is about, and ``None`` when ``None``
        is not admissible. Every value returned fails :meth:`check`.

        Returns:
            list: the values, in the order of the constraints (a wrong type last).
        """
        out: list[Any] = []
        for c in self.constraints:
            if isinstance(c, Options):
                out.append(f"not-a-{self.name}")
            elif isinstance(c, Interval):
                step = 1 if c.kind == "int" else 0.5
                for bound, outward, open_ends in ((c.low, -step, ("right", "neither")),
                                                  (c.high, step, ("left", "neither"))):
                    if bound is not None:
                        out.append(int(bound) + outward if c.kind == "int" else bound + outward)
                        if c.closed in open_ends:
                            out.append(bound)
                if c.kind == "int":
                    out.append(1.5)  # a count given as a fraction
        if not self.choices:
            out.append("many")  # a name where only numbers or objects are admissible
        out.append(b"bytes")  # no constraint of the package is about bytes
        if not self.accepts_none:
            out.append(None)
        unique = {(type(v), v): v for v in out}  # 1 and 1.0 are different values here
        return [v for v in unique.values() if not any(c.accepts(v) for c in self.constraints)]

    @property
    def choices(self) -> tuple[str, ...]:
        """The names of the option's :class:`Options` constraint (empty when it has none)."""
        return next((c.values for c in self.constraints if isinstance(c, Options)), ())

    @property
    def interval(self) -> Interval | None:
        """The option's :class:`Interval` constraint, if it has one."""
        return next((c for c in self.constraints if isinstance(c, Interval)), None)

    def bounds(self) -> tuple[float | None, float | None]:
        """The low and high bounds of the option's interval (None: unbounded on that side, or no interval)."""
        interval = self.interval
        return (None, None) if interval is None else (interval.low, interval.high)

    @property
    def accepts_none(self) -> bool:
        """Whether ``None`` is admissible."""
        return NONE in self.constraints


class ParamTable(Mapping[str, Param]):
    """The rules of one family of options, by name (read-only).

    Args:
        family: the family's name (messages and documentation).
        params: the rules, in the order the family documents them.
    """

    def __init__(self, family: str, params: tuple[Param, ...]) -> None:
        self.family = family
        self._params = {p.name: p for p in params}
        if len(self._params) != len(params):
            raise ValueError(f"{family}: an option is declared twice")

    def __getitem__(self, name: str) -> Param:
        try:
            return self._params[name]
        except KeyError:
            raise KeyError(f"{self.family} has no option {name!r}; options: {list(self._params)}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._params)

    def __len__(self) -> int:
        return len(self._params)

    def check(self, name: str, value: Any) -> Any:
        """Check ``value`` against the rule of option ``name`` (:meth:`Param.check`); return it."""
        return self[name].check(value)

    def choices(self, name: str) -> tuple[str, ...]:
        """The admissible names of option ``name`` (for ``choices=`` and select widgets)."""
        return self[name].choices

    def default(self, name: str) -> Any:
        """The default of option ``name``."""
        return self[name].default

    def help(self, name: str) -> str:
        """The help line of option ``name``."""
        return self[name].help
