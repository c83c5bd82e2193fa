"""Build time and peak memory of MultiAnnotatorDataset at the Wikipedia-toxicity scale.

Generates a long annotation table shaped like ``toxicity_annotations.tsv`` (160k items, 4,300 annotators
with heavy-tailed activity, ~10 annotations per item, 1.6M rows) plus a demographics table covering 83% of
the annotators, then times the constructor, a by-item split and the majority vote. Each step runs in a fresh
process so its peak memory (ru_maxrss) is its own. Side by side: the bare aif360 ``BinaryLabelDataset`` on the
same numeric frame (what AIF360 alone costs, without ids or tables).

Run: ``python benchmarks/build_dataset.py [--rows 1600000]``
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import textwrap

STEP = textwrap.dedent(r"""
    import json, resource, sys, time, logging
    logging.disable(logging.WARNING)
    import numpy as np, pandas as pd
    n_rows, step = int(sys.argv[1]), sys.argv[2]
    rng = np.random.default_rng(0)
    n_items, n_ann = n_rows // 10, max(43, n_rows // 372)
    p = rng.lognormal(0, 1.5, n_ann); p /= p.sum()
    ann = pd.DataFrame({"rev_id": np.repeat(np.arange(n_items) * 7 + 100_000, 10).astype(np.float64),
                        "worker_id": rng.choice(n_ann, n_items * 10, p=p),
                        "toxicity": rng.integers(0, 2, n_items * 10)})
    ann = ann.drop_duplicates(["rev_id", "worker_id"], ignore_index=True)
    demo_ids = rng.choice(n_ann, int(0.83 * n_ann), replace=False)
    demo = pd.DataFrame({"gender": rng.choice(["male", "female", "other"], len(demo_ids)),
                         "age_group": rng.choice(["18-30", "30-45", "45-60", None], len(demo_ids)),
                         "education": rng.choice(["hs", "bachelors", "masters"], len(demo_ids))},
                        index=pd.Index(demo_ids, name="worker_id"))
    from aif360.datasets import BinaryLabelDataset
    from aif360_subjective.datasets import MultiAnnotatorDataset
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    if step == "aif360":
        df = ann.rename(columns={"toxicity": "label"}).astype(np.float64)
        ds = BinaryLabelDataset(df=df, label_names=["label"], protected_attribute_names=["worker_id"])
    else:
        ds = MultiAnnotatorDataset(ann, item_col="rev_id", annotator_col="worker_id", label_col="toxicity",
                                   annotators=demo, favorable_label=0, unfavorable_label=1)
        t_build = time.perf_counter() - t0
        if step == "split":
            t0 = time.perf_counter(); ds.split([0.8], shuffle=True, seed=0)
        elif step == "majority_vote":
            t0 = time.perf_counter(); ds.majority_vote()
    dt = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"rows": len(ann), "seconds": dt, "peak_mb": peak / 1024, "input_mb": base / 1024}))
""")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_600_000])
    args = parser.parse_args()
    print(f"{'rows':>10} {'step':<28} {'seconds':>8} {'peak MB':>8} {'of which input':>15}")
    for rows in args.rows:
        for step, label in [("aif360", "aif360 BinaryLabelDataset"), ("build", "MultiAnnotatorDataset"),
                            ("split", "  .split([0.8], by item)"), ("majority_vote", "  .majority_vote()")]:
            out = subprocess.run([sys.executable, "-c", STEP, str(rows), step], capture_output=True, text=True,
                                 check=True)
            r = json.loads(out.stdout.strip().splitlines()[-1])
            print(f"{r['rows']:>10,} {label:<28} {r['seconds']:>8.2f} {r['peak_mb']:>8.0f} {r['input_mb']:>15.0f}")


if __name__ == "__main__":
    main()
