//! `semver` and `semverCompare` with Masterminds/semver v3 semantics: lenient versions
//! (`v1.2`), constraints with `||`, `,`, hyphen ranges, wildcards, `~` and `^`, and pre-releases
//! matching only constraints that name one (hence charts' `>=1.19-0`).

use std::cmp::Ordering;
use std::sync::{Arc, OnceLock};

use super::{fixed, panic_err};
use crate::error::Error;
use crate::funcs::{Functions, Type};
use crate::value::{Object, Value};

#[derive(Clone, Debug)]
pub(crate) struct Version {
    major: u64,
    minor: u64,
    patch: u64,
    pre: String,
    metadata: String,
    original: String,
}

const SEMVER: &str = r"v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?";
const CV: &str = r"v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?";
const OPS: &str = r"=||!=|>|<|>=|=>|<=|=<|~|~>|\^";

struct Regexes {
    version: regex_lite::Regex,
    constraint: regex_lite::Regex,
    find: regex_lite::Regex,
    valid: regex_lite::Regex,
    range: regex_lite::Regex,
}

fn regexes() -> &'static Regexes {
    static R: OnceLock<Regexes> = OnceLock::new();
    R.get_or_init(|| {
        // The patterns are constants known to compile.
        let re = |p: String| regex_lite::Regex::new(&p).unwrap_or_else(|_| unreachable!());
        Regexes {
            version: re(format!("^{SEMVER}$")),
            constraint: re(format!(r"^\s*({OPS})\s*({CV})\s*$")),
            find: re(format!(r"({OPS})\s*({CV})")),
            valid: re(format!(r"^(\s*({OPS})\s*({CV})\s*\,?)+$")),
            range: re(format!(r"\s*({CV})\s+-\s+({CV})\s*")),
        }
    })
}

impl Version {
    pub(crate) fn parse(s: &str) -> Result<Version, String> {
        let m = regexes()
            .version
            .captures(s)
            .ok_or_else(|| "invalid semantic version".to_string())?;
        let num = |i: usize| -> Result<u64, String> {
            match m.get(i) {
                None => Ok(0),
                Some(g) => g
                    .as_str()
                    .trim_start_matches('.')
                    .parse::<u64>()
                    .map_err(|e| format!("Error parsing version segment: {e}")),
            }
        };
        let pre = m.get(5).map(|g| g.as_str().to_string()).unwrap_or_default();
        for part in pre.split('.').filter(|_| !pre.is_empty()) {
            if part.len() > 1 && part.starts_with('0') && part.bytes().all(|b| b.is_ascii_digit()) {
                return Err("version segment starts with 0".into());
            }
        }
        Ok(Version {
            major: num(1)?,
            minor: num(2)?,
            patch: num(3)?,
            pre,
            metadata: m.get(8).map(|g| g.as_str().to_string()).unwrap_or_default(),
            original: s.to_string(),
        })
    }

    fn text(&self) -> String {
        let mut s = format!("{}.{}.{}", self.major, self.minor, self.patch);
        if !self.pre.is_empty() {
            s.push('-');
            s.push_str(&self.pre);
        }
        if !self.metadata.is_empty() {
            s.push('+');
            s.push_str(&self.metadata);
        }
        s
    }

    fn compare(&self, o: &Version) -> Ordering {
        let c = (self.major, self.minor, self.patch).cmp(&(o.major, o.minor, o.patch));
        if c != Ordering::Equal {
            return c;
        }
        match (self.pre.is_empty(), o.pre.is_empty()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            _ => compare_prerelease(&self.pre, &o.pre),
        }
    }
}

fn compare_pre_part(s: &str, o: &str) -> Ordering {
    if s == o {
        return Ordering::Equal;
    }
    if s.is_empty() {
        return Ordering::Less;
    }
    if o.is_empty() {
        return Ordering::Greater;
    }
    match (s.parse::<u64>(), o.parse::<u64>()) {
        (Err(_), Err(_)) => {
            if s > o {
                Ordering::Greater
            } else {
                Ordering::Less
            }
        }
        (Ok(_), Err(_)) => Ordering::Less,
        (Err(_), Ok(_)) => Ordering::Greater,
        (Ok(a), Ok(b)) => {
            if a > b {
                Ordering::Greater
            } else {
                Ordering::Less
            }
        }
    }
}

