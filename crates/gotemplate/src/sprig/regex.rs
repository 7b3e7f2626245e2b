//! Sprig's regular expressions (Go's RE2 syntax; the `regex` crate implements the same family).

use std::cell::RefCell;
use std::collections::HashMap;

use super::conv::str_list;
use super::{fixed, panic_err};
use crate::error::Error;
use crate::funcs::{Function, Functions, Type};
use crate::value::Value;

use Type::{Int, String as Str};

fn s(a: &Value) -> &str {
    a.as_str().unwrap_or("")
}

fn n(a: &Value) -> i64 {
    match a {
        Value::Int(i) => *i,
        _ => 0,
    }
}

/// Go's `strconv.CanBackquote`-or-`Quote`, as `regexp.MustCompile` quotes in its panic.
fn go_regexp_quote(s: &str) -> String {
    if s.chars()
        .all(|c| c != '`' && c != '\u{FEFF}' && (c == '\t' || !c.is_control()))
    {
        format!("`{s}`")
    } else {
        crate::gofmt::quote(s)
    }
}

/// Go's `regexp/syntax` error text for the common syntax errors, located with the regex
/// crate's own parser (which accepts the same RE2 syntax).
fn go_syntax_error(re: &str) -> Option<String> {
    use regex_syntax::ast::ErrorKind as K;
    let err = regex_syntax::ast::parse::Parser::new().parse(re).err()?;
    let span = err.span();
    let part = |a: usize, b: usize| re.get(a..b).unwrap_or(re).to_string();
    let (code, expr) = match err.kind() {
        K::GroupUnclosed => ("missing closing )", re.to_string()),
        K::GroupUnopened => ("unexpected )", re.to_string()),
        K::ClassUnclosed => ("missing closing ]", part(span.start.offset, re.len())),
        K::RepetitionMissing => {
            // The regex crate's span is empty at the operator; Go names the operator.
            let op_len = re[span.start.offset..]
                .chars()
                .next()
                .map_or(0, char::len_utf8);
            (
                "missing argument to repetition operator",
                part(span.start.offset, span.start.offset + op_len),
            )
        }
        K::EscapeUnrecognized => (
            "invalid escape sequence",
            part(span.start.offset, span.end.offset),
        ),
        K::EscapeUnexpectedEof => ("trailing backslash at end of expression", String::new()),
        K::RepetitionCountInvalid => (
            "invalid repeat count",
            part(span.start.offset, span.end.offset),
        ),
        K::ClassRangeInvalid => (
            "invalid character class range",
            part(span.start.offset, span.end.offset),
        ),
        K::GroupNameInvalid | K::GroupNameEmpty | K::GroupNameUnexpectedEof => (
            "invalid named capture",
            part(span.start.offset, span.end.offset),
        ),
        K::FlagUnrecognized | K::FlagUnexpectedEof => (
            "invalid or unsupported Perl syntax",
            part(span.start.offset, span.end.offset),
        ),
        _ => return None,
    };
    Some(format!("error parsing regexp: {code}: `{expr}`"))
}

/// Compiles `re`. Sprig's plain forms use `regexp.MustCompile`, whose panic names the
/// expression; the `must` forms return `regexp.Compile`'s error as it is.
fn compile(re: &str, must: bool) -> Result<regex::Regex, Error> {
    regex::RegexBuilder::new(&ascii_perl_classes(re))
        .size_limit(32 << 20)
        .build()
        .map_err(|e| {
            let msg = go_syntax_error(re).unwrap_or_else(|| format!("error parsing regexp: {e}"));
            if must {
                Error::func(msg)
            } else {
                panic_err(format!("regexp: Compile({}): {msg}", go_regexp_quote(re)))
            }
        })
}

