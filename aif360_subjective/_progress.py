"""Progress of the long computations: the levels of the pattern mining and the batches of the max-T's permutations.

The engine reports through the few functions here (:func:`stage`, :func:`tracked`), which read the reporter of the
running analysis from a context variable. Its default, :data:`NO_PROGRESS`, does nothing, so an analysis run
without progress calls no printing code and draws no random number more or less: the findings and p-values are
those of a run with progress. Updates are made once per mining level and once per batch of permutations
(:data:`~aif360_subjective.detectors.error_control.maxt.BATCH`), never per row.

:func:`reporter_for` chooses the reporter: bars where the installation draws them, else :class:`PlainReporter`,
which writes a line to stderr at most every :data:`PLAIN_INTERVAL` seconds and one when a stage ends.

Ground floor: imports only the parameter tables (the row ``progress``), not numpy.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import wraps
from typing import Any, ParamSpec, TypeVar

from ._param_tables import PROGRESS

__all__ = ["NO_PROGRESS", "PLAIN_INTERVAL", "PlainReporter", "Reporter", "Stage", "TqdmReporter", "current",
           "reporter_for", "reporting", "reports_progress", "stage", "tracked"]

_T = TypeVar("_T")
_P = ParamSpec("_P")

#: Seconds between two lines of :class:`PlainReporter` within a stage (its start and end are always written).
PLAIN_INTERVAL = 2.0


class Stage:
    """One stage of a computation (a bar, or lines): the no-op base, what :data:`NO_PROGRESS` opens."""

    def advance(self, n: int = 1, note: str | None = None) -> None:
        """``n`` more steps done; ``note`` (e.g. ``"1,204 patterns"``) describes the state reached."""

    def close(self) -> None:
        """The stage is over (its last state is shown)."""


class Reporter:
    """Opens the stages of an analysis. This base reports nothing (:data:`NO_PROGRESS`).

    A reporter holds no open stage and no stream (it is kept by a report, whose max-T may run later, and a report
    is copied and pickled): each :meth:`open` makes a new stage.
    """

    def open(self, name: str, total: int | None, unit: str) -> Stage:
        """A new stage ``name`` of ``total`` steps (None: unknown) counted in ``unit``."""
        return Stage()

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


#: The reporter that reports nothing: the default of every analysis.
NO_PROGRESS = Reporter()


class _TqdmStage(Stage):
    def __init__(self, bar: Any) -> None:
        self.bar = bar

    def advance(self, n: int = 1, note: str | None = None) -> None:
        if note is not None:
            self.bar.set_postfix_str(note, refresh=False)  # shown by the update's refresh
        self.bar.update(n)

    def close(self) -> None:
        self.bar.close()


#: tqdm's bar with the steps' unit after their count (``120/200 permutations``) and no rate.
_BAR = "{l_bar}{bar}| {n_fmt}/{total_fmt} {unit} [{elapsed}<{remaining}{postfix}]"


class TqdmReporter(Reporter):
    """tqdm's bars (:mod:`tqdm.auto`: a widget in a notebook with ipywidgets, else text on stderr); each stage's bar
    is left in place when it ends (unless it is nested under another bar), so that the log shows what ran.

    References:
        C. da Costa-Luis et al., tqdm: a fast, extensible progress bar for Python and CLI,
        https://github.com/tqdm/tqdm.
    """

    def open(self, name: str, total: int | None, unit: str) -> Stage:
        from tqdm.auto import tqdm

        # left in place unless under another bar (the command line's steps): the log says what ran
        return _TqdmStage(tqdm(total=total, desc=name, unit=unit, file=sys.stderr, leave=None, bar_format=_BAR))


class _LineStage(Stage):
    def __init__(self, name: str, total: int | None, unit: str, interval: float) -> None:
        self.name, self.total, self.unit, self.interval = name, total, unit, interval
        self.done = 0
        self.note: str | None = None
        self.start = self.last = time.monotonic()
        self.shown: tuple[int, str | None] | None = None
        self._write()

    def _write(self) -> None:
        of = "" if self.total is None else f"/{self.total:,}"
        note = "" if self.note is None else f", {self.note}"
        # looked up at each line (not kept): a stream replaced meanwhile (a test's capture, a notebook) gets it
        print(f"{self.name}: {self.done:,}{of} {self.unit}{note} [{time.monotonic() - self.start:.1f} s]",
              file=sys.stderr, flush=True)
        self.shown = (self.done, self.note)

    def advance(self, n: int = 1, note: str | None = None) -> None:
        self.done += n
        self.note = self.note if note is None else note
        now = time.monotonic()
        if now - self.last >= self.interval:
            self.last = now
            self._write()

    def close(self) -> None:
        if self.shown != (self.done, self.note):
            self._write()


class PlainReporter(Reporter):
    """Lines on stderr (``max-T permutations: 100/200 permutations [3.2 s]``), where no bars are drawn: one when
    a stage starts, at most one every ``interval`` seconds while it runs, and its last state when it ends.

    Args:
        interval: the least seconds between two lines within a stage (0: a line per update; None:
            :data:`PLAIN_INTERVAL`).
    """

    def __init__(self, interval: float | None = None) -> None:
        self.interval = float(PLAIN_INTERVAL if interval is None else interval)

    def open(self, name: str, total: int | None, unit: str) -> Stage:
        return _LineStage(name, total, unit, self.interval)

    def __repr__(self) -> str:
        return f"PlainReporter(interval={self.interval!r})"


def reporter_for(progress: Any) -> Reporter:
    """The reporter of ``progress``: :data:`NO_PROGRESS` when False; when True tqdm's bars
    (:class:`TqdmReporter`), or :class:`PlainReporter`'s lines when tqdm does not import.

    Args:
        progress: whether to show progress: True or False (the parameter tables' row ``progress``).

    Raises:
        TypeError: ``progress`` is not True or False.
    """
    if not PROGRESS.check(progress):
        return NO_PROGRESS
    try:
        import tqdm.auto  # noqa: F401
    except ImportError:
        return PlainReporter()
    return TqdmReporter()


_CURRENT: ContextVar[Reporter] = ContextVar("aif360_subjective_progress", default=NO_PROGRESS)


def current() -> Reporter:
    """The reporter of the running analysis (:data:`NO_PROGRESS` outside :func:`reporting`)."""
    return _CURRENT.get()


@contextmanager
def reporting(reporter: Reporter) -> Iterator[Reporter]:
    """Run the block with ``reporter`` as :func:`current`, in this thread (and in threads started with a copy of
    this context: ``pool.submit(contextvars.copy_context().run, f, ...)``)."""
    token = _CURRENT.set(reporter)
    try:
        yield reporter
    finally:
        _CURRENT.reset(token)


def reports_progress(func: Callable[_P, _T]) -> Callable[_P, _T]:
    """Decorator of a face with the keyword ``progress``: the call runs under :func:`reporter_for`'s reporter of it
    (checked first, before any other argument), so that the face's body and the engine below it need not pass it
    on. The face keeps ``progress`` in its signature (its documentation and the parameter tables' faces test).
    """

    @wraps(func)
    def face(*args: _P.args, **kwargs: _P.kwargs) -> _T:
        with reporting(reporter_for(kwargs.get("progress", PROGRESS.default))):
            return func(*args, **kwargs)

    return face


@contextmanager
def stage(name: str, total: int | None = None, unit: str = "steps") -> Iterator[Stage]:
    """A stage of the running analysis, closed when the block ends (a no-op :class:`Stage` without progress)."""
    opened = _CURRENT.get().open(name, total, unit)
    try:
        yield opened
    finally:
        opened.close()


def tracked(items: Iterable[_T], name: str, total: int, unit: str, size: Callable[[_T], int] = lambda _: 1, *,
            note: Callable[[], str] | None = None, initial: int = 0) -> Iterator[_T]:
    """``items`` as they come, the stage ``name`` advanced by ``size(item)`` once the caller is done with the item
    (it asks for the next one): a batch of permutations counts its permutations, a mining level one level.

    Args:
        items: the batches (or levels).
        name: the stage's name.
        total: the steps of the whole stage.
        unit: what a step is.
        size: the steps one item counts for (default 1).
        note: what the state reached is, asked after each item (a closure over the caller's running count).
        initial: steps done before the first item (the mining's first level, the frequent items).
    """
    with stage(name, total, unit) as st:
        if initial:
            st.advance(initial, None if note is None else note())
        for item in items:
            yield item
            st.advance(size(item), None if note is None else note())
