"""Benchmark: what the input contract's checks cost at Wikipedia-toxicity scale.

The checks added at the faces' entry points -- the equal-index check of pandas Series, the duplicated (item,
annotator) pair check of the encoder, the finite-feature check of subgroup discovery -- and the Dask path's
position-wise pairing of its four Series (one frame per partition, indexes compared) instead of an index-aligned
``assign``. Each is timed (best of --repeat runs) beside the whole computation it guards:

* ``opinion_exclusion`` (functional face, ADR grouping, accuracy) on N annotations, and the two pandas checks
  alone on the same inputs;
* ``check_finite_features`` on a 1M x 10 float table;
* ``opinion_exclusion`` on Dask (--partitions partitions, synchronous scheduler) for plain columns of one frame
  (paired by a blockwise ``assign``) and for the same columns through a no-op per-partition step (paired partition
  by partition with the indexes compared).

Usage: python benchmarks/input_contract.py [--n-items 160000] [--annotators-per-item 10] [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aif360_subjective._validation import check_finite_features, check_same_index  # noqa: E402
from aif360_subjective.opinion.annotations import _factorize, check_unique_pairs  # noqa: E402
from aif360_subjective.sklearn.metrics import opinion_exclusion  # noqa: E402


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def annotations(n_items: int, per_item: int, n_workers: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    # per item, distinct workers: a random offset and a stride coprime with n_workers
    offsets = rng.integers(0, n_workers, n_items)
    workers = (offsets[:, None] + np.arange(per_item)[None, :] * 7) % n_workers
    labels = rng.integers(0, 2, (n_items, per_item))
    return pd.DataFrame({"item": np.repeat(np.arange(n_items), per_item), "annotator": workers.ravel(),
                         "label": labels.ravel(), "pred": np.repeat(rng.integers(0, 2, n_items), per_item)})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-items", type=int, default=160_000)
    ap.add_argument("--annotators-per-item", type=int, default=10)
    ap.add_argument("--workers", type=int, default=4_300)
    ap.add_argument("--partitions", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    df = annotations(args.n_items, args.annotators_per_item, args.workers)
    n = len(df)
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        total = best(lambda: opinion_exclusion(df["label"], df["pred"], item_ids=df["item"],
                                               annotator_ids=df["annotator"]), args.repeat)
    series = {"y_true": df["label"], "y_pred": df["pred"], "item_ids": df["item"], "annotator_ids": df["annotator"]}
    t_index = best(lambda: check_same_index(series), args.repeat)
    ic, items = _factorize(df["item"].to_numpy(), "item_ids")
    ac, anns = _factorize(df["annotator"].to_numpy(), "annotator_ids")
    t_pairs = best(lambda: check_unique_pairs(ic, ac, items, anns), args.repeat)
    rows.append(("opinion_exclusion (functional, whole)", n, total, ""))
    rows.append(("  equal-index check of the 4 Series", n, t_index, f"{t_index / total:.1%} of the whole"))
    rows.append(("  duplicated-pair check", n, t_pairs, f"{t_pairs / total:.1%} of the whole"))

    X = pd.DataFrame(np.random.default_rng(1).normal(size=(1_000_000, 10)), columns=[f"x{i}" for i in range(10)])
    t_finite = best(lambda: check_finite_features(X), args.repeat)
    rows.append(("check_finite_features, 1M x 10 floats", 1_000_000, t_finite, ""))

    try:
        import dask
        import dask.dataframe as dd
    except ImportError:
        dask = None
    if dask is not None:
        ddf = dd.from_pandas(df, npartitions=args.partitions)
        cols = (ddf["label"], ddf["pred"], ddf["item"], ddf["annotator"])
        # the same columns through a no-op per-partition step: no longer plain columns of one frame, so they take
        # the checked pairing (partitions zipped, indexes compared)
        derived = tuple(c.map_partitions(lambda p: p, meta=c._meta) for c in cols)

        def run(c):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return opinion_exclusion(c[0], c[1], item_ids=c[2], annotator_ids=c[3])

        with dask.config.set(scheduler="sync"):
            t_cols = best(lambda: run(cols), args.repeat)
            t_checked = best(lambda: run(derived), args.repeat)
            assert run(cols).unfairness == run(derived).unfairness
        rows.append((f"Dask, columns of one frame ({args.partitions} partitions)", n, t_cols, ""))
        rows.append(("Dask, Series derived per partition (checked)", n, t_checked,
                     f"checked / columns = {t_checked / t_cols:.2f}"))

    print(f"{'what':52s} {'rows':>10s} {'seconds':>9s}  note")
    for what, size, sec, note in rows:
        print(f"{what:52s} {size:>10,d} {sec:>9.3f}  {note}")


if __name__ == "__main__":
    main()
