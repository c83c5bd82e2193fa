"""Shared pieces of the command line: the one-line error, the parser class, option types read from the parameter
tables, the typed spec of a command, input readers, printing."""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, Self, TypeVar

from .._param_tables import OPINION_PARAMS, PROGRESS
from .._params import Interval, Param

if TYPE_CHECKING:
    import pandas as pd

    from ..report import Report

PROG = "aif360-subjective"
EXIT_USAGE = 2
#: Exit status after Ctrl-C (128 + SIGINT, the shell's convention).
EXIT_INTERRUPTED = 130


class CLIError(Exception):
    """An input problem reported to the user as one line (exit status 2)."""


def plain_text(text: str) -> str:
    """Docstring text for the terminal: reStructuredText literals (````x````) and roles (``:class:`X```)
    shown as plain words."""
    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"\1", text)
    return text.replace("``", "")


class HelpFormatter(argparse.HelpFormatter):
    """Wraps descriptions to the terminal, paragraph by paragraph; lines indented by two spaces (examples)
    are kept as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        import textwrap

        lines = []
        for line in text.splitlines():
            if line.startswith("  ") or not line.strip():
                lines.append(indent + line)
            else:
                lines.append(textwrap.fill(line, width, initial_indent=indent, subsequent_indent=indent))
        return "\n".join(lines)


class Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one line (the full usage is in ``--help``) and help text is plain and
    wrapped to the terminal. The top-level parser keeps its commands' parsers in :attr:`commands`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)
        #: command name -> its parser (filled by :func:`aif360_subjective.cli.build_parser`).
        self.commands: dict[str, Parser] = {}

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")

    def format_help(self) -> str:
        return plain_text(super().format_help())

    def long_options(self) -> list[str]:
        """The parser's long options (``--positive-from``, ...), those of its argument groups included."""
        # the parser's own action list (argument groups add theirs to it); read on self, inside the subclass
        return [o for action in self._actions for o in action.option_strings if o.startswith("--")]


Spec = TypeVar("Spec")


def spec_from(cls: type[Spec], args: argparse.Namespace, **given: Any) -> Spec:
    """The typed spec of a command from the parsed namespace: at a command's boundary, the namespace becomes a
    frozen dataclass, and nothing below the boundary reads the namespace.

    Each field takes the namespace's attribute of the same name (its default when the command has no such
    option); lists become tuples (a spec is frozen and hashable); ``given`` fields are set as passed.

    Args:
        cls: a dataclass.
        args: the parsed namespace.
        given: fields set directly (e.g. nested specs).
    """
    values: dict[str, Any] = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if f.name in given:
            values[f.name] = given[f.name]
            continue
        default = f.default if f.default is not dataclasses.MISSING else None
        value = getattr(args, f.name, default)
        values[f.name] = tuple(value) if isinstance(value, list) else value
    return cls(**values)


class CommandSpec:
    """Base of the commands' typed specs (each a frozen dataclass): :meth:`from_namespace` is the command's boundary.

    A spec whose fields all take the namespace's attribute of the same name uses it as it is; a spec with nested
    specs (how the data is read, which columns describe a subgroup) overrides it and passes them to
    :func:`spec_from`.
    """

    @classmethod
    def from_namespace(cls, args: argparse.Namespace) -> Self:
        """The command's boundary: the namespace as a spec."""
        return spec_from(cls, args)


@dataclasses.dataclass(frozen=True)
class Command:
    """One command of the command line, declared once by its module (``COMMAND``):
    :func:`aif360_subjective.cli.build_parser` adds its parser with :meth:`add_to`.

    Attributes:
        name: the command's name (``aif360-subjective NAME``).
        help: its line in the list of commands.
        description: the paragraph its ``--help`` opens with.
        memory_hint: what to try after running out of memory (options of this command only).
        examples: example command lines, shown after the options (a line ending in `` \\`` is continued by the
            next, indented).
    """

    name: str
    help: str
    description: str
    memory_hint: str
    examples: tuple[str, ...] = ()

    def add_to(self, sub: Any, add_arguments: Callable[[Parser], None],
               run: Callable[[argparse.Namespace], int]) -> Parser:
        """Add the command's parser to the subparsers ``sub``, its options by ``add_arguments``; return the parser.

        Args:
            sub: the subparsers of the top-level parser.
            add_arguments: adds the command's arguments and options to its parser.
            run: the command's boundary, called with the parsed namespace (``args.func``).
        """
        epilog = "Examples:\n" + "\n".join("  " + line for line in self.examples) if self.examples else None
        parser: Parser = sub.add_parser(self.name, help=self.help, description=self.description, epilog=epilog,
                                        formatter_class=HelpFormatter)
        add_arguments(parser)
        parser.set_defaults(func=run, memory_hint=self.memory_hint)
        return parser


