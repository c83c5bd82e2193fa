"""``aif360-subjective audit``: opinion-exclusion audit of given predictions."""

from __future__ import annotations

import argparse
from pathlib import Path

from . import _common as common
from ._common import CLIError


def run(args: argparse.Namespace) -> int:
    common.matplotlib_agg()
    from ..datasets import MultiAnnotatorDataset

    df = common.read_csv(args.annotations, "annotations")
    cols = {"--item-col": args.item_col, "--annotator-col": args.annotator_col, "--label-col": args.label_col,
            "--prediction-col": args.prediction_col}
    common.check_columns(df, cols, args.annotations)
    annotators = items = None
    if args.annotators:
        annotators = common.index_table(common.read_csv(args.annotators, "annotators"), args.annotators,
                                        args.annotators_id_col, args.annotator_col)
    if args.items:
        items = common.index_table(common.read_csv(args.items, "items"), args.items, args.items_id_col, args.item_col)
    label = df[args.label_col]
    fav = common.coerce_label(args.favorable_label, label, "--favorable-label")
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
    (OpinionExclusionMetric,) = common.require("metrics", "OpinionExclusionMetric")
    with common.steps(["reading annotations", "opinion-exclusion audit", "writing the report"]) as step:
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
        metric = OpinionExclusionMetric(ds, classified, grouping=args.grouping, bins=common.bins(args.bins),
                                        performance=args.performance)
        from ..report.sections import opinion_summary_table

        summary = opinion_summary_table({args.prediction_col: metric})
        groups = metric.group_performance()
        step("writing the report")
        path = None
        if args.out:
            from ..report import Report
            from ..report.sections import opinion_sections

            report = Report(f"Opinion-exclusion audit of {Path(args.annotations).name}",
                            summary=[f"{len(ds.labels):,} annotations of {ds.n_items:,} items by "
                                     f"{ds.n_annotators:,} annotators; predictions from column "
                                     f"{args.prediction_col!r}."])
            report.fact("unfairness", metric.unfairness()).fact(f"performance ({args.performance})",
                                                                 metric.performance())
            report.extend(opinion_sections({args.prediction_col: metric}))
            path = common.save_report(report, args.out)
    common.print_frame(summary[["unfairness", "performance"]], f"Opinion-exclusion audit ({args.performance}, "
                 f"grouping {args.grouping}):")
    common.print_frame(groups, "Groups:")
    if path:
        print(f"Report: {path}")
    return 0


def add_parser(sub) -> None:
    """Add the command to the subparsers ``sub``."""
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
    audit.set_defaults(func=run)
