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

The annotator family (``write-annotators``): the answers of
:func:`~aif360_subjective.opinion.excluded_groups` on POPQUORN, MultiPICo and HS-Brexit as ``aif360-subjective audit
DATA --model majority --ci none --discover`` computes them (the commands of the guide's "On real data": raw and
``--adjust items``, ``--balance none`` on POPQUORN, ``--min-annotators 3`` on HS-Brexit; skipped without the data
folder), and on simulated tables of ``benchmarks/excluded_groups.py`` (uniform and heavy-tailed counts, a planted
pair and a planted single attribute, an item-confounded group, ratings scored by MAE, the cross-fitted ADR, three
conditions, both balances, and a design of 7 annotators whose permutations are enumerated). For each it records
``findings()``, a digest of ``candidates()`` and of every candidate's members, the columns ``p_adjusted``,
``p_permutation`` and ``p_wild`` of every candidate, the critical values, the smallest p-value, the counts,
``summary()`` and ``sentence()``.

Usage::

    python benchmarks/restructure_equivalence.py write OUT.json [--discovery both asdf patterns]
    python benchmarks/restructure_equivalence.py write-annotators OUT.json [--no-real]
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

# the package first, from PYTHONPATH (the benchmarks' helpers put this checkout's root first on the path)
from aif360_subjective.detectors import detect_subgroups

sys.path.insert(0, str(Path(__file__).resolve().parent))

from slice_finders import OUR_METRIC, Setting, table_for  # noqa: E402

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


#: The real datasets and options of the annotator family: the guide's commands (plus --balance none on POPQUORN).
REAL_AUDITS = (
    ("popquorn", ()),
    ("popquorn", ("--adjust", "items")),
    ("popquorn", ("--balance", "none")),
    ("multipico", ()),
    ("multipico", ("--adjust", "items")),
    ("lewidi2023/HS-Brexit", ()),
    ("lewidi2023/HS-Brexit", ("--min-annotators", "3")),
)


def annotator_answers(ex: Any) -> dict[str, Any]:
    """What a user reads from one :class:`~aif360_subjective.opinion.ExcludedGroups` (see the module's docstring)."""
    cand = ex.candidates()
    members = [sorted(map(str, ex.members(i))) for i in cand.index]
    return {
        "findings": _frame(ex.findings()),
        "candidates_sha256": hashlib.sha256(json.dumps(_frame(cand), sort_keys=True).encode()).hexdigest(),
        "members_sha256": hashlib.sha256(json.dumps(members).encode()).hexdigest(),
        "n_candidates": len(cand),
        "p": {col: _plain(cand[col].tolist()) for col in ("p_adjusted", "p_permutation", "p_wild")},
        "interval": {col: _plain(cand[col].tolist()) for col in ("ci_low", "ci_high", "threshold")},
        "critical_value": _plain(ex.critical_value),
        "wild_critical_value": _plain(ex.wild_critical_value),
        "smallest_p": _plain(ex.smallest_p),
        "n_permutations": int(ex.n_permutations),
        "exact": bool(ex.exact),
        "counts": _plain(ex.counts),
        "summary": ex.summary(),
        "sentence": ex.sentence(),
    }


def _real_answers(folder: str, options: tuple[str, ...], data: Path) -> Any:
    """The discovery of ``aif360-subjective audit DATA --model majority --ci none --discover OPTIONS``, caught from
    the class face the command calls."""
    import contextlib
    import io

    from aif360_subjective.cli import main as cli_main
    from aif360_subjective.metrics import OpinionExclusionMetric

    caught: list[Any] = []
    face = OpinionExclusionMetric.excluded_groups

    def catching(self: Any, *args: Any, **kwargs: Any) -> Any:
        caught.append(face(self, *args, **kwargs))
        return caught[-1]

    OpinionExclusionMetric.excluded_groups = catching  # type: ignore[method-assign]
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            cli_main(["audit", str(data / folder), "--model", "majority", "--ci", "none", "--discover", *options])
    finally:
        OpinionExclusionMetric.excluded_groups = face  # type: ignore[method-assign]
    return caught[-1]


