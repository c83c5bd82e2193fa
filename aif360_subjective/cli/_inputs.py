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
from typing import TYPE_CHECKING, Any

from . import _common as common
from ._common import CLIError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    import pandas as pd

    from ..datasets import MultiAnnotatorDataset

FORMATS = ("csv", "lewidi", "popquorn", "wikipedia", "adult")
#: Formats of tables (one row per instance: attributes, truth, maybe a prediction), not of annotations.
TABLE_FORMATS = ("csv", "adult")
MODELS = {"majority": "Model 1 (majority vote)", "annotator-aware": "Model 2 (annotator-aware)",
          "logistic": "logistic regression", "rating": "mean-rating model (ordinal)"}
#: The models trained on annotations, and the one trained on a table.
ANNOTATION_MODELS = ("majority", "annotator-aware")
TABLE_MODEL = "logistic"
#: The package's convention (docs/guide/concepts.rst): for detection tasks 0 ("not flagged") is favourable.
DEFAULT_FAVORABLE = 0

FORMAT_HELP = (
    "input format (default: detected from the path: .json or a folder of LeWiDi JSON files = lewidi, a folder with "
    "<task>_annotations.tsv or a <task>_labelled_comments*.csv sample = wikipedia, a folder with "
    "offensiveness_raw_data.csv = popquorn, a folder with UCI's adult.data (or that file) = adult, other "
    "files = csv)"
)
#: The annotation_info column holding the annotators' ratings, per format.
RATING_COLUMNS = {"popquorn": "rating", "lewidi": "raw_label"}
PREDICTIONS_HELP = (
    "Predictions: with --format csv, --prediction-col names a column of the annotations file. For any format, "
    "--predictions FILE reads a CSV with an item id column (--item-col, default 'item'), optionally an annotator id "
    "column (--annotator-col, default 'annotator'; without it one prediction per item is given to all its "
    "annotations) and a prediction column (--prediction-col, default 'prediction'); annotations without a "
    "prediction are left out and counted. Or --model majority|annotator-aware trains the paper's Model 1 "
    "(logistic regression on the items' majority vote: on TF-IDF of the item text where the data has text "
    "(POPQUORN, LeWiDi, MultiPICo, CSC, Wikipedia Talk), else on the numeric item features) or Model 2 "
    "(annotator-aware) on a by-item split (--test-size, --seed) and audits the held-out items. A model whose "
    "predictions are all one label is reported as a constant classifier. On a table (subgroups: a CSV table or "
    "the Adult folder), --model logistic trains a logistic regression (categorical attributes one-hot coded, "
    "numeric ones standardised) on a stratified split of the rows and analyses the held-out rows."
)


@dataclass(frozen=True)
class InputSpec:
    """The options reading the data and its predictions (``audit``, ``subgroups``, ``dashboard``), typed: built
    once from the parsed namespace at the command's boundary (:func:`~aif360_subjective.cli._common.spec_from`);
    the options a command lacks keep their defaults.

    Attributes:
        path: the data (file or folder).
        format, sep, split, annotators_meta, task, positive_from, positive_labels: how the data is read.
        prediction_col, predictions, model, test_size, seed: where the predictions come from.
        favorable_label, label_col: the label column (CSV) and the favourable label as typed.
        item_col, annotator_col, annotators, annotators_id_col, items, items_id_col: CSV annotation data.
    """

    path: str
    format: str | None = None
    sep: str | None = None
    split: str | None = None
    annotators_meta: str | None = None
    task: str | None = None
    positive_from: float | None = None
    positive_labels: tuple[str, ...] | None = None
    prediction_col: str | None = None
    predictions: str | None = None
    model: str | None = None
    test_size: float = 0.3
    seed: int = 0
    favorable_label: str | None = None
    label_col: str | None = None
    item_col: str | None = None
    annotator_col: str | None = None
    annotators: str | None = None
    annotators_id_col: str | None = None
    items: str | None = None
    items_id_col: str | None = None

    @classmethod
    def from_namespace(cls, args: argparse.Namespace, path: str) -> InputSpec:
        """The input options of a parsed command line; ``path`` is the command's data argument. A command whose
        ``--task`` names what the model predicts (``subgroups``, ``dashboard``) reads the dataset's annotation
        task from ``--data-task`` (namespace ``data_task``)."""
        given = {"task": args.data_task} if "data_task" in vars(args) else {}
        return common.spec_from(cls, args, path=path, **given)


