"""The ``aif360-subjective`` command: demo, opinion-exclusion audit, subgroup discovery, CrowdTruth scores.

Run ``aif360-subjective COMMAND --help`` for the options of each command. Errors in the input (missing
files or columns, bad values) print one line to stderr and exit with status 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from ._common import EXIT_USAGE, PROG, CLIError, HelpFormatter, Parser, one_line, plain_text

__all__ = ["CLIError", "build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the command line."""
    parser = Parser(prog=PROG, description=plain_text(__doc__.split("\n\n")[0]),
                     formatter_class=HelpFormatter,
                     epilog="Examples:\n  aif360-subjective demo --out demo\n"
                            "  aif360-subjective audit ann.csv --item-col item --annotator-col annotator \\\n"
                            "      --label-col label --prediction-col pred --out audit.html\n"
                            "  aif360-subjective subgroups compas.csv --label-col class --prediction-col out")
    from .. import __version__

    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser)

    from . import audit, crowdtruth, demo, subgroups

    for command in (demo, audit, subgroups, crowdtruth):
        command.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``aif360-subjective``.

    Args:
        argv: the arguments (default: ``sys.argv[1:]``).

    Returns:
        int: the exit status (0 success, 2 bad input).
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        code = func(args)
        sys.stdout.flush()  # a closed pipe shows here, inside the handler, not at interpreter exit
        return code
    except BrokenPipeError:
        return _quiet_after_broken_pipe()
    except (CLIError, ValueError, TypeError, FileNotFoundError, PermissionError, IsADirectoryError) as exc:
        print(f"{PROG} {args.command}: error: {one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE


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
