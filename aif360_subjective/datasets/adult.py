"""UCI Adult (census income) as a table of rows: attributes, the income label, in the publisher's own files.

A table for subgroup discovery (one row per person, no annotations): :func:`read_adult_table` reads
``adult.data`` and ``adult.test`` as published (no header line; column names from ``adult.names``; values padded
with a space; the test file opening with a ``|1x3 Cross validator`` line and writing its labels ``>50K.``).

References:
    R. Kohavi, "Scaling Up the Accuracy of Naive-Bayes Classifiers: a Decision-Tree Hybrid", KDD 1996 (the data);
    UCI Machine Learning Repository, https://archive.ics.uci.edu/dataset/2/adult. AIF360's ``AdultDataset``
    reads the same files into a ``BinaryLabelDataset``; this reader keeps every column as written, for a table.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

__all__ = ["ADULT_FAVORABLE", "ADULT_LABEL", "ADULT_WEIGHT", "AdultTable", "adult_columns", "read_adult_table"]

#: The label column (not named in ``adult.names``).
ADULT_LABEL = "income"
#: The favourable label (as AIF360's ``AdultDataset``).
ADULT_FAVORABLE = ">50K"
#: The census sampling weight: it describes the sample, not the person (not an attribute of a subgroup).
ADULT_WEIGHT = "fnlwgt"
_DOWNLOAD = "https://archive.ics.uci.edu/dataset/2/adult"


@dataclass(frozen=True)
class AdultTable:
    """UCI Adult as read.

    Attributes:
        frame: one row per person: the attributes of ``adult.names``, then ``income`` (``<=50K`` or ``>50K``).
        files: the files read, in order (``adult.data``, then ``adult.test`` when present).
        label: the label column (:data:`ADULT_LABEL`).
        favorable: the favourable label (:data:`ADULT_FAVORABLE`).
        not_attributes: columns that are no attribute of a person (:data:`ADULT_WEIGHT`).
    """

    frame: pd.DataFrame
    files: tuple[Path, ...]
    label: str = ADULT_LABEL
    favorable: str = ADULT_FAVORABLE
    not_attributes: tuple[str, ...] = field(default=(ADULT_WEIGHT,))


def adult_columns(names_file: str | Path) -> list[str]:
    """The attribute names listed in UCI's ``adult.names`` (its ``name: values.`` lines), then ``income``.

    Args:
        names_file: the path of ``adult.names``.

    Returns:
        list[str]: the column names of ``adult.data``.

    Raises:
        FileNotFoundError: the file is missing (naming it and where to download it).
        ValueError: the file lists no attribute.
    """
    path = Path(names_file)
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {path} (the Adult column names, next to adult.data; download "
                                f"adult.names from {_DOWNLOAD} into {path.parent})")
    names = re.findall(r"^([A-Za-z][\w-]*): ", path.read_text(encoding="utf-8", errors="replace"), flags=re.M)
    if not names:
        raise ValueError(f"{path} lists no attribute ('name: values.' lines); is it UCI's adult.names?")
    return [*names, ADULT_LABEL]


def read_adult_table(path: str | Path) -> AdultTable:
    """Read UCI Adult from its published files.

    Args:
        path: a folder holding ``adult.data`` (and ``adult.test``, read too when present) and ``adult.names``, or
            one of the two data files (read alone; ``adult.names`` next to it).

    Returns:
        AdultTable: the rows of the files, one frame; ``income`` with the test file's trailing ``.`` removed
        (``>50K.`` is ``>50K``); ``?`` (a missing value in the publisher's files) kept as a value of its own.

    Raises:
        FileNotFoundError: no ``adult.data`` in the folder, or no ``adult.names`` (naming the file and where to
            download it).
        ValueError: ``adult.names`` lists no attribute.
    """
    p = Path(path)
    folder = p if p.is_dir() else p.parent
    if p.is_dir():
        if not (folder / "adult.data").is_file():
            raise FileNotFoundError(f"no adult.data in {folder}: download it (and adult.test, adult.names) from "
                                    f"{_DOWNLOAD} into that folder")
        files = tuple(folder / f for f in ("adult.data", "adult.test") if (folder / f).is_file())
    elif p.is_file():
        files = (p,)
    else:
        raise FileNotFoundError(f"no such file or folder: {p} (UCI Adult: download it from {_DOWNLOAD})")
    columns = adult_columns(folder / "adult.names")
    # the test file opens with a '|1x3 Cross validator' line; values are padded with a space
    frames = [pd.read_csv(f, header=None, names=columns, skipinitialspace=True, comment="|").dropna(how="all")
              for f in files]
    frame = pd.concat(frames, ignore_index=True)
    frame[ADULT_LABEL] = frame[ADULT_LABEL].astype(str).str.rstrip(".")
    return AdultTable(frame, files)
