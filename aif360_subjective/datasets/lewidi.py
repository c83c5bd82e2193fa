"""Perspectivist datasets in the LeWiDi JSON format (MultiPICo, and the LeWiDi 2023/2025 shared tasks).

A data file (``<Dataset>_train.json``, ``_dev.json``, ``_test.json``) is one JSON object mapping item ids to
item records::

    {"2": {"annotation task": "irony detection",
           "text": {"post": "...", "reply": "..."},
           "annotators": "Ann0,Ann20,Ann59",
           "number of annotations": 3,
           "annotations": {"Ann0": "0", "Ann20": "1", "Ann59": "1"},
           "soft_label": {"0.0": 0.33, "1.0": 0.67},
           "split": "dev", "lang": "en",
           "other_info": {"source": "reddit", "level": 1.0, "language_variety": "in"}}, ...}

and ``<Dataset>_annotators_meta.json`` maps annotator keys to demographics. In MultiPICo the keys are
``"0".."505"`` standing for annotators ``"Ann0".."Ann505"``, and missing values are written
``"DATA_EXPIRED"`` (the crowdsourcing platform's data expired) or ``"Prefer not to say"``.

References:
    S. Casola, S. Frenda, S. M. Lo, E. Sezerer, A. Uva, V. Basile, C. Bosco, A. Pedrani, C. Rubagotti,
    V. Patti, D. Bernardi, "MultiPICo: Multilingual Perspectivist Irony Corpus", ACL 2024.
    E. Leonardelli, G. Abercrombie, D. Almanla, V. Basile, T. Fornaciari, B. Plank, V. Rieser, A. Uma,
    M. Poesio, "SemEval-2023 Task 11: Learning with Disagreements (LeWiDi)", SemEval 2023.
    LeWiDi 3rd edition data and format: https://github.com/Le-Wi-Di/le-wi-di.github.io (LeWiDi_3-2025).
"""

from __future__ import annotations

import json
import os
import re
import warnings
from collections.abc import Collection, Sequence
from itertools import chain
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from ._encoding import MISSING_CODE  # noqa: F401  (named in the docstrings)
from .multi_annotator import MultiAnnotatorDataset

#: Strings that stand for a missing annotator attribute in the metadata files.
MISSING_VALUES = ("DATA_EXPIRED", "Prefer not to say")
#: The split files a folder may hold, in reading order.
SPLITS = ("train", "dev", "test")

_HOW_TO_GET = (
    "The LeWiDi datasets (MultiPICo as MP_*.json, and CSC, Par, VariErrNLI) are published at "
    "https://github.com/Le-Wi-Di/le-wi-di.github.io (folder LeWiDi_3-2025/<dataset>/); put a dataset's "
    "<Dataset>_{train,dev,test}.json and <Dataset>_annotators_meta.json files in one folder and pass that "
    "folder (or a file) as path_or_dir."
)


class LeWiDiTables(NamedTuple):
    """The tables of a LeWiDi dataset, ready for a multi-annotator dataset.

    Attributes:
        annotations: one row per annotation, items in file order and annotators in record order:
            ``item`` (str id), ``annotator`` (str, e.g. ``"Ann12"``), ``raw_label`` (the label as written).
        annotators: indexed by annotator id: the metadata fields, missing values as NaN, numeric fields
            (e.g. ``Age``) as float64. Empty (no columns) when no metadata was read.
        items: indexed by item id (str): the ``text`` fields (e.g. ``post``, ``reply``), the ``other_info``
            fields (e.g. ``source``, ``level``, ``language_variety``), ``lang``, ``split``,
            ``annotation_task`` and ``soft_label`` (the published distribution, a dict per item, keys as
            written: MultiPICo's dev file writes ``"0.0"``/``"1.0"``, its test file ``"0"``/``"1"``).
        files: the data files read, in order.
        other_info_columns: the item columns that came from ``other_info``.
    """

    annotations: pd.DataFrame
    annotators: pd.DataFrame
    items: pd.DataFrame
    files: tuple[Path, ...] = ()
    other_info_columns: tuple[str, ...] = ()


