"""The ``aif360-subjective`` command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def _demo(args: argparse.Namespace) -> int:
    from .datasets import make_subjective_dataset

    ds = make_subjective_dataset(random_state=args.seed)
    summary = ds.item_summary()
    kinds = ds.annotators["kind"].value_counts()
    print(f"Generated {len(ds.labels):,} annotations of {ds.n_items:,} items by {ds.n_annotators} annotators "
          f"({', '.join(f'{v} {k}' for k, v in kinds.items())}).")
    print(f"Mean agreement with the majority: {summary['agreement'].mean():.3f}; "
          f"unanimous items: {(summary['entropy'] == 0).mean():.1%}.")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the command line."""
    parser = argparse.ArgumentParser(prog="aif360-subjective", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="run the main job on generated data")
    demo.add_argument("--out", default="aif360_subjective_demo", help="output folder")
    demo.add_argument("--seed", type=int, default=0, help="seed of the generated data")
    demo.set_defaults(func=_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``aif360-subjective``."""
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
