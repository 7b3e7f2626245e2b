//! The two pattern languages charts use: Go's `path.Match` (`.helmignore`, `--show-only`) and the
//! glob of `.Files.Glob` (gobwas/glob with `/` as separator: `**` crosses directories, `{a,b}`
//! alternatives). Both are small enough to interpret directly on characters.

/// Go's `path.Match`: `*` and `?` never match `/`; `[...]` classes with `^` negation and ranges;
/// `\` escapes. A malformed pattern matches nothing.
pub fn path_match(pattern: &str, name: &str) -> bool {
    // `.helmignore` rules are matched against every path of a chart: ASCII text, the usual
    // case, is matched on its bytes without collecting characters.
    if pattern.is_ascii() && name.is_ascii() {
        return go_match(pattern.as_bytes(), name.as_bytes()).unwrap_or(false);
    }
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    go_match(&p, &n).unwrap_or(false)
}

/// A character of a pattern or a name: a byte of ASCII text, or a `char`.
trait Sym: Copy + PartialOrd {
    fn is(self, c: char) -> bool;
}

impl Sym for u8 {
    fn is(self, c: char) -> bool {
        u32::from(self) == u32::from(c)
    }
}

impl Sym for char {
    fn is(self, c: char) -> bool {
        self == c
    }
}

fn go_match<T: Sym>(p: &[T], n: &[T]) -> Option<bool> {
    let (mut pi, mut ni) = (0, 0);
    // Backtracking point for the last `*`: (pattern index after it, name index it covers up to).
    let mut star: Option<(usize, usize)> = None;
    loop {
        if pi < p.len() {
            let c = p[pi];
            if c.is('*') {
                pi += 1;
                star = Some((pi, ni));
                continue;
            } else if c.is('?') {
                if ni < n.len() && !n[ni].is('/') {
                    pi += 1;
                    ni += 1;
                    continue;
                }
            } else if c.is('[') {
                if ni < n.len() {
                    let (matched, next) = class(p, pi + 1, n[ni], '^')?;
                    if matched && !n[ni].is('/') {
                        pi = next;
                        ni += 1;
                        continue;
                    }
                }
            } else if c.is('\\') {
                if pi + 1 < p.len() && ni < n.len() && p[pi + 1] == n[ni] {
                    pi += 2;
                    ni += 1;
                    continue;
                }
                if pi + 1 >= p.len() {
                    return None;
                }
            } else if ni < n.len() && c == n[ni] {
                pi += 1;
                ni += 1;
                continue;
            }
        } else if ni == n.len() {
            return Some(true);
        }
        // Mismatch: let the last `*` eat one more character, never a separator.
        match star {
            Some((after, covered)) if covered < n.len() && !n[covered].is('/') => {
                star = Some((after, covered + 1));
                pi = after;
                ni = covered + 1;
            }
            _ => return Some(false),
        }
    }
}

/// Matches one character against the class starting after `[`; returns whether it matched and
/// the pattern index after `]`.
fn class<T: Sym>(p: &[T], mut i: usize, c: T, negation: char) -> Option<(bool, usize)> {
    let negated = i < p.len() && (p[i].is(negation) || (negation == '!' && p[i].is('^')));
    if negated {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    loop {
        if i >= p.len() {
            return None;
        }
        if p[i].is(']') && !first {
            i += 1;
            break;
        }
        first = false;
        let mut lo = p[i];
        if lo.is('\\') {
            i += 1;
            lo = *p.get(i)?;
        }
        i += 1;
        let mut hi = lo;
        if i + 1 < p.len() && p[i].is('-') && !p[i + 1].is(']') {
            hi = p[i + 1];
            if hi.is('\\') {
                hi = *p.get(i + 2)?;
                i += 1;
            }
            i += 2;
        }
        if lo <= c && c <= hi {
            matched = true;
        }
    }
    Some((matched != negated, i))
}

/// The glob of `.Files.Glob`.
pub fn files_glob(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    glob_match(&p, &n)
}

fn glob_match(p: &[char], n: &[char]) -> bool {
    if p.is_empty() {
        return n.is_empty();
    }
    match p[0] {
        '*' if p.get(1) == Some(&'*') => {
            let rest = &p[2..];
            (0..=n.len()).any(|i| glob_match(rest, &n[i..]))
        }
        '*' => {
            let rest = &p[1..];
            let mut i = 0;
            loop {
                if glob_match(rest, &n[i..]) {
                    return true;
                }
                if i >= n.len() || n[i] == '/' {
                    return false;
                }
                i += 1;
            }
        }
        '?' => !n.is_empty() && n[0] != '/' && glob_match(&p[1..], &n[1..]),
        '[' => match (
            n.first(),
            class(p, 1, n.first().copied().unwrap_or('\0'), '!'),
        ) {
            (Some(_), Some((true, next))) => glob_match(&p[next..], &n[1..]),
            _ => false,
        },
        '{' => {
            let Some((alternatives, after)) = braces(p) else {
                return !n.is_empty() && n[0] == '{' && glob_match(&p[1..], &n[1..]);
            };
            alternatives.iter().any(|alt| {
                let mut combined = alt.clone();
                combined.extend_from_slice(&p[after..]);
                glob_match(&combined, n)
            })
        }
        '\\' if p.len() > 1 => !n.is_empty() && n[0] == p[1] && glob_match(&p[2..], &n[1..]),
        c => !n.is_empty() && n[0] == c && glob_match(&p[1..], &n[1..]),
    }
}

/// Splits `{a,b{c,d}}...` into its top-level alternatives and the index after `}`.
fn braces(p: &[char]) -> Option<(Vec<Vec<char>>, usize)> {
    let mut depth = 0;
    let mut current = Vec::new();
    let mut alternatives = Vec::new();
    for (i, &c) in p.iter().enumerate().skip(1) {
        match c {
            '{' => {
                depth += 1;
                current.push(c);
            }
            '}' if depth == 0 => {
                alternatives.push(current);
                return Some((alternatives, i + 1));
            }
            '}' => {
                depth -= 1;
                current.push(c);
            }
            ',' if depth == 0 => alternatives.push(std::mem::take(&mut current)),
            c => current.push(c),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_path_match() {
        assert!(path_match("*.txt", "a.txt"));
        assert!(!path_match("*.txt", "d/a.txt"));
        assert!(path_match("templates/.?*", "templates/.hidden"));
        assert!(!path_match("templates/.?*", "templates/x.yaml"));
        assert!(path_match("[a-c]?", "bx"));
        assert!(!path_match("[^a-c]?", "bx"));
        assert!(path_match("templates/*.yaml", "templates/x.yaml"));
    }

    #[test]
    fn files_glob_crosses_directories_with_double_star() {
        assert!(files_glob("files/*", "files/a.conf"));
        assert!(!files_glob("files/*", "files/d/a.conf"));
        assert!(files_glob("files/**", "files/d/a.conf"));
        assert!(files_glob("**.yaml", "x/y.yaml"));
        assert!(files_glob("{a,b}/*.txt", "b/z.txt"));
        assert!(files_glob("dashboards/*.json", "dashboards/x.json"));
    }
}
