"""Perspectivist datasets in the LeWiDi JSON formats (MultiPICo, CSC, and the LeWiDi 2023/2025 shared tasks).

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

and ``<Dataset>_annotators_meta.json`` maps annotator keys to demographics (the 2025 layout). The 2023
layout (SemEval-2023 Task 11) writes ``"annotators": "Ann1,Ann2,Ann3"`` and ``"annotations": "0,1,1"`` as
comma-separated strings in the same order, ``text`` as a string, adds ``hard_label``, has no metadata file,
and gives annotator groups in ``other_info`` (HS-Brexit: ``"annotators group": "group1,...,group2"`` in
the order of ``annotators``; ArMIS: ``{"Ann1": "Moderate_Female", ...}``). In MultiPICo the keys are
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
    "folder (or a file) as path_or_dir. The 2023 datasets (HS-Brexit, ArMIS, MD-Agreement, ConvAbuse) are in "
    "its folder LeWiDi_2-2023/<dataset>/ (no metadata file)."
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
        layout: ``"2025"`` (``annotations`` objects) or ``"2023"`` (comma-separated strings).
        group_names: published annotator-group codes -> readable names (HS-Brexit), else empty.
        repeated_annotations: annotations dropped because their (item, annotator) pair was already read
            (columns ``item``, ``annotator``, ``raw_label``, ``kept_label``); empty if none.
    """

    annotations: pd.DataFrame
    annotators: pd.DataFrame
    items: pd.DataFrame
    files: tuple[Path, ...] = ()
    other_info_columns: tuple[str, ...] = ()
    layout: str = "2025"
    group_names: dict | None = None
    repeated_annotations: pd.DataFrame | None = None


def _load_json(path: Path) -> object:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON ({exc})") from None
    except UnicodeDecodeError as exc:  # e.g. a Latin-1 file: name the file and the byte, not only the codec
        raise ValueError(f"{path}: not UTF-8 text (byte {exc.object[exc.start]:#04x} at offset {exc.start}); "
                         "JSON files must be UTF-8, re-save it as UTF-8") from None


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


class _FileParts(NamedTuple):
    """What one data file holds (see :func:`read_items`)."""

    annotations: pd.DataFrame
    items: pd.DataFrame
    other_info_columns: tuple[str, ...]
    layout: str
    group_names: dict


def _split_list(value: object, path: Path, key: str, field: str) -> list[str]:
    """A comma-separated LeWiDi 2023 field as a list of stripped strings."""
    if value is None and field in ("annotators", "annotations"):
        raise ValueError(
            f"{path}: item {key!r} must have an 'annotations' object mapping annotator ids to labels (2025 layout) "
            f"or comma-separated 'annotators' and 'annotations' strings (2023 layout); field {field!r} is missing"
        )
    if not isinstance(value, str):
        raise ValueError(
            f"{path}: item {key!r}: field {field!r} must be a comma-separated string in the 2023 layout, "
            f"got {type(value).__name__ if value is not None else 'nothing'}"
        )
    return [v.strip() for v in value.split(",")]


def _group_key(other_info: dict) -> str | None:
    """The key of HS-Brexit's per-item annotator groups (published as "annotators group"; the README
    writes "Annotators_group")."""
    for k in other_info:
        if isinstance(k, str) and k.lower().replace("_", " ") == "annotators group":
            return k
    return None


