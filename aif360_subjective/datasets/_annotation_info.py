"""A multi-annotator dataset that also carries per-annotation columns which are neither label nor feature.

Published datasets record more than the binary label for each judgement: the Wikipedia toxicity score, the
personal-attack sub-types, the raw label before binarisation. They are kept, aligned with the rows, in
:attr:`AnnotationInfoDataset.annotation_info`, and follow the rows through ``subset``, ``split``, ``copy`` and
``align_datasets`` (which all go through :meth:`subset`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from .multi_annotator import MultiAnnotatorDataset


class AnnotationInfoDataset(MultiAnnotatorDataset):
    """A :class:`MultiAnnotatorDataset` with extra per-annotation columns in :attr:`annotation_info`.

    Attributes:
        annotation_info (pandas.DataFrame): one row per dataset row (positional index ``0..n-1``), the extra
            columns of the annotations table; not features, not labels.
    """

    def __init__(self, annotations: pd.DataFrame, *, info_columns: Sequence[str] = (), **kwargs) -> None:
        """
        Args:
            annotations: the long table (see :class:`MultiAnnotatorDataset`).
            info_columns: columns of ``annotations`` kept in :attr:`annotation_info`.
            **kwargs: passed to :class:`MultiAnnotatorDataset`.
        """
        missing = [c for c in info_columns if c not in annotations.columns]
        if missing:
            raise ValueError(f"info_columns {missing} are not columns of annotations {list(annotations.columns)}")
        # Set before MultiAnnotatorDataset.__init__, whose validate_dataset checks its length.
        self.annotation_info = annotations[list(info_columns)].reset_index(drop=True)
        super().__init__(annotations, **kwargs)

    def validate_dataset(self) -> None:
        """The parent's checks, plus: :attr:`annotation_info` has one row per dataset row."""
        super().validate_dataset()
        n = self.features.shape[0]
        if len(self.annotation_info) != n:
            raise ValueError(f"annotation_info must have {n} rows (one per row), has {len(self.annotation_info)}")

    def subset(self, indexes) -> AnnotationInfoDataset:
        """Rows at ``indexes`` (positions or a boolean mask); ids and :attr:`annotation_info` follow the rows."""
        sub = super().subset(indexes)
        idx = np.asarray(indexes)
        idx = np.flatnonzero(idx) if idx.dtype == bool else idx.astype(np.intp, copy=False)
        sub.annotation_info = self.annotation_info.iloc[idx].reset_index(drop=True)
        return sub

    def to_dataframe(self) -> pd.DataFrame:
        """The long table (see :meth:`MultiAnnotatorDataset.to_dataframe`) with the extra columns after the label.

        Returns:
            pandas.DataFrame: one row per annotation.
        """
        df = super().to_dataframe()
        pos = list(df.columns).index(self.label_col) + 1
        extra = [c for c in self.annotation_info.columns if c not in df.columns]
        for j, col in enumerate(extra):
            df.insert(pos + j, col, self.annotation_info[col].to_numpy())
        return df