# ----------------------------------------------------------------------------------------------- helpers
def progress_enabled(asked: bool | None = None) -> bool:
    """Whether to show progress: as ``--progress`` / ``--no-progress`` asked, else (None) when stderr is a terminal
    and ``AIF360_SUBJECTIVE_NO_PROGRESS`` is not set."""
    if asked is not None:
        return asked
    return sys.stderr.isatty() and not os.environ.get("AIF360_SUBJECTIVE_NO_PROGRESS")


def add_progress_option(parser: argparse.ArgumentParser) -> None:
    """``--progress`` / ``--no-progress`` (the parameter tables' row ``progress``); not given: None, the terminal
    decides (:func:`progress_enabled`)."""
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help=f"{PROGRESS.help} (default: when stderr is a terminal and "
                             "AIF360_SUBJECTIVE_NO_PROGRESS is not set)")


@contextmanager
def steps(names: Sequence[str], asked: bool | None = None) -> Iterator[Callable[[str], None]]:
    """A tqdm bar over named steps (stderr; off when stderr is not a terminal, or as ``asked``:
    :func:`progress_enabled`). Yields ``step(name)``."""
    from tqdm.auto import tqdm

    bar = tqdm(total=len(names), file=sys.stderr, disable=not progress_enabled(asked), unit="step",
               bar_format="{desc:<38}{bar}| {n_fmt}/{total_fmt} [{elapsed}]")
    first = [True]

    def step(name: str) -> None:
        if not first[0]:
            bar.update(1)
        first[0] = False
        bar.set_description_str(name)

    try:
        yield step
        bar.update(1)
    finally:
        bar.close()


def require(module: str, *names: str) -> list[Any]:
    """Import names from a package module, or a one-line error saying which piece is missing."""
    import importlib

    try:
        mod = importlib.import_module(f"aif360_subjective.{module}")
        return [getattr(mod, n) for n in names]
    except (ImportError, AttributeError) as exc:
        raise CLIError(f"this installation lacks aif360_subjective.{module}.{'/'.join(names)} ({exc}); "
                       "update aif360-subjective") from exc


#: Candidate field separators of a delimited text file, in order of preference on a tie.
SEPARATORS = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}


def sniff_separator(path: Path) -> str:
    """The separator of a delimited text file: the candidate occurring most often in its header line
    (outside quotes); ``.tsv``/``.tab`` files prefer tab on a tie, other files comma."""
    with open(path, encoding="utf-8", errors="replace", newline="") as fh:
        header = fh.readline()
    unquoted = re.sub(r'"[^"]*"', "", header)
    counts = {sep: unquoted.count(sep) for sep in SEPARATORS}
    preferred = "\t" if path.suffix.lower() in (".tsv", ".tab") else ","
    best = max(counts, key=lambda sep: (counts[sep], sep == preferred))
    return best if counts[best] else preferred


