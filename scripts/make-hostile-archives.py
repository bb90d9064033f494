#!/usr/bin/env python3
"""Regenerates tests/fixtures/archives/: the hostile-archive corpus (security-cases §3.1, §3.4;
package-format §8.6 ZIP-1…ZIP-10) and its index, cases.json.

Every archive is a small valid package (the minimal fixture with namespace `acme` and id `pkg`,
plus README.md, selector.md and agents/worker/system.md), either at the archive root or in the
`acme/pkg/` wrapper, plus exactly one hostile element. Names are tested in root layout, so the
only thing that can make the reader refuse is the hostile name itself.

ZIP bytes are written by hand (local file headers, central directory, end record) so that the
archive can lie: duplicates, LFH/CD mismatches, overlaps, gaps, trailing data, bad CRCs, wrong
sizes, links, encryption flags, odd methods, ZIP64 markers, non-UTF-8 names, data descriptors.
Only one fixture (`python-zipfile-*`) comes from Python's zipfile, as an independent writer.

cases.json lists, for each file: `verdict` ("refused", "accepted", or "accepted-by-reader" for
content the reader passes on and package validation/installation must refuse), `entry` (the
entry name the error message must mention, as the reader displays it, or null), `message` (when
no entry is at fault: a phrase the message must contain), the security-cases `row`, a `description`, and `known_bug` when the reader currently disagrees with
the expected verdict (tests/it/archives.rs then checks that it still does, so a fix is noticed).

Stdlib only. Usage: python3 scripts/make-hostile-archives.py && cargo test --test it archives
"""
import io
import json
import os
import random
import shutil
import struct
import zipfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..")
OUT = os.path.join(REPO, "tests", "fixtures", "archives")

DOS_DATE = (1 << 5) | 1  # 1980-01-01
UNIX_MADE_BY = (3 << 8) | 20
DOS_MADE_BY = 20
REGULAR = 0o100644 << 16
UTF8 = 1 << 11
DESCRIPTOR = 1 << 3
STORED, DEFLATE = 0, 8

MIB = 1024 * 1024


def manifest():
    with open(os.path.join(REPO, "registry-fixtures", "valid", "minimal", "expert-squad.jsonc"),
              "rb") as handle:
        text = handle.read()
    assert b'"namespace": "acme"' in text and b'"id": "minimal-squad"' in text
    return text.replace(b'"id": "minimal-squad"', b'"id": "pkg"')


MANIFEST = manifest()


def package(prefix=""):
    """The minimal package's files, under `prefix` (e.g. `acme/pkg/`)."""
    return [
        (prefix + "expert-squad.jsonc", MANIFEST),
        (prefix + "README.md", b"# R\n"),
        (prefix + "agents/worker/system.md", b"W\n"),
        (prefix + "selector.md", b"S\n"),
    ]


WRAPPED = "acme/pkg/"


def deflate(data):
    compressor = zlib.compressobj(6, zlib.DEFLATED, -15)
    return compressor.compress(data) + compressor.flush()


def as_bytes(name):
    return name if isinstance(name, bytes) else name.encode("utf-8")


class Zip:
    """A ZIP byte builder. `add` writes a local record and queues its central record; every
    field of either can be overridden to make the two disagree."""

    def __init__(self):
        self.body = bytearray()
        self.records = []

    def raw(self, data):
        self.body += data

    def add(self, name, content, method=None, *, made_by=UNIX_MADE_BY, external=REGULAR,
            flags=None, crc=None, size=None, compressed_size=None, extra=b"",
            local=None, central=None, descriptor=None, in_central=True):
        """`local` / `central`: dicts overriding fields of one header only (name, flags, method,
        crc, csize, size, extra, offset). `descriptor`: None, or "signed"/"unsigned" to write a
        data descriptor (bit 3), or a dict overriding its fields."""
        name = as_bytes(name)
        if method is None:
            method = DEFLATE if len(deflate(content)) < len(content) else STORED
        data = deflate(content) if method == DEFLATE else content
        if flags is None:
            flags = 0
            try:
                name.decode("ascii")
            except UnicodeDecodeError:
                flags |= UTF8
            if descriptor is not None:
                flags |= DESCRIPTOR
        fields = {
            "name": name, "flags": flags, "method": method,
            "crc": zlib.crc32(content) if crc is None else crc,
            "csize": len(data) if compressed_size is None else compressed_size,
            "size": len(content) if size is None else size,
            "extra": extra, "offset": len(self.body),
        }
        lfh = dict(fields, **(local or {}))
        if flags & DESCRIPTOR and not (local and "crc" in local):
            lfh.update(crc=0, csize=0, size=0)
        self.body += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, lfh["flags"], lfh["method"], 0,
                                 DOS_DATE, lfh["crc"], lfh["csize"], lfh["size"],
                                 len(lfh["name"]), len(lfh["extra"]))
        self.body += lfh["name"] + lfh["extra"] + data
        if descriptor is not None:
            values = {"crc": fields["crc"], "csize": fields["csize"], "size": fields["size"]}
            signed = True
            if isinstance(descriptor, dict):
                values.update(descriptor)
                signed = descriptor.get("signed", True)
            elif descriptor == "unsigned":
                signed = False
            if signed:
                self.body += struct.pack("<I", 0x08074B50)
            self.body += struct.pack("<III", values["crc"], values["csize"], values["size"])
        record = dict(fields, made_by=made_by, external=external, comment=b"",
                      **(central or {}))
        if in_central:
            self.records.append(record)
        return record

    def central(self, record):
        self.records.append(record)

    def finish(self, *, comment=b"", count=None, suffix=b"", prefix=b"", shift=0,
               eocd=None, eocd_delta=None):
        """`prefix` is prepended; `shift` is added to every stored offset (a self-extractor
        that fixed its offsets uses shift == len(prefix))."""
        cd = bytearray()
        for r in self.records:
            cd += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, r["made_by"], 20, r["flags"],
                              r["method"], 0, DOS_DATE, r["crc"], r["csize"], r["size"],
                              len(r["name"]), len(r["extra"]), len(r["comment"]), 0, 0,
                              r["external"], r["offset"] + shift)
            cd += r["name"] + r["extra"] + r["comment"]
        n = len(self.records) if count is None else count
        end = {"disk": 0, "cd_disk": 0, "on_disk": n, "total": n, "cd_size": len(cd),
               "cd_offset": len(self.body) + shift}
        end.update(eocd or {})
        for key, delta in (eocd_delta or {}).items():
            end[key] += delta
        tail = struct.pack("<IHHHHIIH", 0x06054B50, end["disk"], end["cd_disk"], end["on_disk"],
                           end["total"], end["cd_size"], end["cd_offset"], len(comment))
        return prefix + bytes(self.body) + bytes(cd) + tail + comment + suffix