/// `re` with its `\d`, `\D`, `\w` and `\W` written as the ASCII classes they are in Go's RE2
/// syntax (`[0-9]`, `[0-9A-Za-z_]`, and every other character for the negated forms). The
/// regex crate reads them as Unicode classes: `\d` would match `٣`, which Go's does not, and
/// Unicode's word class made compiling `\W` (common's `regexReplaceAllLiteral "\\W"`) cost
/// more than the rest of a render's expressions together. `\s` differs from Go's only in
/// characters charts do not meet, and is left as it is. A pattern that does not parse is left
/// for the compiler to refuse with its own error.
fn ascii_perl_classes(re: &str) -> std::borrow::Cow<'_, str> {
    use regex_syntax::ast::{self, Ast, ClassPerl, ClassPerlKind, ClassSetItem};

    /// Each `\d`/`\w` class of a pattern, and whether it stands inside brackets.
    struct Classes(Vec<(ClassPerl, bool)>);
    impl ast::Visitor for Classes {
        type Output = Vec<(ClassPerl, bool)>;
        type Err = std::convert::Infallible;
        fn finish(self) -> Result<Self::Output, Self::Err> {
            Ok(self.0)
        }
        fn visit_pre(&mut self, ast: &Ast) -> Result<(), Self::Err> {
            if let Ast::ClassPerl(class) = ast {
                self.0.push(((**class).clone(), false));
            }
            Ok(())
        }
        fn visit_class_set_item_pre(&mut self, item: &ClassSetItem) -> Result<(), Self::Err> {
            if let ClassSetItem::Perl(class) = item {
                self.0.push((class.clone(), true));
            }
            Ok(())
        }
    }

    if !re.contains('\\') {
        return re.into();
    }
    let Ok(parsed) = ast::parse::Parser::new().parse(re) else {
        return re.into();
    };
    let Ok(mut classes) = ast::visit(&parsed, Classes(Vec::new()));
    classes.retain(|(class, _)| !matches!(class.kind, ClassPerlKind::Space));
    if classes.is_empty() {
        return re.into();
    }
    classes.sort_by_key(|(class, _)| class.span.start.offset);
    let mut out = String::with_capacity(re.len() + 16 * classes.len());
    let mut at = 0;
    for (class, in_brackets) in classes {
        let name = match class.kind {
            ClassPerlKind::Digit => "digit",
            _ => "word",
        };
        let negated = if class.negated { "^" } else { "" };
        out.push_str(&re[at..class.span.start.offset]);
        if in_brackets {
            out.push_str(&format!("[:{negated}{name}:]"));
        } else {
            out.push_str(&format!("[[:{negated}{name}:]]"));
        }
        at = class.span.end.offset;
    }
    out.push_str(&re[at..]);
    out.into()
}

/// How many compiled expressions a thread keeps; past it the cache starts over.
const CACHED_EXPRESSIONS: usize = 256;

/// Runs `f` with `re` compiled. Charts call `regexMatch` and its kin with the same few
/// patterns again and again (once per `include` of a helper), and compiling an expression costs
/// far more than matching it, so compiled expressions are kept, by pattern, per thread. Errors
/// are not kept: a chart that fails stops rendering.
fn with_compiled<T>(re: &str, must: bool, f: impl FnOnce(&regex::Regex) -> T) -> Result<T, Error> {
    thread_local! {
        static COMPILED: RefCell<HashMap<String, regex::Regex>> = RefCell::new(HashMap::new());
    }
    COMPILED.with(|cache| {
        if let Some(compiled) = cache.borrow().get(re) {
            return Ok(f(compiled));
        }
        let compiled = compile(re, must)?;
        let out = f(&compiled);
        let mut cache = cache.borrow_mut();
        if cache.len() >= CACHED_EXPRESSIONS {
            cache.clear();
        }
        cache.insert(re.to_string(), compiled);
        Ok(out)
    })
}

fn find_all(re: &regex::Regex, text: &str, n: i64) -> Vec<String> {
    let it = re.find_iter(text).map(|m| m.as_str().to_string());
    if n < 0 {
        it.collect()
    } else {
        it.take(n as usize).collect()
    }
}

/// Go's `Regexp.Split`.
fn split(re: &regex::Regex, text: &str, n: i64) -> Vec<String> {
    if n == 0 {
        return Vec::new();
    }
    if !re.as_str().is_empty() && text.is_empty() {
        return vec![String::new()];
    }
    let matches: Vec<(usize, usize)> = re
        .find_iter(text)
        .map(|m| (m.start(), m.end()))
        .take(if n > 0 { n as usize } else { usize::MAX })
        .collect();
    let mut out = Vec::new();
    let (mut beg, mut end) = (0usize, 0usize);
    for (a, b) in matches {
        if n > 0 && out.len() as i64 == n - 1 {
            break;
        }
        end = a;
        if b != 0 {
            out.push(text[beg..end].to_string());
        }
        beg = b;
    }
    if end != text.len() {
        out.push(text[beg..].to_string());
    }
    out
}

/// Go's template expansion (`$1`, `${name}`) mapped onto the regex crate's, which is the same.
fn replace_all(re: &regex::Regex, text: &str, repl: &str) -> String {
    re.replace_all(text, repl).into_owned()
}

