//! The reader thread and the queue it fills: messages framed off the input, handed to the main
//! thread in order, bounded in bytes, with edits counted as they arrive.

use std::collections::VecDeque;
use std::io::{BufReader, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::lsp::framing::{self, Frame};

/// What the reader thread hands over.
pub(super) enum Incoming {
    Message(Value),
    /// A frame that is not a message (the text says why); `parse` when its body was read but is
    /// not JSON, which deserves a parse-error response.
    Broken {
        why: String,
        parse: bool,
    },
}

/// The queue between the reader thread and the main thread, bounded in bytes.
pub(super) struct Inbox {
    state: Mutex<Queue>,
    ready: Condvar,
    room: Condvar,
}

pub(super) struct Queue {
    items: VecDeque<(Incoming, usize)>,
    bytes: usize,
    closed: bool,
}

pub(super) enum Popped {
    Item(Incoming),
    Timeout,
    Closed,
}

impl Inbox {
    pub(super) fn new() -> Inbox {
        Inbox {
            state: Mutex::new(Queue {
                items: VecDeque::new(),
                bytes: 0,
                closed: false,
            }),
            ready: Condvar::new(),
            room: Condvar::new(),
        }
    }

    pub(super) fn push(&self, item: Incoming, bytes: usize) {
        let Ok(mut queue) = self.state.lock() else {
            return;
        };
        // A message waits for room unless the queue is empty: one message of any allowed
        // size always gets through.
        while !queue.items.is_empty() && queue.bytes + bytes > crate::lsp::MAX_QUEUED_BYTES {
            queue = match self.room.wait(queue) {
                Ok(queue) => queue,
                Err(_) => return,
            };
        }
        queue.bytes += bytes;
        queue.items.push_back((item, bytes));
        self.ready.notify_one();
    }

    pub(super) fn close(&self) {
        if let Ok(mut queue) = self.state.lock() {
            queue.closed = true;
            self.ready.notify_all();
        }
    }

    pub(super) fn pop(&self, timeout: Option<Duration>) -> Popped {
        let Ok(mut queue) = self.state.lock() else {
            return Popped::Closed;
        };
        let deadline = timeout.map(|timeout| Instant::now() + timeout);
        loop {
            if let Some((item, bytes)) = queue.items.pop_front() {
                queue.bytes -= bytes;
                self.room.notify_one();
                return Popped::Item(item);
            }
            if queue.closed {
                return Popped::Closed;
            }
            queue = match deadline {
                None => match self.ready.wait(queue) {
                    Ok(queue) => queue,
                    Err(_) => return Popped::Closed,
                },
                Some(deadline) => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Popped::Timeout;
                    }
                    match self.ready.wait_timeout(queue, left) {
                        Ok((queue, _)) => queue,
                        Err(_) => return Popped::Closed,
                    }
                }
            };
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.state
            .lock()
            .map_or(true, |queue| queue.items.is_empty())
    }
}

/// Methods that change a document: the reader counts them, so that a check under way knows a
/// newer edit has come.
pub(super) fn is_edit(message: &Value) -> bool {
    matches!(
        message.get("method").and_then(Value::as_str),
        Some(
            "textDocument/didChange"
                | "textDocument/didOpen"
                | "textDocument/didClose"
                | "workspace/didChangeWatchedFiles"
        )
    )
}

pub(super) fn read_loop(input: Box<dyn Read + Send>, inbox: &Inbox, edits: &AtomicU64) {
    let mut input = BufReader::with_capacity(64 * 1024, input);
    loop {
        match framing::read_frame(&mut input) {
            Ok(Frame::Message(body)) => {
                let bytes = body.len();
                match serde_json::from_slice::<Value>(&body) {
                    Ok(message) => {
                        let edit = is_edit(&message);
                        inbox.push(Incoming::Message(message), bytes);
                        // Counted once queued: a check abandoned for it finds it waiting.
                        if edit {
                            edits.fetch_add(1, Ordering::SeqCst);
                        }
                    }
                    Err(error) => inbox.push(
                        Incoming::Broken {
                            why: format!("the message is not JSON: {error}"),
                            parse: true,
                        },
                        0,
                    ),
                }
            }
            Ok(Frame::Malformed(why)) => inbox.push(Incoming::Broken { why, parse: false }, 0),
            Ok(Frame::End) | Err(_) => {
                inbox.close();
                return;
            }
        }
    }
}
