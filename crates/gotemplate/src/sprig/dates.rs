//! Sprig's date functions with Go's reference-time layouts (`2006-01-02T15:04:05Z07:00`).
//! A time carries its zone as Go's does: `UTC`, `Local` (the machine's zone, from `TZ` or
//! `/etc/localtime`), a zone of the system's zone database (`Europe/Paris`, read as Go's
//! `time.LoadLocation` reads it), or a fixed offset. A zone that cannot be loaded is UTC, as
//! Sprig's `dateInZone` makes it.

use std::sync::Arc;

use super::fixed;
use crate::error::Error;
use crate::funcs::{Functions, Type};
use crate::value::{Object, Value};

use Type::{Any, String as Str};

/// A `time.Time`: an instant and the zone it is shown in.
#[derive(Clone, Debug)]
pub(crate) struct Time {
    secs: i64,
    nanos: u32,
    zone: Zone,
}

/// A Go `*time.Location`.
#[derive(Clone, Debug)]
pub(crate) enum Zone {
    Utc,
    /// `time.Local`: the machine's zone.
    Local,
    /// A zone of the zone database, by its name.
    Named(jiff::tz::TimeZone),
    /// `time.FixedZone(name, offset)`; an empty name prints as the offset.
    Fixed {
        name: String,
        offset: i32,
    },
}

impl Zone {
    /// Go's `time.LoadLocation`, and Sprig's fallback to UTC when it fails.
    fn load(name: &str) -> Zone {
        match name {
            "" | "UTC" => Zone::Utc,
            "Local" => Zone::Local,
            _ => jiff::tz::TimeZone::get(name).map_or(Zone::Utc, Zone::Named),
        }
    }

    /// The offset east of UTC in seconds and the abbreviation at `secs`.
    fn at(&self, secs: i64) -> (i32, String) {
        let of = |tz: &jiff::tz::TimeZone| match jiff::Timestamp::from_second(secs) {
            Ok(instant) => {
                let info = tz.to_offset_info(instant);
                (info.offset().seconds(), info.abbreviation().to_string())
            }
            Err(_) => (0, "UTC".to_string()),
        };
        match self {
            Zone::Utc => (0, "UTC".to_string()),
            Zone::Local => of(&jiff::tz::TimeZone::system()),
            Zone::Named(tz) => of(tz),
            Zone::Fixed { name, offset } => (*offset, name.clone()),
        }
    }
}

/// A civil date and time, for [`toml_time`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Civil {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: i64,
    pub minute: i64,
    pub second: i64,
    pub nanos: u32,
}

