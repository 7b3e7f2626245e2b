//! A manifest's head (`apiVersion`, `kind`, `metadata`) found without parsing the whole
//! document. Helm parses every rendered document to sort it, and a chart's CRDs are megabytes of
//! YAML, most of it schema that only needs to be *valid*. This module checks validity with a
//! line scanner for the shape rendered Kubernetes YAML nearly always has (block mappings and
//! sequences, plain and quoted scalars, block scalars) and hands back only the head's lines,
//! which the caller parses with the YAML crate as before.
//!
//! Whenever a document strays from that shape (flow collections, anchors, aliases, tags, tabs,
//! explicit keys, directives, unusual indentation, ...) the answer is `None` and the caller
//! parses the whole document: the scanner only ever says "valid" about text that every YAML
//! parser accepts, so the result cannot differ from the full parse, only arrive sooner.

/// The lines of the top-level `apiVersion`, `kind` and `metadata` entries of `doc`, or `None`
/// when `doc` is not (or not surely) a block mapping of the simple shape described above.
pub fn head_excerpt(doc: &str) -> Option<String> {
    let mut scanner = Scanner::default();
    let bytes = doc.as_bytes();
    let mut pos = 0;
    loop {
        let end = match scanner.quick_line(doc, pos) {
            Quick::Done(end) => end,
            Quick::Invalid => return None,
            Quick::General => {
                let end = memchr::memchr(b'\n', &bytes[pos..]).map_or(doc.len(), |i| pos + i);
                scanner.line(&doc[pos..end], pos)?;
                end
            }
        };
        if end >= doc.len() {
            break;
        }
        pos = end + 1;
    }
    scanner.finish(doc.len())?;
    let mut excerpt = String::new();
    for &(start, end) in &scanner.head {
        excerpt.push_str(&doc[start..end.min(doc.len())]);
        if !excerpt.ends_with('\n') {
            excerpt.push('\n');
        }
    }
    Some(excerpt)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Map,
    Seq,
}

/// An open block collection: the column of its keys or dashes.
#[derive(Clone, Copy)]
struct Block {
    indent: usize,
    kind: Kind,
}

/// What the scanner is inside of, across lines.
#[derive(Clone, Copy)]
enum Mode {
    Lines,
    /// A plain scalar that continues on lines indented past `parent`.
    Plain {
        parent: usize,
    },
    /// A single-quoted scalar not yet closed.
    Quoted {
        parent: usize,
    },
    /// A block scalar (`|`, `>`) of the entry at column `parent`; `content` is the column of
    /// its text once its first line is seen, `blank` the longest all-space line before it.
    Literal {
        parent: usize,
        content: Option<usize>,
        blank: usize,
    },
}

/// A key or dash whose value starts on a later line.
#[derive(Clone, Copy)]
struct Pending {
    /// The column of the key or dash: the value must be indented past it...
    parent: usize,
    /// ...or, for a key, be a sequence at the key's own column.
    key: bool,
}

struct Scanner {
    blocks: Vec<Block>,
    mode: Mode,
    pending: Option<Pending>,
    /// Byte ranges of the head entries; the last one is open until the next top-level key.
    head: Vec<(usize, usize)>,
    head_open: bool,
    seen_content: bool,
}

impl Default for Scanner {
    fn default() -> Scanner {
        Scanner {
            blocks: Vec::new(),
            mode: Mode::Lines,
            pending: None,
            head: Vec::new(),
            head_open: false,
            seen_content: false,
        }
    }
}

const HEAD_KEYS: &[&str] = &["apiVersion", "kind", "metadata"];

/// What [`Scanner::quick_line`] made of a line.
enum Quick {
    /// Read; the line ends at this byte (its `\n`, or the end of the document).
    Done(usize),
    /// Not a line of the common shapes: [`Scanner::line`] reads it (nothing was changed).
    General,
    /// A line that no YAML parser accepts where it stands.
    Invalid,
}

/// How the quick path sees a byte of a plain scalar.
const ORDINARY: u8 = 0;
const COLON: u8 = 1;
const HASH: u8 = 2;
const NEWLINE: u8 = 3;
const OTHER: u8 = 4;

