"""Reading your own observations from a CSV file: its encoding, its separator, its header
and its rows, every problem a one-line ``ValueError`` naming the file, the row and the option
that fixes it.  ``user_observations.load_observations_csv`` checks what is read."""
from __future__ import annotations

import csv
import errno
import io
import os
import stat
from contextlib import contextmanager
from pathlib import Path

import numpy as np


def to_float(value, where: str, column: str) -> float:
    if isinstance(value, str):
        s = value.strip()
        if s == "":
            raise ValueError(f"{where}: column {column!r} is empty (missing value)")
        try:
            v = float(s)
        except ValueError:
            raise ValueError(f"{where}: column {column!r} has a non-numeric value {value!r}") from None
    else:
        try:
            v = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"{where}: column {column!r} has a non-numeric value {value!r}") from None
    if not np.isfinite(v):
        raise ValueError(f"{where}: column {column!r} is {value!r} (NaN/inf); remove or fill this row")
    return v


ENCODINGS = ("utf-8-sig", "utf-16")
"""Encodings tried, in order, when none is given: UTF-8 (with or without byte-order mark), then
UTF-16 for a file that starts with its byte-order mark."""


def _reads_as_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


#: What a file that is not text is, by its first bytes, and what to do with it (``{}``: where the
#: file is a zip archive, what it holds).
BINARY_SIGNATURES = (
    (b"\x1f\x8b", "a gzip-compressed file: decompress it (gunzip) and name the CSV file"),
    (b"BZh", "a bzip2-compressed file: decompress it (bunzip2) and name the CSV file"),
    (b"\xfd7zXZ\x00", "an xz-compressed file: decompress it (unxz) and name the CSV file"),
    (b"PK\x03\x04", "{}"),
    (b"\xd0\xcf\x11\xe0", "an Excel 97-2003 (.xls) or other Office file: save it as CSV (File > Save As)"),
    (b"\x89PNG", "a PNG image, not a table of observations"),
    (b"\xff\xd8\xff", "a JPEG image, not a table of observations"),
    (b"%PDF", "a PDF document, not a table of observations"),
    (b"\x93NUMPY", "a NumPy .npy array: write it as CSV, or pass the arrays to observations_from_arrays"),
    (b"PAR1", "a Parquet file: write it as CSV (pandas: read_parquet, then to_csv)"),
    (b"\x89HDF", "an HDF5 file: write the table as CSV"))


def binary_kind(data: bytes) -> str | None:
    """What a file whose bytes are ``data`` is, and what to do, where its first bytes say it is
    not text (:data:`BINARY_SIGNATURES`); None for anything else."""
    for magic, what in BINARY_SIGNATURES:
        if data.startswith(magic) and (magic != b"BZh" or data[3:4].isdigit()):
            if what != "{}":
                return what
            head = data[:1 << 16]
            if b"xl/" in head or b"[Content_Types].xml" in head and b"sheet" in head:
                return "an Excel workbook (.xlsx): save it as CSV (File > Save As > CSV)"
            if b".npy" in head:
                return "a NumPy .npz archive: write its arrays as CSV, or pass them to observations_from_arrays"
            return "a zip archive: extract the CSV file from it and name that"
    return None


