//! `$VAR` and `${VAR}` replaced as Go's `os.ExpandEnv` replaces them, because watches.yaml's
//! `overrideValues` are expanded that way by the helm-operator and projects rely on its quirks:
//! an unset variable is empty, `$1`/`$@`-style single-character names exist, `${}` and an
//! unclosed `${` vanish, and a `$` followed by nothing name-like stays as it is.

/// Expands `text` with `lookup` (for the process environment, `|n| std::env::var(n).ok()`).
pub fn expand(text: &str, lookup: &dyn Fn(&str) -> Option<String>) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    // Start of the text not copied yet; every index used to slice is at an ASCII byte
    // ('$', '{', '}' or a name character) or the end, so slicing stays on char boundaries.
    let mut copied = 0;
    let mut j = 0;
    while j < bytes.len() {
        if bytes[j] == b'$' && j + 1 < bytes.len() {
            out.push_str(&text[copied..j]);
            let (name, width) = shell_name(&text[j + 1..]);
            match name {
                Some(name) => out.push_str(&lookup(name).unwrap_or_default()),
                // Valid syntax without a name: the dollar stays.
                None if width == 0 => out.push('$'),
                // Bad syntax: the characters are eaten.
                None => {}
            }
            j += width;
            copied = j + 1;
        }
        j += 1;
    }
    out.push_str(&text[copied.min(text.len())..]);
    out
}

fn is_special(b: u8) -> bool {
    matches!(b, b'*' | b'#' | b'$' | b'@' | b'!' | b'?' | b'-') || b.is_ascii_digit()
}

fn is_name_byte(b: u8) -> bool {
    b == b'_' || b.is_ascii_alphanumeric()
}

/// The variable name at the start of `s` (just after a `$`) and how many bytes it spans.
fn shell_name(s: &str) -> (Option<&str>, usize) {
    let bytes = s.as_bytes();
    if bytes[0] == b'{' {
        if bytes.len() > 2 && is_special(bytes[1]) && bytes[2] == b'}' {
            return (Some(&s[1..2]), 3);
        }
        return match bytes.iter().skip(1).position(|&b| b == b'}') {
            Some(0) => (None, 2),
            Some(i) => (Some(&s[1..=i]), i + 2),
            None => (None, 1),
        };
    }
    if is_special(bytes[0]) {
        return (Some(&s[..1]), 1);
    }
    let n = bytes.iter().take_while(|&&b| is_name_byte(b)).count();
    if n == 0 {
        (None, 0)
    } else {
        (Some(&s[..n]), n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "IMAGE" => Some("quay.io/x:1".into()),
            "A_1" => Some("a".into()),
            "1" => Some("one".into()),
            "weird name" => Some("w".into()),
            _ => None,
        }
    }

    #[test]
    fn expands_like_os_expand_env() {
        let cases = [
            ("$IMAGE", "quay.io/x:1"),
            ("${IMAGE}", "quay.io/x:1"),
            ("img=${IMAGE}!", "img=quay.io/x:1!"),
            ("$A_1-b", "a-b"),
            ("$UNSET", ""),
            ("x$", "x$"),
            ("$ x", "$ x"),
            ("$$", ""),
            ("$1x", "onex"),
            ("${1}", "one"),
            ("${}", ""),
            ("a${IMAGE", "aIMAGE"),
            ("${weird name}", "w"),
            ("€$IMAGE€", "€quay.io/x:1€"),
            ("no dollars", "no dollars"),
            ("$€", "$€"),
        ];
        for (input, want) in cases {
            assert_eq!(expand(input, &env), want, "{input}");
        }
    }
}
