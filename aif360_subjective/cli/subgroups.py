"""``aif360-subjective subgroups``: automated subgroup discovery (ASDF) on a table or on annotation rows."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from .._param_tables import SUBGROUP_PARAMS
from . import _common as common
from . import _inputs as inputs
from ._common import CLIError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    import pandas as pd

    from ..detectors import SubgroupReport

#: The command: its name, help texts and examples; what to try after running out of memory (options of this command
#: only): fewer columns, no mined patterns (their candidates grow with the columns' values), a fixed number of
#: clusters (no x-means search).
COMMAND = common.Command(
    "subgroups",
    help="automated subgroup discovery (ASDF) on a table with truth and predictions, or on annotation rows",
    description="Cluster the rows, derive cluster- and entropy-based subgroups and measure statistical parity, "
                "equal opportunity, equalized odds and accuracy of each against the rest (rest minus "
                "subgroup: positive = subgroup disadvantaged). DATA is a CSV table (one row per instance: "
                "attributes, truth in --label-col, prediction in --prediction-col) or a published annotation "
                "dataset (--format lewidi|popquorn|wikipedia): one row per annotation, the annotator's "
                "attributes as features, the annotator's label as truth. The favourable label defaults to "
                f"{inputs.DEFAULT_FAVORABLE} (labels other than 0/1 need --favorable-label); the label used "
                "is printed.",
    memory_hint="try a smaller input, fewer attribute columns (--columns, --exclude), the ASDF candidates only "
                "(--discovery asdf) or a fixed number of clusters (--n-clusters)",
    examples=("aif360-subjective subgroups compas.csv --label-col class --prediction-col out --exclude id",
              "aif360-subjective subgroups data/multipico --split dev --model majority --columns Gender Age"))


@dataclass(frozen=True)
class FeatureSpec:
    """Which columns describe a subgroup (``subgroups`` and ``dashboard``).

    Attributes:
        columns: the attribute columns (None: all but the label and prediction, or the annotator attributes).
        exclude: columns left out.
        categorical: columns treated as categories (None: detected).
    """

    columns: tuple[str, ...] | None = None
    exclude: tuple[str, ...] | None = None
    categorical: tuple[str, ...] | None = None


class TableCommandSpec(common.CommandSpec):
    """Base of the specs of the commands that analyse a table's subgroups (``subgroups``, ``dashboard``): at their
    boundary the namespace gives the input spec, the feature spec and the task (:func:`chosen_task`)."""

    @classmethod
    def from_namespace(cls, args: argparse.Namespace) -> Self:
        """The command's boundary: the namespace as a spec."""
        return common.spec_from(cls, args, inputs=inputs.InputSpec.from_namespace(args, args.data),
                                features=common.spec_from(FeatureSpec, args),
                                task=chosen_task(args.task, args.outcome, getattr(args, "deprecated_spellings", ())))


@dataclass(frozen=True)
class SubgroupsSpec(TableCommandSpec):
    """The options of ``subgroups``, typed (built from the parsed namespace by :meth:`from_namespace`).

    Attributes:
        inputs: how the data and the predictions are read.
        features: the columns describing a subgroup.
        entropy_threshold, clustering, n_clusters, discovery: the analysis (:func:`detect_subgroups`'s options;
            None: not given, the table's default once checked against ``discovery``).
        top, alpha, min_size, ci: the rankings.
        out: the HTML report's path, if any.
        task: what the model predicts (``--task``: :func:`detect_subgroups`' ``task``; the command's default is
            :data:`DEFAULT_TASK`, binary decisions with ``--favorable-label``).
        groups: the table's column holding a cluster id (``--groups``), if any.
        clusterings, clustering_models: the seed's one clustering or the validated clusterings (``--clusterings``,
            ``--clustering-models``: algorithm names).
        progress: ``--progress`` (True), ``--no-progress`` (False), or not given (None: when stderr is a
            terminal, :func:`~._common.progress_enabled`).
    """

    inputs: inputs.InputSpec
    features: FeatureSpec = FeatureSpec()
    entropy_threshold: float | None = None
    clustering: str | None = None
    n_clusters: int | None = None
    discovery: str = "both"
    top: int = 5
    alpha: float | None = 0.05
    min_size: int = 1
    ci: float = 0.95
    out: str | None = None
    task: str = "binary"
    groups: str | None = None
    clusterings: str = "seed"
    clustering_models: tuple[str, ...] | None = None
    progress: bool | None = None


#: The rule of ``--task`` (what the model predicts): the subgroup parameter table's.
TASK_RULE = SUBGROUP_PARAMS["task"]
#: The command line's task when ``--task`` is not given: binary decisions with ``--favorable-label``, as before
#: ``--task`` existed (the library's default is the table's, "auto").
DEFAULT_TASK = "binary"


