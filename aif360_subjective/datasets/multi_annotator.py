"""MultiAnnotatorDataset: an AIF360 BinaryLabelDataset with one row per annotation."""

from __future__ import annotations

import logging
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from aif360.datasets import BinaryLabelDataset, StructuredDataset

from .._compat import is_string_like
from .._labels import TiePolicy, binary_entropy, check_tie, majority_vote, vote_counts
from .._validation import (
    check_finite_features,
    check_random_state,
    duplicate_pairs_error,
    is_bool,
    is_number,
    plain,
)
from ._encoding import MISSING_CODE, code_column, one_hot_column

_SPLIT_UNITS = ("item", "annotator", "annotation")
__all__ = ["MultiAnnotatorDataset", "TiePolicy", "check_multi_annotator_dataset", "is_multi_annotator_dataset"]


def _first_examples(values: np.ndarray | pd.Index, k: int = 5) -> str:
    arr = np.asarray(values, dtype=object)
    try:
        vals = list(pd.unique(arr))[:k]
    except TypeError:  # unhashable cells (lists): the first ones as they come
        vals = list(arr[:k])
    return ", ".join(repr(plain(v)) for v in vals)


def _ids(frame: pd.DataFrame, col: str) -> np.ndarray:
    s = frame[col]
    missing = s.isna().to_numpy()
    if missing.any():
        rows = frame.index[missing]
        raise ValueError(
            f"column {col!r} has {int(missing.sum())} missing id(s) (rows {_first_examples(rows)}); "
            "every annotation needs an item and an annotator id"
        )
    # pandas-3 string columns become plain object arrays: ids are kept as given, never handed to AIF360.
    return s.to_numpy(dtype=object) if is_string_like(s) else s.to_numpy()


def _check_table(table: Any, name: str) -> pd.DataFrame:
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame indexed by id, got {type(table).__name__}")
    dup = table.index.duplicated()
    if dup.any():
        raise ValueError(
            f"{name} table has {int(dup.sum())} duplicate id(s) in its index "
            f"({_first_examples(table.index[dup])}); ids must be unique"
        )
    # an infinite attribute would reach the classifiers and the clusterers as a failure deep inside them
    check_finite_features(table, f"{name} table")
    return table


def _check_annotations(annotations: Any, item_col: Any, annotator_col: Any, label_col: Any) -> None:
    """The annotation table: a non-empty DataFrame with three distinct id/label columns."""
    if not isinstance(annotations, pd.DataFrame):
        raise TypeError(
            f"annotations must be a pandas DataFrame (one row per annotation), got {type(annotations).__name__}"
        )
    for arg, col in (("item_col", item_col), ("annotator_col", annotator_col), ("label_col", label_col)):
        if not isinstance(col, str):
            raise TypeError(f"{arg} must be a column name (str), got {col!r}")
        if col not in annotations.columns:
            raise ValueError(
                f"{arg}={col!r} is not a column of annotations; columns are {list(annotations.columns)}"
            )
    if len({item_col, annotator_col, label_col}) < 3:
        raise ValueError(
            f"item_col, annotator_col and label_col must be three different columns, got "
            f"{item_col!r}, {annotator_col!r}, {label_col!r}"
        )
    if len(annotations) == 0:
        raise ValueError("annotations is empty: at least one annotation is needed")


def _info_table(annotations: pd.DataFrame, info_columns: str | Sequence[str]) -> pd.DataFrame:
    """The extra per-annotation columns, positional index."""
    info = [info_columns] if isinstance(info_columns, str) else list(info_columns)
    unknown = [c for c in info if c not in annotations.columns]
    if unknown:
        raise ValueError(
            f"info_columns {unknown!r} are not columns of annotations; columns are {list(annotations.columns)}"
        )
    return annotations[info].reset_index(drop=True)


def _numeric_label(x: Any) -> bool:
    """Numbers and booleans are kept as numeric labels (True -> 1.0); anything else is coded with a label map."""
    return is_number(x) or is_bool(x)


