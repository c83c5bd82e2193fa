"""``aif360-subjective dashboard``: the interactive dashboard in a browser tab (extra ``[dashboard]``).

Only argparse is imported at start-up: Panel, the data loaders and the analysis load when the command runs.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import _common as common
from . import _inputs as inputs
from ._common import CLIError
from .subgroups import FeatureSpec, TableCommandSpec, add_analysis_options, add_task_options, table_rows

#: The command: its name, help texts, examples and memory hint (options of this command only).
COMMAND = common.Command(
    "dashboard", help="the interactive dashboard in a browser tab (extra [dashboard])",
    description="Serve the interactive dashboard: the data with sorting and column filters, subgroup discovery "
                "whose k and entropy threshold re-cut the clustering without recomputing it, the "
                "opinion-exclusion audit of trained models on held-out items, and mitigations (CrowdTruth "
                "filter, annotator-aware model, reweighted annotator groups) compared before and after. DATA is "
                "read as by 'subgroups' (a CSV table with --label-col and --prediction-col) or 'audit' "
                "(annotation data: a CSV with --item-col, --annotator-col, --label-col, or a published "
                "dataset). In Jupyter: aif360_subjective.dashboard.Dashboard(...).",
    memory_hint="try a smaller input (--split) or fewer attribute columns (--columns, --exclude)",
    examples=("aif360-subjective dashboard compas.csv --label-col class --prediction-col out",
              "aif360-subjective dashboard data/popquorn --port 5006",
              "aif360-subjective dashboard data/popquorn --address 0.0.0.0 --allow-websocket-origin myhost:5006"))


@dataclass(frozen=True)
class DashboardSpec(TableCommandSpec):
    """The options of ``dashboard``, typed.

    Attributes:
        inputs: how the data and the predictions are read (as ``subgroups`` or ``audit`` reads them).
        features: the columns describing a subgroup.
        clustering, n_clusters, entropy_threshold: the subgroup tab's initial settings.
        task: what the model predicts (``--task``; the subgroups tab's initial task, binary by default).
        port: the port (0: a free one).
        address: the interface to listen on.
        allow_websocket_origin: pages besides localhost:PORT allowed to open the websocket.
        no_browser: do not open a browser tab.
    """

    inputs: inputs.InputSpec
    features: FeatureSpec = FeatureSpec()
    clustering: str = "slink"
    n_clusters: int | None = None
    entropy_threshold: float = 0.65
    task: str = "binary"
    port: int = 5006
    address: str = "127.0.0.1"
    allow_websocket_origin: tuple[str, ...] | None = None
    no_browser: bool = False


def _source_options(spec: DashboardSpec) -> tuple[str, ...]:
    """The input options as typed, for the dashboard's equivalent commands."""
    out: list[str] = []
    for name in ("label_col", "prediction_col", "item_col", "annotator_col", "annotators", "items", "favorable_label",
                 "format", "sep", "split", "task", "positive_from", "predictions", "annotators_meta"):
        value = getattr(spec.inputs, name)
        if value is not None:  # the dataset's annotation task is --data-task (--task is the model's in subgroups)
            out += ["--data-task" if name == "task" else f"--{name.replace('_', '-')}", str(value)]
    for name in ("columns", "exclude"):
        values = getattr(spec.features, name)
        if values:
            out += [f"--{name}", *values]
    return tuple(out)


def _dashboard(spec: DashboardSpec) -> Any:
    """Read the data as ``subgroups`` (a CSV table) or ``audit`` (annotation data) does, and build the dashboard."""
    try:
        from ..dashboard import Dashboard
        from ..dashboard.app import require_panel
        from ..dashboard.state import Source, SubgroupSettings

        require_panel()
    except ImportError as exc:
        raise CLIError(f"{exc}") from None
    fmt = inputs.detect_format(spec.inputs.path, spec.inputs.format)
    source = Source(spec.inputs.path, _source_options(spec), Path(spec.inputs.path).name)
    settings = SubgroupSettings(clustering=spec.clustering, n_clusters=spec.n_clusters,
                                entropy_threshold=spec.entropy_threshold,
                                categorical=tuple(spec.features.categorical) if spec.features.categorical else None,
                                task=spec.task)
    given = spec.inputs
    if fmt in inputs.TABLE_FORMATS and given.item_col is None:  # a table with truth and predictions
        import numpy as np

        X, y_true, y_pred, fav, notes, model, _ = table_rows(spec.inputs, spec.features, fmt, task=spec.task)
        if fav is None:  # another task: the truth and prediction columns as they are
            label, pred_col = given.label_col or "truth", given.prediction_col or "prediction"
            table = X.assign(**{label: np.asarray(y_true), pred_col: np.asarray(y_pred)})
            return Dashboard(table, label_col=label, prediction_col=pred_col, features=list(X.columns),
                             seed=given.seed, source=source, subgroups=settings)
        # the data tab shows truth and predictions as labels again (the favourable one and the other)
        other = 1 - fav if isinstance(fav, int) and fav in (0, 1) else f"not {fav}"
        label = given.label_col or "truth"
        pred_col = given.prediction_col or f"prediction ({model})"
        table = X.assign(**{label: np.where(y_true == 1, fav, other), pred_col: np.where(y_pred == 1, fav, other)})
        return Dashboard(table, label_col=label, prediction_col=pred_col, favorable_label=fav,
                         features=list(X.columns), seed=given.seed, source=source, subgroups=settings)
    from ..detectors.tasks import names_decisions

    if not names_decisions(spec.task):
        raise CLIError(f"--task {spec.task} applies to a table in the dashboard (annotation data is audited as binary "
                       "decisions; ordinal ratings: aif360-subjective subgroups DATA --task ordinal --model rating)")
    if given.model is not None:
        raise CLIError("--model does not apply to annotation data in the dashboard: it trains Model 1 (majority "
                       "vote: TF-IDF of the item text, or the numeric item features) and Model 2 (annotator-aware) "
                       "itself on a by-item split (--test-size, --seed) and compares them; leave --model out")
    ann = inputs.load_annotations(given)
    ds = ann.dataset
    from ..algorithms.inprocessing.majority_vote import text_columns

    trainable = ds.item_feature_names or text_columns(ds.items) or len(ds.annotators.columns)
    if not trainable and given.predictions is None and given.prediction_col is None:
        raise CLIError(f"the items of {Path(given.path).name} have neither text nor numeric features and the "
                       "annotators no attributes, so no model can be trained; give the predictions with "
                       "--predictions FILE (or --prediction-col for a CSV)")
    predictions = None
    if given.predictions is not None or given.prediction_col is not None:
        pred = inputs.get_predictions(given, ann)
        if len(pred.classified.labels) != len(ann.dataset.labels):
            raise CLIError("the predictions cover only part of the annotations; the dashboard needs one per annotation")
        predictions = {pred.name: pred.classified}
    return Dashboard(annotations=ann.dataset, predictions=predictions, test_size=given.test_size, seed=given.seed,
                     source=source, subgroups=settings)


def port_number(text: str) -> int:
    """``--port``: an integer from 0 to 65535."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number from 0 to 65535, got {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port number from 0 to 65535 (0: a free port), got {value}")
    return value


def run(args: argparse.Namespace) -> int:
    """The command's boundary: the parsed namespace becomes a :class:`DashboardSpec`."""
    return dashboard(DashboardSpec.from_namespace(args))


def dashboard(spec: DashboardSpec) -> int:
    """Build the dashboard the spec describes and serve it until Ctrl-C."""
    common.matplotlib_agg()
    app = _dashboard(spec)
    origins = [o for arg in spec.allow_websocket_origin or () for o in arg.split(",") if o]
    try:
        app.serve(port=spec.port, show=not spec.no_browser, address=spec.address, allow_websocket_origin=origins,
                  verbose=True)
    except OSError as exc:
        raise CLIError(f"cannot listen on {spec.address} port {spec.port}: {exc.strerror or exc}") from None
    return 0


def add_arguments(d: common.Parser) -> None:
    """Add the command's arguments and options to its parser ``d``."""
    d.add_argument("data", metavar="DATA", help="a CSV table or annotations, or a published dataset (file or folder)")
    d.add_argument("--label-col", metavar="C", help="ground-truth (table) or annotator label (annotations) column")
    csv = d.add_argument_group("annotation columns (CSV annotations)")
    csv.add_argument("--item-col", metavar="C", help="item id column (makes a CSV annotation data)")
    csv.add_argument("--annotator-col", metavar="C", help="annotator id column")
    csv.add_argument("--annotators", metavar="CSV", help="annotator table (demographics)")
    csv.add_argument("--annotators-id-col", metavar="C", help="id column of --annotators")
    csv.add_argument("--items", metavar="CSV", help="item table (features), one row per item")
    csv.add_argument("--items-id-col", metavar="C", help="id column of --items")
    inputs.add_input_options(d, model_task=True)
    d.add_argument("--favorable-label", metavar="V", help=f"the favourable label (default: "
                   f"{inputs.DEFAULT_FAVORABLE}; required for labels other than 0/1)")
    d.add_argument("--columns", nargs="+", metavar="C", help="table: attribute columns to use (default: all others)")
    d.add_argument("--exclude", nargs="+", metavar="C", help="table: columns to leave out (e.g. ids)")
    add_analysis_options(d, initial="initial setting: ")
    add_task_options(d)
    d.add_argument("--port", type=port_number, default=5006, metavar="PORT",
                   help="port (default: 5006; 0 = a free one)")
    d.add_argument("--address", default="127.0.0.1", metavar="ADDR",
                   help="interface to listen on (default: 127.0.0.1, this machine only; 0.0.0.0 = every interface, "
                        "which lets other machines of the network read the data)")
    d.add_argument("--allow-websocket-origin", nargs="+", metavar="HOST:PORT",
                   help="pages besides localhost:PORT and 127.0.0.1:PORT allowed to open the dashboard's websocket "
                        "(the names other machines use for this one, with --address)")
    d.add_argument("--no-browser", action="store_true", help="do not open a browser tab")