def read_csv(path: str, what: str, sep: str | None = None, announce: bool = True, ids: Sequence[str | None] = (),
             first_column_id: bool = False) -> pd.DataFrame:
    """Read a delimited text file; ``sep=None`` detects the separator. Prints which one was used.

    Id columns (``ids``, and the first column with ``first_column_id``) are read as text, as written: ``007`` and
    ``7`` stay two ids (pandas would read both as the number 7). An empty id cell is missing (refused later, with
    its rows counted).
    """
    import pandas as pd

    p = Path(path)
    if not p.is_file():
        raise CLIError(f"no such file or folder: {path} (the {what} file)")
    how = "given" if sep else "detected"
    sep = sep or sniff_separator(p)
    try:
        text_cols = {c for c in ids if c is not None}
        if first_column_id:
            text_cols |= set(pd.read_csv(p, sep=sep, nrows=0).columns[:1])
        df = pd.read_csv(p, sep=sep, dtype=dict.fromkeys(text_cols, str))
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise CLIError(f"cannot read {what} file {path}: {one_line(str(exc))}") from exc
    if announce:
        print(f"Read {what} {p.name}: {count(len(df), 'row')} x {count(df.shape[1], 'column')}, "
              f"separator {SEPARATORS.get(sep, repr(sep))} ({how}).")
    return df


def check_not_missing(df: pd.DataFrame, columns: dict[str, str], path: str, what: str = "value") -> None:
    """Refuse empty cells in the given columns (option -> column), counting the rows and naming the first.

    Raises:
        CLIError: ``--label-col 'label' is empty in 2 rows of FILE (first at row 5) ...``.
    """
    for option, col in columns.items():
        missing = df[col].isna().to_numpy()
        if missing.any():
            n, row = int(missing.sum()), int(missing.argmax())
            raise CLIError(f"{option} {col!r} is empty in {count(n, 'row')} of {path} (first at row {row}); "
                           f"a missing {what} is not guessed: drop or fill those rows")


def plain(value: Any) -> Any:
    """A numpy scalar as the Python value (``np.int64(41)`` -> ``41``; ``2.0`` -> ``2``)."""
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        value = value.item()
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def show(value: Any) -> str:
    """A value for a message: strings quoted, numbers plain."""
    return repr(plain(value))


def show_values(values: Sequence[Any] | Any, limit: int = 8) -> str:
    """A short list of values for a message: ``[0, 1]`` or ``['a', 'b', ... (12 values)]``."""
    values = [plain(v) for v in values]
    shown = ", ".join(repr(v) for v in values[:limit])
    return f"[{shown}]" if len(values) <= limit else f"[{shown}, ... ({len(values)} values)]"


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``1 row``, ``2 rows``, ``1,234 annotations``."""
    return f"{n:,} {noun if n == 1 else (plural or noun + 's')}"


def check_columns(df: pd.DataFrame, columns: Mapping[str, str | None], path: str) -> None:
    """Every named column (option -> column) must be a column of ``df``.

    Raises:
        CLIError: naming the option, the column and the file's columns.
    """
    for option, col in columns.items():
        if col is not None and col not in df.columns:
            shown = ", ".join(map(str, list(df.columns)[:12])) + (", ..." if df.shape[1] > 12 else "")
            raise CLIError(f"{option} {col!r} is not a column of {path} (columns: {shown})")


def coerce_label(value: str | None, series: pd.Series, option: str) -> Any:
    """The label value typed on the command line, converted to the column's kind of values."""
    import pandas as pd

    if value is None:
        return None
    if pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series):
        try:
            number = float(value)
        except ValueError:
            raise CLIError(f"{option} {value!r} is not a number but the label column is numeric") from None
        return int(number) if number.is_integer() else number
    if pd.api.types.is_bool_dtype(series):
        if value.lower() not in ("true", "false", "1", "0"):
            raise CLIError(f"{option} {value!r} is not a boolean but the label column is boolean")
        return value.lower() in ("true", "1")
    return value


def index_table(df: pd.DataFrame, path: str, index_col: str | None, default: str | None) -> pd.DataFrame:
    """A side table (annotators/items) indexed by its id column."""
    col = index_col or (default if default is not None and default in df.columns else str(df.columns[0]))
    check_columns(df, {"id column": col}, path)
    if df[col].duplicated().any():
        dup = df.loc[df[col].duplicated(), col].iloc[0]
        raise CLIError(f"{path}: id column {col!r} repeats the id {dup!r}")
    return df.set_index(col)


