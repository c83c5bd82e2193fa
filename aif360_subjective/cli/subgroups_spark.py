"""``aif360-subjective subgroups --engine spark``: subgroup discovery on a Parquet table, on a local Spark session.

The command starts a ``SparkSession`` on ``--master`` (default ``local[*]``; any master Spark takes is passed
through), reads the Parquet file or folder, and runs :func:`~aif360_subjective.detectors.detect_subgroups` on the
Spark DataFrame with ``discovery="patterns"`` (docs/guide/spark.rst). The options the Spark path cannot honour are
refused by name; the findings are printed as a table.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import _common as common
from ._common import CLIError

#: Options of ``subgroups`` that the Spark engine does not take, and why (refused when given).
REFUSED = {
    "groups": "clustered rows are permuted as whole clusters in memory only",
    "out": "the HTML report reads the rows in memory; print the findings, or run without --engine spark",
    "clustering": "the clustering runs in memory (--discovery patterns only)",
    "n_clusters": "the clustering runs in memory (--discovery patterns only)",
    "entropy_threshold": "the entropy patterns need the clustering, which runs in memory",
    "predictions": "the predictions are a column of the Parquet table (--prediction-col)",
    "model": "the predictions are a column of the Parquet table (--prediction-col)",
    "format": "--engine spark reads Parquet",
}


def add_engine_options(parser: argparse.ArgumentParser) -> None:
    """``--engine`` and ``--master``."""
    g = parser.add_argument_group("engine")
    g.add_argument("--engine", choices=["pandas", "spark"], default="pandas",
                   help="pandas (default): the table in memory; spark: DATA is a Parquet file or folder analysed "
                        "on a local Spark session (pattern discovery; needs the [spark] extra and Java 17)")
    g.add_argument("--master", metavar="URL", default=None,
                   help="with --engine spark: the Spark master, passed through (default: local[*])")


@dataclass(frozen=True)
class SparkSpec:
    """The options of ``subgroups --engine spark``, typed and checked (built by :meth:`from_namespace`).

    Attributes:
        data: the Parquet file or folder.
        master: the Spark master (None: ``local[*]``).
        label_col, prediction_col: the label and prediction columns of the table.
        columns, exclude, categorical: the attribute columns, those left out, those taken as categories.
        favorable_label: the favourable label as given (None: 1).
        seed: the permutations' seed.
        alpha, top: the findings printed.
        progress: ``--progress`` / ``--no-progress`` (None: bars when stderr is a terminal).
    """

    data: str
    master: str | None
    label_col: str
    prediction_col: str
    columns: tuple[str, ...] | None = None
    exclude: tuple[str, ...] | None = None
    categorical: tuple[str, ...] | None = None
    favorable_label: str | None = None
    seed: int | None = None
    alpha: float | None = 0.05
    top: int = 5
    progress: bool | None = None

    @classmethod
    def from_namespace(cls, args: argparse.Namespace) -> SparkSpec:
        """The command's boundary: the namespace as a spec, once every option Spark cannot honour is refused."""
        for name, why in REFUSED.items():
            if getattr(args, name, None) is not None:
                raise CLIError(f"--{name.replace('_', '-')} is not available with --engine spark: {why}")
        # the command's default discovery ("both") means the patterns here; "asdf" asks for the clustering alone
        if getattr(args, "discovery", None) == "asdf":
            raise CLIError("--discovery asdf is not available with --engine spark: the clustering runs in memory; "
                           "--engine spark runs --discovery patterns")
        from ..detectors.tasks import names_label_task  # not at import: --help stays free of the analysis stack

        task = getattr(args, "task", None)
        if task is not None and names_label_task(task):
            raise CLIError(f"--task {task} is not available with --engine spark: binary decisions only")
        for name in ("label_col", "prediction_col"):
            if getattr(args, name, None) is None:
                raise CLIError(f"--engine spark needs --{name.replace('_', '-')} (a column of the Parquet table)")

        def names(value: Any) -> tuple[str, ...] | None:
            return None if value is None else tuple(value)

        return cls(data=args.data, master=args.master, label_col=args.label_col, prediction_col=args.prediction_col,
                   columns=names(args.columns), exclude=names(args.exclude), categorical=names(args.categorical),
                   favorable_label=args.favorable_label, seed=args.seed, alpha=args.alpha, top=args.top,
                   progress=getattr(args, "progress", None))


def _favourable(value: str | None) -> Any:
    if value is None:
        return 1
    try:
        number = float(value)
    except ValueError as err:
        raise CLIError(f"--favorable-label {value!r}: with --engine spark the labels are numbers or booleans") from err
    return int(number) if number.is_integer() else number


def run_spark(spec: SparkSpec) -> int:
    """Run the Spark subgroup discovery ``spec`` describes; print the findings."""
    path = Path(spec.data)
    if not path.exists():
        raise CLIError(f"{spec.data}: no such file or folder")
    if path.is_file() and path.suffix.lower() != ".parquet":
        raise CLIError(f"{spec.data}: --engine spark reads a Parquet file or folder (got {path.suffix or 'no suffix'})")
    (local_session,) = common.require("_spark", "local_session")
    (detect_subgroups,) = common.require("detectors", "detect_subgroups")
    try:
        spark = local_session(spec.master or "local[*]")
    except RuntimeError as err:  # no Java: the message names the install command
        raise CLIError(str(err)) from err
    sdf = spark.read.parquet(str(path))
    label, pred = spec.label_col, spec.prediction_col
    missing = [c for c in [label, pred, *(spec.columns or []), *(spec.exclude or [])] if c not in sdf.columns]
    if missing:
        raise CLIError(f"{spec.data}: no column(s) {missing} (columns: {sdf.columns[:20]})")
    keep = list(spec.columns) if spec.columns else [c for c in sdf.columns if c not in {label, pred}]
    keep = [c for c in keep if c not in set(spec.exclude or []) | {label, pred}]
    sdf = sdf.select(*keep, label, pred)
    asked = spec.progress
    with common.steps(["subgroup discovery"], asked) as step:
        step("subgroup discovery")
        rep = detect_subgroups(sdf, label, pred, discovery="patterns", pos_label=_favourable(spec.favorable_label),
                               categorical_features=None if spec.categorical is None else list(spec.categorical),
                               random_state=spec.seed, progress=common.progress_enabled(asked))
    n = rep.candidates.n_rows
    print(f"{common.count(n, 'row')}, {common.count(len(keep), 'attribute')} (Spark, {spec.master or 'local[*]'}, "
          f"{sdf.rdd.getNumPartitions()} partitions); favourable label: {_favourable(spec.favorable_label)!r}.")
    found = rep.findings()
    if spec.alpha is not None:
        found = found[found["p_adjusted"] < spec.alpha]
    if len(found):
        common.print_frame(found.head(spec.top), f"Subgroups served worse (family-wise error {spec.alpha}), top "
                                                 f"{spec.top}:")
    else:
        print("No subgroup is significantly served worse.")
    return 0
