"""Subgroup discovery and the opinion metrics on Spark beside Dask and pandas: the same results, and the time.

Data: the planted-slice Parquet parts of ``benchmarks/dask_patterns.py`` (:func:`dask_patterns.write_parquet`:
8 categorical columns, 2 numeric ones, a 2-condition slice of 5 % of the rows served 0.2 worse, written part by
part, never whole in memory). Spark: a local session ``local[2]`` with ``--memory`` (2 GB) for the driver, which in
local mode is the executor; Dask: ``LocalCluster`` of 2 one-thread workers with as much memory each.

1. ``--compare-rows`` (100,000): pandas (``permutation="keyed"``, the Parquet parts read back in order), Dask and
   Spark on the same files: whether candidates, adjusted p-values and findings are identical, and the seconds.
   Spark reads the files in its own partition order (it packs files into partitions by size), so pandas and Dask
   are given the rows in Spark's order (``sdf.toPandas()``): the positions of the keyed permutations.
2. ``--rows`` (2,000,000; 20,000,000 with ``--rows 20000000 --files 80 --max-partition-bytes 32m``): Spark and
   Dask on the same Parquet files: seconds, peak memory (the JVM, the Python workers, the driver's Python; the
   Dask workers and client), whether the planted slice is the first finding, and the bytes of counts that reached
   the Spark driver;
   ``--permutations B`` (200) sets both engines' max-T permutations, ``--executor-sums`` adds a Spark run with every
   sum of counts added on the executors (``SparkPartitions.DRIVER_SUMS = 0``) before it reaches the driver.

3. ``--opinion-rows`` (1,000,000 annotations; 0 skips it): ``opinion_exclusion`` with the test of equal service
   (ADR groups, cross-fitted, 99 permutations) on pandas, Dask and Spark for the same synthetic annotations (5 per
   item, 2,000 annotators who disagree with the majority at rates of 0 to 0.4, a model that errs more for the
   annotators who disagree more), written as Parquet parts item by item: seconds, unfairness, the test's p-value,
   whether the result equals pandas', and the bytes of counts that reached the Spark driver.

4. ``--profile-partition ROWS`` (alone; no cluster): one partition's CPU by pass and the max-T pass in its parts
   (:mod:`partition_profile`), e.g. ``--profile-partition 250000 --permutations 50``.

Run: ``python benchmarks/spark_scale.py`` (all runs); ``--skip-compare``, ``--rows 0`` or ``--opinion-rows 0``
skips one (``--skip-compare --rows 0 --opinion-rows 200000``: the opinion table alone).
"""

from __future__ import annotations

import argparse
import functools
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from _timing import tree_cpu_seconds  # noqa: E402
from dask_patterns import _dask_run, _peak_mb, add_table_arguments, write_parquet  # noqa: E402

print = functools.partial(print, flush=True)  # noqa: A001 - the tables appear as they are computed


