"""``aif360-subjective dashboard``: the interactive dashboard in a browser tab (extra ``[dashboard]``).

Only argparse is imported at start-up: Panel, the data loaders and the analysis load when the command runs.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from . import _common as common
from . import _inputs as inputs
from ._common import CLIError

#: What to try after running out of memory (options of this command only).
MEMORY_HINT = "try fewer attribute columns (--columns, --exclude) or a smaller input (--split)"


def _source_options(args: argparse.Namespace) -> tuple[str, ...]:
    """The input options as typed, for the dashboard's equivalent commands."""
    out: list[str] = []
    for name in ("label_col", "prediction_col", "item_col", "annotator_col", "annotators", "items", "favorable_label",
                 "format", "sep", "split", "task", "positive_from", "predictions", "annotators_meta"):
        value = getattr(args, name, None)
        if value is not None:
            out += [f"--{name.replace('_', '-')}", str(value)]
    for name in ("columns", "exclude"):
        if getattr(args, name, None):
            out += [f"--{name}", *getattr(args, name)]
    return tuple(out)


def _dashboard(args: argparse.Namespace) -> Any:
    """Read the data as ``subgroups`` (a CSV table) or ``audit`` (annotation data) does, and build the dashboard."""
    try:
        from ..dashboard import Dashboard
        from ..dashboard.app import require_panel
        from ..dashboard.state import Source, SubgroupSettings

        require_panel()
    except ImportError as exc:
        raise CLIError(f"{exc}") from None
    fmt = inputs.detect_format(args.data, args.format)
    source = Source(args.data, _source_options(args), Path(args.data).name)
    settings = SubgroupSettings(clustering=args.clustering, n_clusters=args.n_clusters,
                                entropy_threshold=args.entropy_threshold,
                                categorical=tuple(args.categorical) if args.categorical else None)
    if fmt in inputs.TABLE_FORMATS and args.item_col is None:  # a table with truth and predictions
        import numpy as np

        from . import subgroups

        X, y_true, y_pred, fav, notes, model = subgroups._table_rows(args, fmt)
        # the data tab shows truth and predictions as labels again (the favourable one and the other)
        other = 1 - fav if isinstance(fav, int) and fav in (0, 1) else f"not {fav}"
        label = args.label_col or "truth"
        pred = args.prediction_col or f"prediction ({model})"
        table = X.assign(**{label: np.where(y_true == 1, fav, other), pred: np.where(y_pred == 1, fav, other)})
        return Dashboard(table, label_col=label, prediction_col=pred, favorable_label=fav, features=list(X.columns),
                         seed=args.seed, source=source, subgroups=settings)
    if args.model is not None:
        raise CLIError("--model does not apply to annotation data in the dashboard: it trains Model 1 and Model 2 "
                       "itself on a by-item split (--test-size, --seed) and compares them; leave --model out")
    ann = inputs.load_annotations(args, args.data)
    if not ann.dataset.item_feature_names and args.predictions is None and args.prediction_col is None:
        raise CLIError(f"the items of {Path(args.data).name} have no numeric features to train a model on; give the "
                       "predictions with --predictions FILE (or --prediction-col for a CSV)")
    predictions = None
    if args.predictions is not None or args.prediction_col is not None:
        pred = inputs.get_predictions(args, ann)
        if len(pred.classified.labels) != len(ann.dataset.labels):
            raise CLIError("the predictions cover only part of the annotations; the dashboard needs one per annotation")
        predictions = {pred.name: pred.classified}
    return Dashboard(annotations=ann.dataset, predictions=predictions, test_size=args.test_size, seed=args.seed,
                     source=source, subgroups=settings)


def run(args: argparse.Namespace) -> int:
    common.matplotlib_agg()
    dashboard = _dashboard(args)
    print(f"Serving the dashboard on http://localhost:{args.port or '<free port>'} (Ctrl-C stops it).")
    dashboard.serve(port=args.port, show=not args.no_browser)
    return 0


def add_parser(sub: Any) -> None:
    """Add the command to the subparsers ``sub``."""
    d = sub.add_parser(
        "dashboard", help="the interactive dashboard in a browser tab (extra [dashboard])",
        description="Serve the interactive dashboard: the data with sorting and column filters, subgroup discovery "
                    "whose k and entropy threshold re-cut the clustering without recomputing it, the "
                    "opinion-exclusion audit of trained models on held-out items, and mitigations (CrowdTruth "
                    "filter, annotator-aware model, reweighted annotator groups) compared before and after. DATA is "
                    "read as by 'subgroups' (a CSV table with --label-col and --prediction-col) or 'audit' "
                    "(annotation data: a CSV with --item-col, --annotator-col, --label-col, or a published "
                    "dataset). In Jupyter: aif360_subjective.dashboard.Dashboard(...).",
        epilog="Examples:\n"
               "  aif360-subjective dashboard compas.csv --label-col class --prediction-col out\n"
               "  aif360-subjective dashboard data/popquorn --port 5006",
        formatter_class=common.HelpFormatter)
    d.add_argument("data", metavar="DATA", help="a CSV table or annotations, or a published dataset (file or folder)")
    d.add_argument("--label-col", metavar="C", help="ground-truth (table) or annotator label (annotations) column")
    csv = d.add_argument_group("annotation columns (CSV annotations)")
    csv.add_argument("--item-col", metavar="C", help="item id column (makes a CSV annotation data)")
    csv.add_argument("--annotator-col", metavar="C", help="annotator id column")
    csv.add_argument("--annotators", metavar="CSV", help="annotator table (demographics)")
    csv.add_argument("--annotators-id-col", metavar="C", help="id column of --annotators")
    csv.add_argument("--items", metavar="CSV", help="item table (features), one row per item")
    csv.add_argument("--items-id-col", metavar="C", help="id column of --items")
    inputs.add_input_options(d)
    d.add_argument("--favorable-label", metavar="V", help=f"the favourable label (default: "
                   f"{inputs.DEFAULT_FAVORABLE}; required for labels other than 0/1)")
    d.add_argument("--columns", nargs="+", metavar="C", help="table: attribute columns to use (default: all others)")
    d.add_argument("--exclude", nargs="+", metavar="C", help="table: columns to leave out (e.g. ids)")
    d.add_argument("--categorical", nargs="+", metavar="C", help="categorical columns (default: detected)")
    d.add_argument("--clustering", default="slink",
                   choices=["slink", "kmeans", "xmeans", "dbscan", "optics", "birch", "ward"],
                   help="initial clustering method (default: slink)")
    d.add_argument("--n-clusters", type=common.positive_int, default=None, metavar="K",
                   help="initial number of clusters (default: chosen by x-means)")
    d.add_argument("--entropy-threshold", type=common.unit_float, default=0.65, metavar="T",
                   help="initial entropy threshold (default: 0.65)")
    d.add_argument("--port", type=common.nonnegative_int, default=5006, metavar="PORT",
                   help="local port (default: 5006; 0 = a free one)")
    d.add_argument("--no-browser", action="store_true", help="do not open a browser tab")
    d.set_defaults(func=run, memory_hint=MEMORY_HINT)