fn compare_prerelease(a: &str, b: &str) -> Ordering {
    let sa: Vec<&str> = a.split('.').collect();
    let sb: Vec<&str> = b.split('.').collect();
    for i in 0..sa.len().max(sb.len()) {
        let d = compare_pre_part(
            sa.get(i).copied().unwrap_or(""),
            sb.get(i).copied().unwrap_or(""),
        );
        if d != Ordering::Equal {
            return d;
        }
    }
    Ordering::Equal
}

struct Constraint {
    op: String,
    con: Version,
    dirty: bool,
    minor_dirty: bool,
    patch_dirty: bool,
}

fn is_x(s: &str) -> bool {
    matches!(s, "x" | "X" | "*")
}

fn parse_constraint(c: &str) -> Result<Constraint, String> {
    if c.is_empty() {
        return Ok(Constraint {
            op: String::new(),
            con: Version::parse("0.0.0")?,
            dirty: true,
            minor_dirty: false,
            patch_dirty: false,
        });
    }
    let m = regexes()
        .constraint
        .captures(c)
        .ok_or_else(|| format!("improper constraint: {}", crate::gofmt::quote(c)))?;
    let g = |i: usize| m.get(i).map(|x| x.as_str()).unwrap_or("");
    let (mut dirty, mut minor_dirty, mut patch_dirty) = (false, false, false);
    let pre = g(6);
    let ver = if is_x(g(3)) || g(3).is_empty() {
        dirty = true;
        format!("0.0.0{pre}")
    } else if is_x(g(4).trim_start_matches('.')) || g(4).is_empty() {
        dirty = true;
        minor_dirty = true;
        format!("{}.0.0{pre}", g(3))
    } else if is_x(g(5).trim_start_matches('.')) || g(5).is_empty() {
        dirty = true;
        patch_dirty = true;
        format!("{}{}.0{pre}", g(3), g(4))
    } else {
        g(2).to_string()
    };
    let con = Version::parse(&ver).map_err(|_| "constraint Parser Error".to_string())?;
    Ok(Constraint {
        op: g(1).to_string(),
        con,
        dirty,
        minor_dirty,
        patch_dirty,
    })
}

impl Constraint {
    fn check(&self, v: &Version) -> bool {
        let c = &self.con;
        if !v.pre.is_empty() && c.pre.is_empty() {
            return false;
        }
        match self.op.as_str() {
            "" | "=" => {
                if self.dirty {
                    return self.tilde(v);
                }
                v.compare(c) == Ordering::Equal
            }
            "!=" => {
                if self.dirty {
                    if c.major != v.major {
                        return true;
                    }
                    if c.minor != v.minor && !self.minor_dirty {
                        return true;
                    }
                    if self.minor_dirty {
                        return false;
                    }
                    if c.patch != v.patch && !self.patch_dirty {
                        return true;
                    }
                    if self.patch_dirty {
                        if !v.pre.is_empty() || !c.pre.is_empty() {
                            return compare_prerelease(&v.pre, &c.pre) != Ordering::Equal;
                        }
                        return false;
                    }
                }
                v.compare(c) != Ordering::Equal
            }
            ">" => {
                if !self.dirty {
                    return v.compare(c) == Ordering::Greater;
                }
                if v.major > c.major {
                    return true;
                }
                if v.major < c.major || self.minor_dirty {
                    return false;
                }
                if self.patch_dirty {
                    return v.minor > c.minor;
                }
                v.compare(c) == Ordering::Greater
            }
            "<" => v.compare(c) == Ordering::Less,
            ">=" | "=>" => v.compare(c) != Ordering::Less,
            "<=" | "=<" => {
                if !self.dirty {
                    return v.compare(c) != Ordering::Greater;
                }
                if v.major > c.major {
                    return false;
                }
                !(v.major == c.major && v.minor > c.minor && !self.minor_dirty)
            }
            "~" | "~>" => self.tilde(v),
            "^" => {
                if v.compare(c) == Ordering::Less {
                    return false;
                }
                if c.major > 0 || self.minor_dirty {
                    return v.major == c.major;
                }
                if v.major > 0 {
                    return false;
                }
                if c.minor > 0 || self.patch_dirty {
                    return v.minor == c.minor;
                }
                if v.minor > 0 {
                    return false;
                }
                c.patch == v.patch
            }
            _ => false,
        }
    }

