"""Annotation-level metrics at scale on Dask: time and peak memory of the client and of every worker.

Runs on a ``LocalCluster(processes=True)`` (the code path of a multi-node cluster: tasks in worker
processes, results pickled to the client). Peak memory is each process's own high-water mark
(``VmHWM`` of ``/proc/self/status``: the client, and every worker process via ``client.run``), read
once at the end, so it covers the whole run.

Usage (data folders are written by ``write_synthetic_parquet``; ``generate`` writes them):

    python benchmarks/dask_scale.py generate --out /work/dask-data
    python benchmarks/dask_scale.py opinion --data /work/dask-data/ann100m        # 100M: MV + ADR + groups
    python benchmarks/dask_scale.py crowdtruth --data /work/dask-data/ct20m       # CrowdTruth on Dask
    python benchmarks/dask_scale.py crowdtruth-equality --data /work/dask-data/ct1m6
    python benchmarks/dask_scale.py crossover --data /work/dask-data/cross         # pandas vs Dask, a few sizes
    python benchmarks/dask_scale.py shuffled --sizes 2,20 --out /tmp/aif360s-shuf  # rows NOT partitioned by item

``shuffled`` is the realistic layout: for each size (millions of annotations) it writes the synthetic
annotations twice, item by item (``write_synthetic_parquet``, 1M annotations per file) and the same rows in a
random order over the same number of files; then, on a fresh ``LocalCluster`` per layout (2 workers x 2 GB,
one thread each, warmed up), it times ``opinion_exclusion(grouping="adr", bins=5)`` and the ADR test of equal
service (``test=True``, 199 permutations), and, for the random layout, the shuffle by item alone
(``ddf.shuffle(on="item")`` counted per partition). Its JSON lines give the phases: one counting pass finds the
items split over partitions, the table is shuffled by item once (Dask's P2P shuffle), and the pass is repeated.

Each command prints one JSON line per measurement (and appends it to ``--log`` if given).

Reference point: spark-crowd (Rodrigo et al., 2019) reports majority vote on 100M annotations
(10M items x 10 labels) in 57 s on one machine and 37 s on three.

References:
    E. G. Rodrigo, J. A. Aledo, J. A. Gámez, "spark-crowd: A Spark Package for Learning from
    Crowdsourced Big Data", JMLR 20(19), 2019.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402


def _peak_mb() -> float:
    """This process's peak resident memory (VmHWM, MiB).

    Not ``getrusage().ru_maxrss``: Linux carries the parent's high-water mark over fork + exec, so a
    worker spawned by a client that had grown would report the client's peak.
    """
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024.0
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _cluster(n_workers: int, memory_limit: str):
    from dask.distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, memory_limit=memory_limit,
                           dashboard_address=None)
    return cluster, Client(cluster)


def _worker_peaks(client) -> list[float]:
    return sorted(client.run(_peak_mb).values())


def _emit(rec: dict, log: str | None) -> None:
    line = json.dumps(rec, default=str)
    print(line, flush=True)
    if log:
        with open(log, "a") as fh:
            fh.write(line + "\n")


def _files(data: str, n_files: int | None) -> list[str]:
    files = sorted(str(p) for p in (Path(data) / "annotations").glob("*.parquet"))
    return files[:n_files] if n_files else files


# ----------------------------------------------------------------------------------------------
def cmd_generate(args) -> None:
    from aif360_subjective.datasets import write_synthetic_parquet

    specs = {
        "ann100m": (10_000_000, 50_000, 500_000),  # items, annotators, items per file
        "ct20m": (2_000_000, args.ct_workers, 100_000),
        "ct1m6": (160_000, args.ct_workers, 20_000),
        "cross": (2_000_000, 50_000, 100_000),  # 1M annotations per file: sizes by number of files
    }
    for name in args.which.split(","):
        n_items, n_ann, per_file = specs[name]
        t0 = time.perf_counter()
        write_synthetic_parquet(Path(args.out) / name, n_items, n_ann, 10, items_per_file=per_file,
                                random_state=2026)
        _emit({"task": "generate", "name": name, "n_annotations": n_items * 10, "n_annotators": n_ann,
               "seconds": round(time.perf_counter() - t0, 1)}, args.log)


def _majority_vote_summary(ddf):
    """Majority vote of every item (partition-local: items live in one file), reduced to counts."""
    from aif360_subjective._labels import majority_vote

    def mv(df):
        codes, _ = pd.factorize(df["item"].to_numpy())
        n = np.bincount(codes).astype(np.float64)
        n_pos = np.bincount(codes, weights=df["label"].to_numpy() == 1)
        v = majority_vote(n, n_pos, "drop")
        return pd.DataFrame({"items": [len(v)], "positive": [int((v == 1).sum())], "ties": [int(np.isnan(v).sum())]})

    return ddf[["item", "label"]].map_partitions(mv, meta={"items": "i8", "positive": "i8", "ties": "i8"}).sum()


def cmd_opinion(args) -> None:
    import dask.dataframe as dd

    from aif360_subjective.sklearn.metrics import opinion_exclusion

    cluster, client = _cluster(args.workers, args.memory_limit)
    try:
        files = _files(args.data, args.files)
        ddf = dd.read_parquet(files)
        _majority_vote_summary(dd.read_parquet(files[:1])).compute()  # warm-up: worker imports, not timed
        t0 = time.perf_counter()
        mv = _majority_vote_summary(ddf).compute()
        t_mv = time.perf_counter() - t0
        t0 = time.perf_counter()
        res = opinion_exclusion(ddf["label"], ddf["prediction"], item_ids=ddf["item"],
                                annotator_ids=ddf["annotator"], grouping=args.grouping, bins=5,
                                performance="accuracy", pos_label=1)
        t_oe = time.perf_counter() - t0
        _emit({
            "task": "opinion", "grouping": args.grouping, "n_annotations": res.extras["n_annotations"],
            "n_items": int(mv["items"]), "n_annotators": len(res.disagreement_rates), "partitions": ddf.npartitions,
            "majority_vote_seconds": round(t_mv, 1),
            "mv_adr_opinion_exclusion_seconds": round(t_oe, 1),
            "unfairness": res.unfairness, "performance": res.performance,
            "groups": res.group_table["n_annotators"].tolist(), "shuffled_by_item": res.extras["shuffled_by_item"],
            "client_peak_mb": round(_peak_mb()), "worker_peak_mb": [round(x) for x in _worker_peaks(client)],
            "workers": args.workers, "memory_limit": args.memory_limit,
        }, args.log)
    finally:
        client.close()
        cluster.close()


def cmd_crowdtruth(args) -> None:
    import dask.dataframe as dd

    from aif360_subjective.quality import crowdtruth_scores

    cluster, client = _cluster(args.workers, args.memory_limit)
    try:
        ddf = dd.read_parquet(_files(args.data, args.files), columns=["item", "annotator", "label"])
        t0 = time.perf_counter()
        res = crowdtruth_scores(ddf, unit_col="item", worker_col="annotator", label_col="label",
                                max_iter=args.max_iter)
        t = time.perf_counter() - t0
        _emit({"task": "crowdtruth", "n_annotations": res.n_rows, "n_workers": len(res.workers),
               "partitions": ddf.npartitions, "iterations": res.n_iterations, "converged": res.converged,
               "seconds": round(t, 1), "seconds_per_iteration": round(t / max(res.n_iterations, 1), 2),
               "client_peak_mb": round(_peak_mb()), "worker_peak_mb": [round(x) for x in _worker_peaks(client)],
               "workers": args.workers, "memory_limit": args.memory_limit}, args.log)
    finally:
        client.close()
        cluster.close()


def cmd_crowdtruth_equality(args) -> None:
    import dask.dataframe as dd

    from aif360_subjective.quality import crowdtruth_scores

    files = _files(args.data, args.files)
    pdf = pd.read_parquet(files, columns=["item", "annotator", "label"])
    t0 = time.perf_counter()
    mem = crowdtruth_scores(pdf, unit_col="item", worker_col="annotator", label_col="label")
    t_mem = time.perf_counter() - t0
    peak_mem = _peak_mb()
    cluster, client = _cluster(args.workers, args.memory_limit)
    try:
        ddf = dd.read_parquet(files, columns=["item", "annotator", "label"])
        t0 = time.perf_counter()
        dsk = crowdtruth_scores(ddf, unit_col="item", worker_col="annotator", label_col="label")
        t_dsk = time.perf_counter() - t0
        units = dsk.units.compute() if hasattr(dsk.units, "compute") else dsk.units
        diff = {
            "uqs": float(np.abs(units["uqs"].reindex(mem.units.index) - mem.units["uqs"]).max()),
            "wqs": float(np.abs(dsk.workers["wqs"].reindex(mem.workers.index) - mem.workers["wqs"]).max()),
            "aqs": float(np.abs(dsk.annotations["aqs"] - mem.annotations["aqs"]).max()),
        }
        _emit({"task": "crowdtruth-equality", "n_annotations": len(pdf), "n_workers": len(mem.workers),
               "iterations": [mem.n_iterations, dsk.n_iterations], "max_abs_diff": diff,
               "pandas_seconds": round(t_mem, 1), "dask_seconds": round(t_dsk, 1),
               "pandas_peak_mb": round(peak_mem), "worker_peak_mb": [round(x) for x in _worker_peaks(client)]},
              args.log)
    finally:
        client.close()
        cluster.close()


# ----------------------------------------------------------------------------------------------
_PANDAS_CHILD = """
import sys, time, json
sys.path.insert(0, {repo!r})
import pandas as pd
from aif360_subjective.sklearn.metrics import opinion_exclusion
t0 = time.perf_counter()
df = pd.read_parquet({files!r}, columns=["item", "annotator", "label", "prediction"])
res = opinion_exclusion(df["label"], df["prediction"], item_ids=df["item"], annotator_ids=df["annotator"],
                        grouping="adr", bins=5, performance="accuracy", pos_label=1)