@dataclass
class Annotations:
    """What was read: the dataset, the CSV frame (csv format only) and lines describing it."""

    dataset: Any
    fmt: str
    frame: Any = None
    notes: list[str] = field(default_factory=list)

    @property
    def favorable(self) -> Any:
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
    #: The ``annotation_info`` column of the ratings (annotators' in ``dataset``, predicted in ``classified``)
    #: for the measures on ratings, else None.
    rating_column: str | None = None
    #: The constant-classifier message (:func:`~aif360_subjective.algorithms.inprocessing.one_class_message`) when
    #: every prediction is one label, else None; it is also the last of ``notes`` (as "Warning: ...").
    one_class: str | None = None


# ----------------------------------------------------------------------------------------------- options
#: Help of the dataset's annotation task (``--data-task``; ``--task`` in the commands without a model task).
DATA_TASK_HELP = "wikipedia: toxicity (default), aggression or attack; popquorn: offensiveness (default)"


def data_task_names() -> tuple[str, ...]:
    """The annotation tasks the loaders read (Wikipedia Talk's and POPQUORN's), imported when asked for."""
    from ..datasets.popquorn import TASKS as POPQUORN_TASKS
    from ..datasets.wikipedia_talk import TASKS as WIKIPEDIA_TASKS

    return (*WIKIPEDIA_TASKS, *POPQUORN_TASKS)


def add_input_options(parser: argparse.ArgumentParser, model_task: bool = False) -> None:
    """The options shared by ``audit``, ``subgroups`` and ``dashboard`` for reading annotations and predictions.

    Args:
        parser: the command's parser.
        model_task: the command's own ``--task`` names what the model predicts (``subgroups``, ``dashboard``):
            the dataset's annotation task is then ``--data-task`` only (namespace ``data_task``); otherwise it is
            ``--task``, with ``--data-task`` as its other spelling.
    """
    g = parser.add_argument_group("input format")
    g.add_argument("--format", choices=FORMATS, help=FORMAT_HELP)
    g.add_argument("--sep", metavar="S", help="field separator of CSV files (default: detected from the header "
                   "line among comma, semicolon, tab and pipe; the one used is printed)")
    g.add_argument("--split", metavar="NAME", help="lewidi: the split file(s) to read from a folder (e.g. dev); "
                   "wikipedia: keep the comments of this split (train, dev or test)")
    g.add_argument("--annotators-meta", metavar="JSON", help="lewidi: the annotator metadata file (default: "
                   "the *_annotators_meta.json next to the data; 'none' = no demographics)")
    if model_task:
        g.add_argument("--data-task", dest="data_task", metavar="T", help=DATA_TASK_HELP)
    else:
        g.add_argument("--task", "--data-task", dest="task", metavar="T", help=DATA_TASK_HELP)
    g.add_argument("--positive-from", type=_number, metavar="N", help="popquorn, lewidi: ratings >= N are the "
                   "positive (flagged) label (popquorn default: 3; CSC's 1-6 sarcasm ratings need it, e.g. 4)")
    g.add_argument("--positive-labels", nargs="+", metavar="V", help="lewidi: the raw label values that are the "
                   "positive (flagged) label, e.g. -3 -2 -1 for ConvAbuse's severity -3..1")
    p = parser.add_argument_group("predictions", PREDICTIONS_HELP)
    p.add_argument("--prediction-col", metavar="C", help="prediction column of the CSV annotations file, or of "
                   "--predictions FILE (default there: prediction)")
    p.add_argument("--predictions", metavar="CSV", help="predictions file keyed by item (and annotator)")
    p.add_argument("--model", choices=list(MODELS), help="train a model on a by-item split and audit its "
                   "predictions on the held-out items (majority, annotator-aware: annotation data; logistic: a "
                   "table)")
    p.add_argument("--test-size", type=common.unit_float, default=0.3, metavar="F",
                   help="--model: share of the items held out for the audit (default: 0.3)")
    p.add_argument("--seed", type=common.seed, default=0, help="seed of the split, the models and the clustering "
                   "(default: 0)")


