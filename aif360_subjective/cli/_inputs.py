"""Reading annotations for ``audit`` and ``subgroups``: the formats, the favourable label and the predictions.

Annotations come from a CSV file (``--format csv``) or from a published dataset read by the package's loaders
(``lewidi``, ``popquorn``, ``wikipedia``). Predictions come from one of three sources: a column of the CSV file
(``--prediction-col``), a separate predictions file keyed by item, or by item and annotator (``--predictions``),
or a model trained here on a by-item split (``--model``), as in the demo.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import _common as common
from ._common import CLIError

FORMATS = ("csv", "lewidi", "popquorn", "wikipedia")
MODELS = {"majority": "Model 1 (majority vote)", "annotator-aware": "Model 2 (annotator-aware)"}
#: The package's convention (docs/guide/concepts.rst): for detection tasks 0 ("not flagged") is favourable.
DEFAULT_FAVORABLE = 0

FORMAT_HELP = (
    "input format (default: detected from the path: .json or a folder of LeWiDi JSON files = lewidi, a folder with "
    "<task>_annotations.tsv = wikipedia, a folder with offensiveness_raw_data.csv = popquorn, other files = csv)"
)
PREDICTIONS_HELP = (
    "Predictions: with --format csv, --prediction-col names a column of the annotations file. For any format, "
    "--predictions FILE reads a CSV with an item id column (--item-col, default 'item'), optionally an annotator id "
    "column (--annotator-col, default 'annotator'; without it one prediction per item is given to all its "
    "annotations) and a prediction column (--prediction-col, default 'prediction'); annotations without a "
    "prediction are left out and counted. Or --model majority|annotator-aware trains the paper's Model 1 "
    "(logistic regression on the items' majority vote) or Model 2 (annotator-aware) on a by-item split "
    "(--test-size, --seed) and audits the held-out items."
)


@dataclass
class Annotations:
    """What was read: the dataset, the CSV frame (csv format only) and lines describing it."""

    dataset: Any
    fmt: str
    frame: Any = None
    notes: list[str] = field(default_factory=list)

    @property
    def favorable(self):
        """The favourable label in the input's own values."""
        ds = self.dataset
        label_map = ds.metadata.get("label_maps", [None])[0]
        return common.plain(label_map[1.0] if label_map else ds.favorable_label)


@dataclass
class Predictions:
    """The annotations audited (a subset when predictions cover only part) and their classified copy."""

    dataset: Any
    classified: Any
    name: str
    description: str
    notes: list[str] = field(default_factory=list)


# ----------------------------------------------------------------------------------------------- options
def add_input_options(parser: argparse.ArgumentParser) -> None:
    """The options shared by ``audit`` and ``subgroups`` for reading annotations and predictions."""
    g = parser.add_argument_group("input format")
    g.add_argument("--format", choices=FORMATS, help=FORMAT_HELP)
    g.add_argument("--sep", metavar="S", help="field separator of CSV files (default: detected from the header "
                   "line among comma, semicolon, tab and pipe; the one used is printed)")
    g.add_argument("--split", metavar="NAME", help="lewidi: the split file(s) to read from a folder (e.g. dev); "
                   "wikipedia: keep the comments of this split (train, dev or test)")
    g.add_argument("--annotators-meta", metavar="JSON", help="lewidi: the annotator metadata file (default: "
                   "the *_annotators_meta.json next to the data; 'none' = no demographics)")
    g.add_argument("--task", metavar="T", help="wikipedia: toxicity (default), aggression or attack; popquorn: "
                   "offensiveness (default)")
    g.add_argument("--positive-from", type=int, metavar="N", help="popquorn: ratings >= N are the positive "
                   "(offensive) label (default: 3)")
    p = parser.add_argument_group("predictions", PREDICTIONS_HELP)
    p.add_argument("--prediction-col", metavar="C", help="prediction column of the CSV annotations file, or of "
                   "--predictions FILE (default there: prediction)")
    p.add_argument("--predictions", metavar="CSV", help="predictions file keyed by item (and annotator)")
    p.add_argument("--model", choices=list(MODELS), help="train a model on a by-item split and audit its "
                   "predictions on the held-out items")
    p.add_argument("--test-size", type=common.unit_float, default=0.3, metavar="F",
                   help="--model: share of the items held out for the audit (default: 0.3)")
    p.add_argument("--seed", type=common.seed, default=0, help="seed of the split, the models and the clustering "
                   "(default: 0)")