def _groups_2023(data: dict, keys: list[str], annotators: list[list[str]], path: Path):
    """Annotator groups of the 2023 layout, one per annotation (None where the file gives none).

    HS-Brexit: ``other_info["annotators group"]`` = ``"group1,group1,..."`` in the order of ``annotators``,
    with the readable names in ``other_info["group1"]`` etc. ArMIS: ``other_info`` maps each annotator id to
    its group (``{"Ann1": "Moderate_Female", ...}``).

    Returns:
        (groups per annotation or None, other_info keys consumed, readable group names)
    """
    groups: list = []
    consumed: set[str] = set()
    names: dict[str, str] = {}
    found = False
    for key, anns in zip(keys, annotators):
        info = data[key].get("other_info") or {}
        gk = _group_key(info)
        if gk is not None:
            g = _split_list(info[gk], path, key, f"other_info.{gk}")
            if len(g) != len(anns):
                raise ValueError(
                    f"{path}: item {key!r}: field 'other_info.{gk}' lists {len(g)} group(s) for "
                    f"{len(anns)} annotator(s); expected one group per annotator, in the order of 'annotators'"
                )
            consumed.add(gk)
            for gname in dict.fromkeys(g):
                if isinstance(info.get(gname), str):
                    names[gname] = info[gname]
                    consumed.add(gname)
            groups.extend(g)
            found = True
        elif anns and all(a in info for a in anns):
            # ArMIS: other_info maps annotator id -> group
            for a in anns:
                if not isinstance(info[a], str):
                    raise ValueError(
                        f"{path}: item {key!r}: field 'other_info.{a}' must be the annotator's group (a string), "
                        f"got {type(info[a]).__name__}"
                    )
            groups.extend(info[a].strip() for a in anns)
            consumed.update(anns)
            found = True
        else:
            groups.extend([None] * len(anns))
    return (groups if found else None), consumed, names