class _TaskAction(argparse.Action):
    """``--task``: what the model predicts (one of the table's tasks). ``subgroups --task`` used to name the
    dataset's annotation task (now ``--data-task``): such a value is still read as that, with a note, for one
    release; any other value is a usage error naming both."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: Any, values: Any,
                 option_string: str | None = None) -> None:
        value = str(values)
        if value in TASK_RULE.choices:
            namespace.task = value
            return
        if value in inputs.data_task_names():
            namespace.data_task = value
            namespace.deprecated_spellings = [*getattr(namespace, "deprecated_spellings", []), (
                f"--task {value} names the dataset's annotation task, which is --data-task {value} from now on "
                f"(--task says what the model predicts: {', '.join(TASK_RULE.choices)}); the old spelling will be "
                "removed in a later release")]
            return
        parser.error(f"argument --task: invalid choice: {value!r} (choose from {', '.join(TASK_RULE.choices)}: what "
                     "the model predicts; a dataset's annotation task is --data-task)")


class _OutcomeAction(argparse.Action):
    """``--outcome``: the former name of ``--task`` (a deprecated alias)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: Any, values: Any,
                 option_string: str | None = None) -> None:
        namespace.outcome = str(values)
        namespace.deprecated_spellings = [*getattr(namespace, "deprecated_spellings", []), (
            f"--outcome is deprecated: use --task {values} (the same choices); --outcome will be removed in a later "
            "release")]


def add_task_options(parser: common.Parser) -> None:
    """``--task`` (what the model predicts, from the subgroup parameter table) and its deprecated alias
    ``--outcome``, shared by ``subgroups`` and ``dashboard``."""
    metavar = "{" + ",".join(TASK_RULE.choices) + "}"
    parser.add_argument("--task", action=_TaskAction, default=None, metavar=metavar,
                        help=f"{TASK_RULE.help} (default: {DEFAULT_TASK}, with --favorable-label): 'auto' decides "
                             "from the labels and the output says what it decided; multiclass, ordinal and "
                             "regression compare the subgroups' mean absolute error, mean error (bias) and mean "
                             "prediction, or accuracy and each class's prediction rate, with the rest's. Annotation "
                             "data with ratings (popquorn, lewidi with --positive-from): --task ordinal --model "
                             "rating. A dataset's annotation task is --data-task")
    parser.add_argument("--outcome", action=_OutcomeAction, default=None, choices=TASK_RULE.choices,
                        help="deprecated spelling of --task")


def chosen_task(task: str | None, outcome: str | None, deprecated: Sequence[str] = ()) -> str:
    """The model's task of a ``subgroups`` or ``dashboard`` line from its ``--task`` and ``--outcome`` values (None:
    not given); the notes on deprecated spellings the parser met are printed on stderr.

    Raises:
        CLIError: ``--task`` and ``--outcome`` given with different values.
    """
    for note in deprecated:
        print(f"Note: {note}.", file=sys.stderr)
    if task is not None and outcome is not None and task != outcome:
        raise CLIError(f"--task {task} and --outcome {outcome} disagree; give --task only (--outcome is its "
                       "deprecated spelling)")
    return str(task or outcome or DEFAULT_TASK)


#: What :func:`table_rows` and :func:`annotation_rows` return: (X, y_true, y_pred, favourable label, notes, model).
Rows = tuple["pd.DataFrame", "npt.NDArray[np.int64]", "npt.NDArray[np.int64]", Any, list[str], str]
#: What :func:`table_rows` returns: :data:`Rows` and the ``--groups`` column (None without it).
TableRows = tuple["pd.DataFrame", Any, Any, Any, list[str], str, "pd.Series | None"]


