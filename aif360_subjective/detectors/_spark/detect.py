"""``detect_subgroups(discovery="patterns")`` on a Spark DataFrame: the Dask back end's analysis, run over the
DataFrame's partitions (:class:`~.parts.SparkParts`).

``X`` is a ``pyspark.sql.DataFrame``; ``y_true`` and ``y_pred`` name two of its columns (or are Spark Columns
of it, ``sdf["label"]``); the other columns are the features. The passes, the exact quantile edges, the
level-wise mining, the keyed max-T and the findings are those of :mod:`.._dask.detect` (one code for both
engines): the same rows in the same order give the same report as pandas with ``permutation="keyed"`` and as
Dask. The rows' positions, at which the keyed permutations are evaluated, are their order in the DataFrame
(that of ``sdf.toPandas()``), a row's own index in no global sequence: each partition knows the rows before it
from the first pass' counts.

What it refuses, by name, before any pass: the clustering (``discovery`` other than ``"patterns"``), tasks
other than binary decisions, ``groups``, ``sample_weight``, ``loss``, ``patterns_from`` and
``permutation="classical"`` (:func:`~.._dask.detect.check_dask_arguments`); a column that is not in ``X``; a
Spark DataFrame or Column of another DataFrame or session as a label; labels that are not numbers or booleans;
date, time or nested feature columns.

References:
    M. Zaharia et al., "Apache Spark: a unified engine for big data processing", Communications of the ACM
    59(11), 2016.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from ..._spark import check_workers, require_spark
from ..._spark.partitions import LABEL_COLUMNS, column
from .._dask.detect import analyse_parts, check_dask_arguments
from ..options import AnalysisOptions
from ..report import SubgroupReport
from .parts import SparkParts

__all__ = ["SparkInput", "detect_subgroups_spark", "spark_features"]


@dataclass(frozen=True)
class SparkInput:
    """A Spark analysis' input, resolved: the frame of the features and the two label columns (named
    :data:`~aif360_subjective._spark.partitions.LABEL_COLUMNS`), the features and their pandas dtypes."""

    frame: Any
    features: list[str]
    dtypes: pd.Series
    source: Any

    @property
    def features_frame(self) -> Any:
        """The Spark DataFrame of the features alone."""
        return self.source.select(*[column(c) for c in self.features])


def _label(X: Any, y: Any, name: str) -> tuple[Any, str | None]:
    """The Spark Column ``y`` names in ``X`` and the column's name when it is one of ``X``'s columns."""
    from pyspark.errors import AnalysisException
    from pyspark.sql import Column, DataFrame

    if isinstance(y, str):
        if y not in X.columns:
            raise ValueError(f"{name}={y!r} is not a column of the Spark DataFrame X (its columns: "
                             f"{list(X.columns)[:20]}{' ...' if len(X.columns) > 20 else ''})")
        return column(y), y
    if isinstance(y, DataFrame):
        if y.sparkSession is not X.sparkSession:
            raise ValueError(f"{name} is a Spark DataFrame of another SparkSession than X: the rows of two "
                             "sessions cannot be paired; pass the name of X's label column")
        raise ValueError(f"{name} is a separate Spark DataFrame: Spark DataFrames have no row order to pair them "
                         f"by; pass the name of X's column ({name}='label') or a Column of X (X['label'])")
    if isinstance(y, Column):
        try:
            schema = X.select(y).schema
        except AnalysisException as err:
            raise ValueError(f"{name} is a Spark Column that is not a column of X ({str(err).splitlines()[0]}): "
                             f"pass a column of X by name ({name}='label') or as X['label']") from err
        own = schema.fields[0].name
        return y, own if own in X.columns else None
    raise TypeError(f"with a Spark DataFrame X, {name} must name a column of X (a str) or be a Spark Column of X, "
                    f"got {type(y).__name__}")


def spark_features(X: Any, y_true: Any, y_pred: Any) -> SparkInput:
    """Resolve ``X``, ``y_true`` and ``y_pred`` of a Spark analysis (no pass over the data).

    Raises:
        TypeError: ``X`` not a Spark DataFrame; a label neither a column name nor a Spark Column; labels that
            are not numbers or booleans; nested feature columns.
        ValueError: a name not among ``X``'s columns; a label of another DataFrame or session; no feature
            column; duplicated names; date or time columns.
    """
    require_spark()
    from pyspark.sql import DataFrame
    from pyspark.sql import types as T

    if not isinstance(X, DataFrame):
        raise TypeError(f"X must be a Spark DataFrame when y_true or y_pred is one, got {type(X).__name__}; pass "
                        "the table as one Spark DataFrame and name its label columns (y_true='label')")
    (t, t_name), (p, p_name) = _label(X, y_true, "y_true"), _label(X, y_pred, "y_pred")
    frame = X.select(t.alias(LABEL_COLUMNS[0]), p.alias(LABEL_COLUMNS[1]))
    for name, field in zip(("y_true", "y_pred"), frame.schema.fields, strict=True):
        if not isinstance(field.dataType, T.NumericType | T.BooleanType):
            shown = {"y_true": t_name, "y_pred": p_name}[name]
            raise TypeError(f"{name} ({shown or 'the column'}) holds {field.dataType.simpleString()} values: expected "
                            "numeric (0/1, or two numbers with pos_label) or boolean predictions and labels; cast it "
                            f"first (X.withColumn({shown or 'name'!r}, X[{shown or 'name'!r}].cast('double')) for "
                            "numbers written as text)")
    if len(set(X.columns)) != len(X.columns):
        dup = sorted({c for c in X.columns if list(X.columns).count(c) > 1})
        raise ValueError(f"X has duplicated column names: {dup}")
    features = [c for c in X.columns if c not in {t_name, p_name}]
    if not features:
        raise ValueError("X has no feature columns besides y_true and y_pred")
    clash = [c for c in features if c in LABEL_COLUMNS]
    if clash:
        raise ValueError(f"X has a column named {clash[0]!r}, a name the Spark analysis reserves; rename it")
    types = {f.name: f.dataType for f in X.schema.fields}
    dated = [c for c in features if isinstance(types[c], T.DateType | T.TimestampType | T.TimestampNTZType
                                              | T.DayTimeIntervalType | T.YearMonthIntervalType)]
    if dated:
        raise ValueError(f"X column(s) {dated} hold dates or durations, which subgroup discovery cannot use as they "
                         "are: make each a number or a category, or leave it out")
    nested = [c for c in features if isinstance(types[c], T.ArrayType | T.MapType | T.StructType | T.BinaryType)]
    if nested:
        raise TypeError(f"X column(s) {nested} hold arrays, maps, structs or bytes; expected numbers, booleans or "
                        "text: flatten them or leave them out")
    selected = X.select(*[column(c) for c in features], t.alias(LABEL_COLUMNS[0]), p.alias(LABEL_COLUMNS[1]))
    dtypes = X.select(*[column(c) for c in features]).limit(0).toPandas().dtypes
    return SparkInput(frame=selected, features=features, dtypes=dtypes, source=X)


def detect_subgroups_spark(data: SparkInput, opts: AnalysisOptions, *, pos_label: Any = 1, labels: Any = None,
                           random_state: Any = None, task: str = "auto", groups: Any = None,
                           sample_weight: Any = None, loss: Any = None, patterns_from: Any = None,
                           design: str = "between", permutation: str = "auto") -> SubgroupReport:
    """:func:`~.detect.detect_subgroups` on a Spark DataFrame (see the module's docstring).

    Raises:
        ValueError: unsupported arguments (named), missing or infinite values, labels outside the pair.
        RuntimeError: executors whose Python cannot import this package or runs another version.
    """
    check_dask_arguments(discovery=opts.discovery, task=task, groups=groups, sample_weight=sample_weight, loss=loss,
                         patterns_from=patterns_from, permutation=permutation, design=design, engine="Spark")
    check_workers(data.frame.sparkSession)
    parts = SparkParts(data.frame, data.features, data.dtypes)
    report = analyse_parts(parts, opts, pos_label=pos_label, labels=labels, random_state=random_state, task=task)
    return report
