"""CrowdTruth 2.0 quality scores for units, workers and annotations: the face.

:func:`crowdtruth_scores` validates the options, reads a table or a MultiAnnotatorDataset into the judgment
tensor and runs the fixed-point engine (:mod:`aif360_subjective.quality.engine`) in memory, or its Dask loop
(:mod:`aif360_subjective.quality._dask`) on a Dask DataFrame.

References:
    A. Dumitrache, O. Inel, L. Aroyo, B. Timmermans, C. Welty, "CrowdTruth 2.0: Quality Metrics for
    Crowdsourcing with Disagreement", arXiv:1808.06080, 2018.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._dask import is_dask_collection
from .._deprecation import moved_names
from .._param_tables import PROGRESS
from ..datasets.multi_annotator import is_multi_annotator_dataset
from ._dask import crowdtruth_scores as dask_crowdtruth_scores
from ._vectors import build_tensor
from .engine import CrowdTruthResult, check_max_delta, check_max_iter, check_open_ended, iterate

__all__ = ["crowdtruth_scores"]


def _from_dataset(dataset: Any) -> tuple[pd.DataFrame, list[Any]]:
    """The long (item, annotator, label) table of a MultiAnnotatorDataset and its two labels.

    Labels are the dataset's own values (integral floats as ints); columns keep the dataset's names.
    """
    labels = pd.Series(dataset.original_labels())
    pair = [dataset.unfavorable_label, dataset.favorable_label]
    maps = dataset.metadata.get("label_maps") or [None]
    if maps[0] is not None:
        pair = [maps[0][0.0], maps[0][1.0]]
    elif pd.api.types.is_float_dtype(labels) and np.all(np.mod(pair, 1) == 0):
        labels = labels.astype(np.int64)
        pair = [int(v) for v in pair]
    cols = {dataset.item_col: dataset.item_ids, dataset.annotator_col: dataset.annotator_ids}
    df = pd.DataFrame({**cols, dataset.label_col: labels.to_numpy()})
    with contextlib.suppress(TypeError):  # unorderable labels keep (unfavourable, favourable)
        pair = sorted(pair)
    return df, pair


def crowdtruth_scores(
    df: pd.DataFrame | Any,
    unit_col: str = "unit",
    worker_col: str = "worker",
    label_col: str = "label",
    labels: Sequence[Any] | None = None,
    *,
    open_ended: bool = False,
    max_delta: float = 0.001,
    max_iter: int = 1000,
    duplicates: str = "error",
    progress: bool = False,
    keep_history: bool = False,
) -> CrowdTruthResult:
    """CrowdTruth 2.0 unit, worker and annotation quality scores.

    Each judgment (a worker's answer on a unit) is a vector of label counts: one-hot when a label
    cell holds one label, several ones when it holds a list (multiple choice). With ``eps = 1e-8``,
    all scores starting at 1, WQS = worker quality, UQS = unit quality, AQS = annotation quality:

    * ``Wcos(x, y) = sum_a AQS_a x_a y_a / sqrt(sum_a AQS_a x_a^2 * sum_a AQS_a y_a^2)``;
    * ``UQS(u) = sum_{i<j} Wcos(v_i, v_j) WQS_i WQS_j / max(eps, sum_{i<j} WQS_i WQS_j)``, 0 for a
      unit with fewer than two workers;
    * ``WWA(i) = sum_u sum_{j!=i} Wcos(v_i, v_j) WQS_j UQS(u) / max(eps, sum_u sum_{j!=i} WQS_j UQS(u))``;
    * ``WUA(i) = sum_u c_iu UQS(u) / max(eps, sum_u UQS(u))`` with ``c_iu = Wcos(WQS_i v_i, s(u) -
      WQS_i v_i)`` (eps when that cosine's denominator is below eps) and ``s(u) = sum_j WQS_j v_j``;
    * ``WQS(i) = WWA(i) WUA(i)``;
    * ``AQS(a)`` (closed tasks): over ordered worker pairs (i, j) with ``D_ij = sum_shared UQS v_j[a]
      > 0``, the WQS_i WQS_j-weighted mean of ``sum_shared UQS v_i[a] v_j[a] / D_ij``, at least eps;
      open-ended tasks keep AQS = 1;
    * ``UAS(u, a) = sum_i WQS_i v_i(u)[a] / sum_i WQS_i``.

    Every iteration computes AQS, UQS, WWA, WUA and WQS from the previous iteration's values; the
    iteration stops when the largest absolute change of any WQS, UQS or AQS is below ``max_delta``.
    A worker whose units all have UQS 0 gets WQS 0.

    Args:
        df: long table with one row per judgment, or a
            :class:`~aif360_subjective.datasets.MultiAnnotatorDataset` (items are the units,
            annotators the workers, labels its two label values; the column arguments are ignored).
        unit_col: column of unit (item) ids.
        worker_col: column of worker (annotator) ids.
        label_col: column of labels: a label, or a list/tuple/set of labels for multiple choice.
        labels: the annotation vector (possible labels, in output order). Default: the observed
            labels, sorted when sortable. Labels outside it are an error.
        open_ended: an open task (no fixed label set): AQS stays 1.
        max_delta: stopping threshold on the largest absolute change (the reference's 0.001).
        max_iter: cap on iterations (the reference has none); a warning is issued when reached.
        duplicates: several rows for one (unit, worker) pair: ``"error"`` (default; the reference
            would silently count them as separate workers), ``"last"`` (keep the last row), or
            ``"union"`` (merge them into one judgment with the union of the labels, i.e. the
            element-wise maximum of the counts).
        progress: show a tqdm progress bar over iterations.
        keep_history: keep every iteration's values in ``result.history``.

    Returns:
        CrowdTruthResult: ``units``, ``workers``, ``annotations`` DataFrames and the iteration log.

    Raises:
        TypeError: if ``df`` is neither a DataFrame nor a MultiAnnotatorDataset, or an option has
            the wrong type.
        ValueError: on missing columns, an empty table, missing ids or labels, labels not in
            ``labels``, duplicate pairs with ``duplicates="error"``, ``max_delta <= 0`` or
            ``max_iter < 1``.

    References:
        A. Dumitrache, O. Inel, L. Aroyo, B. Timmermans, C. Welty, "CrowdTruth 2.0: Quality Metrics
        for Crowdsourcing with Disagreement", arXiv:1808.06080, 2018; the authors' Python package
        ``crowdtruth`` 2.1 (``crowdtruth.models.metrics.Metrics``), whose computation this follows.
    """
    max_delta = check_max_delta(max_delta)
    max_iter = check_max_iter(max_iter)
    open_ended = check_open_ended(open_ended)
    progress = bool(PROGRESS.check(progress))
    if is_dask_collection(df):  # Dask DataFrame: partitioned by unit, one pass per iteration
        return dask_crowdtruth_scores(
            df, unit_col=unit_col, worker_col=worker_col, label_col=label_col, labels=labels,
            open_ended=open_ended, max_delta=max_delta, max_iter=max_iter, duplicates=duplicates,
            progress=progress, keep_history=keep_history,
        )
    if is_multi_annotator_dataset(df):
        dataset: Any = df
        unit_col, worker_col, label_col = dataset.item_col, dataset.annotator_col, dataset.label_col
        df, ds_labels = _from_dataset(dataset)
        labels = ds_labels if labels is None else labels
    tensor = build_tensor(df, unit_col, worker_col, label_col, labels, duplicates)
    return iterate(tensor, open_ended=open_ended, max_delta=max_delta, max_iter=max_iter, progress=progress,
                   keep_history=keep_history)


# a name whose home is another module: still importable from here, with a DeprecationWarning
__getattr__ = moved_names(__name__, {"EPS": "aif360_subjective.quality.engine"})
