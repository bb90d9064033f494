//! The canonical ZIP writer of `squad pack` (PACK-3…PACK-5, security-cases §4.1): entries in
//! UTF-8 byte order, no directory entries, the DOS time 1980-01-01 00:00, no extra fields or
//! comments, Unix mode 0644, the UTF-8 flag on non-ASCII names, DEFLATE level 6 through
//! `flate2`'s zlib-rs backend (pinned in Cargo.lock) unless storing is smaller, no data
//! descriptors. The same input gives the same bytes on every machine.
//!
//! Small entries are compressed on all cores and written in order; entries read from large
//! files are streamed through the compressor and their header is patched afterwards, so no large
//! file is held in memory.

use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use flate2::write::DeflateEncoder;
use flate2::{Compress, Compression, FlushCompress, Status};

/// DEFLATE level: zip's default, a good size/speed balance.
const LEVEL: u32 = 6;
/// DOS date of 1980-01-01 (the earliest DOS date); the time field is 00:00:00.
const DOS_DATE: u16 = (1 << 5) | 1;
/// "Version made by": Unix host (3), ZIP 2.0.
const MADE_BY: u16 = (3 << 8) | 20;
const MODE: u32 = 0o100644;
const METHOD_STORED: u16 = 0;
const METHOD_DEFLATE: u16 = 8;
const FLAG_UTF8: u16 = 1 << 11;

/// Where an entry's bytes come from.
#[derive(Debug, Clone)]
pub enum Source {
    Bytes(Vec<u8>),
    /// A file too large to hold in memory; it is streamed.
    File(PathBuf),
}

#[derive(Debug, Clone)]
pub struct Entry {
    /// Full entry name, `/`-separated.
    pub name: String,
    pub source: Source,
}

struct Compressed {
    crc: u32,
    method: u16,
    size: u64,
    data: Vec<u8>,
}

struct CentralRecord {
    name: String,
    crc: u32,
    method: u16,
    compressed: u64,
    size: u64,
    offset: u64,
}

/// Compresses one entry with a reused compressor: allocating (and faulting in) a fresh
/// compressor state per file costs more than compressing a small file.
fn compress(bytes: &[u8], compressor: &mut Compress) -> io::Result<Compressed> {
    let crc = crc32fast::hash(bytes);
    compressor.reset();
    let mut deflated = Vec::with_capacity(bytes.len() + bytes.len() / 1000 + 64);
    loop {
        let consumed = compressor.total_in() as usize;
        let status = compressor
            .compress_vec(&bytes[consumed..], &mut deflated, FlushCompress::Finish)
            .map_err(io::Error::other)?;
        if status == Status::StreamEnd {
            break;
        }
        deflated.reserve(deflated.capacity().max(64));
    }
    Ok(if deflated.len() < bytes.len() {
        Compressed {
            crc,
            method: METHOD_DEFLATE,
            size: bytes.len() as u64,
            data: deflated,
        }
    } else {
        Compressed {
            crc,
            method: METHOD_STORED,
            size: bytes.len() as u64,
            data: bytes.to_vec(),
        }
    })
}

/// Below this many input bytes, spawning threads costs more than it saves.
const PARALLEL_THRESHOLD: usize = 1 << 20;

/// Compresses in-memory entries on up to `threads` threads; `None` for streamed entries.
fn compress_all(entries: &[Entry], threads: usize) -> io::Result<Vec<Option<Compressed>>> {
    let input: usize = entries
        .iter()
        .map(|entry| match &entry.source {
            Source::Bytes(bytes) => bytes.len(),
            Source::File(_) => 0,
        })
        .sum();
    let threads = match threads {
        0 if input >= PARALLEL_THRESHOLD => {
            std::thread::available_parallelism().map_or(1, usize::from)
        }
        0 => 1,
        threads => threads,
    };
    if threads <= 1 || input < PARALLEL_THRESHOLD {
        let mut compressor = new_compressor();
        return entries
            .iter()
            .map(|entry| match &entry.source {
                Source::Bytes(bytes) => compress(bytes, &mut compressor).map(Some),
                Source::File(_) => Ok(None),
            })
            .collect();
    }
    let next = AtomicUsize::new(0);
    let mut results: Vec<Option<io::Result<Compressed>>> =
        (0..entries.len()).map(|_| None).collect();
    let slots: Vec<std::sync::Mutex<Option<io::Result<Compressed>>>> = (0..entries.len())
        .map(|_| std::sync::Mutex::new(None))
        .collect();
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                let mut compressor = new_compressor();
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(entry) = entries.get(index) else {
                        break;
                    };
                    if let Source::Bytes(bytes) = &entry.source {
                        let result = compress(bytes, &mut compressor);
                        if let Ok(mut slot) = slots[index].lock() {
                            *slot = Some(result);
                        }
                    }
                }
            });
        }
    });
    for (index, slot) in slots.into_iter().enumerate() {
        results[index] = slot.into_inner().unwrap_or(None);
    }
    results
        .into_iter()
        .map(|result| result.transpose())
        .collect()
}