const VALUE_BYTES: [u8; 256] = {
    let mut table = [OTHER; 256];
    let mut c = 0x20;
    while c < 0x7f {
        table[c] = ORDINARY;
        c += 1;
    }
    table[b':' as usize] = COLON;
    table[b'#' as usize] = HASH;
    table[b'\n' as usize] = NEWLINE;
    table
};

/// The first characters of a plain scalar the quick path takes: none that starts anything else.
const VALUE_START: [bool; 256] = {
    let mut table = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        table[c] = b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'_' | b'.' | b'/' | b'$' | b'(' | b'<' | b'=' | b'+' | b'^' | b'~'
            );
        c += 1;
    }
    table
};

impl Scanner {
    /// The lines that make up nearly all of a rendered manifest, read in one pass over their
    /// bytes: `key: value`, `key:`, `- value`, `- key: value` and `- key:`, where the key is
    /// made of name characters and the value is a plain scalar of printable ASCII. They are
    /// read as [`Scanner::line`] reads them; every other line is left to it.
    fn quick_line(&mut self, doc: &str, pos: usize) -> Quick {
        let b = doc.as_bytes();
        let at = |i: usize| b.get(i).copied().unwrap_or(b'\n');
        let indent = leading_spaces(&b[pos..]);
        let mut i = pos + indent;
        let ends_plain = match self.mode {
            Mode::Lines => false,
            Mode::Plain { parent } if indent <= parent => true,
            _ => return Quick::General,
        };
        let dash = at(i) == b'-' && at(i + 1) == b' ';
        if dash {
            i += 2;
            if at(i) == b' ' {
                return Quick::General;
            }
        }
        let column = i - pos;
        let key = KEY_START[usize::from(at(i))].then(|| {
            let mut j = i;
            while KEY_CHARS[usize::from(at(j))] {
                j += 1;
            }
            j
        });
        let key = key.filter(|&j| at(j) == b':' && matches!(at(j + 1), b' ' | b'\n'));
        if let Some(j) = key {
            let name = &b[i..j];
            if j - i > 1000 || matches!(name, b"null" | b"Null" | b"NULL") {
                return Quick::General;
            }
            i = j + 1;
            while at(i) == b' ' {
                i += 1;
            }
        } else if !dash {
            return Quick::General;
        }
        let value_start = i;
        if at(i) != b'\n' {
            if !VALUE_START[usize::from(at(i))] {
                return Quick::General;
            }
            loop {
                match VALUE_BYTES[usize::from(at(i))] {
                    ORDINARY => i += 1,
                    COLON if !matches!(at(i + 1), b' ' | b'\n') => i += 1,
                    HASH if b[i - 1] != b' ' => i += 1,
                    NEWLINE => break,
                    _ => return Quick::General,
                }
            }
        } else if key.is_none() {
            return Quick::General;
        }
        let end = i.min(b.len());
        // Read as the general path reads it.
        if ends_plain {
            self.mode = Mode::Lines;
        }
        let kind = if dash { Kind::Seq } else { Kind::Map };
        if self.place(indent, kind).is_none() {
            return Quick::Invalid;
        }
        if self.blocks.len() == 1 && kind == Kind::Map {
            self.top_level_key(&doc[pos + indent..end], pos);
        }
        if dash && key.is_some() {
            self.blocks.push(Block {
                indent: column,
                kind: Kind::Map,
            });
        }
        if value_start == end {
            self.pending = Some(Pending {
                parent: column,
                key: true,
            });
        } else {
            let parent = if key.is_some() { column } else { indent };
            self.mode = Mode::Plain { parent };
        }
        Quick::Done(end)
    }

