//! Prometheus's text exposition format, version 0.0.4: what a scrape of `/metrics` reads.
//! Numbers are written as Go's Prometheus client writes them (`strconv.FormatFloat(v, 'g', -1,
//! 64)`: `1e+06`, `0.005`, `+Inf`), so dashboards and diffs see the same text from either
//! runtime.

use std::fmt::Write;

/// The media type of this format.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Counter,
    Gauge,
    Histogram,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Counter => "counter",
            Kind::Gauge => "gauge",
            Kind::Histogram => "histogram",
        }
    }
}

/// Label names and values of one sample.
pub type Labels<'a> = &'a [(&'a str, &'a str)];

/// Writes families one after another: [`Encoder::family`] starts one, its samples follow.
#[derive(Default)]
pub struct Encoder {
    out: String,
}

impl Encoder {
    /// Starts the family `name`: its `# HELP` and `# TYPE` lines.
    pub fn family(&mut self, name: &str, help: &str, kind: Kind) {
        let _ = writeln!(
            self.out,
            "# HELP {name} {}\n# TYPE {name} {}",
            escape_help(help),
            kind.name()
        );
    }

    /// One counter or gauge sample.
    pub fn sample(&mut self, name: &str, labels: Labels<'_>, value: f64) {
        self.line(name, labels, None, value);
    }

    /// A histogram's cumulative `_bucket` samples (the last one `le="+Inf"`), `_sum` and `_count`.
    pub fn histogram(&mut self, name: &str, labels: Labels<'_>, histogram: &Histogram) {
        let bucket = format!("{name}_bucket");
        let mut cumulative = 0u64;
        for (bound, count) in histogram.bounds.iter().zip(&histogram.counts) {
            cumulative += count;
            let le = go_float(*bound);
            self.line(&bucket, labels, Some(&le), cumulative as f64);
        }
        self.line(&bucket, labels, Some("+Inf"), histogram.count() as f64);
        self.line(&format!("{name}_sum"), labels, None, histogram.sum);
        self.line(
            &format!("{name}_count"),
            labels,
            None,
            histogram.count() as f64,
        );
    }

    pub fn finish(self) -> String {
        self.out
    }

    fn line(&mut self, name: &str, labels: Labels<'_>, le: Option<&str>, value: f64) {
        self.out.push_str(name);
        let all = labels.iter().copied().chain(le.map(|le| ("le", le)));
        for (i, (label, value)) in all.enumerate() {
            self.out.push(if i == 0 { '{' } else { ',' });
            let _ = write!(self.out, "{label}=\"{}\"", escape_label(value));
        }
        if !labels.is_empty() || le.is_some() {
            self.out.push('}');
        }
        self.out.push(' ');
        self.out.push_str(&go_float(value));
        self.out.push('\n');
    }
}

/// Observations counted into buckets by upper bound (`le`: less than or equal), with their
/// sum. The bounds are ascending; `+Inf` is implicit.
#[derive(Debug, Clone)]
pub struct Histogram {
    bounds: &'static [f64],
    /// Per bucket, not cumulative; the last one counts what exceeds every bound.
    counts: Vec<u64>,
    sum: f64,
}

impl Histogram {
    pub fn new(bounds: &'static [f64]) -> Histogram {
        debug_assert!(bounds.windows(2).all(|w| w[0] < w[1]), "ascending bounds");
        Histogram {
            bounds,
            counts: vec![0; bounds.len() + 1],
            sum: 0.0,
        }
    }

    pub fn observe(&mut self, value: f64) {
        let bucket = self.bounds.partition_point(|bound| *bound < value);
        self.counts[bucket] += 1;
        self.sum += value;
    }

    pub fn count(&self) -> u64 {
        self.counts.iter().sum()
    }

    pub fn sum(&self) -> f64 {
        self.sum
    }
}