# ----------------------------------------------------------------------------------------------- format
def detect_format(path: str, given: str | None) -> str:
    """The input format: ``given``, else recognised from the path."""
    if given:
        return given
    p = Path(path)
    if p.is_dir():
        if any(p.glob("*_annotations.tsv")):
            return "wikipedia"
        if (p / "offensiveness_raw_data.csv").is_file():
            return "popquorn"
        if any(p.glob("*.json")):
            return "lewidi"
        raise CLIError(f"cannot tell the format of the folder {path} (no *_annotations.tsv, "
                       "offensiveness_raw_data.csv or *.json in it); give --format")
    if p.suffix.lower() == ".json":
        return "lewidi"
    return "csv"


def favorable_label(option: str | None, labels, column: str) -> Any:
    """The favourable label of a label column: ``--favorable-label`` if given, else the package's default 0,
    which needs 0/1 labels.

    Raises:
        CLIError: the option is not one of the values; or labels other than 0/1 without the option.
    """
    values = sorted(labels.dropna().unique().tolist(), key=str)
    fav = coerce_label(option, labels)
    if fav is None:
        if not set(values) <= {0, 1}:
            raise CLIError(f"--label-col {column!r} holds {common.show_values(values)}; name the favourable one with "
                           f"--favorable-label (the default, {DEFAULT_FAVORABLE}, applies to 0/1 labels)")
        fav = False if labels.dtype == bool else DEFAULT_FAVORABLE
    elif fav not in values:
        raise CLIError(f"--favorable-label {common.show(fav)} is not a value of {column!r} "
                       f"(values: {common.show_values(values)})")
    return fav


def coerce_label(value: str | None, series) -> Any:
    """``--favorable-label`` as typed, converted to the label column's kind of values."""
    return common.coerce_label(value, series, "--favorable-label")


def _check_options(args: argparse.Namespace, fmt: str) -> None:
    """Options that only one format reads are an error with the others (never silently ignored)."""
    owners = {"split": ("lewidi", "wikipedia"), "annotators_meta": ("lewidi",), "task": ("wikipedia", "popquorn"),
              "positive_from": ("popquorn",), "annotators": ("csv",), "items": ("csv",)}
    for name, formats in owners.items():
        if getattr(args, name, None) is not None and fmt not in formats:
            raise CLIError(f"--{name.replace('_', '-')} applies to --format {' or '.join(formats)}, not {fmt}")


def load_annotations(args: argparse.Namespace, path: str) -> Annotations:
    """Read the annotations in the format of ``--format`` (or the detected one)."""
    fmt = detect_format(path, args.format)
    _check_options(args, fmt)
    if fmt == "csv":
        return _load_csv(args, path)
    if not Path(path).exists():
        raise CLIError(f"{fmt} data not found: {path}")
    if fmt == "lewidi":
        (LeWiDiDataset,) = common.require("datasets", "LeWiDiDataset")
        meta = args.annotators_meta
        meta = False if meta is not None and meta.lower() == "none" else meta
        fav = _binary_favorable(args.favorable_label)
        ds = LeWiDiDataset(path, annotators_meta=meta, split=args.split,
                           favorable_label=DEFAULT_FAVORABLE if fav is None else fav)
    elif fmt == "wikipedia":
        (WikipediaTalkDataset,) = common.require("datasets", "WikipediaTalkDataset")
        ds = WikipediaTalkDataset(args.task or "toxicity", data_dir=path)
        if args.split is not None:
            ds = _wikipedia_split(ds, args.split)
        _fixed_favorable(args.favorable_label, ds, fmt)
    else:
        ds = _load_popquorn(args, path)
        _fixed_favorable(args.favorable_label, ds, fmt)
    split = f", split {args.split}" if args.split is not None else ""
    note = (f"Read {fmt} data {Path(path).name}{split}: {common.count(len(ds.labels), 'annotation')} of "
            f"{common.count(ds.n_items, 'item')} by {common.count(ds.n_annotators, 'annotator')}.")
    print(note)
    return Annotations(ds, fmt, notes=[note])


def _binary_favorable(option: str | None) -> int | None:
    if option is None:
        return None
    if option not in ("0", "1"):
        raise CLIError(f"--favorable-label {option!r}: the published datasets have labels 0 and 1")
    return int(option)


def _fixed_favorable(option: str | None, ds, fmt: str) -> None:
    """Loaders that fix the favourable label: the option may only repeat it."""
    fav = _binary_favorable(option)
    if fav is not None and fav != common.plain(ds.favorable_label):
        raise CLIError(f"--favorable-label {fav}: the {fmt} loader fixes the favourable label to "
                       f"{common.plain(ds.favorable_label)}")