    /// One line (without its `\n`) starting at byte `offset` of the document.
    fn line(&mut self, line: &str, offset: usize) -> Option<()> {
        let indent = leading_spaces(line.as_bytes());
        let rest = &line[indent..];
        // Printable ASCII, the usual case, is checked once; anything else by its characters,
        // tabs being text only inside block scalars.
        if !plain_ascii(rest.as_bytes())
            && !printable(rest, matches!(self.mode, Mode::Literal { .. }))
        {
            return None;
        }
        match self.mode {
            Mode::Literal {
                parent,
                content,
                blank,
            } => {
                if rest.is_empty() {
                    if content.is_none() {
                        self.mode = Mode::Literal {
                            parent,
                            content,
                            blank: blank.max(indent),
                        };
                    }
                    return Some(());
                }
                match content {
                    Some(column) if indent >= column => return Some(()),
                    None if indent > parent => {
                        // YAML refuses leading blank lines longer than the text's indentation.
                        if blank > indent || rest.starts_with('\t') {
                            return None;
                        }
                        self.mode = Mode::Literal {
                            parent,
                            content: Some(indent),
                            blank,
                        };
                        return Some(());
                    }
                    _ => {
                        // The line after a block scalar must pass as an ordinary line.
                        if rest.contains('\t') {
                            return None;
                        }
                        self.mode = Mode::Lines;
                    }
                }
            }
            Mode::Quoted { parent } => {
                if rest.is_empty() {
                    return Some(());
                }
                if indent <= parent {
                    return None;
                }
                return match single_quoted_end(rest) {
                    Some(end) => {
                        self.mode = Mode::Lines;
                        only_comment(&rest[end..])
                    }
                    None => Some(()),
                };
            }
            Mode::Plain { parent } => {
                if rest.is_empty() {
                    return Some(());
                }
                if indent > parent && !rest.starts_with('#') {
                    // A continuation line: no key, no comment, nothing a parser might read
                    // as the start of a sequence entry.
                    if rest.starts_with("- ") || rest == "-" || plain_stops(rest).is_some() {
                        return None;
                    }
                    return Some(());
                }
                self.mode = Mode::Lines;
            }
            Mode::Lines => {}
        }
        if rest.is_empty() || rest.starts_with('#') {
            return Some(());
        }
        if indent == 0 && (rest.starts_with("...") || rest.starts_with("---")) {
            return None;
        }
        // A flow collection on its own line is the value of the key or dash above it.
        if let Some(pending) = self.pending
            && indent > pending.parent
            && matches!(rest.as_bytes()[0], b'[' | b'{')
        {
            self.pending = None;
            return only_comment(&rest[flow_end(rest)?..]);
        }
        let dash = rest == "-" || rest.starts_with("- ");
        let kind = if dash { Kind::Seq } else { Kind::Map };
        self.place(indent, kind)?;
        if self.blocks.len() == 1 && kind == Kind::Map {
            self.top_level_key(rest, offset);
        }
        if dash {
            self.dash_entry(indent, rest)
        } else {
            self.map_entry(indent, rest)
        }
    }

    /// Fits an entry at `indent` into the open blocks: a new nested block, a sibling, or the
    /// end of deeper blocks.
    fn place(&mut self, indent: usize, kind: Kind) -> Option<()> {
        if !self.seen_content {
            self.seen_content = true;
            // The document must be a mapping, as Helm's head of a manifest is.
            if kind != Kind::Map {
                return None;
            }
            self.blocks.push(Block { indent, kind });
            return Some(());
        }
        if let Some(pending) = self.pending.take() {
            let top_is_map = self.blocks.last().is_some_and(|b| b.kind == Kind::Map);
            if indent > pending.parent
                || (pending.key && indent == pending.parent && kind == Kind::Seq && top_is_map)
            {
                self.blocks.push(Block { indent, kind });
                return Some(());
            }
        }
        while self.blocks.last().is_some_and(|b| b.indent > indent) {
            self.blocks.pop();
        }
        let top = *self.blocks.last()?;
        if top.indent != indent {
            return None;
        }
        if top.kind == kind {
            return Some(());
        }
        // A sequence at its key's column ends where the mapping's next key starts.
        if top.kind == Kind::Seq && kind == Kind::Map {
            self.blocks.pop();
            let below = *self.blocks.last()?;
            if below.indent == indent && below.kind == Kind::Map {
                return Some(());
            }
        }
        None
    }

    /// Records where a top-level key's entry starts, closing the previous head entry.
    fn top_level_key(&mut self, rest: &str, offset: usize) {
        if self.head_open {
            if let Some(last) = self.head.last_mut() {
                last.1 = offset;
            }
            self.head_open = false;
        }
        let key = key_text(rest);
        if key.is_some_and(|k| HEAD_KEYS.contains(&k)) {
            self.head.push((offset, usize::MAX));
            self.head_open = true;
        }
    }

