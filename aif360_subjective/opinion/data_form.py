"""The ``data=`` form of the opinion faces: the four inputs named as columns of one table.

``opinion_exclusion("label", "pred", item_ids="item", annotator_ids="annotator", data=table)`` reads the columns
of ``table``: a pandas DataFrame or a Dask DataFrame gives its columns as Series (the in-memory and Dask paths as
if the Series were passed), a Spark DataFrame goes to the Spark back end (:mod:`._spark`). Every name is checked
here, with one message for every kind of table. A face without a distributed back end (``excluded_groups``) reads
the four columns into memory instead (:func:`collected_columns`).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from .._dask import is_dask_collection
from .._spark import is_spark_column, is_spark_dataframe
from .._validation import plain

__all__ = ["INPUTS", "check_column_names", "collected_columns", "data_columns"]

#: The four inputs the ``data=`` form names, in their order.
INPUTS = ("y_true", "y_pred", "item_ids", "annotator_ids")


def check_column_names(columns: list[Any], given: dict[str, Any], what: str) -> None:
    """Every value of ``given`` (argument name -> value) must name one of ``columns`` (of the table ``what``).

    Raises:
        TypeError: a value that is not a column name (a str).
        ValueError: a name not among the columns (the columns are listed).
    """
    shown = [plain(c) for c in columns[:20]] + (["..."] if len(columns) > 20 else [])
    for name, value in given.items():
        if not isinstance(value, str):
            raise TypeError(f"with data={what}, {name} must name a column of it (a str), got "
                            f"{type(value).__name__}{'' if value is None else ' ' + repr(value)[:60]}")
        if value not in columns:
            raise ValueError(f"{name}={value!r} is not a column of data (its columns: {shown})")


def data_columns(data: Any, y_true: Any, y_pred: Any, item_ids: Any, annotator_ids: Any) -> tuple[Any, ...]:
    """The four inputs of a face: with ``data`` (a pandas or Dask DataFrame) its named columns, without it the
    inputs themselves. A Spark DataFrame is the Spark back end's (the caller's to route); a Spark DataFrame or
    Column among the inputs without ``data`` is refused with the form to use.

    Raises:
        TypeError: ``data`` of another kind; an input that is not a column name; a Spark input without ``data``.
        ValueError: a name that is not a column of ``data``.
    """
    given = dict(zip(INPUTS, (y_true, y_pred, item_ids, annotator_ids), strict=True))
    if data is None:
        for name, value in given.items():
            if is_spark_dataframe(value) or is_spark_column(value):
                raise TypeError(f"{name} is a Spark {'Column' if is_spark_column(value) else 'DataFrame'}: pass the "
                                "Spark DataFrame of the annotations as data= and name its columns, e.g. "
                                "opinion_exclusion('label', 'pred', item_ids='item', annotator_ids='annotator', "
                                "data=sdf)")
        return y_true, y_pred, item_ids, annotator_ids
    # a statement, not a conditional expression: the AIF360 patch series keeps the else branch of a Dask test
    if is_dask_collection(data):  # noqa: SIM108
        is_frame = hasattr(data, "columns")  # a Dask DataFrame, not a Series
    else:
        is_frame = isinstance(data, pd.DataFrame)
    if not is_frame:
        raise TypeError(f"data must be a pandas, Dask or Spark DataFrame of the annotations, got "
                        f"{type(data).__name__}")
    check_column_names(list(data.columns), given, type(data).__name__)
    return tuple(data[given[n]] for n in INPUTS)


def collected_columns(data: Any, y_true: Any, y_pred: Any, item_ids: Any, annotator_ids: Any) -> tuple[Any, ...]:
    """:func:`data_columns` for a face that computes in memory: the four named columns of a Spark or Dask
    DataFrame brought to the driver as pandas Series (those four columns only, in the table's row order:
    ``toPandas()``, ``compute()``); a pandas DataFrame's columns as they are.

    Raises:
        TypeError, ValueError: as :func:`data_columns`.
    """
    if is_spark_dataframe(data):
        from .._spark.partitions import column

        given = dict(zip(INPUTS, (y_true, y_pred, item_ids, annotator_ids), strict=True))
        check_column_names(list(data.columns), given, "a Spark DataFrame")
        frame = data.select(*[column(given[n]).alias(n) for n in INPUTS]).toPandas()
        return tuple(frame[n].rename(given[n]) for n in INPUTS)
    columns = data_columns(data, y_true, y_pred, item_ids, annotator_ids)
    if is_dask_collection(*columns):
        import dask

        return tuple(dask.compute(*columns))
    return columns
