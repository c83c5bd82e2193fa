"""Downloading published data files: atomic writes and a format check.

Only the standard library is used (:mod:`urllib`), so downloading adds no dependency. A file is written to a
temporary name in its destination folder and renamed into place only once it is complete and has passed its
check, so an interrupted or wrong download never leaves a file that a loader would later take for the real
one.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

#: The function that opens URLs; tests replace it (the test suite never reaches the network).
urlopen: Callable[..., Any] = urllib.request.urlopen

#: Seconds to wait for the server before giving up.
DEFAULT_TIMEOUT = 60.0

_CHUNK = 1 << 20


def download_file(
    url: str,
    dest: str | os.PathLike[str],
    verify: Callable[[Path], None] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> Path:
    """Download ``url`` to ``dest`` atomically, optionally checking the file before it is put in place.

    Args:
        url: the address (``https://``, ``http://`` or ``file://``).
        dest: the final path of the file; its folder is created if needed.
        verify: called with the temporary file once fully written; it raises (``ValueError``) to reject the
            file, which is then deleted and ``dest`` left untouched.
        timeout: seconds to wait for the server.

    Returns:
        pathlib.Path: ``dest``.

    Raises:
        OSError: the download failed (``urllib.error.URLError`` is an ``OSError``); ``dest`` is untouched.
        ValueError: ``verify`` rejected the downloaded file.
    """
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".part", dir=dest.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out, urlopen(url, timeout=timeout) as response:
            shutil.copyfileobj(response, out, _CHUNK)
        if verify is not None:
            verify(tmp)
        os.replace(tmp, dest)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    logger.info("downloaded %s to %s (%d bytes)", url, dest, dest.stat().st_size)
    return dest


def read_json_url(url: str, timeout: float = DEFAULT_TIMEOUT) -> object:
    """Fetch and parse a JSON document (e.g. a figshare API listing).

    Args:
        url: the address.
        timeout: seconds to wait for the server.

    Returns:
        The parsed JSON value.
    """
    with urlopen(url, timeout=timeout) as response:
        return json.loads(response.read().decode("utf-8"))


def check_delimited_header(path: Path, columns: Sequence[str], sep: str = "\t") -> None:
    """Check that a delimited text file starts with exactly ``columns`` and has at least one data row.

    This catches the usual wrong downloads (an HTML error page, an empty or truncated file, another file of
    the release) without reading the whole file.

    Args:
        path: the file.
        columns: the expected header, in order.
        sep: the field separator.

    Raises:
        ValueError: the file is empty, is not UTF-8 text, has another header, or has no data row.
    """
    try:
        with open(path, encoding="utf-8", newline="") as f:
            header = f.readline()
            first_row = f.readline()
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path.name}: not UTF-8 text ({exc})") from None
    if not header:
        raise ValueError(f"{path.name}: the file is empty")
    found = [c.strip().strip('"') for c in header.rstrip("\r\n").split(sep)]
    if found != list(columns):
        raise ValueError(f"{path.name}: expected the header columns {list(columns)}, found {found[:12]}")
    if not first_row.strip():
        raise ValueError(f"{path.name}: the file has a header but no data row")