def archive(files, **finish):
    z = Zip()
    for name, content in files:
        z.add(name, content)
    return z.finish(**finish)


CASES = []


NOT_A_ZIP = "not a valid ZIP archive"
NO_EOCD = "no end-of-central-directory record at the end"
NO_LAYOUT = "must contain expert-squad.jsonc at its root or inside <namespace>/<id>/"

# What the message must say when no single entry is at fault (`entry` is null).
MESSAGES = {
    "total-over-16mib.zip": "total limit",
    "entries-513.zip": "more than the limit of 512",
    "entries-513-with-directories.zip": "more than the limit of 512",
    "truncated-at-4.zip": NOT_A_ZIP,
    "truncated-at-30.zip": NO_EOCD,
    "truncated-half.zip": NO_EOCD,
    "truncated-before-cd.zip": NO_EOCD,
    "truncated-minus-22.zip": NO_EOCD,
    "truncated-minus-1.zip": NO_EOCD,
    "empty-file.zip": NOT_A_ZIP,
    "random-garbage.zip": NO_EOCD,
    "garbage-with-eocd.zip": "damaged central directory",
    "empty-zip.zip": "no files found",
    "only-directories.zip": "no files found",
    "trailing-data.zip": NO_EOCD,
    "eocd-comment.zip": NO_EOCD,
    "zip-in-comment.zip": NOT_A_ZIP,
    "prepended-data-unadjusted.zip": NOT_A_ZIP,
    "gap-before-cd.zip": "data between the last entry and the central directory",
    "eocd-count-too-small.zip": NOT_A_ZIP,
    "eocd-count-too-large.zip": NOT_A_ZIP,
    "eocd-disk-counts-differ.zip": "multi-disk",
    "multi-disk.zip": "multi-disk",
    "eocd-cd-offset-wrong.zip": NOT_A_ZIP,
    "zip64-end-record.zip": "ZIP64",
    "layout-no-manifest.zip": NO_LAYOUT,
    "layout-single-wrapper.zip": "wrapper `pkg/` is not supported",
    "layout-wrapper-mismatch.zip": "wrapper `acme/other/` must match the manifest",
    "layout-namespace-mismatch.zip": "wrapper `evil/pkg/` must match the manifest",
    "layout-two-wrappers.zip": NO_LAYOUT,
    "layout-three-levels.zip": NO_LAYOUT,
    "layout-manifest-deeper.zip": NO_LAYOUT,
}


def case(file, verdict, entry, row, description, data, known_bug=None):
    assert verdict in ("refused", "accepted", "accepted-by-reader")
    assert file.endswith(".zip") and all(c["file"] != file for c in CASES), file
    item = {"file": file, "verdict": verdict, "entry": entry, "row": str(row),
            "description": description}
    if file in MESSAGES:
        assert verdict == "refused" and entry is None, file
        item["message"] = MESSAGES[file]
    assert verdict != "refused" or entry is not None or file in MESSAGES, file
    if known_bug:
        item["known_bug"] = known_bug
    CASES.append(item)
    with open(os.path.join(OUT, file), "wb") as handle:
        handle.write(data)


def escaped(name):
    """How `squad::text::remote` shows a name (what the reader prints for control and format
    characters)."""
    out = []
    for c in name:
        if c == "\n":
            out.append("\\n")
        elif c == "\t":
            out.append("\\t")
        elif c == "\r":
            out.append("\\r")
        elif ord(c) < 0x20 or ord(c) == 0x7F or c in "\u202e\u200b":
            out.append("\\u{%x}" % ord(c))
        else:
            out.append(c)
    return "".join(out)


def hostile_name(file, row, name, description, content=b"x", entry=None, known_bug=None,
                 verdict="refused"):
    """A root-layout package plus one entry with a hostile name."""
    shown = entry if entry is not None else name
    case(file, verdict, shown if verdict == "refused" else None, row, description,
         archive(package() + [(name, content)]), known_bug)


