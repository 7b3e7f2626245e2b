//! The runtime's log lines, shaped by the helm-operator's `--zap-*` flags (controller-runtime's
//! zap options) so that a deployment passing them starts and logs as it asked: `json` lines
//! for a log pipeline, `console` lines, a minimum level, a time encoding. Without an encoder
//! chosen (`--zap-encoder`, or `--zap-devel`'s console) a line is `TIME message`, which reads
//! best on a developer's terminal. This runtime logs at two levels only: info, and error for
//! failed reconciles and the like; it never logs a stack trace.

use std::sync::Arc;

use k8s_openapi::jiff::Timestamp;

/// A line's level, in zap's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Debug,
    Info,
    Error,
    Panic,
}

impl Level {
    /// `--zap-log-level` and `--zap-stacktrace-level`: a name, or (log level only) a positive
    /// verbosity, which is debug and below.
    pub fn parse(text: &str, numbers: bool) -> Result<Level, String> {
        match text.to_ascii_lowercase().as_str() {
            "debug" => Ok(Level::Debug),
            "info" => Ok(Level::Info),
            "error" => Ok(Level::Error),
            "panic" => Ok(Level::Panic),
            _ if numbers && text.parse::<u8>().is_ok_and(|n| n > 0) => Ok(Level::Debug),
            _ => Err(format!(
                "\"{text}\" is not a log level: one of debug, info, error, panic{}",
                if numbers {
                    ", or an integer above 0"
                } else {
                    ""
                }
            )),
        }
    }