def _load_json(path: Path) -> object:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON ({exc})") from None


def _split_of(path: Path) -> str | None:
    m = re.search(r"_(train|dev|test)\.json$", path.name)
    return m.group(1) if m else None


def resolve_files(
    path_or_dir: str | os.PathLike | Sequence[str | os.PathLike],
    split: str | Sequence[str] | None = None,
) -> list[Path]:
    """The data files to read.

    Args:
        path_or_dir: a data file, a sequence of data files, or a folder holding ``*_train.json``,
            ``*_dev.json``, ``*_test.json``.
        split: with a folder, the split(s) to read (default: every split file present); with files, the
            files must be of these splits (by their ``_<split>.json`` suffix).

    Returns:
        list[pathlib.Path]: existing files, in the order given (folders: train, dev, test).

    Raises:
        FileNotFoundError: a file or folder does not exist, or a folder has none of the split files asked for
            (the message says what is expected and where to get it).
        ValueError: an unknown split, or two data files for one split in a folder.
        TypeError: ``path_or_dir`` is not a path or a sequence of paths.
    """
    if split is None:
        splits = None
    else:
        splits = (split,) if isinstance(split, str) else tuple(split)
        unknown = [s for s in splits if s not in SPLITS]
        if unknown or not splits:
            raise ValueError(f"split must be one of {SPLITS} or a sequence of them, got {split!r}")
    if isinstance(path_or_dir, (str, os.PathLike)):
        candidates = [Path(path_or_dir).expanduser()]
    elif isinstance(path_or_dir, Sequence) and path_or_dir and all(
        isinstance(p, (str, os.PathLike)) for p in path_or_dir
    ):
        candidates = [Path(p).expanduser() for p in path_or_dir]
    else:
        raise TypeError(
            f"path_or_dir must be a path or a non-empty sequence of paths, got {type(path_or_dir).__name__}"
        )
    if len(candidates) == 1 and candidates[0].is_dir():
        folder = candidates[0]
        files = []
        for s in splits or SPLITS:
            found = sorted(folder.glob(f"*_{s}.json"))
            if len(found) > 1:
                raise ValueError(
                    f"{folder} holds several {s} files ({[p.name for p in found]}); pass the file(s) to read"
                )
            if found:
                files.append(found[0])
            elif splits is not None:
                raise FileNotFoundError(f"no '*_{s}.json' file in {folder}. {_HOW_TO_GET}")
        if not files:
            raise FileNotFoundError(
                f"no LeWiDi data file ('*_train.json', '*_dev.json' or '*_test.json') in {folder}. "
                f"{_HOW_TO_GET}"
            )
        return files
    missing = [p for p in candidates if not p.is_file()]
    if missing:
        raise FileNotFoundError(f"LeWiDi data file(s) not found: {[str(p) for p in missing]}. {_HOW_TO_GET}")
    if splits is not None:
        other = [p.name for p in candidates if _split_of(p) not in splits]
        if other:
            raise ValueError(f"split={split!r} but these files are of another split: {other}")
    return candidates


def find_annotators_meta(files: Sequence[Path]) -> Path | None:
    """The ``*_annotators_meta.json`` next to the data files (None if there is none).

    Raises:
        ValueError: several metadata files in that folder.
    """
    folder = files[0].parent
    prefix = files[0].name.rsplit("_", 1)[0]
    own = folder / f"{prefix}_annotators_meta.json"
    if own.is_file():
        return own
    found = sorted(folder.glob("*_annotators_meta.json"))
    if len(found) > 1:
        raise ValueError(
            f"{folder} holds several annotator metadata files ({[p.name for p in found]}); "
            "pass annotators_meta=<file>"
        )
    return found[0] if found else None