def table_rows(spec: inputs.InputSpec, feature_spec: FeatureSpec, fmt: str = "csv", *, task: str = "binary",
               groups: str | None = None) -> TableRows:
    """A table with truth and predictions (a column, or ``--model logistic`` trained on a split of the rows):
    (X, y_true, y_pred, favourable, notes, model name, the ``groups`` column or None); a ``task`` other than
    "binary" keeps the truth and prediction columns as they are (no favourable label). ``task="auto"`` takes the
    binary path when :func:`~aif360_subjective.detectors.tasks.resolve_task` finds two label values (or ``--model``
    predicts the labels: binary decisions), and the first note then says so; otherwise ``detect_subgroups``
    decides and its report says what."""
    if spec.predictions:
        raise CLIError("--predictions applies to annotation data (--format lewidi|popquorn|wikipedia); a table "
                       "gives its predictions in --prediction-col or trains --model logistic")
    if spec.model is not None and spec.model != inputs.TABLE_MODEL:
        raise CLIError(f"--model {spec.model} trains on annotation data (--format lewidi|popquorn|wikipedia); a "
                       f"table takes --model {inputs.TABLE_MODEL}")
    if spec.model is not None and spec.prediction_col is not None:
        raise CLIError("give exactly one source of predictions: --prediction-col or --model (got both)")
    inputs.check_format_options(spec, fmt)  # the annotation formats' options are an error, never ignored
    table = inputs.read_table(spec, fmt)
    label_col = spec.label_col or table.label_col
    missing = [o for o, v in (("--label-col", label_col),
                              ("--prediction-col or --model", spec.prediction_col or spec.model)) if v is None]
    if missing or label_col is None:
        raise CLIError(f"{' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} required with a table")
    df = table.frame
    common.check_columns(df, {"--label-col": label_col, "--prediction-col": spec.prediction_col}, spec.path)
    # a missing truth label is refused, never scored as "unfavourable" (as missing predictions are)
    common.check_not_missing(df, {"--label-col": label_col}, spec.path, "truth label")
    y_true = df[label_col]
    groups_col = _groups_column(groups, df, spec.path)
    from ..detectors.tasks import BinaryTask, names_decisions, names_label_task

    if names_label_task(task) and spec.favorable_label is not None:
        raise CLIError(f"--favorable-label names the favourable label of binary decisions; --task {task} compares "
                       "the labels as they are: leave it out (or use --task binary)")
    auto_note = None
    if task == "auto":
        auto_note = _auto_binary(spec, df, label_col)
        task = "auto" if auto_note is None else BinaryTask.name
    if not names_decisions(task):
        return (*_table_outcome_rows(spec, feature_spec, task, groups, table, df, label_col), groups_col)
    if spec.favorable_label is None and table.favorable is not None:
        fav = table.favorable
    else:
        fav = inputs.favorable_label(spec.favorable_label, y_true, label_col)
    X = _table_features(spec, feature_spec, groups, table, df, label_col)
    from .._validation import check_finite_features

    check_finite_features(X, Path(spec.path).name)  # before --model logistic and the clustering see an inf
    positive = (y_true == fav).to_numpy()
    notes = list(table.notes[1:])
    if spec.model is not None:
        test, y_pred, desc = inputs.train_table_model(X, positive, spec, feature_spec.categorical)
        X, positive = X.iloc[test].reset_index(drop=True), positive[test]
        groups_col = None if groups_col is None else groups_col.iloc[test].reset_index(drop=True)
        name = inputs.MODELS[spec.model]
        notes.insert(0, f"truth {label_col!r}, predictions of {desc}")
    else:
        y_p = df[spec.prediction_col]
        allowed = sorted({*y_true.dropna().unique().tolist(), fav}, key=str)
        inputs.check_prediction_values(y_p, allowed, f"--prediction-col {spec.prediction_col!r}")
        y_pred = (y_p == fav).to_numpy(dtype=int)
        name = f"the predictions in column {spec.prediction_col!r} of {Path(spec.path).name}"
        notes.insert(0, f"truth {label_col!r}, predictions {spec.prediction_col!r}")
    from .._labels import one_class_message

    message = one_class_message(y_pred, name[0].upper() + name[1:])
    if message is not None:
        print(f"Warning: {message}")
        notes.append(f"Warning: {message}")
    if auto_note is not None:
        notes.insert(0, auto_note)
    return X, positive.astype(int), y_pred, fav, notes, name, groups_col


def _auto_binary(spec: inputs.InputSpec, df: pd.DataFrame, label_col: str) -> str | None:
    """``--task auto`` on a table: the sentence saying it chose binary decisions (``--model`` predicts them; or the
    truth and the predictions take two values, the library's rule, :func:`~aif360_subjective.detectors.tasks.
    resolve_task`), else None (``detect_subgroups`` decides the other tasks and says why)."""
    if spec.model is not None:
        return f"--task auto chose 'binary': --model {spec.model} predicts binary labels"
    if spec.favorable_label is not None:  # as detect_subgroups reads a pos_label given: binary decisions
        return f"--task auto chose 'binary': --favorable-label {spec.favorable_label} names the favourable label"
    if spec.prediction_col is None or spec.prediction_col not in df.columns:
        return None  # the caller's checks name the missing column
    from ..detectors.tasks import resolve_task

    both = df[[label_col, spec.prediction_col]].dropna()  # missing predictions are the binary path's business
    try:
        chosen = resolve_task(both[label_col], both[spec.prediction_col], "auto")
    except ValueError as err:
        raise CLIError(f"--task auto on --label-col {label_col!r} and --prediction-col {spec.prediction_col!r}: "
                       f"{err}") from None
    return chosen.reason.replace("task='auto'", "--task auto") if chosen.decisions else None


def _groups_column(groups: str | None, df: pd.DataFrame, path: str) -> pd.Series | None:
    """The ``--groups`` column of a table (None without it); the column is the unit, never a feature."""
    if groups is None:  # the dashboard reads tables without --groups
        return None
    if groups not in df.columns:
        raise CLIError(f"--groups {groups!r} is not a column of {Path(path).name} (columns: "
                       f"{common.show_values(list(df.columns), limit=12)})")
    return df[groups].rename(groups).reset_index(drop=True)


