"""The ``aif360-subjective`` command: demo, opinion-exclusion audit, subgroup discovery, CrowdTruth scores, dashboard.

Run ``aif360-subjective COMMAND --help`` for the options of each command. Errors in the input (missing
files or columns, bad values) print one line to stderr and exit with status 2.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TextIO

from ._common import (
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    PROG,
    CLIError,
    HelpFormatter,
    Parser,
    cli_words,
    console_text,
    one_line,
    plain_text,
)

__all__ = ["CLIError", "build_parser", "main"]


def build_parser() -> Parser:
    """The argument parser of the command line (its commands' parsers in ``parser.commands``)."""
    parser = Parser(prog=PROG, description=plain_text(__doc__.split("\n\n")[0]),
                     formatter_class=HelpFormatter,
                     epilog="Examples:\n  aif360-subjective demo --out demo\n"
                            "  aif360-subjective audit ann.csv --item-col item --annotator-col annotator \\\n"
                            "      --label-col label --prediction-col pred --out audit.html\n"
                            "  aif360-subjective subgroups compas.csv --label-col class --prediction-col out")
    from .. import __version__

    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser)

    from . import audit, crowdtruth, dashboard, demo, subgroups

    # each command's module declares it once (COMMAND), with its options (add_arguments) and its boundary (run)
    for command in (demo, audit, subgroups, crowdtruth, dashboard):
        parser.commands[command.COMMAND.name] = command.COMMAND.add_to(sub, command.add_arguments, command.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``aif360-subjective``.

    Args:
        argv: the arguments (default: ``sys.argv[1:]``).

    Returns:
        int: the exit status (0 success, 2 bad input or a failed write, 130 interrupted by Ctrl-C, 143 stopped by
        SIGTERM).
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    # each command's boundary: run(args) turns the namespace into the command's typed spec
    func: Callable[[argparse.Namespace], int] = args.func
    flags = parser.commands[args.command].long_options()
    written_before = len(_written())
    try:
        with _library_notes(), _console_text(), _sigterm_interrupts():
            code = func(args)
            sys.stdout.flush()  # a closed pipe shows here, inside the handler, not at interpreter exit
        return code
    except BrokenPipeError:
        return _quiet_after_broken_pipe()
    except KeyboardInterrupt as exc:
        # the writers leave no partial file and no mix of new and earlier files (aif360_subjective._io); what
        # was completely written before the interruption is named, so that the sentence is true
        done = _written()[written_before:]
        said = ("no output was written" if not done
                else "output already written: " + ", ".join(str(p) for p in dict.fromkeys(done)))
        print(console_text(f"{PROG} {args.command}: {'terminated' if isinstance(exc, Terminated) else 'interrupted'}"
                           f"; {said}"), file=sys.stderr)
        return EXIT_TERMINATED if isinstance(exc, Terminated) else EXIT_INTERRUPTED
    except MemoryError:
        # each command names its own options (subgroups has no --n-boot)
        print(f"{PROG} {args.command}: error: out of memory; {args.memory_hint}", file=sys.stderr)
        return EXIT_USAGE
    except (CLIError, ValueError, TypeError, OSError) as exc:
        print(f"{PROG} {args.command}: error: {console_text(cli_words(_os_message(exc), flags))}", file=sys.stderr)
        return EXIT_USAGE


#: Exit status after SIGTERM (128 + 15, the shell's convention).
EXIT_TERMINATED = 143


class Terminated(KeyboardInterrupt):
    """SIGTERM received while a command ran: unwound like Ctrl-C, so that a child process (mlpack's MST) is
    stopped and the output files are left whole (a SIGTERM used to kill the process at once, orphaning the child
    and its temporary folder)."""


def _written() -> list[Any]:
    """The files :mod:`aif360_subjective._io` has written in this process (none when it was never imported: the
    command line does not import pandas for ``--help``)."""
    io_module = sys.modules.get("aif360_subjective._io")
    return list(getattr(io_module, "WRITTEN", [])) if io_module is not None else []


@contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    """While a command runs, SIGTERM raises :class:`Terminated` in the main thread (as Ctrl-C raises
    KeyboardInterrupt); the earlier handler is put back afterwards."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():  # handlers can only be set there
        yield
        return

    def terminate(signum: int, frame: Any) -> None:  # noqa: ARG001
        raise Terminated

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _os_message(exc: BaseException) -> str:
    """An OSError as ``reason: file`` (not ``[Errno 28] ...``); other errors as their one-line message."""
    if isinstance(exc, OSError) and exc.strerror and str(exc).startswith("[Errno"):
        return f"{exc.strerror}: {exc.filename}" if exc.filename else exc.strerror
    return one_line(exc)


@contextmanager
def _console_text() -> Iterator[None]:
    """While a command runs, what it prints to stdout has control characters escaped (:func:`console_text`):
    a group or column name read from the data cannot move the cursor, clear the screen or retitle the terminal."""
    stdout = sys.stdout
    sys.stdout = _EscapingStream(stdout)
    try:
        yield
    finally:
        sys.stdout = stdout


class _EscapingStream:
    """A text stream that escapes control characters (newlines and tabs kept) before writing them on."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        return self._stream.write(console_text(text, keep="\n\t"))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class _StderrNotes(logging.Handler):
    """The library's log warnings as ``note: ...`` lines on the current stderr (looked up at each record, so a
    redirected or captured stderr receives them)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            print(f"note: {console_text(one_line(record.getMessage()))}", file=sys.stderr)
        except Exception:  # noqa: BLE001 - logging must never break the command
            self.handleError(record)


@contextmanager
def _library_notes() -> Iterator[None]:
    """While a command runs, the package's log warnings (e.g. a tied single-linkage cut) and Python warnings read
    as one plain line each, not as ``WARNING:aif360_subjective.detectors.detect:...`` through whatever handler the
    root logger has, nor as ``path:line: UserWarning: ...``."""
    import warnings

    log = logging.getLogger("aif360_subjective")
    handler = _StderrNotes(level=logging.WARNING)
    propagate = log.propagate
    log.addHandler(handler)
    log.propagate = False
    show = warnings.showwarning
    # a loader's warning (e.g. a repeated annotation in MD-Agreement) as one note, not "path:line: UserWarning: ..."
    warnings.showwarning = _warning_as_note
    try:
        yield
    finally:
        log.removeHandler(handler)
        log.propagate = propagate
        warnings.showwarning = show


def _warning_as_note(message: Warning | str, category: type[Warning], filename: str, lineno: int,  # noqa: ARG001
                     file: TextIO | None = None, line: str | None = None) -> None:
    print(f"note: {one_line(message)}", file=sys.stderr)


def _quiet_after_broken_pipe() -> int:
    """The reader of stdout left (``... | head``): that is the user's choice, not an error. Point stdout at
    /dev/null so that Python's final flush does not print a traceback, and exit with 0."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout without a file descriptor (captured): nothing to silence
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
