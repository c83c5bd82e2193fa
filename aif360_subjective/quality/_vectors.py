"""Build the sparse worker-unit-label tensor that CrowdTruth works on.

A *judgment* is one (unit, worker) pair; its *vector* counts the labels the worker chose for the
unit (one-hot for a single-choice task, several ones for a multiple-choice task). The tensor is
kept in coordinate form: one entry per (judgment, label) with a nonzero count.

Validation happens here, at the boundary, so that the metric code can trust its input.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .._validation import plain

__all__ = [
    "DUPLICATE_POLICIES",
    "AnnotationTensor",
    "build_tensor",
    "check_table_columns",
    "factorize_ids",
    "label_entries",
]

DUPLICATE_POLICIES = ("error", "last", "union")


@dataclass(frozen=True)
class AnnotationTensor:
    """Judgments of a crowdsourcing job, encoded as integer codes and a sparse label matrix.

    Attributes:
        unit_ids: original unit ids, position = unit code.
        worker_ids: original worker ids, position = worker code.
        labels: the annotation vector (label order), position = label code.
        unit: unit code of each judgment.
        worker: worker code of each judgment.
        vectors: CSR matrix (n_judgments x n_labels) of label counts, one row per judgment.
        n_rows: number of input rows.
        n_duplicate_rows: input rows merged into another row of the same (unit, worker) pair.
    """

    unit_ids: pd.Index
    worker_ids: pd.Index
    labels: pd.Index
    unit: np.ndarray
    worker: np.ndarray
    vectors: sp.csr_matrix
    n_rows: int
    n_duplicate_rows: int

    @property
    def n_judgments(self) -> int:
        return len(self.unit)


def _examples(values: Any, k: int = 5) -> str:
    vals = list(dict.fromkeys(list(values)))[:k]
    return ", ".join(repr(_plain_deep(v)) for v in vals)


def _plain_deep(value: Any) -> Any:
    # messages show (17, 1), not (np.int64(17), np.int64(1))
    if isinstance(value, tuple):
        return tuple(plain(v) for v in value)
    return plain(value)


def factorize_ids(values: pd.Series, name: str) -> tuple[np.ndarray, pd.Index]:
    """Integer codes for ids, in sorted id order when the ids can be sorted (stable output order)."""
    try:
        codes, uniques = pd.factorize(values, sort=True)
    except TypeError:  # mixed, unorderable ids: keep the order of first appearance
        codes, uniques = pd.factorize(values, sort=False)
    return codes.astype(np.int64), pd.Index(uniques, name=name)


def label_entries(cells: pd.Series, label_col: str) -> tuple[np.ndarray, np.ndarray]:
    """Flatten the label column into (row position, label) pairs.

    A cell holds one label, or a list/tuple/set/array of labels for a multiple-choice judgment.
    """
    s = pd.Series(cells.to_numpy(), index=np.arange(len(cells)))
    if s.dtype == object:
        if pd.api.types.infer_dtype(s, skipna=True) == "mixed":
            # containers only: a dict would explode into its keys, silently taken as labels
            bad = s.map(lambda v: isinstance(v, dict)).to_numpy()
            if bad.any():
                raise ValueError(
                    f"column {label_col!r} holds a dict at index {_examples(cells.index[bad])}; a cell must be "
                    "one label or a list/tuple/set of labels"
                )
        # explode leaves scalars (strings too) alone and turns an empty list into one NaN entry.
        s = s.explode()
    values = s.to_numpy()
    missing = pd.isna(values)
    if missing.any():
        rows = cells.index[np.unique(s.index.to_numpy()[missing])]
        raise ValueError(
            f"column {label_col!r} has {len(rows)} judgment(s) without a label (NaN, None or an empty "
            f"list), e.g. at index {_examples(rows)}; every judgment needs at least one label"
        )
    return s.index.to_numpy(dtype=np.int64), values


def check_table_columns(df: Any, cols: dict[str, str]) -> None:
    """The unit, worker and label columns are names of ``df``'s columns, all different.

    Raises:
        TypeError: a column argument is not a name.
        ValueError: a column is missing, or two arguments name the same column.
    """
    for arg, col in cols.items():
        if not isinstance(col, str | int):
            raise TypeError(f"{arg} must be a column name (str), got {type(col).__name__}")
    missing = [f"{arg}={col!r}" for arg, col in cols.items() if col not in df.columns]
    if missing:
        raise ValueError(
            f"column(s) not found: {', '.join(missing)}; the table has columns {list(df.columns)}"
        )
    if len(set(cols.values())) < len(cols):
        raise ValueError(f"unit, worker and label columns must differ, got {cols}")


def build_tensor(
    df: pd.DataFrame,
    unit_col: str,
    worker_col: str,
    label_col: str,
    labels: Sequence[Any] | None,
    duplicates: str,
) -> AnnotationTensor:
    """Validate a long annotation table and encode it as an :class:`AnnotationTensor`.

    Args:
        df: one row per judgment.
        unit_col, worker_col, label_col: column names.
        labels: the annotation vector, or None for the sorted set of observed labels.
        duplicates: what to do with several rows for one (unit, worker) pair: ``"error"``, ``"last"``
            (keep the last row) or ``"union"`` (one judgment whose vector is the element-wise maximum
            of the rows' vectors, i.e. the union of the chosen labels).

    Returns:
        AnnotationTensor: the encoded judgments.

    Raises:
        TypeError: if ``df`` is not a DataFrame.
        ValueError: on missing columns, empty input, missing ids or labels, labels outside ``labels``,
            an unknown duplicates policy, or duplicate pairs under ``duplicates="error"``.
    """
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df must be a pandas DataFrame or a MultiAnnotatorDataset, got {type(df).__name__}")
    if duplicates not in DUPLICATE_POLICIES:
        raise ValueError(f"duplicates={duplicates!r} is not a policy; expected one of {DUPLICATE_POLICIES}")
    check_table_columns(df, {"unit_col": unit_col, "worker_col": worker_col, "label_col": label_col})
    if len(df) == 0:
        raise ValueError("the annotation table is empty; CrowdTruth needs at least one judgment")
    for col in (unit_col, worker_col):
        na = df[col].isna().to_numpy()
        if na.any():
            raise ValueError(
                f"column {col!r} has {int(na.sum())} missing id(s), e.g. at index {_examples(df.index[na])}"
            )

    unit, unit_ids = factorize_ids(df[unit_col], unit_col)
    worker, worker_ids = factorize_ids(df[worker_col], worker_col)
    entry_row, entry_value = label_entries(df[label_col], label_col)

    if labels is None:
        label_codes, label_index = factorize_ids(pd.Series(entry_value), label_col)
    else:
        if isinstance(labels, str) or not isinstance(labels, Sequence | np.ndarray | pd.Index):
            raise TypeError(f"labels must be a list of labels, got {labels!r}")
        label_index = pd.Index(list(labels), name=label_col)
        if len(label_index) == 0:
            raise ValueError("labels is empty; give the list of possible labels or None")
        if label_index.has_duplicates:
            raise ValueError(f"labels has duplicates: {_examples(label_index[label_index.duplicated()])}")
        label_codes = label_index.get_indexer(entry_value).astype(np.int64)
        unknown = label_codes < 0
        if unknown.any():
            raise ValueError(
                f"column {label_col!r} has {int(unknown.sum())} label(s) not in labels={list(label_index)}: "
                f"{_examples(entry_value[unknown])}"
            )

    n_rows = len(df)
    key = unit * len(worker_ids) + worker
    judgment_keys, row_judgment = np.unique(key, return_inverse=True)
    n_duplicate_rows = n_rows - len(judgment_keys)
    if n_duplicate_rows and duplicates == "error":
        dup = pd.Index(key).duplicated(keep=False)
        pairs = list(zip(df[unit_col].to_numpy()[dup], df[worker_col].to_numpy()[dup], strict=True))
        raise ValueError(
            f"{n_duplicate_rows} duplicate (unit, worker) row(s) in columns ({unit_col!r}, {worker_col!r}), "
            f"e.g. {_examples(pairs)}; pass duplicates='last' or 'union' to merge them"
        )

    n_labels = len(label_index)
    ones = np.ones(len(entry_row))
    if duplicates == "last" and n_duplicate_rows:
        # The last row of each pair wins: drop the entries of all earlier rows.
        last_row = np.full(len(judgment_keys), -1, dtype=np.int64)
        np.maximum.at(last_row, row_judgment, np.arange(n_rows))
        keep = last_row[row_judgment[entry_row]] == entry_row
        entry_row, label_codes, ones = entry_row[keep], label_codes[keep], ones[keep]
    # Counts per (row, label): a label listed twice in one cell counts twice (as the reference's Counter).
    per_row = sp.csr_matrix((ones, (entry_row, label_codes)), shape=(n_rows, n_labels))
    per_row.sum_duplicates()
    if n_duplicate_rows:
        coo = per_row.tocoo()
        j = row_judgment[coo.row]
        if duplicates == "union":
            # Element-wise maximum over the rows of a pair: sort so the largest count comes last.
            order = np.lexsort((coo.data, coo.col, j))
            j, col, data = j[order], coo.col[order], coo.data[order]
            last = np.ones(len(j), dtype=bool)
            last[:-1] = (j[1:] != j[:-1]) | (col[1:] != col[:-1])
            vectors = sp.csr_matrix((data[last], (j[last], col[last])), shape=(len(judgment_keys), n_labels))
        else:
            vectors = sp.csr_matrix((coo.data, (j, coo.col)), shape=(len(judgment_keys), n_labels))
    else:
        vectors = per_row[np.argsort(row_judgment)]
    vectors = sp.csr_matrix(vectors)
    vectors.sum_duplicates()
    vectors.sort_indices()
    n_workers = len(worker_ids)
    return AnnotationTensor(
        unit_ids=unit_ids,
        worker_ids=worker_ids,
        labels=label_index,
        unit=(judgment_keys // n_workers).astype(np.int64),
        worker=(judgment_keys % n_workers).astype(np.int64),
        vectors=vectors,
        n_rows=n_rows,
        n_duplicate_rows=int(n_duplicate_rows),
    )
