"""``aif360-subjective crowdtruth``: CrowdTruth 2.0 quality scores."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from . import _common as common
from ._common import CLIError

if TYPE_CHECKING:
    import pandas as pd

#: The command: its name, help and memory hint (this command has no option that trades memory for precision).
COMMAND = common.Command(
    "crowdtruth", help="CrowdTruth 2.0 unit, worker and annotation quality scores",
    description="Compute CrowdTruth 2.0 quality scores and write units.csv, workers.csv and annotations.csv.",
    memory_hint="try a smaller input (fewer units or workers per file)")


@dataclass(frozen=True)
class CrowdTruthSpec(common.CommandSpec):
    """The options of ``crowdtruth``, typed.

    Attributes:
        annotations: the judgments file.
        unit_col, worker_col, label_col: its columns.
        separator: splits a label cell into several labels (multiple choice).
        sep: the file's field separator (None: detected).
        open_ended: an open-ended task.
        out: the output folder.
    """

    annotations: str
    unit_col: str
    worker_col: str
    label_col: str
    separator: str | None = None
    sep: str | None = None
    open_ended: bool = False
    out: str = "crowdtruth_scores"

#: A label column with at least this many distinct answers is probably not a label column.
MANY_LABELS = 100


def _distinct_labels(labels: pd.Series, separator: str | None) -> int:
    if separator:
        labels = labels.astype(str).str.split(separator, regex=False).explode().str.strip()
    return int(labels.nunique())


def run(args: argparse.Namespace) -> int:
    """The command's boundary: the parsed namespace becomes a :class:`CrowdTruthSpec`."""
    return crowdtruth(CrowdTruthSpec.from_namespace(args))


def crowdtruth(spec: CrowdTruthSpec) -> int:
    """Compute the scores the spec describes; write the three files and print the lowest worker scores."""
    df = common.read_csv(spec.annotations, "annotations", sep=spec.sep, ids=[spec.unit_col, spec.worker_col])
    common.check_columns(df, {"--unit-col": spec.unit_col, "--worker-col": spec.worker_col,
                        "--label-col": spec.label_col}, spec.annotations)
    common.check_not_missing(df, {"--unit-col": spec.unit_col, "--worker-col": spec.worker_col}, spec.annotations,
                             "id")
    df = df[[spec.unit_col, spec.worker_col, spec.label_col]]
    if df[spec.label_col].isna().any():
        row = int(df[spec.label_col].isna().to_numpy().argmax())
        raise CLIError(f"--label-col {spec.label_col!r} is empty at row {row}")
    n_values = _distinct_labels(df[spec.label_col], spec.separator)
    if n_values >= MANY_LABELS and not spec.open_ended:
        # every distinct value is an answer option of its own: hundreds of them mean an id or text column
        print(common.console_text(f"{common.PROG} crowdtruth: warning: --label-col {spec.label_col!r} holds "
                                  f"{n_values:,} distinct values, each scored as a separate answer option; is it the "
                                  "label column? (--open-ended for free-text answers)"), file=sys.stderr)
    if spec.separator:
        df = df.assign(**{spec.label_col: df[spec.label_col].astype(str).str.split(spec.separator)
                          .map(lambda xs: [x.strip() for x in xs if x.strip()])})
    out = Path(spec.out)
    if out.exists() and not out.is_dir():
        raise CLIError(f"--out {spec.out!r} exists and is not a folder")
    (crowdtruth_scores,) = common.require("quality", "crowdtruth_scores")
    res = crowdtruth_scores(df, unit_col=spec.unit_col, worker_col=spec.worker_col, label_col=spec.label_col,
                            open_ended=spec.open_ended, progress=common.progress_enabled())
    from .._io import write_csv_files

    # the three files as one set (none changed if one fails); text cells starting with =, +, -, @ are quoted
    paths = write_csv_files({out / f"{name}.csv": getattr(res, name) for name in ("units", "workers", "annotations")})
    print(f"CrowdTruth scores of {len(res.units):,} units, {len(res.workers):,} workers, "
          f"{len(res.annotations):,} labels ({res.n_iterations} iterations, "
          f"{'converged' if res.converged else 'NOT converged'}).")
    cols = [c for c in ("n_units", "wqs", "wwa", "wua") if c in res.workers.columns]
    common.print_frame(res.workers[cols].sort_values("wqs").head(10), "Lowest worker quality scores (wqs; wwa = "
                       "worker-worker agreement, wua = worker-unit agreement):")
    print("Wrote " + ", ".join(str(p) for p in paths))
    return 0


def add_arguments(ct: common.Parser) -> None:
    """Add the command's arguments and options to its parser ``ct``."""
    ct.add_argument("annotations", metavar="ANNOTATIONS.csv", help="one row per judgment")
    ct.add_argument("--unit-col", required=True, metavar="C", help="unit (item) id column")
    ct.add_argument("--worker-col", required=True, metavar="C", help="worker (annotator) id column")
    ct.add_argument("--label-col", required=True, metavar="C", help="label column")
    ct.add_argument("--separator", metavar="S",
                    help="split label cells on S for multiple-choice judgments (e.g. '|')")
    ct.add_argument("--sep", metavar="S", help="field separator of the file (default: detected from the header "
                    "line among comma, semicolon, tab and pipe; the one used is printed)")
    ct.add_argument("--open-ended", action="store_true", help="open-ended task (annotation quality held at 1)")
    ct.add_argument("--out", default="crowdtruth_scores", metavar="DIR",
                    help="output folder (default: %(default)s)")
