"""Shared reading steps of the loaders of one-row-per-annotation tables (POPQUORN, DICES, Measuring Hate Speech).

Those files repeat each annotator's demographics on every row. The steps here read the file, check the
columns a loader relies on, and build the annotator table with a check that every annotator's attributes are
the same on all of its rows. Errors name the file, the record (row) and the field.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from .._validation import plain
from ._paths import resolve_data_dir


def _ids_as_written(text: pd.Series) -> pd.Series:
    """Id cells read as text: integers (the published files' ids) when every id is an integer written plainly
    (``12``, not ``012`` or ``12.0``), else the text as written, so ``007`` and ``7`` stay two ids."""
    if text.isna().any():
        return text  # refused by check_ids, with the rows named
    number = pd.to_numeric(text, errors="coerce")
    if number.notna().all() and (number == np.floor(number)).all() and np.abs(number).max() < 2**62:
        as_int = number.astype(np.int64)
        if (as_int.astype(str) == text.str.strip()).all():
            return as_int
    return text


def read_table(path: Path, how_to_get: str, ids: Sequence[str] = ()) -> pd.DataFrame:
    """Read a CSV/TSV (or Parquet) file.

    Id columns (``ids``) of a CSV/TSV are read as text and kept as written (:func:`_ids_as_written`): integers when
    every id is a plainly written integer (as published), else text, so that ``007`` and ``7`` never merge.

    Raises:
        FileNotFoundError: no such file (the message says where to get it).
        ValueError: the file cannot be parsed (names the file).
        ImportError: a Parquet file without pyarrow (names the extra to install).
    """
    if not path.is_file():
        raise FileNotFoundError(f"data file not found: {path}. {how_to_get}")
    suffix = path.suffix.lower()
    try:
        if suffix == ".parquet":
            try:
                import pyarrow  # noqa: F401
            except ImportError as exc:
                raise ImportError(
                    f"reading {path.name} needs pyarrow: pip install 'aif360-subjective[parquet]' ({exc})"
                ) from None
            return pd.read_parquet(path)
        frame = pd.read_csv(path, sep="\t" if suffix in (".tsv", ".tab") else ",", low_memory=False,
                            dtype=dict.fromkeys(ids, str))
        for c in ids:
            if c in frame.columns:
                frame[c] = _ids_as_written(frame[c])
        return frame
    except (pd.errors.ParserError, UnicodeDecodeError, pd.errors.EmptyDataError, OSError) as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        raise ValueError(f"{path}: cannot be read as a {suffix.lstrip('.') or 'CSV'} table ({exc})") from None


def require_columns(frame: pd.DataFrame, columns: Sequence[str], path: Path, what: str) -> None:
    """Raise ValueError naming the file and the missing columns."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{path}: field(s) {missing} missing; {what} files have the columns {list(columns)} "
            f"(found {list(frame.columns)[:20]}{' ...' if len(frame.columns) > 20 else ''})"
        )


def check_ids(frame: pd.DataFrame, columns: Sequence[str], path: Path) -> None:
    """Every row has its ids; no (item, annotator) pair twice. Names the file, record (row) and field."""
    for col in columns:
        na = frame[col].isna().to_numpy()
        if na.any():
            row = int(np.flatnonzero(na)[0])
            raise ValueError(
                f"{path}: record {row} (data row {row + 2}): field {col!r} is empty; every row needs its ids "
                f"({int(na.sum())} row(s) affected)"
            )
    dup = frame.duplicated(list(columns)).to_numpy()
    if dup.any():
        row = int(np.flatnonzero(dup)[0])
        vals = ", ".join(f"{c}={plain(frame[c].iloc[row])!r}" for c in columns)
        raise ValueError(
            f"{path}: record {row} (data row {row + 2}) repeats the pair {vals}; one row per pair is expected "
            f"({int(dup.sum())} repeated row(s))"
        )