def _table_features(spec: inputs.InputSpec, feature_spec: FeatureSpec, groups: str | None, table: Any,
                    df: pd.DataFrame, label_col: str) -> pd.DataFrame:
    """The table's feature columns: every column but the truth, the predictions and ``--groups`` (less the
    table's excluded ones, unless ``--columns`` names them), refused when a value is missing."""
    others = [c for c in df.columns if c not in (label_col, spec.prediction_col, groups)]
    available = others if feature_spec.columns else [c for c in others if c not in table.excluded]
    from .._validation import missing_counts

    X = df[_features(feature_spec, available, spec.path)]
    missing, blank = missing_counts(X)
    if missing:  # empty and blank strings count as missing: they would become groups such as region=
        of_them = f", of which {sum(blank.values()):,} empty or blank strings" if blank else ""
        raise CLIError(f"feature columns {common.show_values(list(missing))} have missing values (column: count) "
                       f"{missing}{of_them}; fill or --exclude them")
    return X


def _table_outcome_rows(spec: inputs.InputSpec, feature_spec: FeatureSpec, task: str, groups: str | None,
                        table: Any, df: pd.DataFrame, label_col: str) -> tuple[Any, ...]:
    """A table audited as a multi-class, ordinal or regression model: the truth and prediction columns as they
    are (no favourable label)."""
    if spec.model is not None or spec.prediction_col is None:
        raise CLIError(f"--task {task} reads the predictions from --prediction-col (--model "
                       f"{inputs.TABLE_MODEL} predicts binary labels)")
    X = _table_features(spec, feature_spec, groups, table, df, label_col)
    notes = [f"truth {label_col!r}, predictions {spec.prediction_col!r}"]
    name = f"the predictions in column {spec.prediction_col!r} of {Path(spec.path).name}"
    return X, df[label_col], df[spec.prediction_col], None, notes, name


def _rating_rows(spec: inputs.InputSpec, feature_spec: FeatureSpec, task: str) -> tuple[Any, ...]:
    """A published rating dataset audited as an ordinal (or regression) model: one row per annotation, the
    annotator's attributes as features, the annotator's rating as truth, the rating predicted for the item by
    :class:`~aif360_subjective.algorithms.inprocessing.MeanRatingRegressor` (trained on a split of the items) as
    prediction; the annotators are the clusters of rows."""
    import pandas as pd

    if spec.model != "rating" or spec.predictions is not None:
        raise CLIError(f"--task {task} on annotation data audits predicted ratings: give --model rating "
                       "(a ridge regression of the items' mean rating on their text)")
    ann = inputs.load_annotations(spec)
    ds = ann.dataset
    col = inputs.RATING_COLUMNS.get(ann.fmt)
    if col is None or col not in ds.annotation_info.columns:
        why = ("a LeWiDi rating scale needs --positive-from or --positive-labels, which keep the raw ratings"
               if ann.fmt == "lewidi" else f"the {ann.fmt} data holds binary labels only")
        raise CLIError(f"--task {task} compares ratings; {why}")
    (MeanRatingRegressor,) = common.require("algorithms.inprocessing", "MeanRatingRegressor")
    if not 0.0 < spec.test_size < 1.0:
        raise CLIError(f"--test-size {spec.test_size}: expected a share strictly between 0 and 1")
    train, test = ds.split([1.0 - spec.test_size], shuffle=True, seed=spec.seed)
    try:
        model = MeanRatingRegressor(rating_column=col).fit(train)
    except ValueError as err:
        raise CLIError(str(err)) from err
    y_pred = model.predict(test)
    y_true = model.ratings(test)
    attrs = [a for a in test.protected_attribute_names if a in test.annotators.columns]
    if not attrs:
        raise CLIError(f"{Path(spec.path).name} has no annotator attributes to describe subgroups by")
    features = _features(feature_spec, attrs, "the annotator attributes")
    X = test.annotators.reindex(test.annotator_ids)[features].reset_index(drop=True)
    for c in features:
        if not pd.api.types.is_numeric_dtype(X[c]):
            X[c] = X[c].astype(object).where(X[c].notna(), "unknown").astype(str)
    keep = ~X.isna().any(axis=1).to_numpy()
    annotators = pd.Series(test.annotator_ids, name="annotator").astype(str)
    notes = []
    if not keep.all():
        note = f"{common.count(int((~keep).sum()), 'annotation')} left out: no value of a numeric attribute."
        print(note)
        notes.append(note)
        X, y_true, y_pred = X[keep].reset_index(drop=True), y_true[keep], y_pred[keep]
        annotators = annotators[keep].reset_index(drop=True)
    desc = (f"ratings predicted by a ridge regression of the items' mean rating on their text, trained on "
            f"{common.count(train.n_items, 'item')} ({1 - spec.test_size:.0%}, seed {spec.seed}), audited on the other "
            f"{common.count(test.n_items, 'item')}")
    print(desc[0].upper() + desc[1:] + ".")
    notes.insert(0, f"one row per annotation: the annotator's attributes, the annotator's rating as truth, {desc}; "
                    "the unit of inference is the annotator (each annotator's rows permuted together)")
    return X, y_true, y_pred, None, notes, "the mean-rating model", annotators


