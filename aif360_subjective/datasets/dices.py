"""DICES (Diverse Conversational AI Safety) ratings as a multi-annotator dataset.

The published CSVs (``diverse_safety_adversarial_dialog_350.csv``, ``..._990.csv``) have one row per
(rater, conversation) with the rater's demographics (``rater_gender``, ``rater_race``, ``rater_raw_race``,
``rater_age``, ``rater_education``; DICES-990 also ``rater_locale``), the conversation (``item_id``,
``context``, ``response``, ``degree_of_harm``, ``harm_type``; DICES-350 also ``safety_gold``), and the
rater's safety answers ``Q...`` ("Yes" = unsafe, "No", "Unsure"), ``Q_overall`` aggregating them.

References:
    L. Aroyo, A. S. Taylor, M. Diaz, C. M. Homan, A. Parrish, G. Serapio-Garcia, V. Prabhakaran, D. Wang,
    "DICES Dataset: Diversity in Conversational AI Evaluation for Safety", NeurIPS 2023 Datasets and
    Benchmarks. Column layout: github.com/google-research-datasets/dices-dataset (READMEs of 350/ and 990/).
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence

import numpy as np
import pandas as pd

from ._published import PublishedAnnotationsDataset
from ._tabular import annotator_table, first_per_key, read_annotation_file

#: Rater columns per version (README fields 2-8 of DICES-350, 2-9 of DICES-990), ``phase`` excepted.
RATER_COLUMNS = {
    350: ("rater_gender", "rater_race", "rater_raw_race", "rater_age", "rater_education"),
    990: ("rater_gender", "rater_locale", "rater_race", "rater_raw_race", "rater_age", "rater_education"),
}
#: Conversation columns per version.
ITEM_COLUMNS = {
    350: ("context", "response", "degree_of_harm", "harm_type", "safety_gold", "safety_gold_reason"),
    990: ("context", "response", "degree_of_harm", "harm_type"),
}
#: Default protected attributes (the simplified demographics; ``rater_raw_race`` stays in the table).
DEFAULT_PROTECTED = {
    350: ("rater_gender", "rater_race", "rater_age", "rater_education"),
    990: ("rater_gender", "rater_locale", "rater_race", "rater_age", "rater_education"),
}
ANSWERS = ("Yes", "No", "Unsure")
UNSURE_POLICIES = ("drop", "unsafe", "safe")

_HOW_TO_GET = (
    "DICES is published at https://github.com/google-research-datasets/dices-dataset: download "
    "350/diverse_safety_adversarial_dialog_350.csv or 990/diverse_safety_adversarial_dialog_990.csv and put it "
    "in the folder passed as path (or in $AIF360_SUBJECTIVE_DATA/dices), or pass the file itself."
)


class DICESDataset(PublishedAnnotationsDataset):
    """DICES-350 or DICES-990 safety ratings: one row per (conversation, rater), label 1 = unsafe.

    Item ids are the published ``item_id`` values and annotator ids the ``rater_id`` values. The label is
    the rater's answer to the question ``label`` (default ``Q_overall``): "Yes" (unsafe) = 1, "No" = 0
    (favourable); "Unsure" answers follow ``unsure`` (dropped by default and counted in
    ``metadata['n_unsure_dropped']``). The raw answer is kept in ``annotation_info["answer"]``, with the
    row ``id``, ``phase`` and (DICES-350) ``answer_time_ms`` / ``answer_timestamp`` when present.

    Annotator attributes: the rater columns (``rater_gender``, ``rater_race``, ``rater_raw_race``,
    ``rater_age``, ``rater_education``; 990: ``rater_locale``), checked constant per rater, missing values
    kept missing (counted in ``metadata['n_missing_attributes']``); protected attributes by default the
    simplified ones (all but ``rater_raw_race``). Items: the conversation columns.

    Example:
        >>> ds = DICESDataset("~/aif360_subjective_data/dices", version=350)   # doctest: +SKIP

    References:
        L. Aroyo et al., "DICES Dataset: Diversity in Conversational AI Evaluation for Safety", NeurIPS 2023.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        version: int = 350,
        label: str = "Q_overall",
        *,
        unsure: str = "drop",
        protected_attribute_names: Sequence[str] | None = None,
        missing_values: Collection[str] = (),
    ) -> None:
        """
        Args:
            path: the CSV file, or a folder holding ``diverse_safety_adversarial_dialog_<version>.csv``
                (default: ``$AIF360_SUBJECTIVE_DATA/dices``).
            version: 350 or 990 (the two published layouts).
            label: the answer column used as label: ``Q_overall`` or any other ``Q...`` column.
            unsure: "Unsure" answers: ``"drop"`` (counted), ``"unsafe"`` (label 1) or ``"safe"`` (label 0).
            protected_attribute_names: rater columns used as protected attributes.
            missing_values: rater values that mean "missing" (besides empty cells).

        Raises:
            FileNotFoundError: the file is absent (the message says where to get it).
            ValueError: unknown version/label/unsure, a missing column, an empty id, an answer outside
                Yes/No/Unsure, a repeated (item, rater) pair, a rater whose demographics change, or no row left
                (the file, record and field are named).
        """
        if version not in RATER_COLUMNS or isinstance(version, bool):
            raise ValueError(f"version={version!r} is not a DICES version; expected 350 or 990")
        if unsure not in UNSURE_POLICIES:
            raise ValueError(f"unsure={unsure!r}; expected one of {UNSURE_POLICIES}")
        if not isinstance(label, str) or not label.startswith("Q"):
            raise ValueError(f"label={label!r} must be a DICES answer column (Q_overall, Q2_harmful_content_..., ...)")
        ids = ("item_id", "rater_id")
        rater_cols, item_cols = RATER_COLUMNS[version], ITEM_COLUMNS[version]
        file, frame = read_annotation_file(
            path, "dices", (f"diverse_safety_adversarial_dialog_{version}.csv",), _HOW_TO_GET, ids=ids,
            columns=("rater_id", "item_id", *rater_cols, *item_cols, label), what=f"DICES-{version}",
        )
        answer = frame[label].astype(object)
        bad = ~answer.isin(ANSWERS).to_numpy()
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"{file}: record {row} (data row {row + 2}): field {label!r} is {answer.iloc[row]!r}, expected one "
                f"of {list(ANSWERS)} ({int(bad.sum())} row(s) affected)"
            )
        raters, n_missing = annotator_table(frame, "rater_id", rater_cols, file, missing_values, "rater")
        is_unsure = (answer == "Unsure").to_numpy()
        labels = np.where(answer == "Yes", 1, np.where(answer == "No", 0, 1 if unsure == "unsafe" else 0))
        info = ["answer"] + [c for c in ("id", "phase", "answer_time_ms", "answer_timestamp") if c in frame.columns]
        annotations = pd.concat(
            [frame[list(ids)], frame[[c for c in info if c != "answer"]]], axis=1
        ).assign(label=labels, answer=answer.to_numpy())
        keep = ~is_unsure if unsure == "drop" else np.ones(len(frame), dtype=bool)
        if not keep.any():
            raise ValueError(f"{file}: every {label!r} answer is 'Unsure': no row left with unsure='drop'")
        self._init_binary_view(
            file,
            annotations[keep],
            ids,
            dataset=f"DICES-{version} ({label})",
            annotators=raters,
            items=first_per_key(frame, "item_id", item_cols),
            protected_attribute_names=(
                list(DEFAULT_PROTECTED[version]) if protected_attribute_names is None else protected_attribute_names
            ),
            item_features=[],
            info_columns=info,
            metadata={
                "version": version,
                "label_question": label,
                "unsure": unsure,
                "n_unsure": int(is_unsure.sum()),
                "n_unsure_dropped": int(is_unsure.sum()) if unsure == "drop" else 0,
                "n_missing_attributes": n_missing,
            },
        )
