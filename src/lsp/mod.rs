//! `squad lsp`: the Language Server Protocol over stdio, so an editor shows every rule of the
//! package format as the text is typed, across every file of a package.
//!
//! One thread reads the input ([`framing`], bounded whatever the client sends) into a queue
//! bounded in bytes; the main thread answers requests and checks packages. A package is
//! checked by [`crate::package::validate_overlay`] — the same check as `squad validate`, with
//! the editor's unsaved buffers read instead of the files' bytes — once no edit has come for
//! half as long as its last check took (at most [`MAX_DEBOUNCE`]), and a check under way is
//! abandoned, between validation's steps, when the reader sees a newer edit (at most
//! [`MAX_ABANDONED`] times in a row, so a package edited without pause is still checked). Its
//! diagnostics are published for every document they point into and cleared from those they
//! no longer do.
//!
//! Every client-supplied quantity is bounded: a message's size ([`framing::MAX_MESSAGE_BYTES`]),
//! the bytes waiting to be handled ([`MAX_QUEUED_BYTES`]), a document's size
//! ([`MAX_DOCUMENT_BYTES`]), the open documents ([`MAX_OPEN_DOCUMENTS`]), the changes of one
//! edit ([`MAX_CHANGES`]) and the items of a result ([`MAX_RESULTS`],
//! [`MAX_DIAGNOSTICS_PER_DOCUMENT`]). A malformed message, an unknown method or a document the
//! server cannot use gets an error response or a line on stderr; the server exits when its
//! input closes.

mod actions;
mod complete;
mod cursor;
pub mod framing;
mod hover;
mod model;
mod navigate;
mod position;
mod publish;
mod schema;
mod server;
mod workspace;

use std::time::Duration;

pub use server::serve;

/// The longest wait after an edit before the package is checked.
pub const MAX_DEBOUNCE: Duration = Duration::from_millis(250);
/// How many checks of one package in a row may be abandoned for newer edits.
pub const MAX_ABANDONED: u32 = 3;
/// The most bytes of messages read ahead of the main thread.
pub const MAX_QUEUED_BYTES: usize = 64 * 1024 * 1024;
/// The largest document kept open; a larger one is checked from the file on disk.
pub const MAX_DOCUMENT_BYTES: usize = 16 * 1024 * 1024;
/// The most documents open at once.
pub const MAX_OPEN_DOCUMENTS: usize = 1000;
/// The most content changes of one `didChange`.
pub const MAX_CHANGES: usize = 10_000;
/// The most items of a completion, references or code action result.
pub const MAX_RESULTS: usize = 2000;
/// The most diagnostics published for one document (the rest are counted in one more).
pub const MAX_DIAGNOSTICS_PER_DOCUMENT: usize = 2000;