def decode_csv_bytes(data: bytes, encoding: str | None, source: str) -> tuple[str, str]:
    """(text, the encoding used) of a CSV file's bytes; ``encoding`` None: UTF-8, or UTF-16
    when the file starts with its byte-order mark.  A ValueError naming the file, line and
    byte, and the option that reads it, otherwise; a file that is not text at all (compressed,
    a spreadsheet, an image: :func:`binary_kind`) is named as what it is, whatever the encoding."""
    kind = binary_kind(data)
    if kind is not None:
        raise ValueError(f"{source}: not a CSV text file but {kind}")
    if encoding is None:
        encoding = "utf-16" if data[:2] in (b"\xff\xfe", b"\xfe\xff") else "utf-8-sig"
    try:
        return data.decode(encoding), encoding
    except UnicodeDecodeError as err:
        line = data[:err.start].count(b"\n") + 1
        if data[:2000].count(b"\x00") > len(data[:2000]) // 4:
            fix = "utf-16"  # every other byte zero: UTF-16 without byte-order mark
        elif encoding.replace("-", "").lower() not in ("utf8", "utf8sig") and _reads_as_utf8(data):
            fix = "utf-8"   # the default would have read it
        else:
            fix = "latin-1' or 'cp1252"
        raise ValueError(f"{source}: not readable as {encoding} text (byte 0x{data[err.start]:02x} on line {line}); "
                         f"give the file's encoding: --encoding '{fix}' (Python: encoding='{fix}')") from None
    except LookupError:
        raise ValueError(f"unknown encoding {encoding!r}: e.g. --encoding utf-8, latin-1, cp1252 or utf-16") from None


#: Field separators recognised in a header that does not split at the requested one.
OTHER_DELIMITERS = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}


def delimiter_arg(d: str) -> str:
    return "$'\\t'" if d == "\t" else repr(d)


def delimiter_hint(line: str, delimiter: str, wanted) -> str:
    """' (the file is ...-separated: --delimiter ...)' when the header splits into the wanted
    columns at another separator, else ''."""
    for d, name in OTHER_DELIMITERS.items():
        if d != delimiter and set(wanted) <= {c.strip() for c in line.split(d)}:
            return (f"; the header splits into them at {name}s ({line.strip()!r}): the file is "
                    f"{name}-separated, read it with --delimiter {delimiter_arg(d)} (Python: delimiter={d!r})")
    return ""


