"""Reweighting of annotator groups: every group of annotators weighs the same in training.

A model trained on individual annotations learns mostly from the groups that annotate most: when 80% of the
annotations come from annotators who agree with the majority, the minority's reading of an item hardly moves
the fit. :class:`AnnotatorGroupReweighing` gives every annotation an instance weight so that each group of
annotators (the same groups as the opinion-exclusion audit: ADR bins, demographic intersections, discovered
clusters, or any mapping) holds the same total weight, and the weights still sum to the number of weighted
annotations (so a regularised estimator keeps its scale). Estimators that take ``sample_weight`` (e.g.
:class:`~aif360_subjective.algorithms.inprocessing.AnnotatorAwareClassifier`) then see the groups as equals.

References:
    Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine Learning,
    Section 6 (future work: mitigation of opinion exclusion).
    F. Kamiran and T. Calders, "Data preprocessing techniques for classification without discrimination",
    Knowledge and Information Systems 33, 2012 (reweighing by group, as AIF360's ``Reweighing``).
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any

import numpy as np
import pandas as pd
from aif360.algorithms import Transformer
from aif360.algorithms.transformer import NotFittedError

from ...datasets.multi_annotator import check_multi_annotator_dataset

__all__ = ["AnnotatorGroupReweighing", "REWEIGHING_GROUPINGS"]

#: The named groupings that group annotators (ambiguity and popularity group items and annotations).
REWEIGHING_GROUPINGS = ("adr", "demographic", "discovered")


class AnnotatorGroupReweighing(Transformer):
    """Instance weights that make every group of annotators weigh the same in training.

    ``fit`` groups the annotators of a dataset (with
    :class:`~aif360_subjective.metrics.OpinionExclusionMetric`'s own groupers, so the groups are those of the
    audit) and counts each group's annotations ``n_g``. ``transform`` multiplies the instance weight of every
    annotation of an annotator of group g by ``N / (G * n_g)``, where ``N`` is the number of grouped annotations
    of the fitted dataset and ``G`` the number of groups: each group then holds ``N / G`` of the weight.
    Annotations of annotators the grouping leaves out (e.g. a missing demographic) or that ``fit`` did not see
    keep their weight; they are counted in :attr:`n_unweighted_`.

    Attributes:
        groups_ (pandas.Series): group label of every grouped annotator (index annotator id).
        group_weights_ (pandas.DataFrame): index group; ``n_annotators``, ``n_annotations``, ``weight`` (the
            factor of each of its annotations).
        n_unweighted_ (int): annotations of the last transformed dataset whose weight was left unchanged.

    References:
        Balayn et al. (2019), Section 6; Kamiran and Calders (2012).
    """

    def __init__(
        self,
        grouping: str | pd.Series = "adr",
        bins: Any = 5,
        attributes: str | list[str] | None = None,
        min_group_size: int = 1,
        random_state: Any = None,
    ) -> None:
        """
        Args:
            grouping: "adr" (bins of the annotators' disagreement rate with the majority), "demographic"
                (annotator attributes and their intersections), "discovered" (clusters of annotator behaviour)
                or a pandas Series mapping annotator ids to group labels.
            bins: ADR bins, as ``OpinionExclusionMetric(bins=...)``.
            attributes: annotator attributes for "demographic" / "discovered".
            min_group_size: smaller groups are merged with a neighbour, as in the audit.
            random_state: seed of the "discovered" clustering.

        Raises:
            ValueError: a grouping name that does not group annotators.
            TypeError: a grouping that is neither a name nor a pandas Series.
        """
        if isinstance(grouping, str):
            if grouping not in REWEIGHING_GROUPINGS:
                raise ValueError(
                    f"grouping must be one of {list(REWEIGHING_GROUPINGS)} (groupings of annotators) or a pandas "
                    f"Series annotator id -> group, got {grouping!r}"
                )
        elif not isinstance(grouping, pd.Series):
            raise TypeError(f"grouping must be a name or a pandas Series, got {type(grouping).__name__}")
        if isinstance(min_group_size, bool) or not isinstance(min_group_size, numbers.Integral):
            raise TypeError(f"min_group_size must be an int, got {min_group_size!r}")
        super().__init__(grouping=grouping, bins=bins, attributes=attributes, min_group_size=min_group_size,
                         random_state=random_state)
        self.grouping: str | pd.Series = grouping
        self.bins: Any = bins
        self.attributes: str | list[str] | None = attributes
        self.min_group_size: int = int(min_group_size)
        self.random_state: Any = random_state

    def fit(self, dataset: Any) -> AnnotatorGroupReweighing:
        """Group the annotators of ``dataset`` and compute each group's weight.

        Args:
            dataset (MultiAnnotatorDataset): the training annotations.

        Returns:
            AnnotatorGroupReweighing: self.

        Raises:
            TypeError: ``dataset`` is not a MultiAnnotatorDataset.
            ValueError: no annotator could be grouped.
        """
        check_multi_annotator_dataset(dataset)
        from ...metrics import OpinionExclusionMetric

        # The audit's own grouping on the annotators' labels (the predictions play no part in the groups,
        # so the labels stand in for them); warn_group_size=0: thin groups are the audit's concern.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = OpinionExclusionMetric(
                dataset, dataset, grouping=self.grouping, bins=self.bins, attributes=self.attributes,
                min_group_size=self.min_group_size, random_state=self.random_state, warn_group_size=0,
            )
        units = m.annotator_group_performance()
        groups = pd.Series(units["group"].to_numpy(), index=pd.Index(units["annotator"].to_numpy(), name="annotator"),
                           name="group")
        if groups.empty:
            raise ValueError("no annotator of the dataset could be grouped; nothing to reweigh")
        codes, labels = pd.factorize(groups, sort=True)
        row_code = pd.Series(codes, index=groups.index).reindex(np.asarray(dataset.annotator_ids, dtype=object))
        grouped = row_code.notna().to_numpy()
        n_g = np.bincount(row_code.to_numpy()[grouped].astype(np.intp), minlength=len(labels))
        n_total, n_groups = int(n_g.sum()), len(labels)
        weight = n_total / (n_groups * n_g)
        self.groups_ = groups
        self.group_weights_ = pd.DataFrame(
            {"n_annotators": np.bincount(codes, minlength=n_groups), "n_annotations": n_g, "weight": weight},
            index=pd.Index(labels, name="group"),
        )
        self._codes = pd.Series(codes, index=groups.index)
        return self

    def transform(self, dataset: Any) -> Any:
        """A copy of ``dataset`` whose instance weights are multiplied by the weight of the annotator's group.

        Args:
            dataset (MultiAnnotatorDataset): annotations (typically the fitted ones).

        Returns:
            MultiAnnotatorDataset: the reweighted copy (the input is not modified).

        Raises:
            NotFittedError: ``fit`` was not called.
            TypeError: ``dataset`` is not a MultiAnnotatorDataset.
        """
        if not hasattr(self, "group_weights_"):
            raise NotFittedError("AnnotatorGroupReweighing is not fitted: call fit(dataset) first")
        check_multi_annotator_dataset(dataset)
        code = self._codes.reindex(np.asarray(dataset.annotator_ids, dtype=object)).to_numpy()
        known = ~np.isnan(code)
        factor = np.ones(len(code))
        factor[known] = self.group_weights_["weight"].to_numpy()[code[known].astype(np.intp)]
        self.n_unweighted_ = int((~known).sum())
        out = dataset.copy(deepcopy=True)
        out.instance_weights = np.asarray(dataset.instance_weights, dtype=np.float64) * factor
        return out
