"""Subgroup discovery on Dask collections: the same findings as pandas, and a planted slice on a LocalCluster.

Data: :func:`aif360_subjective.datasets.make_planted_slice` (8 categorical columns of 4 levels, 2 numeric ones, a
planted 2-condition slice of 5 % of the rows whose favourable-prediction rate is 0.2 lower), generated and written
as Parquet **in partitions** (``--files`` parts; part ``k`` is drawn with its own seed and its columns and levels
relabelled so that its planted slice is part 0's: the parts are samples of one table, which never exists in
memory). Cluster: ``LocalCluster(processes=True)``, ``--workers`` workers of one thread and ``--memory-limit``
each.

Three runs, each printed as a table:

1. ``--compare-rows`` (100,000): pandas and Dask on the same rows (the Parquet files read back): whether the
   candidates and findings are the same, the largest effect-size difference, the adjusted p-values of the Dask
   analysis (keyed permutations) against pandas with ``permutation="keyed"`` (equal) and with the default
   ``permutation="classical"`` (they differ by permutation noise: the largest difference and whether the findings
   differ), and the seconds of each;
2. ``--rows`` (2,000,000; ``--rows 20000000 --files 80`` for 20M): ``detect_subgroups(ddf[features], ddf["t"],
   ddf["p"], discovery="patterns")`` on the cluster: seconds, peak resident memory of every worker and of the
   client, candidates, findings, and the first finding against the planted conditions;
3. ``--scaling`` sizes (default 500,000 and ``--rows``): the seconds of each and the scaling exponent
   ``log(t2 / t1) / log(n2 / n1)`` between consecutive sizes.

Run: ``python benchmarks/dask_patterns.py`` (all three at the defaults); ``--skip-compare`` / ``--scaling``
(no sizes: skip) choose the runs.
"""

from __future__ import annotations

import argparse
import functools
import math
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

CATEGORICAL, NUMERIC = 8, 2
print = functools.partial(print, flush=True)  # noqa: A001 - the tables appear as they are computed


def _peak_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024.0
    return float("nan")


def _part(rows: int, k: int, ref: dict | None) -> tuple[pd.DataFrame, dict]:
    """Part ``k``: ``rows`` rows of the planted table, relabelled so that its planted slice is ``ref`` (part 0's
    conditions; None for part 0 itself)."""
    from aif360_subjective.datasets import make_planted_slice

    def draw(seed: int, n: int):
        return make_planted_slice(n, n_conditions=2, planted_share=0.05, effect=0.2, n_categorical=CATEGORICAL,
                                  n_numeric=NUMERIC, random_state=seed)

    b = draw(k, rows)
    X = b.X.copy()
    if ref is None:
        ref = dict(b.conditions)
    else:
        own, want = list(b.conditions), list(ref)
        rest_own = [c for c in X.columns if c.startswith("cat") and c not in own]
        rest_want = [c for c in X.columns if c.startswith("cat") and c not in want]
        X = X.rename(columns=dict(zip(own + rest_own, want + rest_want, strict=True)))
        for c_own, c_want in zip(own, want, strict=True):  # swap the two levels so the planted level is part 0's
            a, z = b.conditions[c_own], ref[c_want]
            X[c_want] = X[c_want].replace({a: z, z: a}) if a != z else X[c_want]
        X = X[list(b.X.columns)]
    frame = X.assign(t=np.asarray(b.y_true, dtype=np.int64), p=np.asarray(b.y_pred, dtype=np.int64))
    return frame, ref


def write_parquet(rows: int, files: int, out: Path) -> dict:
    """``rows`` rows in ``files`` Parquet parts (one part in memory at a time); the planted conditions."""
    out.mkdir(parents=True, exist_ok=True)
    sizes = [len(a) for a in np.array_split(np.arange(rows), files)]
    ref: dict | None = None
    for k, n in enumerate(sizes):
        frame, ref = _part(n, k, ref)
        frame.to_parquet(out / f"part-{k:04d}.parquet", index=False)
    return ref or {}


def _dask_run(path: Path, client, **kw) -> tuple[float, object, list[float]]:
    import dask.dataframe as dd

    from aif360_subjective.detectors import detect_subgroups

    client.run(lambda: None)
    ddf = dd.read_parquet(str(path))
    features = [c for c in ddf.columns if c not in ("t", "p")]
    t0 = time.perf_counter()
    report = detect_subgroups(ddf[features], ddf["t"], ddf["p"], discovery="patterns", random_state=0, **kw)
    found = report.findings()
    seconds = time.perf_counter() - t0
    return seconds, (report, found), list(client.run(_peak_mb).values())