def read_items(path: str | os.PathLike) -> tuple[pd.DataFrame, pd.DataFrame, tuple[str, ...]]:
    """Read one LeWiDi data file.

    The nested records are flattened with one comprehension per item (what JSON parsing needs anyway); the
    annotation table is built from flat arrays in one go.

    Args:
        path: the JSON file.

    Returns:
        (annotations, items, other_info_columns) as in :class:`LeWiDiTables`.

    Raises:
        ValueError: not JSON, or not the LeWiDi structure (the message names the item and the field).
    """
    path = Path(path)
    data = _load_json(path)
    if not isinstance(data, dict):
        raise ValueError(
            f"{path}: expected a JSON object mapping item ids to item records, "
            f"got a JSON {type(data).__name__}"
        )
    if not data:
        raise ValueError(f"{path}: the file holds no item")
    keys = list(data)
    for key in keys:
        rec = data[key]
        if not isinstance(rec, dict):
            raise ValueError(f"{path}: item {key!r} must be a JSON object, got {type(rec).__name__}")
        ann = rec.get("annotations")
        if not isinstance(ann, dict):
            raise ValueError(
                f"{path}: item {key!r} must have an 'annotations' object mapping annotator ids to labels, "
                f"got {type(ann).__name__ if ann is not None else 'nothing'}"
            )
        for field in ("text", "other_info"):
            if field in rec and not isinstance(rec[field], dict):
                raise ValueError(f"{path}: item {key!r}: field {field!r} must be a JSON object")
    counts = np.fromiter((len(data[k]["annotations"]) for k in keys), dtype=np.int64, count=len(keys))
    # chain.from_iterable flattens the per-item dicts in C: no Python step per annotation.
    annotators = list(chain.from_iterable(data[k]["annotations"] for k in keys))
    raw = list(chain.from_iterable(data[k]["annotations"].values() for k in keys))
    raw_arr = np.empty(len(raw), dtype=object)
    raw_arr[:] = raw
    # infer_dtype scans in C; only a failing file pays for the Python search of the culprit.
    kind = pd.api.types.infer_dtype(raw_arr, skipna=False)
    pos = None
    if kind not in ("string", "integer", "floating", "mixed-integer-float", "empty"):
        bad = (i for i, v in enumerate(raw) if not isinstance(v, (str, int, float)) or isinstance(v, bool))
        pos = next(bad, None)
    if pos is not None:
        item = keys[int(np.searchsorted(np.cumsum(counts), pos, side="right"))]
        raise ValueError(
            f"{path}: item {item!r}: annotator {annotators[pos]!r} has the label {raw[pos]!r}; "
            "labels must be single values (a string or a number)"
        )
    annotations = pd.DataFrame(
        {
            "item": np.repeat(np.array(keys, dtype=object), counts),
            "annotator": np.array(annotators, dtype=object),
            "raw_label": raw_arr,
        }
    )

    text_cols = list(dict.fromkeys(c for k in keys for c in data[k].get("text", {})))
    info_cols = list(dict.fromkeys(c for k in keys for c in data[k].get("other_info", {})))
    reserved = {"lang", "split", "annotation_task", "soft_label"}
    clash = (set(text_cols) & set(info_cols)) | ((set(text_cols) | set(info_cols)) & reserved)
    if clash:
        raise ValueError(f"{path}: the field name(s) {sorted(clash)} occur in several parts of the records")
    columns: dict[str, list] = {}
    for c in text_cols:
        columns[c] = [data[k].get("text", {}).get(c) for k in keys]
    for c in info_cols:
        columns[c] = [data[k]["other_info"].get(c) for k in keys]
    columns["lang"] = [data[k].get("lang") for k in keys]
    columns["split"] = [data[k].get("split") for k in keys]
    columns["annotation_task"] = [data[k].get("annotation task") for k in keys]
    columns["soft_label"] = [data[k].get("soft_label") for k in keys]
    items = pd.DataFrame(columns, index=pd.Index(keys, dtype=object, name="item"))
    for c in info_cols:
        items[c] = _maybe_numeric(items[c])
    return annotations, items, tuple(info_cols)


