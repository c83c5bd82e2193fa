"""The Measuring Hate Speech corpus (Kennedy et al., 2020; ucberkeley-dlab) as a multi-annotator dataset.

The published table (``measuring-hate-speech.parquet`` on the HuggingFace Hub, dataset
``ucberkeley-dlab/measuring-hate-speech``; 135,556 rows) has one row per (comment, annotator):

* ids: ``comment_id``, ``annotator_id``; ``platform``; ``text``;
* the annotator's answers to the survey items ``sentiment``, ``respect``, ``insult``, ``humiliate``,
  ``status``, ``dehumanize``, ``violence``, ``genocide``, ``attack_defend`` (0-4) and ``hatespeech``
  (0 = no, 1 = unclear, 2 = yes);
* the comment's ``hate_speech_score`` (its Rasch/IRT measure: > 0.5 approximately hateful, < -1 supportive),
  ``infitms``, ``outfitms``, ``std_err``; target-identity columns ``target_*``;
* the annotator's IRT ``annotator_severity``, ``annotator_infitms``, ``annotator_outfitms`` and demographics
  ``annotator_gender``, ``annotator_trans``, ``annotator_educ``, ``annotator_income``, ``annotator_ideology``,
  ``annotator_age`` plus one-hot families ``annotator_gender_*``, ``annotator_race_*``,
  ``annotator_religion_*``, ``annotator_sexuality_*``, ``annotator_educ_*``, ``annotator_income_*``,
  ``annotator_ideology_*``, ...

This loader relies only on ``comment_id``, ``annotator_id`` and the label column (``hatespeech`` by default);
it keeps ``text``, ``platform``, ``hate_speech_score`` and the ``target_*`` columns as item columns when
present, the survey items as per-annotation info, and as annotator attributes the documented demographic
columns present (:data:`DEMOGRAPHICS`, then the ``annotator_race_*`` one-hot columns); the IRT columns
``annotator_severity`` etc. go to the annotator table but are not protected attributes.

References:
    C. J. Kennedy, G. Bacon, A. Sahn, C. von Vacano, "Constructing interval variables via faceted Rasch
    measurement and multitask deep learning: a hate speech application", arXiv:2009.10277, 2020.
    Dataset card: https://huggingface.co/datasets/ucberkeley-dlab/measuring-hate-speech
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence

import numpy as np

from ._published import PublishedAnnotationsDataset
from ._tabular import annotator_table, first_per_key, numeric_field, read_annotation_file

#: Survey items answered by each annotator (kept per annotation when present).
SURVEY_ITEMS = ("sentiment", "respect", "insult", "humiliate", "status", "dehumanize", "violence", "genocide",
                "attack_defend", "hatespeech")
#: Categorical/numeric demographic columns used as annotator attributes when present.
DEMOGRAPHICS = ("annotator_gender", "annotator_trans", "annotator_educ", "annotator_income",
                "annotator_ideology", "annotator_age")
#: Per-annotator IRT statistics (annotator table, not protected attributes).
ANNOTATOR_STATISTICS = ("annotator_severity", "annotator_infitms", "annotator_outfitms")
#: Per-comment columns kept in the item table when present (plus every ``target_*`` column).
ITEM_COLUMNS = ("text", "platform", "hate_speech_score", "infitms", "outfitms", "std_err", "hypothesis")
FILE_NAMES = ("measuring-hate-speech.parquet", "measuring-hate-speech.csv", "measuring_hate_speech.csv")

_HOW_TO_GET = (
    "The Measuring Hate Speech corpus is published on the HuggingFace Hub as ucberkeley-dlab/measuring-hate-speech "
    "(https://huggingface.co/datasets/ucberkeley-dlab/measuring-hate-speech, file measuring-hate-speech.parquet); "
    "put it (or a CSV export named measuring-hate-speech.csv) in the folder passed as path, or in "
    "$AIF360_SUBJECTIVE_DATA/measuring_hate_speech."
)


class MeasuringHateSpeechDataset(PublishedAnnotationsDataset):
    """Measuring Hate Speech: one row per (comment, annotator), label 1 = hate speech.

    Item ids are the published ``comment_id`` values and annotator ids the ``annotator_id`` values. The label
    is the annotator's ``hatespeech`` answer (0 = no, 1 = unclear, 2 = yes) with a stated threshold:
    ``positive_from=2`` (default) = "yes" is hate speech; favourable label 0. The answers to all survey
    items present are kept in :attr:`annotation_info`; :attr:`items` holds ``text``, ``platform``,
    ``hate_speech_score`` (the comment's continuous IRT score) and the ``target_*`` columns present.

    Annotator attributes: the demographic columns present among :data:`DEMOGRAPHICS` and the
    ``annotator_race_*`` one-hot columns, checked constant per annotator, missing values kept missing (counted
    in ``metadata['n_missing_attributes']``); ``metadata['columns_used']`` lists the columns read.

    Example:
        >>> ds = MeasuringHateSpeechDataset("~/aif360_subjective_data/measuring_hate_speech")   # doctest: +SKIP

    References:
        C. J. Kennedy et al., "Constructing interval variables via faceted Rasch measurement and multitask deep
        learning: a hate speech application", arXiv:2009.10277, 2020.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        label: str = "hatespeech",
        positive_from: float = 2,
        protected_attribute_names: Sequence[str] | None = None,
        missing_values: Collection[str] = (),
    ) -> None:
        """
        Args:
            path: the Parquet/CSV file, or a folder holding ``measuring-hate-speech.parquet`` (or ``.csv``)
                (default: ``$AIF360_SUBJECTIVE_DATA/measuring_hate_speech``).
            label: the per-annotation answer used as label (default ``hatespeech``; any survey item works).
            positive_from: answers >= this are label 1 (``hatespeech``: 2 = "yes").
            protected_attribute_names: annotator columns used as protected attributes (default: the
                demographic columns present).
            missing_values: demographic values that mean "missing" (besides empty cells).

        Raises:
            FileNotFoundError: the file is absent (the message says where to get it).
            ValueError: a missing id/label column, an empty id, a non-numeric answer, a repeated (comment,
                annotator) pair, or an annotator whose demographics change.
            ImportError: a Parquet file without pyarrow.
        """
        if isinstance(positive_from, bool) or not isinstance(positive_from, (int, float, np.number)):
            raise TypeError(f"positive_from must be a number, got {positive_from!r}")
        ids = ("comment_id", "annotator_id")
        file, frame = read_annotation_file(path, "measuring_hate_speech", FILE_NAMES, _HOW_TO_GET, ids=ids,
                                           columns=(*ids, label), what="Measuring Hate Speech")
        answer = numeric_field(frame, label, file)
        demo = [c for c in DEMOGRAPHICS if c in frame.columns]
        demo += [c for c in frame.columns if str(c).startswith("annotator_race_")]
        stats = [c for c in ANNOTATOR_STATISTICS if c in frame.columns]
        annotators, n_missing = annotator_table(frame, "annotator_id", demo, file, missing_values)
        if stats:
            annotators = annotators.join(first_per_key(frame, "annotator_id", stats))
        item_cols = [c for c in ITEM_COLUMNS if c in frame.columns]
        item_cols += [c for c in frame.columns if str(c).startswith("target_")]
        info = [c for c in SURVEY_ITEMS if c in frame.columns]
        annotations = frame[[*ids, *info]].assign(label=(answer >= positive_from).astype(np.int64))
        has_attributes = bool(len(annotators.columns))
        self._init_binary_view(
            file,
            annotations,
            ids,
            dataset="Measuring Hate Speech",
            annotators=annotators if has_attributes else None,
            items=first_per_key(frame, "comment_id", item_cols),
            protected_attribute_names=(
                (demo if protected_attribute_names is None else protected_attribute_names) if has_attributes else None
            ),
            item_features=[],
            info_columns=info,
            metadata={
                "label_question": label,
                "binary_view": {"positive_from": positive_from},
                "columns_used": {"ids": list(ids), "label": label, "annotators": demo + stats,
                                 "items": item_cols, "annotation_info": info},
                "n_missing_attributes": n_missing,
            },
        )
