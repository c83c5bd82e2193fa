"""``aif360-subjective subgroups``: automated subgroup discovery (ASDF) on a table."""

from __future__ import annotations

import argparse
from pathlib import Path

from . import _common as common
from ._common import CLIError


def run(args: argparse.Namespace) -> int:
    common.matplotlib_agg()
    df = common.read_csv(args.data, "data")
    common.check_columns(df, {"--label-col": args.label_col, "--prediction-col": args.prediction_col}, args.data)
    features = args.columns or [c for c in df.columns if c not in (args.label_col, args.prediction_col)]
    for c in features:
        common.check_columns(df, {"--columns": c}, args.data)
    for c in args.categorical or []:
        if c not in features:
            raise CLIError(f"--categorical {c!r} is not one of the feature columns of {args.data}")
    for c in args.exclude or []:
        common.check_columns(df, {"--exclude": c}, args.data)
    features = [c for c in features if c not in (args.exclude or [])]
    if not features:
        raise CLIError("no feature columns left to cluster on")
    y_true, y_pred = df[args.label_col], df[args.prediction_col]
    fav = common.coerce_label(args.favorable_label, y_true, "--favorable-label")
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
    (detect_subgroups,) = common.require("detectors", "detect_subgroups")
    with common.steps(["subgroup discovery", "writing the report"]) as step:
        step("subgroup discovery")
        rep = detect_subgroups(X, (y_true == fav).to_numpy(dtype=int), (y_pred == fav).to_numpy(dtype=int),
                               pos_label=1,
                               clustering=args.clustering, n_clusters=args.n_clusters,
                               entropy_threshold=args.entropy_threshold,
                               categorical_features=args.categorical, random_state=args.seed)
        step("writing the report")
        path = None
        if args.out:
            from ..report import Report
            from ..report.sections import subgroup_sections

            report = Report(f"Subgroup fairness of {Path(args.data).name}",
                            summary=[f"{len(df):,} rows, {len(features)} attributes; truth {args.label_col!r}, "
                                     f"predictions {args.prediction_col!r}, favourable label {fav!r}."])
            report.fact("clusters", rep.n_clusters if hasattr(rep, "n_clusters") else "")
            report.extend(subgroup_sections(rep, n=args.top))
            path = common.save_report(report, args.out)
    common.print_frame(rep.summary(), "Summary (means of absolute values; positive = subgroup disadvantaged):")
    common.print_frame(rep.ranking("statistical_parity", kind="entropy", n=args.top, ascending=False),
                 f"Top {args.top} entropy-based subgroups by statistical parity (rest minus subgroup):")
    if path:
        print(f"Report: {path}")
    return 0


def add_parser(sub) -> None:
    """Add the command to the subparsers ``sub``."""
    sg = sub.add_parser("subgroups", help="automated subgroup discovery (ASDF) on a table with truth and "
                                          "predictions",
                        description="Cluster the rows, derive cluster- and entropy-based subgroups and measure "
                                    "statistical parity, equal opportunity, equalized odds and accuracy of each "
                                    "against the rest (rest minus subgroup: positive = subgroup disadvantaged).")
    sg.add_argument("data", metavar="DATA.csv", help="one row per instance: attributes, truth, prediction")
    sg.add_argument("--label-col", required=True, metavar="C", help="ground-truth label column")
    sg.add_argument("--prediction-col", required=True, metavar="C", help="predicted label column")
    sg.add_argument("--favorable-label", metavar="V", help="the favourable label (default: 1)")
    sg.add_argument("--entropy-threshold", type=common.unit_float, default=0.65, metavar="T",
                    help="dominant attributes have normalised entropy below T (default: 0.65)")
    sg.add_argument("--n-clusters", type=common.positive_int, default=None, metavar="K",
                    help="number of clusters (default: automatic, x-means)")
    sg.add_argument("--clustering", default="slink",
                    choices=["slink", "kmeans", "xmeans", "dbscan", "optics", "birch", "ward"],
                    help="clustering method (default: slink)")
    sg.add_argument("--categorical", nargs="+", metavar="C",
                    help="categorical columns (default: detected from the values)")
    sg.add_argument("--columns", nargs="+", metavar="C", help="attribute columns to use (default: all others)")
    sg.add_argument("--exclude", nargs="+", metavar="C", help="columns to leave out (e.g. ids)")
    sg.add_argument("--top", type=common.positive_int, default=5, metavar="N", help="ranking length (default: 5)")
    sg.add_argument("--seed", type=int, default=0, help="seed of the clustering (default: 0)")
    sg.add_argument("--out", metavar="report.html", help="write an HTML report")
    sg.set_defaults(func=run)
