"""CrowdTruthFilter: remove low-quality annotators, keep consistent minority opinions."""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
from aif360.algorithms import Transformer
from aif360.algorithms.transformer import NotFittedError

from ..._param_tables import CROWDTRUTH_PARAMS
from ...datasets import MultiAnnotatorDataset
from ...datasets.multi_annotator import check_multi_annotator_dataset
from ...quality import CrowdTruthResult, crowdtruth_scores
from ...quality.engine import check_max_delta, check_max_iter

_MAD_SCALE = 1.4826  # MAD -> standard deviation for normal data


def label_consistency_z(dataset: MultiAnnotatorDataset, min_annotations: int = 5) -> pd.Series:
    """How far each annotator's labels depend on the other annotators' labels of the same items.

    For every annotation, ``m`` is the share of the *other* annotators of the item who gave the
    favourable label (items with one annotator are skipped). The statistic is the one-sided Fisher
    z of the Pearson correlation between the annotator's labels and ``m`` over their items:
    ``atanh(r) * sqrt(n - 3)``. It is about N(0, 1) for an annotator whose labels are independent
    of the items (a spammer), and large for annotators who follow the crowd *or* a like-minded
    group: a minority annotator's dissent falls on the items where other minority annotators
    dissent too, which raises ``m`` there.

    Args:
        dataset: the annotations.
        min_annotations: fewer usable annotations (or constant labels) give NaN.

    Returns:
        pandas.Series: index = annotator id, the z statistic (NaN when undefined).
    """
    y = (dataset.labels.ravel() == dataset.favorable_label).astype(np.float64)
    item, _ = pd.factorize(pd.Series(dataset.item_ids), sort=False)
    try:
        annotator, annotator_ids = pd.factorize(pd.Series(dataset.annotator_ids), sort=True)
    except TypeError:  # unorderable ids
        annotator, annotator_ids = pd.factorize(pd.Series(dataset.annotator_ids), sort=False)
    n_item = np.bincount(item)
    s_item = np.bincount(item, weights=y)
    ok = n_item[item] > 1
    m = np.where(ok, (s_item[item] - y) / np.maximum(n_item[item] - 1, 1), 0.0)
    a, y, m = annotator[ok], y[ok], m[ok]
    k = len(annotator_ids)

    def total(v: np.ndarray) -> np.ndarray:
        # float even when no annotation is usable (numpy's bincount of nothing is int64)
        return np.bincount(a, weights=v, minlength=k).astype(np.float64)

    n = total(np.ones_like(y))
    cov = n * total(y * m) - total(y) * total(m)
    var_y = n * total(y * y) - total(y) ** 2
    var_m = n * total(m * m) - total(m) ** 2
    denom = np.sqrt(np.maximum(var_y, 0) * np.maximum(var_m, 0))
    valid = (n >= max(min_annotations, 4)) & (denom > 1e-12 * np.maximum(n * n, 1))
    r = np.clip(np.divide(cov, denom, out=np.zeros_like(cov), where=valid), -0.999999, 0.999999)
    z = np.where(valid, np.arctanh(r) * np.sqrt(np.maximum(n - 3, 0)), np.nan)
    return pd.Series(z, index=pd.Index(annotator_ids, name=dataset.annotator_col), name="consistency_z")