def annotation_rows(spec: inputs.InputSpec, feature_spec: FeatureSpec) -> Rows:
    """A published dataset: one row per annotation, the annotator's attributes as features, the annotator's
    label as truth, predictions from ``--predictions`` or ``--model``."""
    import pandas as pd

    if spec.label_col is not None:
        raise CLIError("--label-col applies to a CSV table; annotation data has its own labels")
    ann = inputs.load_annotations(spec)
    pred = inputs.get_predictions(spec, ann)
    ds = pred.dataset
    attrs = [a for a in ds.protected_attribute_names if a in ds.annotators.columns]
    item_attrs = [c for c in inputs.item_categories(ds) if c not in attrs]
    few_annotators = ds.n_annotators <= inputs.MAX_CATEGORIES
    available = [*attrs, *item_attrs, *([ANNOTATOR] if ANNOTATOR not in attrs + item_attrs else [])]
    # without annotator attributes (MD-Agreement, ConvAbuse), the items' categories and, for a small panel, the
    # annotator itself are what a subgroup can be described by
    default = attrs or [*item_attrs, *([ANNOTATOR] if few_annotators and ANNOTATOR in available else [])]
    features = _features(feature_spec, available, "the annotator attributes and item categories", default)
    from_items = [c for c in features if c in item_attrs]
    X = ds.annotators.reindex(ds.annotator_ids)[[c for c in features if c in attrs]].reset_index(drop=True)
    for c in features:
        if c in item_attrs:
            X[c] = ds.items[c].reindex(ds.item_ids).to_numpy()
        elif c == ANNOTATOR and c not in attrs:
            X[c] = pd.Series(ds.annotator_ids).astype(str).to_numpy()
    X = X[features]
    notes = list(pred.notes)
    if not attrs and not feature_spec.columns:
        parts = ([f"the item categor{'y' if len(from_items) == 1 else 'ies'} {', '.join(from_items)}"]
                 if from_items else []) + (["the annotator id"] if ANNOTATOR in features else [])
        note = f"no annotator attributes in the data: subgroups are described by {' and '.join(parts)}"
        print(note[0].upper() + note[1:] + ".")
        notes.append(note)
    numeric = [c for c in features if pd.api.types.is_numeric_dtype(X[c])]
    keep = ~X[numeric].isna().any(axis=1).to_numpy() if numeric else None
    for c in features:
        if c not in numeric:  # a missing category is a category of its own
            X[c] = X[c].astype(object).where(X[c].notna(), "unknown").astype(str)
    fav = ds.favorable_label
    y_true = (ds.labels.ravel() == fav).astype(int)
    y_pred = (pred.classified.labels.ravel() == fav).astype(int)
    if keep is not None and not keep.all():
        n_out = int((~keep).sum())
        note = (f"{common.count(n_out, 'annotation')} left out: no value of the numeric attribute(s) "
                f"{', '.join(numeric)} for their annotator.")
        print(note)
        notes.append(note)
        X, y_true, y_pred = X[keep].reset_index(drop=True), y_true[keep], y_pred[keep]
    described = ("the annotator's attributes" if all(c in attrs for c in features)
                 else f"the attributes {', '.join(features)}")
    notes.insert(0, f"one row per annotation: {described}, the annotator's label as truth, {pred.description}")
    return X, y_true, y_pred, ann.favorable, notes, pred.name


#: The feature name of the annotator id (annotation data without annotator attributes, or named in --columns).
ANNOTATOR = "annotator"


def _features(feature_spec: FeatureSpec, available: list[str], where: str,
              default: list[str] | None = None) -> list[str]:
    features = feature_spec.columns or list(available if default is None else default)
    for c in features:
        if c not in available:
            raise CLIError(f"--columns {c!r} is not a column of {where} (columns: "
                           f"{common.show_values(available, limit=12)})")
    for c in feature_spec.exclude or []:
        if c not in available:
            raise CLIError(f"--exclude {c!r} is not a column of {where}")
    features = [c for c in features if c not in (feature_spec.exclude or [])]
    for c in feature_spec.categorical or []:
        if c not in features:
            raise CLIError(f"--categorical {c!r} is not one of the feature columns of {where}")
    if not features:
        raise CLIError("no feature columns left to cluster on")
    return features


#: The options of the ASDF clustering (None on the parser: given or not is then known; their defaults are the
#: subgroup table's).
CLUSTERING_OPTIONS = {"clustering": "--clustering", "n_clusters": "--n-clusters",
                      "entropy_threshold": "--entropy-threshold"}


def _clustering_options(spec: SubgroupsSpec) -> SubgroupsSpec:
    """Refuse clustering options with ``--discovery patterns`` (which clusters nothing: they were ignored without
    a word), then fill in their defaults."""
    given = [flag for name, flag in CLUSTERING_OPTIONS.items() if getattr(spec, name) is not None]
    if spec.discovery == "patterns" and given:
        raise CLIError(f"{', '.join(given)} configure{'s' if len(given) == 1 else ''} the ASDF clusters, which "
                       "--discovery patterns does not form: leave "
                       f"{'it' if len(given) == 1 else 'them'} out, or use --discovery both")
    defaults = {name: SUBGROUP_PARAMS.default(name) for name in CLUSTERING_OPTIONS if getattr(spec, name) is None}
    return dataclasses.replace(spec, **defaults)