def _wikipedia_split(ds, split: str):
    items = ds.items
    if "split" not in items.columns:
        raise CLIError("--split: the Wikipedia comments file has no 'split' column")
    splits = sorted(items["split"].dropna().unique().tolist())
    if split not in splits:
        raise CLIError(f"--split {split!r} is not a split of the comments (splits: {common.show_values(splits)})")
    keep = items.index[items["split"] == split]
    import numpy as np

    return ds.subset(np.isin(ds.item_ids, keep.to_numpy()))


def _load_popquorn(args: argparse.Namespace, path: str):
    from ..datasets import PopquornDataset

    kwargs = {"task": args.task or "offensiveness"}
    if args.positive_from is not None:
        kwargs["positive_from"] = args.positive_from
    return PopquornDataset(path, **kwargs)


def _load_csv(args: argparse.Namespace, path: str) -> Annotations:
    from ..datasets import MultiAnnotatorDataset

    missing = [o for o, v in (("--item-col", args.item_col), ("--annotator-col", args.annotator_col),
                              ("--label-col", args.label_col)) if v is None]
    if missing:
        raise CLIError(f"{', '.join(missing)} {'is' if len(missing) == 1 else 'are'} required with --format csv")
    df = common.read_csv(path, "annotations", sep=args.sep, ids=[args.item_col, args.annotator_col])
    common.check_columns(df, {"--item-col": args.item_col, "--annotator-col": args.annotator_col,
                              "--label-col": args.label_col}, path)
    common.check_not_missing(df, {"--item-col": args.item_col, "--annotator-col": args.annotator_col}, path, "id")
    if args.predictions is None and args.model is None and args.prediction_col is not None:
        common.check_columns(df, {"--prediction-col": args.prediction_col}, path)
    annotators = items = None
    if args.annotators:
        annotators = common.index_table(common.read_csv(args.annotators, "annotators", sep=args.sep,
                                                        ids=[args.annotators_id_col, args.annotator_col],
                                                        first_column_id=True),
                                        args.annotators, args.annotators_id_col, args.annotator_col)
    if args.items:
        items = common.index_table(common.read_csv(args.items, "items", sep=args.sep,
                                                   ids=[args.items_id_col, args.item_col], first_column_id=True),
                                   args.items, args.items_id_col, args.item_col)
    label = df[args.label_col]
    values = sorted(label.dropna().unique().tolist(), key=str)
    if len(values) > 2:
        raise CLIError(f"--label-col {args.label_col!r} holds {len(values)} values {common.show_values(values)}; "
                       "binary labels are needed")
    fav = favorable_label(args.favorable_label, label, args.label_col)
    others = [v for v in values if v != fav]
    unfav = others[0] if others else (1 - fav if isinstance(fav, int) else None)
    ds = MultiAnnotatorDataset(df[[args.item_col, args.annotator_col, args.label_col]], item_col=args.item_col,
                               annotator_col=args.annotator_col, label_col=args.label_col, annotators=annotators,
                               items=items, favorable_label=fav, unfavorable_label=unfav)
    return Annotations(ds, "csv", frame=df)


# ----------------------------------------------------------------------------------------------- predictions
def label_values(ds) -> list:
    """The two label values of a dataset in the input's own values (favourable first)."""
    label_map = ds.metadata.get("label_maps", [None])[0]
    if label_map:
        return [common.plain(label_map[1.0]), common.plain(label_map[0.0])]
    return [common.plain(ds.favorable_label), common.plain(ds.unfavorable_label)]


def check_prediction_values(pred, allowed: list, option: str) -> None:
    """Predictions must be label values: a count or a score column is an error, not a silent 0/1 coding."""
    import pandas as pd

    pred = pd.Series(pred).reset_index(drop=True)
    bad = ~pred.isin(allowed)
    if bad.any():
        row = int(bad.to_numpy().argmax())
        distinct = pred[bad].drop_duplicates()
        raise CLIError(f"{option} holds {common.show(pred[bad].iloc[0])} at row {row} "
                       f"({common.count(int(bad.sum()), 'row')} with {common.count(len(distinct), 'value')} "
                       f"outside the labels); expected one of the label values {common.show_values(allowed)}")