/// Raw DEFLATE (no zlib header), as ZIP stores it.
fn new_compressor() -> Compress {
    Compress::new(Compression::new(LEVEL), false)
}

fn name_flags(name: &str) -> u16 {
    if name.is_ascii() { 0 } else { FLAG_UTF8 }
}

fn version_needed(method: u16) -> u16 {
    if method == METHOD_DEFLATE { 20 } else { 10 }
}

fn u32_field(value: u64, what: &str) -> io::Result<u32> {
    u32::try_from(value).map_err(|_| {
        io::Error::other(format!(
            "{what} exceeds 4 GiB; ZIP64 archives are not written"
        ))
    })
}

fn local_header(name: &str, method: u16, crc: u32, compressed: u32, size: u32) -> Vec<u8> {
    let mut header = Vec::with_capacity(30 + name.len());
    header.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
    header.extend_from_slice(&version_needed(method).to_le_bytes());
    header.extend_from_slice(&name_flags(name).to_le_bytes());
    header.extend_from_slice(&method.to_le_bytes());
    header.extend_from_slice(&0u16.to_le_bytes());
    header.extend_from_slice(&DOS_DATE.to_le_bytes());
    header.extend_from_slice(&crc.to_le_bytes());
    header.extend_from_slice(&compressed.to_le_bytes());
    header.extend_from_slice(&size.to_le_bytes());
    header.extend_from_slice(&(name.len() as u16).to_le_bytes());
    header.extend_from_slice(&0u16.to_le_bytes());
    header.extend_from_slice(name.as_bytes());
    header
}

/// Writes `entries` (already sorted and validated) as a ZIP archive, compressing on up to
/// `threads` threads (0: as many as there are cores, when the input is large enough to gain).
pub fn write<W: Write + Seek>(out: &mut W, entries: &[Entry], threads: usize) -> io::Result<()> {
    if entries.len() > usize::from(u16::MAX) {
        return Err(io::Error::other(
            "more than 65,535 entries needs ZIP64, which is not written",
        ));
    }
    let compressed = compress_all(entries, threads)?;
    let mut records = Vec::with_capacity(entries.len());
    let mut offset = out.stream_position()?;
    for (entry, compressed) in entries.iter().zip(compressed) {
        if entry.name.len() > usize::from(u16::MAX) {
            return Err(io::Error::other(format!(
                "entry name `{}` is too long",
                entry.name
            )));
        }
        let record = match (compressed, &entry.source) {
            (Some(compressed), _) => {
                let header = local_header(
                    &entry.name,
                    compressed.method,
                    compressed.crc,
                    u32_field(compressed.data.len() as u64, &entry.name)?,
                    u32_field(compressed.size, &entry.name)?,
                );
                out.write_all(&header)?;
                out.write_all(&compressed.data)?;
                let record = CentralRecord {
                    name: entry.name.clone(),
                    crc: compressed.crc,
                    method: compressed.method,
                    compressed: compressed.data.len() as u64,
                    size: compressed.size,
                    offset,
                };
                offset += (header.len() + compressed.data.len()) as u64;
                record
            }
            (None, Source::File(path)) => {
                let record = stream_entry(out, &entry.name, path, offset)?;
                offset = out.stream_position()?;
                record
            }
            (None, Source::Bytes(_)) => unreachable!("in-memory entries are always compressed"),
        };
        records.push(record);
    }
    let central_start = offset;
    for record in &records {
        let mut header = Vec::with_capacity(46 + record.name.len());
        header.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        header.extend_from_slice(&MADE_BY.to_le_bytes());
        header.extend_from_slice(&version_needed(record.method).to_le_bytes());
        header.extend_from_slice(&name_flags(&record.name).to_le_bytes());
        header.extend_from_slice(&record.method.to_le_bytes());
        header.extend_from_slice(&0u16.to_le_bytes());
        header.extend_from_slice(&DOS_DATE.to_le_bytes());
        header.extend_from_slice(&record.crc.to_le_bytes());
        header.extend_from_slice(&u32_field(record.compressed, &record.name)?.to_le_bytes());
        header.extend_from_slice(&u32_field(record.size, &record.name)?.to_le_bytes());
        header.extend_from_slice(&(record.name.len() as u16).to_le_bytes());
        header.extend_from_slice(&[0; 8]); // extra length, comment length, disk, internal attributes
        header.extend_from_slice(&(MODE << 16).to_le_bytes());
        header.extend_from_slice(&u32_field(record.offset, "archive")?.to_le_bytes());
        header.extend_from_slice(record.name.as_bytes());
        out.write_all(&header)?;
        offset += header.len() as u64;
    }
    let count = records.len() as u16;
    let mut end = Vec::with_capacity(22);
    end.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    end.extend_from_slice(&[0; 4]); // disk numbers
    end.extend_from_slice(&count.to_le_bytes());
    end.extend_from_slice(&count.to_le_bytes());
    end.extend_from_slice(&u32_field(offset - central_start, "central directory")?.to_le_bytes());
    end.extend_from_slice(&u32_field(central_start, "archive")?.to_le_bytes());
    end.extend_from_slice(&0u16.to_le_bytes());
    out.write_all(&end)?;
    out.flush()
}