class MultiAnnotatorDataset(BinaryLabelDataset):
    """Binary labels from several annotators: one row per (item, annotator) annotation.

    Rows are annotations in input order. Item features (numeric item columns, and categorical ones
    one-hot coded ``col=value`` when named) and annotator attributes (demographics, the protected
    attributes) are the AIF360 features. Every annotation keeps its item and annotator id in
    :attr:`item_ids` and :attr:`annotator_ids`; :meth:`split`, :meth:`subset`, :meth:`copy` and
    :meth:`align_datasets` keep them aligned with the rows.

    Annotator attributes: categorical ones are coded 0..k-1 (sorted categories), with the code ->
    value maps in ``metadata['protected_attribute_maps']`` like AIF360's loaders. Annotators absent
    from the ``annotators`` table are kept; their attributes get :data:`MISSING_CODE` (-1.0), mapped
    to NaN.

    Attributes:
        item_ids (numpy.ndarray): item id of each row (original values).
        annotator_ids (numpy.ndarray): annotator id of each row (original values).
        items (pandas.DataFrame): item table indexed by item id (one row for every annotated item).
        annotators (pandas.DataFrame): annotator table indexed by annotator id (one row for every
            annotator of the rows; NaN where the given table had no row).
        annotation_info (pandas.DataFrame): extra per-annotation columns (``info_columns``), one row per
            dataset row (positional index), following the rows like the ids.
        item_col, annotator_col, label_col (str): the column names of the input table.

    References:
        A. Balayn, P. Mavridis, A. Bozzon, B. Timmermans and Z. Szlávik, "Characterising and Mitigating
        Aggregation-Bias in Crowdsourced Toxicity Prediction", 2018 (opinion exclusion); R. K. E. Bellamy
        et al., "AI Fairness 360", 2018.
    """

    def __init__(
        self,
        annotations: pd.DataFrame,
        item_col: str = "item",
        annotator_col: str = "annotator",
        label_col: str = "label",
        annotators: pd.DataFrame | None = None,
        items: pd.DataFrame | None = None,
        favorable_label: Any = 1.0,
        unfavorable_label: Any = 0.0,
        protected_attribute_names: Sequence[str] | None = None,
        item_features: Sequence[str] | None = None,
        info_columns: Sequence[str] = (),
        metadata: dict | None = None,
    ) -> None:
        """
        Args:
            annotations: long table, one row per annotation.
            item_col: column of item ids.
            annotator_col: column of annotator ids.
            label_col: column of labels; every value must be ``favorable_label`` or ``unfavorable_label``.
            annotators: optional table indexed by annotator id (demographics).
            items: optional table indexed by item id (text, item features).
            favorable_label: the favourable label value. Numbers are kept (as float); other values
                (e.g. strings) are coded 1.0 = favourable, 0.0 = unfavourable with
                ``metadata['label_maps']``.
            unfavorable_label: the unfavourable label value.
            protected_attribute_names: columns of ``annotators`` used as protected attributes
                (default: all of them).
            item_features: columns of ``items`` used as features (default: its numeric and boolean
                columns). Categorical columns named here are one-hot coded (``col=value``).
            info_columns: other columns of ``annotations`` kept, aligned with the rows, in
                :attr:`annotation_info` (e.g. a raw score or sub-labels): neither label nor feature.
            metadata: extra metadata to keep.

        Raises:
            TypeError: ``annotations`` (or a table) is not a DataFrame, or a column name is not a string.
            ValueError: missing columns, empty input, missing ids or labels, labels outside
                {favorable_label, unfavorable_label}, duplicate (item, annotator) pairs, duplicate ids in a
                table, a table sharing no id with the annotations, missing item feature values.
        """
        _check_annotations(annotations, item_col, annotator_col, label_col)
        self.item_col, self.annotator_col, self.label_col = item_col, annotator_col, label_col
        self.annotation_info = _info_table(annotations, info_columns)
        self.item_ids = _ids(annotations, item_col)
        self.annotator_ids = _ids(annotations, annotator_col)
        labels, fav, unfav, label_map = self._code_labels(annotations[label_col], favorable_label,
                                                           unfavorable_label)
        self._check_duplicate_pairs(annotations.index)

        columns, feature_meta = self._item_columns(items, item_features)
        prot_names, prot_maps = self._annotator_columns(annotators, protected_attribute_names, columns)
        if label_col in columns:
            raise ValueError(f"item feature {label_col!r} has the same name as the label column; rename one")
        columns[label_col] = labels
        super().__init__(
            df=pd.DataFrame(columns, index=annotations.index),
            label_names=[label_col],
            protected_attribute_names=prot_names,
            favorable_label=fav,
            unfavorable_label=unfav,
            metadata=self._metadata(metadata, prot_maps, label_map, feature_meta),
        )
        # AIF360 keeps every constructor argument (the whole frame) in metadata['params']: keep the
        # description only, so a 1.6M-row dataset is not held twice in memory.
        self.metadata["params"] = {
            "item_col": item_col,
            "annotator_col": annotator_col,
            "label_col": label_col,
            "favorable_label": favorable_label,
            "unfavorable_label": unfavorable_label,
            "protected_attribute_names": prot_names,
            "item_features": self._item_feature_names,
        }

    # ------------------------------------------------------------------ construction steps
    def _item_columns(
        self, items: pd.DataFrame | None, item_features: Sequence[str] | None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Sets :attr:`items`; returns the item feature columns broadcast to the rows (one-hot blocks expanded)
        and the one-hot metadata."""
        item_codes, item_uniques = pd.factorize(self.item_ids)
        columns: dict[str, np.ndarray] = {}
        feature_meta: dict[str, Any] = {}
        self.items, feat_cols = self._item_table(items, item_uniques, item_features)
        for name, (values, names) in feat_cols.items():
            if values.ndim == 1:
                columns[name] = values[item_codes]
            else:
                feature_meta[name] = names
                for j, col_name in enumerate(names):
                    columns[col_name] = values[item_codes, j]
        self._item_feature_names = list(columns)
        return columns, feature_meta

    def _annotator_columns(
        self, annotators: pd.DataFrame | None, protected_attribute_names: Sequence[str] | None,
        columns: dict[str, np.ndarray],
    ) -> tuple[list[str], list[dict[Any, Any]]]:
        """Sets :attr:`annotators`; adds the coded protected attributes broadcast to the rows to ``columns`` and
        returns their names and code -> value maps."""
        ann_codes, ann_uniques = pd.factorize(self.annotator_ids)
        self.annotators, prot_cols = self._annotator_table(annotators, ann_uniques, protected_attribute_names)
        prot_names, prot_maps = [], []
        for name, (codes, mapping) in prot_cols.items():
            if name in columns or name == self.label_col:
                raise ValueError(
                    f"annotator attribute {name!r} has the same name as an item feature or the label column; "
                    "rename one of them"
                )
            columns[name] = codes[ann_codes]
            prot_names.append(name)
            prot_maps.append(mapping)
        return prot_names, prot_maps

    def _metadata(self, metadata: dict | None, prot_maps: list[dict[Any, Any]], label_map: dict | None,
                  feature_meta: dict[str, Any]) -> dict[str, Any]:
        """The metadata handed to AIF360: the user's, the value maps (AIF360's keys) and the column roles."""
        meta = dict(metadata or {})
        meta.setdefault("protected_attribute_maps", prot_maps)
        if label_map is not None:
            meta.setdefault("label_maps", [label_map])
        meta.update({
            "item_col": self.item_col,
            "annotator_col": self.annotator_col,
            "label_col": self.label_col,
            "missing_code": MISSING_CODE,
            "one_hot_item_features": feature_meta,
            "n_annotators_without_attributes": int(self.annotators.attrs.get("n_missing", 0)),
        })
        return meta

    # ------------------------------------------------------------------ construction helpers
    def _code_labels(self, raw: pd.Series, fav: Any, unfav: Any):
        col = self.label_col
        for arg, value in (("favorable_label", fav), ("unfavorable_label", unfav)):
            if value is None or (isinstance(value, float) and np.isnan(value)):
                raise TypeError(f"{arg} must be a label value (a number or a string), got {value!r}")
        if fav == unfav:
            raise ValueError(f"favorable_label and unfavorable_label must differ, both are {fav!r}")
        missing = raw.isna().to_numpy()
        if missing.any():
            raise ValueError(
                f"column {col!r} has {int(missing.sum())} missing label(s) (rows "
                f"{_first_examples(raw.index[missing])}); drop or fill them first"
            )
        numeric = _numeric_label(fav) and _numeric_label(unfav)
        if numeric:
            values = raw
            if is_string_like(raw):
                values = pd.to_numeric(raw.astype(object), errors="coerce")
            arr = values.to_numpy(dtype=np.float64, na_value=np.nan)
            bad = ~np.isin(arr, [float(fav), float(unfav)])
            if bad.any():
                raise ValueError(
                    f"column {col!r} has {int(bad.sum())} label(s) outside {{favorable_label={fav!r}, "
                    f"unfavorable_label={unfav!r}}}: {_first_examples(raw.to_numpy(dtype=object)[bad])}"
                )
            return arr, float(fav), float(unfav), None
        obj = raw.to_numpy(dtype=object)
        is_fav, is_unfav = obj == fav, obj == unfav
        bad = ~(is_fav | is_unfav)
        if bad.any():
            raise ValueError(
                f"column {col!r} has {int(bad.sum())} label(s) outside {{favorable_label={fav!r}, "
                f"unfavorable_label={unfav!r}}}: {_first_examples(obj[bad])}"
            )
        return is_fav.astype(np.float64), 1.0, 0.0, {1.0: fav, 0.0: unfav}

    def _check_duplicate_pairs(self, index: pd.Index) -> None:
        ic, _ = pd.factorize(self.item_ids)
        ac, au = pd.factorize(self.annotator_ids)
        key = ic.astype(np.int64) * len(au) + ac
        dup = pd.Series(key).duplicated().to_numpy()
        if dup.any():
            i = int(np.flatnonzero(dup)[0])
            raise duplicate_pairs_error(int(dup.sum()), self.item_ids[i], self.annotator_ids[i], index[i],
                                        self.item_col, self.annotator_col)

    @staticmethod
    def _align_table(table: pd.DataFrame, uniques: np.ndarray, name: str) -> tuple[pd.DataFrame, int]:
        """The table restricted to and completed with the ids of the rows (NaN rows for absent ids)."""
        present = table.index.get_indexer(pd.Index(uniques))
        n_missing = int((present < 0).sum())
        if n_missing == len(uniques) and len(table):
            raise ValueError(
                f"no id of the annotations is in the {name} table index (annotation ids like "
                f"{_first_examples(uniques, 3)}; table ids like {_first_examples(table.index, 3)}): "
                "check that both use the same ids and dtype"
            )
        extra = pd.Index(uniques)[present < 0]
        # Ids absent from the table are kept, with NaN attributes (ints upcast to float).
        aligned = table.reindex(table.index.append(extra)) if len(extra) else table.copy()
        return aligned, n_missing

    def _item_table(self, items, uniques, item_features):
        if items is None:
            if item_features:
                raise ValueError(f"item_features={list(item_features)!r} given without an items table")
            return pd.DataFrame(index=pd.Index(uniques, name=self.item_col)), {}
        items = _check_table(items, "items")
        if item_features is None:
            item_features = [c for c in items.columns if not is_string_like(items[c])]
        else:
            item_features = list(item_features)
            unknown = [c for c in item_features if c not in items.columns]
            if unknown:
                raise ValueError(
                    f"item_features {unknown!r} are not columns of items; columns are {list(items.columns)}"
                )
        table, n_missing = self._align_table(items, uniques, "items")
        row_of_item = table.index.get_indexer(pd.Index(uniques))
        feats = {}
        for c in item_features:
            col = table[c].iloc[row_of_item]
            na = col.isna().to_numpy()
            if na.any():
                raise ValueError(
                    f"item feature {c!r} is missing for {int(na.sum())} annotated item(s) "
                    f"({_first_examples(np.asarray(uniques, dtype=object)[na])}); fill it, or leave the "
                    "column out of item_features"
                )
            if is_string_like(col):
                mat, names = one_hot_column(col, str(c))
                feats[str(c)] = (mat, names)
            else:
                feats[str(c)] = (col.to_numpy(dtype=np.float64), [str(c)])
        table.index.name = table.index.name or self.item_col
        table.attrs["n_missing"] = n_missing
        return table, feats

    def _annotator_table(self, annotators, uniques, prot_names):
        if annotators is None:
            if prot_names:
                raise ValueError(
                    f"protected_attribute_names={list(prot_names)!r} given without an annotators table"
                )
            return pd.DataFrame(index=pd.Index(uniques, name=self.annotator_col)), {}
        annotators = _check_table(annotators, "annotators")
        prot_names = list(annotators.columns) if prot_names is None else list(prot_names)
        unknown = [c for c in prot_names if c not in annotators.columns]
        if unknown:
            raise ValueError(
                f"protected_attribute_names {unknown!r} are not columns of annotators; columns are "
                f"{list(annotators.columns)}"
            )
        table, n_missing = self._align_table(annotators, uniques, "annotators")
        row_of_ann = table.index.get_indexer(pd.Index(uniques))
        coded = {}
        for c in prot_names:
            codes, mapping = code_column(table[c].iloc[row_of_ann].reset_index(drop=True), str(c))
            coded[str(c)] = (codes, mapping)
        table.index.name = table.index.name or self.annotator_col
        table.attrs["n_missing"] = n_missing
        return table, coded

    # ------------------------------------------------------------------ AIF360 row-wise overrides
    def validate_dataset(self) -> None:
        """AIF360's checks (BinaryLabelDataset's and StructuredDataset's), plus aligned id arrays.

        The checks are AIF360's, vectorised: its Python-set comparisons take over a second at the
        Wikipedia scale (1.6M rows), ``numpy.unique`` a fraction of that.

        Raises:
            TypeError: a field is not an ndarray.
            ValueError: shapes differ, labels outside the two label values, protected attribute values
                not designated privileged or unprivileged, ids not aligned with the rows.
        """
        if np.all(self.scores == self.labels):
            self.scores = (self.scores == self.favorable_label).astype(np.float64)
        for name in ("features", "protected_attributes", "labels", "scores", "instance_weights"):
            if not isinstance(getattr(self, name), np.ndarray):
                raise TypeError(f"'{name}' must be an np.ndarray.")
        self.features = self.features.astype(np.float64, copy=False)
        self.protected_attributes = self.protected_attributes.astype(np.float64, copy=False)
        self.labels = self.labels.astype(np.float64, copy=False)
        self.instance_weights = self.instance_weights.astype(np.float64, copy=False)
        if self.labels.ndim == 1:
            self.labels = self.labels.reshape((-1, 1))
        n = self.features.shape[0]
        if self.labels.shape != (n, 1):
            raise ValueError(f"labels must have shape ({n}, 1), got {self.labels.shape}")
        if self.scores.size != n:
            raise ValueError(f"'scores' should have the same shape as 'labels' ({n}, 1), got {self.scores.shape}")
        self.scores = self.scores.reshape(self.labels.shape)
        if self.instance_weights.shape[0] != n:
            raise ValueError(f"Number of weights must match number of instances: {self.instance_weights.shape}")
        if np.any((self.scores < 0.0) | (self.scores > 1.0)):
            logging.warning("'scores' has no well-defined meaning out of range [0, 1].")
        for i, name in enumerate(self.protected_attribute_names):
            priv = np.asarray(self.privileged_protected_attributes[i], dtype=np.float64)
            unpriv = np.asarray(self.unprivileged_protected_attributes[i], dtype=np.float64)
            if np.intersect1d(priv, unpriv).size:
                raise ValueError(f"'privileged_protected_attributes' and 'unprivileged_protected_attributes' "
                                 f"share {np.intersect1d(priv, unpriv).tolist()} for feature {name}")
            unknown = np.setdiff1d(np.unique(self.protected_attributes[:, i]), np.union1d(priv, unpriv))
            if unknown.size:
                raise ValueError(f"All observed values for protected attributes should be designated as "
                                 f"either privileged or unprivileged: {unknown.tolist()} not designated for "
                                 f"feature {name}")
        if not np.isin(self.labels, [self.favorable_label, self.unfavorable_label]).all():
            raise ValueError("The favorable and unfavorable labels provided do not match the labels in the dataset.")
        for name in ("item_ids", "annotator_ids"):
            ids = getattr(self, name)
            if not isinstance(ids, np.ndarray) or ids.shape != (n,):
                raise ValueError(f"{name} must be an ndarray of length {n} (one per row)")
        if len(self.annotation_info) != n:
            raise ValueError(f"annotation_info must have {n} rows (one per row), has {len(self.annotation_info)}")

    def subset(self, indexes) -> MultiAnnotatorDataset:
        """Rows at ``indexes`` (positions, or a boolean mask), ids following the rows.

        Args:
            indexes: integer positions or a boolean mask of length ``len(self)``.

        Returns:
            MultiAnnotatorDataset: the subset.
        """
        idx = np.asarray(indexes)
        if idx.dtype == bool:
            if idx.shape != (len(self.item_ids),):
                raise ValueError(f"a boolean mask must have length {len(self.item_ids)}, got {idx.shape}")
            idx = np.flatnonzero(idx)
        elif idx.size and not np.issubdtype(idx.dtype, np.integer):
            raise TypeError(f"indexes must be integer positions or a boolean mask, got dtype {idx.dtype}")
        idx = idx.astype(np.intp, copy=False)
        n = len(self.item_ids)
        if idx.size and (idx.min() < -n or idx.max() >= n):
            raise ValueError(f"indexes must be row positions in [-{n}, {n}), got values from {idx.min()} "
                             f"to {idx.max()}")
        sub = super().subset(idx)
        sub.item_ids = self.item_ids[idx]
        sub.annotator_ids = self.annotator_ids[idx]
        sub.annotation_info = self.annotation_info.iloc[idx].reset_index(drop=True)
        return sub

    def split(self, num_or_size_splits, shuffle: bool = False, seed: int | None = None,
              by: str = "item") -> list[MultiAnnotatorDataset]:
        """Split into partitions, by item by default (no item on both sides).

        The first argument has AIF360's meaning, applied to the units (items, annotators or
        annotations): an int k = k near-equal folds; a list of floats < 1 = fractions at which to cut;
        a list of ints = unit positions at which to cut. Rows keep their order inside each part.
        Fractions cut at ``int(fraction * n_units)``: with few units a part can be empty (one item split
        ``[0.5]`` gives an empty first part and the item in the second).

        Args:
            num_or_size_splits: see above.
            shuffle: shuffle the units before cutting.
            seed: seed of the shuffle (a numpy Generator; numpy's global state is never touched).
            by: ``"item"``, ``"annotator"`` or ``"annotation"``.

        Returns:
            list[MultiAnnotatorDataset]: the parts.

        Raises:
            ValueError: unknown ``by``, or cut points that are not increasing inside the data.
        """
        if by not in _SPLIT_UNITS:
            raise ValueError(f"by={by!r} is not a split unit; expected one of {_SPLIT_UNITS}")
        if by == "annotation":
            unit_of_row = np.arange(len(self.item_ids))
            n_units = len(unit_of_row)
        else:
            unit_of_row, uniques = pd.factorize(self.item_ids if by == "item" else self.annotator_ids)
            n_units = len(uniques)
        cuts = _cut_points(num_or_size_splits, n_units)
        rng = check_random_state(seed, "seed")
        order = rng.permutation(n_units) if shuffle else np.arange(n_units)
        part_of_unit = np.empty(n_units, dtype=np.intp)
        bounds = [0, *cuts, n_units]
        for p in range(len(bounds) - 1):
            part_of_unit[order[bounds[p]:bounds[p + 1]]] = p
        part_of_row = part_of_unit[unit_of_row]
        parts = []
        for p in range(len(bounds) - 1):
            part = self.subset(np.flatnonzero(part_of_row == p))
            part.metadata.update({
                "transformer": f"{type(self).__name__}.split",
                "params": {"num_or_size_splits": num_or_size_splits, "shuffle": shuffle, "seed": seed,
                           "by": by},
                "previous": [self],
            })
            parts.append(part)
        return parts

    def align_datasets(self, other: MultiAnnotatorDataset) -> MultiAnnotatorDataset:
        """``other`` with columns and rows in this dataset's order, matching rows by (item, annotator).

        Raises:
            TypeError: ``other`` is not a MultiAnnotatorDataset.
            ValueError: the two hold different (item, annotator) pairs or columns.
        """
        if not isinstance(other, MultiAnnotatorDataset):
            raise TypeError(f"other must be a MultiAnnotatorDataset, got {type(other).__name__}")
        new = StructuredDataset.align_datasets(self, other)
        pos = other.row_positions(self.item_ids, self.annotator_ids)
        if len(other.item_ids) != len(self.item_ids) or (pos < 0).any():
            raise ValueError(
                "the datasets hold different (item, annotator) pairs: "
                f"{int((pos < 0).sum())} of this dataset's rows are not in other "
                f"({len(self.item_ids)} vs {len(other.item_ids)} rows)"
            )
        return new.subset(pos)

    def row_positions(self, item_ids, annotator_ids) -> np.ndarray:
        """Row position of each (item, annotator) pair; -1 where the pair is not in this dataset."""
        index = pd.MultiIndex.from_arrays([self.item_ids, self.annotator_ids])
        return index.get_indexer(pd.MultiIndex.from_arrays([np.asarray(item_ids), np.asarray(annotator_ids)]))

    def __eq__(self, other: object) -> bool:
        """AIF360's field-by-field equality, with ids and tables compared too (tables by value)."""
        if not isinstance(other, StructuredDataset):
            return False

        def _eq(x, y):
            if x is y:  # shallow copies (e.g. classified datasets) share their arrays
                return True
            if isinstance(x, (pd.DataFrame, pd.Series)):
                return isinstance(y, type(x)) and x.equals(y)
            if isinstance(x, np.ndarray) and isinstance(y, np.ndarray):
                return x.shape == y.shape and bool(np.all(x == y))
            if isinstance(x, list) and isinstance(y, list):
                if len(x) != len(y):
                    return False
                if not any(isinstance(a, (np.ndarray, pd.DataFrame, pd.Series, list)) for a in x[:1]):
                    return x == y  # C-level comparison: 1.6M instance names in milliseconds
                return all(_eq(a, b) for a, b in zip(x, y))
            return x == y

        keys = set(self.__dict__) - self.ignore_fields
        if keys != set(other.__dict__) - self.ignore_fields:
            return False
        return all(_eq(self.__dict__[k], other.__dict__[k]) for k in keys)

    __hash__ = None  # mutable, compared by value

    # ------------------------------------------------------------------ votes and summaries
    def _favorable_mask(self) -> np.ndarray:
        return self.labels.ravel() == self.favorable_label

    def item_summary(self, tie: TiePolicy = "favorable") -> pd.DataFrame:
        """One row per item: its annotations and their agreement.

        Args:
            tie: majority label of an item with as many favourable as unfavourable labels
                (``"favorable"``, ``"unfavorable"``, or ``"drop"`` = NaN).

        Returns:
            pandas.DataFrame: indexed by item id (first-appearance order), columns ``n_annotations``,
            ``n_favorable``, ``share_favorable``, ``majority_label``, ``agreement`` (share of the
            item's labels equal to the majority, max(p, 1-p)) and ``entropy`` (binary entropy of the
            labels, in bits: 0 = unanimous, 1 = even split).
        """
        check_tie(tie)
        codes, uniques = pd.factorize(self.item_ids)
        n, n_fav = vote_counts(codes, self._favorable_mask(), len(uniques))
        share = n_fav / n
        mv = self._vote(n, n_fav, tie)
        ent = binary_entropy(share)
        return pd.DataFrame(
            {"n_annotations": n.astype(np.int64), "n_favorable": n_fav.astype(np.int64),
             "share_favorable": share, "majority_label": mv, "agreement": np.maximum(share, 1 - share),
             "entropy": ent},
            index=pd.Index(uniques, name=self.item_col),
        )

    def _vote(self, n: np.ndarray, n_fav: np.ndarray, tie: str) -> np.ndarray:
        """The majority vote (:func:`aif360_subjective._labels.majority_vote`) in this dataset's label values."""
        positive = majority_vote(n, n_fav, tie)
        return np.where(positive == 1.0, self.favorable_label,
                        np.where(positive == 0.0, self.unfavorable_label, np.nan))

    def majority_labels(self, tie: TiePolicy = "favorable") -> np.ndarray:
        """Each row's item majority label (aligned with the rows; NaN for dropped ties).

        Args:
            tie: tie policy, as in :meth:`item_summary`.
        """
        check_tie(tie)
        codes, uniques = pd.factorize(self.item_ids)
        n, n_fav = vote_counts(codes, self._favorable_mask(), len(uniques))
        return self._vote(n, n_fav, tie)[codes]

    def majority_vote(self, tie: TiePolicy = "favorable") -> BinaryLabelDataset:
        """Item-level dataset labelled by majority vote.

        The default tie policy, ``"favorable"``, is the Wikipedia Talk convention (an item is toxic
        when strictly more than half of its annotators say so: ``mean(toxicity) > 0.5``).

        Args:
            tie: ``"favorable"``, ``"unfavorable"`` or ``"drop"`` (tied items left out; their count is
                in ``metadata['n_dropped_ties']``).

        Returns:
            aif360.datasets.BinaryLabelDataset: one row per item, ``instance_names`` = item ids (as
            str), features = the item features.
        """
        summary = self.item_summary(tie)
        codes, uniques = pd.factorize(self.item_ids)
        first_row = np.full(len(uniques), -1, dtype=np.intp)
        first_row[codes[::-1]] = np.arange(len(codes) - 1, -1, -1)
        mv = summary["majority_label"].to_numpy()
        keep = ~np.isnan(mv)
        nf = len(self._item_feature_names)
        feats = self.features[first_row[keep], :nf]
        df = pd.DataFrame(feats, columns=self._item_feature_names,
                          index=pd.Index(np.asarray(uniques)[keep]).astype(str))
        df[self.label_col] = mv[keep]
        meta = {
            "n_items": len(uniques),
            "n_dropped_ties": int((~keep).sum()),
            "tie": tie,
            "item_ids": np.asarray(uniques)[keep],
        }
        if "label_maps" in self.metadata:
            meta["label_maps"] = self.metadata["label_maps"]
        out = BinaryLabelDataset(
            df=df, label_names=[self.label_col], protected_attribute_names=[],
            favorable_label=self.favorable_label, unfavorable_label=self.unfavorable_label, metadata=meta,
        )
        out.metadata.update({"transformer": f"{type(self).__name__}.majority_vote", "params": {"tie": tie},
                             "previous": [self]})
        return out

    def annotator_summary(self) -> pd.DataFrame:
        """One row per annotator: ``n_annotations``, ``n_favorable``, ``share_favorable``."""
        codes, uniques = pd.factorize(self.annotator_ids)
        n = np.bincount(codes, minlength=len(uniques))
        n_fav = np.bincount(codes, weights=self._favorable_mask(), minlength=len(uniques))
        return pd.DataFrame(
            {"n_annotations": n, "n_favorable": n_fav.astype(np.int64), "share_favorable": n_fav / n},
            index=pd.Index(uniques, name=self.annotator_col),
        )

    @property
    def n_items(self) -> int:
        """Number of distinct items in the rows."""
        return len(pd.unique(self.item_ids))

    @property
    def n_annotators(self) -> int:
        """Number of distinct annotators in the rows."""
        return len(pd.unique(self.annotator_ids))

    @property
    def item_feature_names(self) -> list[str]:
        """Names of the feature columns that describe items (the others describe annotators)."""
        return list(self._item_feature_names)

    def copy(self, deepcopy: bool = False) -> MultiAnnotatorDataset:
        """A copy of this dataset (AIF360's :meth:`~aif360.datasets.StructuredDataset.copy`), tables included.

        AIF360's shallow copy (the default) shares every attribute with the original. The numeric arrays are
        replaced, never edited in place, by AIF360 and by :meth:`with_predictions`, but the pandas tables are
        edited in place by users (``copy.annotation_info["rating"] = predicted``): the shallow copy therefore
        gets its own :attr:`annotation_info`, :attr:`items` and :attr:`annotators` (pandas copies), so that
        changing a classified copy's tables never changes the original's. The id arrays stay shared (they are
        never edited, and sharing them keeps the equality check of two classified copies fast).

        Args:
            deepcopy: deep-copy every attribute (AIF360's meaning).

        Returns:
            MultiAnnotatorDataset: the copy, with AIF360's copy metadata.
        """
        out = super().copy(deepcopy=deepcopy)
        if not deepcopy:
            out.annotation_info = self.annotation_info.copy(deep=True)
            out.items = self.items.copy(deep=True)
            out.annotators = self.annotators.copy(deep=True)
        return out

    # ------------------------------------------------------------------ predictions and export
    def with_predictions(self, pred, scores=None, *, info=None) -> MultiAnnotatorDataset:
        """A classified copy of this dataset: its labels replaced by predictions.

        Args:
            pred: predictions in the label space of the input (favorable/unfavorable values): an array
                aligned with the rows (one per annotation); a Series indexed by item id (broadcast to the
                item's annotations, as a traditional single-label model does); or a Series indexed by
                (item, annotator) pairs.
            scores: optional probabilities of the favourable label, in the same form as ``pred``.
            info: optional mapping ``{annotation_info column: predicted values}``, each in the same form as
                ``pred``, written into the copy's :attr:`annotation_info` (added or replaced), e.g. the predicted
                ratings ``{"rating": r}`` that :class:`~aif360_subjective.metrics.OpinionExclusionMetric` reads
                with ``rating_column="rating"``. Columns not named keep the original's values (a copy).

        Returns:
            MultiAnnotatorDataset: a copy with ``labels`` (and ``scores``, ``annotation_info`` columns) set; the
            original is unchanged.

        Raises:
            TypeError: ``info`` is not a mapping of column names.
            ValueError: wrong length, ids without a prediction, values outside the label set.
        """
        labels = self._coded_labels(self._per_row(pred, "pred"), "pred")
        out = self.copy()
        out.labels = labels.reshape(-1, 1)
        if scores is None:
            out.scores = (labels == self.favorable_label).astype(np.float64).reshape(-1, 1)
        else:
            sc = self._per_row(scores, "scores")
            try:
                sc = np.asarray(sc, dtype=np.float64)
            except (TypeError, ValueError):
                raise ValueError(f"scores must be probabilities in [0, 1] (numbers), got values like "
                                 f"{_first_examples(sc, 3)}") from None
            if np.isnan(sc).any() or (sc < 0).any() or (sc > 1).any():
                raise ValueError("scores must be probabilities in [0, 1] without NaN")
            out.scores = sc.reshape(-1, 1)
        if info is not None:
            if not isinstance(info, Mapping) or not all(isinstance(k, str) for k in info):
                raise TypeError(f"info must be a mapping {{annotation_info column (str): values}}, got "
                                f"{type(info).__name__}")
            for column, values in info.items():
                out.annotation_info[column] = self._per_row(values, f"info[{column!r}]")
        out.metadata.update({"transformer": f"{type(self).__name__}.with_predictions",
                             "params": {} if info is None else {"info": sorted(info)},
                             "previous": [self]})
        return out

    def _per_row(self, values, name: str) -> np.ndarray:
        n = len(self.item_ids)
        if isinstance(values, pd.Series):
            if isinstance(values.index, pd.MultiIndex):
                if values.index.nlevels != 2:
                    raise ValueError(f"{name} indexed by a MultiIndex must have 2 levels (item, annotator)")
                pos = values.index.get_indexer(pd.MultiIndex.from_arrays([self.item_ids, self.annotator_ids]))
                what = "(item, annotator) pairs"
            else:
                pos = values.index.get_indexer(pd.Index(self.item_ids))
                what = "items"
            if (pos < 0).any():
                raise ValueError(
                    f"{name} has no value for {int((pos < 0).sum())} row(s) of the dataset; it must be "
                    f"indexed by all of its {what}"
                )
            return values.to_numpy()[pos]
        arr = np.asarray(values)
        if arr.ndim == 2 and arr.shape[1] == 1:
            arr = arr.ravel()
        if arr.shape != (n,):
            raise ValueError(f"{name} must have one value per row ({n}), got shape {arr.shape}")
        return arr

    def _coded_labels(self, values: np.ndarray, name: str) -> np.ndarray:
        label_map = self.metadata.get("label_maps", [None])[0]
        if label_map is not None:
            obj = np.asarray(values, dtype=object)
            fav, unfav = label_map[1.0], label_map[0.0]
            is_fav, is_unfav = obj == fav, obj == unfav
            if not (is_fav | is_unfav).all():
                raise ValueError(f"{name} has values outside {{{fav!r}, {unfav!r}}}: "
                                 f"{_first_examples(obj[~(is_fav | is_unfav)])}")
            return is_fav.astype(np.float64)
        try:
            arr = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must hold label values {self.favorable_label!r} / "
                             f"{self.unfavorable_label!r}") from None
        bad = ~np.isin(arr, [self.favorable_label, self.unfavorable_label])
        if bad.any():
            raise ValueError(
                f"{name} has {int(bad.sum())} value(s) outside {{favorable_label={self.favorable_label}, "
                f"unfavorable_label={self.unfavorable_label}}}: {_first_examples(np.asarray(values)[bad])}"
            )
        return arr

    def original_labels(self) -> np.ndarray:
        """The labels in the input's own values (undoing the string-label coding, if any)."""
        return self.decode_labels(self.labels.ravel())

    def decode_labels(self, coded: np.ndarray) -> np.ndarray:
        """Labels in the dataset's coding (``labels``, a model trained on them) as the input's own values.

        Non-numeric labels are coded 1.0 = favourable, 0.0 = unfavourable with ``metadata['label_maps']``;
        this undoes that coding, e.g. before :meth:`with_predictions`, which takes the input's values. Numeric
        labels are returned unchanged (a copy).

        Args:
            coded: labels as stored in this dataset (1.0 / 0.0 when a label map exists).

        Returns:
            numpy.ndarray: same shape, in the input's label values.
        """
        label_map = self.metadata.get("label_maps", [None])[0]
        arr = np.asarray(coded)
        if label_map is None:
            return arr.copy()
        return np.where(arr == 1.0, label_map[1.0], label_map[0.0]).astype(object)

    def to_dataframe(self) -> pd.DataFrame:
        """The long table: item, annotator, label (input names and values), the info columns, the features.

        Returns:
            pandas.DataFrame: one row per annotation, index = instance names.
        """
        data = {self.item_col: self.item_ids, self.annotator_col: self.annotator_ids,
                self.label_col: self.original_labels()}
        for col in self.annotation_info.columns:
            data.setdefault(col, self.annotation_info[col].to_numpy())
        for j, name in enumerate(self.feature_names):
            if name not in data:
                data[name] = self.features[:, j]
        return pd.DataFrame(data, index=pd.Index(self.instance_names, name="annotation"))