def _number(text: str) -> float | int:
    """An argparse type: a number (an int when integral)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    return int(value) if value.is_integer() else value


# ----------------------------------------------------------------------------------------------- format
def detect_format(path: str, given: str | None) -> str:
    """The input format: ``given``, else recognised from the path.

    Raises:
        CLIError: the path does not exist, or a folder of no known layout.
    """
    p = Path(path)
    if not p.exists():
        raise CLIError(f"no such file or folder: {path}")
    if given:
        return given
    if p.name in ("adult.data", "adult.test") or (p.is_dir() and (p / "adult.data").is_file()):
        return "adult"
    if p.is_dir():
        if any(p.glob("*_annotations.tsv")) or any(p.glob("*_labelled_comments*.csv")):
            return "wikipedia"
        if (p / "offensiveness_raw_data.csv").is_file():
            return "popquorn"
        if any(p.glob("*.json")):
            return "lewidi"
        raise CLIError(f"cannot tell the format of the folder {path} (no *_annotations.tsv, "
                       "*_labelled_comments*.csv, offensiveness_raw_data.csv or *.json in it); give --format")
    if p.suffix.lower() == ".json":
        return "lewidi"
    return "csv"


def favorable_label(option: str | None, labels: pd.Series, column: str) -> Any:
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


def coerce_label(value: str | None, series: pd.Series) -> Any:
    """``--favorable-label`` as typed, converted to the label column's kind of values."""
    return common.coerce_label(value, series, "--favorable-label")


def check_format_options(spec: InputSpec, fmt: str) -> None:
    """Options that only one format reads are an error with the others (never silently ignored)."""
    owners = {"split": ("lewidi", "wikipedia"), "annotators_meta": ("lewidi",), "task": ("wikipedia", "popquorn"),
              "positive_from": ("popquorn", "lewidi"), "positive_labels": ("lewidi",), "annotators": ("csv",),
              "items": ("csv",)}
    for name, formats in owners.items():
        if getattr(spec, name, None) is not None and fmt not in formats:
            # the dataset's annotation task: --task of audit, --data-task of the commands whose --task is the model's
            flag = "--task (--data-task)" if name == "task" else f"--{name.replace('_', '-')}"
            raise CLIError(f"{flag} applies to --format {' or '.join(formats)}, not {fmt}")


def load_annotations(spec: InputSpec) -> Annotations:
    """Read the annotations of ``spec.path`` in the format of ``--format`` (or the detected one)."""
    path = spec.path
    fmt = detect_format(path, spec.format)
    check_format_options(spec, fmt)
    if fmt == "adult":
        raise CLIError(f"{path} is the Adult table (one row per person, no annotations): an opinion-exclusion audit "
                       "needs annotations; run subgroups on it")
    if fmt == "csv":
        return _load_csv(spec)
    if fmt == "lewidi":
        ds = _load_lewidi(spec)
    elif fmt == "wikipedia":
        ds = _load_wikipedia(spec)
        if spec.split is not None:
            ds = _wikipedia_split(ds, spec.split)
        _fixed_favorable(spec.favorable_label, ds, fmt)
    else:
        ds = _load_popquorn(spec)
        _fixed_favorable(spec.favorable_label, ds, fmt)
    split = f", split {spec.split}" if spec.split is not None else ""
    note = (f"Read {fmt} data {Path(path).name}{split}: {common.count(len(ds.labels), 'annotation')} of "
            f"{common.count(ds.n_items, 'item')} by {common.count(ds.n_annotators, 'annotator')}.")
    print(note)
    return Annotations(ds, fmt, notes=[note])