def _worker_peaks(spark) -> list[float]:
    """Peak resident MB of the Spark Python workers (one probe per default-parallelism slot) and of the JVM."""
    def probe(batches):
        for _ in batches:
            pass
        from pathlib import Path as P

        for line in P("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                yield pd.DataFrame({"mb": [int(line.split()[1]) / 1024.0]})

    n = spark.sparkContext.defaultParallelism
    workers = [r["mb"] for r in spark.range(0, n, 1, n).mapInPandas(probe, "mb double").collect()]
    pid = spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid()  # noqa: SLF001 (the JVM's pid)
    jvm = float("nan")
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            jvm = int(line.split()[1]) / 1024.0
    return [jvm, *workers]


def spark_run(spark, path: Path, n_permutations: int = 200) -> tuple[float, float, object, object, int]:
    """Seconds and CPU-seconds (driver, JVM, Python workers) of the analysis, the report, the findings and the
    bytes that reached the driver."""
    from aif360_subjective.detectors import detect_subgroups

    sdf = spark.read.parquet(str(path))
    c0, t0 = tree_cpu_seconds(), time.perf_counter()
    report = detect_subgroups(sdf, "t", "p", discovery="patterns", random_state=0, n_permutations=n_permutations)
    found = report.findings()
    seconds, cpu = time.perf_counter() - t0, tree_cpu_seconds() - c0
    return seconds, cpu, report, found, report.candidates.family("pattern").source.parts.driver_bytes


def dask_run(path: Path, client, n_permutations: int = 200) -> tuple[float, float, object, object, list[float]]:
    """:func:`dask_patterns._dask_run` with the CPU-seconds of the client and the workers."""
    c0 = tree_cpu_seconds()
    seconds, (report, found), peaks = _dask_run(path, client, n_permutations=n_permutations)
    return seconds, tree_cpu_seconds() - c0, report, found, peaks


def warm_up(spark, client, tmp: Path) -> None:
    """Both engines once on 5,000 rows: their workers start and import the package here, not in the timed runs."""
    path = tmp / "warm-up"
    write_parquet(5000, 2, path)
    s_spark, c_spark, *_ = spark_run(spark, path)
    s_dask, c_dask, *_ = dask_run(path, client)
    print(f"warm-up on 5,000 rows (the workers start and import the package): Spark {s_spark:.1f} s "
          f"({c_spark:.1f} CPU-s), Dask {s_dask:.1f} s ({c_dask:.1f} CPU-s)")


def compare(spark, client, rows: int, files: int, tmp: Path) -> None:
    import dask.dataframe as dd

    from aif360_subjective.detectors import detect_subgroups

    path = tmp / f"compare-{rows}"
    write_parquet(rows, files, path)
    s_spark, c_spark, rs, fs, sent = spark_run(spark, path)
    frame = spark.read.parquet(str(path)).toPandas()  # the rows in Spark's order: the keyed permutations' positions
    X = frame.drop(columns=["t", "p"])
    c0, t0 = tree_cpu_seconds(), time.perf_counter()
    rk = detect_subgroups(X, frame["t"], frame["p"], discovery="patterns", random_state=0, permutation="keyed")
    fk = rk.findings()
    s_pandas, c_pandas = time.perf_counter() - t0, tree_cpu_seconds() - c0
    ddf = dd.from_pandas(frame, npartitions=files, sort=False)
    c0, t0 = tree_cpu_seconds(), time.perf_counter()
    rd = detect_subgroups(ddf[list(X.columns)], ddf["t"], ddf["p"], discovery="patterns", random_state=0)
    fd = rd.findings()
    s_dask, c_dask = time.perf_counter() - t0, tree_cpu_seconds() - c0
    famk = rk.candidates.family("pattern")
    print(f"\n1. pandas (keyed), Dask and Spark on the same {rows:,} rows ({files} Parquet parts, "
          f"{len(famk.patterns):,} candidates)")
    print(f"   {'analysis':28s} {'findings':>8s} {'same candidates':>15s} {'max |p_adj - pandas|':>20s} "
          f"{'same findings':>13s} {'seconds':>8s} {'CPU-s':>8s}")
    pk = rk.significance.max_t().p_adjusted
    for name, r, f, s, c in (("pandas permutation='keyed'", rk, fk, s_pandas, c_pandas),
                             ("Dask (LocalCluster)", rd, fd, s_dask, c_dask),
                             ("Spark (local[2])", rs, fs, s_spark, c_spark)):
        fam = r.candidates.family("pattern")
        same_c = fam.patterns == famk.patterns and fam.items.labels == famk.items.labels
        diff = np.nanmax(np.abs(r.significance.max_t().p_adjusted - pk))
        same_f = f.reset_index(drop=True).equals(fk.reset_index(drop=True))
        print(f"   {name:28s} {len(f):8d} {str(same_c):>15s} {diff:20.4g} {str(same_f):>13s} {s:8.1f} {c:8.1f}")
    print(f"   bytes of counts that reached the Spark driver: {sent:,}")
    print(fs.head(3)[["metric", "description", "size", "value", "p_adjusted"]].to_string(index=False))


def planted(spark, client, rows: int, files: int, tmp: Path, n_permutations: int = 200,
            executor_sums: bool = False, engines: tuple[str, ...] = ("Dask", "Spark")) -> None:
    """Run 2: Dask, then Spark (then, with ``executor_sums``, Spark with every sum of counts added on the executors
    before it reaches the driver: ``SparkPartitions.DRIVER_SUMS = 0``) on the same Parquet files."""
    from aif360_subjective._spark.partitions import SparkPartitions

    path = tmp / f"planted-{rows}"
    ref = write_parquet(rows, files, path)
    print(f"\n2. {rows:,} rows, {files} Parquet parts ({spark.read.parquet(str(path)).rdd.getNumPartitions()} Spark "
          f"partitions), {n_permutations} permutations; planted {ref}")
    print(f"   {'engine':22s} {'seconds':>8s} {'CPU-s':>8s} {'peak memory (MB)':>44s} {'planted first':>13s} "
          f"{'driver bytes':>13s}")
    for engine in engines + (("Spark, executor sums",) if executor_sums else ()):
        if engine == "Dask":
            seconds, cpu, report, found, peaks = dask_run(path, client, n_permutations)
            memory = "workers " + ", ".join(f"{v:,.0f}" for v in peaks)
            sent = "not counted"
        else:
            default = SparkPartitions.DRIVER_SUMS
            SparkPartitions.DRIVER_SUMS = 0 if engine != "Spark" else default
            try:
                seconds, cpu, report, found, sent_bytes = spark_run(spark, path, n_permutations)
            finally:
                SparkPartitions.DRIVER_SUMS = default
            jvm, *workers = _worker_peaks(spark)
            memory = f"JVM {jvm:,.0f}; Python workers " + ", ".join(f"{v:,.0f}" for v in workers)
            sent = f"{sent_bytes:,}"
        fam = report.candidates.family("pattern")
        hit = len(found) > 0 and fam.conditions(int(found.iloc[0]["id"])) == ref
        print(f"   {engine:22s} {seconds:8.1f} {cpu:8.1f} {memory:>44s} {str(hit):>13s} {sent:>13s}")
    print(f"   driver/client Python peak {_peak_mb():,.0f} MB")


def write_annotations(rows: int, files: int, path: Path, seed: int = 0) -> None:
    """Synthetic annotations (item, annotator, label, pred) as ``files`` Parquet parts, item by item (every item's
    rows in one part: the passes need no shuffle)."""
    rng = np.random.default_rng(seed)
    n_items, per, k = max(1, rows // 5), 5, 2000
    flip = np.linspace(0.0, 0.4, k)  # each annotator's rate of disagreeing with the item's 'true' label
    item = np.repeat(np.arange(n_items), per)
    annotator = (np.repeat(rng.integers(0, k, n_items), per) + np.tile(np.arange(per) * 397, n_items)) % k
    truth = np.repeat(rng.integers(0, 2, n_items), per)
    label = np.where(rng.random(len(item)) < flip[annotator], 1 - truth, truth)
    pred = np.where(rng.random(len(item)) < 0.1 + 0.2 * flip[annotator], 1 - truth, truth)
    path.mkdir(parents=True, exist_ok=True)
    bounds = np.linspace(0, len(item), files + 1).astype(int) // per * per
    for i in range(files):
        part = slice(bounds[i], bounds[i + 1])
        pd.DataFrame({"item": item[part], "annotator": annotator[part], "label": label[part],
                      "pred": pred[part]}).to_parquet(path / f"part-{i:03d}.parquet", index=False)


def opinion(spark, client, rows: int, files: int, tmp: Path) -> None:
    """``opinion_exclusion`` with the test on pandas, Dask and Spark, the same annotations."""
    import dask.dataframe as dd

    from aif360_subjective.opinion import opinion_exclusion

    path = tmp / f"opinion-{rows}"
    write_annotations(rows, files, path)
    kw = {"item_ids": "item", "annotator_ids": "annotator", "test": True, "n_permutations": 99, "random_state": 0,
          "warn_group_size": 0}
    print(f"\n3. opinion_exclusion with the test of equal service: {rows:,} annotations, {files} Parquet parts")
    print(f"   {'engine':8s} {'seconds':>8s} {'unfairness':>11s} {'p-value':>8s} {'equals pandas':>13s} "
          f"{'driver bytes':>13s}")
    results = {}
    for engine in ("pandas", "Dask", "Spark"):
        t0 = time.perf_counter()
        if engine == "pandas":
            data = pd.read_parquet(path)
        elif engine == "Dask":
            data = dd.read_parquet(str(path))
        else:
            data = spark.read.parquet(str(path))
        res = opinion_exclusion("label", "pred", data=data, **kw)
        seconds = time.perf_counter() - t0
        results[engine] = res
        ref = results["pandas"]
        same = (res.unfairness == ref.unfairness and res.exclusion_test.p_value == ref.exclusion_test.p_value
                and res.group_table.equals(ref.group_table))
        sent = f"{res.extras['driver_bytes']:,}" if "driver_bytes" in res.extras else "-"
        print(f"   {engine:8s} {seconds:8.1f} {res.unfairness:11.6f} {res.exclusion_test.p_value:8.4f} "
              f"{str(same):>13s} {sent:>13s}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_table_arguments(ap)
    ap.add_argument("--opinion-rows", type=int, default=1_000_000)
    ap.add_argument("--memory", default="2g", help="Spark driver (= local executor) memory and each Dask worker's")
    ap.add_argument("--permutations", type=int, default=200, help="the max-T's permutations of run 2 (both engines)")
    ap.add_argument("--executor-sums", action="store_true",
                    help="run 2 also on Spark with the sums of counts added on the executors (one group)")
    ap.add_argument("--engines", default="dask,spark", help="run 2's engines, comma-separated (dask, spark)")
    ap.add_argument("--max-partition-bytes", default=None, metavar="SIZE",
                    help="spark.sql.files.maxPartitionBytes (e.g. 32m): Spark packs Parquet files into partitions "
                         "of at most this size (its default, 128m, gives 20,000,000 rows about 6 partitions of "
                         "3,300,000 rows each, more than a Python worker holds in 2 GB)")
    ap.add_argument("--profile-partition", type=int, default=0, metavar="ROWS",
                    help="only profile one partition of ROWS rows in this process (no cluster): CPU-s by pass and "
                         "the max-T pass in its parts, with --permutations (partition_profile.py)")
    args = ap.parse_args()
    if args.profile_partition:
        from partition_profile import profile_partition

        profile_partition(args.profile_partition, args.permutations)
        return
    from dask.distributed import Client, LocalCluster

    from aif360_subjective._spark import local_session

    conf = {"spark.driver.memory": args.memory, "spark.sql.shuffle.partitions": "4"}
    if args.max_partition_bytes:
        conf["spark.sql.files.maxPartitionBytes"] = args.max_partition_bytes
    spark = local_session("local[2]", **conf)
    spark.sparkContext.setLogLevel("ERROR")
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                           memory_limit=args.memory.upper() + ("B" if not args.memory.upper().endswith("B") else ""))
    with Client(cluster) as client, tempfile.TemporaryDirectory() as tmp:
        warm_up(spark, client, Path(tmp))
        if not args.skip_compare:
            compare(spark, client, args.compare_rows, args.files, Path(tmp))
        if args.rows:
            engines = tuple({"dask": "Dask", "spark": "Spark"}[e.strip().lower()] for e in args.engines.split(","))
            planted(spark, client, args.rows, args.files, Path(tmp), args.permutations, args.executor_sums, engines)
        if args.opinion_rows:
            opinion(spark, client, args.opinion_rows, args.files, Path(tmp))
    cluster.close()
    spark.stop()


if __name__ == "__main__":
    main()