    /// `- ...` at `indent`.
    fn dash_entry(&mut self, indent: usize, rest: &str) -> Option<()> {
        let after = &rest[1..];
        let value = after.trim_start_matches(' ');
        let column = indent + 1 + (after.len() - value.len());
        if value.is_empty() || value.starts_with('#') {
            self.pending = Some(Pending {
                parent: indent,
                key: false,
            });
            return Some(());
        }
        if value == "-" || value.starts_with("- ") {
            return None;
        }
        if key_end(value).is_some() {
            // `- key: value`: a mapping whose keys sit at the column of this one.
            self.blocks.push(Block {
                indent: column,
                kind: Kind::Map,
            });
            return self.map_entry(column, value);
        }
        self.value(indent, value)
    }

    /// `key: ...` at `indent`.
    fn map_entry(&mut self, indent: usize, rest: &str) -> Option<()> {
        let end = key_end(rest)?;
        let value = rest[end..].trim_start_matches(' ');
        if value.is_empty() || value.starts_with('#') {
            self.pending = Some(Pending {
                parent: indent,
                key: true,
            });
            return Some(());
        }
        self.value(indent, value)
    }

    /// A value that starts on the line of its key or dash at column `parent`.
    fn value(&mut self, parent: usize, value: &str) -> Option<()> {
        match value.as_bytes()[0] {
            b'|' | b'>' => {
                let header = &value[1..];
                let header = header.strip_prefix(['-', '+']).unwrap_or(header);
                if !header.is_empty() {
                    only_comment(header)?;
                }
                self.mode = Mode::Literal {
                    parent,
                    content: None,
                    blank: 0,
                };
                Some(())
            }
            b'"' => {
                let end = double_quoted_end(value)?;
                only_comment(&value[end..])
            }
            b'\'' => match single_quoted_end(&value[1..]) {
                Some(end) => only_comment(&value[1 + end..]),
                None => {
                    self.mode = Mode::Quoted { parent };
                    Some(())
                }
            },
            b'[' | b'{' => only_comment(&value[flow_end(value)?..]),
            b'-' => {
                // `-` starts a plain scalar when a character other than a space follows (`--x`).
                if matches!(value.as_bytes().get(1), None | Some(b' ')) {
                    return None;
                }
                self.plain(parent, value)
            }
            b'?' | b':' => None,
            b'&' | b'*' | b'!' | b'%' | b'@' | b'`' | b',' | b']' | b'}' | b'#' => None,
            _ => self.plain(parent, value),
        }
    }

    fn plain(&mut self, parent: usize, value: &str) -> Option<()> {
        match plain_stops(value) {
            // A comment ends the scalar for good: a parser refuses more of it on later lines.
            Some(Stop::Comment) => Some(()),
            Some(Stop::Colon) => None,
            None => {
                self.mode = Mode::Plain { parent };
                Some(())
            }
        }
    }

    fn finish(&mut self, len: usize) -> Option<()> {
        // A quote still open at the end is an error, for the YAML parser to word.
        if matches!(self.mode, Mode::Quoted { .. }) {
            return None;
        }
        if self.head_open
            && let Some(last) = self.head.last_mut()
        {
            last.1 = len;
        }
        Some(())
    }
}

/// Whether every character may appear in YAML text here: no control characters (tabs only
/// inside block scalars), no byte-order mark, none of the Unicode line breaks YAML 1.1 has.
fn printable(text: &str, tabs: bool) -> bool {
    if plain_ascii(text.as_bytes()) {
        return true;
    }
    text.chars().all(|c| match c {
        '\t' => tabs,
        ' '..='~' => true,
        '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'.. => {
            !matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}')
        }
        _ => false,
    })
}