def _load_lewidi(spec: InputSpec) -> MultiAnnotatorDataset:
    """A LeWiDi file or folder; a rating or severity scale needs --positive-from or --positive-labels."""
    (LeWiDiDataset,) = common.require("datasets", "LeWiDiDataset")
    given = spec.annotators_meta
    meta: str | bool | None = False if given is not None and given.lower() == "none" else given
    fav = _binary_favorable(spec.favorable_label)
    if spec.positive_from is not None and spec.positive_labels is not None:
        raise CLIError("give --positive-from or --positive-labels, not both")
    try:
        ds: MultiAnnotatorDataset = LeWiDiDataset(spec.path, annotators_meta=meta, split=spec.split,
                             favorable_label=DEFAULT_FAVORABLE if fav is None else fav,
                             positive_from=spec.positive_from,
                             positive_labels=None if spec.positive_labels is None else list(spec.positive_labels))
        return ds
    except ValueError as exc:
        # the loader's advice names its Python arguments: say it with the command's options
        raise CLIError(str(exc).replace("positive_from=<threshold>", "--positive-from N")
                       .replace("positive_labels=<raw values meaning 1>", "--positive-labels V [V ...]")
                       .replace("(rating >= threshold means 1)", "(rating >= N means 1)")
                       .replace("positive_from=", "--positive-from ")) from exc


def _load_wikipedia(spec: InputSpec) -> MultiAnnotatorDataset:
    """A Wikipedia Talk folder: the published files, or (without them) a joined annotations + comments sample
    such as ``toxicity_labelled_comments_3k_sample.csv`` with the task's demographics file when present."""
    (WikipediaTalkDataset,) = common.require("datasets", "WikipediaTalkDataset")
    task = spec.task or "toxicity"
    folder = Path(spec.path)
    ds: MultiAnnotatorDataset
    if folder.is_file() or not (folder / f"{task}_annotations.tsv").is_file():
        samples = [folder] if folder.is_file() else sorted(folder.glob(f"{task}_labelled_comments*.csv"))
        if samples:
            demographics = folder.parent if folder.is_file() else folder
            demographics = demographics / f"{task}_worker_demographics.tsv"
            print(f"Wikipedia Talk: reading the joined sample {samples[0].name}"
                  + (f" with {demographics.name}" if demographics.is_file() else " (no demographics file)") + ".")
            ds = WikipediaTalkDataset.from_labelled_sample(
                samples[0], demographics if demographics.is_file() else None, task=task)
            return ds
    ds = WikipediaTalkDataset(task, data_dir=spec.path)
    return ds


def _binary_favorable(option: str | None) -> int | None:
    if option is None:
        return None
    if option not in ("0", "1"):
        raise CLIError(f"--favorable-label {option!r}: the published datasets have labels 0 and 1")
    return int(option)


def _fixed_favorable(option: str | None, ds: MultiAnnotatorDataset, fmt: str) -> None:
    """Loaders that fix the favourable label: the option may only repeat it."""
    fav = _binary_favorable(option)
    if fav is not None and fav != common.plain(ds.favorable_label):
        raise CLIError(f"--favorable-label {fav}: the {fmt} loader fixes the favourable label to "
                       f"{common.plain(ds.favorable_label)}")


def _wikipedia_split(ds: MultiAnnotatorDataset, split: str) -> MultiAnnotatorDataset:
    items = ds.items
    if "split" not in items.columns:
        raise CLIError("--split: the Wikipedia comments file has no 'split' column")
    splits = sorted(items["split"].dropna().unique().tolist())
    if split not in splits:
        raise CLIError(f"--split {split!r} is not a split of the comments (splits: {common.show_values(splits)})")
    keep = items.index[items["split"] == split]
    import numpy as np

    return ds.subset(np.isin(ds.item_ids, keep.to_numpy()))


