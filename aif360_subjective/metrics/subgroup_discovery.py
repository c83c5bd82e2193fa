"""``SubgroupDiscoveryMetric``: automated subgroup fairness discovery (the ASDF method) as an AIF360 metric.

The classic AIF360 face of :func:`aif360_subjective.detectors.detect_subgroups`: the same core runs on the
dataset's features after decoding them back to attributes (one-hot columns ``race=Caucasian`` -> attribute
``race``; protected-attribute codes -> their names via ``metadata['protected_attribute_maps']``), so the
patterns read ``race=Caucasian`` and the result equals a run on the raw table.

References:
    J. Schäfer and L. Wiese, "ASDF-Dashboard: Automated Subgroup Detection and Fairness Analysis",
    and the reference implementation jeschaef/ASDF-Dashboard.
    R. K. E. Bellamy et al., "AI Fairness 360", 2018.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from aif360.datasets import BinaryLabelDataset
from aif360.decorating_metaclass import dont_decorate
from aif360.metrics import ClassificationMetric

from .._validation import check_columns, check_random_state
from ..detectors.candidates import KINDS
from ..detectors.detect import analyse
from ..detectors.error_control.maxt import DEFAULT_PERMUTATIONS
from ..detectors.error_control.resampling import row_keys, sampling_of, warn_id_like_columns
from ..detectors.mining.pattern_mining import DEFAULT_BINS, DEFAULT_MAX_MERGE, DEFAULT_THRESHOLDS
from ..detectors.options import (
    DEFAULT_CLUSTER_SAMPLE,
    DEFAULT_MAX_PATTERNS,
    DEFAULT_MIN_SUPPORT,
    check_analysis_options,
)
from ..detectors.report import SubgroupReport

__all__ = ["SubgroupDiscoveryMetric", "decode_attributes"]


@dataclass
class AttributeCoding:
    """How one decoded attribute is stored in the AIF360 dataset.

    Attributes:
        kind: ``"onehot"`` (columns ``name=value``), ``"mapped"`` (a numeric code with a value map) or
            ``"plain"`` (the column holds the value itself).
        columns: for "onehot", value -> column name; otherwise ``{None: column name}``.
        codes: for "mapped", value -> numeric code.
        source: ``"features"`` or ``"protected_attributes"`` (the array holding the column).
    """

    kind: str
    columns: dict[Any, str] = field(default_factory=dict)
    codes: dict[Any, float] = field(default_factory=dict)
    source: str = "features"


#: Most AIF360 group dicts :meth:`SubgroupDiscoveryMetric.aif360_groups` builds for one mined pattern (a
#: numeric range is one dict per distinct value inside it).
MAX_GROUP_DICTS = 10_000

#: Decoded value of a protected attribute whose map sends its code to NaN (a missing value).
MISSING_LABEL = "(missing)"


def _is_nan(v: Any) -> bool:
    return isinstance(v, float) and v != v


def decode_attributes(dataset: Any) -> tuple[pd.DataFrame, dict[str, AttributeCoding]]:
    """Decode an AIF360 dataset's features back to attributes.

    One-hot blocks ``prefix=value`` (every row exactly one 1) become a string attribute ``prefix``;
    protected attributes with a complete ``metadata['protected_attribute_maps']`` entry become their mapped
    values; other columns stay numeric. Protected attributes that are not features are appended.

    Args:
        dataset: an AIF360 ``StructuredDataset``.

    Returns:
        tuple: ``(table, codings)``: the decoded DataFrame (index = instance names) and, per attribute, how
        it is stored (used to export subgroups as AIF360 group dicts).
    """
    names = list(dataset.feature_names)
    F = dataset.features
    pa_names = list(dataset.protected_attribute_names)
    maps = list((dataset.metadata or {}).get("protected_attribute_maps") or [])
    blocks: dict[str, list[int]] = {}
    for j, c in enumerate(names):
        if "=" in c:
            blocks.setdefault(c.split("=", 1)[0], []).append(j)
    decoded_block: dict[str, list[int]] = {}
    for prefix, cols in blocks.items():
        sub = F[:, cols]
        if (
            len(cols) >= 2
            and prefix not in names
            and np.isin(sub, (0.0, 1.0)).all()
            and (sub.sum(1) == 1).all()
        ):
            decoded_block[prefix] = cols
    data: dict[str, Any] = {}
    codings: dict[str, AttributeCoding] = {}
    done: set[str] = set()

    def plain_or_mapped(c: str, values: np.ndarray, source: str) -> None:
        if c in pa_names:
            i = pa_names.index(c)
            m = maps[i] if i < len(maps) and isinstance(maps[i], dict) else None
            if m:
                # A missing value (MultiAnnotatorDataset codes it -1 -> NaN) is a category of its own
                # here: an annotator without demographics still belongs to subgroups.
                fmap = {float(k): (MISSING_LABEL if _is_nan(v) else v) for k, v in m.items()}
                uniq = np.unique(values)
                if all(float(u) in fmap for u in uniq):
                    data[c] = pd.Series([fmap[float(v)] for v in uniq]).to_numpy(dtype=object)[
                        np.searchsorted(uniq, values)
                    ]
                    codes = {fmap[float(u)]: float(u) for u in uniq}
                    codings[c] = AttributeCoding("mapped", {None: c}, codes, source)
                    return
        data[c] = values
        codings[c] = AttributeCoding("plain", {None: c}, {}, source)

    for j, c in enumerate(names):
        block = c.split("=", 1)[0] if "=" in c else None
        if block is not None and block in decoded_block:
            if block in done:
                continue
            done.add(block)
            cols = decoded_block[block]
            values = np.array([names[k].split("=", 1)[1] for k in cols], dtype=object)
            data[block] = values[F[:, cols].argmax(axis=1)]
            codings[block] = AttributeCoding(
                "onehot", {v: names[k] for v, k in zip(values, cols, strict=True)}
            )
            continue
        plain_or_mapped(c, F[:, j], "features")
    for i, c in enumerate(pa_names):
        if c not in names and c not in data:
            plain_or_mapped(c, dataset.protected_attributes[:, i], "protected_attributes")
    table = pd.DataFrame(data, index=pd.Index(list(dataset.instance_names), name="instance"))
    return table, codings


class _ReportMethod:
    """A method of :class:`SubgroupDiscoveryMetric` that is the method of the same name of its ``report``.

    On the metric, ``metric.ranking`` is ``metric.report.ranking`` (a bound method: the report's signature and
    docstring, and no frame of its own, so a warning names the caller); on the class, the report's function (what
    ``inspect.signature`` and the documentation read).
    """

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name
        self.__doc__ = getattr(SubgroupReport, name).__doc__

    def __get__(self, obj: Any, objtype: type | None = None) -> Any:
        if obj is None:
            return getattr(SubgroupReport, self.name)
        return getattr(obj.report, self.name)


class SubgroupDiscoveryMetric(ClassificationMetric):
    """Automated subgroup discovery and per-subgroup fairness of a classifier (the ASDF method).

    Clusters the rows, derives cluster-based and entropy-based subgroups, and measures for each subgroup S
    against the rest R statistical parity, equal opportunity, equalized odds (rest minus subgroup: positive =
    S disadvantaged), accuracy and accuracy error, with the dataset's instance weights. Every subgroup can be
    exported as AIF360 group dicts (:meth:`aif360_groups`).

    All options are keyword-only constructor arguments (AIF360 memoizes public metric methods). Computation is
    eager, like :class:`~aif360_subjective.metrics.OpinionExclusionMetric`: the constructor validates the options and
    runs the whole discovery once, so every error surfaces at construction; the accessors return fresh pandas
    objects and are not memoized.

    Args:
        dataset (BinaryLabelDataset): ground truth.
        classified_dataset (BinaryLabelDataset): predictions (same rows).
        clustering: ``"slink"`` (default), ``"kmeans"``, ``"xmeans"``, ``"dbscan"``, ``"optics"``,
            ``"birch"``, ``"ward"`` or an unfitted scikit-learn clusterer.
        n_clusters: int, ``None`` (x-means) or a sequence of ints (fairness-aware choice).
        entropy_threshold: tau in [0, 1].
        categorical_features: decoded attribute names to treat as categorical (default: one-hot and mapped
            attributes, i.e. the string-valued ones).
        undefined_rates: ``"nan"`` (default, as ClassificationMetric) or ``"asdf"``.
        random_state: None, int or numpy Generator.
        attributes: decoded attributes to use (default: all features).
        normalization, inclusive, selection_metric, silhouette_sample_size, mst, cluster_sample: see
            ``detect_subgroups`` (``mst``: single linkage's MST back-end, ``"auto"``, ``"mlpack"`` or ``"sklearn"``;
            ``cluster_sample``: the most rows the clustering is fitted on, default 10,000, ``None`` for all).
        use_instance_weights: weight the metrics by ``dataset.instance_weights`` (default True, as AIF360).
        cluster_column: name of the column holding the cluster label in :meth:`subgroup_datasets`.
        discovery, max_length, min_support, n_bins, max_merge, thresholds, max_patterns: the pattern candidates,
            as in :func:`~aif360_subjective.detectors.detect_subgroups` (default ``discovery="both"``: clusters,
            entropy patterns and mined patterns).
        n_permutations, max_t_penalty: the max-T error control, as in
            :func:`~aif360_subjective.detectors.detect_subgroups`.
        groups: a cluster id per row (an array of the dataset's length, or the name of one of its decoded
            attributes, e.g. a person id): the max-T permutes whole clusters and the intervals resample them,
            as ``detect_subgroups(groups=...)``; ``design`` as there. AIF360's datasets hold binary labels, so
            this face audits binary decisions only (``task`` is ``detect_subgroups``'s).

    Raises:
        TypeError: datasets of the wrong type.
        ValueError: misaligned datasets, different favourable labels, bad options, unknown attributes.

    References:
        J. Schäfer and L. Wiese, "ASDF-Dashboard: Automated Subgroup Detection and Fairness Analysis".
    """

    def __init__(
        self,
        dataset: Any,
        classified_dataset: Any,
        *,
        clustering: Any = "slink",
        n_clusters: int | Sequence[int] | None = None,
        entropy_threshold: float = 0.65,
        categorical_features: Sequence[str] | None = None,
        undefined_rates: str = "nan",
        random_state: Any = None,
        attributes: Sequence[str] | None = None,
        normalization: str = "cluster",
        inclusive: bool = False,
        selection_metric: str = "statistical_parity",
        silhouette_sample_size: int | None = 1000,
        use_instance_weights: bool = True,
        cluster_column: str = "cluster",
        mst: str = "auto",
        discovery: str = "both",
        max_length: int = 3,
        min_support: int | float = DEFAULT_MIN_SUPPORT,
        n_bins: int = DEFAULT_BINS,
        max_merge: int = DEFAULT_MAX_MERGE,
        thresholds: int | None = DEFAULT_THRESHOLDS,
        n_permutations: int = DEFAULT_PERMUTATIONS,
        max_t_penalty: str = "classes",
        groups: Any = None,
        design: str = "between",
        cluster_sample: int | None = DEFAULT_CLUSTER_SAMPLE,
        max_patterns: int | None = DEFAULT_MAX_PATTERNS,
    ) -> None:
        if not isinstance(dataset, BinaryLabelDataset):
            raise TypeError(f"dataset must be a BinaryLabelDataset, got {type(dataset).__name__}")
        if not isinstance(classified_dataset, BinaryLabelDataset):
            raise TypeError(
                f"classified_dataset must be a BinaryLabelDataset, got {type(classified_dataset).__name__}"
            )
        n = dataset.features.shape[0]
        if classified_dataset.labels.shape[0] != n:
            raise ValueError(
                f"classified_dataset has {classified_dataset.labels.shape[0]} rows but dataset has {n}; "
                "they must hold the same rows in the same order"
            )
        if classified_dataset.favorable_label != dataset.favorable_label:
            raise ValueError(
                f"favourable labels differ: dataset {dataset.favorable_label}, classified_dataset "
                f"{classified_dataset.favorable_label}"
            )
        # our checks first: they say more than AIF360's "expected to differ only in 'labels' or 'scores'"
        super().__init__(dataset, classified_dataset)
        fav, unfav = dataset.favorable_label, dataset.unfavorable_label
        y, yhat = dataset.labels.ravel(), classified_dataset.labels.ravel()
        for name, arr in (("dataset", y), ("classified_dataset", yhat)):
            bad = ~np.isin(arr, (fav, unfav))
            if bad.any():
                raise ValueError(
                    f"{name} has labels {np.unique(arr[bad])[:5].tolist()} outside (favourable {fav}, "
                    f"unfavourable {unfav})"
                )
        table, self._codings = decode_attributes(dataset)
        if attributes is not None:
            keep = check_columns(attributes, table, "attributes")
            table = table[keep]
        if table.isna().any().any():
            missing = table.columns[table.isna().any()].tolist()
            raise ValueError(f"dataset features contain missing values in {missing}")
        opts = check_analysis_options(
            table, entropy_threshold=entropy_threshold, n_clusters=n_clusters, undefined_rates=undefined_rates,
            normalization=normalization, selection_metric=selection_metric,
            silhouette_sample_size=silhouette_sample_size, clustering=clustering,
            categorical_features=categorical_features, inclusive=inclusive, mst=mst, discovery=discovery,
            max_length=max_length, min_support=min_support, n_bins=n_bins, max_merge=max_merge,
            n_permutations=n_permutations, max_t_penalty=max_t_penalty,
            cluster_sample=cluster_sample, max_patterns=max_patterns, thresholds=thresholds,
        )
        if cluster_column in dataset.feature_names or cluster_column in dataset.protected_attribute_names:
            raise ValueError(f"cluster_column {cluster_column!r} is already a column of the dataset")
        self.cluster_column = cluster_column
        self._table = table
        w = dataset.instance_weights.astype(np.float64) if use_instance_weights else None
        if isinstance(groups, str):
            full, _ = decode_attributes(dataset)
            check_columns([groups], full, "groups")
            groups = full[groups].rename(groups)
        warn_id_like_columns(table, groups, stacklevel=3)
        sampling = sampling_of([row_keys(table), row_keys(table, y, yhat)], groups, design)
        self.report: SubgroupReport = analyse(
            table, y == fav, yhat == fav, w, opts, check_random_state(random_state), fav, sampling=sampling,
            task_reason="binary decisions (an AIF360 BinaryLabelDataset)",
        )

    # The report's questions, delegated: the face's method is the report's bound method (same signature, docstring
    # and warnings' caller), so the two cannot drift. The report computes everything once and its accessors return
    # fresh objects; a descriptor is not callable, so AIF360's memoizing metaclass leaves them alone.
    patterns = _ReportMethod()
    findings = _ReportMethod()
    discovery_summary = _ReportMethod()
    discovery_sentence = _ReportMethod()
    pattern_info = _ReportMethod()
    subgroup_metrics = _ReportMethod()
    summary = _ReportMethod()
    ranking = _ReportMethod()

    @property
    def clusters(self) -> pd.Series:
        """Cluster label per row (index = instance names)."""
        return self.report.clusters.copy()

    @property
    def validity(self) -> pd.Series:
        """Cluster validity indices and the fairness separation of the clustering."""
        return self.report.validity.copy()

    @property
    def attributes(self) -> list[str]:
        """The names of the decoded attributes the discovery ran on: ``attributes=`` as given, else every decoded
        attribute (the same list either way, in the table's column order)."""
        return list(self._table.columns)

    @property
    def attribute_table(self) -> pd.DataFrame:
        """The decoded attribute table the discovery ran on (one column per name of :attr:`attributes`)."""
        return self._table.copy()

    @dont_decorate
    def aif360_groups(self, kind: str, id: Any, *,
                      names: bool = False) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Subgroup ``(kind, id)`` and the rest as AIF360 lists of dicts in the dataset's encoded values.

        With ``names=True`` the same dicts name the categories instead (``{'race': 'African-American'}``
        rather than ``{'race': 5.0}``, ``{'sex': 'Male'}`` rather than ``{'sex=Male': 1.0}``): for reading and
        printing; AIF360's metrics need the encoded form (the default).

        Entropy subgroups: the pattern as one dict (``{'race=Caucasian': 1.0, 'priors_count': 0.0}``); the
        rest as the dicts whose union is its complement (any one condition violated). Cluster subgroups:
        ``[{cluster_column: id}]`` and the other clusters; their column exists only in the datasets of
        :meth:`subgroup_datasets`.

        ``ClassificationMetric(true, pred, privileged_groups=subgroup, unprivileged_groups=rest)`` then
        reproduces :meth:`subgroup_metrics` (AIF360 conditions on protected attributes: when a pattern uses
        a feature that is not protected, run it on ``subgroup_datasets(kind)``).

        Raises:
            ValueError: unknown kind or id, or an empty entropy pattern.
        """
        candidates = self.report.candidates
        family = candidates.family(kind)
        candidates.position(kind, id)
        if not family.has_conditions:  # the clusters: a column of their own in subgroup_datasets
            others = [c for c in self.report.clusters.unique().tolist() if c != id]
            return [{self.cluster_column: float(id)}], [
                {self.cluster_column: float(c)} for c in sorted(others)
            ]
        conditions = self.report.pattern_conditions(id, kind=kind)
        if not conditions:
            raise ValueError(
                f"the entropy pattern of cluster {id!r} is empty (no dominant attribute): no subgroup"
            )
        if names and not any(isinstance(v, tuple) for v in conditions.values()):
            return [dict(conditions)], [
                {attr: v} for attr, value in conditions.items() for v in self._categories(attr) if v != value
            ]
        return self._condition_groups(id, conditions)

    def _categories(self, attr: str) -> list[Any]:
        """The values of a decoded attribute, in the order of its codes (one-hot: column order)."""
        coding = self._codings[attr]
        if coding.kind == "onehot":
            return list(coding.columns)
        if coding.kind == "mapped":
            return [v for v, _ in sorted(coding.codes.items(), key=lambda kv: kv[1])]
        values: list[Any] = np.unique(self._table[attr].to_numpy()).tolist()
        return values

    def _condition_groups(self, id: Any,
                          conditions: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """A conjunction of conditions as AIF360 groups: the subgroup as dicts whose union it is (a range
        condition becomes one dict per distinct value in it), the rest as dicts whose union is its complement."""
        subgroup: list[dict[str, Any]] = [{}]
        rest: list[dict[str, Any]] = []
        for attr, value in conditions.items():
            coding = self._codings[attr]
            if isinstance(value, tuple):  # numeric range (low, high, closed)
                low, high, closed = value
                vals = np.unique(self._table[attr].to_numpy(dtype=np.float64))
                inside = (vals >= low) & ((vals <= high) if closed else (vals < high))
                codes_in = [self._encoded(attr, coding, v) for v in vals[inside]]
                rest.extend(self._encoded(attr, coding, v) for v in vals[~inside])
                if len(subgroup) * len(codes_in) > MAX_GROUP_DICTS:
                    raise ValueError(
                        f"mined pattern {id!r} spans {len(codes_in)} distinct values of {attr!r}: more than "
                        f"{MAX_GROUP_DICTS:,} AIF360 group dicts; use report.members('pattern', {id!r}) instead"
                    )
                subgroup = [{**g, **c} for g in subgroup for c in codes_in]
                continue
            if coding.kind == "onehot":
                col = coding.columns[value]
                subgroup = [{**g, col: 1.0} for g in subgroup]
                rest.append({col: 0.0})
            elif coding.kind == "mapped":
                code = coding.codes[value]
                subgroup = [{**g, attr: code} for g in subgroup]
                rest.extend({attr: c} for c in sorted(coding.codes.values()) if c != code)
            else:
                v = float(value)
                subgroup = [{**g, attr: v} for g in subgroup]
                rest.extend({attr: float(u)} for u in np.unique(self._table[attr].to_numpy()) if float(u) != v)
        return subgroup, rest

    @staticmethod
    def _encoded(attr: str, coding: AttributeCoding, value: Any) -> dict[str, Any]:
        if coding.kind == "mapped":
            return {attr: coding.codes[value]}
        return {attr: float(value)}

    @dont_decorate
    def subgroup_datasets(self, kind: str = "entropy") -> tuple[Any, Any]:
        """Copies of (dataset, classified_dataset) on which :meth:`aif360_groups` work with any AIF360 metric
        or algorithm (conditions are evaluated on protected attributes).

        ``kind="cluster"`` adds the cluster label as a feature and protected attribute named
        ``cluster_column``; ``kind="entropy"`` makes every feature used by a pattern a protected attribute
        (values unchanged). The metric's own datasets are not modified.

        Returns:
            tuple: ``(dataset, classified_dataset)``.
        """
        if kind not in KINDS:
            raise ValueError(f"kind must be {', '.join(map(repr, KINDS[:-1]))} or {KINDS[-1]!r}, got {kind!r}")
        family = self.report.candidates.family(kind)
        if not family.has_conditions:  # the clusters: their label becomes a column
            column = self.report.clusters.to_numpy(dtype=np.float64)
            return (_with_column(self.dataset, self.cluster_column, column),
                    _with_column(self.classified_dataset, self.cluster_column, column))
        conditions = {(attr, value) for i in range(len(family.ids)) for attr, value in family.conditions(i).items()}
        used = set()
        for attr, value in conditions:  # every condition used by a candidate
            coding = self._codings[attr]
            used.add(coding.columns[value] if coding.kind == "onehot" and not isinstance(value, tuple) else attr)
        return _promote(self.dataset, sorted(used)), _promote(self.classified_dataset, sorted(used))


def _with_column(ds: Any, name: str, values: np.ndarray) -> Any:
    out = ds.copy(deepcopy=True)
    out.features = np.hstack([out.features, values[:, None]])
    out.feature_names = [*out.feature_names, name]
    return _promote(out, [name], copy=False)


def _promote(ds: Any, names: list[str], copy: bool = True) -> Any:
    """Make feature columns ``names`` protected attributes too (values unchanged)."""
    out = ds.copy(deepcopy=True) if copy else ds
    new = [c for c in names if c not in out.protected_attribute_names and c in out.feature_names]
    if not new:
        return out
    cols = [out.feature_names.index(c) for c in new]
    out.protected_attributes = np.hstack([out.protected_attributes, out.features[:, cols]])
    out.protected_attribute_names = [*out.protected_attribute_names, *new]
    out.privileged_protected_attributes = [*out.privileged_protected_attributes, *[np.array([])] * len(new)]
    out.unprivileged_protected_attributes = [
        *out.unprivileged_protected_attributes,
        *[np.array([])] * len(new),
    ]
    return out