def is_multi_annotator_dataset(obj: Any) -> bool:
    """Whether ``obj`` is a :class:`MultiAnnotatorDataset` (by ``isinstance``)."""
    return isinstance(obj, MultiAnnotatorDataset)


def check_multi_annotator_dataset(obj: Any, name: str = "dataset") -> None:
    """Raise unless ``obj`` is a MultiAnnotatorDataset.

    Raises:
        TypeError: naming the argument and the type received.
    """
    if not is_multi_annotator_dataset(obj):
        raise TypeError(
            f"{name} must be a MultiAnnotatorDataset (one row per (item, annotator) annotation), "
            f"got {type(obj).__name__}"
        )


def _cut_points(spec, n_units: int) -> list[int]:
    """Unit positions at which to cut, with AIF360's meaning of ``num_or_size_splits``."""
    if isinstance(spec, (bool, np.bool_)):
        raise TypeError(f"num_or_size_splits must be an int or a list, got {spec!r}")
    if isinstance(spec, numbers.Integral):
        k = int(spec)
        if not 1 <= k <= n_units:
            raise ValueError(f"num_or_size_splits={k} folds must be between 1 and the number of units ({n_units})")
        return [int(round(i * n_units / k)) for i in range(1, k)]
    if not isinstance(spec, (list, tuple, np.ndarray)) or len(spec) == 0:
        raise TypeError(f"num_or_size_splits must be an int or a non-empty list, got {spec!r}")
    vals = list(spec)
    if all(isinstance(x, numbers.Real) and not isinstance(x, numbers.Integral) for x in vals):
        if not all(0 < x < 1 for x in vals):
            raise ValueError(f"fractions in num_or_size_splits must lie in (0, 1), got {vals}")
        cuts = [int(x * n_units) for x in vals]
    elif all(isinstance(x, numbers.Integral) for x in vals):
        cuts = [int(x) for x in vals]
        if not all(0 <= c <= n_units for c in cuts):
            raise ValueError(f"cut positions {cuts} must lie in [0, {n_units}]")
    else:
        raise TypeError(f"num_or_size_splits must be all fractions or all ints, got {vals}")
    if any(b < a for a, b in zip(cuts, cuts[1:])):
        raise ValueError(f"num_or_size_splits must be increasing, got {vals}")
    return cuts
