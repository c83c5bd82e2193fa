"""The result object of subgroup discovery."""

from __future__ import annotations

import copy
import warnings
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.linalg.blas import ssyrk

from .._labels import cell_codes
from .._validation import check_alpha, check_choice
from .bitsets import bit_keys, bits_at, n_words, pack_columns
from .directions import check_direction, sort_descending
from .encoding import RawCodes
from .inference import benjamini_hochberg, check_ci, subgroup_inference
from .lopsided import lopsidedness
from .maxt import (
    ALL_TESTS,
    METRIC_TEST,
    TESTS,
    Counter,
    MaxTResult,
    MemberCounter,
    StackedCounter,
    class_offsets,
    max_t,
)
from .options import AnalysisOptions
from .pattern_mining import MinedPatterns
from .patterns import EntropyPatterns, pattern_frame, pattern_members, pattern_strings
from .subgroup_metrics import FN, FP, METRICS, TN, TP, metrics_from_counts

__all__ = ["SubgroupReport", "KINDS", "RANKABLE", "CONTROLS"]

#: Kinds of subgroups: ASDF clusters, their entropy patterns, mined patterns.
KINDS = ("cluster", "entropy", "pattern")
#: What ``alpha`` controls in :meth:`SubgroupReport.ranking`.
CONTROLS = ("fwer", "fdr")
#: Readable names of the discovery methods (kinds) in the comparison and its sentence.
METHOD_NAMES = {"cluster": "the clusters", "entropy": "the entropy patterns", "pattern": "the mined patterns"}
#: |z| below which a sub-pattern's rate does not differ from the rest of a larger listed subgroup holding it:
#: about the Bonferroni bound of the ~70 one-condition specialisations of a pattern on 8 columns (0.05 / 70).
REDUNDANCY_Z = 3.2
#: Ranked subgroups checked against each other for redundancy (an O(k^2) overlap): the first 3,000 of each
#: (metric, direction) list; past them a finding is listed as it is. On Adult (14,653 rows) this costs 2.3 s per
#: list, 23 s of the whole command; 1,000 would take 2.5 s in all but list 60,556 findings instead of 44,306.
_MAX_REDUNDANCY_CHECK = 3000
ASCENDING_DEPRECATION = (
    "ranking(ascending=...) is deprecated: use direction='disadvantaged' or 'favoured' (the side depends on the "
    "metric), and alpha=None for the raw ranking that ascending gives"
)
#: Columns per metric of ``subgroup_metrics(ci=...)``.
INFERENCE_COLUMNS = ("_ci_low", "_ci_high", "_p", "_q", "_p_adjusted")
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
        kinds: tuple = ("cluster", "entropy"),
    ):
        self.kinds = tuple(kinds)
        self._mined: MinedPatterns | None = None
        self._bits_cache: dict[str, np.ndarray] = {}
        self._counter_cache: Counter | None = None
        self._maxt_cache: MaxTResult | None = None
        self._maxt_partial: dict[tuple[int, ...], MaxTResult] = {}
        self._row_keys_cache: np.ndarray | None = None
        self._outcomes: tuple[np.ndarray, np.ndarray] | None = None
        self._permutation_seed = 0
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
        self.lopsided = (
            lopsidedness(labels) if "cluster" in self.kinds
            else {"n_clusters": 0, "largest_share": float("nan"), "tiny_clusters": 0, "lopsided": False, "reason": ""}
        )
        # unweighted confusion counts per subgroup (the intervals and tests count rows)
        self._counts = counts
        self.weighted = bool(weighted)
        # (ci level, kind, with tests) -> intervals, p and q of the kind's subgroups (computed once)
        self._inference_cache: dict[tuple[float, str, bool], pd.DataFrame] = {}
        # (alpha, ci, keep_redundant, merge_identical) -> findings: the answer, the console, the comparison of the
        # discovery methods and the report ask for the same table; its redundancy filter is the costly part
        self._findings_cache: dict[tuple[float, float, bool, bool], pd.DataFrame] = {}
        self.cut_is_unique = cut_is_unique
        self.cut_distance = float(cut_distance)

    def settings(self) -> Mapping[str, Any]:
        """The options of the run as the report records them, with ``pos_label`` (a read-only dict view)."""
        return MappingProxyType(self.options.describe(self.pos_label))

    # ------------------------------------------------------------------ patterns
    def patterns(self, all_columns: bool = True, kind: str = "entropy") -> pd.DataFrame:
        """Entropy (or mined) patterns: index subgroup id, a column per attribute, NaN where not in the pattern.

        Args:
            all_columns: keep every attribute (default) or only those dominant in at least one cluster (used
                by at least one mined pattern), as the dashboard's pattern table shows them.
            kind: ``"entropy"`` (the clusters' entropy patterns) or ``"pattern"`` (mined patterns: the value,
                or the range as text ``[low, high)``, of each condition).

        Raises:
            ValueError: unknown kind, or a kind this report does not hold.
        """
        check_choice(kind, "kind", ("entropy", "pattern"))
        self._check_kind(kind)
        if kind == "pattern":
            mp = self._mined
            cols = mp.items.columns
            table = np.full((len(mp.patterns), len(cols)), np.nan, dtype=object)
            for i, pat in enumerate(mp.patterns):  # one row per pattern, <= max_length cells each
                for j in pat:
                    label = mp.items.labels[j]
                    c = mp.items.column[j]
                    table[i, c] = label[len(cols[c]) + 3:] if " ∈ " in label else mp.items.values[j]
            df = pd.DataFrame(table, index=pd.Index(np.arange(len(mp.patterns)), name="id"), columns=cols)
            return df if all_columns else df.loc[:, df.notna().any(axis=0)]
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
    def subgroup_metrics(self, ci: float | None = 0.95, kind: str | None = None) -> pd.DataFrame:
        """Per-subgroup size and fairness metrics, with confidence intervals and significance by default.

        Index (kind, id); columns size, statistical_parity, equal_opportunity, equalized_odds, accuracy,
        accuracy_error (the seed's table; empty and repeated entropy patterns have no metrics (NaN), an empty
        pattern has no size (<NA>)), then, unless ``ci`` is None, for each metric ``<metric>_ci_low``,
        ``<metric>_ci_high`` (the ``ci`` confidence interval), ``<metric>_p`` (two-sided p-value of "no
        difference between the subgroup and the rest"), ``<metric>_q`` (Benjamini-Hochberg q-value) and
        ``<metric>_p_adjusted`` (permutation max-T adjusted p-value over every subgroup of every kind, both
        directions: the family-wise error the rankings control; see :mod:`~aif360_subjective.detectors.maxt`).

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
            kind: only the subgroups of this kind (``None``: every kind the report holds). The mid-p tests of
                thousands of mined patterns take seconds; ``kind="entropy"`` skips them.

        Returns:
            pandas.DataFrame

        Raises:
            ValueError: ``ci`` not in (0, 1), ``ci`` with non-uniform instance weights (the intervals and
                tests count rows; weighted counts are not binomial): pass ``ci=None``; a kind the report does
                not hold.
        """
        kinds = None
        if kind is not None:
            check_choice(kind, "kind", KINDS)
            self._check_kind(kind)
            kinds = (kind,)
        metrics = self._metrics if kinds is None else self._metrics.iloc[self._rows_of(kind)]
        if ci is None:
            return metrics.copy()
        inf = self._inference(ci, kinds=kinds)
        out = pd.concat([metrics, inf], axis=1)
        out.attrs = copy.deepcopy(inf.attrs)
        return out

    def _has_metrics(self, kind: str) -> np.ndarray:
        """Subgroups of ``kind`` that exist (an empty or repeated entropy pattern has no metrics)."""
        if kind == "cluster":
            return np.ones(len(self._pats.ids), dtype=bool)
        if kind == "pattern":
            return np.ones(len(self._mined.patterns), dtype=bool)
        return ~(self._pats.is_empty | (self._pats.duplicate_of >= 0))

    def _check_kind(self, kind: str) -> None:
        if kind not in self.kinds:
            raise ValueError(
                f"this report holds no {kind!r} subgroups (discovery={self.options.discovery!r}); "
                f"its kinds are {list(self.kinds)}"
            )

    # ------------------------------------------------------------------ pattern candidates
    def _add_patterns(self, mined: MinedPatterns, t, p, w, undefined_rates: str) -> None:
        """Append the mined patterns as the third kind (their counts, sizes and metrics)."""
        n = len(self._labels)
        cell = cell_codes(np.asarray(t), np.asarray(p))
        onehot = np.zeros((n, 4), dtype=bool)
        onehot[np.arange(n), cell] = True
        rows = mined.counter.count(onehot)  # exact integer counts through the patterns' cells
        weighted = None if w is None else onehot * np.asarray(w, dtype=np.float64)[:, None]
        counts = rows if weighted is None else mined.counter.count(weighted)
        metrics = metrics_from_counts(counts, self._counts["total"], undefined_rates)
        metrics.insert(0, "size", pd.array(mined.support, dtype="Int64"))
        m = len(mined.patterns)
        metrics.index = pd.MultiIndex.from_arrays([np.repeat("pattern", m), np.arange(m)], names=["kind", "id"])
        self._metrics = pd.concat([self._metrics, metrics]) if len(self._metrics) else metrics
        self._counts.update(pattern=counts, pattern_rows=rows, pattern_sizes=mined.support)
        self._mined = mined
        self.kinds = (*self.kinds, "pattern")
        self._inference_cache.clear()
        self._findings_cache.clear()
        self._counter_cache = self._maxt_cache = None
        self._bits_cache.clear()
        self._maxt_partial.clear()
        self._row_keys_cache = None

    def _kind_members(self, kind: str) -> sp.csc_matrix:
        """(rows, subgroups of ``kind``) boolean membership; empty and repeated entropy patterns get an empty
        column (they define no subgroup of their own). The mined patterns' matrix is unpacked from their bitsets
        on first use; the analysis itself reads the bitsets and counts through the cells."""
        n = len(self._labels)
        if kind == "pattern":
            return self._mined.members
        k = len(self._pats.ids)
        if kind == "cluster":
            pos = np.searchsorted(self._pats.ids, self._labels)
            return sp.csc_matrix((np.ones(n, dtype=bool), (np.arange(n), pos)), shape=(n, k))
        has = self._has_metrics("entropy")
        cols = [pattern_members(self._raw, self._pats, i) if has[i] else np.zeros(0, dtype=np.intp)
                for i in range(k)]  # k entropy patterns, each filtered with numpy
        r = np.concatenate(cols) if cols else np.zeros(0, dtype=np.intp)
        c = np.repeat(np.arange(k), [len(x) for x in cols])
        return sp.csc_matrix((np.ones(len(r), dtype=bool), (r, c)), shape=(n, k))

    def _row_keys(self) -> np.ndarray:
        """(subgroups, 3) :func:`~.bitsets.bit_keys` of every subgroup in the metrics' order (computed once):
        equal keys = identical rows, whatever the kinds."""
        if self._row_keys_cache is None:
            parts = [self._mined.keys if k == "pattern" and self._mined is not None else bit_keys(self._kind_bits(k))
                     for k in self.kinds]
            self._row_keys_cache = np.vstack(parts) if parts else np.zeros((0, 3), dtype=np.uint64)
        return self._row_keys_cache

    def _kind_bits(self, kind: str) -> np.ndarray:
        """(subgroups of ``kind``, words) bitsets of their rows (:mod:`.bitsets`; packed once per kind)."""
        if kind == "pattern" and self._mined is not None:
            return self._mined.bits
        if kind not in self._bits_cache:
            self._bits_cache[kind] = pack_columns(self._kind_members(kind))
        return self._bits_cache[kind]

    def _bits(self, positions: np.ndarray) -> np.ndarray:
        """(len(positions), words) bitsets of the subgroups at ``positions`` of the metrics' index."""
        positions = np.asarray(positions, dtype=np.intp)
        out = np.empty((len(positions), n_words(len(self._labels))), dtype=np.uint64)
        start = 0
        for kind in self.kinds:
            k = len(self._rows_of(kind))
            here = (positions >= start) & (positions < start + k)
            if here.any():
                out[here] = self._kind_bits(kind)[positions[here] - start]
            start += k
        return out

    def _counter(self) -> Counter:
        """Counts of every subgroup's rows, in the metrics' order: clusters and entropy subgroups through their
        memberships, mined patterns through their cells (:class:`~.cell_counts.CellCounter`)."""
        if self._counter_cache is None:
            parts: list[Counter] = [self._mined.counter if k == "pattern" and self._mined is not None
                                    else MemberCounter(self._kind_members(k)) for k in self.kinds]
            self._counter_cache = StackedCounter(parts) if parts else MemberCounter(
                sp.csc_matrix((len(self._labels), 0), dtype=bool))
        return self._counter_cache

    def _max_t(self, tests: tuple[int, ...] = ALL_TESTS) -> MaxTResult:
        """Permutation max-T over every subgroup of every kind (computed once). ``tests``: the tests needed; a
        ranking of one metric asks for its own test only, and gets the same adjusted p-values as the full run
        (which the report's findings need) at a quarter of the cost."""
        full = self._maxt_cache
        if full is not None and set(tests) <= set(full.tests):
            return full
        partial = self._maxt_partial.get(tuple(sorted(tests)))
        if partial is not None:
            return partial
        self._check_unweighted()
        if self._outcomes is None:
            raise ValueError("this report holds no truths and predictions (built without them): pass alpha=None")
        t, p = self._outcomes
        kind = self.options.max_t_penalty
        penalty = class_offsets(self._description_classes()) if kind == "classes" else kind == "size"
        result = max_t(self._counter(), t, p, self.options.n_permutations, self._permutation_seed,
                       penalty=penalty, tests=tuple(sorted(tests)))
        if len(result.tests) == len(ALL_TESTS):
            self._maxt_cache = result
        else:
            self._maxt_partial[result.tests] = result
        return result

    def _description_classes(self) -> np.ndarray:
        """Per subgroup (in the metrics' order), its class for the max-T penalty: ``cluster``, ``entropy``, or
        for a mined pattern ``pattern:<conditions>:<numeric ranges>`` (its shape, not its values)."""
        parts = []
        for kind in self.kinds:
            if kind != "pattern":
                parts.append(np.full(len(self._rows_of(kind)), kind, dtype=object))
                continue
            mined = self._mined
            is_range = np.array([isinstance(v, tuple) for v in mined.items.values], dtype=bool)
            parts.append(np.array([f"pattern:{len(pat)}:{int(is_range[list(pat)].sum())}" for pat in mined.patterns],
                                  dtype=object))
        return np.concatenate(parts) if parts else np.zeros(0, dtype=object)

    def _check_unweighted(self) -> None:
        if self.weighted:
            raise ValueError(
                "ci and alpha need unweighted rows: this analysis used non-uniform instance weights, whose "
                "weighted counts are not binomial. Pass ci=None (and alpha=None to ranking) for the weighted "
                "point estimates, or rerun without weights (use_instance_weights=False / sample_weight=None)"
            )

    def _row_counts(self) -> np.ndarray:
        """(subgroups, 4) unweighted confusion counts in the order of the metrics' index."""
        parts = [self._counts[f"{k}_rows"] for k in self.kinds]
        return np.vstack(parts) if parts else np.zeros((0, 4))

    def _rows_of(self, kind: str) -> np.ndarray:
        """Positions in the metrics' index of the subgroups of ``kind`` (``"all"``: every one)."""
        kinds = self._metrics.index.get_level_values("kind").to_numpy()
        return np.arange(len(kinds)) if kind == "all" else np.flatnonzero(kinds == kind)

    def _inference(self, ci, tests: bool = True, kinds: tuple | list | None = None,
                   adjusted: bool = True) -> pd.DataFrame:
        """Intervals, p, q and adjusted p of the subgroups of ``kinds`` (default: every kind), rows in the order
        of the metrics' index. ``tests=False``: no mid-p values or q-values (NaN; the max-T filter does not need
        them, and they cost about 0.3 ms per subgroup). Each kind's part is computed once per (ci, tests).
        ``adjusted=False``: the ``_p_adjusted`` columns are NaN (no max-T run for them; rankings read the
        adjusted p-values of their own test from :meth:`_max_t`)."""
        ci = check_ci(ci)
        self._check_unweighted()
        if self._counts is None:
            raise ValueError("this report holds no confusion counts (built without them): pass ci=None")
        kinds = self.kinds if kinds is None else tuple(kinds)
        cache = self._inference_cache
        parts, undefined = [], {}
        for kind in kinds:
            key = (ci, kind, True) if (ci, kind, True) in cache or tests else (ci, kind, False)
            if key not in cache:
                df = subgroup_inference(self._counts[f"{kind}_rows"], self._counts["total_rows"], ci, key[2])
                has = self._has_metrics(kind)
                df.loc[~has, :] = np.nan
                for m in METRICS:
                    df[m + "_q"] = benjamini_hochberg(df[m + "_p"].to_numpy())
                cache[key] = df
            df = cache[key]
            has = self._has_metrics(kind)
            for m in METRICS:
                col = m + ("_p" if key[2] else "_ci_low")
                undefined.setdefault(m, {})[kind] = int(np.sum(has & np.isnan(df[col].to_numpy())))
            parts.append(df)
        cols4 = [m + s for m in METRICS for s in ("_ci_low", "_ci_high", "_p", "_q")]
        inf = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame({c: np.zeros(0) for c in cols4})
        rows = np.concatenate([self._rows_of(k) for k in kinds]) if kinds else np.zeros(0, dtype=np.intp)
        mt = self._max_t() if adjusted else None
        for m in METRICS:
            # two-sided: one family holds both directions of the test
            inf[m + "_p_adjusted"] = mt.p_two_sided[rows, METRIC_TEST[m]] if mt is not None else np.nan
        cols = [m + s for m in self._metrics.columns[1:] for s in INFERENCE_COLUMNS]
        inf = inf[cols]
        inf.index = self._metrics.index[rows]
        inf.attrs = {
            "ci": ci,
            "family": "_q: all subgroups of one kind with a defined p-value, per metric (Benjamini-Hochberg); "
                      "_p_adjusted: every subgroup of every kind, both directions, per test (permutation "
                      "max-T, family-wise error)",
            "undefined": undefined,
            "n_permutations": self.options.n_permutations,
        }
        return inf

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
        for kind in self.kinds:
            part = m.iloc[self._rows_of(kind)]  # a kind with no subgroups (no pattern mined) gives NaN means
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
        control: str = "fwer",
        keep_redundant: bool = False,
    ) -> pd.DataFrame:
        """The subgroups most disadvantaged (or favoured) by a metric, significant ones only by default.

        "Disadvantaged" follows :data:`~aif360_subjective.detectors.directions.DIRECTIONS`: larger statistical
        parity, equal opportunity and equalized odds (rest minus subgroup), smaller accuracy error and
        accuracy (below the overall accuracy).

        With ``alpha`` (default 0.05) only subgroups whose disparity in the requested direction is
        significant are ranked: the adjusted p-value below ``alpha`` **and** the ``ci`` interval entirely on
        that side of the reference (0, or the overall accuracy for ``accuracy``). With ``control="fwer"``
        (default) the adjusted p-value is the permutation max-T one (``<metric>_p_adjusted``): its family is
        every subgroup of **every kind** the report holds, in both directions, so that on data without any
        effect a ranking lists something with probability at most ``alpha``, however many overlapping
        candidates were mined (see :mod:`~aif360_subjective.detectors.maxt`). ``control="fdr"`` is the
        previous filter: Benjamini-Hochberg q-values over the subgroups of one kind (``<metric>_q``), which
        bounds the expected share of false claims among those listed, not the chance of any.

        With ``control="fwer"`` they are ordered by adjusted p-value (the strongest evidence once the search
        over every candidate is accounted for: a small pattern that only just passes comes after a clear one),
        then by the interval's bound nearest the reference; with ``"fdr"`` by that bound alone: the first
        subgroup is the one disadvantaged "by at least X with 95 % confidence" for the largest X (the 95 %
        intervals are per subgroup, not adjusted for the search). Unless ``keep_redundant``, a
        significant subgroup is left out when a strictly larger significant subgroup of the ranking contains
        all its rows and has its value inside the subgroup's interval: the extra conditions of a sub-pattern
        then add nothing the data can tell apart, and the more general description is listed instead.

        ``attrs`` says how many subgroups were left out and why (``n_no_metrics`` empty/repeated patterns,
        ``n_too_small`` below ``min_size``, ``n_undefined`` undefined rates, ``n_other_side`` significant in the
        other direction, ``n_not_significant`` the rest of the tested ones, ``n_redundant``), plus
        ``n_significant``, ``direction``, ``alpha``, ``control``, ``ci``, ``reference`` and ``bound_column``.
        ``alpha=None`` is the seed's raw ranking: every subgroup by its value (missing
        values last, ties in id order).

        With ``kind="all"`` every kind is ranked together, the index is (kind, id), and subgroups with
        identical rows (a cluster and its entropy pattern, say) are listed once, under the first kind, with
        all their descriptions joined by ``" | "``.

        Args:
            metric: one of ``statistical_parity``, ``equal_opportunity``, ``equalized_odds``, ``accuracy``,
                ``accuracy_error``, ``size`` (size has no test: ``alpha`` does not apply; ``"disadvantaged"``
                lists the largest subgroups first).
            kind: ``"cluster"``, ``"entropy"``, ``"pattern"`` (mined patterns) or ``"all"``.
            n: how many (``None``: all).
            direction: ``"disadvantaged"`` (default) or ``"favoured"``.
            alpha: error rate of the significance filter (family-wise with ``control="fwer"``, false-discovery
                rate with ``"fdr"``), or ``None`` for the raw ranking.
            min_size: leave out subgroups with fewer rows (an extra filter; 1 = all).
            ci: confidence level of the intervals used with ``alpha``.
            ascending: deprecated: ``True``/``False`` give the seed's raw ranking sorted by increasing /
                decreasing value (``alpha`` and ``direction`` are then ignored), with a DeprecationWarning (a
                bool passed in ``direction``'s position, as the old positional ``ascending``, means the same).
            control: ``"fwer"`` (default, permutation max-T) or ``"fdr"`` (Benjamini-Hochberg per kind).
            keep_redundant: list significant sub-patterns of a listed subgroup too.

        Returns:
            pandas.DataFrame: index id (``kind="all"``: (kind, id)); columns rank, the metric, size, subgroup
            (its description), and with ``alpha`` the metric's ``_ci_low``, ``_ci_high``, ``_q`` and
            ``_p_adjusted``.

        Raises:
            ValueError: unknown metric, kind, direction or control, a kind the report does not hold, n < 1,
                min_size < 1, alpha or ci outside (0, 1), or alpha with non-uniform instance weights (pass
                ``alpha=None``).
        """
        check_choice(metric, "metric", RANKABLE)
        check_choice(kind, "kind", (*KINDS, "all"))
        if kind != "all":
            self._check_kind(kind)
        check_choice(control, "control", CONTROLS)
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
        pos = self._rows_of(kind)
        part = self._metrics.iloc[pos]
        kinds_here = [kind] if kind != "all" else list(self.kinds)
        all_desc = np.array([d for k in kinds_here for d in self.descriptions(k)], dtype=object)
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
            inf = self._inference(ci, tests=control == "fdr", kinds=kinds_here, adjusted=False)
            lo = inf[metric + "_ci_low"].to_numpy()
            hi = inf[metric + "_ci_high"].to_numpy()
            q = inf[metric + "_q"].to_numpy()
            ref = self.overall_accuracy if metric == "accuracy" else 0.0
            side_index = 0 if direction == "disadvantaged" else 1
            mt = self._max_t((METRIC_TEST[metric],))
            p_dir = mt.p_adjusted[pos, METRIC_TEST[metric], side_index]
            test = q if control == "fdr" else p_dir
            has = np.concatenate([self._has_metrics(k) for k in kinds_here])
            defined = ~np.isnan(test) & ~np.isnan(lo) & ~np.isnan(hi)
            undefined = has & big & ~defined
            if descending:  # the subgroup's value must lie above the reference: its lower bound does
                bound, side, bound_col = lo, lo > ref, "_ci_low"
            else:
                bound, side, bound_col = hi, hi < ref, "_ci_high"
            candidates = has & big & defined
            p_other = mt.p_adjusted[pos, METRIC_TEST[metric], 1 - side_index]
            test_other = q if control == "fdr" else p_other
            with np.errstate(invalid="ignore"):
                keep = candidates & (test < alpha) & side
                # significant on the other side: not "not significant" (a favoured subgroup in a ranking of the
                # disadvantaged ones, and vice versa)
                other = candidates & ~keep & (test_other < alpha) & ((hi < ref) if descending else (lo > ref))
            n_significant = int(keep.sum())
            key = -bound[keep] if descending else bound[keep]
            if control == "fwer":
                # strongest evidence first (the adjusted p-value accounts for the search over every candidate;
                # the unadjusted interval does not), then the bound nearest the reference
                stat = mt.statistic(METRIC_TEST[metric], side_index)[pos][keep]
                order = np.lexsort((np.arange(n_significant), key, -stat, p_dir[keep]))
            else:
                order = np.lexsort((np.arange(n_significant), key))
            value_all = part[metric].to_numpy(dtype=np.float64, na_value=np.nan)
            redundant = np.zeros(n_significant, dtype=bool)
            if not keep_redundant and n_significant > 1:
                kept_pos = np.flatnonzero(keep)[order]
                redundant[order] = self._redundant_among(pos[kept_pos], metric, mt)
            sub = np.flatnonzero(keep)
            keep[sub[redundant]] = False
            order = np.argsort(np.argsort(order)[~redundant], kind="stable")  # same order, redundant removed
            attrs.update(
                ci=float(ci), control=control, reference=float(ref), bound_column=metric + bound_col,
                n_subgroups=int(len(has)), n_no_metrics=int(np.sum(~has)), n_too_small=int(np.sum(has & ~big)),
                n_undefined=int(undefined.sum()),
                n_not_significant=int(np.sum(candidates) - n_significant - int(other.sum())),
                n_other_side=int(other.sum()), n_significant=n_significant, n_redundant=int(redundant.sum()),
            )
            extra = {metric + "_ci_low": lo[keep], metric + "_ci_high": hi[keep]}
            if control == "fdr":
                extra[metric + "_q"] = q[keep]
            else:
                extra[metric + "_p_adjusted"] = p_dir[keep]
            values = value_all[keep]
        kept = part[keep]
        ids = kept.index.to_numpy() if kind == "all" else kept.index.get_level_values("id").to_numpy()
        desc = all_desc[keep]
        if kind == "all" and len(order):
            order, desc = self._merge_identical(pos[keep], order, desc)
        order = order[:n] if n is not None else order
        columns = {"rank": np.arange(1, len(order) + 1)}
        if metric != "size":
            columns[metric] = values[order]
        columns["size"] = kept["size"].to_numpy()[order]
        columns["subgroup"] = desc[order].tolist()
        columns.update({c: v[order] for c, v in extra.items()})
        if kind == "all":
            index = pd.MultiIndex.from_tuples(list(ids[order]), names=["kind", "id"]) if len(order) else \
                pd.MultiIndex.from_arrays([[], []], names=["kind", "id"])
        else:
            index = pd.Index(ids[order], name="id")
        out = pd.DataFrame(columns, index=index)
        out.attrs = attrs
        return out

    def _redundant_among(self, positions: np.ndarray, metric: str, mt: MaxTResult) -> np.ndarray:
        """:func:`_redundant` of the listed subgroups at ``positions`` of the metrics' index, in listing order
        (the bitsets of the first :data:`_MAX_REDUNDANCY_CHECK` only: the others are not checked)."""
        return _redundant(self._bits(positions[:_MAX_REDUNDANCY_CHECK]), len(self._labels),
                          self._row_counts()[positions], metric, self._counts["total_rows"], mt.offset[positions])

    def _merge_identical(self, rows: np.ndarray, order: np.ndarray, desc: np.ndarray):
        """Among the ranked subgroups (positions ``rows`` in the metrics' index, ranked by ``order``), keep the
        first of each set of identical row sets, with every description of the set."""
        lead, texts = _merge_rows(self._row_keys()[rows[order]], desc[order])  # in rank order
        desc = desc.copy()
        desc[order[lead]] = texts[lead]
        return order[lead], desc

    def findings(self, alpha: float = 0.05, ci: float = 0.95, *, keep_redundant: bool = False,
                 merge_identical: bool = True) -> pd.DataFrame:
        """Every significant disparity of the report under **one** family-wise error: metrics x kinds x
        directions.

        A finding is a (metric, subgroup, direction) whose permutation max-T adjusted p-value in the global
        family (every subgroup of every kind, the four tests of the five metrics (accuracy and accuracy error
        share one), both directions; see :mod:`~aif360_subjective.detectors.maxt`) is below ``alpha`` and
        whose ``ci`` interval lies on that side of the reference. On data without any effect the table is
        empty with probability at least ``1 - alpha``: "nothing significant anywhere" means what it says. As
        in :meth:`ranking`, a finding contained in a larger finding of the same metric and direction whose
        value lies inside its interval is left out unless ``keep_redundant``; identical row sets are listed
        once with all descriptions.

        Args:
            alpha: family-wise error rate, in (0, 1).
            ci: confidence level of the intervals.
            keep_redundant: keep sub-patterns of a listed finding.
            merge_identical: list identical row sets once (``False``: once per kind and id).

        Returns:
            pandas.DataFrame: columns metric, kind, id, description, size, value, ci_low, ci_high, p_adjusted,
            direction; sorted by adjusted p-value, then by the interval's bound nearest the reference.
            ``attrs``: alpha, ci, n_hypotheses (of the global family), n_permutations, n_redundant.

        Raises:
            ValueError: alpha or ci outside (0, 1), or a weighted analysis.
        """
        alpha = check_alpha(alpha)
        key = (float(alpha), float(ci), bool(keep_redundant), bool(merge_identical))
        if key not in self._findings_cache:
            self._findings_cache[key] = self._findings(alpha, ci, keep_redundant, merge_identical)
        return self._findings_cache[key].copy()  # callers may edit their table

    def _findings(self, alpha: float, ci: float, keep_redundant: bool, merge_identical: bool) -> pd.DataFrame:
        inf = self._inference(ci, tests=False)
        mt = self._max_t()
        kinds = self._metrics.index.get_level_values("kind").to_numpy()
        ids = self._metrics.index.get_level_values("id").to_numpy()
        desc = np.array([d for k in self.kinds for d in self.descriptions(k)], dtype=object)
        has = np.concatenate([self._has_metrics(k) for k in self.kinds]) if self.kinds else np.zeros(0, bool)
        sizes = self._metrics["size"].to_numpy(dtype=np.float64, na_value=0.0)
        frames, n_redundant = [], 0
        for metric in METRICS:
            value = self._metrics[metric].to_numpy(dtype=np.float64, na_value=np.nan)
            lo, hi = inf[metric + "_ci_low"].to_numpy(), inf[metric + "_ci_high"].to_numpy()
            ref = self.overall_accuracy if metric == "accuracy" else 0.0
            for d, direction in enumerate(("disadvantaged", "favoured")):
                descending = sort_descending(metric, direction)
                side = lo > ref if descending else hi < ref
                pg = mt.p_global[:, METRIC_TEST[metric], d]
                with np.errstate(invalid="ignore"):
                    keep = np.flatnonzero(has & (pg < alpha) & side)
                if len(keep) == 0:
                    continue
                bound = -lo[keep] if descending else hi[keep]
                stat = mt.statistic(METRIC_TEST[metric], d)[keep]
                keep = keep[np.lexsort((np.arange(len(keep)), bound, -stat, pg[keep]))]
                if not keep_redundant and len(keep) > 1:
                    red = self._redundant_among(keep, metric, mt)
                    n_redundant += int(red.sum())
                    keep = keep[~red]
                texts = desc[keep]
                lead = np.arange(len(keep))
                if merge_identical:
                    lead, texts = _merge_rows(self._row_keys()[keep], texts)
                keep = keep[lead]
                frames.append(pd.DataFrame({
                    "metric": metric, "kind": kinds[keep], "id": ids[keep], "description": texts[lead],
                    "size": sizes[keep].astype(np.int64), "value": value[keep], "ci_low": lo[keep],
                    "ci_high": hi[keep], "p_adjusted": pg[keep], "direction": direction,
                }))
        cols = ["metric", "kind", "id", "description", "size", "value", "ci_low", "ci_high", "p_adjusted",
                "direction"]
        out = pd.concat(frames, ignore_index=True)[cols] if frames else pd.DataFrame({c: [] for c in cols})
        if len(out):
            out = out.sort_values("p_adjusted", kind="stable").reset_index(drop=True)
        out.attrs = {"alpha": float(alpha), "ci": float(ci), "n_hypotheses": int(mt.n_hypotheses[1]),
                     "n_permutations": int(mt.n_permutations), "n_redundant": n_redundant,
                     "family": "every subgroup of every kind, the tests " + ", ".join(TESTS)
                               + " (accuracy error shares accuracy's), both directions; permutation max-T"}
        return out

    def discovery_summary(self, alpha: float = 0.05, ci: float = 0.95) -> pd.DataFrame:
        """The comparison of the discovery methods: per kind, candidates, significant subgroups, the best.

        Built from :meth:`findings` (one family-wise error over everything): ``candidates`` counts the
        subgroups of the kind that define one (empty and repeated entropy patterns do not), ``significant``
        the distinct subgroups of the kind with at least one finding (before the redundancy filter), and
        ``best`` the kind's first finding (smallest adjusted p-value, then the bound nearest the reference),
        with its metric, direction, value, interval and adjusted p-value (empty when there is none).

        Args:
            alpha: family-wise error rate of :meth:`findings`.
            ci: confidence level of the intervals.

        Returns:
            pandas.DataFrame: index kind; columns method, candidates, significant, best, metric, direction,
            value, ci_low, ci_high, p_adjusted. ``attrs``: alpha, n_hypotheses, sentence.
        """
        every = self.findings(alpha, ci, keep_redundant=True, merge_identical=False)
        listed = self.findings(alpha, ci)
        rows = []
        for kind in self.kinds:
            mine = every[every["kind"] == kind]
            top = listed[listed["kind"] == kind]
            best = top.iloc[0] if len(top) else (mine.iloc[0] if len(mine) else None)
            name = self.clustering if kind == "cluster" else None
            rows.append({
                "kind": kind,
                "method": METHOD_NAMES[kind] + (f" ({name})" if name else ""),
                "candidates": int(self._has_metrics(kind).sum()),
                "significant": int(mine["id"].nunique()),
                "best": "" if best is None else best["description"],
                "metric": "" if best is None else best["metric"],
                "direction": "" if best is None else best["direction"],
                "value": np.nan if best is None else float(best["value"]),
                "ci_low": np.nan if best is None else float(best["ci_low"]),
                "ci_high": np.nan if best is None else float(best["ci_high"]),
                "p_adjusted": np.nan if best is None else float(best["p_adjusted"]),
            })
        out = pd.DataFrame(rows).set_index("kind") if rows else pd.DataFrame()
        out.attrs = {"alpha": float(alpha), "n_hypotheses": every.attrs["n_hypotheses"]}
        out.attrs["sentence"] = _discovery_sentence(out)
        return out

    def discovery_sentence(self, alpha: float = 0.05, ci: float = 0.95) -> str:
        """One sentence comparing the discovery methods, from :meth:`discovery_summary`'s numbers, e.g.
        "the mined patterns found 1 significant subgroup; the clusters and the entropy patterns found none
        (family-wise error 5 % over 140,000 hypotheses)."."""
        return self.discovery_summary(alpha, ci).attrs["sentence"]

    def descriptions(self, kind: str = "entropy") -> list[str]:
        """Readable subgroup descriptions in id order (``cluster=3`` or the pattern text)."""
        self._check_kind(kind)
        if kind == "cluster":
            return [f"cluster={i}" for i in self._pats.ids]
        if kind == "pattern":
            return [self._mined.description(i) for i in range(len(self._mined.patterns))]
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
        if kind == "pattern":
            mask[self._mined.rows(i)] = True
            return mask
        if self._pats.is_empty[i]:
            raise ValueError(
                f"the entropy pattern of cluster {id!r} is empty (no dominant attribute): no subgroup"
            )
        mask[pattern_members(self._raw, self._pats, i)] = True
        return mask

    def pattern_conditions(self, id, kind: str = "entropy") -> dict:
        """The attribute -> value conditions of the entropy pattern of cluster ``id`` (``kind="entropy"``) or
        of mined pattern ``id`` (``kind="pattern"``: a numeric condition is ``(low, high, closed)``, the range
        ``low <= x < high``, or ``<= high`` when ``closed``)."""
        check_choice(kind, "kind", ("entropy", "pattern"))
        i = self._position(kind, id)
        if kind == "pattern":
            return self._mined.conditions(i)
        return {
            c: self._raw.uniques[j][self._pats.values[i, j]]
            for j, c in enumerate(self._raw.columns)
            if self._pats.dominant[i, j]
        }

    def _position(self, kind: str, id) -> int:
        check_choice(kind, "kind", KINDS)
        self._check_kind(kind)
        ids = np.arange(len(self._mined.patterns)) if kind == "pattern" else self._pats.ids
        pos = np.flatnonzero(ids == id)
        if len(pos) == 0:
            shown = ids.tolist() if len(ids) <= 20 else f"0..{len(ids) - 1}"
            raise ValueError(f"unknown subgroup id {id!r}; the {kind} ids are {shown}")
        return int(pos[0])

    def __repr__(self) -> str:
        s = self.summary()
        parts = ", ".join(f"{k}={s.loc[k, 'statistical_parity']:.4f}" for k in self.kinds)
        n_pat = f", patterns={len(self._mined.patterns)}" if self._mined is not None else ""
        return (
            f"SubgroupReport(clustering={self.clustering!r}, n_clusters={self.n_clusters}{n_pat}, "
            f"rows={len(self._labels)}, mean |SP| {parts})"
        )