def numeric_field(frame: pd.DataFrame, col: str, path: Path, allowed: Collection[float] | None = None) -> np.ndarray:
    """A numeric column as float64; ValueError naming file, record and field for a non-number or an
    out-of-scale value (``allowed``); missing values are errors too."""
    values = pd.to_numeric(frame[col], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    bad = np.isnan(values)
    if allowed is not None:
        bad |= ~np.isin(values, np.asarray(list(allowed), dtype=np.float64))
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        expected = f"one of {sorted(allowed)}" if allowed is not None else "a number"
        raise ValueError(
            f"{path}: record {row} (data row {row + 2}): field {col!r} is {plain(frame[col].iloc[row])!r}, "
            f"expected {expected} ({int(bad.sum())} row(s) affected)"
        )
    return values


def first_per_key(frame: pd.DataFrame, key: str, columns: Sequence[str]) -> pd.DataFrame:
    """One row per ``key`` (its first row, first-appearance order) with ``columns``, indexed by ``key``."""
    return frame.drop_duplicates(key).set_index(key)[list(columns)]


def constant_per_key(
    frame: pd.DataFrame, key: str, columns: Sequence[str], path: Path, what: str
) -> pd.DataFrame:
    """One row per ``key`` with ``columns``, checking they never change between the key's rows.

    Missing values count as values (an attribute missing on one row and present on another is a change).

    Returns:
        pandas.DataFrame: indexed by ``key`` (first-appearance order).

    Raises:
        ValueError: a value changes; names the file, the ``what`` (annotator/item) id, the field, two values
            and their records.
    """
    cols = list(columns)
    table = first_per_key(frame, key, cols)
    if not cols:
        return table
    n_distinct = frame.groupby(key, sort=False)[cols].nunique(dropna=False)
    changing = n_distinct.to_numpy() > 1
    if changing.any():
        r, c = (int(x[0]) for x in np.nonzero(changing))
        k, col = n_distinct.index[r], cols[c]
        rows = frame.index[(frame[key] == k).to_numpy()]
        sub = frame.loc[rows, col]
        firsts = sub.drop_duplicates()
        shown = ", ".join(
            f"{plain(v)!r} (record {frame.index.get_loc(i)})" for i, v in firsts.iloc[:2].items()
        )
        raise ValueError(
            f"{path}: {what} {plain(k)!r} has different values of field {col!r} on its rows: {shown}; "
            f"the field must be constant per {what} ({int(changing.any(axis=1).sum())} {what}(s) affected)"
        )
    return table


def missing_as_nan(table: pd.DataFrame, missing_values: Collection[str]) -> tuple[pd.DataFrame, dict[str, int]]:
    """Values meaning "missing" (e.g. ``"Prefer not to disclose"``) as NaN, and the count per column."""
    out = table.copy()
    counts = {}
    for col in out.columns:
        s = out[col]
        if missing_values and not pd.api.types.is_numeric_dtype(s):
            s = s.where(~s.isin(list(missing_values)))
        out[col] = s
        counts[str(col)] = int(s.isna().sum())
    return out, counts


def annotator_table(
    frame: pd.DataFrame, key: str, columns: Sequence[str], path: Path, missing_values: Collection[str],
    what: str = "annotator",
) -> tuple[pd.DataFrame, dict[str, int]]:
    """The annotator table of a file that repeats each annotator's attributes on every row: checked constant per
    annotator (:func:`constant_per_key`), values meaning "missing" as NaN and counted (:func:`missing_as_nan`)."""
    return missing_as_nan(constant_per_key(frame, key, columns, path, what), missing_values)


def read_annotation_file(
    path: str | os.PathLike[str] | None,
    folder: str,
    names: Sequence[str],
    how_to_get: str,
    *,
    ids: tuple[str, str],
    columns: Sequence[str],
    what: str,
) -> tuple[Path, pd.DataFrame]:
    """Find, read and check a one-row-per-annotation file: the steps every such loader takes first.

    Args:
        path: the file, or a folder holding one of ``names`` (default: ``$AIF360_SUBJECTIVE_DATA/<folder>``).
        folder: the dataset's folder below the data folder.
        names: the file names looked for in a folder, in order.
        how_to_get: where to get the file (added to the not-found messages).
        ids: the (item, annotator) id columns: read as written, never empty, no pair twice.
        columns: the columns the loader relies on (``what`` names the files in the message).
        what: the dataset's name in the messages.

    Returns:
        tuple: the file's path and its table.

    Raises:
        FileNotFoundError: no file (the message says where to get it).
        ValueError: an unreadable file, a missing column, an empty id or a repeated pair (file, record and field
            named).
    """
    file = resolve_file(path, resolve_data_dir(folder), names, how_to_get)
    frame = read_table(file, how_to_get, ids=ids)
    require_columns(frame, columns, file, what)
    check_ids(frame, ids, file)
    return file, frame


def resolve_file(
    path: str | os.PathLike[str] | None, default_dir: Path, names: Sequence[str], how_to_get: str
) -> Path:
    """The data file: ``path`` if it is a file; else the first of ``names`` in the folder ``path``
    (default: ``default_dir``).

    Raises:
        FileNotFoundError: nothing found (the message lists the names looked for and where to get them).
    """
    p = default_dir if path is None else Path(path).expanduser()
    if p.is_file():
        return p
    if p.is_dir():
        for name in names:
            if (p / name).is_file():
                return p / name
        raise FileNotFoundError(f"none of {list(names)} in {p}. {how_to_get}")
    raise FileNotFoundError(f"data file or folder not found: {p} (looked for {list(names)}). {how_to_get}")
