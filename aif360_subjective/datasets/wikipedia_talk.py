"""The Wikipedia Talk Labels (toxicity, aggression, personal attacks), read from the files as published.

Each task is released on figshare as three TAB-separated files with a header row:

* ``<task>_annotated_comments.tsv``: one row per comment (``rev_id``, ``comment``, ``year``, ``logged_in``,
  ``ns``, ``sample``, ``split``); newlines and tabs inside a comment are written as the literal tokens
  ``NEWLINE_TOKEN`` and ``TAB_TOKEN``;
* ``<task>_annotations.tsv``: one row per (comment, crowd worker) judgement; ``rev_id`` is written as a float
  (``182449647.0``); the label column is ``toxicity`` / ``aggression`` / ``attack`` (1 = toxic / aggressive /
  attack) with ``toxicity_score`` / ``aggression_score`` or, for attacks, the sub-types ``quoting_attack``,
  ``recipient_attack``, ``third_party_attack``, ``other_attack``;
* ``<task>_worker_demographics.tsv``: ``worker_id``, ``gender``, ``english_first_language``, ``age_group``,
  ``education``, for only part of the workers (about 83% for toxicity).

Worker ids are per task: worker 85 of the toxicity task and worker 85 of the attack task are different
people, so tasks are never joined on ``worker_id``.

References:
    E. Wulczyn, N. Thain, L. Dixon, "Ex Machina: Personal Attacks Seen at Scale", WWW 2017.
    Data: figshare "Wikipedia Talk Labels: Toxicity" (doi:10.6084/m9.figshare.4563973), "... Aggression"
    (doi:10.6084/m9.figshare.4267550), "... Personal Attacks" (doi:10.6084/m9.figshare.4054689);
    schema at https://meta.wikimedia.org/wiki/Research:Detox/Data_Release.
"""

from __future__ import annotations

import functools
import logging
import os
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NamedTuple

import numpy as np
import pandas as pd

from . import _download
from ._encoding import MISSING_CODE  # noqa: F401  (named in the docstrings)
from ._paths import ENV_VAR, resolve_data_dir
from .multi_annotator import MultiAnnotatorDataset

logger = logging.getLogger(__name__)

#: Folder of the files inside the data folder.
SUBDIR = "wikipedia_talk"

COMMENT_COLUMNS = ("rev_id", "comment", "year", "logged_in", "ns", "sample", "split")
DEMOGRAPHIC_COLUMNS = ("worker_id", "gender", "english_first_language", "age_group", "education")
#: Item columns used as features by default (``ns`` and ``sample`` are one-hot coded); ``split`` and
#: ``comment`` stay in :attr:`items` only.
ITEM_FEATURES = ("year", "logged_in", "ns", "sample")
#: Stable addresses of the three figshare articles (the "Wikipedia Talk Labels" collection).
FIGSHARE_DOI = "https://doi.org/10.6084/m9.figshare.{article_id}"
FIGSHARE_FILE_URL = "https://ndownloader.figshare.com/files/{file_id}"
FIGSHARE_API_FILES = "https://api.figshare.com/v2/articles/{article_id}/files"


@dataclass(frozen=True)
class WikipediaTask:
    """What differs between the three tasks of the release."""

    name: str
    title: str
    label: str
    #: Per-annotation columns besides rev_id, worker_id and the label, in file order.
    extra: tuple[str, ...]
    #: Whether the label column comes last (attack) or right after worker_id (toxicity, aggression).
    label_last: bool
    article_id: int
    comments_file_id: int
    annotations_file_id: int

    @property
    def annotation_columns(self) -> tuple[str, ...]:
        """The header of ``<task>_annotations.tsv``, in order."""
        body = (*self.extra, self.label) if self.label_last else (self.label, *self.extra)
        return ("rev_id", "worker_id", *body)

    @property
    def files(self) -> dict[str, str]:
        """File names by role (``comments``, ``annotations``, ``demographics``)."""
        return {
            "comments": f"{self.name}_annotated_comments.tsv",
            "annotations": f"{self.name}_annotations.tsv",
            "demographics": f"{self.name}_worker_demographics.tsv",
        }


