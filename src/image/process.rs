//! Running a builder (or cargo) as a child process whose output is read line by line while it
//! runs: the caller shows or logs each line, and the last lines are kept for the error message.

use std::collections::VecDeque;
use std::io::{self, BufRead, BufReader, Read};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;

/// How many lines of output an error shows.
pub const TAIL_LINES: usize = 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

#[derive(Debug)]
pub struct Finished {
    pub status: ExitStatus,
    /// The last [`TAIL_LINES`] lines the caller chose to keep, oldest first.
    pub tail: Vec<String>,
}

/// Runs `command` to its end with stdin closed, handing each output line to `on_line`, which
/// returns whether to keep the line for the tail. Carriage returns split lines too, so progress
/// bars that redraw one line arrive as separate lines.
pub fn run_streaming(
    command: &mut Command,
    on_line: &mut dyn FnMut(Stream, &str) -> bool,
) -> io::Result<Finished> {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let (sender, receiver) = mpsc::channel::<(Stream, String)>();
    let mut readers = Vec::new();
    if let Some(stdout) = child.stdout.take() {
        readers.push(forward(stdout, Stream::Stdout, sender.clone()));
    }
    if let Some(stderr) = child.stderr.take() {
        readers.push(forward(stderr, Stream::Stderr, sender.clone()));
    }
    // The loop below ends when both readers have dropped their senders, i.e. at end of output.
    drop(sender);
    let mut tail = VecDeque::with_capacity(TAIL_LINES);
    for (stream, line) in receiver {
        if on_line(stream, &line) {
            if tail.len() == TAIL_LINES {
                tail.pop_front();
            }
            tail.push_back(line);
        }
    }
    for reader in readers {
        // A reader thread only ends by reaching end of output or a read error; either way the
        // child's exit status below is what counts.
        let _ = reader.join();
    }
    let status = child.wait()?;
    Ok(Finished {
        status,
        tail: tail.into(),
    })
}

fn forward(
    source: impl Read + Send + 'static,
    stream: Stream,
    sender: mpsc::Sender<(Stream, String)>,
) -> thread::JoinHandle<()> {
    thread::spawn(move || {
        let mut reader = BufReader::new(source);
        let mut buffer = Vec::new();
        loop {
            buffer.clear();
            match reader.read_until(b'\n', &mut buffer) {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            let text = strip_ansi(&String::from_utf8_lossy(&buffer));
            for piece in text.split(['\r', '\n']) {
                let piece = piece.trim_end();
                if !piece.is_empty() && sender.send((stream, piece.to_string())).is_err() {
                    return;
                }
            }
        }
    })
}

/// Removes terminal escape sequences (colours, cursor moves) that builders print even into
/// pipes: docker colours a failing step's output red.
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match chars.next() {
            // CSI: parameters and intermediates, then one final byte in @..~
            Some('[') => {
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            // OSC: up to BEL or ESC \
            Some(']') => {
                while let Some(c) = chars.next() {
                    if c == '\u{7}' || (c == '\u{1b}' && chars.next_if_eq(&'\\').is_some()) {
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn strips_terminal_escapes() {
        assert_eq!(
            super::strip_ansi("\u{1b}[91mred\u{1b}[0m plain"),
            "red plain"
        );
        assert_eq!(super::strip_ansi("\u{1b}]0;title\u{7}x"), "x");
        assert_eq!(super::strip_ansi("é \u{1b}[1;31mb"), "é b");
    }

    use super::*;

    #[test]
    fn streams_both_outputs_and_keeps_a_tail() {
        let mut seen = Vec::new();
        let finished = run_streaming(
            Command::new("sh").args([
                "-c",
                "i=0; while [ $i -lt 30 ]; do echo out$i; i=$((i+1)); done; printf 'a\\rb\\n' >&2; exit 3",
            ]),
            &mut |stream, line| {
                seen.push((stream, line.to_string()));
                line != "a"
            },
        )
        .unwrap();
        assert_eq!(finished.status.code(), Some(3));
        assert_eq!(seen.len(), 32);
        assert!(seen.contains(&(Stream::Stderr, "b".to_string())));
        assert_eq!(finished.tail.len(), TAIL_LINES);
        assert!(!finished.tail.contains(&"a".to_string()));
        assert!(finished.tail.contains(&"out29".to_string()));
    }

    #[test]
    fn a_missing_program_is_not_found() {
        let err = run_streaming(
            &mut Command::new("/nonexistent/operator-rs-test-program"),
            &mut |_, _| true,
        )
        .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }
}