def _redundant(bits: np.ndarray, n: int, counts: np.ndarray, metric: str, total: np.ndarray,
               offset: np.ndarray) -> np.ndarray:
    """Which of k listed subgroups (``bits``: the (h, words) bitsets of the first h over ``n`` rows, h at least
    :data:`_MAX_REDUNDANCY_CHECK` or k) are redundant. For every
    pair where a larger one G holds all rows of a smaller one S (two-proportion z tests of the metric's rate on
    the unweighted counts, ``|z| <`` :data:`REDUNDANCY_Z` = no difference):

    * S is redundant given G when its rate does not differ from that of G's other rows: S's extra conditions add
      nothing the data can tell apart from chance (a noisy sub-pattern);
    * G is redundant given S when the rate of its rows outside S does not differ from that of the rows outside
      G: G is S diluted by rows treated like everyone else (an over-general pattern).

    The subgroups are visited by decreasing strength (``|z|`` against the rest minus the subgroup's max-T
    ``offset``, the statistic the best-aligned subgroup maximises); one is left out when it is redundant given
    one already kept, so every subgroup left out is represented by a listed one. Checked on the first
    :data:`_MAX_REDUNDANCY_CHECK` (an O(k^2) overlap)."""
    k = len(counts)
    out = np.zeros(k, dtype=bool)
    h = min(k, _MAX_REDUNDANCY_CHECK)
    if len(bits) < h:
        raise ValueError(f"_redundant needs the bitsets of the first {h} subgroups, got {len(bits)}")
    g_idx, s_idx, size = _containment(bits[:h], n)
    if len(g_idx) == 0:
        return out
    counts = counts[:h]
    total = np.asarray(total, dtype=np.float64)
    inner, ring = counts[s_idx], counts[g_idx] - counts[s_idx]
    outside = total[None, :] - counts[g_idx]
    with np.errstate(invalid="ignore"):
        # NaN (no rows to compare) counts as "no difference"
        sub_same = ~(np.abs(_rate_z(inner, ring, metric)) >= REDUNDANCY_Z)
        ring_same = ~(np.abs(_rate_z(ring, outside, metric)) >= REDUNDANCY_Z)
        strength = np.abs(_rate_z(counts, total[None, :] - counts, metric)) - offset[:h]
    # edges "source is redundant when target is kept", grouped by source
    src = np.concatenate([s_idx[sub_same], g_idx[ring_same]])
    dst = np.concatenate([g_idx[sub_same], s_idx[ring_same]])
    by_src = np.argsort(src, kind="stable")
    src, dst = src[by_src], dst[by_src]
    start = np.searchsorted(src, np.arange(h + 1))
    kept = np.zeros(h, dtype=bool)
    for i in np.argsort(-np.nan_to_num(strength, nan=-np.inf), kind="stable"):  # <= h listed subgroups
        if kept[dst[start[i]:start[i + 1]]].any():
            out[i] = True
        else:
            kept[i] = True
    return out