def read_items(path: str | os.PathLike) -> _FileParts:
    """Read one LeWiDi data file, in the 2025 layout or the 2023 (SemEval Task 11) layout.

    2025 layout (MultiPICo, CSC): ``annotations`` is an object ``{"Ann0": "1", ...}`` and ``text`` an object
    of fields. 2023 layout (HS-Brexit, ArMIS, MD-Agreement, ConvAbuse): ``annotators`` and ``annotations``
    are comma-separated strings in the same order, ``text`` is a string (ConvAbuse: a JSON string of the
    conversation, kept as written), ``hard_label`` is given, and annotator groups, when published, are in
    ``other_info`` (see :func:`_groups_2023`): they come back as the annotation column ``group``.

    The nested records are flattened with one comprehension per item (what JSON parsing needs anyway); the
    annotation table is built from flat arrays in one go.

    Args:
        path: the JSON file.

    Returns:
        (annotations, items, other_info_columns, layout, group_names): ``layout`` is ``"2023"`` or
        ``"2025"``; ``group_names`` maps published group codes to readable names (HS-Brexit:
        ``{"group1": "target group", "group2": "control group"}``).

    Raises:
        ValueError: not JSON, or not the LeWiDi structure (the message names the file, the item and the field).
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
    first = data[keys[0]]
    layout = "2023" if isinstance(first, dict) and isinstance(first.get("annotations"), str) else "2025"
    for key in keys:
        rec = data[key]
        if not isinstance(rec, dict):
            raise ValueError(f"{path}: item {key!r} must be a JSON object, got {type(rec).__name__}")
        ann = rec.get("annotations")
        if layout == "2025" and not isinstance(ann, dict):
            raise ValueError(
                f"{path}: item {key!r} must have an 'annotations' object mapping annotator ids to labels, "
                f"got {type(ann).__name__ if ann is not None else 'nothing'}"
            )
        if "other_info" in rec and not isinstance(rec["other_info"], dict):
            raise ValueError(f"{path}: item {key!r}: field 'other_info' must be a JSON object")
        if "text" in rec and not isinstance(rec["text"], dict if layout == "2025" else (dict, str)):
            raise ValueError(f"{path}: item {key!r}: field 'text' must be a JSON object")
    group_list = None
    consumed: set[str] = set()
    group_names: dict[str, str] = {}
    if layout == "2025":
        counts = np.fromiter((len(data[k]["annotations"]) for k in keys), dtype=np.int64, count=len(keys))
        # chain.from_iterable flattens the per-item dicts in C: no Python step per annotation.
        annotators = list(chain.from_iterable(data[k]["annotations"] for k in keys))
        raw = list(chain.from_iterable(data[k]["annotations"].values() for k in keys))
    else:
        ann_lists = [_split_list(data[k].get("annotators"), path, k, "annotators") for k in keys]
        lab_lists = [_split_list(data[k].get("annotations"), path, k, "annotations") for k in keys]
        for k, a, b in zip(keys, ann_lists, lab_lists):
            if len(a) != len(b):
                raise ValueError(
                    f"{path}: item {k!r}: field 'annotations' has {len(b)} label(s) for {len(a)} annotator(s) "
                    "in 'annotators'; expected one label per annotator, in the same order"
                )
            if "" in a or "" in b:
                raise ValueError(f"{path}: item {k!r}: an empty annotator id or label in 'annotators'/'annotations'")
        counts = np.fromiter(map(len, ann_lists), dtype=np.int64, count=len(keys))
        annotators = list(chain.from_iterable(ann_lists))
        raw = list(chain.from_iterable(lab_lists))
        group_list, consumed, group_names = _groups_2023(data, keys, ann_lists, path)
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
    columns_ann = {
        "item": np.repeat(np.array(keys, dtype=object), counts),
        "annotator": np.array(annotators, dtype=object),
        "raw_label": raw_arr,
    }
    if group_list is not None:
        groups = np.empty(len(group_list), dtype=object)
        groups[:] = group_list
        columns_ann["group"] = groups
    annotations = pd.DataFrame(columns_ann)

    def _text(k):
        t = data[k].get("text", {})
        return {"text": t} if isinstance(t, str) else t

    text_cols = list(dict.fromkeys(c for k in keys for c in _text(k)))
    info_cols = list(dict.fromkeys(
        c for k in keys for c in data[k].get("other_info", {}) if c not in consumed
    ))
    reserved = {"lang", "split", "annotation_task", "soft_label", "hard_label"}
    clash = (set(text_cols) & set(info_cols)) | ((set(text_cols) | set(info_cols)) & reserved)
    if clash:
        raise ValueError(f"{path}: the field name(s) {sorted(clash)} occur in several parts of the records")
    columns: dict[str, list] = {}
    for c in text_cols:
        columns[c] = [_text(k).get(c) for k in keys]
    for c in info_cols:
        columns[c] = [data[k].get("other_info", {}).get(c) for k in keys]
    columns["lang"] = [data[k].get("lang") for k in keys]
    columns["split"] = [data[k].get("split") for k in keys]
    columns["annotation_task"] = [data[k].get("annotation task") for k in keys]
    if layout == "2023":
        columns["hard_label"] = [data[k].get("hard_label") for k in keys]
    columns["soft_label"] = [data[k].get("soft_label") for k in keys]
    items = pd.DataFrame(columns, index=pd.Index(keys, dtype=object, name="item"))
    for c in info_cols:
        items[c] = _maybe_numeric(items[c])
    return _FileParts(annotations, items, tuple(info_cols), layout, group_names)


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
        ValueError: not JSON, not an object of objects, nested values, infinite numbers, or repeated annotator
            ids.
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
        if frame[col].dtype == np.float64 and np.isinf(frame[col].to_numpy()).any():
            who = frame.index[np.isinf(frame[col].to_numpy())]
            raise ValueError(f"{path}: attribute {col!r} of annotator {who[0]!r} is {frame[col][who[0]]} "
                             f"({len(who)} infinite value(s)); attributes must be finite numbers or text")
    return frame


def _group_table(annotations: pd.DataFrame) -> pd.DataFrame:
    """One ``group`` per annotator from the per-annotation groups, checking that it never changes.

    Raises:
        ValueError: an annotator is given two different groups (names the annotator, the groups and items).
    """
    known = annotations[annotations["group"].notna()]
    n_groups = known.groupby("annotator", sort=False)["group"].nunique()
    changing = n_groups.index[n_groups.to_numpy() > 1]
    if len(changing):
        a = changing[0]
        rows = known[known["annotator"] == a].drop_duplicates("group")
        seen = ", ".join(f"{g!r} (item {i!r})" for g, i in zip(rows["group"], rows["item"]))
        raise ValueError(
            f"annotator {a!r} is given different groups across items: {seen}; an annotator's group must "
            f"never change ({len(changing)} annotator(s) affected)"
        )
    first = known.drop_duplicates("annotator")
    return pd.DataFrame({"group": first["group"].to_numpy()},
                        index=pd.Index(first["annotator"].to_numpy(), dtype=object, name="annotator"))


def load_lewidi_tables(
    path_or_dir: str | os.PathLike | Sequence[str | os.PathLike],
    annotators_meta: str | os.PathLike | bool | None = None,
    split: str | Sequence[str] | None = None,
    missing_values: Collection[str] = MISSING_VALUES,
    split_prefix: bool | None = None,
) -> LeWiDiTables:
    """Read LeWiDi data files (several are concatenated) and the annotator metadata.

    Item ids: the JSON keys as published. The 2023 files number their items from ``"1"`` again in every
    split file, so when several 2023 files are read (``split_prefix=None``) every item id becomes
    ``"<split>:<key>"`` (e.g. ``"train:1"``, the split taken from the file name ``*_<split>.json``).

    An (item, annotator) pair listed twice in one item (MD-Agreement's test item ``"2038"`` lists
    ``Ann448`` twice) keeps its first label; the repeats are dropped, counted and returned in
    ``repeated_annotations`` (and a warning is issued).

    Args:
        path_or_dir: a data file, several, or a folder (see :func:`resolve_files`).
        annotators_meta: the metadata file; ``None`` looks for ``*_annotators_meta.json`` next to the data (a
            warning if there is none, the files give no annotator group and are in the 2025 layout);
            ``False`` reads none.
        split: split(s) to read from a folder.
        missing_values: metadata strings that mean "missing".
        split_prefix: prefix item ids with their split (``"dev:12"``); ``None`` = when several files of the
            2023 layout are read.

    Returns:
        LeWiDiTables

    Raises:
        FileNotFoundError: data or metadata files missing (with where to get them).
        ValueError: malformed files, files of different layouts, an annotator whose group changes, or an
            item id in two files (without ``split_prefix``).
    """
    files = resolve_files(path_or_dir, split)
    parts = [read_items(p) for p in files]
    layouts = {p.layout for p in parts}
    if len(layouts) > 1:
        raise ValueError(
            f"the files {[p.name for p in files]} mix the 2023 layout (comma-separated 'annotations') and the "
            "2025 layout ('annotations' objects); read them separately"
        )
    layout = layouts.pop()
    if split_prefix is None:
        split_prefix = layout == "2023" and len(files) > 1
    if split_prefix:
        labels = [_split_of(f) or f.stem for f in files]
        if len(set(labels)) < len(labels):
            raise ValueError(f"split_prefix needs one file per split; got {[f.name for f in files]}")
        renamed = []
        for lab, part in zip(labels, parts):
            ann = part.annotations.assign(item=lab + ":" + part.annotations["item"].astype(str))
            items = part.items.set_axis(pd.Index(lab + ":" + part.items.index.astype(str), dtype=object,
                                                 name="item"))
            renamed.append(part._replace(annotations=ann, items=items))
        parts = renamed
    items = pd.concat([p.items for p in parts]) if len(parts) > 1 else parts[0].items
    if items.index.has_duplicates:
        dup = items.index[items.index.duplicated()].unique()
        raise ValueError(
            f"item id(s) {list(dup[:5])} occur in several of {[p.name for p in files]}; read them separately "
            "or pass split_prefix=True"
        )
    annotations = (
        pd.concat([p.annotations for p in parts], ignore_index=True) if len(parts) > 1 else parts[0].annotations
    )
    repeated = annotations.duplicated(["item", "annotator"]).to_numpy()
    repeats = annotations.iloc[:0][["item", "annotator", "raw_label"]].assign(kept_label=[])
    if repeated.any():
        kept = annotations[~repeated].set_index(["item", "annotator"])["raw_label"]
        repeats = annotations.loc[repeated, ["item", "annotator", "raw_label"]].reset_index(drop=True)
        repeats["kept_label"] = kept.reindex(pd.MultiIndex.from_frame(repeats[["item", "annotator"]])).to_numpy()
        annotations = annotations[~repeated].reset_index(drop=True)
        warnings.warn(
            f"{len(repeats)} annotation(s) repeat an (item, annotator) pair already read (e.g. item "
            f"{repeats['item'].iloc[0]!r}, annotator {repeats['annotator'].iloc[0]!r}); the first label is kept "
            "and the repeats are listed in metadata['repeated_annotations']",
            stacklevel=2,
        )
    info_cols = tuple(dict.fromkeys(c for p in parts for c in p.other_info_columns))
    group_names: dict = {}
    for p in parts:
        group_names.update(p.group_names)
    groups = None
    if "group" in annotations.columns:
        groups = _group_table(annotations)
        annotations = annotations.drop(columns="group")
        if group_names:
            # the readable names the file gives (HS-Brexit: group1 -> "target group", group2 -> "control group"),
            # so that every table, figure and report names the groups as the data does
            groups["group"] = groups["group"].map(lambda g: group_names.get(g, g))
    if annotators_meta is None:
        meta_path = find_annotators_meta(files)
        if meta_path is None and groups is None and layout == "2025":  # 2023 publishes no metadata file
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
    if groups is not None:
        if "group" in annotators.columns:
            raise ValueError(f"{meta_path}: the metadata has a 'group' attribute and the data files give groups too")
        annotators = groups.join(annotators, how="outer") if len(annotators.columns) else groups
        annotators.index.name = "annotator"
    return LeWiDiTables(annotations, annotators, items, tuple(files), info_cols, layout, group_names, repeats)


def binary_labels(
    raw: pd.Series, positive_labels: Collection | None = None, positive_from: float | None = None
) -> np.ndarray:
    """The 0/1 labels of raw LeWiDi labels.

    Args:
        raw: the labels as written (MultiPICo: the strings ``"0"`` and ``"1"``).
        positive_labels: raw values that become 1 (compared as strings, e.g. ``{-3, -2, -1}`` for ConvAbuse's
            abuse severity, the published binary view, or ``{"4", "5", "6"}`` for CSC's 1-6 sarcasm scale).
        positive_from: a threshold on numeric ratings instead: a rating >= ``positive_from`` becomes 1 (CSC:
            ``positive_from=4``). At most one of ``positive_labels`` and ``positive_from``; neither: the raw
            values must already be 0/1 (as numbers or strings).

    Returns:
        numpy.ndarray: int64 0/1.

    Raises:
        ValueError: neither option and a value that is not 0 or 1; ``positive_from`` and a non-numeric label;
            both options given.
        TypeError: ``positive_labels`` is not a collection, or ``positive_from`` not a number.
    """
    if positive_labels is not None and positive_from is not None:
        raise ValueError("give positive_labels or positive_from, not both")
    if positive_labels is not None:
        if isinstance(positive_labels, (str, bytes)) or not isinstance(positive_labels, Collection):
            raise TypeError(f"positive_labels must be a collection of label values, got {positive_labels!r}")
        return raw.astype(str).isin([str(v) for v in positive_labels]).to_numpy(dtype=np.int64)
    num = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=np.float64)
    if positive_from is not None:
        if isinstance(positive_from, bool) or not isinstance(positive_from, (int, float, np.number)):
            raise TypeError(f"positive_from must be a number (a rating threshold), got {positive_from!r}")
        bad = np.isnan(num)
        if bad.any():
            values = pd.unique(raw[bad])[:8].tolist()
            raise ValueError(
                f"positive_from={positive_from} needs numeric ratings; {int(bad.sum())} annotation(s) are not, "
                f"e.g. {values}"
            )
        return (num >= float(positive_from)).astype(np.int64)
    bad = ~np.isin(num, (0.0, 1.0))
    if bad.any():
        values = pd.unique(raw[bad])[:8].tolist()
        raise ValueError(
            f"labels must be 0 or 1 ('0'/'1'); {int(bad.sum())} annotation(s) are not, e.g. {values}: an ordinal "
            "or severity scale needs a stated binary view: pass positive_from=<threshold> (rating >= threshold "
            "means 1) or positive_labels=<raw values meaning 1>"
        )
    return num.astype(np.int64)


class LeWiDiDataset(MultiAnnotatorDataset):
    """A LeWiDi/perspectivist JSON dataset as a :class:`MultiAnnotatorDataset`.

    Reads both published layouts: the 2025 one (MultiPICo, CSC: ``annotations`` objects and an
    ``*_annotators_meta.json``) and the 2023 one (SemEval-2023 Task 11: HS-Brexit, ArMIS, MD-Agreement,
    ConvAbuse: comma-separated ``annotators``/``annotations`` strings, no metadata file).

    Rows are annotations (items in file order, annotators in record order), item ids the JSON keys (str),
    annotator ids as in the files (``"Ann12"``; per dataset). Label column ``label``: the published label
    as a number; for MultiPICo 1 = ironic, 0 = not ironic.

    **Item ids across splits.** The 2023 files number their items from ``"1"`` in every split file, so
    reading several 2023 files makes the ids unique by prefixing the split: ``"train:1"``, ``"dev:1"``,
    ``"test:1"`` (``split_prefix``; a single file keeps the published keys).

    **Annotator groups (2023).** HS-Brexit and ArMIS publish each annotator's group in ``other_info``; it
    becomes the annotator attribute ``group`` (a protected attribute), with the readable names the file gives:
    HS-Brexit ``"target group"`` (published code ``group1``: Muslim immigrants in the UK) and ``"control
    group"`` (``group2``), the codes -> names map in ``metadata['group_names']``; ArMIS, which publishes no
    names, its values as published: ``Moderate_Female``, ``Liberal_Female``, ``Conservative_Male``.
    An annotator whose group differs between items is an error naming it.

    **Non-binary scales** need a stated binary view and keep the raw value in ``annotation_info["raw_label"]``:
    ConvAbuse's abuse severity -3..1 with ``positive_labels={-3, -2, -1}`` (the published binary view,
    1 = abusive); CSC's sarcasm ratings 1-6 with a threshold, e.g. ``positive_from=4``.

    Favourable label: 0 by default, the package's convention for detection tasks (as for
    :class:`WikipediaTalkDataset`, where 1 = toxic): the favourable outcome for an author is that their
    post is *not* flagged, so rates of "not flagged" are compared across groups the same way for every
    dataset. Irony is not harmful in itself, so pass ``favorable_label=1`` if the ironic reading is the
    outcome of interest; opinion-exclusion measures, which compare annotators with the majority, do not
    depend on this choice.

    :attr:`items` holds the ``text`` fields (MultiPICo: ``post``, ``reply``; 2023: ``text``), the
    ``other_info`` fields not used as groups (e.g. ``source``, ``level``, ``language_variety``; MD-Agreement
    ``domain``), ``lang``, ``split``, ``annotation_task``, 2023's ``hard_label`` and the published
    ``soft_label``. Item features: by default the numeric ``other_info`` fields (``level``); name
    categorical ones in ``item_features`` to one-hot code them (e.g. ``["level", "lang", "source"]``).
    Protected attributes: the annotator metadata fields (MultiPICo: Age, Gender, Ethnicity simplified,
    Country of birth, Country of residence, Nationality, Student status, Employment status) and/or ``group``,
    the missing values ``"DATA_EXPIRED"`` and ``"Prefer not to say"`` coded as missing (:data:`MISSING_CODE`).

    Metadata: ``files``, ``layout``, ``group_names``, ``n_items_without_annotations``,
    ``n_repeated_annotations`` and ``repeated_annotations`` (an (item, annotator) pair given twice in one
    record keeps its first label: MD-Agreement's test item 2038 lists ``Ann448`` twice),
    ``n_missing_attributes`` (missing values per annotator attribute).

    Example:
        >>> ds = LeWiDiDataset("~/aif360_subjective_data/multipico", split="dev")   # doctest: +SKIP
        >>> hs = LeWiDiDataset("~/aif360_subjective_data/lewidi2023/HS-Brexit")    # doctest: +SKIP
        >>> hs.annotators["group"].value_counts()                                  # doctest: +SKIP

    References:
        S. Casola et al., "MultiPICo: Multilingual Perspectivist Irony Corpus", ACL 2024.
        E. Leonardelli et al., "SemEval-2023 Task 11: Learning with Disagreements (LeWiDi)", SemEval 2023.
        S. Akhtar, V. Basile, V. Patti, "Whose opinions matter? Perspective-aware models to identify opinions
        of hate speech victims in abusive language detection", arXiv:2106.15896, 2021 (HS-Brexit).
        D. Almanea, M. Poesio, "ArMIS - The Arabic Misogyny and Sexism Corpus with Annotator Subjective
        Disagreements", LREC 2022.
        A. Cercas Curry, G. Abercrombie, V. Rieser, "ConvAbuse: Data, Analysis, and Benchmarks for Nuanced
        Abuse Detection in Conversational AI", EMNLP 2021.
    """

    def __init__(
        self,
        path_or_dir: str | os.PathLike | Sequence[str | os.PathLike],
        annotators_meta: str | os.PathLike | bool | None = None,
        split: str | Sequence[str] | None = None,
        *,
        favorable_label: int = 0,
        positive_labels: Collection | None = None,
        positive_from: float | None = None,
        item_features: Sequence[str] | None = None,
        protected_attribute_names: Sequence[str] | None = None,
        missing_values: Collection[str] = MISSING_VALUES,
        split_prefix: bool | None = None,
    ) -> None:
        """
        Args:
            path_or_dir: a data file (``MP_dev.json``), several (read together), or a folder (every
                ``*_train/dev/test.json`` in it, or those of ``split``).
            annotators_meta: the annotator metadata file; ``None`` = the ``*_annotators_meta.json`` next to
                the data (warning if absent and the files give no groups); ``True`` = the same but required;
                ``False`` = none.
            split: with a folder, the split(s) to read, e.g. ``"dev"`` or ``["dev", "test"]``.
            favorable_label: 0 (default, "not flagged") or 1.
            positive_labels: raw label values that mean 1, to binarise a non-binary scale (ConvAbuse:
                ``{-3, -2, -1}``); the raw labels are then kept in :attr:`annotation_info` as ``raw_label``.
            positive_from: a rating threshold instead (CSC: ``4`` = ratings 4-6 mean sarcastic); raw labels
                kept likewise. Neither: labels must be 0/1.
            item_features: item columns used as features (default: the numeric ``other_info`` fields).
            protected_attribute_names: annotator columns used as protected attributes (default: all).
            missing_values: metadata strings that mean "missing".
            split_prefix: prefix item ids with their split (``"train:1"``); ``None`` = when several files
                of the 2023 layout are read (their keys restart in every file).

        Raises:
            FileNotFoundError: data or metadata files missing (the message says where to get them).
            ValueError: malformed JSON or structure (the file, item and field are named), labels that are
                not 0/1 without a binary view, an annotator whose group changes, or an item id in two files.
        """
        if favorable_label not in (0, 1) or isinstance(favorable_label, bool):
            raise ValueError(f"favorable_label must be 0 or 1, got {favorable_label!r}")
        tables = load_lewidi_tables(path_or_dir, annotators_meta, split, missing_values, split_prefix)
        annotations = tables.annotations.assign(
            label=binary_labels(tables.annotations["raw_label"], positive_labels, positive_from)
        )
        if item_features is None:
            item_features = [
                c for c in tables.other_info_columns if pd.api.types.is_numeric_dtype(tables.items[c])
            ]
        annotators = tables.annotators if len(tables.annotators.columns) else None
        self.files = tables.files
        binarised = positive_labels is not None or positive_from is not None
        repeats = tables.repeated_annotations
        n_missing = (
            {str(c): int(annotators[c].isna().sum()) for c in annotators.columns} if annotators is not None else {}
        )
        super().__init__(
            annotations,
            info_columns=("raw_label",) if binarised else (),
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
                "layout": tables.layout,
                "group_names": dict(tables.group_names or {}),
                "binary_view": (
                    {"positive_labels": sorted(map(str, positive_labels))} if positive_labels is not None
                    else {"positive_from": positive_from} if positive_from is not None else None
                ),
                "n_items_without_annotations": int((~tables.items.index.isin(annotations["item"])).sum()),
                "n_repeated_annotations": 0 if repeats is None else len(repeats),
                "repeated_annotations": repeats,
                "n_missing_attributes": n_missing,
            },
        )
