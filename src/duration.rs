//! Durations as people type them on the command line: `90s`, `5m`, `1h30m`, `500ms`.

use std::time::Duration;

/// Parses a duration made of one or more `<number><unit>` parts (units `ms`, `s`, `m`, `h`).
/// Used as a clap value parser, so the error is the message clap shows.
pub fn parse(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("a duration cannot be empty: use for example 90s, 5m or 1h30m".into());
    }
    if text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "\"{text}\" has no unit: write {text}s for seconds or {text}m for minutes"
        ));
    }
    let mut total = Duration::ZERO;
    let mut rest = text;
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let unit_len = rest[digits..]
            .bytes()
            .take_while(u8::is_ascii_alphabetic)
            .count();
        if digits == 0 || unit_len == 0 {
            return Err(format!(
                "\"{text}\" is not a duration: use a number followed by ms, s, m or h, for example 90s, 5m or 1h30m"
            ));
        }
        let number: u64 = rest[..digits]
            .parse()
            .map_err(|_| format!("\"{text}\" is too large a duration"))?;
        let unit = &rest[digits..digits + unit_len];
        let part = match unit {
            "ms" => Duration::from_millis(number),
            "s" => Duration::from_secs(number),
            "m" => Duration::from_secs(number.saturating_mul(60)),
            "h" => Duration::from_secs(number.saturating_mul(3600)),
            other => {
                return Err(format!(
                    "\"{text}\" has the unknown unit \"{other}\": use ms, s, m or h"
                ));
            }
        };
        total = total.saturating_add(part);
        rest = &rest[digits + unit_len..];
    }
    Ok(total)
}

/// The shortest readable form: `5m`, `1m30s`, `2s`, `250ms`.
pub fn display(duration: Duration) -> String {
    let millis = duration.as_millis();
    if !millis.is_multiple_of(1000) {
        return format!("{millis}ms");
    }
    let secs = duration.as_secs();
    let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    let mut out = String::new();
    if h > 0 {
        out.push_str(&format!("{h}h"));
    }
    if m > 0 {
        out.push_str(&format!("{m}m"));
    }
    if s > 0 || out.is_empty() {
        out.push_str(&format!("{s}s"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_usual_forms() {
        assert_eq!(parse("90s").unwrap(), Duration::from_secs(90));
        assert_eq!(parse("5m").unwrap(), Duration::from_secs(300));
        assert_eq!(parse("1h30m").unwrap(), Duration::from_secs(5400));
        assert_eq!(parse("1m30s").unwrap(), Duration::from_secs(90));
        assert_eq!(parse("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse("0s").unwrap(), Duration::ZERO);
    }

    #[test]
    fn explains_what_is_wrong() {
        assert!(parse("90").unwrap_err().contains("90s"));
        assert!(parse("5 minutes").unwrap_err().contains("not a duration"));
        assert!(parse("5d").unwrap_err().contains("unknown unit \"d\""));
        assert!(parse("").unwrap_err().contains("empty"));
        assert!(parse("m").unwrap_err().contains("not a duration"));
    }

    #[test]
    fn displays_round_trip() {
        for text in ["5m", "1m30s", "2s", "250ms", "1h", "0s"] {
            assert_eq!(display(parse(text).unwrap()), text);
        }
    }
}