def get_predictions(args: argparse.Namespace, ann: Annotations) -> Predictions:
    """The predictions from the one source given (see :data:`PREDICTIONS_HELP`)."""
    given = [o for o, v in (("--prediction-col", args.prediction_col if ann.fmt == "csv" and
                             args.predictions is None else None), ("--predictions", args.predictions),
                            ("--model", args.model)) if v is not None]
    if len(given) != 1:
        need = "--prediction-col, --predictions or --model" if ann.fmt == "csv" else "--predictions or --model"
        raise CLIError(f"give exactly one source of predictions: {need}"
                       + (f" (got {' and '.join(given)})" if given else ""))
    ds = ann.dataset
    if given[0] == "--prediction-col":
        pred = ann.frame[args.prediction_col]
        check_prediction_values(pred, label_values(ds), f"--prediction-col {args.prediction_col!r}")
        return Predictions(ds, ds.with_predictions(pred.to_numpy()), args.prediction_col,
                           f"predictions from column {args.prediction_col!r}")
    if given[0] == "--predictions":
        return _predictions_file(args, ds)
    return _train_model(args, ds)


def _predictions_file(args: argparse.Namespace, ds) -> Predictions:
    import numpy as np
    import pandas as pd

    path = args.predictions
    item_col, pred_col = args.item_col or "item", args.prediction_col or "prediction"
    annotator_col = args.annotator_col or "annotator"
    df = common.read_csv(path, "predictions", sep=args.sep, ids=[item_col, annotator_col])
    common.check_columns(df, {"--item-col": item_col, "--prediction-col": pred_col}, path)
    per_annotation = annotator_col in df.columns
    check_prediction_values(df[pred_col], label_values(ds), f"{path} column {pred_col!r}")
    # ids compared as text: a CSV reads item ids "12" as 12, a JSON loader keeps "12"
    key_cols = [item_col, annotator_col] if per_annotation else [item_col]
    keys = df[item_col].astype(str)
    if per_annotation:
        keys = keys + "\x1f" + df[annotator_col].astype(str)
    if keys.duplicated().any():
        dup = df.loc[keys.duplicated(), key_cols].iloc[0].tolist()
        raise CLIError(f"{path}: {' and '.join(key_cols)} {common.show_values(dup)} has several predictions")
    ids = pd.Series(ds.item_ids).astype(str)
    if per_annotation:
        ids = ids + "\x1f" + pd.Series(ds.annotator_ids).astype(str)
    pos = pd.Index(keys).get_indexer(ids)
    covered = pos >= 0
    if not covered.any():
        raise CLIError(f"no row of {path} matches the annotations' {' and '.join(key_cols)} ids (first ids in the "
                       f"file: {common.show_values(df[item_col].head(3).tolist())}, in the data: "
                       f"{common.show_values(ds.item_ids[:3].tolist())})")
    notes = []
    unused = len(df) - len(np.unique(pos[covered]))
    if not covered.all():
        n_items = len(np.unique(ds.item_ids[~covered]))
        notes.append(f"{common.count(int((~covered).sum()), 'annotation')} of {common.count(n_items, 'item')} "
                     f"without a prediction left out; {common.count(int(covered.sum()), 'annotation')} audited.")
        ds = ds.subset(covered)
        pos = pos[covered]
    if unused:
        notes.append(f"{common.count(unused, 'prediction row')} of {Path(path).name} match no annotation.")
    pred = df[pred_col].to_numpy()[pos]
    for n in notes:
        print(n)
    keyed = "item and annotator" if per_annotation else "item"
    return Predictions(ds, ds.with_predictions(pred), Path(path).stem,
                       f"predictions from {Path(path).name} (column {pred_col!r}, one per {keyed})", notes)


def _train_model(args: argparse.Namespace, ds) -> Predictions:
    if not 0.0 < args.test_size < 1.0:
        raise CLIError(f"--test-size {args.test_size}: expected a share strictly between 0 and 1")
    train, test = ds.split([1.0 - args.test_size], shuffle=True, seed=args.seed)
    if args.model == "majority":
        if not ds.item_feature_names:
            raise CLIError("--model majority needs item features, and this dataset has none (give --items with "
                           "numeric columns for --format csv)")
        (MajorityVoteClassifier,) = common.require("algorithms.inprocessing", "MajorityVoteClassifier")
        classified = MajorityVoteClassifier(random_state=args.seed).fit(train).predict(test)
    else:
        (AnnotatorAwareClassifier,) = common.require("algorithms.inprocessing", "AnnotatorAwareClassifier")
        classified = AnnotatorAwareClassifier(random_state=args.seed).fit(train).predict(test)
    name = MODELS[args.model]
    desc = (f"{name} trained on {common.count(train.n_items, 'item')} ({1 - args.test_size:.0%}, seed {args.seed}), "
            f"audited on the other {common.count(test.n_items, 'item')}")
    print(desc + ".")
    return Predictions(test, classified, name, desc)