def _containment(bits: np.ndarray, n: int, sample: int = 1024) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every pair (g, s) of h row sets (``bits``: (h, words) bitsets over ``n`` rows) where g holds every row of
    s and more, exactly; and the sets' sizes.

    A pair can only nest if it nests on any subset of the rows: the overlaps on a seeded sample of ``sample``
    rows (a dense symmetric product, ``sample h^2 / 2`` instead of ``n h^2``) leave the candidate pairs, and each
    candidate is then checked on every row by ``s AND NOT g`` on the 64-bit words; the same pairs as the
    overlaps of all rows, faster on large tables (``benchmarks/maxt_speed.py``). A sample of 1,024 rows holds
    about 10 rows of a subgroup of 1% of the rows, so a pair not nested survives it only rarely, and the exact
    check of the survivors costs less than a larger sample. With ``n <= sample`` the overlaps of all rows decide.
    """
    h = len(bits)
    size = np.bitwise_count(bits).sum(axis=1).astype(np.float64) if h else np.zeros(0)
    rows = np.arange(n) if n <= sample else np.sort(np.random.default_rng(0).choice(n, sample, replace=False))
    part = np.asfortranarray(bits_at(bits, rows), dtype=np.float32)  # exact counts: at most ``sample`` rows
    on_rows = ssyrk(1.0, part) if h else np.zeros((0, 0), dtype=np.float32)  # upper triangle of part @ part.T
    on_rows = np.triu(on_rows) + np.triu(on_rows, 1).T
    size_rows = np.diag(on_rows)
    g_idx, s_idx = np.nonzero((on_rows >= size_rows[None, :] - 0.5) & (size[:, None] > size[None, :]))
    if n <= sample or len(g_idx) == 0:
        return g_idx, s_idx, size
    words = bits.shape[1]
    inside = np.empty(len(g_idx), dtype=bool)
    step = max(1, 2**22 // words)
    for start in range(0, len(g_idx), step):  # candidate pairs in blocks, not one by one
        g, s_ = g_idx[start:start + step], s_idx[start:start + step]
        inside[start:start + step] = ~np.any(bits[s_] & ~bits[g], axis=1)
    return g_idx[inside], s_idx[inside], size


def _rate_z(a: np.ndarray, b: np.ndarray, metric: str) -> np.ndarray:
    """Pooled two-proportion z of the metric's rate, subgroup counts ``a`` against ``b`` (rows x 4 each)."""

    def z(x1, n1, x2, n2):
        with np.errstate(divide="ignore", invalid="ignore"):
            pooled = (x1 + x2) / (n1 + n2)
            return (x1 / n1 - x2 / n2) / np.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))

    if metric in ("accuracy", "accuracy_error"):
        return z(a[:, TP] + a[:, TN], a.sum(axis=1), b[:, TP] + b[:, TN], b.sum(axis=1))
    if metric == "equal_opportunity":
        return z(a[:, TP], a[:, TP] + a[:, FN], b[:, TP], b[:, TP] + b[:, FN])
    if metric == "equalized_odds":
        z_t = z(a[:, TP], a[:, TP] + a[:, FN], b[:, TP], b[:, TP] + b[:, FN])
        z_f = z(a[:, FP], a[:, FP] + a[:, TN], b[:, FP], b[:, FP] + b[:, TN])
        return (z_t + z_f) / np.sqrt(2.0)
    return z(a[:, FP] + a[:, TP], a.sum(axis=1), b[:, FP] + b[:, TP], b.sum(axis=1))


