"""Validated clusterings: many clustering models, one max-T over all their clusters, the model chosen by a fairness
validation index.

Seed 002 leaves open "testing more clustering algorithms" and "a cluster validation index based on some subgroup
fairness criterion that allows to select the best out of multiple clustering models". Here every candidate model
(:mod:`.validated_models`: algorithms x feature views x k) is fitted, and:

**The fairness validation index** of a model with clusters ``g = 1..K`` is its largest standardized disparity
less what the largest of ``K`` null disparities reaches by chance::

    FVI = max_g |z_g| - sqrt(2 ln K)

``z_g`` is the z of the chosen fairness metric's max-T test for cluster ``g`` against the rest (for statistical
parity the hypergeometric ``(n_g P / N - x_g) / sd``, :mod:`~..error_control.maxt`): the index is the model's
largest max-T statistic under ``max_t_penalty="classes"``, each model being one description class. It is an
*external* validation index in the sense of Halkidi et al. (2001): it scores a partition against a variable the
clustering did not see (here the classifier's decisions), as Arbelaitz et al. (2013) compare indices by how well
they pick the partition that matches a known labelling. The subtraction of ``sqrt(2 ln K)`` keeps a model with
many small clusters from winning by chance alone (the expected maximum of ``K`` standard normal z grows like it).
The table shows beside it the classic internal indices (silhouette, Davies-Bouldin) and the seed's
``fairness_separation`` (the bias-corrected share of the metric's rate explained by the clusters,
:func:`~.selection.fairness_separation`: a between-cluster share of variance).

**Error control: every cluster of every model enters the max-T.** The selection looks at the outcome, so testing
the chosen model's clusters as if it had been fixed in advance would inflate the family-wise error. Two honest
ways exist: test every cluster of every model in one permutation max-T family (the selection is then a look at
statistics the test already pays for: any cluster of any model, the chosen one's included, is reported only when it
passes the max-T over all of them), or select on one half of the rows and test on the other. The first is used:
it tests on all the rows (a split halves the rows each side sees, so the test loses power exactly where small
regions need it: measured by the benchmark's ``split`` method, it found no planted region where this family found 2
of 10), its cost is the permutations of a few thousand more candidates (one sparse product);
the size on null tables is measured by ``benchmarks/validated_clusterings.py`` (the guide's page on validated
clusterings). The test is exact whatever the models are: they read the features only, never the outcome. Each model
is its own description class of the max-T penalty, so a model of 5 clusters is not drowned by one of 40.

References:
    J. Schäfer and L. Wiese, "ASDF-Dashboard: Automated Subgroup Detection and Fairness Analysis", CIKM
    workshops 2022 (future work).
    M. Halkidi, Y. Batistakis and M. Vazirgiannis, "On clustering validation techniques", Journal of Intelligent
    Information Systems 17(2-3), 2001.
    O. Arbelaitz, I. Gurrutxaga, J. Muguerza, J. M. Pérez and I. Perona, "An extensive comparative study of
    cluster validity indices", Pattern Recognition 46(1), 2013.
    P. H. Westfall and S. S. Young, "Resampling-Based Multiple Testing", Wiley, 1993 (max-T).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeAlias

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..._compat import single_threaded
from ..._progress import tracked
from ..error_control.maxt import METRIC_TEST, observed_z
from .clustering import validity_indices
from .families import ClusterFamily, MembershipFamily
from .selection import fairness_separation
from .validated_models import ClusteringModel, expand_models, fit_model, view_matrix

__all__ = ["VALIDATION_COLUMNS", "ValidatedClusterings", "ValidatedFamily", "fairness_validation_index",
           "run_validated_clusterings"]

#: Columns of :meth:`ValidatedClusterings.table` (one row per model).
VALIDATION_COLUMNS = ("source", "algorithm", "view", "features", "k", "n_clusters", "fairness_index", "max_z",
                      "cluster", "fairness_separation", "silhouette", "davies_bouldin", "seconds", "selected")


#: A model's fit: a partition's labels (rows,) or the scan windows' (rows, windows) boolean membership.
Fit: TypeAlias = "np.ndarray | sp.spmatrix"


def _columns(fit: Fit) -> tuple[sp.csc_matrix, np.ndarray]:
    """A model's clusters as a membership and their labels (a scan's windows: ``0..``)."""
    if sp.issparse(fit):
        return sp.csc_matrix(fit, dtype=bool), np.arange(fit.shape[1])
    part = ClusterFamily(np.asarray(fit), np.unique(fit), "")
    return part.members(), np.asarray(part.ids)


def _stack(labels: Sequence[Fit]) -> tuple[sp.csc_matrix, np.ndarray, np.ndarray]:
    """The clusters of several models side by side: the (rows, clusters) membership, each cluster's model and
    its label within the model (a partition's label, a scan window's number)."""
    parts = [_columns(lab) for lab in labels]
    n = labels[0].shape[0] if len(labels) else 0
    members = sp.hstack([m for m, _ in parts], format="csc") if parts else sp.csc_matrix((n, 0), dtype=bool)
    model_of = np.repeat(np.arange(len(parts)), [len(ids) for _, ids in parts])
    cluster_of = np.concatenate([ids for _, ids in parts]) if parts else np.zeros(0, dtype=np.intp)
    return members, model_of, cluster_of


def fairness_validation_index(labels: Sequence[Fit], t: np.ndarray, p: np.ndarray,
                              metric: str = "statistical_parity") -> pd.DataFrame:
    """The fairness validation index of each partition (see the module's docstring).

    Args:
        labels: one label array per model, each over the same rows (a scan model: its windows' (rows, K)
            membership, the windows its clusters).
        t, p: boolean truth and prediction (favourable = True).
        metric: the fairness metric whose max-T test standardises the disparities (a key of
            :data:`~..error_control.maxt.METRIC_TEST`).

    Returns:
        pandas.DataFrame: one row per model: ``fairness_index`` (``max |z| - sqrt(2 ln K)``, NaN when no cluster has
        a defined z, e.g. one cluster of every row), ``max_z`` (the signed z of largest size, positive = the cluster
        is served worse), ``cluster`` (its label) and ``n_clusters`` (K).
    """
    if metric not in METRIC_TEST:
        raise ValueError(f"metric must be one of {list(METRIC_TEST)}, got {metric!r}")
    members, model_of, cluster_of = _stack(labels)
    z = observed_z(members, np.asarray(t, dtype=np.float64), np.asarray(p, dtype=np.float64))[:, METRIC_TEST[metric]]
    a = np.where(np.isfinite(z), np.abs(z), -np.inf)
    m = len(labels)
    K = np.bincount(model_of, minlength=m)
    starts = np.concatenate([[0], np.cumsum(K)[:-1]]).astype(np.intp)
    best_abs = np.maximum.reduceat(a, starts) if len(a) else np.zeros(0)
    # the first cluster of each model reaching its maximum (argmax within contiguous blocks)
    hit = np.flatnonzero(a == np.repeat(best_abs, K))
    first = np.full(m, -1, dtype=np.intp)
    owners, at = np.unique(model_of[hit], return_index=True)
    first[owners] = hit[at]
    defined = np.isfinite(best_abs)
    index = np.where(defined, best_abs - np.sqrt(2.0 * np.log(np.maximum(K, 1))), np.nan)
    return pd.DataFrame({
        "fairness_index": index,
        "max_z": np.where(defined, z[np.maximum(first, 0)], np.nan),
        "cluster": pd.array([int(cluster_of[f]) if ok else pd.NA for f, ok in zip(first, defined, strict=True)],
                            dtype="Int64"),
        "n_clusters": K,
    })


class ValidatedFamily(MembershipFamily):
    """Every cluster of every validated model as a subgroup (kind ``"validated"``), ids ``0..`` in model order.

    Args:
        models: the models.
        labels: their labels, one array over the rows per model (a scan model: its windows' membership).
    """

    kind: ClassVar[str] = "validated"
    method_name: ClassVar[str] = "the validated clusterings"
    has_conditions: ClassVar[bool] = False
    count_label: ClassVar[str | None] = None

    def __init__(self, models: Sequence[ClusteringModel], labels: Sequence[Fit], n_rows: int) -> None:
        self.models = tuple(models)
        self.labels = tuple(lab if sp.issparse(lab) else np.asarray(lab) for lab in labels)
        self.n_rows = int(n_rows)
        if self.labels:
            self._members, self.model_of, self.cluster_of = _stack(self.labels)
        else:
            self._members = sp.csc_matrix((self.n_rows, 0), dtype=bool)
            self.model_of, self.cluster_of = np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
        self.ids = np.arange(self._members.shape[1])

    @property
    def method(self) -> str:
        """``"the validated clusterings (12 models)"``."""
        return f"{self.method_name} ({len(self.models)} models)"

    def sizes(self) -> pd.arrays.IntegerArray:
        """Rows per cluster."""
        out: pd.arrays.IntegerArray = pd.array(np.diff(self._members.indptr), dtype="Int64")
        return out

    def defined(self) -> np.ndarray:
        """Every cluster is a subgroup."""
        return np.ones(len(self.ids), dtype=bool)

    def rows(self, i: int) -> np.ndarray:
        """The rows of candidate ``i``."""
        m = self._members
        return np.asarray(m.indices[m.indptr[i]:m.indptr[i + 1]], dtype=np.intp)

    def description(self, i: int) -> str:
        """``"kmeans k=10 on (age, hours): cluster 3"`` (``"scan k=20 on (age, hours): window 7"``)."""
        model = self.models[self.model_of[i]]
        return f"{model.label}: {'window' if model.algorithm == 'scan' else 'cluster'} {self.cluster_of[i]}"

    def conditions(self, i: int) -> dict[str, Any]:
        """A cluster has no attribute conditions: an empty dict."""
        return {}

    def description_class(self) -> np.ndarray:
        """Each model is one class: its clusters share the max-T penalty ``sqrt(2 ln K)``."""
        return np.array([f"validated model {m}" for m in self.model_of], dtype=object)

    def condition_table(self) -> pd.DataFrame:
        """No conditions: a table without columns, one row per cluster."""
        return pd.DataFrame(index=pd.Index(self.ids, name="id"))

    def ids_of(self, model: int) -> np.ndarray:
        """The candidate ids of the clusters of ``model`` (its position in :attr:`models`)."""
        return np.asarray(self.ids[self.model_of == model])


@dataclass(frozen=True)
class ValidatedClusterings:
    """The validated clusterings of one analysis.

    Attributes:
        family: the candidates (every cluster of every fitted model; the seed's clusters are the ``"cluster"``
            family and not repeated here).
        table: one row per model (:data:`VALIDATION_COLUMNS`); the seed's clustering first (``source="seed"``)
            when it ran.
        metric: the fairness metric of the index.
        labels: each row's labels under the selected model (a scan model: the number of its window with the largest
            ``|z|`` for the rows inside it, -1 outside).
    """

    family: ValidatedFamily
    table: pd.DataFrame
    metric: str
    labels: np.ndarray

    @property
    def selected(self) -> int:
        """The table's row of the selected model."""
        return int(np.flatnonzero(self.table["selected"].to_numpy())[0])

    def chosen(self) -> tuple[str, np.ndarray]:
        """The kind and the candidate ids of the selected model's clusters (``"cluster"`` for the seed's)."""
        row = self.table.iloc[self.selected]
        if row["source"] == "seed":
            return "cluster", np.unique(self.labels)
        return self.family.kind, self.family.ids_of(self.selected - int((self.table["source"] == "seed").sum()))

    def why(self) -> str:
        """Why the selected model was chosen, in a sentence."""
        t = self.table
        i = self.selected
        row = t.iloc[i]
        others = t["fairness_index"].drop(t.index[i]).dropna()
        runner = (f"; the next best, {self._label(int(np.flatnonzero(t.index == others.idxmax())[0]))}, "
                  f"reaches {others.max():.2f}") if len(others) else ""
        unit = "window" if row["algorithm"] == "scan" else "cluster"
        return (f"{self._label(i)} was chosen: its fairness validation index {row['fairness_index']:.2f} is the "
                f"largest of the {len(t)} models ({self.metric}: {unit} {row['cluster']} has z = "
                f"{row['max_z']:.2f} against the rest, less sqrt(2 ln {row['n_clusters']}) = "
                f"{np.sqrt(2 * np.log(row['n_clusters'])):.2f} for its {row['n_clusters']} {unit}s){runner}. Every "
                "cluster of every model is in the max-T family, so the chosen model's findings keep the "
                "family-wise error.")

    def _label(self, i: int) -> str:
        r = self.table.iloc[i]
        k = "auto" if pd.isna(r["k"]) else str(r["k"])
        return f"{r['algorithm']} k={k} on {r['features']}" + (" (the seed's)" if r["source"] == "seed" else "")


def run_validated_clusterings(
    X: pd.DataFrame,
    categorical: Sequence[str],
    spec: Any,
    decisions: tuple[np.ndarray, np.ndarray, np.ndarray | None],
    metric: str,
    rng: np.random.Generator,
    *,
    cluster_sample: int | None = 10_000,
    silhouette_sample_size: int | None = 1000,
    seed_labels: np.ndarray | None = None,
    seed_name: str = "slink",
) -> ValidatedClusterings:
    """Fit every model of ``spec`` (:func:`~.validated_models.expand_models`), compute their indices and select.

    Args:
        X: the feature table.
        categorical: its categorical columns.
        spec: the ``clustering_models`` option.
        decisions: ``(truth, prediction, weights)``, booleans (favourable = True).
        metric: the fairness metric of the index (the analysis' ``selection_metric``).
        rng: the generator of the models' samples and seeds.
        cluster_sample: most rows k-means and the Gaussian mixture are fitted on.
        silhouette_sample_size: rows sampled for each model's silhouette.
        seed_labels: the seed's clustering of the same rows, compared as the first row (None: it did not run).
        seed_name: the seed clustering's name.

    Returns:
        ValidatedClusterings
    """
    models = expand_models(spec, X, categorical)
    t, p, w = decisions
    views: dict[tuple[str, ...], np.ndarray] = {}
    labels, seconds = [], []
    # one thread per fit: hundreds of small fits gain nothing from OpenMP's threads, which spin on a loaded machine
    # (the limit reaches the libraries loaded when it is set: scikit-learn's clusterers are imported first)
    import sklearn.cluster
    import sklearn.mixture  # noqa: F401

    with single_threaded():
        for model in tracked(models, "clustering models", len(models), "models"):
            start = time.perf_counter()
            if model.features not in views:
                views[model.features] = view_matrix(X, model.features, categorical)
            labels.append(fit_model(model, views[model.features], rng, cluster_sample))
            seconds.append(time.perf_counter() - start)
    rows = []
    everyone = tuple(map(str, X.columns))
    all_models: list[tuple[str, ClusteringModel]] = [("validated", m) for m in models]
    all_labels = list(labels)
    if seed_labels is not None:
        all_models.insert(0, ("seed", ClusteringModel(seed_name, "encoded", everyone, len(np.unique(seed_labels)))))
        all_labels.insert(0, np.asarray(seed_labels))
        seconds.insert(0, float("nan"))
        views.setdefault(everyone, view_matrix(X, everyone, categorical))
    fvi = fairness_validation_index(all_labels, t, p, metric)
    for (source, model), lab, secs in zip(all_models, all_labels, seconds, strict=True):
        if sp.issparse(lab):  # overlapping windows: no partition for the classic indices
            cvi, sep = {"silhouette": np.nan, "davies_bouldin": np.nan}, np.nan
        else:
            cvi = validity_indices(views[model.features], lab, silhouette_sample_size, rng)
            sep = fairness_separation(lab, t, p, metric, w)
        rows.append({"source": source, "algorithm": model.algorithm, "view": model.view,
                     "features": "all encoded features" if model.view == "encoded" else ", ".join(model.features),
                     "k": model.k, "fairness_separation": sep,
                     "silhouette": cvi["silhouette"], "davies_bouldin": cvi["davies_bouldin"], "seconds": secs})
    table = pd.DataFrame(rows)
    table["k"] = table["k"].astype("Int64")
    for col in ("n_clusters", "fairness_index", "max_z", "cluster"):
        table[col] = fvi[col].array
    scores = table["fairness_index"].to_numpy(dtype=float)
    selected = np.zeros(len(table), dtype=bool)
    selected[int(np.nanargmax(scores)) if np.isfinite(scores).any() else 0] = True
    table["selected"] = selected
    table = table[list(VALIDATION_COLUMNS)]
    chosen = int(np.flatnonzero(selected)[0])
    return ValidatedClusterings(family=ValidatedFamily(models, labels, len(X)), table=table, metric=metric,
                                labels=_row_labels(all_labels[chosen], table["cluster"].iloc[chosen]))


def _row_labels(fit: Fit, cluster: Any) -> np.ndarray:
    """Each row's label under a model: a partition's labels; for scan windows, the number of the window the index
    chose for the rows inside it and -1 for the others."""
    if not sp.issparse(fit):
        return np.asarray(fit)
    out = np.full(fit.shape[0], -1, dtype=np.intp)
    if not pd.isna(cluster):
        out[sp.csc_matrix(fit)[:, int(cluster)].indices] = int(cluster)
    return out