def compare(rows: int, files: int, client, tmp: Path) -> None:
    """Run 1: pandas and Dask on the same rows."""
    from aif360_subjective.detectors import detect_subgroups

    path = tmp / f"compare-{rows}"
    write_parquet(rows, files, path)
    seconds_dask, (rd, fd), _ = _dask_run(path, client)
    frame = pd.read_parquet(path)  # the same rows in the same order (the parts in name order)
    X = frame.drop(columns=["t", "p"])
    t0 = time.perf_counter()
    rk = detect_subgroups(X, frame["t"], frame["p"], discovery="patterns", random_state=0, permutation="keyed")
    fk = rk.findings()
    seconds_keyed = time.perf_counter() - t0
    t0 = time.perf_counter()
    rc = detect_subgroups(X, frame["t"], frame["p"], discovery="patterns", random_state=0)
    fc = rc.findings()
    seconds_classical = time.perf_counter() - t0
    famd, famk = rd.candidates.family("pattern"), rk.candidates.family("pattern")
    same_candidates = famd.patterns == famk.patterns and famd.items.labels == famk.items.labels
    effect = np.nanmax(np.abs(rd.candidate_metrics.table.to_numpy(float) - rk.candidate_metrics.table.to_numpy(float)))
    pd_, pk, pc = (r.significance.max_t().p_adjusted for r in (rd, rk, rc))
    print(f"\n1. pandas vs Dask on the same {rows:,} rows ({files} Parquet parts, {len(famd.patterns):,} candidates)")
    print(f"   same candidates: {same_candidates}; largest effect-size difference {effect:.1e}")
    print(f"   {'analysis':34s} {'findings':>8s} {'same as Dask':>12s} {'max |p_adj - Dask|':>18s} {'seconds':>8s}")
    print(f"   {'Dask (keyed permutations)':34s} {len(fd):8d} {'':>12s} {'':>18s} {seconds_dask:8.1f}")
    for name, f, p, s in (("pandas permutation='keyed'", fk, pk, seconds_keyed),
                          ("pandas permutation='classical'", fc, pc, seconds_classical)):
        same = len(f) == len(fd) and f.reset_index(drop=True).equals(fd.reset_index(drop=True))
        print(f"   {name:34s} {len(f):8d} {str(same):>12s} {np.nanmax(np.abs(p - pd_)):18.4f} {s:8.1f}")
    print("   first findings (Dask):")
    print(fd.head(4)[["metric", "description", "size", "value", "p_adjusted"]].to_string(index=False))


def planted(rows: int, files: int, client, tmp: Path, workers: int, memory: str) -> float:
    """Run 2: a planted slice found on the cluster; returns the seconds."""
    path = tmp / f"planted-{rows}"
    t0 = time.perf_counter()
    ref = write_parquet(rows, files, path)
    written = time.perf_counter() - t0
    seconds, (report, found), peaks = _dask_run(path, client)
    fam = report.candidates.family("pattern")
    first = found.iloc[0] if len(found) else None
    want = {c: v for c, v in ref.items()}
    hit = first is not None and fam.conditions(int(first["id"])) == want
    print(f"\n2. {rows:,} rows, {files} Parquet parts written in {written:.0f} s; LocalCluster {workers} workers x "
          f"{memory}")
    print(f"   detect_subgroups(discovery='patterns') + findings: {seconds:.1f} s; peak worker memory "
          f"{', '.join(f'{v:,.0f} MB' for v in peaks)}; client {_peak_mb():,.0f} MB")
    print(f"   {len(fam.patterns):,} candidates, {len(found)} findings; planted {want}")
    if first is not None:
        print(f"   first finding: {first['description']} ({first['metric']}, {int(first['size']):,} rows, "
              f"value {first['value']:.3f}, p_adjusted {first['p_adjusted']:.4f}); planted slice first: {hit}")
    return seconds


def add_table_arguments(ap: argparse.ArgumentParser) -> None:
    """The tables' options this benchmark shares with ``spark_scale.py``: the rows of the engines' comparison, the
    rows of the planted run and its Parquet files."""
    ap.add_argument("--compare-rows", type=int, default=100_000)
    ap.add_argument("--skip-compare", action="store_true")
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--files", type=int, default=8)


def main() -> None:
    from dask.distributed import Client, LocalCluster

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_table_arguments(ap)
    ap.add_argument("--scaling", type=int, nargs="*", default=None,
                    help="row counts timed for the scaling exponent (default: 500000 and --rows; none: skip)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--memory-limit", default="2GB")
    ap.add_argument("--out", type=Path, default=None, help="Parquet folder (default: a temporary one)")
    args = ap.parse_args()
    tmp = args.out or Path(tempfile.mkdtemp(prefix="aif360s-dask-patterns-"))
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, memory_limit=args.memory_limit,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        if not args.skip_compare:
            compare(args.compare_rows, 4, client, tmp)
        main_seconds = planted(args.rows, args.files, client, tmp, args.workers, args.memory_limit)
        sizes = [500_000, args.rows] if args.scaling is None else sorted(args.scaling)
        if len(sizes) >= 2:
            times = {}
            for n in sizes:
                if n == args.rows:
                    times[n] = main_seconds
                    continue
                path = tmp / f"scaling-{n}"
                write_parquet(n, max(1, round(args.files * n / args.rows)), path)
                times[n] = _dask_run(path, client)[0]
            print("\n3. scaling on the cluster (same partition size)")
            print(f"   {'rows':>12s} {'seconds':>9s} {'exponent':>9s}")
            prev = None
            for n in sizes:
                exp = "" if prev is None else f"{math.log(times[n] / times[prev]) / math.log(n / prev):9.2f}"
                print(f"   {n:12,d} {times[n]:9.1f} {exp:>9s}")
                prev = n


if __name__ == "__main__":
    main()