def detect_delimiter(text: str, wanted) -> str:
    """The separator (of ``OTHER_DELIMITERS``) at which the first header-like line splits into
    the ``wanted`` columns; "," if none does (the error then says what the header holds)."""
    line = next((ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")), "")
    for d in OTHER_DELIMITERS:
        if set(wanted) <= {c.strip() for c in line.split(d)}:
            return d
    return ","


def read_text(path_or_buffer, encoding: str | None) -> tuple[str, str, str | None]:
    """(text, source name, the encoding used) of a CSV file, a text buffer or a bytes buffer."""
    if hasattr(path_or_buffer, "read"):
        text = path_or_buffer.read()
        source = str(getattr(path_or_buffer, "name", "CSV buffer"))
        if isinstance(text, bytes):
            text, encoding = decode_csv_bytes(text, encoding, source)
        return text, source, encoding
    source = os.fspath(path_or_buffer)
    check_data_path(source)
    with open(source, "rb") as f:
        text, encoding = decode_csv_bytes(f.read(), encoding, str(source))
    return text, str(source), encoding


def check_data_path(path, what: str = "data file") -> str:
    """``path`` as a string if it names a regular file to read, else a one-line ValueError that
    says what it names: nothing (an empty name), a folder, a device (/dev/null), a pipe (a FIFO,
    or ``<(command)``: it can be read once only, and the data are read twice), or no file."""
    source = os.fspath(path)
    if not str(source).strip():
        raise ValueError(f"the {what} is named by an empty string (an unset shell variable?): name the CSV file")
    p = Path(source)
    try:
        mode = p.stat().st_mode
    except OSError as err:
        if not (p.exists() or p.is_symlink()):
            raise ValueError(f"{source}: no such file") from None
        if err.errno == errno.ELOOP:
            raise ValueError(f"{source}: a symbolic link that loops (it leads back to itself)") from None
        if p.is_symlink() and not os.path.exists(os.path.realpath(p)):
            raise ValueError(f"{source}: a symbolic link to {os.readlink(p)}, which does not exist") from None
        raise ValueError(f"{source}: cannot be read ({err.strerror or err})") from None
    if stat.S_ISDIR(mode):
        raise ValueError(f"{source} is a folder, not a {what}: name the CSV file inside it")
    if stat.S_ISFIFO(mode):
        raise ValueError(f"{source} is a pipe (a FIFO, or <(command)), not a {what}: it can be read only once; "
                         "write the data to a file and name that")
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        raise ValueError(f"{source} is a device, not a {what}: name the CSV file")
    if not stat.S_ISREG(mode):
        raise ValueError(f"{source} is not a regular file (a socket?), not a {what}: name the CSV file")
    try:
        with open(source, "rb"):     # readable by this user (a stat does not say)
            pass
    except OSError as err:
        raise ValueError(f"{source}: cannot be read ({err.strerror or err})") from None
    return source


def _data_line(row) -> bool:
    """A row that is neither empty nor a comment (``#``)."""
    return bool(row) and any(c.strip() for c in row) and not row[0].lstrip().startswith("#")


#: the ranges of characters column names are written in: ASCII and the Latin alphabets, Greek
#: and Cyrillic, super- and subscripts and letterlike symbols (units), the CJK ideographs
ORDINARY_TEXT = ((0x20, 0x250), (0x370, 0x530), (0x2070, 0x20A0), (0x2100, 0x2150), (0x4E00, 0xA000))


def garbled(header: list[str]) -> bool:
    """Whether a header line reads as text decoded in the wrong encoding: control characters or
    undecodable bytes (U+FFFD), or mostly characters outside :data:`ORDINARY_TEXT` (a UTF-8 file
    read as UTF-16 pairs its bytes into characters of scattered scripts)."""
    text = "".join(header)
    if any((ord(c) < 32 and c != "\t") or c == "\ufffd" for c in text):
        return True
    odd = sum(1 for c in text if not any(lo <= ord(c) < hi for lo, hi in ORDINARY_TEXT))
    return len(text) > 8 and odd > 0.5 * len(text)


def csv_rows(text: str, source: str, delimiter: str):
    """(first line, row) of every row of CSV ``text``; a one-line ValueError for a row that runs
    over several lines: a quote that opens a field and is not closed where the line ends (in a
    table of numbers, a stray quote), named with its line."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    last = 0
    for row in reader:
        first = last + 1
        if any("\n" in c or "\r" in c for c in row):     # read in newline="" mode: only a quoted field has one
            runs = f"to line {reader.line_num}" if reader.line_num > first else "to the end of the file"
            raise ValueError(f"{source}: line {first}: a quote (\") opens a field that is not closed on that line "
                             f"(the field runs {runs}): remove the stray quote or close it")
        last = reader.line_num
        yield first, row


def read_header(reader, source: str, wanted: dict, delimiter: str) -> dict:
    """{key: field index} of the ``wanted`` columns ({key: name}) in the first data line of
    ``reader`` (:func:`csv_rows`); a ValueError for a missing, misdelimited or repeated column."""
    roles = {}
    for k, c in wanted.items():
        if c in roles:
            raise ValueError(f"the column {c!r} is named for both {roles[c]} and {k}: name each role its own column "
                             "(--x, --t, --u, --replicate; Python: x=, t=, u=, replicate=)")
        roles[c] = k
    header = next(([c.strip() for c in row] for _, row in reader if _data_line(row)), None)
    if header is None:
        raise ValueError(f"{source}: empty file (no header line)")
    missing = [c for c in wanted.values() if c not in header]
    if missing:
        hint = delimiter_hint(delimiter.join(header), delimiter, wanted.values())
        if hint:
            raise ValueError(f"{source}: no column(s) {', '.join(map(repr, missing))} when split at "
                             f"{delimiter!r}{hint}")
        text = delimiter.join(header)
        if garbled(header):
            raise ValueError(f"{source}: the header line does not read as column names ({len(text)} characters, "
                             f"starting {text[:40]!r}): is the text encoding right? Most CSV files are UTF-8, "
                             "the default (--encoding; Python: encoding=)")
        shown = ", ".join(repr(h if len(h) <= 40 else h[:37] + "...") for h in header[:12]) + (
            f" and {len(header) - 12} more" if len(header) > 12 else "")
        raise ValueError(f"{source}: missing column(s) {', '.join(map(repr, missing))}; the header has "
                         f"{shown} (name yours with --x, --t, --u, --replicate; "
                         "Python: x=, t=, u=, replicate=)")
    for c in dict.fromkeys(wanted.values()):
        where = [i + 1 for i, h in enumerate(header) if h == c]
        if len(where) > 1:
            raise ValueError(f"{source}: the header names column {c!r} {len(where)} times (fields "
                             f"{', '.join(map(str, where))}): which one holds the data is ambiguous; rename the "
                             "others in the file")
    return {"n_fields": len(header), **{k: header.index(c) for k, c in wanted.items()}}


def read_rows(reader, source: str, wanted: dict, cols: dict) -> tuple[list, list, list, list, list]:
    """(x, t, u, replicate label, row name) of every data row after the header: numbers
    checked by :func:`to_float`, a replicate label "1" without a replicate column."""
    xs, ts, us, reps, where = [], [], [], [], []
    nrow = 0
    for line, row in reader:
        if not _data_line(row):
            continue
        nrow += 1
        short = f"row {nrow} (line {line})"
        w = f"{source}: {short}"
        if any(c.strip() for c in row[cols["n_fields"]:]):     # empty trailing fields (a last delimiter) are fine
            raise ValueError(f"{w}: {len(row)} fields where the header has {cols['n_fields']}: a value with the "
                             "delimiter in it (quote it) or a shifted row, so its columns cannot be trusted")
        vals = {}
        for k in wanted:
            if cols[k] >= len(row):
                raise ValueError(f"{w}: column {wanted[k]!r} is missing (the row has {len(row)} "
                                 f"field(s), the header {cols['n_fields']})")
            vals[k] = row[cols[k]]
        xs.append(to_float(vals["x"], w, wanted["x"]))
        ts.append(to_float(vals["t"], w, wanted["t"]))
        us.append(to_float(vals["u"], w, wanted["u"]))
        if "replicate" in wanted:
            r = vals["replicate"].strip()
            if r == "":
                raise ValueError(f"{w}: column {wanted['replicate']!r} is empty (missing replicate label)")
            reps.append(r)
        else:
            reps.append("1")
        where.append(short)
    return xs, ts, us, reps, where


#: the longest cell a CSV file may hold (csv's own default, 131,072 characters, refused a long
#: note in a column nobody asked for); the whole file is in memory anyway
CELL_LIMIT = 1 << 30


@contextmanager
def csv_cells(source: str):
    """Read a CSV file's cells inside: cells up to :data:`CELL_LIMIT` long, and a row the csv
    module cannot read a one-line ValueError naming ``source``."""
    old = csv.field_size_limit()
    csv.field_size_limit(max(old, CELL_LIMIT))
    try:
        yield
    except csv.Error as err:
        raise ValueError(f"{source}: not a readable CSV file: {err}") from None
    finally:
        csv.field_size_limit(old)


def read_long_csv(path_or_buffer, wanted: dict, delimiter: str | None, encoding: str | None):
    """(x, t, u, replicate labels, row names, source name, notes) of a long-format CSV file
    with the ``wanted`` columns ({"x": name, ...}); ``delimiter`` None: detected from the
    header (the notes say which), like an encoding other than UTF-8."""
    text, source, encoding = read_text(path_or_buffer, encoding)
    notes = []
    if delimiter is None:
        delimiter = detect_delimiter(text, wanted.values())
        if delimiter != ",":
            notes.append(f"detected: {OTHER_DELIMITERS[delimiter]}-separated (--delimiter "
                         f"{delimiter_arg(delimiter)} says so)")
    if encoding not in (None, "utf-8-sig"):
        notes.append(f"read as {encoding} text")
    reader = csv_rows(text, source, delimiter)
    with csv_cells(source):
        cols = read_header(reader, source, wanted, delimiter)
        return (*read_rows(reader, source, wanted, cols), source, notes)