pub(super) fn register(f: &mut Functions) {
    fixed(f, "regexMatch", &[Str, Str], |_, a| {
        Ok(Value::Bool(
            with_compiled(s(&a[0]), false, |re| re.is_match(s(&a[1]))).unwrap_or(false),
        ))
    });
    fixed(f, "mustRegexMatch", &[Str, Str], |_, a| {
        Ok(Value::Bool(with_compiled(s(&a[0]), true, |re| {
            re.is_match(s(&a[1]))
        })?))
    });
    for (name, must) in [("regexFindAll", false), ("mustRegexFindAll", true)] {
        f.insert(
            name,
            Function::new(&[Str, Str, Int], move |_, a| {
                Ok(str_list(with_compiled(s(&a[0]), must, |re| {
                    find_all(re, s(&a[1]), n(&a[2]))
                })?))
            }),
        );
    }
    for (name, must) in [("regexFind", false), ("mustRegexFind", true)] {
        f.insert(
            name,
            Function::new(&[Str, Str], move |_, a| {
                Ok(with_compiled(s(&a[0]), must, |re| {
                    re.find(s(&a[1]))
                        .map(|m| m.as_str().to_string())
                        .unwrap_or_default()
                })?
                .into())
            }),
        );
    }
    for (name, must) in [("regexReplaceAll", false), ("mustRegexReplaceAll", true)] {
        f.insert(
            name,
            Function::new(&[Str, Str, Str], move |_, a| {
                Ok(with_compiled(s(&a[0]), must, |re| replace_all(re, s(&a[1]), s(&a[2])))?.into())
            }),
        );
    }
    for (name, must) in [
        ("regexReplaceAllLiteral", false),
        ("mustRegexReplaceAllLiteral", true),
    ] {
        f.insert(
            name,
            Function::new(&[Str, Str, Str], move |_, a| {
                Ok(with_compiled(s(&a[0]), must, |re| {
                    re.replace_all(s(&a[1]), regex::NoExpand(s(&a[2])))
                        .into_owned()
                })?
                .into())
            }),
        );
    }
    for (name, must) in [("regexSplit", false), ("mustRegexSplit", true)] {
        f.insert(
            name,
            Function::new(&[Str, Str, Int], move |_, a| {
                Ok(str_list(with_compiled(s(&a[0]), must, |re| {
                    split(re, s(&a[1]), n(&a[2]))
                })?))
            }),
        );
    }
    fixed(f, "regexQuoteMeta", &[Str], |_, a| {
        let mut out = String::new();
        for c in s(&a[0]).chars() {
            if "\\.+*?()|[]{}^$".contains(c) {
                out.push('\\');
            }
            out.push(c);
        }
        Ok(out.into())
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perl_classes_are_go_s_ascii_ones() {
        let rewritten = |re: &str| ascii_perl_classes(re).into_owned();
        assert_eq!(rewritten(r"\W"), "[[:^word:]]");
        assert_eq!(rewritten(r"(-?[^a-z\d\-])+-?"), r"(-?[^a-z[:digit:]\-])+-?");
        assert_eq!(rewritten(r"-r\d+$|sha256:"), "-r[[:digit:]]+$|sha256:");
        assert_eq!(rewritten(r"\s\D[\w\s]"), r"\s[[:^digit:]][[:word:]\s]");
        assert_eq!(rewritten(r"\\d\.x"), r"\\d\.x");
        assert_eq!(rewritten("(unclosed"), "(unclosed");

        let matches = |re: &str, text: &str| compile(re, true).unwrap().is_match(text);
        // Go's \d is [0-9] and its \w is [0-9A-Za-z_]; their negations match any other
        // character, multi-byte ones included.
        assert!(!matches(r"^\d$", "٣"));
        assert!(matches(r"^\D$", "٣"));
        assert!(!matches(r"^\w$", "é"));
        assert!(matches(r"^[\W]$", "é"));
        assert!(matches(r"(?i)^\w+$", "Ab_9"));
        let replaced = compile(r"\W", true)
            .unwrap()
            .replace_all("a-b_c✓d", "")
            .into_owned();
        assert_eq!(replaced, "ab_cd");
        // What compiled before the rewrite compiles after it, and what did not still does not.
        for re in [
            r"[\d-z]",
            r"[a-\d]",
            r"[\w&&[a-z]]",
            r"[\d--5]",
            r"\d{2,1}",
            r"[[:alpha:]\W]",
            r"(?u:\w)+",
            r"(?-u:\d)",
        ] {
            assert_eq!(
                compile(re, true).is_ok(),
                regex::Regex::new(re).is_ok(),
                "{re}"
            );
        }
    }
}