    fn tilde(&self, v: &Version) -> bool {
        let c = &self.con;
        if v.compare(c) == Ordering::Less {
            return false;
        }
        if c.major == 0 && c.minor == 0 && c.patch == 0 && !self.minor_dirty && !self.patch_dirty {
            return true;
        }
        if v.major != c.major {
            return false;
        }
        v.minor == c.minor || self.minor_dirty
    }
}

fn rewrite_range(s: &str) -> String {
    let r = &regexes().range;
    let mut out = s.to_string();
    for m in r.captures_iter(s) {
        let whole = m.get(0).map(|x| x.as_str()).unwrap_or("");
        let a = m.get(1).map(|x| x.as_str()).unwrap_or("");
        let b = m.get(11).map(|x| x.as_str()).unwrap_or("");
        out = out.replacen(whole, &format!(">= {a}, <= {b} "), 1);
    }
    out
}

pub(crate) fn check_constraint(constraint: &str, version: &str) -> Result<bool, String> {
    let c = rewrite_range(constraint);
    let mut groups: Vec<Vec<Constraint>> = Vec::new();
    for or in c.split("||") {
        if !regexes().valid.is_match(or) {
            return Err(format!("improper constraint: {}", crate::gofmt::quote(or)));
        }
        let found: Vec<&str> = regexes().find.find_iter(or).map(|m| m.as_str()).collect();
        let parts = if found.is_empty() { vec![or] } else { found };
        let mut g = Vec::new();
        for p in parts {
            g.push(parse_constraint(p)?);
        }
        groups.push(g);
    }
    let v = Version::parse(version)?;
    Ok(groups.iter().any(|g| g.iter().all(|c| c.check(&v))))
}

impl Object for Version {
    fn type_name(&self) -> String {
        "*semver.Version".into()
    }

    fn field(&self, _name: &str) -> Option<Value> {
        None
    }

    fn call_method(&self, name: &str, args: &[Value]) -> Option<Result<Value, Error>> {
        let v = |x: u64| Some(Ok(Value::Int(x as i64)));
        match name {
            "Major" => v(self.major),
            "Minor" => v(self.minor),
            "Patch" => v(self.patch),
            "Prerelease" => Some(Ok(Value::from(self.pre.clone()))),
            "Metadata" => Some(Ok(Value::from(self.metadata.clone()))),
            "Original" => Some(Ok(Value::from(self.original.clone()))),
            "String" => Some(Ok(Value::from(self.text()))),
            "Compare" | "LessThan" | "GreaterThan" | "Equal" => {
                let Some(Value::Object(o)) = args.first() else {
                    return Some(Err(Error::func(format!(
                        "wrong type for value; expected *semver.Version; got {}",
                        args.first().map(Value::type_name).unwrap_or_default()
                    ))));
                };
                let Ok(other) = Version::parse(&o.format()) else {
                    return Some(Err(Error::func("invalid semantic version")));
                };
                let ord = self.compare(&other);
                Some(Ok(match name {
                    "Compare" => Value::Int(match ord {
                        Ordering::Less => -1,
                        Ordering::Equal => 0,
                        Ordering::Greater => 1,
                    }),
                    "LessThan" => Value::Bool(ord == Ordering::Less),
                    "GreaterThan" => Value::Bool(ord == Ordering::Greater),
                    _ => Value::Bool(ord == Ordering::Equal),
                }))
            }
            _ => None,
        }
    }

    fn format(&self) -> String {
        self.text()
    }

    fn to_value(&self) -> Option<Value> {
        Some(Value::from(self.text()))
    }
}

pub(super) fn register(f: &mut Functions) {
    fixed(f, "semverCompare", &[Type::String, Type::String], |_, a| {
        check_constraint(a[0].as_str().unwrap_or(""), a[1].as_str().unwrap_or(""))
            .map(Value::Bool)
            .map_err(panic_err)
    });
    fixed(f, "semver", &[Type::String], |_, a| {
        Version::parse(a[0].as_str().unwrap_or(""))
            .map(|v| Value::Object(Arc::new(v)))
            .map_err(panic_err)
    });
}