def _load_popquorn(spec: InputSpec) -> MultiAnnotatorDataset:
    from ..datasets import PopquornDataset

    kwargs: dict[str, Any] = {"task": spec.task or "offensiveness"}
    if spec.positive_from is not None:
        kwargs["positive_from"] = spec.positive_from
    ds: MultiAnnotatorDataset = PopquornDataset(spec.path, **kwargs)
    return ds


def _load_csv(spec: InputSpec) -> Annotations:
    from ..datasets import MultiAnnotatorDataset

    path = spec.path
    item_col, annotator_col, label_col = spec.item_col, spec.annotator_col, spec.label_col
    if item_col is None or annotator_col is None or label_col is None:
        missing = [o for o, v in (("--item-col", item_col), ("--annotator-col", annotator_col),
                                  ("--label-col", label_col)) if v is None]
        raise CLIError(f"{', '.join(missing)} {'is' if len(missing) == 1 else 'are'} required with --format csv")
    df = common.read_csv(path, "annotations", sep=spec.sep, ids=[item_col, annotator_col])
    common.check_columns(df, {"--item-col": item_col, "--annotator-col": annotator_col, "--label-col": label_col},
                         path)
    common.check_not_missing(df, {"--item-col": item_col, "--annotator-col": annotator_col}, path, "id")
    if spec.predictions is None and spec.model is None and spec.prediction_col is not None:
        common.check_columns(df, {"--prediction-col": spec.prediction_col}, path)
    annotators = items = None
    if spec.annotators:
        annotators = common.index_table(common.read_csv(spec.annotators, "annotators", sep=spec.sep,
                                                        ids=[spec.annotators_id_col, spec.annotator_col],
                                                        first_column_id=True),
                                        spec.annotators, spec.annotators_id_col, spec.annotator_col)
    if spec.items:
        items = common.index_table(common.read_csv(spec.items, "items", sep=spec.sep,
                                                   ids=[spec.items_id_col, spec.item_col], first_column_id=True),
                                   spec.items, spec.items_id_col, spec.item_col)
    label = df[label_col]
    values = sorted(label.dropna().unique().tolist(), key=str)
    if len(values) > 2:
        raise CLIError(f"--label-col {label_col!r} holds {len(values)} values {common.show_values(values)}; "
                       "binary labels are needed")
    fav = favorable_label(spec.favorable_label, label, label_col)
    others = [v for v in values if v != fav]
    unfav = others[0] if others else (1 - fav if isinstance(fav, int) else None)
    ds = MultiAnnotatorDataset(df[[item_col, annotator_col, label_col]], item_col=item_col,
                               annotator_col=annotator_col, label_col=label_col, annotators=annotators,
                               items=items, favorable_label=fav, unfavorable_label=unfav)
    return Annotations(ds, "csv", frame=df)


# ----------------------------------------------------------------------------------------------- predictions
def label_values(ds: MultiAnnotatorDataset) -> list[Any]:
    """The two label values of a dataset in the input's own values (favourable first)."""
    label_map = ds.metadata.get("label_maps", [None])[0]
    if label_map:
        return [common.plain(label_map[1.0]), common.plain(label_map[0.0])]
    return [common.plain(ds.favorable_label), common.plain(ds.unfavorable_label)]


def check_prediction_values(pred: Any, allowed: list[Any], option: str) -> None:
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


def rating_column(spec: InputSpec, ann: Annotations, performance: str | None) -> str | None:
    """The ratings column when ``--performance`` is a measure on ratings (mae, within_one), else None.

    Raises:
        CLIError: a measure on ratings for data without ratings, or with --model (which predicts labels).
    """
    from ..opinion.options import ORDINAL_PERFORMANCES

    if performance not in ORDINAL_PERFORMANCES:
        return None
    ds = ann.dataset
    col = RATING_COLUMNS.get(ann.fmt)
    if col is None or col not in ds.annotation_info.columns:
        why = ("a LeWiDi rating scale needs --positive-from or --positive-labels, which keep the raw ratings"
               if ann.fmt == "lewidi" else f"the {ann.fmt} data holds binary labels only")
        raise CLIError(f"--performance {performance} compares ratings; {why}")
    if spec.model is not None:
        raise CLIError(f"--performance {performance} compares predicted ratings, and --model predicts labels; "
                       "give predicted ratings with --predictions FILE")
    return col


