//! Durations in the two dialects operator-rs reads: [`parse`] for our own flags, as people
//! type them (`90s`, `5m`, `1h30m`, `500ms`), with messages that say how to fix them; and
//! [`parse_go`] for what Go programs read (watches.yaml, the helm-operator's flags), which must
//! accept and refuse exactly what Go's `time.ParseDuration` does, with Go's messages.

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

/// Parses a duration exactly as Go's `time.ParseDuration` does, for files and flags that Go
/// programs read (watches.yaml's `reconcilePeriod`, the helm-operator's `--reconcile-period`):
/// an optional sign, then `<decimal><unit>` parts with units `ns`, `us`/`µs`/`μs`, `ms`, `s`,
/// `m`, `h`, fractions allowed (`1.5h`), and a bare `0`. Returns signed nanoseconds, as Go's
/// `time.Duration` is; the error is Go's own message, so that users find it in Go's docs.
pub fn parse_go(text: &str) -> Result<i64, String> {
    let invalid = || format!("time: invalid duration {}", go_quote(text));
    let (negative, mut rest) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if rest == "0" {
        return Ok(0);
    }
    if rest.is_empty() {
        return Err(invalid());
    }
    // Go accumulates in an unsigned 64-bit value and allows exactly 1<<63 for "-".
    let limit: u128 = 1 << 63;
    let mut total: u128 = 0;
    while !rest.is_empty() {
        let int_len = rest.bytes().take_while(u8::is_ascii_digit).count();
        let whole = &rest[..int_len];
        rest = &rest[int_len..];
        let mut fraction = "";
        if let Some(after) = rest.strip_prefix('.') {
            let frac_len = after.bytes().take_while(u8::is_ascii_digit).count();
            fraction = &after[..frac_len];
            rest = &after[frac_len..];
        }
        if whole.is_empty() && fraction.is_empty() {
            // No digits at all, as in ".s" or "s".
            return Err(invalid());
        }
        let unit_len = rest
            .char_indices()
            .find(|(_, c)| *c == '.' || c.is_ascii_digit())
            .map_or(rest.len(), |(i, _)| i);
        let unit = &rest[..unit_len];
        rest = &rest[unit_len..];
        let nanos_per_unit: u128 = match unit {
            "" => return Err(format!("time: missing unit in duration {}", go_quote(text))),
            "ns" => 1,
            "us" | "\u{b5}s" | "\u{3bc}s" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60 * 1_000_000_000,
            "h" => 3_600 * 1_000_000_000,
            _ => {
                return Err(format!(
                    "time: unknown unit {} in duration {}",
                    go_quote(unit),
                    go_quote(text)
                ));
            }
        };
        let mut value: u128 = 0;
        for digit in whole.bytes() {
            value = value * 10 + u128::from(digit - b'0');
            if value > limit {
                return Err(invalid());
            }
        }
        let mut part = value * nanos_per_unit;
        // Go keeps the fraction's leading digits only as long as they fit, then truncates;
        // 20 digits are more than any unit can make count.
        let mut scale: u128 = 1;
        let mut frac_value: u128 = 0;
        for digit in fraction.bytes().take(20) {
            frac_value = frac_value * 10 + u128::from(digit - b'0');
            scale *= 10;
        }
        part += frac_value * nanos_per_unit / scale;
        total += part;
        if total > limit {
            return Err(invalid());
        }
    }
    if negative {
        // total <= 1<<63, so the negation fits.
        Ok((-(total as i128)) as i64)
    } else if total == limit {
        Err(invalid())
    } else {
        Ok(total as i64)
    }
}

/// Go's `%q` for the short ASCII texts of duration errors (quote and backslash escaped).
fn go_quote(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
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

    #[test]
    fn parses_go_durations_as_go_does() {
        assert_eq!(parse_go("0"), Ok(0));
        assert_eq!(parse_go("-0"), Ok(0));
        assert_eq!(parse_go("1m"), Ok(60_000_000_000));
        assert_eq!(parse_go("1h30m"), Ok(5_400_000_000_000));
        assert_eq!(parse_go("1.5h"), Ok(5_400_000_000_000));
        assert_eq!(parse_go(".5s"), Ok(500_000_000));
        assert_eq!(parse_go("5.s"), Ok(5_000_000_000));
        assert_eq!(parse_go("300ms"), Ok(300_000_000));
        assert_eq!(parse_go("-1.5m"), Ok(-90_000_000_000));
        assert_eq!(parse_go("+10us"), Ok(10_000));
        assert_eq!(parse_go("10\u{b5}s"), Ok(10_000));
        assert_eq!(parse_go("10\u{3bc}s"), Ok(10_000));
        assert_eq!(parse_go("1ns1s"), Ok(1_000_000_001));
        assert_eq!(parse_go("0.000000001s"), Ok(1));
        assert_eq!(parse_go("-9223372036854775808ns"), Ok(i64::MIN));
        assert_eq!(parse_go("9223372036854775807ns"), Ok(i64::MAX));
    }

    #[test]
    fn refuses_what_go_refuses_with_go_messages() {
        assert_eq!(parse_go(""), Err("time: invalid duration \"\"".to_string()));
        assert_eq!(
            parse_go("-"),
            Err("time: invalid duration \"-\"".to_string())
        );
        assert_eq!(
            parse_go(".s"),
            Err("time: invalid duration \".s\"".to_string())
        );
        assert_eq!(
            parse_go("10"),
            Err("time: missing unit in duration \"10\"".to_string())
        );
        assert_eq!(
            parse_go("3d"),
            Err("time: unknown unit \"d\" in duration \"3d\"".to_string())
        );
        assert_eq!(
            parse_go("1 m"),
            Err("time: unknown unit \" m\" in duration \"1 m\"".to_string())
        );
        assert_eq!(
            parse_go("9223372036854775808ns"),
            Err("time: invalid duration \"9223372036854775808ns\"".to_string())
        );
        assert!(parse_go("99999999999999999999h").is_err());
    }
}
