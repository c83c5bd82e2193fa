"""The result object of subgroup discovery."""

from __future__ import annotations

import copy
import warnings
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from .._validation import check_alpha, check_choice
from .directions import DIRECTIONS, check_direction, sort_descending
from .encoding import RawCodes
from .inference import benjamini_hochberg, check_ci, subgroup_inference
from .lopsided import lopsidedness
from .options import AnalysisOptions
from .patterns import EntropyPatterns, pattern_frame, pattern_members, pattern_strings
from .subgroup_metrics import METRICS

__all__ = ["SubgroupReport", "KINDS", "RANKABLE"]

KINDS = ("cluster", "entropy")
ASCENDING_DEPRECATION = (
    "ranking(ascending=...) is deprecated: use direction='disadvantaged' or 'favoured' (the side depends on the "
    "metric), and alpha=None for the raw ranking that ascending gives"
)
#: Columns accepted by :meth:`SubgroupReport.ranking`.
RANKABLE = (*METRICS, "size")


class SubgroupReport:
    """Clusters, patterns and per-subgroup fairness of one subgroup-discovery run.

    Built by :func:`~aif360_subjective.detectors.detect_subgroups`; every accessor returns a fresh pandas
    object. Subgroup ids are the cluster labels: cluster-based subgroup ``("cluster", c)`` is cluster c
    itself, entropy-based subgroup ``("entropy", c)`` is every row of the dataset matching cluster c's
    pattern.

    Attributes:
        clusters (pandas.Series): cluster label per row (index of X, name ``"cluster"``).
        n_clusters (int): number of clusters.
        clustering (str): the clustering method used.
        validity (pandas.Series): classical validity indices (silhouette on a sample, Davies-Bouldin,
            Calinski-Harabasz) and the fairness separation of the clustering (see
            :func:`~aif360_subjective.detectors.selection.fairness_separation`).
        model_selection (pandas.DataFrame or None): the candidates compared when ``n_clusters`` was a
            sequence (or ``None``), with ``largest_share``, ``tiny_clusters`` and ``lopsided`` columns.
        lopsided (dict): :func:`~aif360_subjective.detectors.lopsided.lopsidedness` of the clustering used:
            ``lopsided`` is True when its largest cluster holds >= 90 % of the rows or more than half of its
            clusters hold <= 1 % of the rows each; ``reason`` says which. See
            :func:`~aif360_subjective.detectors.alternative_clusterings` for a balanced alternative.
        weighted (bool): the analysis used non-uniform instance weights; intervals, tests and the
            significance-filtered rankings then need ``ci=None`` / ``alpha=None``.
        options (AnalysisOptions): the validated options of the run (threshold, normalisation, undefined
            rates, ...); :meth:`settings` gives them as a read-only dict with the favourable label.
        pos_label: the favourable label.
        categorical_features (list of str): the columns treated as categorical.
        cut_is_unique (bool or None): for a hierarchical clustering, False when the cut into
            ``n_clusters`` falls inside a tie of merge distances (the last kept and the first undone merge
            are equal within 1e-12 + 1e-9 x the distance): the single-linkage tree is then not unique and
            another exact algorithm may return other, equally valid clusters. Zero-length merges of
            duplicate rows only matter when the cut falls at distance 0. None for flat clusterings.
        cut_distance (float): the merge distance at which the cut falls (first undone merge; NaN for flat
            clusterings).
    """

    def __init__(
        self,
        *,
        index: pd.Index,
        labels: np.ndarray,
        raw: RawCodes,
        pats: EntropyPatterns,
        metrics: pd.DataFrame,
        validity: pd.Series,
        model_selection: pd.DataFrame | None,
        options: AnalysisOptions,
        pos_label: Any = 1,
        categorical_features: list[str],
        clustering: str,
        counts: dict | None = None,
        weighted: bool = False,
        cut_is_unique: bool | None = None,
        cut_distance: float = float("nan"),
    ):
        self._raw = raw
        self._pats = pats
        self._metrics = metrics
        self._strings = pattern_strings(raw, pats)
        self._labels = labels
        self.clusters = pd.Series(labels, index=index, name="cluster")
        self.n_clusters = int(len(pats.ids))
        self.validity = validity
        self.model_selection = model_selection
        if not isinstance(options, AnalysisOptions):
            raise TypeError(f"options must be an AnalysisOptions, got {type(options).__name__}")
        self.options = options
        self.pos_label = pos_label
        self.categorical_features = list(categorical_features)
        self.clustering = clustering
        self.lopsided = lopsidedness(labels)
        # unweighted confusion counts per subgroup (the intervals and tests count rows)
        self._counts = counts
        self.weighted = bool(weighted)
        self._inference_cache: dict[float, pd.DataFrame] = {}  # ci level -> intervals, p and q (computed once)
        self.cut_is_unique = cut_is_unique
        self.cut_distance = float(cut_distance)

    def settings(self) -> Mapping[str, Any]:
        """The options of the run as the report records them, with ``pos_label`` (a read-only dict view)."""
        return MappingProxyType(self.options.describe(self.pos_label))

    # ------------------------------------------------------------------ patterns
    def patterns(self, all_columns: bool = True) -> pd.DataFrame:
        """Entropy patterns: index subgroup id, a column per attribute, NaN where not in the pattern.

        Args:
            all_columns: keep every attribute (default) or only those dominant in at least one cluster, as
                the dashboard's pattern table shows them.
        """
        df = pattern_frame(self._raw, self._pats)
        if not all_columns:
            df = df.loc[:, self._pats.dominant.any(axis=0)]
        return df

    def pattern_info(self) -> pd.DataFrame:
        """Per pattern: its text, length, whether it is empty or repeats an earlier one, and its size."""
        dup = self._pats.duplicate_of
        ids = self._pats.ids
        return pd.DataFrame(
            {
                "pattern": self._strings,
                "length": self._pats.dominant.sum(axis=1),
                "is_empty": self._pats.is_empty,
                "is_duplicate": dup >= 0,
                "duplicate_of": pd.array([ids[d] if d >= 0 else pd.NA for d in dup], dtype="Int64"),
                "size": self._metrics.loc["entropy", "size"].to_numpy(),
            },
            index=pd.Index(ids, name="id"),
        )

    def entropies(self) -> pd.DataFrame:
        """Normalised entropy of every attribute in every cluster (index id, a column per attribute)."""
        return pd.DataFrame(
            self._pats.entropy, index=pd.Index(self._pats.ids, name="id"), columns=self._pats.columns
        )

    # ------------------------------------------------------------------ metrics
    def subgroup_metrics(self, ci: float | None = 0.95) -> pd.DataFrame:
        """Per-subgroup size and fairness metrics, with confidence intervals and significance by default.

        Index (kind, id); columns size, statistical_parity, equal_opportunity, equalized_odds, accuracy,
        accuracy_error (the seed's table; empty and repeated entropy patterns have no metrics (NaN), an empty
        pattern has no size (<NA>)), then, unless ``ci`` is None, for each metric ``<metric>_ci_low``,
        ``<metric>_ci_high`` (the ``ci`` confidence interval), ``<metric>_p`` (two-sided p-value of "no
        difference between the subgroup and the rest") and ``<metric>_q`` (Benjamini-Hochberg q-value).

        The methods are those of :mod:`~aif360_subjective.detectors.inference`: Newcombe's hybrid score
        interval and a mid-p Fisher test for statistical parity, equal opportunity and accuracy error (the
        latter as ``(n_R / N) (acc_S - acc_R)``, since the subgroup is part of "all"), Wilson's interval for
        accuracy (tested as accuracy error), a MOVER interval and an intersection-union test for equalized
        odds. The intervals are per subgroup (not simultaneous). The **multiple-testing family** of ``_q``
        is every subgroup of the same kind with a defined p-value, for that metric.

        Subgroups whose rates are undefined (e.g. no favourable truths in the subgroup for equal
        opportunity, or a subgroup covering every row) get NaN intervals and p-values; their number per
        metric and kind is in ``attrs["undefined"]`` (empty and repeated patterns, which define no
        subgroup, are not counted there).

        Args:
            ci: confidence level of the intervals (default 0.95), or ``None`` for the seed's table only.

        Returns:
            pandas.DataFrame

        Raises:
            ValueError: ``ci`` not in (0, 1), or ``ci`` with non-uniform instance weights (the intervals and
                tests count rows; weighted counts are not binomial): pass ``ci=None``.
        """
        if ci is None:
            return self._metrics.copy()
        inf = self._inference(ci)
        out = pd.concat([self._metrics, inf], axis=1)
        out.attrs = copy.deepcopy(inf.attrs)
        return out

    def _has_metrics(self, kind: str) -> np.ndarray:
        """Subgroups of ``kind`` that exist (an empty or repeated entropy pattern has no metrics)."""
        if kind == "cluster":
            return np.ones(len(self._pats.ids), dtype=bool)
        return ~(self._pats.is_empty | (self._pats.duplicate_of >= 0))

    def _inference(self, ci) -> pd.DataFrame:
        ci = check_ci(ci)
        if self.weighted:
            raise ValueError(
                "ci and alpha need unweighted rows: this analysis used non-uniform instance weights, whose "
                "weighted counts are not binomial. Pass ci=None (and alpha=None to ranking) for the weighted "
                "point estimates, or rerun without weights (use_instance_weights=False / sample_weight=None)"
            )
        if self._counts is None:
            raise ValueError("this report holds no confusion counts (built without them): pass ci=None")
        cache = self._inference_cache
        if ci not in cache:
            parts, undefined = [], {}
            for kind in KINDS:
                df = subgroup_inference(self._counts[f"{kind}_rows"], self._counts["total_rows"], ci)
                has = self._has_metrics(kind)
                df.loc[~has, :] = np.nan
                for m in DIRECTIONS:
                    df[m + "_q"] = benjamini_hochberg(df[m + "_p"].to_numpy())
                    undefined.setdefault(m, {})[kind] = int(np.sum(has & np.isnan(df[m + "_p"].to_numpy())))
                parts.append(df)
            cols = [m + s for m in self._metrics.columns[1:] for s in ("_ci_low", "_ci_high", "_p", "_q")]
            inf = pd.concat(parts, ignore_index=True)[cols]
            inf.index = self._metrics.index
            inf.attrs = {
                "ci": ci,
                "family": "all subgroups of one kind with a defined p-value, per metric (Benjamini-Hochberg)",
                "undefined": undefined,
            }
            cache[ci] = inf
        out = cache[ci].copy()
        out.attrs = copy.deepcopy(cache[ci].attrs)  # callers may edit theirs
        return out

    @property
    def overall_accuracy(self) -> float:
        """Accuracy over all rows (weighted when the analysis was): the reference of the ``accuracy``
        ranking."""
        total = self._counts["total"] if self._counts is not None else None
        if total is None or total.sum() <= 0:
            return float("nan")
        return float((total[3] + total[0]) / total.sum())

    def summary(self) -> pd.DataFrame:
        """The dashboard's radar: per kind, the signed mean accuracy error, the means of the absolute
        statistical parity, equal opportunity and equalized odds, and the mean accuracy (NaN skipped)."""
        m = self._metrics
        rows = {}
        for kind in KINDS:
            part = m.loc[kind]
            rows[kind] = {
                "accuracy_error": part["accuracy_error"].mean(),
                "statistical_parity": part["statistical_parity"].abs().mean(),
                "equal_opportunity": part["equal_opportunity"].abs().mean(),
                "equalized_odds": part["equalized_odds"].abs().mean(),
                "accuracy": part["accuracy"].mean(),
            }
        out = pd.DataFrame.from_dict(rows, orient="index")
        out.index.name = "kind"
        return out

    def ranking(
        self,
        metric: str,
        kind: str = "entropy",
        n: int | None = 5,
        direction: str = "disadvantaged",
        alpha: float | None = 0.05,
        min_size: int = 1,
        *,
        ci: float = 0.95,
        ascending: bool | None = None,
    ) -> pd.DataFrame:
        """The subgroups most disadvantaged (or favoured) by a metric, significant ones only by default.

        "Disadvantaged" follows :data:`~aif360_subjective.detectors.directions.DIRECTIONS`: larger statistical
        parity, equal opportunity and equalized odds (rest minus subgroup), smaller accuracy error and
        accuracy (below the overall accuracy).

        With ``alpha`` (default 0.05) only subgroups whose disparity in the requested direction is
        significant are ranked: q-value (Benjamini-Hochberg over all subgroups of this kind, see
        :meth:`subgroup_metrics`) below ``alpha`` **and** the ``ci`` interval entirely on that side of the
        reference (0, or the overall accuracy for ``accuracy``). They are ordered by the interval's bound
        nearest the reference: the first subgroup is the one disadvantaged "by at least X with 95 %
        confidence" for the largest X. ``attrs`` says how many subgroups were left out and why
        (``n_no_metrics`` empty/repeated patterns, ``n_too_small`` below ``min_size``, ``n_undefined``
        undefined rates, ``n_not_significant``), plus ``n_significant``, ``direction``, ``alpha``, ``ci``,
        ``reference`` and ``bound_column``. ``alpha=None`` is the seed's raw ranking: every subgroup by its
        value (missing values last, ties in id order).

        Args:
            metric: one of ``statistical_parity``, ``equal_opportunity``, ``equalized_odds``, ``accuracy``,
                ``accuracy_error``, ``size`` (size has no test: ``alpha`` does not apply; ``"disadvantaged"``
                lists the largest subgroups first).
            kind: ``"cluster"`` or ``"entropy"``.
            n: how many (``None``: all).
            direction: ``"disadvantaged"`` (default) or ``"favoured"``.
            alpha: false-discovery rate of the significance filter, or ``None`` for the raw ranking.
            min_size: leave out subgroups with fewer rows (an extra filter; 1 = all).
            ci: confidence level of the intervals used with ``alpha``.
            ascending: deprecated: ``True``/``False`` give the seed's raw ranking sorted by increasing /
                decreasing value (``alpha`` and ``direction`` are then ignored), with a DeprecationWarning (a
                bool passed in ``direction``'s position, as the old positional ``ascending``, means the same).

        Returns:
            pandas.DataFrame: index id; columns rank, the metric, size, subgroup (its description), and with
            ``alpha`` the metric's ``_ci_low``, ``_ci_high`` and ``_q``.

        Raises:
            ValueError: unknown metric, kind or direction, n < 1, min_size < 1, alpha or ci outside (0, 1),
                or alpha with non-uniform instance weights (pass ``alpha=None``).
        """
        check_choice(metric, "metric", RANKABLE)
        check_choice(kind, "kind", KINDS)
        if n is not None and (isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1):
            raise ValueError(f"n must be a positive int or None, got {n!r}")
        if isinstance(min_size, bool) or not isinstance(min_size, int | np.integer) or min_size < 1:
            raise ValueError(f"min_size must be a positive int, got {min_size!r}")
        if isinstance(direction, bool | np.bool_) and ascending is None:
            # the old positional call ranking(metric, kind, n, ascending)
            ascending, direction = bool(direction), "disadvantaged"
        check_direction(direction)
        if ascending is not None:
            warnings.warn(ASCENDING_DEPRECATION, DeprecationWarning, stacklevel=2)
            if not isinstance(ascending, bool | np.bool_):
                raise TypeError(f"ascending must be True or False, got {ascending!r}")
            descending, alpha = not bool(ascending), None
        else:
            descending = sort_descending(metric, direction)
        if metric == "size":
            alpha = None
        if alpha is not None:
            alpha = check_alpha(alpha)
        part = self._metrics.loc[kind]
        all_desc = np.array(self.descriptions(kind), dtype=object)
        sizes = part["size"].to_numpy(dtype=np.float64, na_value=0.0)
        big = sizes >= min_size
        attrs = {"direction": direction if ascending is None else None, "alpha": alpha, "min_size": int(min_size)}
        if alpha is None:
            keep = big
            values = part[metric].to_numpy(dtype=np.float64, na_value=np.nan)[keep]
            finite = ~np.isnan(values)
            key = np.where(finite, -values if descending else values, 0.0)
            order = np.lexsort((np.arange(len(values)), key, ~finite))  # defined first, by value, id order
            attrs["n_too_small"] = int(np.sum(~big))
            extra = {}
        else:
            inf = self._inference(ci).loc[kind]
            lo = inf[metric + "_ci_low"].to_numpy()
            hi = inf[metric + "_ci_high"].to_numpy()
            q = inf[metric + "_q"].to_numpy()
            ref = self.overall_accuracy if metric == "accuracy" else 0.0
            has = self._has_metrics(kind)
            undefined = has & big & np.isnan(q)
            if descending:  # the subgroup's value must lie above the reference: its lower bound does
                bound, side, bound_col = lo, lo > ref, "_ci_low"
            else:
                bound, side, bound_col = hi, hi < ref, "_ci_high"
            candidates = has & big & ~np.isnan(q)
            with np.errstate(invalid="ignore"):
                keep = candidates & (q < alpha) & side
            key = -bound[keep] if descending else bound[keep]
            order = np.lexsort((np.arange(int(keep.sum())), key))
            attrs.update(
                ci=float(ci), reference=float(ref), bound_column=metric + bound_col, n_subgroups=int(len(has)),
                n_no_metrics=int(np.sum(~has)), n_too_small=int(np.sum(has & ~big)),
                n_undefined=int(undefined.sum()), n_not_significant=int(np.sum(candidates & ~keep)),
                n_significant=int(keep.sum()),
            )
            extra = {metric + "_ci_low": lo[keep], metric + "_ci_high": hi[keep], metric + "_q": q[keep]}
            values = part[metric].to_numpy(dtype=np.float64, na_value=np.nan)[keep]
        order = order[:n] if n is not None else order
        kept = part[keep]
        ids = kept.index.to_numpy()
        columns = {"rank": np.arange(1, len(order) + 1)}
        if metric != "size":
            columns[metric] = values[order]
        columns["size"] = kept["size"].to_numpy()[order]
        columns["subgroup"] = all_desc[keep][order].tolist()
        columns.update({c: v[order] for c, v in extra.items()})
        out = pd.DataFrame(columns, index=pd.Index(ids[order], name="id"))
        out.attrs = attrs
        return out

    def descriptions(self, kind: str = "entropy") -> list[str]:
        """Readable subgroup descriptions in id order (``cluster=3`` or the pattern text)."""
        if kind == "cluster":
            return [f"cluster={i}" for i in self._pats.ids]
        return list(self._strings)

    # ------------------------------------------------------------------ membership
    def members(self, kind: str, id) -> np.ndarray:
        """Boolean mask over the rows: membership of subgroup ``(kind, id)``.

        Raises:
            ValueError: unknown kind or id, or an empty pattern (which defines no subgroup).
        """
        i = self._position(kind, id)
        mask = np.zeros(len(self._labels), dtype=bool)
        if kind == "cluster":
            mask[self._labels == self._pats.ids[i]] = True
            return mask
        if self._pats.is_empty[i]:
            raise ValueError(
                f"the entropy pattern of cluster {id!r} is empty (no dominant attribute): no subgroup"
            )
        mask[pattern_members(self._raw, self._pats, i)] = True
        return mask

    def pattern_conditions(self, id) -> dict:
        """The attribute -> value conditions of the entropy pattern of cluster ``id``."""
        i = self._position("entropy", id)
        return {
            c: self._raw.uniques[j][self._pats.values[i, j]]
            for j, c in enumerate(self._raw.columns)
            if self._pats.dominant[i, j]
        }

    def _position(self, kind: str, id) -> int:
        check_choice(kind, "kind", KINDS)
        pos = np.flatnonzero(self._pats.ids == id)
        if len(pos) == 0:
            raise ValueError(f"unknown subgroup id {id!r}; the ids are {self._pats.ids.tolist()}")
        return int(pos[0])

    def __repr__(self) -> str:
        s = self.summary()
        return (
            f"SubgroupReport(clustering={self.clustering!r}, n_clusters={self.n_clusters}, "
            f"rows={len(self._labels)}, mean |SP| cluster={s.loc['cluster', 'statistical_parity']:.4f}, "
            f"entropy={s.loc['entropy', 'statistical_parity']:.4f})"
        )