def _binary_view(ds: MultiAnnotatorDataset, ratings: npt.NDArray[Any], option: str) -> npt.NDArray[np.int64]:
    """Predicted ratings -> the dataset's 0/1 labels, by the dataset's own binary view (threshold or label set)."""
    import numpy as np
    import pandas as pd

    view = ds.metadata.get("binary_view") or {}
    values = pd.to_numeric(pd.Series(ratings), errors="coerce")
    if values.isna().any():
        row = int(values.isna().to_numpy().argmax())
        raise CLIError(f"{option} holds {common.show(pd.Series(ratings).iloc[row])} at row {row}; expected "
                       "numeric ratings on the data's scale")
    if "positive_labels" in view:
        # the loader keeps the raw labels as text ("-3"); predicted ratings are numbers, so compare as numbers
        positive = pd.to_numeric(pd.Series(view["positive_labels"]), errors="coerce").dropna().to_numpy(dtype=float)
        return np.isin(values.to_numpy(dtype=float), positive).astype(np.int64)
    return (values.to_numpy(dtype=float) >= float(view["positive_from"])).astype(np.int64)


def _classified(ds: MultiAnnotatorDataset, pred: Any, option: str, rating_col: str | None) -> MultiAnnotatorDataset:
    """The classified copy of ``ds``: ``pred`` are labels, or (``rating_col``) ratings whose binary view gives the
    labels."""
    if rating_col is None:
        check_prediction_values(pred, label_values(ds), option)
        out: MultiAnnotatorDataset = ds.with_predictions(pred)
        return out
    import numpy as np

    ratings = np.asarray(pred)
    labels = _binary_view(ds, ratings, option)
    out = ds.with_predictions(labels, info={rating_col: ratings.astype(float)})
    return out


def warn_one_class(classified: MultiAnnotatorDataset, name: str, notes: list[str]) -> str | None:
    """Print (and add to ``notes``) the constant-classifier warning when every prediction is one label; returns
    the message (None when the predictions hold both labels)."""
    from .._labels import one_class_message

    message = one_class_message(classified.original_labels(), name)
    if message is not None:
        line = f"Warning: {message}"
        print(line)
        notes.append(line)
    return message


def get_predictions(spec: InputSpec, ann: Annotations, performance: str | None = None) -> Predictions:
    """The predictions from the one source given (see :data:`PREDICTIONS_HELP`); ``performance`` (audit's
    ``--performance``) decides whether they are ratings (mae, within_one) or labels."""
    pred = _get_predictions(spec, ann, performance)
    pred.one_class = warn_one_class(pred.classified, pred.name, pred.notes)
    return pred


def _get_predictions(spec: InputSpec, ann: Annotations, performance: str | None) -> Predictions:
    given = [o for o, v in (("--prediction-col", spec.prediction_col if ann.fmt == "csv" and
                             spec.predictions is None else None), ("--predictions", spec.predictions),
                            ("--model", spec.model)) if v is not None]
    if len(given) != 1:
        need = "--prediction-col, --predictions or --model" if ann.fmt == "csv" else "--predictions or --model"
        raise CLIError(f"give exactly one source of predictions: {need}"
                       + (f" (got {' and '.join(given)})" if given else ""))
    ds = ann.dataset
    rating_col = rating_column(spec, ann, performance)
    if given[0] == "--prediction-col" and spec.prediction_col is not None:
        pred = ann.frame[spec.prediction_col]
        check_prediction_values(pred, label_values(ds), f"--prediction-col {spec.prediction_col!r}")
        return Predictions(ds, ds.with_predictions(pred.to_numpy()), spec.prediction_col,
                           f"predictions from column {spec.prediction_col!r}")
    if given[0] == "--predictions" and spec.predictions is not None:
        return _predictions_file(spec, spec.predictions, ds, rating_col)
    return _train_model(spec, ds)


