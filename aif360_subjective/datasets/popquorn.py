"""POPQUORN offensiveness ratings (Pei & Jurgens, 2023) as a multi-annotator dataset.

The published file (``dataset/offensiveness/raw_data.csv`` of the Potato-Prolific-Dataset repository) has one
row per rating::

    instance_id,user_id,text,offensiveness,gender,race,age,occupation,education
    530,0,"I think a lot of Dethklok songs use drop C, ...",1.0,Man,White,35-39,Unemployed,High school diploma ...

``offensiveness`` is a 1-5 rating (1 = not offensive at all ... 5 = very offensive); the annotator's
demographics are repeated on every row.

References:
    J. Pei, D. Jurgens, "When Do Annotator Demographics Matter? Measuring the Influence of Annotator
    Demographics with the POPQUORN Dataset", LAW-XVII @ ACL 2023.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence

import numpy as np

from ._published import PublishedAnnotationsDataset
from ._tabular import annotator_table, first_per_key, numeric_field, read_annotation_file

#: The demographic columns of the published files, in file order.
DEMOGRAPHICS = ("gender", "race", "age", "occupation", "education")
#: The rating scale of the offensiveness task.
SCALE = (1, 2, 3, 4, 5)
#: Values that mean "missing" in the demographic columns.
MISSING_VALUES = ("Prefer not to disclose", "Prefer not to say")
TASKS = ("offensiveness",)

_HOW_TO_GET = (
    "POPQUORN is published at https://github.com/Jiaxin-Pei/Potato-Prolific-Dataset: download "
    "dataset/offensiveness/raw_data.csv and put it (as raw_data.csv or offensiveness_raw_data.csv) in the "
    "folder passed as path_or_dir, or in $AIF360_SUBJECTIVE_DATA/popquorn."
)


class PopquornDataset(PublishedAnnotationsDataset):
    """POPQUORN offensiveness ratings: one row per rating, label 1 = offensive (rating >= ``positive_from``).

    Item ids are the published ``instance_id`` values and annotator ids the ``user_id`` values (ints, as
    published). :attr:`annotation_info` keeps the 1-5 rating in ``rating``; favourable label 0 (not
    offensive). The annotator table (protected attributes ``gender``, ``race``, ``age``, ``occupation``,
    ``education``) is built from the per-row demographics, checking that each annotator's demographics
    are the same on all its rows; ``"Prefer not to disclose"`` is kept as missing (counted per attribute in
    ``metadata['n_missing_attributes']``). :attr:`items` holds the ``text``.

    The binary view is a stated threshold on an ordinal scale (``metadata['binary_view']``): with the
    default ``positive_from=3``, "moderately offensive" or more is offensive. Soft-label and ordinal metrics
    read the raw ratings (see :func:`aif360_subjective.metrics.perspectivist.soft_labels_from_dataset`).

    Example:
        >>> ds = PopquornDataset("~/aif360_subjective_data/popquorn")   # doctest: +SKIP

    References:
        J. Pei, D. Jurgens, "When Do Annotator Demographics Matter? Measuring the Influence of Annotator
        Demographics with the POPQUORN Dataset", LAW-XVII @ ACL 2023.
    """

    def __init__(
        self,
        path_or_dir: str | os.PathLike[str] | None = None,
        task: str = "offensiveness",
        positive_from: float = 3,
        *,
        protected_attribute_names: Sequence[str] | None = None,
        missing_values: Collection[str] = MISSING_VALUES,
    ) -> None:
        """
        Args:
            path_or_dir: the CSV file, or a folder holding ``raw_data.csv`` / ``offensiveness_raw_data.csv``
                (default: ``$AIF360_SUBJECTIVE_DATA/popquorn``).
            task: ``"offensiveness"`` (the task whose ratings are published in this layout).
            positive_from: ratings >= this are offensive (label 1); between 1 (exclusive) and 5 (inclusive),
                so that both labels are possible.
            protected_attribute_names: demographic columns used as protected attributes (default: all five).
            missing_values: demographic values that mean "missing".

        Raises:
            FileNotFoundError: the file is absent (the message says where to get it).
            ValueError: a missing column, an empty id, a rating outside 1-5, a repeated (item, annotator) pair,
                or an annotator whose demographics change between rows (the file, record and field are named);
                an unknown task or a threshold outside the scale.
        """
        if task not in TASKS:
            raise ValueError(f"task={task!r} is not a POPQUORN task read by this loader; expected one of {TASKS}")
        if isinstance(positive_from, bool) or not isinstance(positive_from, (int, float, np.number)):
            raise TypeError(f"positive_from must be a number on the 1-5 scale, got {positive_from!r}")
        if not 1 < positive_from <= 5:
            raise ValueError(f"positive_from={positive_from} must lie in (1, 5] so that both labels can occur")
        ids = ("instance_id", "user_id")
        path, frame = read_annotation_file(
            path_or_dir, "popquorn", (f"{task}_raw_data.csv", "raw_data.csv"), _HOW_TO_GET, ids=ids,
            columns=(*ids, "text", task, *DEMOGRAPHICS), what="POPQUORN",
        )
        rating = numeric_field(frame, task, path, allowed=SCALE)
        annotators, n_missing = annotator_table(frame, "user_id", DEMOGRAPHICS, path, missing_values)
        annotators.index.name = "user_id"
        annotations = frame[list(ids)].assign(label=(rating >= positive_from).astype(np.int64), rating=rating)
        self._init_binary_view(
            path,
            annotations,
            ids,
            dataset=f"POPQUORN {task}",
            annotators=annotators,
            items=first_per_key(frame, "instance_id", ["text"]),
            protected_attribute_names=protected_attribute_names,
            item_features=None,
            info_columns=("rating",),
            metadata={
                "task": task,
                "scale": SCALE,
                "binary_view": {"positive_from": positive_from},
                "n_missing_attributes": n_missing,
            },
        )
