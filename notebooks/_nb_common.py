"""What the generated notebooks share: the cell constructors, the data-folder cell and the data check."""

from __future__ import annotations

from nbformat.v4 import new_code_cell, new_markdown_cell

DATA_DIR = '''import os
from pathlib import Path

# The data folder: $AIF360_SUBJECTIVE_DATA, else ../shared/data beside the checkout, else ~/aif360_subjective_data.
candidates = [os.environ.get("AIF360_SUBJECTIVE_DATA"), "../../shared/data", "../shared/data",
              "~/aif360_subjective_data"]
DATA = next((Path(c).expanduser() for c in candidates if c and Path(c).expanduser().is_dir()), None)
print("data folder:", DATA)'''


def data_check(subdir: str, what: str, where: str, flag: str) -> str:
    """A cell that sets ``flag`` to whether ``DATA/subdir`` exists and otherwise says where to get it."""
    return f'''{flag} = DATA is not None and (DATA / "{subdir}").is_dir()
if not {flag}:
    print("{what} not found" + (f" in {{DATA}}" if DATA else "") + ": the real-data part below is skipped.")
    print("Get it from {where}, put the files in <data folder>/{subdir}/ and set AIF360_SUBJECTIVE_DATA "
          "to the data folder (see README.md, 'Data for tests and notebooks').")'''


def md(text: str):
    return new_markdown_cell(text.strip())


def code(text: str):
    return new_code_cell(text.strip())