def _predictions_file(spec: InputSpec, path: str, ds: MultiAnnotatorDataset,
                      rating_col: str | None = None) -> Predictions:
    import numpy as np
    import pandas as pd

    # subgroups has no --item-col/--annotator-col: the file's columns are then the defaults
    item_col = spec.item_col or "item"
    annotator_col = spec.annotator_col or "annotator"
    pred_col = spec.prediction_col or "prediction"
    df = common.read_csv(path, "predictions", sep=spec.sep, ids=[item_col, annotator_col])
    common.check_columns(df, {"--item-col": item_col, "--prediction-col": pred_col}, path)
    per_annotation = annotator_col in df.columns
    if rating_col is None:
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
    pos = pd.Index(keys).get_indexer(pd.Index(ids))
    covered = pos >= 0
    if not covered.any():
        raise CLIError(f"no row of {path} matches the annotations' {' and '.join(key_cols)} ids (first ids in the "
                       f"file: {common.show_values(df[item_col].head(3).tolist())}, in the data: "
                       f"{common.show_values(ds.item_ids[:3].tolist())})")
    notes: list[str] = []
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
    what = "predicted ratings" if rating_col else "predictions"
    return Predictions(ds, _classified(ds, pred, f"{path} column {pred_col!r}", rating_col), Path(path).stem,
                       f"{what} from {Path(path).name} (column {pred_col!r}, one per {keyed})", notes,
                       rating_column=rating_col)


def _train_model(spec: InputSpec, ds: MultiAnnotatorDataset) -> Predictions:
    if spec.model == "rating":
        raise CLIError("--model rating predicts ratings, not labels: use it with subgroups --outcome ordinal")
    if spec.model not in ANNOTATION_MODELS:
        raise CLIError(f"--model {spec.model} trains on a table; annotation data takes --model "
                       f"{' or '.join(ANNOTATION_MODELS)}")
    if not 0.0 < spec.test_size < 1.0:
        raise CLIError(f"--test-size {spec.test_size}: expected a share strictly between 0 and 1")
    train, test = ds.split([1.0 - spec.test_size], shuffle=True, seed=spec.seed)
    learns_from = ""
    if spec.model == "majority":
        from ..algorithms.inprocessing.majority_vote import text_columns

        text = text_columns(ds.items)
        if not text and not ds.item_feature_names:
            raise CLIError("--model majority needs item text or numeric item features, and this dataset has "
                           "neither (give --items with a text column or numeric columns for --format csv)")
        (MajorityVoteClassifier,) = common.require("algorithms.inprocessing", "MajorityVoteClassifier")
        import warnings

        from .._labels import OneClassPredictionWarning

        model = MajorityVoteClassifier(random_state=spec.seed).fit(train)
        with warnings.catch_warnings():  # the command prints its own constant-classifier warning
            warnings.simplefilter("ignore", OneClassPredictionWarning)
            classified = model.predict(test)
        learns_from = (f" on TF-IDF of the item text ({', '.join(model.text_columns_)})" if model.text_columns_
                       else f" on the numeric item features ({', '.join(model.item_features_)})")
    else:
        if not ds.item_feature_names and not len(ds.annotators.columns):
            raise CLIError("--model annotator-aware learns from annotator attributes and numeric item features, and "
                           "this dataset has neither; --model majority learns from the item text")
        (AnnotatorAwareClassifier,) = common.require("algorithms.inprocessing", "AnnotatorAwareClassifier")
        classified = AnnotatorAwareClassifier(random_state=spec.seed).fit(train).predict(test)
    name = MODELS[spec.model]
    desc = (f"{name} trained{learns_from} on {common.count(train.n_items, 'item')} ({1 - spec.test_size:.0%}, seed "
            f"{spec.seed}), audited on the other {common.count(test.n_items, 'item')}")
    print(desc + ".")
    return Predictions(test, classified, name, desc)