/// How many spaces `bytes` starts with, counted eight at a time: the lines of a CRD's schema are
/// indented by dozens.
fn leading_spaces(bytes: &[u8]) -> usize {
    const SPACES: u64 = 0x2020_2020_2020_2020;
    let mut n = 0;
    for chunk in bytes.chunks_exact(8) {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        let other = u64::from_le_bytes(word) ^ SPACES;
        if other != 0 {
            return n + (other.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    n + bytes[n..].iter().take_while(|&&b| b == b' ').count()
}

/// Whether every byte is printable ASCII (a space to `~`), eight bytes at a time: this check
/// runs over every byte of a chart's output.
fn plain_ascii(bytes: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        let x = u64::from_le_bytes(word);
        // A high bit set: below 0x20 (x - 0x20 borrows), 0x7f or more (x + 1 carries), or 0x80.
        if (x.wrapping_sub(0x20 * ONES) | x.wrapping_add(ONES) | x) & HIGH != 0 {
            return false;
        }
    }
    chunks.remainder().iter().all(|b| (0x20..0x7f).contains(b))
}

enum Stop {
    /// ` #`: a comment.
    Comment,
    /// `: ` or a final `:`, which would make the text a key.
    Colon,
}

/// The first place a plain scalar's line stops being text.
fn plain_stops(text: &str) -> Option<Stop> {
    let b = text.as_bytes();
    let stop = |i: usize| match b[i] {
        b'#' if i > 0 && b[i - 1] == b' ' => Some(Stop::Comment),
        b':' if i + 1 == b.len() || b[i + 1] == b' ' => Some(Stop::Colon),
        _ => None,
    };
    // Most values are a word or two; a SIMD search pays off only on longer text.
    if b.len() < 32 {
        return (0..b.len())
            .filter(|&i| matches!(b[i], b'#' | b':'))
            .find_map(stop);
    }
    memchr::memchr2_iter(b'#', b':', b).find_map(stop)
}

/// The first characters of a plain key of the simple kind.
const KEY_START: [bool; 256] = {
    let mut table = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        table[c] = b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'/');
        c += 1;
    }
    table
};

/// The characters of a plain key of the simple kind.
const KEY_CHARS: [bool; 256] = {
    let mut table = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        table[c] = b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'/' | b'$');
        c += 1;
    }
    table
};

/// The end of a key and its `:` at the start of `text` (`name:`, `"name":`, `'name':`), when it
/// is a key of the simple kind: followed by a space or the end of the line.
fn key_end(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let end = match b[0] {
        b'"' => {
            let end = double_quoted_end(text)?;
            if text[1..end - 1].contains('\\') {
                return None;
            }
            end
        }
        b'\'' => 1 + single_quoted_end(&text[1..])?,
        c if KEY_START[usize::from(c)] => b
            .iter()
            .position(|&c| !KEY_CHARS[usize::from(c)])
            .unwrap_or(b.len()),
        _ => return None,
    };
    // YAML parsers look no further than 1024 characters for the `:` of a key.
    if end > 1000 || b.get(end) != Some(&b':') || !matches!(b.get(end + 1), None | Some(b' ')) {
        return None;
    }
    let key = &text[..end];
    if matches!(key, "null" | "Null" | "NULL") {
        return None;
    }
    Some(end + 1)
}

/// The key of a mapping entry line, unquoted.
fn key_text(text: &str) -> Option<&str> {
    let end = key_end(text)? - 1;
    let key = &text[..end];
    Some(match key.as_bytes()[0] {
        b'"' | b'\'' => &key[1..key.len() - 1],
        _ => key,
    })
}

/// The end (past the closing quote) of a double-quoted scalar that closes on this line, with
/// only escapes YAML knows.
fn double_quoted_end(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let mut i = 1;
    while i < b.len() {
        match b[i] {
            b'"' => return Some(i + 1),
            b'\\' => {
                let hex = match *b.get(i + 1)? {
                    b'0' | b'a' | b'b' | b't' | b'n' | b'v' | b'f' | b'r' | b'e' | b' ' | b'"'
                    | b'/' | b'\\' | b'N' | b'_' | b'L' | b'P' => 0,
                    b'x' => 2,
                    b'u' => 4,
                    b'U' => 8,
                    _ => return None,
                };
                let digits = b.get(i + 2..i + 2 + hex)?;
                if !digits.iter().all(u8::is_ascii_hexdigit) {
                    return None;
                }
                // Escaped code points must be characters (no surrogates, nothing past U+10FFFF).
                if hex >= 4 {
                    let code = u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()?;
                    char::from_u32(code)?;
                }
                i += 2 + hex;
            }
            _ => i += 1,
        }
    }
    None
}

/// The end (past the closing quote) of single-quoted text that starts after the opening quote,
/// when it closes on this line.
fn single_quoted_end(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\'' {
            if b.get(i + 1) == Some(&b'\'') {
                i += 2;
                continue;
            }
            return Some(i + 1);
        }
        i += 1;
    }
    None
}