def bins(text: str) -> int | str | list[float]:
    """``--bins`` as the library takes it: an int, ``quantile:N`` or a list of edges.

    Raises:
        CLIError: none of these.
    """
    if re.fullmatch(r"\d+", text):
        return int(text)
    if re.fullmatch(r"quantile:\d+", text):
        return text
    try:
        edges = [float(x) for x in text.split(",")]
    except ValueError:
        raise CLIError(f"--bins {text!r}: expected an int, 'quantile:N' or comma-separated edges like "
                       "0,0.2,0.5,1") from None
    return edges


def _expected(interval: Interval, noun: str | None = None) -> str:
    """What an option type expects, in words: ``a positive integer``, ``an integer from 100 to 100,000``, ``a number
    strictly between 0 and 1``."""
    if interval.kind == "int":
        if noun is None and interval.low == 1 and interval.high is None:
            return "a positive integer"
        return f"{noun or 'an integer'} {interval.bounds_text()}"
    return f"{noun or 'a number'} {interval.bounds_text()}"


def option_type(rule: Param | Interval, *, noun: str | None = None, none: bool | None = None,
                too_big: Callable[[float], str] | None = None) -> Callable[[str], Any]:
    """An argparse type from an option's rule in a parameter table (or from an interval of the command line's own).

    Args:
        rule: the option's :class:`~aif360_subjective._params.Param` (its interval is used) or an interval.
        noun: what the number is (``a seed``; default ``an integer`` or ``a number``).
        none: whether ``none`` is admissible (default: whether the rule admits None): no intervals, no filter.
        too_big: what a value above the interval would cost, appended to the message.

    Returns:
        A function of the option's text: the number (or None), or ``argparse.ArgumentTypeError`` naming what it
        expected and the text given.
    """
    interval = rule.interval if isinstance(rule, Param) else rule
    if interval is None:
        raise TypeError(f"option_type needs a numeric rule; {rule!r} has no interval")
    if none is None:
        none = isinstance(rule, Param) and rule.accepts_none
    expected = _expected(interval, noun)

    def parse(text: str) -> Any:
        if none and text.strip().lower() == "none":
            return None
        try:
            v = int(text) if interval.kind == "int" else float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
        if not interval.accepts(v):
            over = too_big is not None and interval.high is not None and v > interval.high
            cost = f" ({too_big(v)})" if too_big is not None and over else ""
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}{cost}")
        return v

    return parse


def choices_help(param: Param, *, choices: Sequence[str] | None = None) -> str:
    """An option's help from its table rule: what it does and its default (``... (default: adr)``)."""
    default = param.default if choices is None or param.default in choices else None
    return param.help + (f" (default: {default})" if default is not None else "")


def _gigabytes(n_bytes: float) -> str:
    return f"{n_bytes / 1e9:,.1f} GB" if n_bytes >= 1e8 else f"{n_bytes / 1e6:,.0f} MB"


_BOOT = OPINION_PARAMS["n_boot"].interval
assert _BOOT is not None and _BOOT.low is not None and _BOOT.high is not None
#: Fewest and most bootstrap replicates the library accepts (its table's rule: fewer cannot place a 95% interval's
#: bounds; more do not move its ends by more than Monte-Carlo noise, and cost 8 bytes per value per replicate).
MIN_BOOT, MAX_BOOT = int(_BOOT.low), int(_BOOT.high)
#: Most items the demo generates (5 annotations each, all held in memory, two models trained on them).
MAX_DEMO_ITEMS = 1_000_000
#: Seeds are numpy's: 0 to 2**32 - 1.
MAX_SEED = 2**32 - 1

positive_int = option_type(Interval("int", 1))
nonnegative_int = option_type(Interval("int", 0))
boot_count = option_type(
    OPINION_PARAMS["n_boot"],
    too_big=lambda v: f"{v:,} replicates would need at least {_gigabytes(v * 8 * 3)}: 8 bytes for each of at least "
                      "3 values per replicate, the unfairness, the performance and one group")
demo_items = option_type(
    Interval("int", 1, MAX_DEMO_ITEMS),
    too_big=lambda v: f"{v:,} items would be {v * 5:,} annotations held in memory, at least "
                      f"{_gigabytes(v * 5 * 3 * 8)} for their item, annotator and label columns alone")