/// Counts and checksums what passes through, for streamed entries.
struct Counting<W> {
    inner: W,
    written: u64,
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let written = self.inner.write(bytes)?;
        self.written += written as u64;
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

fn stream_entry<W: Write + Seek>(
    out: &mut W,
    name: &str,
    path: &Path,
    offset: u64,
) -> io::Result<CentralRecord> {
    let placeholder = local_header(name, METHOD_DEFLATE, 0, 0, 0);
    out.write_all(&placeholder)?;
    // A package file the pack has captured as regular: a link put there since is refused.
    let mut file = crate::fs::open_regular_seen(path)?;
    let mut crc = crc32fast::Hasher::new();
    let mut size = 0u64;
    let mut encoder = DeflateEncoder::new(
        Counting {
            inner: &mut *out,
            written: 0,
        },
        Compression::new(LEVEL),
    );
    let mut buffer = vec![0u8; 1 << 20];
    loop {
        let read = file.read(&mut buffer)?;
        if read == 0 {
            break;
        }
        crc.update(&buffer[..read]);
        size += read as u64;
        encoder.write_all(&buffer[..read])?;
    }
    let counting = encoder.finish()?;
    let compressed = counting.written;
    let crc = crc.finalize();
    let end = out.stream_position()?;
    out.seek(SeekFrom::Start(offset))?;
    out.write_all(&local_header(
        name,
        METHOD_DEFLATE,
        crc,
        u32_field(compressed, name)?,
        u32_field(size, name)?,
    ))?;
    out.seek(SeekFrom::Start(end))?;
    Ok(CentralRecord {
        name: name.to_owned(),
        crc,
        method: METHOD_DEFLATE,
        compressed,
        size,
        offset,
    })
}

/// An archive of in-memory entries, for tests of the writer and the reader.
#[cfg(test)]
pub(crate) fn archive_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let entries: Vec<Entry> = entries
        .iter()
        .map(|(name, bytes)| Entry {
            name: (*name).to_owned(),
            source: Source::Bytes(bytes.to_vec()),
        })
        .collect();
    let mut out = io::Cursor::new(Vec::new());
    write(&mut out, &entries, 2).unwrap();
    out.into_inner()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pack(entries: &[(&str, &[u8])]) -> Vec<u8> {
        archive_of(entries)
    }

    #[test]
    fn same_input_same_bytes_whatever_the_thread_count() {
        let entries: Vec<(&str, &[u8])> = vec![
            ("a/b/x.txt", b"hello hello hello hello"),
            ("a/b/\u{3b2}.txt", b"first\n"),
        ];
        let one = pack(&entries);
        assert_eq!(one, pack(&entries));
        let mut out = io::Cursor::new(Vec::new());
        let owned: Vec<Entry> = entries
            .iter()
            .map(|(name, bytes)| Entry {
                name: (*name).to_owned(),
                source: Source::Bytes(bytes.to_vec()),
            })
            .collect();
        write(&mut out, &owned, 1).unwrap();
        assert_eq!(out.into_inner(), one);
    }

    #[test]
    fn info_zip_can_read_it() {
        let bytes = pack(&[
            ("ns/id/README.md", b"# R\n"),
            ("ns/id/data.txt", &[b'x'; 10_000]),
        ]);
        assert_eq!(&bytes[..4], b"PK\x03\x04");
        assert_eq!(&bytes[bytes.len() - 22..bytes.len() - 18], b"PK\x05\x06");
    }

    #[test]
    fn streamed_entry_matches_in_memory_entry() {
        let dir = tempfile::tempdir().unwrap();
        let content: Vec<u8> = (0..300_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        std::fs::write(dir.path().join("big"), &content).unwrap();
        let mut streamed = io::Cursor::new(Vec::new());
        write(
            &mut streamed,
            &[Entry {
                name: "x".into(),
                source: Source::File(dir.path().join("big")),
            }],
            2,
        )
        .unwrap();
        let in_memory = pack(&[("x", &content)]);
        assert_eq!(streamed.into_inner(), in_memory);
    }
}