def _maybe_numeric(col: pd.Series) -> pd.Series:
    """The column as float64 if all its present values are numbers (or numeric strings), else unchanged."""
    present = col.notna()
    if not present.any():
        return col
    if col[present].map(lambda v: isinstance(v, (list, dict, bool))).any():
        return col
    num = pd.to_numeric(col, errors="coerce")
    return num.astype(np.float64) if num.notna().sum() == present.sum() else col


def read_annotators_meta(
    path: str | os.PathLike, missing_values: Collection[str] = MISSING_VALUES
) -> pd.DataFrame:
    """Read a ``<Dataset>_annotators_meta.json`` file.

    Annotator ids: a record's ``Annotator_id`` field if it has one; else its key if that starts with
    ``"Ann"``; else ``"Ann" + key`` (MultiPICo's keys ``"0".."505"`` are annotators ``"Ann0".."Ann505"``).

    Args:
        path: the JSON file.
        missing_values: strings that mean "missing" (become NaN).

    Returns:
        pandas.DataFrame: indexed by annotator id (``annotator``), one column per field in file order;
        columns whose present values are all numbers become float64.

    Raises:
        ValueError: not JSON, not an object of objects, nested values, or repeated annotator ids.
    """
    path = Path(path)
    data = _load_json(path)
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise ValueError(
            f"{path}: expected a JSON object mapping annotator keys to objects of attributes "
            "(e.g. {\"0\": {\"Age\": 19.0, \"Gender\": \"Female\"}})"
        )
    ids = [
        str(rec["Annotator_id"]) if "Annotator_id" in rec else (key if key.startswith("Ann") else f"Ann{key}")
        for key, rec in data.items()
    ]
    frame = pd.DataFrame.from_records(
        [{k: v for k, v in rec.items() if k != "Annotator_id"} for rec in data.values()],
        index=pd.Index(ids, dtype=object, name="annotator"),
    )
    if frame.index.has_duplicates:
        dup = frame.index[frame.index.duplicated()].unique()
        raise ValueError(f"{path}: annotator id(s) {list(dup[:5])} occur more than once")
    for col in frame.columns:
        s = frame[col]
        if s.map(lambda v: isinstance(v, (list, dict))).any():
            raise ValueError(f"{path}: attribute {col!r} holds nested values; expected single values")
        s = s.where(~s.isin(list(missing_values)))
        frame[col] = _maybe_numeric(s)
    return frame


