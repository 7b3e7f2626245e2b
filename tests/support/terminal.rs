//! Running a command on a real pseudo-terminal, to test what it asks there. util-linux
//! `script` gives the command a terminal as its stdin, stdout and stderr, and passes what is
//! written to its own stdin on as typed keys; the command cannot tell it from a user.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long a session may take before the test gives up on it.
const TIMEOUT: Duration = Duration::from_secs(120);

/// What a command did on the terminal.
pub struct Session {
    /// Its exit code.
    pub code: Option<i32>,
    /// Everything it showed, stdout and stderr interleaved as on a screen (with the terminal's
    /// control sequences, and `\r\n` line ends).
    pub screen: String,
}

/// Runs `command` (its program, arguments, environment and directory) on a terminal, waits
/// until `question` is on the screen, types `keys`, and waits for the command to end.
pub fn answer(command: &Command, question: &str, keys: &str) -> Session {
    assert!(
        Command::new("script")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success()),
        "util-linux `script` is required on PATH: it gives the command a terminal"
    );
    let line = std::iter::once(command.get_program())
        .chain(command.get_args())
        .map(|word| shell_quote(&word.to_string_lossy()))
        .collect::<Vec<_>>()
        .join(" ");
    let mut script = Command::new("script");
    // -q: no "Script started" banner; -e: exit with the command's code; -c: run the line
    // with $SHELL instead of an interactive shell; /dev/null: keep no typescript file.
    script
        .args(["-q", "-e", "-c", &line, "/dev/null"])
        .env("SHELL", "/bin/sh")
        .env("TERM", "xterm")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (key, value) in command.get_envs() {
        match value {
            Some(value) => script.env(key, value),
            None => script.env_remove(key),
        };
    }
    if let Some(dir) = command.get_current_dir() {
        script.current_dir(dir);
    }
    let mut child = script.spawn().expect("start script");
    let mut stdin = child.stdin.take().expect("script's stdin");
    let mut stdout = child.stdout.take().expect("script's stdout");
    let (chunks, screen_output) = mpsc::channel::<Vec<u8>>();
    let reader = std::thread::spawn(move || {
        let mut buffer = [0u8; 4096];
        while let Ok(n) = stdout.read(&mut buffer) {
            if n == 0 || chunks.send(buffer[..n].to_vec()).is_err() {
                break;
            }
        }
    });

    let deadline = Instant::now() + TIMEOUT;
    let mut screen = Vec::new();
    let mut asked = false;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match screen_output.recv_timeout(left) {
            Ok(chunk) => screen.extend(chunk),
            // The command ended (the terminal closed).
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let _ = child.kill();
                panic!(
                    "no end after {TIMEOUT:?} (asked: {asked}); the screen:\n{}",
                    String::from_utf8_lossy(&screen)
                );
            }
        }
        if !asked && String::from_utf8_lossy(&screen).contains(question) {
            asked = true;
            // Typed only once the question is shown, as a user would: keys typed earlier
            // could reach the command before it reads the terminal key by key.
            stdin.write_all(keys.as_bytes()).expect("type the answer");
            stdin.flush().expect("type the answer");
        }
    }
    reader.join().expect("the screen reader");
    let status = child.wait().expect("script ends");
    let mut errors = String::new();
    if let Some(mut stderr) = child.stderr.take() {
        let _ = stderr.read_to_string(&mut errors);
    }
    let screen = String::from_utf8_lossy(&screen).into_owned();
    assert!(
        asked,
        "the question {question:?} never appeared; the screen:\n{screen}\nscript: {errors}"
    );
    Session {
        code: status.code(),
        screen,
    }
}

/// `word` quoted for `sh`.
fn shell_quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}
