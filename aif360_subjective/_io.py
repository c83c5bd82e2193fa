"""Output files written whole or not at all, and CSV cells that a spreadsheet cannot run.

Every file the package writes for the user (the HTML report, the command line's CSV files and figures) goes
through :func:`write_files`: each file is first written to a temporary file in its own folder, and only when
every file of the set is complete are they moved into place with :func:`os.replace` (an atomic rename on one
file system). A full disk, a missing permission or Ctrl-C while writing therefore leaves the earlier files as
they were, and no truncated or header-only file behind.

CSV cells are made inert for spreadsheets (:func:`neutralise_formulas`): a text cell starting with ``=``, ``+``,
``-``, ``@``, a tab or a carriage return is prefixed with a single quote, as the OWASP guidance on CSV injection
recommends, so that a group or worker name such as ``=HYPERLINK(...)`` is shown as text when the file is opened
in a spreadsheet. Numbers are never changed (a negative score stays a number), nor is text that is a plain
negative number (an id ``-5`` read as text stays ``-5``: a spreadsheet reads it as the number, never as a formula).

References:
    OWASP Foundation, "CSV Injection", https://owasp.org/www-community/attacks/CSV_Injection
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "FORMULA_PREFIXES",
    "WRITTEN",
    "OutputError",
    "escape_controls",
    "neutralise_formulas",
    "write_csv_files",
    "write_files",
    "write_text",
]

#: Every file written so far by :func:`write_files` in this process, in order (the command line reads it to say
#: truthfully, after an interruption, which output files are already complete).
WRITTEN: list[Path] = []

#: First characters that make a spreadsheet read a cell as a formula (OWASP, CSV injection).
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


#: A text cell that is a plain negative number (``-5``, ``-0.25``): a spreadsheet reads it as that number, never as
#: a formula, and shows it as written. (``+1`` keeps its quote: a spreadsheet would show it as ``1``.)
_PLAIN_NUMBER = r"-\d+(?:\.\d+)?"

#: Characters shown escaped on a console or in a figure: C0/C1 controls (ESC, BEL, CR, ...) and the bidirectional
#: overrides, which can reorder what a terminal shows.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def escape_controls(text: str, keep: str = "") -> str:
    """``text`` with control characters written as escapes (``\\x1b``): data printed to a terminal or drawn in a
    figure (group names, column names, ids) cannot move the cursor, change colours or retitle the window.

    Args:
        text: the text.
        keep: control characters left as they are (e.g. newlines and tabs of a console table).
    """

    def escape(m: re.Match[str]) -> str:
        c: str = m.group(0)
        if c in keep:
            return c
        return f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}"

    return _CONTROL.sub(escape, text)


class OutputError(OSError):
    """A file of the output could not be written; no file of the set was changed."""


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _is_special(path: Path) -> bool:
    """An existing target that is not a regular file (``/dev/null``, ``/dev/full``, a FIFO): written in place,
    since renaming a temporary file over a device would replace the device."""
    try:
        return not stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return False


def _payload(content: str | bytes) -> bytes:
    return content.encode("utf-8") if isinstance(content, str) else bytes(content)


def write_files(files: Mapping[str | Path, str | bytes]) -> list[Path]:
    """Write a set of files all at once: every one complete, or none changed.

    Text is written as UTF-8. A missing folder is created (and removed again if the write fails).

    Args:
        files: path -> content (str or bytes).

    Returns:
        list[Path]: the paths written, in the order given.

    Raises:
        OutputError: a file could not be written (full disk, no permission, ...): the message names the file,
            and every file of the set keeps its earlier content (or stays absent).
        KeyboardInterrupt: Ctrl-C (or any other exception) while writing: likewise, every file of the set keeps
            its earlier content, also when the interruption falls between two renames (the files already
            renamed are put back).
    """
    targets = [(Path(p), _payload(c)) for p, c in files.items()]
    created: list[Path] = []
    temps: list[tuple[Path, Path]] = []
    mode = 0o666 & ~_umask()
    current: Path | None = None
    replaced = 0
    backups: list[tuple[Path, Path, Path | None]] = []  # (temporary file, target, its earlier file's 2nd name)
    try:
        for path, data in targets:
            current = path
            parent = path.parent
            if not parent.exists():
                missing = [q for q in [parent, *parent.parents] if not q.exists()]
                parent.mkdir(parents=True, exist_ok=True)
                created.extend(missing)  # innermost first: removed in that order on failure
            if _is_special(path):
                temps.append((path, path))
                continue
            fd, name = tempfile.mkstemp(dir=parent, prefix=f".{path.name}.", suffix=".part")
            temps.append((Path(name), path))
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(name, mode)
        # every file is complete: only renames (atomic, within one folder) are left. Each earlier file is kept
        # under a second name until the whole set is in place, so that an interruption between two renames
        # (Ctrl-C, SIGTERM) puts the earlier files back instead of leaving a mix of new and old ones
        for (part, path), (_, data) in zip(temps, targets, strict=True):
            current = path
            if part == path:  # a device: no rename possible, nothing to put back
                with open(path, "wb") as fh:
                    fh.write(data)
                replaced += 1
                continue
            backups.append((part, path, _keep_earlier(path)))
            os.replace(part, path)
            replaced += 1
        for _, _, kept_as in backups:
            if kept_as is not None:
                with contextlib.suppress(OSError):
                    kept_as.unlink()
        written = [p for p, _ in targets]
        WRITTEN.extend(written)
        return written
    except BaseException as exc:  # Ctrl-C included: no temporary file and no new empty folder left behind
        restored = _restore(backups)  # first: a temporary file still present tells a rename not done
        for part, path in temps:
            if part != path:
                with contextlib.suppress(OSError):
                    part.unlink()
        if not replaced or restored:
            for folder in created:
                with contextlib.suppress(OSError):
                    folder.rmdir()
        if isinstance(exc, OSError) and not isinstance(exc, OutputError):
            reason = exc.strerror or str(exc)
            kept = ("no output file was changed" if not replaced or restored
                    else f"{replaced} of {len(targets)} files were already replaced")
            raise OutputError(exc.errno, f"cannot write {current}: {reason}; {kept}") from exc
        raise


def _keep_earlier(path: Path) -> Path | None:
    """A second name (hard link, else a copy) for the existing file ``path``, or None when there is none."""
    if not path.is_file():
        return None
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".earlier")
    os.close(fd)
    os.unlink(name)
    try:
        os.link(path, name)
    except OSError:  # no hard links on this file system: a copy
        shutil.copy2(path, name)
    return Path(name)


def _restore(backups: list[tuple[Path, Path, Path | None]]) -> bool:
    """Undo the renames done: put back each earlier file (or remove the new file where there was none); a
    temporary file still present was not renamed, and only its target's second name is removed. True when
    every target holds its earlier content again."""
    ok = True
    for part, path, kept_as in backups:
        try:
            if part.exists():  # not renamed: the target is untouched
                if kept_as is not None:
                    kept_as.unlink()
            elif kept_as is not None:
                os.replace(kept_as, path)
            else:
                path.unlink()
        except OSError:
            ok = False
    return ok


def write_text(path: str | Path, text: str) -> Path:
    """Write one text file (UTF-8) atomically (see :func:`write_files`).

    Raises:
        OutputError: the file could not be written; its earlier content is kept.
    """
    return write_files({path: text})[0]


def _neutralise_values(values: np.ndarray) -> np.ndarray:
    out = values.astype(object, copy=True)
    text = np.array([isinstance(v, str) for v in out], dtype=bool) if out.size else np.zeros(0, dtype=bool)
    if text.any():
        strings = pd.Series(out[text], dtype=object)
        # a text cell that is a plain negative number ("-5": an id read as text) runs nothing: kept as written
        risky = (strings.str.startswith(FORMULA_PREFIXES) & ~strings.str.fullmatch(_PLAIN_NUMBER)).to_numpy(
            dtype=bool)
        if risky.any():
            idx = np.flatnonzero(text)[risky]
            out[idx] = ("'" + strings[risky]).to_numpy(dtype=object)
    return out


def _neutralise_index(index: pd.Index) -> pd.Index:
    if isinstance(index, pd.MultiIndex):
        return pd.MultiIndex.from_arrays([_neutralise_index(index.get_level_values(i)) for i in range(index.nlevels)],
                                         names=index.names)
    if pd.api.types.is_numeric_dtype(index) or pd.api.types.is_bool_dtype(index):
        return index
    out: pd.Index = pd.Index(_neutralise_values(index.to_numpy(dtype=object)), name=index.name, dtype=object)
    return out


def neutralise_formulas(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` whose text cells cannot be run as spreadsheet formulas.

    Text cells (column values, index values and column names) starting with one of :data:`FORMULA_PREFIXES` get a
    leading single quote (``=1+1`` -> ``'=1+1``), the OWASP recommendation; numbers, booleans, missing values and
    text that is a plain negative number (``-5``, ``-0.25``) are left as they are.

    Args:
        frame: the table to write.

    Returns:
        pandas.DataFrame: the neutralised copy (``frame`` itself is not changed).

    References:
        OWASP Foundation, "CSV Injection".
    """
    out = frame.copy()
    for j in range(out.shape[1]):
        col = out.iloc[:, j]
        if pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
            continue
        out.isetitem(j, _neutralise_values(col.to_numpy(dtype=object)))
    out.index = _neutralise_index(out.index)
    out.columns = _neutralise_index(out.columns)
    return out


def write_csv_files(frames: Mapping[str | Path, pd.DataFrame], **to_csv: Any) -> list[Path]:
    """Write tables as CSV files, formulas neutralised (:func:`neutralise_formulas`), as one set
    (:func:`write_files`).

    Args:
        frames: path -> table.
        **to_csv: keyword arguments of :meth:`pandas.DataFrame.to_csv` (e.g. ``index=False``).

    Returns:
        list[Path]: the paths written.

    Raises:
        OutputError: a file could not be written; no file of the set was changed.
    """
    return write_files({p: neutralise_formulas(f).to_csv(**to_csv) for p, f in frames.items()})
