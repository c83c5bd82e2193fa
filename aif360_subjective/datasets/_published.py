"""The common base of the loaders of published one-row-per-annotation files (POPQUORN, DICES, Measuring Hate
Speech): each reads its file with :func:`~aif360_subjective.datasets._tabular.read_annotation_file`, builds the
annotation, annotator and item tables, and hands them over here in one shape."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from .multi_annotator import MultiAnnotatorDataset


class PublishedAnnotationsDataset(MultiAnnotatorDataset):
    """A published file read as a binary view: label 1 = the harm the annotators judged (offensive, unsafe, hate
    speech), the favourable label 0; :attr:`file` is the file read and ``metadata['file']`` its path."""

    file: Path

    def _init_binary_view(
        self,
        file: Path,
        annotations: pd.DataFrame,
        ids: tuple[str, str],
        *,
        dataset: str,
        annotators: pd.DataFrame | None,
        items: pd.DataFrame,
        protected_attribute_names: Sequence[str] | None,
        item_features: Sequence[str] | None,
        info_columns: Sequence[str],
        metadata: dict[str, Any],
    ) -> None:
        """Initialise the dataset from the tables a loader built.

        Args:
            file: the file read.
            annotations: one row per annotation: the ``ids`` columns, ``label`` (0/1) and the ``info_columns``.
            ids: the (item, annotator) id columns.
            dataset: the dataset's name (``metadata['dataset']``).
            annotators, items, protected_attribute_names, item_features, info_columns: as in
                :class:`~aif360_subjective.datasets.MultiAnnotatorDataset`.
            metadata: the loader's own metadata, after ``dataset`` and ``file``.
        """
        self.file = file
        super().__init__(
            annotations,
            item_col=ids[0],
            annotator_col=ids[1],
            label_col="label",
            annotators=annotators,
            items=items,
            favorable_label=0,
            unfavorable_label=1,
            protected_attribute_names=protected_attribute_names,
            item_features=item_features,
            info_columns=info_columns,
            metadata={"dataset": dataset, "file": str(file), **metadata},
        )