# File ids from ewulczyn/wiki-detox src/modeling/get_prod_models.py; demographics files have no id there and
# are looked up in the figshare article's file list when downloading.
TASKS: dict[str, WikipediaTask] = {
    "toxicity": WikipediaTask(
        "toxicity", "Wikipedia Talk Labels: Toxicity", "toxicity", ("toxicity_score",), False,
        4563973, 7394542, 7394539,
    ),
    "aggression": WikipediaTask(
        "aggression", "Wikipedia Talk Labels: Aggression", "aggression", ("aggression_score",), False,
        4267550, 7038038, 7383748,
    ),
    "attack": WikipediaTask(
        "attack", "Wikipedia Talk Labels: Personal Attacks", "attack",
        ("quoting_attack", "recipient_attack", "third_party_attack", "other_attack"), True,
        4054689, 7554634, 7554637,
    ),
}


class WikipediaTalkTables(NamedTuple):
    """The three tables of one task, ready for :class:`~aif360_subjective.datasets.MultiAnnotatorDataset`.

    Attributes:
        annotations: one row per judgement: ``rev_id`` (int64), ``worker_id`` (int64), the label column
            (int64 0/1) and the task's extra columns (scores or attack sub-types), in file order.
        annotators: indexed by ``worker_id``: gender, english_first_language, age_group, education (NaN where
            missing); only the workers with a demographics row (others are absent, not dropped).
        items: indexed by ``rev_id``: comment (text restored), year, logged_in (0/1), ns, sample, split.
        n_duplicates_dropped: judgements dropped as repeated (rev_id, worker_id) pairs.
    """

    annotations: pd.DataFrame
    annotators: pd.DataFrame
    items: pd.DataFrame
    n_duplicates_dropped: int = 0


def get_task(task: str) -> WikipediaTask:
    """The description of ``task``; raises ``ValueError`` for an unknown name."""
    if not isinstance(task, str) or task not in TASKS:
        raise ValueError(f"task must be one of {sorted(TASKS)}, got {task!r}")
    return TASKS[task]


# --------------------------------------------------------------------------------------------- reading files


def _read_tsv(
    path: Path, columns: Sequence[str], dtype: dict[str, Any], na_columns: Sequence[str] = ()
) -> pd.DataFrame:
    """Read one published TSV with a fixed header and explicit dtypes (C parser, no per-row Python).

    Only the columns in ``na_columns`` treat an empty field as missing: a comment reading "NA" or "None" is
    text, not a missing value.
    """
    try:
        header = list(pd.read_csv(path, sep="\t", nrows=0).columns)
    except pd.errors.EmptyDataError:
        raise ValueError(f"{path}: the file is empty; expected the header columns {list(columns)}") from None
    if header != list(columns):
        raise ValueError(f"{path}: expected the header columns {list(columns)}, found {header}")
    try:
        return pd.read_csv(
            path,
            sep="\t",
            dtype=dtype,
            keep_default_na=False,
            na_values={c: [""] for c in na_columns},
            engine="c",
        )
    except (ValueError, pd.errors.ParserError) as exc:
        raise ValueError(f"{path}: cannot read it in the published format ({exc})") from exc


def _restore_text(comment: pd.Series) -> pd.Series:
    """Undo the release's encoding of newlines and tabs inside comments."""
    return comment.str.replace("NEWLINE_TOKEN", "\n", regex=False).str.replace("TAB_TOKEN", "\t", regex=False)