def _merge_rows(keys: np.ndarray, texts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First of each set of identical row sets (in the given order; ``keys`` from :meth:`SubgroupReport._row_keys`)
    and every description of the set (distinct texts, in the given order, joined at the first)."""
    if len(keys) == 0:
        return np.zeros(0, dtype=np.intp), texts
    _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    texts = texts.copy()
    if len(first) < len(texts):
        groups = pd.Series(texts).groupby(inverse).agg(lambda t: " | ".join(dict.fromkeys(t)))  # distinct texts
        texts[first] = groups.loc[np.arange(len(first))].to_numpy()
    return np.sort(first), texts


def _discovery_sentence(summary: pd.DataFrame) -> str:
    """"the mined patterns found 2 significant subgroups; the clusters and the entropy patterns found none
    (...)." from the numbers of :meth:`SubgroupReport.discovery_summary`."""
    if len(summary) == 0:
        return "No discovery method ran."
    found = [f"{METHOD_NAMES[k]} found {_count(int(r['significant']), 'significant subgroup')}"
             for k, r in summary.iterrows() if r["significant"] > 0]
    none = [METHOD_NAMES[k] for k, r in summary.iterrows() if r["significant"] == 0]
    parts = list(found)
    if none:
        parts.append(f"{_join(none)} found none")
    text = "; ".join(parts)
    alpha = summary.attrs.get("alpha", 0.05)
    n_h = summary.attrs.get("n_hypotheses", 0)
    return (f"{text[0].upper()}{text[1:]} (family-wise error {alpha:.0%} over {n_h:,} hypotheses: every "
            "candidate, metric and direction).")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