# ----------------------------------------------------------------------------------------------- tables
@dataclass
class Table:
    """A table read for ``subgroups``: the frame, its default label column and favourable label (None: the
    options decide), columns left out by default, and lines describing it."""

    frame: pd.DataFrame
    label_col: str | None = None
    favorable: Any = None
    excluded: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def read_table(spec: InputSpec, fmt: str) -> Table:
    """A CSV table, or UCI Adult (read by :func:`aif360_subjective.datasets.read_adult_table`)."""
    if fmt != "adult":
        return Table(common.read_csv(spec.path, "data", sep=spec.sep))
    from ..datasets.adult import read_adult_table

    adult = read_adult_table(spec.path)
    weight = ", ".join(repr(c) for c in adult.not_attributes)
    note = (f"Read Adult {' + '.join(f.name for f in adult.files)}: {common.count(len(adult.frame), 'row')}, label "
            f"{adult.label!r} (favourable {adult.favorable!r} unless --favorable-label), {weight} (a sampling weight) "
            "left out unless --columns names it; '?' is a value of its own.")
    print(note)
    return Table(adult.frame, adult.label, adult.favorable, list(adult.not_attributes), [note])


def train_table_model(X: pd.DataFrame, positive: npt.NDArray[np.bool_], spec: InputSpec,
                      categorical: tuple[str, ...] | None = None) -> tuple[npt.NDArray[np.int64],
                                                                           npt.NDArray[np.int64], str]:
    """``--model logistic``: :func:`aif360_subjective.algorithms.inprocessing.held_out_logistic` on the table's
    rows (``--test-size``, ``--seed``, ``--categorical``), described in one sentence (printed).

    Returns:
        (test positions, predicted favourable 0/1 on them, description)
    """
    from ..algorithms.inprocessing.table_logistic import held_out_logistic

    if not 0.0 < spec.test_size < 1.0:
        raise CLIError(f"--test-size {spec.test_size}: expected a share strictly between 0 and 1")
    try:
        fit = held_out_logistic(X, positive, test_size=spec.test_size, random_state=spec.seed,
                                categorical=categorical or ())
    except ValueError as exc:
        raise CLIError(f"--model {TABLE_MODEL}: {common.one_line(exc)}") from exc
    desc = (f"a logistic regression on {common.count(fit.n_attributes, 'attribute')} trained on "
            f"{common.count(fit.n_train, 'row')} ({1 - spec.test_size:.0%}, stratified, seed {spec.seed}), analysed "
            f"on the other {common.count(len(fit.test_rows), 'row')}")
    print(desc[0].upper() + desc[1:] + ".")
    return fit.test_rows, fit.predictions, desc


#: An item column with at most this many distinct values is a category subgroups can be described by; a panel of at
#: most this many annotators can be described by the annotator id.
MAX_CATEGORIES = 20
#: Item columns that are labels (the published aggregates) or bookkeeping, never attributes of a subgroup.
NOT_ITEM_ATTRIBUTES = ("hard_label", "soft_label", "split", "annotation_task", "lang")


def item_categories(ds: MultiAnnotatorDataset) -> list[str]:
    """The item columns that describe an item by a category (MD-Agreement ``domain``, ConvAbuse ``bot``,
    MultiPICo ``source``): strings with 2 to :data:`MAX_CATEGORIES` distinct values over the data's items, not
    free text and not labels or bookkeeping (:data:`NOT_ITEM_ATTRIBUTES`)."""
    import pandas as pd

    from ..algorithms.inprocessing.majority_vote import text_columns

    items = ds.items
    if items is None or items.empty:
        return []
    items = items.reindex(pd.unique(ds.item_ids))
    text = set(text_columns(items))
    found = []
    for col in items.columns:
        values = items[col].dropna()
        if col in text or col in NOT_ITEM_ATTRIBUTES or values.empty or pd.api.types.is_numeric_dtype(values):
            continue
        if pd.api.types.infer_dtype(values, skipna=True) != "string":  # dicts (soft labels) are no category
            continue
        if 2 <= values.nunique() <= MAX_CATEGORIES:
            found.append(str(col))
    return found