    fn lower(self) -> &'static str {
        match self {
            Level::Debug => "debug",
            Level::Info => "info",
            Level::Error => "error",
            Level::Panic => "panic",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Encoder {
    Json,
    Console,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TimeEncoding {
    Epoch,
    Millis,
    Nano,
    Iso8601,
    Rfc3339,
    Rfc3339nano,
}

/// How lines are written: zap's defaults are applied by [`Format::from_flags`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Format {
    /// `None`: the plain `TIME message` lines.
    pub encoder: Option<Encoder>,
    pub min: Level,
    pub time: TimeEncoding,
}

impl Format {
    /// The `--zap-*` flags with controller-runtime's defaults: development mode means the
    /// console encoder and debug level, production info; the time is RFC 3339.
    pub fn from_flags(
        devel: bool,
        encoder: Option<Encoder>,
        level: Option<Level>,
        time: Option<TimeEncoding>,
    ) -> Format {
        Format {
            encoder: encoder.or(devel.then_some(Encoder::Console)),
            min: level.unwrap_or(if devel { Level::Debug } else { Level::Info }),
            time: time.unwrap_or(TimeEncoding::Rfc3339),
        }
    }

    /// The line for `message` at `level` at `now`, or `None` below the minimum level.
    pub fn line(&self, level: Level, now: Timestamp, message: &str) -> Option<String> {
        if level < self.min {
            return None;
        }
        Some(match self.encoder {
            None => format!("{} {message}", now.strftime("%Y-%m-%dT%H:%M:%SZ")),
            Some(Encoder::Console) => format!(
                "{}\t{}\t{message}",
                self.time_text(now),
                level.lower().to_ascii_uppercase()
            ),
            Some(Encoder::Json) => {
                let ts = match self.time {
                    // Numbers in JSON, as zap writes them; the rest are strings.
                    TimeEncoding::Epoch | TimeEncoding::Millis | TimeEncoding::Nano => {
                        self.time_text(now)
                    }
                    _ => serde_json::Value::String(self.time_text(now)).to_string(),
                };
                format!(
                    "{{\"level\":\"{}\",\"ts\":{ts},\"msg\":{}}}",
                    level.lower(),
                    serde_json::Value::String(message.to_string())
                )
            }
        })
    }

    fn time_text(&self, now: Timestamp) -> String {
        let nanos = now.as_nanosecond();
        match self.time {
            TimeEncoding::Epoch => format!("{}", nanos as f64 / 1e9),
            TimeEncoding::Millis => format!("{}", nanos as f64 / 1e6),
            TimeEncoding::Nano => nanos.to_string(),
            TimeEncoding::Iso8601 => now.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string(),
            TimeEncoding::Rfc3339 => now.strftime("%Y-%m-%dT%H:%M:%SZ").to_string(),
            TimeEncoding::Rfc3339nano => {
                // Go's RFC3339Nano drops trailing zeros of the fraction (and the dot).
                let text = now.strftime("%Y-%m-%dT%H:%M:%S%.9f").to_string();
                let text = text.trim_end_matches('0').trim_end_matches('.');
                format!("{text}Z")
            }
        }
    }
}

/// What writes one line at a level.
type Writer = dyn Fn(Level, &str) + Send + Sync;

/// Where the runtime's log lines go; cloning shares it.
#[derive(Clone)]
pub struct Log(Arc<Writer>);

impl Log {
    pub fn new(write: impl Fn(Level, &str) + Send + Sync + 'static) -> Log {
        Log(Arc::new(write))
    }

    /// Lines in `format` on stderr.
    pub fn to_stderr(format: Format) -> Log {
        Log::new(move |level, message| {
            if let Some(line) = format.line(level, Timestamp::now(), message) {
                eprintln!("{line}");
            }
        })
    }

    pub fn info(&self, message: &str) {
        (self.0)(Level::Info, message);
    }

    pub fn error(&self, message: &str) {
        (self.0)(Level::Error, message);
    }
}

impl std::fmt::Debug for Log {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Log")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at() -> Timestamp {
        "2026-12-03T06:07:08.120Z".parse().unwrap()
    }

    #[test]
    fn without_an_encoder_lines_are_plain() {
        let format = Format::from_flags(false, None, None, None);
        assert_eq!(
            format.line(Level::Info, at(), "Became the leader").unwrap(),
            "2026-12-03T06:07:08Z Became the leader"
        );
    }

    #[test]
    fn json_lines_are_zaps_production_shape() {
        let format = Format::from_flags(false, Some(Encoder::Json), None, None);
        let line = format
            .line(Level::Error, at(), "Reconcile failed: \"x\"")
            .unwrap();
        assert_eq!(
            line,
            r#"{"level":"error","ts":"2026-12-03T06:07:08Z","msg":"Reconcile failed: \"x\""}"#
        );
        let value: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(value["msg"], "Reconcile failed: \"x\"");
        let epoch = Format::from_flags(false, Some(Encoder::Json), None, Some(TimeEncoding::Epoch));
        let value: serde_json::Value =
            serde_json::from_str(&epoch.line(Level::Info, at(), "m").unwrap()).unwrap();
        assert_eq!(value["ts"].as_f64().unwrap(), 1_796_278_028.12);
    }

    #[test]
    fn devel_means_console_and_debug_unless_told_otherwise() {
        let devel = Format::from_flags(true, None, None, None);
        assert_eq!(devel.encoder, Some(Encoder::Console));
        assert_eq!(devel.min, Level::Debug);
        assert_eq!(
            devel.line(Level::Info, at(), "m").unwrap(),
            "2026-12-03T06:07:08Z\tINFO\tm"
        );
        let json = Format::from_flags(true, Some(Encoder::Json), Some(Level::Error), None);
        assert_eq!(json.encoder, Some(Encoder::Json));
        assert!(json.line(Level::Info, at(), "m").is_none());
        assert!(json.line(Level::Error, at(), "m").is_some());
    }

    #[test]
    fn time_encodings_as_zap_writes_them() {
        let text = |time| {
            let format = Format::from_flags(false, Some(Encoder::Console), None, Some(time));
            let line = format.line(Level::Info, at(), "m").unwrap();
            line.split('\t').next().unwrap().to_string()
        };
        assert_eq!(text(TimeEncoding::Nano), "1796278028120000000");
        assert_eq!(text(TimeEncoding::Millis), "1796278028120");
        assert_eq!(text(TimeEncoding::Iso8601), "2026-12-03T06:07:08.120Z");
        assert_eq!(text(TimeEncoding::Rfc3339nano), "2026-12-03T06:07:08.12Z");
    }

    #[test]
    fn levels_are_read_as_zap_reads_them() {
        assert_eq!(Level::parse("debug", true), Ok(Level::Debug));
        assert_eq!(Level::parse("ERROR", true), Ok(Level::Error));
        assert_eq!(Level::parse("3", true), Ok(Level::Debug));
        assert!(Level::parse("0", true).is_err());
        assert!(Level::parse("3", false).is_err());
        let err = Level::parse("loud", true).unwrap_err();
        assert!(
            err.contains("\"loud\"") && err.contains("debug, info, error, panic"),
            "{err}"
        );
    }
}