def run(args: argparse.Namespace) -> int:
    """The command's boundary: the parsed namespace becomes a :class:`SubgroupsSpec` (``--engine spark``: the Spark
    command, :mod:`.subgroups_spark`)."""
    if getattr(args, "engine", "pandas") == "spark":
        from .subgroups_spark import SparkSpec, run_spark

        return run_spark(SparkSpec.from_namespace(args))
    return subgroups(SubgroupsSpec.from_namespace(args))


def subgroups(spec: SubgroupsSpec) -> int:
    """Run the subgroup discovery the spec describes; print the answer (and write the report)."""
    spec = _clustering_options(spec)
    common.matplotlib_agg()
    fmt = inputs.detect_format(spec.inputs.path, spec.inputs.format)
    groups = None
    from ..detectors.tasks import BinaryTask, names_label_task

    if spec.groups is not None and fmt not in inputs.TABLE_FORMATS:
        raise CLIError("--groups names a column of a CSV table; annotation rows are grouped by annotator with "
                       "--task ordinal --model rating")
    if fmt in inputs.TABLE_FORMATS:
        X, y_true, y_pred, fav, notes, model, groups = table_rows(spec.inputs, spec.features, fmt,
                                                                  task=spec.task, groups=spec.groups)
    elif names_label_task(spec.task) or (spec.task == "auto" and spec.inputs.model == "rating"):
        X, y_true, y_pred, fav, notes, model, groups = _rating_rows(spec.inputs, spec.features, spec.task)
    else:
        X, y_true, y_pred, fav, notes, model = annotation_rows(spec.inputs, spec.features)
        if spec.task == "auto":
            notes.insert(0, "--task auto chose 'binary': annotation labels are binary decisions here (predicted "
                            "ratings: --model rating)")
    # the binary paths hand 0/1 decisions (1 = favourable); the others the labels as they are
    task = BinaryTask.name if fav is not None else spec.task
    (detect_subgroups,) = common.require("detectors", "detect_subgroups")
    with common.steps(["subgroup discovery", "writing the report"], spec.progress) as step:
        step("subgroup discovery")
        rep = detect_subgroups(X, y_true, y_pred, pos_label=1, clustering=spec.clustering,
                               n_clusters=spec.n_clusters, entropy_threshold=spec.entropy_threshold,
                               categorical_features=spec.features.categorical, random_state=spec.inputs.seed,
                               discovery=spec.discovery, task=task, groups=groups, clusterings=spec.clusterings,
                               clustering_models=None if spec.clustering_models is None
                               else list(spec.clustering_models), progress=common.progress_enabled(spec.progress))
        from ..report.subgroup_recipe import subgroup_recipe
        from ..report.subgroup_sections import alternatives_sample_text

        # what the console and the report show: the same answer, patterns and compared clusterers in both
        recipe = subgroup_recipe(rep, X, y_true, y_pred, random_state=spec.inputs.seed, alpha=spec.alpha, ci=spec.ci)
        alternatives, texts, answer = recipe.alternatives, recipe.pattern_text, recipe.answer
        step("writing the report")
        path = None
        lines = [rep.task_type.label_line(common.show(fav)),
                 f"{common.count(len(X), 'row')}, {common.count(X.shape[1], 'attribute')}; {'; '.join(notes)}."]
        if spec.out:
            from ..report.subgroup_recipe import subgroup_report

            report = subgroup_report(recipe, f"Subgroup fairness of {Path(spec.inputs.path).name}",
                                     [f"{lines[1]} {rep.task_type.label_sentence(common.show(fav))}"], n=spec.top,
                                     model=model, alpha=spec.alpha, min_size=spec.min_size, ci=spec.ci)
            path = common.save_report(report, spec.out)
    print(answer.text())
    print()
    for line in lines:
        print(line)
    print()
    if spec.alpha is not None and not rep.weighted:
        _print_discovery(rep, spec.alpha, spec.ci)
    from ..report.subgroup_sections import SUMMARY_CAPTION, auto_k_note

    if not rep.task_type.decisions:  # the seed's views (radar, per-cluster rates) are those of binary decisions
        _print_task_rankings(rep, spec)
        if path:
            print(f"Report: {path}")
        return 0

    common.print_frame(rep.summary(), SUMMARY_CAPTION + ":")
    if rep.validated is not None:
        cv = rep.cluster_validation()
        common.print_frame(cv.sort_values("fairness_index", ascending=False).head(spec.top)[
            ["algorithm", "features", "k", "fairness_index", "fairness_separation", "silhouette", "selected"]],
            f"Clustering models by fairness validation index, top {spec.top} of {len(cv)}:")
        print(cv.attrs["why"])
        print()
    note = auto_k_note(rep) if rep.has_clusters else None
    if note is not None:
        print(note)
        print()
    lop = rep.lopsided
    if lop["lopsided"]:
        print(f"The clustering ({rep.clustering}, {common.count(rep.n_clusters, 'cluster')}) is lopsided: "
              f"{lop['reason']}.")
        if isinstance(alternatives, str):
            print(alternatives)
        elif alternatives is not None:
            suggestion = alternatives.attrs.get("suggestion")
            if suggestion is None:
                print("Every other clusterer compared at that number of clusters"
                      f"{alternatives_sample_text(alternatives, ' ({})')} is lopsided too.")
            else:
                row = alternatives.loc[[suggestion]].iloc[0]
                at = common.count(rep.n_clusters, 'cluster')
                print(f"Not lopsided at {at}: --clustering {suggestion[0]} (largest cluster "
                      f"{float(row['largest_share']):.1%} of the rows, {int(row['tiny_clusters'])} clusters with at "
                      f"most 1%{alternatives_sample_text(alternatives, '; {}')}).")
        print()
    from ..report.sections import patterns_as_in_table
    from ..report.significance import in_report_family, p_columns_text

    if texts is None:  # no entropy patterns (discovery "patterns"): the answer and the discovery table said it all
        if path:
            print(f"Report: {path}")
        return 0
    rk = rep.ranking("statistical_parity", kind="entropy", n=None, alpha=spec.alpha, min_size=spec.min_size,
                     ci=spec.ci)
    # significant as in the answer: a finding of the whole report's family, with its adjusted p
    rk = in_report_family(rep, rk, "statistical_parity", "entropy", "disadvantaged", spec.alpha, spec.ci, spec.top)
    rk.attrs["n_permutations"] = rep.options.n_permutations
    if spec.alpha is None:
        common.print_frame(patterns_as_in_table(rk, texts),
                           f"Top {spec.top} entropy-based subgroups by statistical parity (rest minus subgroup; "
                           "raw values, no significance filter):")
    elif len(rk):
        common.print_frame(p_columns_text(patterns_as_in_table(rk, texts), rep.options.n_permutations),
                           f"Entropy-based subgroups significantly disadvantaged by statistical parity "
                           f"(adjusted p < {spec.alpha:g}, the answer's family; rest minus subgroup), top {spec.top}:")
    elif rep.candidate_metrics.sampling.undecidable(spec.alpha, rep.options.n_permutations):
        print("Entropy-based subgroups by statistical parity: cannot decide (too few clusters; see the answer).")
    else:
        print(common.significance_line(rk, "statistical parity", "entropy-based subgroup"))
    if path:
        print(f"Report: {path}")
    return 0