def load_lewidi_tables(
    path_or_dir: str | os.PathLike | Sequence[str | os.PathLike],
    annotators_meta: str | os.PathLike | bool | None = None,
    split: str | Sequence[str] | None = None,
    missing_values: Collection[str] = MISSING_VALUES,
) -> LeWiDiTables:
    """Read LeWiDi data files (several are concatenated) and the annotator metadata.

    Args:
        path_or_dir: a data file, several, or a folder (see :func:`resolve_files`).
        annotators_meta: the metadata file; ``None`` looks for ``*_annotators_meta.json`` next to the data (a
            warning if there is none); ``False`` reads none.
        split: split(s) to read from a folder.
        missing_values: metadata strings that mean "missing".

    Returns:
        LeWiDiTables

    Raises:
        FileNotFoundError: data or metadata files missing (with where to get them).
        ValueError: malformed files, or an item id in two files.
    """
    files = resolve_files(path_or_dir, split)
    parts = [read_items(p) for p in files]
    items = pd.concat([p[1] for p in parts]) if len(parts) > 1 else parts[0][1]
    if items.index.has_duplicates:
        dup = items.index[items.index.duplicated()].unique()
        raise ValueError(
            f"item id(s) {list(dup[:5])} occur in several of {[p.name for p in files]}; read them separately"
        )
    annotations = (
        pd.concat([p[0] for p in parts], ignore_index=True) if len(parts) > 1 else parts[0][0]
    )
    info_cols = tuple(dict.fromkeys(c for p in parts for c in p[2]))
    if annotators_meta is None:
        meta_path = find_annotators_meta(files)
        if meta_path is None:
            warnings.warn(
                f"no '*_annotators_meta.json' next to {files[0]}: the dataset has no annotator attributes "
                "(pass annotators_meta=<file>, or annotators_meta=False to silence this)",
                stacklevel=2,
            )
    elif annotators_meta is False:
        meta_path = None
    elif annotators_meta is True:
        meta_path = find_annotators_meta(files)
        if meta_path is None:
            raise FileNotFoundError(f"no '*_annotators_meta.json' next to {files[0]}. {_HOW_TO_GET}")
    else:
        meta_path = Path(annotators_meta).expanduser()
        if not meta_path.is_file():
            raise FileNotFoundError(f"annotator metadata file not found: {meta_path}. {_HOW_TO_GET}")
    if meta_path is None:
        annotators = pd.DataFrame(index=pd.Index([], dtype=object, name="annotator"))
    else:
        annotators = read_annotators_meta(meta_path, missing_values)
    return LeWiDiTables(annotations, annotators, items, tuple(files), info_cols)


def binary_labels(raw: pd.Series, positive_labels: Collection | None = None) -> np.ndarray:
    """The 0/1 labels of raw LeWiDi labels.

    Args:
        raw: the labels as written (MultiPICo: the strings ``"0"`` and ``"1"``).
        positive_labels: raw values that become 1 (compared as strings, e.g. ``{"4", "5", "6"}`` for the
            1-6 sarcasm scale of CSC); ``None``: the raw values must already be 0/1 (as numbers or strings).

    Returns:
        numpy.ndarray: int64 0/1.

    Raises:
        ValueError: with ``positive_labels=None``, a value that is not 0 or 1.
    """
    if positive_labels is not None:
        if isinstance(positive_labels, (str, bytes)) or not isinstance(positive_labels, Collection):
            raise TypeError(f"positive_labels must be a collection of label values, got {positive_labels!r}")
        return raw.astype(str).isin([str(v) for v in positive_labels]).to_numpy(dtype=np.int64)
    num = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isin(num, (0.0, 1.0))
    if bad.any():
        values = pd.unique(raw[bad])[:8].tolist()
        raise ValueError(
            f"labels must be 0 or 1 ('0'/'1'); {int(bad.sum())} annotation(s) are not, e.g. {values}: pass "
            "positive_labels=<raw values meaning 1> to binarise another label scale"
        )
    return num.astype(np.int64)


