"""Where published datasets are looked for."""

from __future__ import annotations

import os
from pathlib import Path

ENV_VAR = "AIF360_SUBJECTIVE_DATA"
DEFAULT_DIR = Path("~/aif360_subjective_data")


def data_root() -> Path:
    """The data folder: ``$AIF360_SUBJECTIVE_DATA``, else ``~/aif360_subjective_data``."""
    env = os.environ.get(ENV_VAR)
    return Path(env).expanduser() if env else DEFAULT_DIR.expanduser()


def resolve_data_dir(subdir: str, data_dir: str | os.PathLike[str] | None = None) -> Path:
    """Folder of one dataset: ``data_dir`` if given, else ``data_root() / subdir``.

    Args:
        subdir: the dataset's folder name inside the data folder (e.g. ``"wikipedia_talk"``).
        data_dir: an explicit folder, taken as is.

    Returns:
        pathlib.Path: the folder (it may not exist; loaders check their files).
    """
    if data_dir is not None:
        return Path(data_dir).expanduser()
    return data_root() / subdir
