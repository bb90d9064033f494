#![allow(clippy::disallowed_methods)] // benchmarks set up files directly
#![allow(clippy::print_stdout)]
//! The SHA-256 behind every digest: the `sha2` crate squad uses (its assembly-free backend picks
//! SHA-NI or AVX2 at run time) against `ring`'s (BoringSSL's assembly, already in the tree
//! through rustls), in memory; and the read size squad hashes a file with (`CHUNK` in
//! `src/digest.rs`, 1 MiB) against smaller and larger ones. Ratios in the same run only.
//!
//! Run with `cargo bench --bench sha256`. Uses 256 MiB of memory and a 256 MiB temporary file.

use std::io::Read;
use std::time::{Duration, Instant};

use sha2::Digest as _;

const SIZE: usize = 256 << 20;
const RUNS: usize = 7;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn time(runs: usize, work: &dyn Fn()) -> Duration {
    median(
        (0..runs)
            .map(|_| {
                let start = Instant::now();
                work();
                start.elapsed()
            })
            .collect(),
    )
}

fn rate(duration: Duration) -> String {
    format!(
        "{:7.1} ms  {:6.0} MiB/s",
        duration.as_secs_f64() * 1e3,
        (SIZE >> 20) as f64 / duration.as_secs_f64()
    )
}

fn main() {
    let data: Vec<u8> = (0..SIZE).map(|i| (i * 2_654_435_761) as u8).collect();
    let expected = sha2::Sha256::digest(&data);
    assert_eq!(
        ring::digest::digest(&ring::digest::SHA256, &data).as_ref(),
        expected.as_slice()
    );

    // Alternate the two, so drift on a shared machine falls on both.
    let (mut sha2_runs, mut ring_runs) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        sha2_runs.push(time(1, &|| {
            std::hint::black_box(sha2::Sha256::digest(&data));
        }));
        ring_runs.push(time(1, &|| {
            std::hint::black_box(ring::digest::digest(&ring::digest::SHA256, &data));
        }));
    }
    let (with_sha2, with_ring) = (median(sha2_runs), median(ring_runs));
    println!("in memory, {} MiB, median of {RUNS}:", SIZE >> 20);
    println!("  sha2 (squad)  {}", rate(with_sha2));
    println!("  ring          {}", rate(with_ring));
    println!(
        "  sha2 / ring   {:.2}x the time",
        with_sha2.as_secs_f64() / with_ring.as_secs_f64()
    );

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("data.bin");
    std::fs::write(&file, &data).unwrap();
    let hash_file = |chunk: usize| {
        let mut reader = std::fs::File::open(&file).unwrap();
        let mut hasher = sha2::Sha256::new();
        let mut buffer = vec![0u8; chunk];
        loop {
            let read = reader.read(&mut buffer).unwrap();
            if read == 0 {
                break;
            }
            hasher.update(&buffer[..read]);
        }
        assert_eq!(hasher.finalize(), expected);
    };
    hash_file(1 << 20); // warm the page cache
    println!(
        "a {} MiB file (page cache warm), sha2, by read size:",
        SIZE >> 20
    );
    let squad = time(RUNS, &|| {
        squad::digest::Sha256Digest::of_file(&file).unwrap();
    });
    println!("  squad's of_file (1 MiB)  {}", rate(squad));
    for chunk in [64 << 10, 256 << 10, 1 << 20, 4 << 20] {
        let duration = time(RUNS, &|| hash_file(chunk));
        println!(
            "  {:>5} KiB reads         {}  ({:.2}x squad's)",
            chunk >> 10,
            rate(duration),
            duration.as_secs_f64() / squad.as_secs_f64()
        );
    }
}
