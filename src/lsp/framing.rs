//! The base protocol's framing: `Content-Length: N` headers, an empty line, then N bytes of
//! JSON. Read within bounds whatever the client sends: a header line is at most
//! [`MAX_HEADER_LINE`] bytes and a message at most [`MAX_MESSAGE_BYTES`]; a larger declared
//! length is skipped in bounded chunks (never allocated), so a huge or lying `Content-Length`
//! costs time, not memory, and the next honest frame is read as usual.

use std::io::{self, BufRead, Write};

/// The longest header line read (`Content-Length: 123\r\n` is 22 bytes).
pub const MAX_HEADER_LINE: usize = 1024;
/// The most header lines of one message.
pub const MAX_HEADERS: usize = 16;
/// The largest message read: a 10 MB document sent whole, with room for JSON's escapes.
pub const MAX_MESSAGE_BYTES: usize = 24 * 1024 * 1024;

/// What one read of the input gave.
#[derive(Debug)]
pub enum Frame {
    /// A message's bytes (not yet known to be JSON).
    Message(Vec<u8>),
    /// Something that is not a message; the input is still usable after it. The text says what
    /// was wrong, for the log and for a parse-error response.
    Malformed(String),
    /// The input is closed.
    End,
}

/// Reads the next frame. Only an I/O error of the input is an error; a client's mistake is a
/// [`Frame::Malformed`] and reading goes on.
pub fn read_frame(input: &mut dyn BufRead) -> io::Result<Frame> {
    let mut length: Option<usize> = None;
    // A header the frame cannot be read with; the other headers are still read to the empty
    // line, so the next frame starts where it should.
    let mut problem: Option<String> = None;
    let mut headers = 0;
    let mut line = Vec::with_capacity(64);
    loop {
        line.clear();
        let read = read_line(input, &mut line)?;
        match read {
            Line::End => return Ok(Frame::End),
            Line::TooLong => {
                return Ok(Frame::Malformed(format!(
                    "a header line is longer than {MAX_HEADER_LINE} bytes"
                )));
            }
            Line::Complete => {}
        }
        let text = trim_line_end(&line);
        if text.is_empty() {
            if headers == 0 {
                // Blank lines between messages are tolerated.
                continue;
            }
            break;
        }
        headers += 1;
        if headers > MAX_HEADERS {
            problem.get_or_insert(format!(
                "a message has more than {MAX_HEADERS} header lines"
            ));
            continue;
        }
        let Ok(text) = std::str::from_utf8(text) else {
            problem.get_or_insert("a header line is not UTF-8".into());
            continue;
        };
        let Some((name, value)) = text.split_once(':') else {
            problem.get_or_insert(format!(
                "malformed header line `{}`",
                crate::text::remote(text, 80)
            ));
            continue;
        };
        if name.trim().eq_ignore_ascii_case("content-length") {
            let value = value.trim();
            let Ok(declared) = value.parse::<u64>() else {
                problem.get_or_insert(format!(
                    "Content-Length `{}` is not a number",
                    crate::text::remote(value, 40)
                ));
                continue;
            };
            match usize::try_from(declared) {
                Ok(declared) if declared <= MAX_MESSAGE_BYTES => length = Some(declared),
                _ => {
                    // The body (or as much of it as comes) is read and dropped now: the
                    // headers after this one go with it.
                    skip_message(input, declared);
                    return Ok(Frame::Malformed(format!(
                        "a message of {declared} bytes is larger than the {MAX_MESSAGE_BYTES} squad reads; it was skipped"
                    )));
                }
            }
        }
    }
    if let Some(problem) = problem {
        // Without a length the body cannot be told from the next frame's headers: it is read
        // as such, and found malformed in turn if it is not.
        if let Some(length) = length {
            skip_message_body(input, length as u64);
        }
        return Ok(Frame::Malformed(problem));
    }
    let Some(length) = length else {
        return Ok(Frame::Malformed(
            "a message has no Content-Length header".into(),
        ));
    };
    let mut body = Vec::with_capacity(length.min(1 << 20));
    let read = io::Read::read_to_end(&mut io::Read::take(&mut *input, length as u64), &mut body)?;
    if read < length {
        return Ok(Frame::End);
    }
    Ok(Frame::Message(body))
}

enum Line {
    Complete,
    TooLong,
    End,
}