/// The end of a flow collection on one line: `{}`, or `[...]` of quoted scalars and plain
/// scalars made of name characters (`["", 'apps']`, `[ALL]`).
fn flow_end(text: &str) -> Option<usize> {
    if text.starts_with("{}") || text.starts_with("[]") {
        return Some(2);
    }
    let b = text.as_bytes();
    if b[0] != b'[' {
        return None;
    }
    let mut i = 1;
    loop {
        while b.get(i) == Some(&b' ') {
            i += 1;
        }
        let rest = &text[i..];
        let len = match *b.get(i)? {
            b'"' => double_quoted_end(rest)?,
            b'\'' => 1 + single_quoted_end(&rest[1..])?,
            c if c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'/') => rest
                .bytes()
                .position(|c| {
                    !(c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b'/'))
                })
                .unwrap_or(rest.len()),
            _ => return None,
        };
        i += len;
        while b.get(i) == Some(&b' ') {
            i += 1;
        }
        match *b.get(i)? {
            b',' => i += 1,
            b']' => return Some(i + 1),
            _ => return None,
        }
    }
}

/// Whether what follows a closed scalar is nothing or a comment.
fn only_comment(rest: &str) -> Option<()> {
    let trimmed = rest.trim_start_matches(' ');
    if trimmed.is_empty() || (trimmed.starts_with('#') && trimmed.len() < rest.len()) {
        return Some(());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_head_of_a_simple_manifest_is_its_first_entries() {
        let doc = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels:\n    a: b\ndata:\n  k: |\n    text\n      more\n\n  j: 'it''s\n    folded'\n";
        assert_eq!(
            head_excerpt(doc).unwrap(),
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels:\n    a: b\n"
        );
    }

    #[test]
    fn sequences_may_sit_at_their_keys_column() {
        let doc = "kind: A\nspec:\n  items:\n  - name: a\n    value: 1\n  - b\n  other: x\nlist:\n- x\n- --flag\n- [\"\", 'apps', ALL]\nmap:\n  {}\n";
        assert_eq!(head_excerpt(doc).unwrap(), "kind: A\n");
    }

    #[test]
    fn anything_unusual_is_left_to_the_yaml_parser() {
        for doc in [
            "kind: A\nmetadata:\n  name: x\n   y: 1\n",
            "kind: A\na: &x 1\n",
            "kind: A\na: [1, {b: 2}]\n",
            "kind: A\na: [a b]\n",
            "kind: A\na: [*x]\n",
            "kind: A\na:\n  [a]: b\n",
            "kind: A\na: \"\\q\"\n",
            "kind: A\na: 'open\n",
            "kind: A\na:\n\tb: 1\n",
            "- a\n- b\n",
            "kind: A\na: foo\n  bar: baz\n",
            "kind: A\na: b # c\n  d\n",
            "kind: A\na: |\n      x\n    y\n",
            "kind: A\na: |\n        \n    x\n",
            "kind: A\n  b: 1\n",
            "kind: A\n...\n",
        ] {
            assert_eq!(head_excerpt(doc), None, "{doc:?}");
        }
    }

    #[test]
    fn word_at_a_time_checks_agree_with_byte_at_a_time_ones() {
        for n in 0..20 {
            let line = format!("{}x ", " ".repeat(n));
            assert_eq!(leading_spaces(line.as_bytes()), n);
            assert_eq!(leading_spaces(" ".repeat(n).as_bytes()), n);
        }
        for byte in 0..=255u8 {
            for at in 0..17 {
                let mut text = vec![b'a'; 17];
                text[at] = byte;
                assert_eq!(
                    plain_ascii(&text),
                    (0x20..0x7f).contains(&byte),
                    "byte {byte:#x} at {at}"
                );
            }
        }
    }

    #[test]
    fn comments_and_empty_values_are_plain_yaml() {
        let doc = "# c\nkind: A # x\nmetadata:\n  # inside\n  name:\n  annotations: {}\nspec:\n  a:\n  b: -1\n";
        assert_eq!(
            head_excerpt(doc).unwrap(),
            "kind: A # x\nmetadata:\n  # inside\n  name:\n  annotations: {}\n"
        );
        assert_eq!(head_excerpt("# only a comment\n").unwrap(), "");
    }
}