/// A TOML date-time as a Go `time.Time`, as Helm's `fromToml` gives it: with an offset, in UTC
/// (`Z`) or a nameless fixed zone; without one, in a zone named `local_zone` at offset 0 (the
/// TOML reader's `datetime-local`, `date-local` or `time-local`).
pub fn toml_time(at: Civil, offset: Option<i32>, local_zone: &str) -> Value {
    let wall = days_from_civil(at.year, at.month, at.day) * 86_400
        + at.hour * 3600
        + at.minute * 60
        + at.second;
    let zone = match offset {
        Some(0) => Zone::Utc,
        Some(offset) => Zone::Fixed {
            name: String::new(),
            offset,
        },
        None => Zone::Fixed {
            name: local_zone.to_string(),
            offset: 0,
        },
    };
    time_value(Time {
        secs: wall - i64::from(offset.unwrap_or(0)),
        nanos: at.nanos,
        zone,
    })
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

/// Days since 1970-01-01 to (year, month 1-12, day 1-31).
pub(crate) fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = if m > 2 { m - 3 } else { m + 9 } as i64;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

impl Time {
    pub(crate) fn now() -> Time {
        let d = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        Time {
            secs: d.as_secs() as i64,
            nanos: d.subsec_nanos(),
            zone: Zone::Local,
        }
    }

    fn unix(secs: i64) -> Time {
        Time {
            secs,
            nanos: 0,
            zone: Zone::Local,
        }
    }

    /// The same instant shown in `zone` (Go's `Time.In`).
    fn in_zone(&self, zone: Zone) -> Time {
        Time {
            zone,
            ..self.clone()
        }
    }

    /// Go's `time.Time.Format`.
    fn format(&self, layout: &str) -> String {
        let (offset, abbreviation) = self.zone.at(self.secs);
        let local = self.secs + i64::from(offset);
        let days = local.div_euclid(86_400);
        let sod = local.rem_euclid(86_400);
        let sign = if offset < 0 { '-' } else { '+' };
        let (oh, om, os) = (
            offset.unsigned_abs() / 3600,
            offset.unsigned_abs() / 60 % 60,
            offset.unsigned_abs() % 60,
        );
        // Go's numeric zone forms; the `Z` forms print `Z` for UTC itself.
        let numeric = |colons: bool, seconds: bool, minutes: bool, z: bool| -> String {
            if z && offset == 0 {
                return "Z".to_string();
            }
            let sep = if colons { ":" } else { "" };
            let mut out = format!("{sign}{oh:02}");
            if minutes {
                out.push_str(&format!("{sep}{om:02}"));
            }
            if seconds {
                out.push_str(&format!("{sep}{os:02}"));
            }
            out
        };
        let (year, month, day) = civil(days);
        let (hour, min, sec) = (sod / 3600, (sod / 60) % 60, sod % 60);
        let weekday = (days + 4).rem_euclid(7) as usize;
        let yday = days - days_from_civil(year, 1, 1) + 1;
        let mut out = String::new();
        let b = layout.as_bytes();
        let mut i = 0;
        let starts = |i: usize, p: &str| layout[i..].starts_with(p);
        while i < b.len() {
            let (tok, n): (String, usize) = if starts(i, "January") {
                (MONTHS[month as usize - 1].into(), 7)
            } else if starts(i, "Jan") {
                (MONTHS[month as usize - 1][..3].into(), 3)
            } else if starts(i, "Monday") {
                (DAYS[weekday].into(), 6)
            } else if starts(i, "Mon") {
                (DAYS[weekday][..3].into(), 3)
            } else if starts(i, "MST") {
                if abbreviation.is_empty() {
                    (numeric(false, false, true, false), 3)
                } else {
                    (abbreviation.clone(), 3)
                }
            } else if starts(i, "2006") {
                (format!("{year:04}"), 4)
            } else if starts(i, "2") {
                (day.to_string(), 1)
            } else if starts(i, "_2006") {
                (format!("_{year:04}"), 5)
            } else if starts(i, "__2") {
                (format!("{yday:>3}"), 3)
            } else if starts(i, "_2") {
                (format!("{day:>2}"), 2)
            } else if starts(i, "002") {
                (format!("{yday:03}"), 3)
            } else if starts(i, "01") {
                (format!("{month:02}"), 2)
            } else if starts(i, "02") {
                (format!("{day:02}"), 2)
            } else if starts(i, "03") {
                (format!("{:02}", (hour + 11) % 12 + 1), 2)
            } else if starts(i, "04") {
                (format!("{min:02}"), 2)
            } else if starts(i, "05") {
                (format!("{sec:02}"), 2)
            } else if starts(i, "06") {
                (format!("{:02}", year.rem_euclid(100)), 2)
            } else if starts(i, "15") {
                (format!("{hour:02}"), 2)
            } else if starts(i, "1") {
                (month.to_string(), 1)
            } else if starts(i, "3") {
                (((hour + 11) % 12 + 1).to_string(), 1)
            } else if starts(i, "4") {
                (min.to_string(), 1)
            } else if starts(i, "5") {
                (sec.to_string(), 1)
            } else if starts(i, "PM") {
                ((if hour >= 12 { "PM" } else { "AM" }).into(), 2)
            } else if starts(i, "pm") {
                ((if hour >= 12 { "pm" } else { "am" }).into(), 2)
            } else if starts(i, "Z07:00:00") {
                (numeric(true, true, true, true), 9)
            } else if starts(i, "Z070000") {
                (numeric(false, true, true, true), 7)
            } else if starts(i, "Z07:00") {
                (numeric(true, false, true, true), 6)
            } else if starts(i, "Z0700") {
                (numeric(false, false, true, true), 5)
            } else if starts(i, "Z07") {
                (numeric(false, false, false, true), 3)
            } else if starts(i, "-07:00:00") {
                (numeric(true, true, true, false), 9)
            } else if starts(i, "-070000") {
                (numeric(false, true, true, false), 7)
            } else if starts(i, "-07:00") {
                (numeric(true, false, true, false), 6)
            } else if starts(i, "-0700") {
                (numeric(false, false, true, false), 5)
            } else if starts(i, "-07") {
                (numeric(false, false, false, false), 3)
            } else if (b[i] == b'.' || b[i] == b',')
                && i + 1 < b.len()
                && (b[i + 1] == b'0' || b[i + 1] == b'9')
            {
                let digit = b[i + 1];
                let mut j = i + 1;
                while j < b.len() && b[j] == digit {
                    j += 1;
                }
                if j < b.len() && b[j].is_ascii_digit() {
                    (layout[i..i + 1].to_string(), 1)
                } else {
                    let n = j - i - 1;
                    let frac = format!("{:09}", self.nanos);
                    let mut f = frac[..n.min(9)].to_string();
                    if digit == b'9' {
                        while f.ends_with('0') {
                            f.pop();
                        }
                        if f.is_empty() {
                            (String::new(), j - i)
                        } else {
                            (format!("{}{f}", b[i] as char), j - i)
                        }
                    } else {
                        (format!("{}{f}", b[i] as char), j - i)
                    }
                }
            } else {
                let c = layout[i..].chars().next().unwrap_or(' ');
                (c.to_string(), c.len_utf8())
            };
            out.push_str(&tok);
            i += n;
        }
        out
    }

    /// Go's `time.ParseInLocation(layout, value, time.Local)` (Sprig's `toDate`) for the numeric
    /// layout elements charts use.
    fn parse(layout: &str, value: &str) -> Result<Time, String> {
        let err = || {
            format!(
                "parsing time {} as {}: cannot parse {} as {}",
                crate::gofmt::quote(value),
                crate::gofmt::quote(layout),
                crate::gofmt::quote(value),
                crate::gofmt::quote(layout)
            )
        };
        let (mut y, mut mo, mut d, mut h, mut mi, mut s, mut nanos, mut off) =
            (1i64, 1u32, 1u32, 0i64, 0i64, 0i64, 0u32, 0i64);
        // `Some(true)` after a `Z`, `Some(false)` after a numeric offset.
        let mut zoned: Option<bool> = None;
        let (lb, vb) = (layout.as_bytes(), value.as_bytes());
        let (mut i, mut j) = (0usize, 0usize);
        let num = |j: &mut usize, n: usize| -> Result<i64, String> {
            let part = value.get(*j..*j + n).ok_or_else(err)?;
            if !part.bytes().all(|c| c.is_ascii_digit()) {
                return Err(err());
            }
            *j += n;
            part.parse::<i64>().map_err(|_| err())
        };
        while i < lb.len() {
            let rest = &layout[i..];
            if rest.starts_with("2006") {
                y = num(&mut j, 4)?;
                i += 4;
            } else if rest.starts_with("01") {
                mo = num(&mut j, 2)? as u32;
                i += 2;
            } else if rest.starts_with("02") {
                d = num(&mut j, 2)? as u32;
                i += 2;
            } else if rest.starts_with("15") {
                h = num(&mut j, 2)?;
                i += 2;
            } else if rest.starts_with("04") {
                mi = num(&mut j, 2)?;
                i += 2;
            } else if rest.starts_with("05") {
                s = num(&mut j, 2)?;
                i += 2;
                if vb.get(j) == Some(&b'.') && !layout[i..].starts_with('.') {
                    let start = j + 1;
                    let mut k = start;
                    while k < vb.len() && vb[k].is_ascii_digit() {
                        k += 1;
                    }
                    let frac = format!("{:0<9}", &value[start..k]);
                    nanos = frac[..9].parse().unwrap_or(0);
                    j = k;
                }
            } else if rest.starts_with("Z07:00") || rest.starts_with("-07:00") {
                i += 6;
                if vb.get(j) == Some(&b'Z') && rest.starts_with('Z') {
                    j += 1;
                    zoned = Some(true);
                } else {
                    zoned = Some(false);
                    let sign = match vb.get(j) {
                        Some(b'+') => 1,
                        Some(b'-') => -1,
                        _ => return Err(err()),
                    };
                    j += 1;
                    let oh = num(&mut j, 2)?;
                    if vb.get(j) != Some(&b':') {
                        return Err(err());
                    }
                    j += 1;
                    let om = num(&mut j, 2)?;
                    off = sign * (oh * 3600 + om * 60);
                }
            } else if rest.starts_with('.') && rest[1..].starts_with(['0', '9']) {
                let mut k = i + 1;
                while k < lb.len() && (lb[k] == b'0' || lb[k] == b'9') {
                    k += 1;
                }
                i = k;
                if vb.get(j) == Some(&b'.') {
                    let start = j + 1;
                    let mut e = start;
                    while e < vb.len() && vb[e].is_ascii_digit() {
                        e += 1;
                    }
                    let frac = format!("{:0<9}", &value[start..e]);
                    nanos = frac[..9].parse().unwrap_or(0);
                    j = e;
                }
            } else {
                if vb.get(j) != Some(&lb[i]) {
                    return Err(err());
                }
                i += 1;
                j += 1;
            }
        }
        if j != vb.len() {
            return Err(format!(
                "parsing time {}: extra text: {}",
                crate::gofmt::quote(value),
                crate::gofmt::quote(&value[j..])
            ));
        }
        if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || s > 59 {
            return Err(format!(
                "parsing time {}: month out of range",
                crate::gofmt::quote(value)
            ));
        }
        let wall = days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + s;
        let local = |secs: i64| i64::from(Zone::Local.at(secs).0);
        let (secs, zone) = match zoned {
            Some(true) => (wall, Zone::Utc),
            // An offset that is Local's at that instant is Local; any other a nameless zone.
            Some(false) if local(wall - off) == off => (wall - off, Zone::Local),
            Some(false) => (
                wall - off,
                Zone::Fixed {
                    name: String::new(),
                    offset: off as i32,
                },
            ),
            // No zone in the value: the wall clock is Local's.
            None => (wall - local(wall), Zone::Local),
        };
        Ok(Time { secs, nanos, zone })
    }
}

impl Object for Time {
    fn type_name(&self) -> String {
        "time.Time".into()
    }

    fn call_method(&self, name: &str, args: &[Value]) -> Option<Result<Value, Error>> {
        match name {
            "Unix" => Some(Ok(Value::Int(self.secs))),
            "UnixNano" => Some(Ok(Value::Int(
                self.secs.wrapping_mul(1_000_000_000) + i64::from(self.nanos),
            ))),
            "Year" => {
                let local = self.secs + i64::from(self.zone.at(self.secs).0);
                Some(Ok(Value::Int(civil(local.div_euclid(86_400)).0)))
            }
            "Format" => Some(Ok(Value::from(
                self.format(args.first().and_then(Value::as_str).unwrap_or("")),
            ))),
            "String" => Some(Ok(Value::from(self.format_go()))),
            "UTC" => Some(Ok(time_value(self.in_zone(Zone::Utc)))),
            "Local" => Some(Ok(time_value(self.in_zone(Zone::Local)))),
            _ => None,
        }
    }

    fn format(&self) -> String {
        self.format_go()
    }

    fn to_value(&self) -> Option<Value> {
        Some(Value::from(
            self.format("2006-01-02T15:04:05.999999999Z07:00"),
        ))
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}

impl Time {
    /// Go's `Time.String()`.
    fn format_go(&self) -> String {
        self.format("2006-01-02 15:04:05.999999999 -0700 MST")
    }
}

/// A date argument as Sprig's `dateInZone` takes it: a time, or Unix seconds (an int);
/// anything else means now.
fn as_time(v: &Value) -> Time {
    match v {
        Value::Object(o) => o
            .as_any()
            .and_then(|any| any.downcast_ref::<Time>())
            .cloned()
            .unwrap_or_else(Time::now),
        Value::Int(i) => Time::unix(*i),
        _ => Time::now(),
    }
}

fn time_value(t: Time) -> Value {
    Value::Object(Arc::new(t))
}

/// Go's `time.Duration.String()` for nanoseconds.
pub(crate) fn duration_string(d: i128) -> String {
    if d == 0 {
        return "0s".into();
    }
    let neg = d < 0;
    let u = d.unsigned_abs();
    let mut out = String::new();
    if u < 1_000_000_000 {
        let (unit, div) = if u < 1_000 {
            ("ns", 1u128)
        } else if u < 1_000_000 {
            ("µs", 1_000)
        } else {
            ("ms", 1_000_000)
        };
        out.push_str(&frac(u, div));
        out.push_str(unit);
    } else {
        let h = u / 3_600_000_000_000;
        let m = (u / 60_000_000_000) % 60;
        let s_ns = u % 60_000_000_000;
        if h > 0 {
            out.push_str(&format!("{h}h"));
        }
        if h > 0 || m > 0 {
            out.push_str(&format!("{m}m"));
        }
        out.push_str(&frac(s_ns, 1_000_000_000));
        out.push('s');
    }
    if neg { format!("-{out}") } else { out }
}

fn frac(v: u128, div: u128) -> String {
    let whole = v / div;
    let rem = v % div;
    if rem == 0 {
        return whole.to_string();
    }
    let width = (div as f64).log10() as usize;
    let mut f = format!("{rem:0width$}");
    while f.ends_with('0') {
        f.pop();
    }
    format!("{whole}.{f}")
}

/// Go's `time.ParseDuration`.
fn parse_duration(s: &str) -> Option<i128> {
    let (neg, mut rest) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if rest == "0" {
        return Some(0);
    }
    if rest.is_empty() {
        return None;
    }
    let mut total: f64 = 0.0;
    while !rest.is_empty() {
        let n = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let num: f64 = rest[..n].parse().ok()?;
        rest = &rest[n..];
        let u = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let mult = match &rest[..u] {
            "ns" => 1.0,
            "us" | "µs" | "μs" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "m" => 60e9,
            "h" => 3600e9,
            _ => return None,
        };
        rest = &rest[u..];
        total += num * mult;
    }
    Some(if neg { -(total as i128) } else { total as i128 })
}

pub(super) fn register(f: &mut Functions) {
    fixed(f, "now", &[], |_, _| Ok(time_value(Time::now())));
    fixed(f, "date", &[Str, Any], |_, a| {
        Ok(as_time(&a[1])
            .in_zone(Zone::Local)
            .format(a[0].as_str().unwrap_or(""))
            .into())
    });
    for name in ["dateInZone", "date_in_zone"] {
        fixed(f, name, &[Str, Any, Str], |_, a| {
            let zone = Zone::load(a[2].as_str().unwrap_or(""));
            Ok(as_time(&a[1])
                .in_zone(zone)
                .format(a[0].as_str().unwrap_or(""))
                .into())
        });
    }
    fixed(f, "htmlDate", &[Any], |_, a| {
        Ok(as_time(&a[0])
            .in_zone(Zone::Local)
            .format("2006-01-02")
            .into())
    });
    fixed(f, "htmlDateInZone", &[Any, Str], |_, a| {
        let zone = Zone::load(a[1].as_str().unwrap_or(""));
        Ok(as_time(&a[0]).in_zone(zone).format("2006-01-02").into())
    });
    fixed(f, "unixEpoch", &[Any], |_, a| {
        Ok(as_time(&a[0]).secs.to_string().into())
    });
    fixed(f, "toDate", &[Str, Str], |_, a| {
        let t =
            Time::parse(a[0].as_str().unwrap_or(""), a[1].as_str().unwrap_or("")).unwrap_or(Time {
                secs: -62_135_596_800,
                nanos: 0,
                zone: Zone::Utc,
            });
        Ok(time_value(t))
    });
    fixed(f, "mustToDate", &[Str, Str], |_, a| {
        Time::parse(a[0].as_str().unwrap_or(""), a[1].as_str().unwrap_or(""))
            .map(time_value)
            .map_err(Error::func)
    });
    for name in [
        "dateModify",
        "date_modify",
        "mustDateModify",
        "must_date_modify",
    ] {
        fixed(f, name, &[Str, Any], |_, a| {
            let t = as_time(&a[1]);
            let Some(d) = parse_duration(a[0].as_str().unwrap_or("")) else {
                return Ok(time_value(t));
            };
            let total = i128::from(t.secs) * 1_000_000_000 + i128::from(t.nanos) + d;
            Ok(time_value(Time {
                secs: total.div_euclid(1_000_000_000) as i64,
                nanos: total.rem_euclid(1_000_000_000) as u32,
                zone: t.zone.clone(),
            }))
        });
    }
    fixed(f, "duration", &[Any], |_, a| {
        let n: i64 = match &a[0] {
            Value::String(s) => s.parse().unwrap_or(0),
            _ => 0,
        };
        Ok(duration_string(i128::from(n) * 1_000_000_000).into())
    });
    fixed(f, "durationRound", &[Any], |_, a| {
        let d: i128 = match &a[0] {
            Value::String(s) => parse_duration(s).unwrap_or(0),
            Value::Int(i) => i128::from(*i),
            v @ Value::Object(_) => {
                let t = as_time(v);
                let now = Time::now();
                (i128::from(now.secs) - i128::from(t.secs)) * 1_000_000_000
            }
            _ => 0,
        };
        let u = d.unsigned_abs();
        let second = 1_000_000_000u128;
        let (minute, hour) = (60 * second, 3600 * second);
        let day = 24 * hour;
        let (month, year) = (30 * day, 365 * day);
        let s = if u > year {
            format!("{}y", u / year)
        } else if u > month {
            format!("{}mo", u / month)
        } else if u > day {
            format!("{}d", u / day)
        } else if u > hour {
            format!("{}h", u / hour)
        } else if u > minute {
            format!("{}m", u / minute)
        } else if u > second {
            format!("{}s", u / second)
        } else {
            "0s".to_string()
        };
        Ok(s.into())
    });
    fixed(f, "ago", &[Any], |_, a| {
        let t = as_time(&a[0]);
        let now = Time::now();
        Ok(duration_string((i128::from(now.secs) - i128::from(t.secs)) * 1_000_000_000).into())
    });
}