t = time.perf_counter() - t0
hwm = [ln for ln in open("/proc/self/status") if ln.startswith("VmHWM:")][0]
print(json.dumps({{"seconds": t, "peak_mb": int(hwm.split()[1]) / 1024,
                   "unfairness": res.unfairness}}))
"""


def cmd_crossover(args) -> None:
    """Same files, same analysis: pandas in one process (read + compute) against Dask on the cluster."""
    import dask.dataframe as dd

    from aif360_subjective.sklearn.metrics import opinion_exclusion

    repo = str(Path(__file__).resolve().parents[1])
    for n_files in [int(x) for x in args.sizes.split(",")]:
        files = _files(args.data, n_files)
        out = subprocess.run([sys.executable, "-c", _PANDAS_CHILD.format(repo=repo, files=files)],
                             capture_output=True, text=True, check=True)
        pandas_rec = json.loads(out.stdout.strip().splitlines()[-1])
        cluster, client = _cluster(args.workers, args.memory_limit)  # fresh workers: per-size peaks
        try:
            _majority_vote_summary(dd.read_parquet(files[:1])).compute()  # warm-up: worker imports, not timed
            t0 = time.perf_counter()
            ddf = dd.read_parquet(files)
            res = opinion_exclusion(ddf["label"], ddf["prediction"], item_ids=ddf["item"],
                                    annotator_ids=ddf["annotator"], grouping="adr", bins=5, performance="accuracy",
                                    pos_label=1)
            t_dask = time.perf_counter() - t0
            _emit({"task": "crossover", "n_annotations": res.extras["n_annotations"],
                   "pandas_seconds": round(pandas_rec["seconds"], 2), "pandas_peak_mb": round(pandas_rec["peak_mb"]),
                   "dask_seconds": round(t_dask, 2), "dask_worker_peak_mb": [round(x) for x in _worker_peaks(client)],
                   "same_unfairness": pandas_rec["unfairness"] == res.unfairness}, args.log)
        finally:
            client.close()
            cluster.close()


def _shuffled_data(root: Path, millions: int) -> tuple[list[str], list[str]]:
    """Item-partitioned files and the same rows in a random order over as many files (written when missing)."""
    from aif360_subjective.datasets import write_synthetic_parquet

    sorted_dir, random_dir = root / f"sorted{millions}m", root / f"random{millions}m"
    if not (sorted_dir / "annotations").exists():
        write_synthetic_parquet(sorted_dir, millions * 100_000, 50_000, 10, items_per_file=100_000,
                                random_state=2026)
    files = sorted(str(p) for p in (sorted_dir / "annotations").glob("*.parquet"))
    if not random_dir.exists():
        random_dir.mkdir(parents=True)
        df = pd.read_parquet(files)
        df = df.iloc[np.random.default_rng(2026).permutation(len(df))].reset_index(drop=True)
        for k, part in enumerate(np.array_split(np.arange(len(df)), len(files))):
            df.iloc[part].to_parquet(random_dir / f"part-{k:05d}.parquet", index=False)
        del df
    return files, sorted(str(p) for p in random_dir.glob("*.parquet"))


def cmd_shuffled(args) -> None:
    """opinion_exclusion and the ADR test on item-partitioned against randomly ordered Parquet (see the docstring)."""
    import dask.dataframe as dd

    from aif360_subjective.sklearn.metrics import opinion_exclusion

    for millions in [int(x) for x in args.sizes.split(",")]:
        layouts = dict(zip(["by item", "random"], _shuffled_data(Path(args.out), millions), strict=True))
        for layout, files in layouts.items():
            cluster, client = _cluster(args.workers, args.memory_limit)
            try:
                _majority_vote_summary(dd.read_parquet(files[:1])).compute()  # warm-up: imports, not timed
                rec = {"task": "shuffled", "layout": layout, "files": len(files)}
                if layout == "random":
                    t0 = time.perf_counter()
                    sizes = dd.read_parquet(files, columns=["item"]).shuffle(on="item").map_partitions(len).compute()
                    rec["shuffle_only_seconds"] = round(time.perf_counter() - t0, 1)
                    rec["rows_after_shuffle"] = int(sizes.sum())
                ddf = dd.read_parquet(files)
                t0 = time.perf_counter()
                res = opinion_exclusion(ddf["label"], ddf["prediction"], item_ids=ddf["item"],
                                        annotator_ids=ddf["annotator"], grouping="adr", bins=5,
                                        performance="accuracy", pos_label=1)
                rec["opinion_seconds"] = round(time.perf_counter() - t0, 1)
                t0 = time.perf_counter()
                tested = opinion_exclusion(ddf["label"], ddf["prediction"], item_ids=ddf["item"],
                                           annotator_ids=ddf["annotator"], grouping="adr", bins=5,
                                           performance="accuracy", pos_label=1, test=True, n_permutations=199,
                                           random_state=0)
                rec["adr_test_seconds"] = round(time.perf_counter() - t0, 1)
                test = tested.exclusion_test
                rec.update(n_annotations=res.extras["n_annotations"], shuffled_by_item=res.extras["shuffled_by_item"],
                           unfairness=res.unfairness,
                           adr_test_p=None if test is None else getattr(test, "p_value", None),
                           client_peak_mb=round(_peak_mb()), worker_peak_mb=[round(x) for x in _worker_peaks(client)],
                           workers=args.workers, memory_limit=args.memory_limit)
                _emit(rec, args.log)
            finally:
                client.close()
                cluster.close()


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("task", choices=["generate", "opinion", "crowdtruth", "crowdtruth-equality", "crossover",
                                     "shuffled"])
    ap.add_argument("--data", default="/work/dask-data/ann100m")
    ap.add_argument("--out", default="/work/dask-data")
    ap.add_argument("--which", default="ann100m", help="generate: comma-separated names")
    ap.add_argument("--ct-workers", type=int, default=2_000, help="workers of the CrowdTruth data sets")
    ap.add_argument("--files", type=int, default=None, help="use only the first N Parquet files")
    ap.add_argument("--sizes", default="1,4,16",
                    help="crossover: numbers of 1M-annotation files; shuffled: millions of annotations (e.g. 2,20)")
    ap.add_argument("--grouping", default="adr", choices=["adr", "ambiguity", "popularity"],
                    help="opinion: the grouping (ambiguity and popularity take a second pass)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--memory-limit", default="4GB")
    ap.add_argument("--max-iter", type=int, default=1000)
    ap.add_argument("--log", default=None)
    args = ap.parse_args(argv)
    os.environ.setdefault("MPLBACKEND", "Agg")
    import logging

    # per-iteration progress of CrowdTruth (time-stamped), so a run cut short still tells how far it got
    logging.basicConfig(format="%(asctime)s %(name)s %(message)s")
    logging.getLogger("aif360_subjective").setLevel(logging.INFO)
    {"generate": cmd_generate, "opinion": cmd_opinion, "crowdtruth": cmd_crowdtruth,
     "crowdtruth-equality": cmd_crowdtruth_equality, "crossover": cmd_crossover,
     "shuffled": cmd_shuffled}[args.task](args)


if __name__ == "__main__":
    main()