def _int_ids(values: pd.Series, path: Path) -> np.ndarray:
    """Convert float-written ids (``182449647.0``) to int64, refusing NaN, fractions and unsafe magnitudes."""
    arr = values.to_numpy(dtype=np.float64)
    bad = ~np.isfinite(arr) | (arr != np.floor(arr)) | (np.abs(arr) > 2.0**53)
    if bad.any():
        idx = np.flatnonzero(bad)
        raise ValueError(
            f"{path}: column {values.name!r} must hold whole-number ids; {idx.size} row(s) do not, "
            f"e.g. data row {idx[0] + 1}: {arr[idx[0]].item()!r}"
        )
    return arr.astype(np.int64)


def read_comments(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read ``<task>_annotated_comments.tsv``.

    Args:
        path: the file.

    Returns:
        pandas.DataFrame: indexed by ``rev_id`` (int64) with ``comment`` (``NEWLINE_TOKEN`` / ``TAB_TOKEN``
        restored to newline / tab), ``year`` (int64), ``logged_in`` (int64 0/1), ``ns``, ``sample``,
        ``split`` (categorical).

    Raises:
        ValueError: another header, unreadable values, a non-integral or repeated ``rev_id``, or a
            ``logged_in`` value other than ``True``/``False``.
    """
    path = Path(path)
    df = _read_tsv(
        path,
        COMMENT_COLUMNS,
        {"rev_id": "float64", "comment": "str", "year": "int64", "logged_in": "str",
         "ns": "category", "sample": "category", "split": "category"},
        na_columns=("rev_id",),
    )
    rev_id = _int_ids(df["rev_id"], path)
    if len(rev_id) != len(np.unique(rev_id)):
        dup = pd.Series(rev_id).loc[pd.Series(rev_id).duplicated()].unique()
        raise ValueError(f"{path}: rev_id must be unique; {dup.size} repeated, e.g. {dup[0]}")
    # read as text: a categorical dtype would itself turn "True"/"False" into booleans
    logged = df["logged_in"]
    unknown = sorted(set(logged.unique()) - {"True", "False"})
    if unknown:
        raise ValueError(f"{path}: column 'logged_in' must be True or False, found {unknown[:5]}")
    comment = _restore_text(df["comment"])
    items = pd.DataFrame(
        {
            "comment": comment.to_numpy(),
            "year": df["year"].to_numpy(),
            "logged_in": (logged == "True").to_numpy(dtype=np.int64),
            # .array keeps the categorical dtype (to_numpy would make object arrays)
            "ns": df["ns"].array,
            "sample": df["sample"].array,
            "split": df["split"].array,
        },
        index=pd.Index(rev_id, name="rev_id"),
    )
    return items


def read_annotations(path: str | os.PathLike[str], task: str) -> pd.DataFrame:
    """Read ``<task>_annotations.tsv``.

    Args:
        path: the file.
        task: ``"toxicity"``, ``"aggression"`` or ``"attack"`` (fixes the expected columns).

    Returns:
        pandas.DataFrame: one row per judgement in file order: ``rev_id`` and ``worker_id`` (int64), the
        label (int64 0/1) and the task's extra columns (float64), in file order.

    Raises:
        ValueError: another header, unreadable values, non-integral ids, or labels other than 0/1.
    """
    spec = get_task(task)
    path = Path(path)
    dtype = {c: "float64" for c in spec.annotation_columns}
    dtype["worker_id"] = "int64"
    df = _read_tsv(path, spec.annotation_columns, dtype, na_columns=("rev_id", spec.label, *spec.extra))
    df["rev_id"] = _int_ids(df["rev_id"], path)
    label = df[spec.label].to_numpy()
    bad = ~np.isin(label, (0.0, 1.0))
    if bad.any():
        values = pd.unique(label[bad])[:5].tolist()
        raise ValueError(
            f"{path}: column {spec.label!r} must be 0 or 1; {int(bad.sum())} row(s) are not, "
            f"e.g. {values}"
        )
    df[spec.label] = label.astype(np.int64)
    return df


def read_demographics(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read ``<task>_worker_demographics.tsv``.

    Args:
        path: the file.

    Returns:
        pandas.DataFrame: indexed by ``worker_id`` (int64): ``gender``, ``english_first_language`` (int64 0/1,
        float64 if a value is missing), ``age_group``, ``education`` (strings, NaN where the field is empty).

    Raises:
        ValueError: another header, unreadable values or a repeated ``worker_id``.
    """
    path = Path(path)
    df = _read_tsv(
        path,
        DEMOGRAPHIC_COLUMNS,
        {"worker_id": "int64", "gender": "str", "english_first_language": "float64", "age_group": "str",
         "education": "str"},
        na_columns=DEMOGRAPHIC_COLUMNS[1:],
    )
    if df["worker_id"].duplicated().any():
        dup = df.loc[df["worker_id"].duplicated(), "worker_id"].unique()
        raise ValueError(f"{path}: worker_id must be unique; {dup.size} repeated, e.g. {dup[0]}")
    efl = df["english_first_language"]
    if not efl.isna().any():
        df["english_first_language"] = efl.astype(np.int64)
    return df.set_index("worker_id")


def read_labelled_sample(
    path: str | os.PathLike[str], task: str = "toxicity"
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Split a joined annotations + comments CSV (such as ``toxicity_labelled_comments_3k_sample.csv``).

    Some redistributions of the release (e.g. the 3,000-row course sample) ship a random sample of annotation
    rows already joined with their comment: a comma-separated file with the columns of the annotations file
    followed by the comment columns (``rev_id, worker_id, toxicity, toxicity_score, comment, year, logged_in,
    ns, sample, split``). This turns it back into the two published tables. Such a sample has mostly one
    judgement per comment, so it suits format and demographics work, not majority votes.

    Args:
        path: the CSV file.
        task: the task whose annotation columns it holds.

    Returns:
        (annotations, items) as :func:`read_annotations` and :func:`read_comments` return them.

    Raises:
        ValueError: missing columns, unreadable values, or one rev_id with two different comment rows.
    """
    spec = get_task(task)
    path = Path(path)
    columns = [*spec.annotation_columns, *COMMENT_COLUMNS[1:]]
    header = list(pd.read_csv(path, nrows=0).columns)
    if sorted(header) != sorted(columns):
        raise ValueError(f"{path}: expected the columns {columns}, found {header}")
    dtype = {c: "float64" for c in spec.annotation_columns}
    dtype.update(worker_id="int64", comment="str", year="int64", logged_in="str", ns="str", sample="str",
                 split="str")
    df = pd.read_csv(path, dtype=dtype, keep_default_na=False, na_values={c: [""] for c in spec.extra})
    df["rev_id"] = _int_ids(df["rev_id"], path)
    comments = df[list(COMMENT_COLUMNS)].drop_duplicates()
    if comments["rev_id"].duplicated().any():
        dup = comments.loc[comments["rev_id"].duplicated(), "rev_id"].iloc[0]
        raise ValueError(f"{path}: rev_id {dup} comes with two different comment rows")
    unknown = sorted(set(comments["logged_in"]) - {"True", "False"})
    if unknown:
        raise ValueError(f"{path}: column 'logged_in' must be True or False, found {unknown[:5]}")
    items = pd.DataFrame(
        {
            "comment": _restore_text(comments["comment"]).to_numpy(),
            "year": comments["year"].to_numpy(),
            "logged_in": (comments["logged_in"] == "True").to_numpy(dtype=np.int64),
            **{c: pd.Categorical(comments[c].to_numpy()) for c in ("ns", "sample", "split")},
        },
        index=pd.Index(comments["rev_id"].to_numpy(), name="rev_id"),
    )
    annotations = df[list(spec.annotation_columns)].copy()
    label = annotations[spec.label].to_numpy()
    if not np.isin(label, (0.0, 1.0)).all():
        raise ValueError(f"{path}: column {spec.label!r} must be 0 or 1")
    annotations[spec.label] = label.astype(np.int64)
    return annotations, items


# ----------------------------------------------------------------------------------- finding and downloading


def source_of(task: str, role: str) -> str:
    """Where a file of the release is published (for messages): a direct URL or the figshare article."""
    spec = get_task(task)
    if role == "comments":
        return FIGSHARE_FILE_URL.format(file_id=spec.comments_file_id)
    if role == "annotations":
        return FIGSHARE_FILE_URL.format(file_id=spec.annotations_file_id)
    return (
        f'the figshare collection "Wikipedia Talk Labels" by Wulczyn, Thain and Dixon, article '
        f'"{spec.title}" ({FIGSHARE_DOI.format(article_id=spec.article_id)})'
    )


def download_url(task: str, role: str, timeout: float = _download.DEFAULT_TIMEOUT) -> str:
    """The URL to download a file of the release from (the figshare API resolves the demographics file)."""
    spec = get_task(task)
    if role in ("comments", "annotations"):
        return source_of(task, role)
    name = spec.files[role]
    listing = _download.read_json_url(FIGSHARE_API_FILES.format(article_id=spec.article_id), timeout=timeout)
    for entry in listing if isinstance(listing, list) else []:
        if isinstance(entry, dict) and entry.get("name") == name and entry.get("download_url"):
            return str(entry["download_url"])
    raise OSError(f"figshare article {spec.article_id} lists no file named {name!r}: {source_of(task, role)}")


def expected_header(task: str, role: str) -> tuple[str, ...]:
    """The header row of a file of the release."""
    if role == "comments":
        return COMMENT_COLUMNS
    if role == "annotations":
        return get_task(task).annotation_columns
    return DEMOGRAPHIC_COLUMNS


def _check_header(path: Path, header: Sequence[str]) -> None:
    _download.check_delimited_header(path, header)


def _ensure_files(task: str, folder: Path, roles: Sequence[str], download: bool) -> dict[str, Path]:
    """Paths of the needed files; download the missing ones if asked, else raise naming each of them."""
    spec = get_task(task)
    paths = {role: folder / spec.files[role] for role in roles}
    missing = [role for role, p in paths.items() if not p.is_file()]
    if missing and download:
        for role in missing:
            header = expected_header(task, role)
            logger.info("downloading %s into %s", spec.files[role], folder)
            _download.download_file(
                download_url(task, role),
                paths[role],
                verify=functools.partial(_check_header, header=header),
            )
        missing = []
    if missing:
        lines = "\n".join(
            f"  - {spec.files[role]}: download it from {source_of(task, role)}" for role in missing
        )
        raise FileNotFoundError(
            f"Wikipedia Talk Labels ({task}): {len(missing)} file(s) missing from {folder}:\n{lines}\n"
            f"Put the file(s), under these exact names, in the folder {folder} (or pass data_dir=..., or "
            f"set {ENV_VAR} to a folder holding a '{SUBDIR}' subfolder), or pass download=True to fetch them "
            "from figshare."
        )
    return paths


def load_wikipedia_talk_tables(
    task: str = "toxicity",
    data_dir: str | os.PathLike[str] | None = None,
    download: bool = False,
    demographics: bool = True,
    duplicates: Literal["first", "raise"] = "first",
) -> WikipediaTalkTables:
    """Read the files of one task into the tables of a multi-annotator dataset.

    Args:
        task: ``"toxicity"``, ``"aggression"`` or ``"attack"``.
        data_dir: folder holding the files; default ``$AIF360_SUBJECTIVE_DATA/wikipedia_talk``, else
            ``~/aif360_subjective_data/wikipedia_talk``.
        download: download missing files from figshare (atomically, checking each file's header) first.
        demographics: read the worker demographics file (if False it is neither needed nor read and the
            annotators table is empty).
        duplicates: what to do with repeated (rev_id, worker_id) judgements: keep the first (``"first"``,
            counted in ``n_duplicates_dropped`` and warned about) or raise ``ValueError`` (``"raise"``).

    Returns:
        WikipediaTalkTables: annotations, annotators (left-joined by worker_id: workers without demographics
        are kept in the annotations, absent from the table), items.

    Raises:
        FileNotFoundError: files missing (each named, with where to download it and the folder to put it in).
        ValueError: an unknown task, malformed files, judgements of comments absent from the comments file,
            or repeated judgements with ``duplicates="raise"``.
    """
    get_task(task)
    if duplicates not in ("first", "raise"):
        raise ValueError(f"duplicates must be 'first' or 'raise', got {duplicates!r}")
    folder = resolve_data_dir(SUBDIR, data_dir)
    roles = ["comments", "annotations"] + (["demographics"] if demographics else [])
    paths = _ensure_files(task, folder, roles, download)
    items = read_comments(paths["comments"])
    annotations = read_annotations(paths["annotations"], task)
    if demographics:
        annotators = read_demographics(paths["demographics"])
    else:
        annotators = pd.DataFrame(index=pd.Index([], dtype=np.int64, name="worker_id"))
    return _finish_tables(annotations, annotators, items, paths["annotations"], duplicates)


def _finish_tables(
    annotations: pd.DataFrame, annotators: pd.DataFrame, items: pd.DataFrame, source: Any, duplicates: str
) -> WikipediaTalkTables:
    """Check the judgements against the comments and handle repeated (rev_id, worker_id) pairs."""
    unknown = ~annotations["rev_id"].isin(items.index)
    if unknown.any():
        ids = annotations.loc[unknown, "rev_id"].unique()
        raise ValueError(
            f"{source}: {int(unknown.sum())} judgement(s) of {ids.size} rev_id(s) absent from the comments "
            f"file, e.g. {ids[0]}: are the files of the same task and release?"
        )
    dup = annotations.duplicated(["rev_id", "worker_id"], keep="first")
    n_dup = int(dup.sum())
    if n_dup:
        if duplicates == "raise":
            first = annotations.loc[dup, ["rev_id", "worker_id"]].to_numpy()[0].tolist()
            raise ValueError(
                f"{source}: {n_dup} repeated (rev_id, worker_id) judgement(s), e.g. "
                f"({first[0]}, {first[1]}); pass duplicates='first' to keep the first of "
                "each"
            )
        warnings.warn(
            f"{source}: dropped {n_dup} repeated (rev_id, worker_id) judgement(s), keeping the first of each",
            stacklevel=3,
        )
        annotations = annotations.loc[~dup].reset_index(drop=True)
    return WikipediaTalkTables(annotations, annotators, items, n_dup)


# ------------------------------------------------------------------------------------------------ dataset


class WikipediaTalkDataset(MultiAnnotatorDataset):
    """The Wikipedia Talk Labels of one task as a :class:`MultiAnnotatorDataset` (one row per judgement).

    Rows are the judgements in file order: item id ``rev_id``, annotator id ``worker_id`` (ids of this task
    only), label ``toxicity`` / ``aggression`` / ``attack`` with 1 = toxic / aggressive / attack and the
    favourable label 0 (the comment is not flagged). Item features: ``year``, ``logged_in`` (0/1) and
    ``ns``, ``sample`` one-hot coded (``ns=user``...); :attr:`items` also holds the comment text (newlines and
    tabs restored) and the published ``split``. Protected attributes: the demographics (gender,
    english_first_language, age_group, education), left-joined: workers without a demographics row (17% for
    toxicity) are kept with every attribute missing (:data:`MISSING_CODE`). :attr:`annotation_info` holds
    the task's other per-judgement columns (``toxicity_score``, ``aggression_score``, or the attack sub-types
    ``quoting_attack``, ``recipient_attack``, ``third_party_attack``, ``other_attack``).

    Example:
        >>> ds = WikipediaTalkDataset("toxicity")            # doctest: +SKIP
        >>> ds.majority_vote(tie="unfavorable")               # doctest: +SKIP

    References:
        E. Wulczyn, N. Thain, L. Dixon, "Ex Machina: Personal Attacks Seen at Scale", WWW 2017.
    """

    def __init__(
        self,
        task: str = "toxicity",
        data_dir: str | os.PathLike[str] | None = None,
        download: bool = False,
        *,
        demographics: bool = True,
        duplicates: Literal["first", "raise"] = "first",
        item_features: Sequence[str] | None = ITEM_FEATURES,
        protected_attribute_names: Sequence[str] | None = None,
        tables: WikipediaTalkTables | None = None,
    ) -> None:
        """
        Args:
            task: ``"toxicity"``, ``"aggression"`` or ``"attack"``.
            data_dir: folder holding the files; default ``$AIF360_SUBJECTIVE_DATA/wikipedia_talk``, else
                ``~/aif360_subjective_data/wikipedia_talk``.
            download: first download the missing files from figshare (with ``urllib``; each file is written
                to a temporary name, its header checked against the published columns and its first data
                row required, then renamed into place).
            demographics: read ``<task>_worker_demographics.tsv`` (False: no protected attributes).
            duplicates: repeated (rev_id, worker_id) judgements: keep the first (``"first"``, warned and
                counted in ``metadata['n_duplicates_dropped']``) or raise (``"raise"``).
            item_features: item columns used as features (categorical ones one-hot coded).
            protected_attribute_names: demographic columns used as protected attributes (default: all).
            tables: already read tables (e.g. :meth:`from_labelled_sample`); the files are then not read.

        Raises:
            FileNotFoundError: files missing: the message names each one, where to download it and the
                folder to put it in.
            ValueError: unknown task, or files not in the published format.
        """
        spec = get_task(task)
        folder = None
        if tables is None:
            folder = resolve_data_dir(SUBDIR, data_dir)
            tables = load_wikipedia_talk_tables(task, folder, download, demographics, duplicates)
        elif not isinstance(tables, WikipediaTalkTables):
            raise TypeError(f"tables must be WikipediaTalkTables, got {type(tables).__name__}")
        self.task = task
        annotators = tables.annotators if demographics and len(tables.annotators.columns) else None
        super().__init__(
            tables.annotations,
            info_columns=spec.extra,
            item_col="rev_id",
            annotator_col="worker_id",
            label_col=spec.label,
            annotators=annotators,
            items=tables.items,
            favorable_label=0,
            unfavorable_label=1,
            protected_attribute_names=protected_attribute_names if annotators is not None else None,
            item_features=item_features,
            metadata={
                "dataset": f"Wikipedia Talk Labels: {task}",
                "task": task,
                "data_dir": str(folder) if folder is not None else None,
                "n_duplicates_dropped": tables.n_duplicates_dropped,
            },
        )

    @classmethod
    def from_labelled_sample(
        cls,
        path: str | os.PathLike[str],
        demographics_path: str | os.PathLike[str] | None = None,
        task: str = "toxicity",
        **kwargs: Any,
    ) -> WikipediaTalkDataset:
        """A dataset from a joined annotations + comments CSV such as ``toxicity_labelled_comments_3k_sample.csv``.

        See :func:`read_labelled_sample`. Such samples hold about one judgement per comment: fine for
        demographics and format work, not for majority votes or disagreement measures.

        Args:
            path: the CSV file.
            demographics_path: the task's ``<task>_worker_demographics.tsv`` (None: no protected attributes).
            task: the task the sample belongs to.
            **kwargs: other arguments of the constructor (``item_features``, ``protected_attribute_names``,
                ``duplicates``).

        Returns:
            WikipediaTalkDataset
        """
        duplicates = kwargs.pop("duplicates", "first")
        annotations, items = read_labelled_sample(path, task)
        if demographics_path is not None:
            annotators = read_demographics(demographics_path)
        else:
            annotators = pd.DataFrame(index=pd.Index([], dtype=np.int64, name="worker_id"))
        tables = _finish_tables(annotations, annotators, items, Path(path), duplicates)
        return cls(task, tables=tables, demographics=demographics_path is not None, **kwargs)
