"""Same answers before and after a restructure of the subgroup family: the answers of 16 tables as JSON, and a diff.

The 16 tables are those of the quick slice-finder comparison (``benchmarks/slice_finders.py --quick``): a planted
two- or three-condition conjunction with a statistical-parity shift of 0.2, one with an error-rate shift of 0.1, a
numeric region with a statistical-parity shift of 0.2, and a null table; seeds 0-3 each, 5,000 rows. On each, for
every ``discovery`` method, the script records what a user reads:

* the default ranking (``ranking(metric, kind=...)``, statistical parity for ``SP`` tables and accuracy error for
  ``ER`` tables) of every kind the report holds and of ``kind="all"``: the top 5 (ids, descriptions, sizes,
  values, intervals, adjusted p-values) and its counts (``attrs``);
* ``findings(0.05)``: every finding's metric, kind, id, description, direction, value, interval and adjusted p;
* ``discovery_summary()`` and a digest of ``subgroup_metrics(ci=0.95)`` (every value, interval, p and q).

Floats are written with ``repr`` (exact), so two runs are identical only when every answer is bit for bit the same.

Usage::

    python benchmarks/restructure_equivalence.py write OUT.json [--discovery both asdf patterns]
    python benchmarks/restructure_equivalence.py compare BEFORE.json AFTER.json

``write`` uses only the public API, so it runs on any commit: to compare with an older one, check it out
(``git worktree add /tmp/base <commit>``) and run this script with ``PYTHONPATH=/tmp/base``. ``compare`` prints
every difference and exits with 1 when there is one.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from slice_finders import OUR_METRIC, Setting, table_for  # noqa: E402

from aif360_subjective.detectors import detect_subgroups  # noqa: E402

SETTINGS = (Setting("conjunction", "SP", 0.2, 4), Setting("conjunction", "ER", 0.1, 4),
            Setting("region", "SP", 0.2, 4), Setting("null", "SP", 0.0, 4))
KINDS = {"asdf": ("cluster", "entropy"), "patterns": ("pattern",), "both": ("cluster", "entropy", "pattern")}


def _plain(v: Any) -> Any:
    """A JSON value that keeps a float exactly (its repr) and NaN/NA as a string."""
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_plain(x) for x in v]
    if v is None or v is pd.NA:
        return None
    if isinstance(v, bool | np.bool_):
        return bool(v)
    if isinstance(v, int | np.integer):
        return int(v)
    if isinstance(v, float | np.floating):
        return repr(float(v))
    return str(v)


def _frame(df: pd.DataFrame) -> dict[str, Any]:
    return {"index": _plain(df.index.tolist()), "columns": list(map(str, df.columns)),
            "rows": _plain(df.to_numpy(dtype=object).tolist()), "attrs": _plain(dict(df.attrs))}


def answers(rep: Any, metric: str, kinds: tuple[str, ...]) -> dict[str, Any]:
    """What a user reads from one report (see the module's docstring)."""
    out: dict[str, Any] = {"ranking": {}}
    for kind in (*kinds, "all"):
        out["ranking"][kind] = _frame(rep.ranking(metric, kind=kind))
    out["findings"] = _frame(rep.findings(0.05))
    out["discovery_summary"] = _frame(rep.discovery_summary())
    table = rep.subgroup_metrics(ci=0.95)
    out["subgroup_metrics_sha256"] = hashlib.sha256(
        json.dumps(_frame(table), sort_keys=True).encode()).hexdigest()
    return out


def write(path: Path, discoveries: list[str]) -> None:
    warnings.simplefilter("ignore")
    logging.getLogger("aif360_subjective").setLevel(logging.ERROR)
    result: dict[str, Any] = {}
    start = time.perf_counter()
    for setting in SETTINGS:
        for seed in range(setting.seeds):
            b = table_for(setting, seed)
            for d in discoveries:
                rep = detect_subgroups(b.X, b.y_true, b.y_pred, random_state=seed, discovery=d)
                result[f"{setting.name} | seed {seed} | {d}"] = answers(rep, OUR_METRIC[setting.outcome], KINDS[d])
                print(f"{setting.name} seed {seed} {d}: {len(rep.findings(0.05))} findings "
                      f"({time.perf_counter() - start:.0f} s)", flush=True)
    path.write_text(json.dumps(result, indent=1, sort_keys=True))
    print(f"wrote {len(result)} analyses to {path}")


def _diff(a: Any, b: Any, where: str, out: list[str]) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append(f"{where}/{k}: only in {'after' if k not in a else 'before'}")
            else:
                _diff(a[k], b[k], f"{where}/{k}", out)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _diff(x, y, f"{where}[{i}]", out)
    elif a != b:
        out.append(f"{where}: {a!r} != {b!r}")


def compare(before: Path, after: Path) -> int:
    a, b = json.loads(before.read_text()), json.loads(after.read_text())
    out: list[str] = []
    _diff(a, b, "", out)
    n_find = sum(len(v["findings"]["rows"]) for v in a.values())
    n_rank = sum(len(r["rows"]) for v in a.values() for r in v["ranking"].values())
    print(f"{len(a)} analyses in {before}, {len(b)} in {after}; {n_rank} ranking rows and {n_find} findings compared")
    for line in out[:200]:
        print(line)
    print("identical" if not out else f"{len(out)} differences")
    return 1 if out else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    w = sub.add_parser("write", help="write the answers of the 16 tables to a JSON file")
    w.add_argument("out", type=Path)
    w.add_argument("--discovery", nargs="+", choices=tuple(KINDS), default=list(KINDS))
    c = sub.add_parser("compare", help="compare two JSON files written by 'write'")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    args = ap.parse_args(argv)
    if args.command == "write":
        write(args.out, args.discovery)
        return 0
    return compare(args.before, args.after)


if __name__ == "__main__":
    sys.exit(main())