def _print_task_rankings(rep: SubgroupReport, spec: SubgroupsSpec) -> None:
    """A multi-class, ordinal or regression audit: the most disadvantaged subgroups by each metric."""
    from ..detectors.subgroup_metrics import metric_label
    from ..report.sections import q_columns_as_text

    metrics = rep.candidate_metrics
    if spec.alpha is not None:
        why = metrics.sampling.undecidable(spec.alpha, rep.options.n_permutations)
        if why:  # too few clusters: no ranking can say "no subgroup is significantly disadvantaged"
            print(f"Cannot decide which subgroups are disadvantaged: {why[len('cannot decide: '):]}.")
            print()
            return
    for metric in metrics.names:
        base, label = rep.task_type.ranking_arguments(metric)  # one class of a multi-class: its label
        rk = rep.ranking(base, kind="all", n=spec.top, alpha=spec.alpha, min_size=spec.min_size, ci=spec.ci,
                         label=label)
        label_text = metric_label(metric)
        # only the metric's first letter lowered: class names keep their case (Dog and dog are two classes)
        name = label_text[:1].lower() + label_text[1:]
        if len(rk):
            common.print_frame(q_columns_as_text(rk), f"Most disadvantaged by {name} (top {spec.top}"
                               + ("" if spec.alpha is None else f", adjusted p < {spec.alpha:g}") + "):")
        elif spec.alpha is not None:
            print(f"No subgroup is significantly disadvantaged by {name} (adjusted p < {spec.alpha:g}).")
            print()


def _print_discovery(rep: SubgroupReport, alpha: float, ci: float) -> None:
    """The comparison of the discovery methods and the findings under one family-wise error."""

    from ..report.significance import p_columns_text

    summary = rep.discovery_summary(alpha, ci)
    found = rep.findings(alpha, ci)
    b = int(found.attrs["n_permutations"])
    shown = summary[["method", "candidates", "significant", "best", "metric", "value", "ci_low", "ci_high",
                     "p_adjusted"]].set_index("method")
    common.print_frame(p_columns_text(shown, b),
                       f"Discovery methods (family-wise error {alpha:g} over the whole report: every candidate, "
                       f"metric and direction, B = {b:,} permutations; best = smallest adjusted p):")
    if found.attrs.get("undecidable"):  # no method can find anything: say why, not "found none"
        print("No method can find a subgroup here: cannot decide (too few clusters; see the answer).")
        print()
        return
    print(summary.attrs["sentence"])
    # the two counts side by side: subgroups per method before nested findings are left out, findings after
    print(f"\"significant\" counts each method's subgroups with a finding before the nested findings that say "
          f"the same as a listed one are left out ({found.attrs.get('n_redundant', 0):,} findings); the answer "
          f"lists the {len(found):,} findings left (one per subgroup, metric and direction).")
    print()
    # the findings themselves are the answer's table, printed first (the same list as the report's)


