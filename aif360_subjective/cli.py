"""The ``aif360-subjective`` command: demo, opinion-exclusion audit, subgroup discovery, CrowdTruth scores.

Run ``aif360-subjective COMMAND --help`` for the options of each command. Errors in the input (missing
files or columns, bad values) print one line to stderr and exit with status 2.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

PROG = "aif360-subjective"
EXIT_USAGE = 2


class CLIError(Exception):
    """An input problem reported to the user as one line (exit status 2)."""


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one line (the full usage is in ``--help``)."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


# ----------------------------------------------------------------------------------------------- helpers
def _progress_enabled() -> bool:
    return sys.stderr.isatty() and not os.environ.get("AIF360_SUBJECTIVE_NO_PROGRESS")


@contextmanager
def _steps(names: Sequence[str]):
    """A tqdm bar over named steps (stderr; off when stderr is not a terminal). Yields ``step(name)``."""
    from tqdm.auto import tqdm

    bar = tqdm(total=len(names), file=sys.stderr, disable=not _progress_enabled(), unit="step",
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


def _require(module: str, *names: str) -> list[Any]:
    """Import names from a package module, or a one-line error saying which piece is missing."""
    import importlib

    try:
        mod = importlib.import_module(f"aif360_subjective.{module}")
        return [getattr(mod, n) for n in names]
    except (ImportError, AttributeError) as exc:
        raise CLIError(f"this installation lacks aif360_subjective.{module}.{'/'.join(names)} ({exc}); "
                       "update aif360-subjective") from exc


def _read_csv(path: str, what: str):
    import pandas as pd

    p = Path(path)
    if not p.is_file():
        raise CLIError(f"{what} file not found: {path}")
    sep = "\t" if p.suffix.lower() in (".tsv", ".tab") else ","
    try:
        return pd.read_csv(p, sep=sep)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise CLIError(f"cannot read {what} file {path}: {_one_line(str(exc))}") from exc


def _check_columns(df, columns: dict[str, str | None], path: str) -> None:
    for option, col in columns.items():
        if col is not None and col not in df.columns:
            shown = ", ".join(map(str, list(df.columns)[:12])) + (", ..." if df.shape[1] > 12 else "")
            raise CLIError(f"{option} {col!r} is not a column of {path} (columns: {shown})")


def _coerce_label(value: str | None, series, option: str):
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


def _index_table(df, path: str, index_col: str | None, default: str):
    """A side table (annotators/items) indexed by its id column."""
    col = index_col or (default if default in df.columns else df.columns[0])
    _check_columns(df, {"id column": col}, path)
    if df[col].duplicated().any():
        dup = df.loc[df[col].duplicated(), col].iloc[0]
        raise CLIError(f"{path}: id column {col!r} repeats the id {dup!r}")
    return df.set_index(col)


def _bins(text: str):
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


def _positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return v


def _unit_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {text!r}") from None
    if not 0.0 <= v <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {text!r}")
    return v


def _open_unit_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number strictly between 0 and 1, got {text!r}") from None
    if not 0.0 < v < 1.0:
        raise argparse.ArgumentTypeError(f"expected a number strictly between 0 and 1, got {text!r}")
    return v


def _alpha(text: str) -> float | None:
    if text.strip().lower() == "none":
        return None
    return _open_unit_float(text)


def _significance_line(rk, metric_name: str, what: str) -> str:
    """One console sentence about the first entry of a significance-filtered ranking (or why there is none)."""
    a = rk.attrs
    if len(rk):
        row = rk.iloc[0]
        metric = rk.columns[1]
        return (f"Most disadvantaged {what}: {row['subgroup']} ({int(row['size']):,} rows; {metric_name} "
                f"{row[metric]:+.3f}, {a['ci']:.0%} CI [{row[metric + '_ci_low']:+.3f}, "
                f"{row[metric + '_ci_high']:+.3f}], q = {row[metric + '_q']:.2g}).")
    return (f"No {what} is significantly disadvantaged by {metric_name} at q < {a['alpha']:g} "
            f"({a['n_not_significant']} tested, {a['n_undefined']} undefined, {a['n_too_small']} too small).")


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _print_frame(df, title: str | None = None, digits: int = 3) -> None:
    import pandas as pd

    if title:
        print(title)
    with pd.option_context("display.width", 120, "display.max_columns", 20, "display.max_colwidth", 60,
                           "display.float_format", f"{{:.{digits}f}}".format):
        print(df.to_string())
    print()


def _save_report(report, out: str | Path, figures_dir: Path | None = None) -> Path:
    out = Path(out)
    if out.parent and not out.parent.exists():
        raise CLIError(f"output folder does not exist: {out.parent}")
    path = report.save(out)
    if figures_dir is not None:
        figures_dir.mkdir(parents=True, exist_ok=True)
        for i, fig in enumerate(report.figures(), start=1):
            (figures_dir / f"figure_{i:02d}.png").write_bytes(fig.png_bytes)
    return path


def _matplotlib_agg() -> None:
    # The command only writes files: never open a window.
    import matplotlib

    matplotlib.use("Agg")


# ----------------------------------------------------------------------------------------------- demo
def _annotator_frame(ds):
    """Annotator demographics per annotation row, as strings ("unknown" where missing)."""
    import numpy as np

    attrs = [c for c in ds.protected_attribute_names if c in ds.annotators.columns]
    table = ds.annotators.reindex(ds.annotator_ids)[attrs].astype(object)
    table = table.where(table.notna(), "unknown").astype(str)
    table.index = np.arange(len(table))
    return table


def _demo(args: argparse.Namespace) -> int:
    _matplotlib_agg()

    from .datasets import make_subjective_dataset
    from .report import Report
    from .report.sections import crowdtruth_sections, opinion_sections, subgroup_sections

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise CLIError(f"--out {args.out!r} exists and is not a folder")
    (CrowdTruthFilter,) = _require("algorithms.preprocessing", "CrowdTruthFilter")
    AnnotatorAwareClassifier, MajorityVoteClassifier = _require(
        "algorithms.inprocessing", "AnnotatorAwareClassifier", "MajorityVoteClassifier"
    )
    (OpinionExclusionMetric,) = _require("metrics", "OpinionExclusionMetric")
    (detect_subgroups,) = _require("detectors", "detect_subgroups")

    out.mkdir(parents=True, exist_ok=True)
    seed = args.seed
    names = ["generating annotations", "CrowdTruth filtering", "training Model 1 (majority vote)",
             "training Model 2 (annotator-aware)", "opinion-exclusion unfairness", "subgroup discovery",
             "writing the report"]
    with _steps(names) as step:
        step(names[0])
        ds = make_subjective_dataset(n_items=args.n_items, random_state=seed)
        step(names[1])
        ct = CrowdTruthFilter().fit(ds)
        clean = ct.transform(ds)
        train, test = clean.split([0.7], shuffle=True, seed=seed)
        step(names[2])
        pred1 = MajorityVoteClassifier(random_state=seed).fit(train).predict(test)
        step(names[3])
        pred2 = AnnotatorAwareClassifier().fit(train).predict(test)
        step(names[4])
        models = {
            "Model 1 (majority vote)": OpinionExclusionMetric(test, pred1),
            "Model 2 (annotator-aware)": OpinionExclusionMetric(test, pred2),
        }
        step(names[5])
        fav = test.favorable_label
        subgroups = detect_subgroups(_annotator_frame(test), (test.labels.ravel() == fav).astype(int),
                                     (pred1.labels.ravel() == fav).astype(int), pos_label=1, random_state=seed)
        step(names[6])
        from .report.sections import opinion_summary_table

        table = opinion_summary_table(models)[["unfairness", "performance"]]
        removed = ct.removed_annotators_
        kinds = ds.annotators["kind"]
        removed_kinds = kinds.reindex(removed.index).value_counts()
        report = Report(
            "aif360-subjective demo: opinion exclusion and subgroup fairness",
            summary=[
                f"Generated data: {len(ds.labels):,} annotations of {ds.n_items:,} items by {ds.n_annotators} "
                f"annotators ({', '.join(f'{v} {k}' for k, v in kinds.value_counts().items())}). The ground "
                "truth is known: minority annotators consistently read the contested items differently; "
                "spammers label at random.",
                "A majority-vote model (Model 1) and an annotator-aware model (Model 2) were trained on 70% of "
                "the items and audited on the other 30%.",
            ],
        )
        report.add_facts({f"unfairness, {k}": v for k, v in table["unfairness"].items()})
        report.fact("annotators removed by CrowdTruth", len(removed))
        report.extend(opinion_sections(models))
        report.extend(crowdtruth_sections(ct, annotator_info=ds.annotators))
        report.extend(subgroup_sections(subgroups))
        path = _save_report(report, out / "report.html", figures_dir=out)

    print(f"Generated {len(ds.labels):,} annotations of {ds.n_items:,} items by {ds.n_annotators} annotators.")
    print(f"CrowdTruth filter removed {len(removed)} annotators"
          + (f" ({', '.join(f'{v} {k}' for k, v in removed_kinds.items())})." if len(removed) else "."))
    print()
    _print_frame(table, "Opinion-exclusion audit on the test items (performance = accuracy):")
    top = subgroups.ranking("statistical_parity", kind="entropy", n=1)
    print(_significance_line(top, "statistical parity", "subgroup under Model 1"))
    print(f"Report: {path}")
    return 0


# ----------------------------------------------------------------------------------------------- audit
def _audit(args: argparse.Namespace) -> int:
    _matplotlib_agg()
    from .datasets import MultiAnnotatorDataset

    df = _read_csv(args.annotations, "annotations")
    cols = {"--item-col": args.item_col, "--annotator-col": args.annotator_col, "--label-col": args.label_col,
            "--prediction-col": args.prediction_col}
    _check_columns(df, cols, args.annotations)
    annotators = items = None
    if args.annotators:
        annotators = _index_table(_read_csv(args.annotators, "annotators"), args.annotators, args.annotators_id_col,
                                  args.annotator_col)
    if args.items:
        items = _index_table(_read_csv(args.items, "items"), args.items, args.items_id_col, args.item_col)
    label = df[args.label_col]
    fav = _coerce_label(args.favorable_label, label, "--favorable-label")
    values = sorted(label.dropna().unique().tolist(), key=str)
    if len(values) != 2 and fav is None:
        raise CLIError(f"--label-col {args.label_col!r} holds {len(values)} values {values[:5]}; binary labels "
                       "are needed")
    if fav is None:
        fav = 1 if set(values) == {0, 1} else values[0]
    if fav not in values:
        raise CLIError(f"--favorable-label {fav!r} is not a value of {args.label_col!r} (values: {values[:5]})")
    unfav = next((v for v in values if v != fav), None)
    keep = [args.item_col, args.annotator_col, args.label_col]
    (OpinionExclusionMetric,) = _require("metrics", "OpinionExclusionMetric")
    with _steps(["reading annotations", "opinion-exclusion audit", "writing the report"]) as step:
        step("reading annotations")
        ds = MultiAnnotatorDataset(df[keep], item_col=args.item_col, annotator_col=args.annotator_col,
                                   label_col=args.label_col, annotators=annotators, items=items,
                                   favorable_label=fav, unfavorable_label=unfav)
        pred_values = df[args.prediction_col]
        bad = ~pred_values.isin(values)
        if bad.any():
            raise CLIError(f"--prediction-col {args.prediction_col!r} holds {pred_values[bad].tolist()[0]!r} at row "
                           f"{int(bad.to_numpy().argmax())}; expected one of the label values {values}")
        classified = ds.with_predictions(pred_values.to_numpy())
        step("opinion-exclusion audit")
        metric = OpinionExclusionMetric(ds, classified, grouping=args.grouping, bins=_bins(args.bins),
                                        performance=args.performance)
        from .report.sections import opinion_summary_table

        summary = opinion_summary_table({args.prediction_col: metric})
        groups = metric.group_performance()
        step("writing the report")
        path = None
        if args.out:
            from .report import Report
            from .report.sections import opinion_sections

            report = Report(f"Opinion-exclusion audit of {Path(args.annotations).name}",
                            summary=[f"{len(ds.labels):,} annotations of {ds.n_items:,} items by "
                                     f"{ds.n_annotators:,} annotators; predictions from column "
                                     f"{args.prediction_col!r}."])
            report.fact("unfairness", metric.unfairness()).fact(f"performance ({args.performance})",
                                                                 metric.performance())
            report.extend(opinion_sections({args.prediction_col: metric}))
            path = _save_report(report, args.out)
    _print_frame(summary[["unfairness", "performance"]], f"Opinion-exclusion audit ({args.performance}, "
                 f"grouping {args.grouping}):")
    _print_frame(groups, "Groups:")
    if path:
        print(f"Report: {path}")
    return 0


# ----------------------------------------------------------------------------------------------- subgroups
def _subgroups(args: argparse.Namespace) -> int:
    _matplotlib_agg()
    df = _read_csv(args.data, "data")
    _check_columns(df, {"--label-col": args.label_col, "--prediction-col": args.prediction_col}, args.data)
    features = args.columns or [c for c in df.columns if c not in (args.label_col, args.prediction_col)]
    for c in features:
        _check_columns(df, {"--columns": c}, args.data)
    for c in args.categorical or []:
        if c not in features:
            raise CLIError(f"--categorical {c!r} is not one of the feature columns of {args.data}")
    for c in args.exclude or []:
        _check_columns(df, {"--exclude": c}, args.data)
    features = [c for c in features if c not in (args.exclude or [])]
    if not features:
        raise CLIError("no feature columns left to cluster on")
    y_true, y_pred = df[args.label_col], df[args.prediction_col]
    fav = _coerce_label(args.favorable_label, y_true, "--favorable-label")
    if fav is None:
        fav = 1
    values = set(y_true.dropna().unique().tolist())
    if fav not in values:
        raise CLIError(f"--favorable-label {fav!r} is not a value of {args.label_col!r} "
                       f"(values: {sorted(values, key=str)[:5]})")
    X = df[features]
    if X.isna().any().any():
        bad = X.columns[X.isna().any()].tolist()
        raise CLIError(f"feature columns {bad} have missing values; fill or --exclude them")
    (detect_subgroups,) = _require("detectors", "detect_subgroups")
    with _steps(["subgroup discovery", "writing the report"]) as step:
        step("subgroup discovery")
        rep = detect_subgroups(X, (y_true == fav).to_numpy(dtype=int), (y_pred == fav).to_numpy(dtype=int),
                               pos_label=1,
                               clustering=args.clustering, n_clusters=args.n_clusters,
                               entropy_threshold=args.entropy_threshold,
                               categorical_features=args.categorical, random_state=args.seed)
        step("writing the report")
        path = None
        if args.out:
            from .report import Report
            from .report.sections import subgroup_sections

            report = Report(f"Subgroup fairness of {Path(args.data).name}",
                            summary=[f"{len(df):,} rows, {len(features)} attributes; truth {args.label_col!r}, "
                                     f"predictions {args.prediction_col!r}, favourable label {fav!r}."])
            report.fact("clusters", rep.n_clusters if hasattr(rep, "n_clusters") else "")
            report.extend(subgroup_sections(rep, n=args.top, alpha=args.alpha, min_size=args.min_size,
                                            ci=args.ci))
            path = _save_report(report, args.out)
    _print_frame(rep.summary(), "Summary (means of absolute values; positive = subgroup disadvantaged):")
    rk = rep.ranking("statistical_parity", kind="entropy", n=args.top, alpha=args.alpha, min_size=args.min_size,
                     ci=args.ci)
    if args.alpha is None:
        _print_frame(rk, f"Top {args.top} entropy-based subgroups by statistical parity (rest minus subgroup; "
                         "raw values, no significance filter):")
    elif len(rk):
        _print_frame(rk, f"Entropy-based subgroups significantly disadvantaged by statistical parity (q < "
                         f"{args.alpha:g}; rest minus subgroup), top {args.top}:")
    else:
        print(_significance_line(rk, "statistical parity", "entropy-based subgroup"))
    if path:
        print(f"Report: {path}")
    return 0


# ----------------------------------------------------------------------------------------------- crowdtruth
def _crowdtruth(args: argparse.Namespace) -> int:
    df = _read_csv(args.annotations, "annotations")
    _check_columns(df, {"--unit-col": args.unit_col, "--worker-col": args.worker_col,
                        "--label-col": args.label_col}, args.annotations)
    df = df[[args.unit_col, args.worker_col, args.label_col]]
    if df[args.label_col].isna().any():
        row = int(df[args.label_col].isna().to_numpy().argmax())
        raise CLIError(f"--label-col {args.label_col!r} is empty at row {row}")
    if args.separator:
        df = df.assign(**{args.label_col: df[args.label_col].astype(str).str.split(args.separator)
                          .map(lambda xs: [x.strip() for x in xs if x.strip()])})
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise CLIError(f"--out {args.out!r} exists and is not a folder")
    (crowdtruth_scores,) = _require("quality", "crowdtruth_scores")
    res = crowdtruth_scores(df, unit_col=args.unit_col, worker_col=args.worker_col, label_col=args.label_col,
                            open_ended=args.open_ended, progress=_progress_enabled())
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name in ("units", "workers", "annotations"):
        p = out / f"{name}.csv"
        getattr(res, name).to_csv(p)
        paths.append(p)
    print(f"CrowdTruth scores of {len(res.units):,} units, {len(res.workers):,} workers, "
          f"{len(res.annotations):,} labels ({res.n_iterations} iterations, "
          f"{'converged' if res.converged else 'NOT converged'}).")
    cols = [c for c in ("n_units", "wqs", "wwa", "wua") if c in res.workers.columns]
    _print_frame(res.workers[cols].sort_values("wqs").head(10), "Lowest worker quality scores:")
    print("Wrote " + ", ".join(str(p) for p in paths))
    return 0


# ----------------------------------------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the command line."""
    parser = _Parser(prog=PROG, description=__doc__.split("\n\n")[0],
                     formatter_class=argparse.RawDescriptionHelpFormatter,
                     epilog="Examples:\n  aif360-subjective demo --out demo\n"
                            "  aif360-subjective audit ann.csv --item-col item --annotator-col annotator "
                            "--label-col label --prediction-col pred --out audit.html")
    from . import __version__

    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)

    demo = sub.add_parser("demo", help="run the main job on generated data and write an HTML report",
                          description="Generate multi-annotator data, filter spammers with CrowdTruth, train a "
                                      "majority-vote and an annotator-aware model, measure their opinion-exclusion "
                                      "unfairness, discover disadvantaged subgroups, write DIR/report.html and the "
                                      "figures as PNG files.")
    demo.add_argument("--out", default="aif360_subjective_demo", metavar="DIR",
                      help="output folder (default: %(default)s)")
    demo.add_argument("--seed", type=int, default=0, help="seed of the generated data and models (default: 0)")
    demo.add_argument("--n-items", type=_positive_int, default=2000, help="items to generate (default: 2000)")
    demo.set_defaults(func=_demo)

    audit = sub.add_parser("audit", help="opinion-exclusion audit of given predictions",
                           description="Measure how unequally predictions serve the opinions of different "
                                       "annotators (Balayn et al. 2019): annotators grouped by their disagreement "
                                       "rate with the majority, the model's performance per group, unfairness = "
                                       "standard deviation across groups.")
    audit.add_argument("annotations", metavar="ANNOTATIONS.csv",
                       help="one row per annotation: item id, annotator id, label, prediction")
    audit.add_argument("--item-col", required=True, metavar="C", help="item id column")
    audit.add_argument("--annotator-col", required=True, metavar="C", help="annotator id column")
    audit.add_argument("--label-col", required=True, metavar="C", help="the annotator's label")
    audit.add_argument("--prediction-col", required=True, metavar="C", help="the model's prediction for the row")
    audit.add_argument("--favorable-label", metavar="V", help="the favourable label (default: 1 for 0/1 labels)")
    audit.add_argument("--annotators", metavar="CSV", help="annotator table (demographics), one row per annotator")
    audit.add_argument("--annotators-id-col", metavar="C", help="id column of --annotators (default: the "
                       "--annotator-col name, else the first column)")
    audit.add_argument("--items", metavar="CSV", help="item table (text, features), one row per item")
    audit.add_argument("--items-id-col", metavar="C", help="id column of --items (default: the --item-col name, "
                       "else the first column)")
    audit.add_argument("--grouping", default="adr", choices=["adr", "ambiguity", "popularity", "demographic"],
                       help="how annotators (or annotations) are grouped (default: adr)")
    audit.add_argument("--bins", default="5", metavar="B",
                       help="groups: an int (equal-width bins), 'quantile:N' or edges '0,0.2,0.5,1' (default: 5)")
    audit.add_argument("--performance", default="accuracy",
                       choices=["accuracy", "balanced_accuracy", "true_positive_rate", "true_negative_rate",
                                "false_positive_rate", "false_negative_rate", "precision", "f1"],
                       help="performance measure per annotator (default: accuracy)")
    audit.add_argument("--out", metavar="report.html", help="write an HTML report")
    audit.set_defaults(func=_audit)

    sg = sub.add_parser("subgroups", help="automated subgroup discovery (ASDF) on a table with truth and "
                                          "predictions",
                        description="Cluster the rows, derive cluster- and entropy-based subgroups and measure "
                                    "statistical parity, equal opportunity, equalized odds and accuracy of each "
                                    "against the rest (rest minus subgroup: positive = subgroup disadvantaged).")
    sg.add_argument("data", metavar="DATA.csv", help="one row per instance: attributes, truth, prediction")
    sg.add_argument("--label-col", required=True, metavar="C", help="ground-truth label column")
    sg.add_argument("--prediction-col", required=True, metavar="C", help="predicted label column")
    sg.add_argument("--favorable-label", metavar="V", help="the favourable label (default: 1)")
    sg.add_argument("--entropy-threshold", type=_unit_float, default=0.65, metavar="T",
                    help="dominant attributes have normalised entropy below T (default: 0.65)")
    sg.add_argument("--n-clusters", type=_positive_int, default=None, metavar="K",
                    help="number of clusters (default: automatic, x-means)")
    sg.add_argument("--clustering", default="slink",
                    choices=["slink", "kmeans", "xmeans", "dbscan", "optics", "birch", "ward"],
                    help="clustering method (default: slink)")
    sg.add_argument("--categorical", nargs="+", metavar="C",
                    help="categorical columns (default: detected from the values)")
    sg.add_argument("--columns", nargs="+", metavar="C", help="attribute columns to use (default: all others)")
    sg.add_argument("--exclude", nargs="+", metavar="C", help="columns to leave out (e.g. ids)")
    sg.add_argument("--top", type=_positive_int, default=5, metavar="N", help="ranking length (default: 5)")
    sg.add_argument("--alpha", type=_alpha, default=0.05, metavar="A",
                    help="rank only subgroups significantly disadvantaged at q < A (Benjamini-Hochberg); 'none' "
                         "for the raw ranking of the ASDF paper (default: 0.05)")
    sg.add_argument("--min-size", type=_positive_int, default=1, metavar="N",
                    help="leave subgroups with fewer than N rows out of the rankings (default: 1)")
    sg.add_argument("--ci", type=_open_unit_float, default=0.95, metavar="L",
                    help="confidence level of the intervals (default: 0.95)")
    sg.add_argument("--seed", type=int, default=0, help="seed of the clustering (default: 0)")
    sg.add_argument("--out", metavar="report.html", help="write an HTML report")
    sg.set_defaults(func=_subgroups)

    ct = sub.add_parser("crowdtruth", help="CrowdTruth 2.0 unit, worker and annotation quality scores",
                        description="Compute CrowdTruth 2.0 quality scores and write units.csv, workers.csv and "
                                    "annotations.csv.")
    ct.add_argument("annotations", metavar="ANNOTATIONS.csv", help="one row per judgment")
    ct.add_argument("--unit-col", required=True, metavar="C", help="unit (item) id column")
    ct.add_argument("--worker-col", required=True, metavar="C", help="worker (annotator) id column")
    ct.add_argument("--label-col", required=True, metavar="C", help="label column")
    ct.add_argument("--separator", metavar="S",
                    help="split label cells on S for multiple-choice judgments (e.g. '|')")
    ct.add_argument("--open-ended", action="store_true", help="open-ended task (annotation quality held at 1)")
    ct.add_argument("--out", default="crowdtruth_scores", metavar="DIR",
                    help="output folder (default: %(default)s)")
    ct.set_defaults(func=_crowdtruth)
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
        return func(args)
    except (CLIError, ValueError, TypeError, FileNotFoundError, PermissionError, IsADirectoryError) as exc:
        print(f"{PROG} {args.command}: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