class LeWiDiDataset(MultiAnnotatorDataset):
    """A LeWiDi/perspectivist JSON dataset (e.g. MultiPICo) as a :class:`MultiAnnotatorDataset`.

    Rows are annotations (items in file order, annotators in record order), item ids the JSON keys (str),
    annotator ids as in the files (``"Ann12"``). Label column ``label``: the published label as a number;
    for MultiPICo 1 = ironic, 0 = not ironic.

    Favourable label: 0 by default, the package's convention for detection tasks (as for
    :class:`WikipediaTalkDataset`, where 1 = toxic): the favourable outcome for an author is that their
    post is *not* flagged, so rates of "not flagged" are compared across groups the same way for every
    dataset. Irony is not harmful in itself, so pass ``favorable_label=1`` if the ironic reading is the
    outcome of interest; opinion-exclusion measures, which compare annotators with the majority, do not
    depend on this choice.

    :attr:`items` holds the ``text`` fields (MultiPICo: ``post``, ``reply``), the ``other_info`` fields
    (``source``, ``level``, ``language_variety``), ``lang``, ``split``, ``annotation_task`` and the
    published ``soft_label``. Item features: by default the numeric ``other_info`` fields (``level``); name
    categorical ones in ``item_features`` to one-hot code them (e.g. ``["level", "lang", "source"]``).
    Protected attributes: the annotator metadata fields (MultiPICo: Age, Gender, Ethnicity simplified,
    Country of birth, Country of residence, Nationality, Student status, Employment status), the missing
    values ``"DATA_EXPIRED"`` and ``"Prefer not to say"`` coded as missing (:data:`MISSING_CODE`).

    Example:
        >>> ds = LeWiDiDataset("~/aif360_subjective_data/multipico", split="dev")   # doctest: +SKIP

    References:
        S. Casola et al., "MultiPICo: Multilingual Perspectivist Irony Corpus", ACL 2024.
        E. Leonardelli et al., "SemEval-2023 Task 11: Learning with Disagreements (LeWiDi)", SemEval 2023.
    """

    def __init__(
        self,
        path_or_dir: str | os.PathLike | Sequence[str | os.PathLike],
        annotators_meta: str | os.PathLike | bool | None = None,
        split: str | Sequence[str] | None = None,
        *,
        favorable_label: int = 0,
        positive_labels: Collection | None = None,
        item_features: Sequence[str] | None = None,
        protected_attribute_names: Sequence[str] | None = None,
        missing_values: Collection[str] = MISSING_VALUES,
    ) -> None:
        """
        Args:
            path_or_dir: a data file (``MP_dev.json``), several (read together), or a folder (every
                ``*_train/dev/test.json`` in it, or those of ``split``).
            annotators_meta: the annotator metadata file; ``None`` = the ``*_annotators_meta.json`` next to
                the data (warning if absent); ``True`` = the same but required; ``False`` = none.
            split: with a folder, the split(s) to read, e.g. ``"dev"`` or ``["dev", "test"]``.
            favorable_label: 0 (default, "not ironic") or 1.
            positive_labels: raw label values that mean 1, to binarise a non-binary scale (the raw labels are
                then kept in :attr:`annotation_info` as ``raw_label``); ``None``: labels must be 0/1.
            item_features: item columns used as features (default: the numeric ``other_info`` fields).
            protected_attribute_names: metadata columns used as protected attributes (default: all).
            missing_values: metadata strings that mean "missing".

        Raises:
            FileNotFoundError: data or metadata files missing (the message says where to get them).
            ValueError: malformed JSON or structure (the item and field are named), labels that are not
                0/1 without ``positive_labels``, or an item id in two files.
        """
        if favorable_label not in (0, 1) or isinstance(favorable_label, bool):
            raise ValueError(f"favorable_label must be 0 or 1, got {favorable_label!r}")
        tables = load_lewidi_tables(path_or_dir, annotators_meta, split, missing_values)
        annotations = tables.annotations.assign(label=binary_labels(tables.annotations["raw_label"],
                                                                    positive_labels))
        if item_features is None:
            item_features = [
                c for c in tables.other_info_columns if pd.api.types.is_numeric_dtype(tables.items[c])
            ]
        annotators = tables.annotators if len(tables.annotators.columns) else None
        self.files = tables.files
        super().__init__(
            annotations,
            info_columns=("raw_label",) if positive_labels is not None else (),
            item_col="item",
            annotator_col="annotator",
            label_col="label",
            annotators=annotators,
            items=tables.items,
            favorable_label=favorable_label,
            unfavorable_label=1 - favorable_label,
            protected_attribute_names=protected_attribute_names if annotators is not None else None,
            item_features=item_features,
            metadata={
                "dataset": "LeWiDi: " + ", ".join(p.name for p in tables.files),
                "files": [str(p) for p in tables.files],
                "n_items_without_annotations": int((~tables.items.index.isin(annotations["item"])).sum()),
            },
        )
