"""Shared pieces of the command line: the one-line error, the parser class, input readers, printing."""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

PROG = "aif360-subjective"
EXIT_USAGE = 2


class CLIError(Exception):
    """An input problem reported to the user as one line (exit status 2)."""


class Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one line (the full usage is in ``--help``)."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


# ----------------------------------------------------------------------------------------------- helpers
def progress_enabled() -> bool:
    return sys.stderr.isatty() and not os.environ.get("AIF360_SUBJECTIVE_NO_PROGRESS")


@contextmanager
def steps(names: Sequence[str]):
    """A tqdm bar over named steps (stderr; off when stderr is not a terminal). Yields ``step(name)``."""
    from tqdm.auto import tqdm

    bar = tqdm(total=len(names), file=sys.stderr, disable=not progress_enabled(), unit="step",
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


def read_csv(path: str, what: str):
    import pandas as pd

    p = Path(path)
    if not p.is_file():
        raise CLIError(f"{what} file not found: {path}")
    sep = "\t" if p.suffix.lower() in (".tsv", ".tab") else ","
    try:
        return pd.read_csv(p, sep=sep)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise CLIError(f"cannot read {what} file {path}: {one_line(str(exc))}") from exc


def check_columns(df, columns: dict[str, str | None], path: str) -> None:
    for option, col in columns.items():
        if col is not None and col not in df.columns:
            shown = ", ".join(map(str, list(df.columns)[:12])) + (", ..." if df.shape[1] > 12 else "")
            raise CLIError(f"{option} {col!r} is not a column of {path} (columns: {shown})")


def coerce_label(value: str | None, series, option: str):
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


def index_table(df, path: str, index_col: str | None, default: str):
    """A side table (annotators/items) indexed by its id column."""
    col = index_col or (default if default in df.columns else df.columns[0])
    check_columns(df, {"id column": col}, path)
    if df[col].duplicated().any():
        dup = df.loc[df[col].duplicated(), col].iloc[0]
        raise CLIError(f"{path}: id column {col!r} repeats the id {dup!r}")
    return df.set_index(col)


def bins(text: str):
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


def positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return v


def unit_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {text!r}") from None
    if not 0.0 <= v <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {text!r}")
    return v


def one_line(text: str) -> str:
    return " ".join(str(text).split())


def print_frame(df, title: str | None = None, digits: int = 3) -> None:
    import pandas as pd

    if title:
        print(title)
    with pd.option_context("display.width", 120, "display.max_columns", 20, "display.max_colwidth", 60,
                           "display.float_format", f"{{:.{digits}f}}".format):
        print(df.to_string())
    print()


def save_report(report, out: str | Path, figures_dir: Path | None = None) -> Path:
    out = Path(out)
    if out.parent and not out.parent.exists():
        raise CLIError(f"output folder does not exist: {out.parent}")
    path = report.save(out)
    if figures_dir is not None:
        figures_dir.mkdir(parents=True, exist_ok=True)
        for i, fig in enumerate(report.figures(), start=1):
            (figures_dir / f"figure_{i:02d}.png").write_bytes(fig.png_bytes)
    return path


def matplotlib_agg() -> None:
    # The command only writes files: never open a window.
    import matplotlib

    matplotlib.use("Agg")