class CrowdTruthFilter(Transformer):
    """Remove the annotations of low-quality annotators, keeping consistent minority annotators.

    ``fit`` scores every annotator with CrowdTruth 2.0 (:func:`~aif360_subjective.quality.crowdtruth_scores`)
    and decides, per annotator:

    1. *Candidate*: worker quality score WQS below the threshold. The threshold is, by choice:
       an absolute WQS (``threshold=0.4``); the WQS ``quantile`` (``quantile=0.05`` makes the 5%
       lowest annotators candidates); or, by default (``threshold="auto"``), a robust low-outlier
       bound ``median(WQS) - auto_k * 1.4826 * MAD(WQS)``: annotators whose WQS is more than
       ``auto_k`` robust standard deviations below the typical annotator. Spammers land there; a
       plain threshold also catches consistent minority annotators, whom CrowdTruth ranks below the
       regular ones.
    2. *Protected* (``protect=True``, the default): a candidate stays when its labels are not random,
       i.e. they depend on the other annotators' labels of the same items:
       :func:`label_consistency_z` ``>= protect_z`` (one-sided, default 2.33, p ~ 0.01). A spammer's
       labels are independent of the items (z ~ N(0, 1)); a minority annotator disagrees with the
       majority on the items where the other minority annotators disagree too, so their labels still
       track the item's label distribution. Annotators with fewer than ``min_annotations`` usable
       annotations cannot be shown consistent and are not protected.
    3. Removed = candidate and not protected.

    ``transform`` returns a new dataset without the removed annotators' annotations (the input is
    never modified). It accepts the fitted dataset or any dataset all of whose (item, annotator)
    pairs were in it (e.g. a split of it); anything else raises ``ValueError``: fit on it first.

    Attributes:
        scores_ (aif360_subjective.quality.CrowdTruthResult): the CrowdTruth scores of the fitted dataset.
        threshold_ (float): the WQS threshold used.
        annotators_ (pandas.DataFrame): index = annotator id; ``wqs``, ``consistency_z``,
            ``n_annotations``, ``candidate``, ``protected``, ``removed``.
        removed_annotators_ (pandas.DataFrame): index = removed annotator id; ``wqs``, ``reason``,
            ``consistency_z``, ``n_annotations``.

    References:
        A. Dumitrache et al., "CrowdTruth 2.0: Quality Metrics for Crowdsourcing with Disagreement",
        2018; A. Balayn et al., "Characterising and Mitigating Aggregation-Bias in Crowdsourced
        Toxicity Prediction", 2018 (quality control that keeps valid but unpopular opinions).
    """

    threshold: float | str
    quantile: float | None
    protect: bool
    protect_z: float
    auto_k: float
    min_annotations: int
    max_delta: float
    max_iter: int

    def __init__(
        self,
        threshold: float | str = "auto",
        quantile: float | None = None,
        protect: bool = True,
        protect_z: float = 2.33,
        auto_k: float = 3.0,
        min_annotations: int = 5,
        max_delta: float = 0.001,
        max_iter: int = 1000,
    ) -> None:
        """
        Args:
            threshold: ``"auto"`` or an absolute WQS in [0, 1]; annotators strictly below it are
                candidates for removal.
            quantile: if given (in [0, 1]), the threshold is this quantile of the WQS instead;
                ``threshold`` must then stay ``"auto"``.
            protect: keep candidates whose labels are consistent (see the class docstring).
            protect_z: z needed for protection.
            auto_k: robust standard deviations below the median WQS for the automatic threshold.
            min_annotations: fewest annotations for the consistency test.
            max_delta: CrowdTruth's stopping threshold.
            max_iter: CrowdTruth's iteration cap.

        Raises:
            TypeError, ValueError: for options out of range or of the wrong type.
        """
        if isinstance(threshold, str):
            if threshold != "auto":
                raise ValueError(f"threshold must be 'auto' or a WQS in [0, 1], got {threshold!r}")
        else:
            threshold = float(CROWDTRUTH_PARAMS.check("threshold", threshold))
        if quantile is not None:
            quantile = float(CROWDTRUTH_PARAMS.check("quantile", quantile))
            if threshold != "auto":
                raise ValueError("give either threshold or quantile, not both")
        if not isinstance(protect, bool | np.bool_):
            raise TypeError(f"protect must be True or False, got {protect!r}")
        protect_z = float(protect_z) if isinstance(protect_z, numbers.Real) else protect_z
        if isinstance(protect_z, bool) or not isinstance(protect_z, float) or not np.isfinite(protect_z):
            raise ValueError(f"protect_z must be a finite number, got {protect_z!r}")
        auto_k = float(CROWDTRUTH_PARAMS.check("auto_k", auto_k))
        CROWDTRUTH_PARAMS.check("min_annotations", min_annotations)
        check_max_delta(max_delta)
        check_max_iter(max_iter)
        super().__init__(
            threshold=threshold, quantile=quantile, protect=protect, protect_z=protect_z, auto_k=auto_k,
            min_annotations=int(min_annotations), max_delta=max_delta, max_iter=max_iter,
        )  # fmt: skip
        self.threshold = threshold
        self.quantile = quantile
        self.protect = bool(protect)
        self.protect_z = protect_z
        self.auto_k = auto_k
        self.min_annotations = int(min_annotations)
        self.max_delta = max_delta
        self.max_iter = max_iter

    # ------------------------------------------------------------------------------------------------
    def fit(self, dataset: MultiAnnotatorDataset) -> CrowdTruthFilter:
        """Score the annotators and decide whom to remove.

        Args:
            dataset: the annotations.

        Returns:
            CrowdTruthFilter: self.

        Raises:
            TypeError: if ``dataset`` is not a MultiAnnotatorDataset.
            ValueError: no item of ``dataset`` holds two annotations (nothing to score agreement on).
        """
        check_multi_annotator_dataset(dataset)
        per_item = np.bincount(pd.factorize(pd.Series(dataset.item_ids))[0])
        if not (per_item > 1).any():
            # CrowdTruth scores an annotator by agreement with the others on shared items: with none there is
            # nothing to score, and every annotator would look the same
            raise ValueError(
                f"dataset: no item holds two annotations ({len(per_item)} items, one annotation each): CrowdTruth "
                "scores annotators by their agreement on shared items, so the filter needs items annotated by at "
                "least two annotators"
            )
        scores: CrowdTruthResult = crowdtruth_scores(dataset, max_delta=self.max_delta, max_iter=self.max_iter)
        wqs = scores.workers["wqs"]
        threshold = self._threshold(wqs)
        z = label_consistency_z(dataset, self.min_annotations).reindex(wqs.index)
        n_ann = scores.workers["n_units"]
        candidate = wqs < threshold
        protected = candidate & (z >= self.protect_z) if self.protect else candidate & False
        removed = candidate & ~protected
        table = pd.DataFrame(
            {
                "wqs": wqs,
                "consistency_z": z,
                "n_annotations": n_ann,
                "candidate": candidate,
                "protected": protected,
                "removed": removed,
            }
        )
        table.index.name = dataset.annotator_col
        gone = table[table["removed"]]
        if self.protect:
            reason = [
                f"wqs {w:.3f} < threshold {threshold:.3f}; labels not shown consistent "
                f"(consistency z {'n/a' if np.isnan(zz) else f'{zz:.2f}'} < {self.protect_z:g}"
                f"{', too few annotations' if n < self.min_annotations else ''})"
                for w, zz, n in zip(gone["wqs"], gone["consistency_z"], gone["n_annotations"], strict=True)
            ]
        else:
            reason = [f"wqs {w:.3f} < threshold {threshold:.3f}" for w in gone["wqs"]]
        self.removed_annotators_ = pd.DataFrame(
            {"wqs": gone["wqs"], "reason": reason, "consistency_z": gone["consistency_z"],
             "n_annotations": gone["n_annotations"]},
            index=gone.index,
        )  # fmt: skip
        self.scores_ = scores
        self.threshold_ = float(threshold)
        self.annotators_ = table
        self._fitted_pairs = pd.MultiIndex.from_arrays([dataset.item_ids, dataset.annotator_ids])
        return self

    def _threshold(self, wqs: pd.Series) -> float:
        if self.quantile is not None:
            return float(np.quantile(wqs.to_numpy(), self.quantile))
        if self.threshold != "auto":
            return float(self.threshold)
        med = float(wqs.median())
        mad = float((wqs - med).abs().median()) * _MAD_SCALE
        return float(np.clip(med - self.auto_k * mad, 0.0, 1.0))

    def transform(self, dataset: MultiAnnotatorDataset) -> MultiAnnotatorDataset:
        """The dataset without the annotations of the removed annotators.

        Args:
            dataset: the fitted dataset, or a dataset of annotations that were all in it.

        Returns:
            MultiAnnotatorDataset: a new dataset; ``metadata['crowdtruth_filter']`` holds the counts
            (annotators and annotations in, kept, removed; annotators protected; the threshold).

        Raises:
            NotFittedError: before ``fit``.
            TypeError: if ``dataset`` is not a MultiAnnotatorDataset.
            ValueError: if it has annotations that were not in the fitted dataset.
        """
        if not hasattr(self, "scores_"):
            raise NotFittedError("this CrowdTruthFilter is not fitted yet: call fit(dataset) first")
        check_multi_annotator_dataset(dataset)
        pairs = pd.MultiIndex.from_arrays([dataset.item_ids, dataset.annotator_ids])
        unseen = ~pairs.isin(self._fitted_pairs)
        if unseen.any():
            examples = ", ".join(repr(p) for p in list(pairs[unseen][:3]))
            raise ValueError(
                f"{int(unseen.sum())} of {len(pairs)} annotation(s) were not in the dataset given to fit "
                f"(e.g. (item, annotator) {examples}); the filter only transforms the fitted dataset or "
                "a part of it: fit on this dataset first (fit_transform)"
            )
        removed_ids = self.removed_annotators_.index
        drop = pd.Index(dataset.annotator_ids).isin(removed_ids)
        out = dataset.subset(np.flatnonzero(~drop))
        present = pd.unique(pd.Series(dataset.annotator_ids))
        n_removed_ann = int(pd.Index(present).isin(removed_ids).sum())
        protected = self.annotators_.index[self.annotators_["protected"]]
        out.metadata = dict(out.metadata)
        out.metadata["crowdtruth_filter"] = {
            "threshold": self.threshold_,
            "n_annotators_in": len(present),
            "n_annotators_removed": n_removed_ann,
            "n_annotators_kept": len(present) - n_removed_ann,
            "n_annotators_protected": int(pd.Index(present).isin(protected).sum()),
            "n_annotations_in": len(dataset.annotator_ids),
            "n_annotations_removed": int(drop.sum()),
            "n_annotations_kept": int((~drop).sum()),
        }
        return out
