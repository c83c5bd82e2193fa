"""The result object of subgroup discovery."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .encoding import RawCodes
from .patterns import EntropyPatterns, pattern_frame, pattern_members, pattern_strings
from .subgroup_metrics import METRICS

__all__ = ["SubgroupReport", "KINDS", "RANKABLE"]

KINDS = ("cluster", "entropy")
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
            sequence (or ``None``).
        options (dict): the options of the run (threshold, normalisation, undefined rates, ...).
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
        options: dict,
        categorical_features: list[str],
        clustering: str,
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
        self.options = dict(options)
        self.categorical_features = list(categorical_features)
        self.clustering = clustering
        self.cut_is_unique = cut_is_unique
        self.cut_distance = float(cut_distance)

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
    def subgroup_metrics(self) -> pd.DataFrame:
        """Index (kind, id); columns size, statistical_parity, equal_opportunity, equalized_odds, accuracy,
        accuracy_error. Empty and repeated entropy patterns have no metrics (NaN); an empty pattern has no
        size (<NA>)."""
        return self._metrics.copy()

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
        self, metric: str, kind: str = "entropy", n: int | None = 5, ascending: bool = True, min_size: int = 1
    ) -> pd.DataFrame:
        """Top subgroups by a signed metric.

        Args:
            metric: one of ``statistical_parity``, ``equal_opportunity``, ``equalized_odds``, ``accuracy``,
                ``accuracy_error``, ``size``.
            kind: ``"cluster"`` or ``"entropy"``.
            n: how many (``None``: all).
            ascending: ``True`` puts the most favoured subgroups first (most negative fairness values);
                ``False`` the most disadvantaged. Missing values always come last; ties keep id order.
            min_size: leave out subgroups with fewer rows (tiny subgroups have extreme, noisy rates;
                1 = all, the reference's ranking).

        Returns:
            pandas.DataFrame: index id; columns rank, the metric, size, subgroup (its description).

        Raises:
            ValueError: unknown metric or kind, n < 1 or min_size < 1.
        """
        if metric not in RANKABLE:
            raise ValueError(f"metric must be one of {list(RANKABLE)}, got {metric!r}")
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {list(KINDS)}, got {kind!r}")
        if n is not None and (isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1):
            raise ValueError(f"n must be a positive int or None, got {n!r}")
        if isinstance(min_size, bool) or not isinstance(min_size, int | np.integer) or min_size < 1:
            raise ValueError(f"min_size must be a positive int, got {min_size!r}")
        part = self._metrics.loc[kind]
        sizes = part["size"].to_numpy(dtype=np.float64, na_value=0.0)
        part = part[sizes >= min_size]
        values = part[metric].to_numpy(dtype=np.float64, na_value=np.nan)
        ids = part.index.to_numpy()
        finite = ~np.isnan(values)
        key = np.where(finite, values if ascending else -values, 0.0)
        order = np.lexsort((np.arange(len(ids)), key, ~finite))  # defined first, then by value, then id order
        order = order[:n] if n is not None else order
        all_desc = dict(zip(self._metrics.loc[kind].index, self.descriptions(kind)))
        desc = [all_desc[i] for i in ids]
        out = pd.DataFrame(
            {
                "rank": np.arange(1, len(order) + 1),
                metric: values[order],
                "size": part["size"].to_numpy()[order],
                "subgroup": [desc[i] for i in order],
            },
            index=pd.Index(ids[order], name="id"),
        )
        if metric == "size":
            out = out.drop(columns="size").rename(columns={metric: "size"})
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
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {list(KINDS)}, got {kind!r}")
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