def add_analysis_options(parser: common.Parser, initial: str = "", given_or_not: bool = False) -> None:
    """The subgroup-discovery options shared by ``subgroups`` and ``dashboard``, from the family's parameter table.

    Args:
        parser: the command's parser.
        initial: words before each help, e.g. "initial setting: " where the dashboard's controls change them later.
        given_or_not: parse to None when an option is not given (the command fills in the table's default after
            checking that the option applies).
    """
    rule = SUBGROUP_PARAMS["entropy_threshold"]
    parser.add_argument("--entropy-threshold", type=common.option_type(rule),
                        default=None if given_or_not else rule.default, metavar="T",
                        help=initial + common.choices_help(rule))
    rule = SUBGROUP_PARAMS["clustering"]
    parser.add_argument("--clustering", default=None if given_or_not else rule.default, choices=rule.choices,
                        help=f"{initial}{rule.help} (default: {rule.default}, single linkage)")
    rule = SUBGROUP_PARAMS["n_clusters"]
    parser.add_argument("--n-clusters", type=common.option_type(rule, none=False), default=None, metavar="K",
                        help=f"{initial}number of clusters the --clustering method forms, at least 2 (default: K "
                             "chosen by x-means (BIC), then the rows are clustered by --clustering into K clusters)")
    parser.add_argument("--categorical", nargs="+", metavar="C",
                        help="categorical columns (default: detected from the values)")


def add_arguments(sg: common.Parser) -> None:
    """Add the command's arguments and options to its parser ``sg``."""
    sg.add_argument("data", metavar="DATA", help="a CSV table, or a published dataset (file or folder)")
    sg.add_argument("--label-col", metavar="C", help="CSV table: ground-truth label column")
    inputs.add_input_options(sg, model_task=True)
    sg.add_argument("--favorable-label", metavar="V", help=f"the favourable label (default: "
                    f"{inputs.DEFAULT_FAVORABLE}; required for labels other than 0/1)")
    add_analysis_options(sg, given_or_not=True)
    sg.add_argument("--columns", nargs="+", metavar="C", help="attribute columns to use (default: all others; "
                    "annotation data: all annotator attributes)")
    sg.add_argument("--exclude", nargs="+", metavar="C", help="columns to leave out (e.g. ids)")
    rule = SUBGROUP_PARAMS["n"]
    sg.add_argument("--top", type=common.option_type(rule), default=rule.default, metavar="N",
                    help=common.choices_help(rule))
    rule = SUBGROUP_PARAMS["alpha"]
    sg.add_argument("--alpha", type=common.option_type(rule), default=rule.default, metavar="A",
                    help="rank only subgroups significantly disadvantaged at family-wise error A (permutation "
                         f"max-T over every candidate); 'none' for the raw ranking of the ASDF paper (default: "
                         f"{rule.default})")
    for name, metavar in (("min_size", "N"), ("ci", "L")):
        rule = SUBGROUP_PARAMS[name]
        sg.add_argument("--" + name.replace("_", "-"), type=common.option_type(rule), default=rule.default,
                        metavar=metavar, help=common.choices_help(rule))
    rule = SUBGROUP_PARAMS["discovery"]
    sg.add_argument("--discovery", default=rule.default, choices=rule.choices, help=common.choices_help(rule))
    add_task_options(sg)
    sg.add_argument("--groups", metavar="C", help="CSV table: a column holding a cluster id (person, item, "
                    "household): whole clusters are permuted and resampled, and the column is not a feature")
    rule = SUBGROUP_PARAMS["clusterings"]
    sg.add_argument("--clusterings", default=rule.default, choices=rule.choices, help=common.choices_help(rule))
    rule = SUBGROUP_PARAMS["clustering_models"]
    sg.add_argument("--clustering-models", nargs="+", metavar="A", type=str,
                    help="with --clusterings validated: the algorithms (slink, kmeans, ward, gmm, gmm_core, hdbscan, "
                         "scan), each on every numeric column and each pair of them (scan: each pair and, with at most "
                         "10 numeric columns, each triple) at k = 5, 10, 20, 40 as the rows allow (default: gmm_core)")
    sg.add_argument("--out", metavar="report.html", help="write an HTML report")
    common.add_progress_option(sg)
    from .subgroups_spark import add_engine_options

    add_engine_options(sg)