/// One line up to and including `\n`, at most [`MAX_HEADER_LINE`] bytes kept; a longer line is
/// consumed to its end without being kept.
fn read_line(input: &mut dyn BufRead, line: &mut Vec<u8>) -> io::Result<Line> {
    let mut too_long = false;
    loop {
        let available = match input.fill_buf() {
            Ok(available) => available,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        if available.is_empty() {
            return Ok(Line::End);
        }
        let (taken, done) = match available.iter().position(|byte| *byte == b'\n') {
            Some(at) => (at + 1, true),
            None => (available.len(), false),
        };
        if !too_long {
            if line.len() + taken > MAX_HEADER_LINE {
                too_long = true;
                line.clear();
            } else {
                line.extend_from_slice(&available[..taken]);
            }
        }
        input.consume(taken);
        if done {
            return Ok(if too_long {
                Line::TooLong
            } else {
                Line::Complete
            });
        }
    }
}

fn trim_line_end(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Reads and drops the headers' end and `length` bytes of body, 64 KiB at a time, until they
/// are gone or the input ends.
fn skip_message(input: &mut dyn BufRead, length: u64) {
    let mut line = Vec::new();
    // The rest of the headers, up to the empty line.
    loop {
        line.clear();
        match read_line(input, &mut line) {
            Ok(Line::Complete) if !trim_line_end(&line).is_empty() => continue,
            Ok(Line::TooLong) => continue,
            Ok(_) | Err(_) => break,
        }
    }
    skip_message_body(input, length);
}

fn skip_message_body(input: &mut dyn BufRead, length: u64) {
    let _ = io::copy(&mut io::Read::take(&mut *input, length), &mut io::sink());
}

/// Writes one message with its header, and flushes it.
pub fn write_frame(output: &mut dyn Write, body: &[u8]) -> io::Result<()> {
    write!(output, "Content-Length: {}\r\n\r\n", body.len())?;
    output.write_all(body)?;
    output.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &[u8]) -> Vec<String> {
        let mut reader = io::BufReader::with_capacity(7, input);
        let mut out = Vec::new();
        for _ in 0..20 {
            match read_frame(&mut reader).unwrap() {
                Frame::Message(body) => out.push(String::from_utf8(body).unwrap()),
                Frame::Malformed(why) => out.push(format!("malformed: {why}")),
                Frame::End => return out,
            }
        }
        panic!("the input never ended: {out:?}");
    }

    #[test]
    fn messages_are_read_one_after_another() {
        let input = b"Content-Length: 2\r\n\r\n{}Content-Type: x\r\ncontent-length:3\r\n\r\n[1]";
        assert_eq!(frames(input), ["{}", "[1]"]);
    }

    #[test]
    fn a_missing_or_unreadable_length_is_malformed_and_reading_goes_on() {
        let input = b"X-Nothing: 1\r\n\r\nContent-Length: abc\r\n\r\nContent-Length: 2\r\n\r\n{}";
        assert_eq!(
            frames(input),
            [
                "malformed: a message has no Content-Length header",
                "malformed: Content-Length `abc` is not a number",
                "{}"
            ]
        );
    }

    #[test]
    fn a_huge_length_is_skipped_without_being_allocated() {
        let input = b"Content-Length: 18446744073709551615\r\n\r\n{\"partial\":";
        let out = frames(input);
        assert_eq!(out.len(), 1, "{out:?}");
        assert!(out[0].contains("larger than"), "{out:?}");
        // An honest length beyond the limit is skipped exactly, and the next message is read.
        let body = "x".repeat(MAX_MESSAGE_BYTES + 1);
        let input = format!(
            "Content-Length: {}\r\n\r\n{body}Content-Length: 2\r\n\r\n{{}}",
            body.len()
        );
        let out = frames(input.as_bytes());
        assert_eq!(out.len(), 2);
        assert_eq!(out[1], "{}");
    }

    #[test]
    fn a_long_header_line_is_not_kept() {
        let mut input = vec![b'a'; 10 * MAX_HEADER_LINE];
        input.extend_from_slice(b"\r\nContent-Length: 2\r\n\r\n{}");
        assert_eq!(
            frames(&input),
            [
                format!("malformed: a header line is longer than {MAX_HEADER_LINE} bytes"),
                "{}".to_owned()
            ]
        );
        let endless = vec![b'a'; 10 * MAX_HEADER_LINE];
        assert_eq!(frames(&endless), Vec::<String>::new());
    }

    #[test]
    fn a_body_cut_short_ends_the_input() {
        assert_eq!(
            frames(b"Content-Length: 10\r\n\r\n{}"),
            Vec::<String>::new()
        );
        assert_eq!(frames(b""), Vec::<String>::new());
    }

    #[test]
    fn frames_are_written_with_their_length() {
        let mut out = Vec::new();
        write_frame(&mut out, "{\"é\":1}".as_bytes()).unwrap();
        assert_eq!(out, "Content-Length: 8\r\n\r\n{\"é\":1}".as_bytes());
    }
}