seed = option_type(Interval("int", 0, MAX_SEED), noun="a seed")
unit_float = option_type(Interval("real", 0.0, 1.0))
#: A confidence or significance level.
open_unit_float = option_type(Interval("real", 0.0, 1.0, closed="neither"))
#: A significance level, or ``none`` for the raw (unfiltered) rankings.
alpha = option_type(Interval("real", 0.0, 1.0, closed="neither"), none=True)
#: A confidence level, or ``none`` for the paper's raw figures (no intervals).
ci_level = alpha


_NUMPY_REPR = re.compile(r"np\.(?:u?int\d*|float\d*|bool_?|str_|bytes_)\((.*?)\)")


#: The library's warning about thin groups (printed by the commands as one line per model instead).
THIN_GROUPS_WARNING = re.compile(r"groups? holds? fewer than \d+ annotators")


@contextmanager
def quiet_thin_group_warnings(notes: list[str]) -> Iterator[None]:
    """Catch the warnings of a computation: the thin-group ones are dropped (the caller prints its own line per
    model from ``thin_groups()``), every other one is added to ``notes`` as one plain line."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    for w in caught:
        text = one_line(w.message)
        if not THIN_GROUPS_WARNING.search(text) and text not in notes:
            notes.append(text)


def opinion_interval_frame(models: Mapping[str, Any], ci: float | None, n_boot: int, seed: int) -> pd.DataFrame:
    """Unfairness and performance per model as text, with their intervals when ``ci`` is given
    (``0.087 [0.071, 0.104]``)."""
    import pandas as pd

    from ..report.sections import interval_text

    rows = {}
    for name, m in models.items():
        if ci is None:
            rows[name] = {"unfairness": f"{m.unfairness():.3f}", "performance": f"{m.performance():.3f}"}
        else:
            rows[name] = {
                "unfairness": interval_text(m.unfairness(), m.unfairness_ci(ci=ci, n_boot=n_boot, random_state=seed)),
                "performance": interval_text(m.performance(),
                                             m.performance_ci(ci=ci, n_boot=n_boot, random_state=seed)),
            }
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "model"
    return out


def interval_note(ci: float, n_boot: int, seed: int) -> str:
    """What the console's intervals are, in one line."""
    return (f"[low, high]: {ci:.0%} intervals. Unfairness: the one-way ANOVA test inverted (noncentral F), reaching 0 "
            f"when the spread across groups is indistinguishable from noise. Performance and groups: bootstrap "
            f"({n_boot:,} replicates, seed {seed}; annotators resampled within their group, then their annotations; "
            "groups held fixed; conditional on the items annotated). --ci none gives the paper's raw figures.")


def significance_line(rk: pd.DataFrame, metric_name: str, what: str) -> str:
    """One console sentence about the first entry of a significance-filtered ranking (or why there is none)."""
    a = rk.attrs
    if len(rk):
        row = rk.iloc[0]
        metric = rk.columns[1]
        from ..detectors.subgroup_metrics import value_format

        f = value_format(metric)
        if a.get("alpha") is None:
            return f"Most disadvantaged {what} (raw ranking): {row['subgroup']} ({metric_name} {row[metric]:{f}})."
        return (f"Most disadvantaged {what}: {row['subgroup']} ({int(row['size']):,} rows; {metric_name} "
                f"{row[metric]:{f}}, {a['ci']:.0%} CI [{row[metric + '_ci_low']:{f}}, "
                f"{row[metric + '_ci_high']:{f}}], {_adjusted_text(row, metric, a.get('n_permutations'))}).")
    test = "q" if a.get("control") == "fdr" else "adjusted p"
    return (f"No {what} is significantly disadvantaged by {metric_name} at {test} < {a['alpha']:g} "
            f"({a['n_not_significant']} not significant, {a.get('n_other_side', 0)} significantly favoured, "
            f"{a['n_undefined']} undefined, {a['n_too_small']} too small).")