def _simulated() -> list[tuple[str, tuple[Any, ...], dict[str, Any]]]:
    """(name, data, options) of the simulated tables (``benchmarks/excluded_groups.py``'s generators). The
    permutations are passed as ``n_perm``, the name every commit since issue 29 accepts (deprecated since issue 39,
    whose warning ``write-annotators`` silences), so that the same script runs on older commits."""
    import excluded_groups as bench

    out: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []
    kw = {"n_annotators": 200, "n_items": 800}
    pair = bench.simulate(np.random.default_rng(1), counts="uniform", planted=bench.PLANTED, gap=0.1, **kw)
    heavy = bench.simulate(np.random.default_rng(2), counts="heavy", planted=bench.PLANTED_SINGLE, gap=0.08, **kw)
    batch = bench.simulate(np.random.default_rng(3), counts="uniform", batch="partial", **kw)
    ordinal = bench.simulate(np.random.default_rng(4), counts="heavy", ordinal=True, **kw)
    for balance in ("conditions", "none"):
        out.append((f"planted pair, uniform, balance={balance}", pair, {"balance": balance}))
        out.append((f"planted single, heavy, balance={balance}", heavy, {"balance": balance}))
    out.append(("planted pair, three conditions", pair, {"max_conditions": 3, "n_perm": 199}))
    out.append(("planted pair, adr", pair, {"attributes": ["gender", "education", "adr"], "n_perm": 199}))
    out.append(("heavy, adr, items", heavy, {"attributes": ["gender", "adr"], "adjust": "items", "n_perm": 199}))
    for adjust in ("none", "items"):
        out.append((f"item batch, adjust={adjust}", batch, {"adjust": adjust}))
    out.append(("ordinal, mae", ordinal, {"performance": "mae", "adjust": "items", "n_perm": 199}))
    out.append(("ordinal, within_one", ordinal, {"performance": "within_one", "n_perm": 199}))
    rng = np.random.default_rng(5)
    n = 7
    table = pd.DataFrame({"g": ["a", "a", "a", "b", "b", "b", "b"], "e": rng.choice(["u", "v"], n)},
                         index=pd.Index([f"a{i}" for i in range(n)], name="annotator"))
    who = np.repeat(np.arange(n), 40)
    item = np.concatenate([rng.choice(60, 40, replace=False) for _ in range(n)])
    y = rng.integers(0, 2, len(who))
    pred = np.where(rng.random(len(who)) < np.where(who < 3, 0.6, 0.85), y, 1 - y)
    small = (y, pred, item, table.index[who].to_numpy(), table)
    out.append(("7 annotators, enumerated", small, {"min_annotators": 3}))
    out.append(("7 annotators, enumerated, balance=none", small, {"min_annotators": 3, "balance": "none"}))
    return out


def write_annotators(path: Path, real: bool) -> None:
    """The answers of the annotator family (see the module's docstring) to ``path``."""
    import os

    import aif360_subjective
    from aif360_subjective.opinion import excluded_groups

    print(f"aif360_subjective from {Path(aif360_subjective.__file__).parent}", flush=True)
    warnings.simplefilter("ignore")
    logging.getLogger("aif360_subjective").setLevel(logging.ERROR)
    result: dict[str, Any] = {}
    start = time.perf_counter()
    data = Path(os.environ.get("AIF360_SUBJECTIVE_DATA", "~/aif360_subjective_data")).expanduser()
    if real and not data.is_dir():
        print(f"no data folder {data}: the real datasets are skipped")
        real = False
    for folder, options in REAL_AUDITS if real else ():
        ex = _real_answers(folder, options, data)
        name = f"audit {folder} --discover {' '.join(options)}".strip()
        result[name] = annotator_answers(ex)
        print(f"{name}: {len(ex.findings())} findings ({time.perf_counter() - start:.0f} s)", flush=True)
    for name, (y, pred, item, who, table), options in _simulated():
        ex = excluded_groups(y, pred, item_ids=item, annotator_ids=who, annotators=table, random_state=0, **options)
        result[name] = annotator_answers(ex)
        print(f"{name}: {len(ex.findings())} findings ({time.perf_counter() - start:.0f} s)", flush=True)
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
    n_rank = sum(len(r["rows"]) for v in a.values() for r in v.get("ranking", {}).values())
    n_cand = sum(v.get("n_candidates", 0) for v in a.values())
    print(f"{len(a)} analyses in {before}, {len(b)} in {after}; {n_rank} ranking rows, {n_cand} annotator "
          f"candidates and {n_find} findings compared")
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
    wa = sub.add_parser("write-annotators", help="write the answers of the annotator family to a JSON file")
    wa.add_argument("out", type=Path)
    wa.add_argument("--no-real", dest="real", action="store_false", help="skip the real datasets")
    c = sub.add_parser("compare", help="compare two JSON files written by 'write'")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    args = ap.parse_args(argv)
    if args.command == "write":
        write(args.out, args.discovery)
        return 0
    if args.command == "write-annotators":
        write_annotators(args.out, args.real)
        return 0
    return compare(args.before, args.after)


if __name__ == "__main__":
    sys.exit(main())