/// `strconv.FormatFloat(v, 'g', -1, 64)`: the shortest digits that read back as `v`, in
/// exponent form when the decimal exponent is below -4 or at least 6 (Go's rule for the
/// shortest precision), with at least two exponent digits.
pub fn go_float(value: f64) -> String {
    if value.is_nan() {
        return "NaN".into();
    }
    if value.is_infinite() {
        return if value > 0.0 { "+Inf" } else { "-Inf" }.into();
    }
    if value == 0.0 {
        return if value.is_sign_negative() { "-0" } else { "0" }.into();
    }
    // Rust's `{:e}` is also the shortest round-tripping digits: "3.2346112e7", "-5e-3".
    let scientific = format!("{value:e}");
    let (mantissa, exponent) = scientific
        .split_once('e')
        .unwrap_or((scientific.as_str(), "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if !(-4..6).contains(&exponent) {
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exponent.abs())
    } else {
        // Within that range Rust's plain form has the same shortest digits.
        format!("{value}")
    }
}

/// A label value: backslash, double quote and line feed are escaped.
fn escape_label(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

/// A HELP text: backslash and line feed are escaped (a quote needs none there).
fn escape_help(help: &str) -> String {
    help.replace('\\', "\\\\").replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_as_go_formats_them() {
        for (value, text) in [
            (0.0, "0"),
            (1.0, "1"),
            (-1.0, "-1"),
            (3.0, "3"),
            (0.005, "0.005"),
            (1.25, "1.25"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (123456.0, "123456"),
            (1000000.0, "1e+06"),
            (32346112.0, "3.2346112e+07"),
            (1764741234.56, "1.76474123456e+09"),
            (1.8446744073709552e19, "1.8446744073709552e+19"),
            (-2.5e-7, "-2.5e-07"),
            (1e100, "1e+100"),
            (f64::INFINITY, "+Inf"),
            (f64::NEG_INFINITY, "-Inf"),
            (f64::NAN, "NaN"),
        ] {
            assert_eq!(go_float(value), text, "{value}");
        }
    }

    #[test]
    fn families_with_help_type_and_escaped_labels() {
        let mut encoder = Encoder::default();
        encoder.family(
            "things_total",
            "Things seen \\ counted\nonce",
            Kind::Counter,
        );
        encoder.sample("things_total", &[("kind", "a\"b\\c\nd"), ("x", "")], 2.0);
        encoder.family("up", "Up", Kind::Gauge);
        encoder.sample("up", &[], 1.0);
        assert_eq!(
            encoder.finish(),
            "# HELP things_total Things seen \\\\ counted\\nonce\n\
             # TYPE things_total counter\n\
             things_total{kind=\"a\\\"b\\\\c\\nd\",x=\"\"} 2\n\
             # HELP up Up\n\
             # TYPE up gauge\n\
             up 1\n"
        );
    }

    #[test]
    fn histograms_are_cumulative_with_an_infinite_bucket() {
        static BOUNDS: [f64; 3] = [0.1, 0.5, 1.0];
        let mut histogram = Histogram::new(&BOUNDS);
        // A value equal to a bound falls into that bound's bucket (`le`).
        for value in [0.05, 0.1, 0.3, 0.5, 2.0] {
            histogram.observe(value);
        }
        assert_eq!(histogram.count(), 5);
        assert!((histogram.sum() - 2.95).abs() < 1e-9);
        let mut encoder = Encoder::default();
        encoder.family("t_seconds", "T", Kind::Histogram);
        encoder.histogram("t_seconds", &[("c", "x")], &histogram);
        let text = encoder.finish();
        let samples: Vec<&str> = text.lines().skip(2).collect();
        assert_eq!(
            samples,
            [
                "t_seconds_bucket{c=\"x\",le=\"0.1\"} 2",
                "t_seconds_bucket{c=\"x\",le=\"0.5\"} 4",
                "t_seconds_bucket{c=\"x\",le=\"1\"} 4",
                "t_seconds_bucket{c=\"x\",le=\"+Inf\"} 5",
                &format!("t_seconds_sum{{c=\"x\"}} {}", go_float(histogram.sum())),
                "t_seconds_count{c=\"x\"} 5",
            ]
        );
    }

    #[test]
    fn an_empty_histogram_has_every_bucket_at_zero() {
        static BOUNDS: [f64; 1] = [1.0];
        let mut encoder = Encoder::default();
        encoder.histogram("h", &[], &Histogram::new(&BOUNDS));
        assert_eq!(
            encoder.finish(),
            "h_bucket{le=\"1\"} 0\nh_bucket{le=\"+Inf\"} 0\nh_sum 0\nh_count 0\n"
        );
    }
}