def _adjusted_text(row: pd.Series, metric: str, n_permutations: int | None = None) -> str:
    """``q = 0.010`` / ``q < 0.001`` (Benjamini-Hochberg ranking) or ``adjusted p = 0.012`` / ``adjusted p ≤ 0.005``
    at the floor of ``n_permutations`` (max-T ranking): as the report writes them (a q of 0.0 read ``q = 0``)."""
    from ..report.significance import p_text

    def said(text: str) -> str:
        return text if text.startswith(("<", "≤")) else f"= {text}"

    if metric + "_q" in row.index:
        return f"q {said(p_text(float(row[metric + '_q']), None))}"
    return f"adjusted p {said(p_text(float(row[metric + '_p_adjusted']), n_permutations))}"


def one_line(text: object) -> str:
    """A message on one line, numpy scalar reprs (``np.int64(41)``, from a library message) as plain values."""
    return _NUMPY_REPR.sub(r"\1", " ".join(str(text).split()))


def console_text(text: str, keep: str = "") -> str:
    """``text`` with control characters escaped (:func:`aif360_subjective._io.escape_controls`)."""
    from .._io import escape_controls

    return escape_controls(text, keep)


#: Library advice naming a Python argument the command line has no option for, and what to say instead.
_NO_FLAG = [
    (re.compile(r"; pass duplicates=.*$"), "; keep one row per pair in the file"),
    # "pass groups=None": on the command line, leaving the option out is how one says None
    (re.compile(r"pass groups=None, or "), "leave --groups out, or give "),
    (re.compile(r"pass groups=None"), "leave --groups out"),
]


def cli_words(message: str, flags: Sequence[str]) -> str:
    """A library message in the command line's words: Python argument names of the command's options written as
    the options (``positive_from=4`` -> ``--positive-from 4``, ``n_clusters must`` -> ``--n-clusters must``).

    Args:
        message: the library's message.
        flags: the command's long options (``--positive-from``, ...).
    """
    for pattern, text in _NO_FLAG:
        message = pattern.sub(text, message)
    for flag in sorted(flags, key=len, reverse=True):
        name = flag[2:].replace("-", "_")
        if not name.isidentifier():
            continue
        # name='value' -> --flag value where the value is one plain word (the quotes are Python's, a shell needs
        # none); other quoted values keep their quotes; name=value -> --flag value
        message = re.sub(rf"(?<![\w.'\"-]){name}=(['\"])([\w.]+)\1(?![\w])", rf"{flag} \2", message)
        message = re.sub(rf"(?<![\w.'\"-]){name}=", f"{flag} ", message)
        # a bare argument name: unambiguous with an underscore; a plain word only as the subject of "must"
        bare = rf"(?<![\w.'\"-]){name}(?![\w'\"-])" if "_" in name else rf"^{name}(?= must)"
        message = re.sub(bare, flag, message)
    return message


def print_frame(df: pd.DataFrame | pd.Series, title: str | None = None, digits: int = 3) -> None:
    """Print a table (and its title) as text, numbers with ``digits`` decimals."""
    import pandas as pd

    if title:
        print(title)
    with pd.option_context("display.width", 120, "display.max_columns", 20, "display.max_colwidth", 60,
                           "display.float_format", f"{{:.{digits}f}}".format):
        print(df.to_string())
    print()


def save_report(report: Report, out: str | Path, figures_dir: Path | None = None) -> Path:
    """Write the report (and its figures as PNG files into ``figures_dir``) as one set: every file complete or
    none changed (:func:`aif360_subjective._io.write_files`)."""
    from .._io import write_files

    out = Path(out)
    if out.parent and not out.parent.exists() and figures_dir is None:
        raise CLIError(f"output folder does not exist: {out.parent}")
    files: dict[str | Path, str | bytes] = {out: report.render()}
    if figures_dir is not None:
        for i, fig in enumerate(report.figures(), start=1):
            files[figures_dir / f"figure_{i:02d}.png"] = fig.png_bytes
    write_files(files)
    return out


def matplotlib_agg() -> None:
    # The command only writes files: never open a window.
    import matplotlib

    matplotlib.use("Agg")