def build():
    # ---- Accepted: the layouts and writers the reader must take (ZIP-5, §3.4 #42/#43). ----
    case("ok-root-layout.zip", "accepted", None, 42,
         "root layout: expert-squad.jsonc at the archive root", archive(package()))
    case("ok-wrapper-layout.zip", "accepted", None, 43,
         "acme/pkg/ wrapper matching the manifest's namespace and id", archive(package(WRAPPED)))
    dirs = Zip()
    for d in ["acme/", "acme/pkg/", "acme/pkg/agents/", "acme/pkg/agents/worker/"]:
        dirs.add(d, b"", STORED, external=(0o040755 << 16) | 0x10)
    for name, content in package(WRAPPED):
        dirs.add(name, content)
    case("ok-directory-entries.zip", "accepted", None, 43,
         "wrapper layout with explicit directory entries, as Info-ZIP writes them", dirs.finish())
    z = Zip()
    for name, content in package(WRAPPED):
        z.add(name, content, descriptor="signed")
    case("ok-data-descriptor-signed.zip", "accepted", None, 24,
         "every entry uses a data descriptor (bit 3, with signature) that agrees with the "
         "central directory", z.finish())
    z = Zip()
    for name, content in package(WRAPPED):
        z.add(name, content, descriptor="unsigned")
    case("ok-data-descriptor-unsigned.zip", "accepted", None, 24,
         "data descriptors without the optional signature, agreeing with the central directory",
         z.finish())
    z = Zip()
    for name, content in package(WRAPPED):
        # zip.js style: MS-DOS host, UTF-8 flag, extended-timestamp extra field, descriptors.
        timestamp = struct.pack("<HHBI", 0x5455, 5, 1, 315532800)
        z.add(name, content, made_by=DOS_MADE_BY, external=0, flags=UTF8 | DESCRIPTOR,
              extra=timestamp, descriptor="signed")
    case("ok-zipjs-like.zip", "accepted", None, 24,
         "zip.js-like output: MS-DOS host, bit 11 always set, extended-timestamp extra field, "
         "signed data descriptors", z.finish())
    for label, compression in [("stored", zipfile.ZIP_STORED), ("deflated", zipfile.ZIP_DEFLATED)]:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", compression) as writer:
            for name, content in package(WRAPPED):
                # A ZipInfo only to pin the date; the mode is what writestr(str, ...) sets.
                info = zipfile.ZipInfo(name, (2026, 1, 1, 0, 0, 0))
                info.external_attr = 0o600 << 16
                writer.writestr(info, content, compress_type=compression)
        default = " (default settings)" if compression == zipfile.ZIP_STORED else ""
        case(f"ok-python-zipfile-{label}.zip", "accepted", None, 43,
             f"written by Python's zipfile, {label}{default}", buffer.getvalue())
    z = Zip()
    records = [z.add(name, content, in_central=False) for name, content in package(WRAPPED)]
    for record in reversed(records):
        z.central(record)
    case("ok-central-directory-reordered.zip", "accepted", None, 24,
         "central directory lists the entries in the reverse of their local order (records still "
         "tile the archive)", z.finish())
    z = Zip()
    for name, content in package(WRAPPED):
        z.add(name, content, flags=0)
    z.add("acme/pkg/agents/worker/\u03b2.md", b"beta\n", flags=0)
    case("ok-utf8-name-without-bit11.zip", "accepted", None, 17,
         "a valid UTF-8 non-ASCII name with general-purpose bit 11 unset (older writers); the "
         "reference exporter's names must import", z.finish())
    case("ok-depth-32.zip", "accepted", None, 9, "a path of exactly 32 segments (the limit)",
         archive(package() + [("d/" * 31 + "x.md", b"x")]))
    case("ok-512-entries.zip", "accepted", None, 9, "exactly 512 entries (the limit)",
         archive(package() + [(f"f/{i:03}.md", b"") for i in range(508)]))
    case("ok-component-255-bytes.zip", "accepted", None, 14,
         "a 255-byte path component (the limit), in 84 characters so the path stays under 240",
         archive(package() + [("\u20ac" * 84 + ".md", b"x")]))

    # ---- #25: runtime-internal names pass the reader; validation/installation refuses. ----
    case("runtime-meta-json.zip", "accepted-by-reader", None, 25,
         "acme/pkg/.opencorvus-meta.json inside the package: the reader checks structure and "
         "names only; package validation (ROOT-3, VAL-2) and installation must refuse it",
         archive(package(WRAPPED) + [(WRAPPED + ".opencorvus-meta.json", b"{}\n")]))
    case("runtime-directory.zip", "accepted-by-reader", None, 25,
         "acme/pkg/skills/x/runtime/a.md: a runtime-internal directory (FBD-2); the reader passes "
         "it on, package validation and installation must refuse it",
         archive(package(WRAPPED) + [(WRAPPED + "skills/x/runtime/a.md", b"a\n")]))

    # ---- Names (#1-4, #9, #11-17), root layout: only the name can be at fault. ----
    hostile_name("dotdot.zip", 1, "../evil", "Zip Slip: `../evil`")
    hostile_name("dotdot-nested.zip", 1, "a/../../evil", "Zip Slip: `a/../../evil`")
    hostile_name("dot-segment.zip", 1, "./a.md", "a `.` segment")
    hostile_name("empty-segment.zip", 1, "a//b.md", "an empty segment")
    hostile_name("empty-name.zip", 1, "", "an empty entry name")
    hostile_name("absolute.zip", 2, "/etc/x", "absolute name `/etc/x`")
    hostile_name("absolute-unc.zip", 2, "//server/share/x", "UNC-like `//server/share/x`")
    hostile_name("drive-backslash.zip", 3, "C:\\x", "drive path `C:\\x`")
    hostile_name("drive-relative.zip", 3, "C:x", "drive-relative `C:x`")
    hostile_name("drive-dotdot.zip", 3, "c:../x", "drive-relative traversal `c:../x`")
    hostile_name("drive-forward-slash.zip", 3, "C:/x", "drive path `C:/x`")
    hostile_name("unc-long.zip", 3, "\\\\?\\C:\\x", "Windows long-path prefix `\\\\?\\C:\\x`")
    hostile_name("colon.zip", 3, "a:b.md", "a colon (NTFS alternate data stream)")
    hostile_name("backslash-traversal.zip", 4, "a\\..\\..\\x", "backslashes `a\\..\\..\\x`")
    hostile_name("backslash.zip", 4, "agents\\worker\\x.md", "a backslash separator")
    hostile_name("depth-33.zip", 9, "d/" * 32 + "x.md", "a path of 33 segments")
    case("case-collision.zip", "refused", "skill.md", 11, "`Skill.md` + `skill.md`",
         archive(package() + [("Skill.md", b"a"), ("skill.md", b"b")]))
    case("case-collision-sharp-s.zip", "refused", "STRASSE.md", 11,
         "`Stra\u00dfe.md` + `STRASSE.md`: equal under full Unicode case folding",
         archive(package() + [("Stra\u00dfe.md", b"a"), ("STRASSE.md", b"b")]))
    case("case-collision-directory.zip", "refused", "docs/b.md", 11,
         "`Docs/a.md` + `docs/b.md`: two directories that differ only by case (one directory on "
         "a case-insensitive filesystem; PATH-S folds every directory too)",
         archive(package() + [("Docs/a.md", b"a"), ("docs/b.md", b"b")]))
    case("case-collision-file-directory.zip", "refused", "A", 13,
         "file `A` + `a/b` (file/directory collision under case folding)",
         archive(package() + [("A", b"a"), ("a/b", b"b")]))
    hostile_name("nfd.zip", 12, "e\u0301.md", "an NFD name `e\\u0301.md`")
    case("nfc-nfd-pair.zip", "refused", "e\u0301.md", 12, "`\u00e9.md` (NFC) + `e\u0301.md` (NFD)",
         archive(package() + [("\u00e9.md", b"a"), ("e\u0301.md", b"b")]))
    case("file-and-directory.zip", "refused", "a", 13, "file `a` + file `a/b`",
         archive(package() + [("a", b"a"), ("a/b", b"b")]))
    dup_dir = Zip()
    for name, content in package():
        dup_dir.add(name, content)
    dup_dir.add("a", b"a")
    dup_dir.add("a/", b"", STORED, external=(0o040755 << 16) | 0x10)
    case("file-and-directory-entry.zip", "refused", "a/", 13,
         "file `a` + directory entry `a/`", dup_dir.finish())
    case("component-256-bytes.zip", "refused", "x" * 253 + ".md", 14,
         "a 256-byte path component", archive(package() + [("x" * 253 + ".md", b"x")]))
    long_path = "docs/" + "a" * 233 + ".md"
    case("path-241-chars.zip", "refused", long_path, 14,
         "a 241-character package-relative path", archive(package() + [(long_path, b"x")]))
    hostile_name("reserved-con.zip", 15, "CON", "Windows device name `CON`")
    hostile_name("reserved-nul-md.zip", 15, "nul.md", "Windows device name `nul.md`")
    hostile_name("reserved-com1-txt.zip", 15, "com1.txt", "Windows device name `com1.txt`")
    hostile_name("reserved-in-directory.zip", 15, "aux/x.md", "Windows device name as a directory")
    hostile_name("trailing-dot.zip", 15, "x.", "trailing dot `x.`")
    hostile_name("trailing-space.zip", 15, "x.md ", "trailing space `x.md `")
    hostile_name("trailing-space-directory.zip", 15, "d /x.md", "directory with a trailing space")
    hostile_name("short-name-8dot3.zip", 15, "PROGRA~1/x.md",
                 "8.3 short-name form `PROGRA~1`")
    hostile_name("control-newline.zip", 16, "a\nb.md", "newline in a name",
                 entry=escaped("a\nb.md"))
    hostile_name("control-nul.zip", 16, "a\0b.md", "NUL in a name", entry=escaped("a\0b.md"))
    hostile_name("control-bel.zip", 16, "a\u0007b.md", "BEL in a name",
                 entry=escaped("a\u0007b.md"))
    hostile_name("control-del.zip", 16, "a\u007fb.md", "DEL in a name",
                 entry=escaped("a\u007fb.md"))
    hostile_name("format-rlo.zip", 16, "a\u202egpj.md", "RIGHT-TO-LEFT OVERRIDE in a name",
                 entry=escaped("a\u202egpj.md"))
    hostile_name("format-zwsp.zip", 16, "a\u200bb.md", "ZERO WIDTH SPACE in a name",
                 entry=escaped("a\u200bb.md"))
    z = Zip()
    for name, content in package():
        z.add(name, content)
    z.add(b"caf\x82.md", b"x", flags=0)
    case("cp437-name.zip", "refused", "caf\ufffd.md", 17,
         "CP437 name `caf\\x82.md` (not UTF-8), bit 11 unset", z.finish())
    z = Zip()
    for name, content in package():
        z.add(name, content)
    z.add(b"caf\x82.md", b"x", flags=UTF8)
    case("invalid-utf8-name-bit11.zip", "refused", "caf\ufffd.md", 17,
         "invalid UTF-8 name although bit 11 claims UTF-8", z.finish())

    # ---- Entry types (#5), encryption (#19), methods (#20). ----
    def with_entry(file, row, description, entry, name, content, **kwargs):
        z = Zip()
        for n, c in package(WRAPPED):
            z.add(n, c)
        z.add(name, content, **kwargs)
        case(file, "refused", entry, row, description, z.finish())

    with_entry("symlink.zip", 5, "symlink entry (Unix mode 0o120777) to ../../../etc/passwd",
               WRAPPED + "link", WRAPPED + "link", b"../../../etc/passwd", method=STORED,
               external=0o120777 << 16)
    z = Zip()
    for n, c in package(WRAPPED):
        z.add(n, c)
    z.add(WRAPPED + "docs", b"/tmp", STORED, external=0o120777 << 16)
    z.add(WRAPPED + "docs/x.md", b"written through the link\n")
    case("symlink-then-file-through-it.zip", "refused", WRAPPED + "docs", 5,
         "symlink `docs` to /tmp, then a file `docs/x.md` through it", z.finish())
    with_entry("fifo.zip", 5, "FIFO entry (Unix mode 0o010644)", WRAPPED + "fifo",
               WRAPPED + "fifo", b"", method=STORED, external=0o010644 << 16)
    with_entry("block-device.zip", 5, "block-device entry (Unix mode 0o060644)", WRAPPED + "sda",
               WRAPPED + "sda", b"", method=STORED, external=0o060644 << 16)
    with_entry("directory-with-content.zip", 5, "a directory entry that carries data",
               WRAPPED + "docs/", WRAPPED + "docs/", b"hidden data", method=STORED,
               external=(0o040755 << 16) | 0x10)
    with_entry("encrypted.zip", 19, "general-purpose bit 0 (encrypted) set",
               WRAPPED + "secret.md", WRAPPED + "secret.md", b"not really encrypted\n",
               method=STORED, flags=1)
    with_entry("encrypted-strong.zip", 19, "general-purpose bit 6 (strong encryption) set",
               WRAPPED + "secret.md", WRAPPED + "secret.md", b"x\n", method=STORED,
               flags=1 | (1 << 6))
    for method, label in [(12, "bzip2"), (14, "lzma"), (93, "zstd"), (99, "aes")]:
        with_entry(f"method-{method}.zip", 20, f"compression method {method} ({label})",
                   WRAPPED + "x.md", WRAPPED + "x.md", b"xxxxxxxx\n", method=method)

    # ---- Bombs and limits (#7, #8, #9, #48). ----
    zeros = b"\0" * (64 * MIB)
    bomb = deflate(zeros)
    crc = zlib.crc32(zeros)
    z = Zip()
    for n, c in package(WRAPPED):
        z.add(n, c)
    z.add(WRAPPED + "bomb.bin", b"", DEFLATE, crc=crc, size=len(zeros), compressed_size=len(bomb))
    z.body = z.body[:-len(deflate(b""))] + bomb
    case("bomb-64mib.zip", "refused", WRAPPED + "bomb.bin", 7,
         "64 MiB of zeros, DEFLATE, sizes declared honestly: over the 4 MiB per-file limit",
         z.finish())
    z = Zip()
    for n, c in package(WRAPPED):
        z.add(n, c)
    z.add(WRAPPED + "bomb.bin", b"", DEFLATE, crc=zlib.crc32(b"\0" * 1000), size=1000,
          compressed_size=len(bomb))
    z.body = z.body[:-len(deflate(b""))] + bomb
    case("bomb-64mib-lying-sizes.zip", "refused", WRAPPED + "bomb.bin", 7,
         "64 MiB of zeros, DEFLATE, declared as 1000 bytes: the inflated count must stop it",
         z.finish())
    case("total-over-16mib.zip", "refused", None, 48,
         "five honest 3.5 MiB files: 17.5 MiB in total, over the 16 MiB total limit",
         archive(package(WRAPPED) + [(WRAPPED + f"big/{i}.bin", b"\0" * (7 * MIB // 2))
                                     for i in range(5)]))
    z = Zip()
    for n, c in package(WRAPPED):
        z.add(n, c)
    a = z.add(WRAPPED + "a.md", b"A" * 1000)
    z.central(dict(a, name=(WRAPPED + "b.md").encode()))
    case("overlap-two-cd-records-one-lfh.zip", "refused", WRAPPED + "b.md", 8,
         "two central-directory records (a.md, b.md) pointing at one local header", z.finish())
    z = Zip()
    for n, c in package(WRAPPED):
        z.add(n, c)
    inner_name = (WRAPPED + "b.md").encode()
    inner_data = b"inner\n"
    inner = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 0, 0, DOS_DATE, zlib.crc32(inner_data),
                        len(inner_data), len(inner_data), len(inner_name), 0) + inner_name
    outer_content = b"pad:" + inner + inner_data + b":pad"
    outer = z.add(WRAPPED + "a.md", outer_content, STORED)
    z.central({**outer, "name": inner_name, "crc": zlib.crc32(inner_data),
               "csize": len(inner_data), "size": len(inner_data),
               "offset": outer["offset"] + 30 + len(outer["name"]) + 4})
    case("overlap-entry-inside-data.zip", "refused", WRAPPED + "b.md", 8,
         "a local record for b.md hidden inside a.md's stored data, listed in the central "
         "directory (overlapping ranges)", z.finish())
    case("entries-513.zip", "refused", None, 9, "513 entries (limit 512)",
         archive(package() + [(f"f/{i:03}.md", b"") for i in range(509)]))
    z = Zip()
    for n, c in package():
        z.add(n, c)
    for i in range(109):
        z.add(f"d{i:03}/", b"", STORED, external=(0o040755 << 16) | 0x10)
    for i in range(400):
        z.add(f"f/{i:03}.md", b"")
    case("entries-513-with-directories.zip", "refused", None, 47,
         "404 files + 109 directory entries = 513 entries: directories count", z.finish())

    # ---- Duplicates (#10). ----
    case("duplicate-same-bytes.zip", "refused", WRAPPED + "README.md", 10,
         "README.md twice with the same bytes",
         archive(package(WRAPPED) + [(WRAPPED + "README.md", b"# R\n")]))
    case("duplicate-different-bytes.zip", "refused", WRAPPED + "README.md", 10,
         "README.md twice with different bytes",
         archive(package(WRAPPED) + [(WRAPPED + "README.md", b"# evil\n")]))
    case("duplicate-manifest.zip", "refused", WRAPPED + "expert-squad.jsonc", 10,
         "two manifests, the second naming another package",
         archive(package(WRAPPED) + [(WRAPPED + "expert-squad.jsonc",
                                      MANIFEST.replace(b'"pkg"', b'"other"'))]))

    # ---- Broken archives (#21). ----
    good = archive(package(WRAPPED))
    for label, end in [("at-4", 4), ("at-30", 30), ("half", len(good) // 2),
                       ("before-cd", good.index(b"PK\x01\x02")), ("minus-22", len(good) - 22),
                       ("minus-1", len(good) - 1)]:
        case(f"truncated-{label}.zip", "refused", None, 21,
             f"a valid wrapper-layout archive cut to {end} of {len(good)} bytes", good[:end])
    case("empty-file.zip", "refused", None, 21, "an empty file", b"")
    rng = random.Random(20260820)
    garbage = bytes(rng.getrandbits(8) for _ in range(4096))
    case("random-garbage.zip", "refused", None, 21, "4096 random bytes", garbage)
    case("garbage-with-eocd.zip", "refused", None, 21,
         "random bytes ending in an end record that claims one entry inside them",
         garbage + struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, 46, len(garbage) - 46, 0))
    case("empty-zip.zip", "refused", None, 46, "a valid ZIP with no entries (ZIP-4)",
         Zip().finish())
    z = Zip()
    for d in ["acme/", "acme/pkg/", "acme/pkg/agents/"]:
        z.add(d, b"", STORED, external=(0o040755 << 16) | 0x10)
    case("only-directories.zip", "refused", None, 46, "only directory entries (ZIP-4)",
         z.finish())

    # ---- CRC and sizes (#22, #23). ----
    def tampered(target, **kwargs):
        z = Zip()
        for n, c in package(WRAPPED):
            z.add(n, c, **(kwargs if n == WRAPPED + target else {}))
        return z

    z = Zip()
    for n, c in package(WRAPPED):
        z.add(n, c, STORED if n.endswith("README.md") else None)
    data = bytearray(z.finish())
    at = data.index(b"# R\n", data.index(b"README.md"))
    data[at + 2] ^= 1
    case("crc-mismatch-stored.zip", "refused", WRAPPED + "README.md", 22,
         "one flipped byte in README.md's stored data (CRC in LFH and CD unchanged)", bytes(data))
    z = tampered("expert-squad.jsonc",
                 crc=zlib.crc32(MANIFEST) ^ 0xDEADBEEF)
    case("crc-mismatch-deflated.zip", "refused", WRAPPED + "expert-squad.jsonc", 22,
         "the manifest's CRC is wrong in both LFH and CD (DEFLATE)", z.finish())
    for delta, label in [(1, "plus-1"), (-1, "minus-1")]:
        z = tampered("expert-squad.jsonc", size=len(MANIFEST) + delta)
        case(f"size-{label}.zip", "refused", WRAPPED + "expert-squad.jsonc", 23,
             f"the manifest's uncompressed size is {delta:+} in both LFH and CD (DEFLATE)",
             z.finish())
        z = Zip()
        for n, c in package(WRAPPED):
            z.add(n, c, STORED if n.endswith("README.md") else None,
                  **({"size": 4 + delta} if n.endswith("README.md") else {}))
        case(f"size-{label}-stored.zip", "refused", WRAPPED + "README.md", 23,
             f"README.md (stored) declares {4 + delta} bytes in both LFH and CD; it has 4",
             z.finish())
        compressed = len(deflate(MANIFEST))
        z = tampered("expert-squad.jsonc",
                     compressed_size=compressed + delta)
        # One byte more: the DEFLATE stream ends before the declared size (the extra byte is
        # the first byte of the next local header). One byte less: the stream is cut short.
        # Either way the manifest is at fault.
        entry = WRAPPED + "expert-squad.jsonc"
        case(f"compressed-size-{label}.zip", "refused", entry, 23,
             f"the manifest's compressed size is {delta:+} in both LFH and CD", z.finish())

    # ---- LFH/CD disagreements and framing (#24). ----
    def disagree(file, description, target, local=None, central=None, entry=None,
                 known_bug=None, **kwargs):
        z = Zip()
        for n, c in package(WRAPPED):
            if n == WRAPPED + target:
                z.add(n, c, local=local, central=central, **kwargs)
            else:
                z.add(n, c)
        case(file, "refused", entry or WRAPPED + target, 24, description, z.finish(), known_bug)

    disagree("lfh-cd-name.zip", "LFH names README.sh, CD names README.md", "README.md",
             local={"name": (WRAPPED + "README.sh").encode()})
    disagree("lfh-cd-crc.zip", "LFH and CD CRCs differ (CD and data agree)", "README.md",
             local={"crc": 0x12345678})
    disagree("lfh-cd-size.zip", "LFH and CD uncompressed sizes differ (CD and data agree)",
             "README.md", local={"size": 40})
    disagree("lfh-cd-compressed-size.zip", "LFH and CD compressed sizes differ", "README.md",
             local={"csize": 40})
    disagree("lfh-cd-method.zip", "LFH says DEFLATE, CD says stored", "README.md",
             local={"method": DEFLATE}, method=STORED)
    disagree("lfh-cd-flags.zip", "LFH sets bit 11, CD does not", "README.md",
             local={"flags": UTF8})
    disagree("descriptor-disagrees.zip", "data descriptor's CRC differs from the CD's",
             "README.md", descriptor={"crc": 0x12345678})
    disagree("descriptor-size-disagrees.zip", "data descriptor's size differs from the CD's",
             "README.md", descriptor={"size": 99})
    disagree("descriptor-lfh-sizes-lie.zip",
             "bit 3 set but the LFH carries non-zero CRC and sizes that differ from the "
             "descriptor and CD (a streaming reader would trust them)", "README.md",
             local={"crc": 0x12345678, "csize": 40, "size": 40}, descriptor="signed")
    disagree("zip64-extra.zip", "a ZIP64 extended-information extra field in LFH and CD",
             "README.md", extra=struct.pack("<HHQQ", 1, 16, 4, 4))
    disagree("zip64-extra-lfh-only.zip", "a ZIP64 extra field in the LFH only", "README.md",
             local={"extra": struct.pack("<HHQQ", 1, 16, 4, 4)})
    disagree("zip64-size-marker.zip", "CD and LFH sizes 0xFFFFFFFF (ZIP64 marker)",
             "README.md", local={"size": 0xFFFFFFFF}, central={"size": 0xFFFFFFFF})

    def framed(file, description, row=24, entry=None, build_zip=None, **finish):
        z = Zip()
        for n, c in package(WRAPPED):
            z.add(n, c)
        if build_zip:
            build_zip(z)
        case(file, "refused", entry, row, description, z.finish(**finish))

    # DEFLATE streams that end before the entry's compressed size: the bytes after the end of
    # the stream are invisible to a reader that stops there and trusts the central directory,
    # and visible to a streaming reader (uv CVE-2025-54368, a scanner/extractor differential).
    def after_deflate(file, description, tail_of, descriptor):
        z = Zip()
        for n, c in package(WRAPPED):
            if n != WRAPPED + "README.md":
                z.add(n, c)
        name = (WRAPPED + "README.md").encode()
        content = b"# R\n" + b"read me " * 20
        data = deflate(content)
        crc = zlib.crc32(content)
        region = data + tail_of(crc, data, content)
        flags = DESCRIPTOR if descriptor else 0
        local = (0, 0, 0) if descriptor else (crc, len(region), len(content))
        offset = len(z.body)
        z.raw(struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, flags, DEFLATE, 0, DOS_DATE, *local,
                          len(name), 0) + name + region)
        if descriptor:
            z.raw(struct.pack("<IIII", 0x08074B50, crc, len(region), len(content)))
        z.central({"name": name, "flags": flags, "method": DEFLATE, "crc": crc,
                   "csize": len(region), "size": len(content), "extra": b"", "offset": offset,
                   "made_by": UNIX_MADE_BY, "external": REGULAR, "comment": b""})
        case(file, "refused", WRAPPED + "README.md", 24, description, z.finish())

    def hidden_entry(crc, data, content):
        hidden_name = (WRAPPED + "hidden.md").encode()
        hidden = b"hidden\n"
        return (struct.pack("<IIII", 0x08074B50, crc, len(data), len(content))
                + struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, STORED, 0, DOS_DATE,
                              zlib.crc32(hidden), len(hidden), len(hidden), len(hidden_name), 0)
                + hidden_name + hidden)

    after_deflate("deflate-hides-an-entry.zip",
                  "bit 3 set; the compressed size covers the DEFLATE stream, a data descriptor "
                  "and a complete local header with another file (`hidden.md`), which a "
                  "streaming reader extracts", hidden_entry, descriptor=True)
    after_deflate("deflate-trailing-junk.zip",
                  "140 junk bytes after the end of the DEFLATE stream, inside the declared "
                  "compressed size, no data descriptor",
                  lambda crc, data, content: bytes(range(140)), descriptor=False)

    framed("trailing-data.zip", "bytes after the end record (an appended signature)",
           suffix=b"-----BEGIN SIGNATURE-----\n")
    framed("eocd-comment.zip", "a non-empty archive comment", comment=b"hello")
    framed("zip-in-comment.zip", "a second, different package inside the archive comment",
           comment=archive(package("evil/pkg/")))
    prefix = b"#!/bin/sh\nexec unzip \"$0\"\n" + b"\0" * 38
    framed("prepended-data.zip", "64 bytes prepended, offsets adjusted (self-extractor style)",
           entry=WRAPPED + "expert-squad.jsonc", prefix=prefix, shift=len(prefix))
    framed("prepended-data-unadjusted.zip", "64 bytes prepended, offsets not adjusted",
           prefix=prefix)
    framed("gap-between-entries.zip", "16 unaccounted bytes between two local records",
           entry=WRAPPED + "x.md",
           build_zip=lambda z: (z.raw(b"\0" * 16), z.add(WRAPPED + "x.md", b"x\n")))
    framed("gap-before-cd.zip", "16 unaccounted bytes between the last entry and the CD",
           build_zip=lambda z: z.raw(b"\0" * 16))

    def hidden(z):
        z.add(WRAPPED + "hidden.md", b"only the local header knows me\n", in_central=False)
        z.add(WRAPPED + "x.md", b"x\n")

    framed("lfh-without-cd-record.zip",
           "a local record (hidden.md) the central directory does not list",
           entry=WRAPPED + "x.md", build_zip=hidden)
    framed("eocd-count-too-small.zip", "the end record counts one entry less than the CD has",
           count=3)
    framed("eocd-count-too-large.zip", "the end record counts one entry more than the CD has",
           count=5)
    framed("eocd-disk-counts-differ.zip", "end record: entries on this disk != total",
           eocd={"on_disk": 3})
    framed("multi-disk.zip", "end record claims disk 1", eocd={"disk": 1})
    framed("eocd-cd-offset-wrong.zip", "end record's CD offset is 1 too large",
           eocd_delta={"cd_offset": 1})

    z = Zip()
    for n, c in package(WRAPPED):
        z.add(n, c)
    plain = z.finish()
    cd_offset = plain.index(b"PK\x01\x02")
    cd = plain[cd_offset:-22]
    zip64_end = struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, 4, 4, len(cd), cd_offset)
    locator = struct.pack("<IIQI", 0x07064B50, 0, cd_offset + len(cd), 1)
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    case("zip64-end-record.zip", "refused", None, 24,
         "ZIP64 end record + locator, classic end record fields 0xFFFF/0xFFFFFFFF",
         plain[:cd_offset] + cd + zip64_end + locator + end)

    # ---- Layouts (§3.4, ZIP-5). ----
    def layout(file, row, description, files, verdict="refused"):
        case(file, verdict, None, row, description, archive(files))

    layout("layout-no-manifest.zip", 45, "no expert-squad.jsonc anywhere",
           [f for f in package(WRAPPED) if not f[0].endswith(".jsonc")])
    layout("layout-single-wrapper.zip", 44, "single wrapper `pkg/` (ZIP-5)", package("pkg/"))
    layout("layout-wrapper-mismatch.zip", 43, "wrapper `acme/other/` while the manifest says "
           "acme/pkg", package("acme/other/"))
    layout("layout-namespace-mismatch.zip", 43, "wrapper `evil/pkg/` while the manifest says "
           "acme/pkg", package("evil/pkg/"))
    layout("layout-two-wrappers.zip", 45, "two different top-level wrappers, no root manifest",
           package(WRAPPED) + [("other/x.md", b"x")])
    layout("layout-three-levels.zip", 45, "a triple wrapper `x/acme/pkg/`", package("x/acme/pkg/"))
    layout("layout-manifest-deeper.zip", 45, "wrapper with the manifest one level too deep",
           [(WRAPPED + "sub/expert-squad.jsonc", MANIFEST), (WRAPPED + "README.md", b"# R\n")])


def main():
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    build()
    counts = {}
    for c in CASES:
        counts[c["verdict"]] = counts.get(c["verdict"], 0) + 1
    with open(os.path.join(OUT, "cases.json"), "w", encoding="utf-8") as handle:
        json.dump({"cases": CASES}, handle, indent=2, ensure_ascii=False)
        handle.write("\n")
    total = sum(os.path.getsize(os.path.join(OUT, f)) for f in os.listdir(OUT))
    print(f"{len(CASES)} fixtures ({', '.join(f'{v} {k}' for k, v in sorted(counts.items()))}), "
          f"{total} bytes in {os.path.relpath(OUT, REPO)}")


if __name__ == "__main__":
    main()
