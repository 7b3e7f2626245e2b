//! The little DER that keys and certificates need: a writer for the structures we build and a
//! reader for the ones we are given. The reader never panics: every length is checked against
//! what is left, and a malformed input is an `Err`.

pub(crate) const SEQUENCE: u8 = 0x30;
pub(crate) const SET: u8 = 0x31;
pub(crate) const INTEGER: u8 = 0x02;
pub(crate) const BIT_STRING: u8 = 0x03;
pub(crate) const OCTET_STRING: u8 = 0x04;
pub(crate) const NULL: u8 = 0x05;
pub(crate) const OID: u8 = 0x06;
pub(crate) const BOOLEAN: u8 = 0x01;
pub(crate) const UTF8_STRING: u8 = 0x0c;
pub(crate) const PRINTABLE_STRING: u8 = 0x13;
pub(crate) const UTC_TIME: u8 = 0x17;
pub(crate) const GENERALIZED_TIME: u8 = 0x18;

/// A tag-length-value with `tag` around `content`.
pub(crate) fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(content.len() + 6);
    out.push(tag);
    let n = content.len();
    if n < 0x80 {
        out.push(n as u8);
    } else {
        let bytes = n.to_be_bytes();
        let skip = bytes.iter().take_while(|b| **b == 0).count();
        out.push(0x80 | (bytes.len() - skip) as u8);
        out.extend_from_slice(&bytes[skip..]);
    }
    out.extend_from_slice(content);
    out
}

/// A constructed value made of already-encoded parts.
pub(crate) fn cons(tag: u8, parts: &[&[u8]]) -> Vec<u8> {
    tlv(tag, &parts.concat())
}

pub(crate) fn seq(parts: &[&[u8]]) -> Vec<u8> {
    cons(SEQUENCE, parts)
}

/// A non-negative INTEGER from big-endian magnitude bytes, minimally encoded.
pub(crate) fn uint(magnitude: &[u8]) -> Vec<u8> {
    let skip = magnitude.iter().take_while(|b| **b == 0).count();
    let m = &magnitude[skip..];
    let mut content = Vec::with_capacity(m.len() + 1);
    if m.is_empty() || m[0] & 0x80 != 0 {
        content.push(0);
    }
    content.extend_from_slice(m);
    tlv(INTEGER, &content)
}

pub(crate) fn small_int(v: u8) -> Vec<u8> {
    uint(&[v])
}

/// A BIT STRING of whole bytes.
pub(crate) fn bit_string(bytes: &[u8]) -> Vec<u8> {
    let mut content = Vec::with_capacity(bytes.len() + 1);
    content.push(0);
    content.extend_from_slice(bytes);
    tlv(BIT_STRING, &content)
}

/// An OBJECT IDENTIFIER from its arcs.
pub(crate) fn oid(arcs: &[u64]) -> Vec<u8> {
    let mut content = Vec::new();
    let first = arcs.first().copied().unwrap_or(0) * 40 + arcs.get(1).copied().unwrap_or(0);
    for arc in std::iter::once(first).chain(arcs.iter().skip(2).copied()) {
        let mut groups = vec![(arc & 0x7f) as u8];
        let mut rest = arc >> 7;
        while rest > 0 {
            groups.push(0x80 | (rest & 0x7f) as u8);
            rest >>= 7;
        }
        content.extend(groups.iter().rev());
    }
    tlv(OID, &content)
}

/// One element read from DER input.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tlv<'a> {
    pub tag: u8,
    pub content: &'a [u8],
    /// The whole element, header included.
    pub raw: &'a [u8],
}

impl<'a> Tlv<'a> {
    /// The elements inside a constructed value.
    pub fn reader(&self) -> Reader<'a> {
        Reader(self.content)
    }
}

/// Reads consecutive DER elements.
pub(crate) struct Reader<'a>(pub &'a [u8]);

pub(crate) type DerError = &'static str;

impl<'a> Reader<'a> {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn peek_tag(&self) -> Option<u8> {
        self.0.first().copied()
    }

    pub fn next(&mut self) -> Result<Tlv<'a>, DerError> {
        let input = self.0;
        let (&tag, rest) = input.split_first().ok_or("truncated")?;
        if tag & 0x1f == 0x1f {
            return Err("high-tag-number form");
        }
        let (&first, mut rest) = rest.split_first().ok_or("truncated")?;
        let len = if first < 0x80 {
            first as usize
        } else {
            let n = (first & 0x7f) as usize;
            if n == 0 || n > 4 || rest.len() < n {
                return Err("invalid length");
            }
            let mut len = 0usize;
            for b in &rest[..n] {
                len = (len << 8) | *b as usize;
            }
            rest = &rest[n..];
            len
        };
        if rest.len() < len {
            return Err("data truncated");
        }
        let header = input.len() - rest.len();
        let (content, after) = rest.split_at(len);
        self.0 = after;
        Ok(Tlv {
            tag,
            content,
            raw: &input[..header + len],
        })
    }

    /// The next element, which must have `tag`.
    pub fn expect(&mut self, tag: u8) -> Result<Tlv<'a>, DerError> {
        let t = self.next()?;
        if t.tag != tag {
            return Err("tags don't match");
        }
        Ok(t)
    }

    /// The next element if it has `tag`.
    pub fn optional(&mut self, tag: u8) -> Result<Option<Tlv<'a>>, DerError> {
        if self.peek_tag() == Some(tag) {
            self.next().map(Some)
        } else {
            Ok(None)
        }
    }
}

/// The magnitude bytes of a non-negative INTEGER, without its sign byte.
pub(crate) fn uint_bytes(t: &Tlv<'_>) -> Result<Vec<u8>, DerError> {
    if t.tag != INTEGER || t.content.is_empty() {
        return Err("invalid integer");
    }
    if t.content[0] & 0x80 != 0 {
        return Err("negative integer");
    }
    let skip = t.content.iter().take_while(|b| **b == 0).count();
    Ok(t.content[skip..].to_vec())
}

/// Parses one whole DER element with nothing after it.
pub(crate) fn parse_one(input: &[u8]) -> Result<Tlv<'_>, DerError> {
    let mut r = Reader(input);
    let t = r.next()?;
    if !r.is_empty() {
        return Err("trailing data");
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_integers_and_oids_encode_as_der() {
        assert_eq!(tlv(OCTET_STRING, &[0; 3]), [4, 3, 0, 0, 0]);
        assert_eq!(&tlv(OCTET_STRING, &[0; 200])[..3], &[4, 0x81, 200]);
        assert_eq!(&tlv(OCTET_STRING, &[0; 300])[..4], &[4, 0x82, 1, 44]);
        assert_eq!(uint(&[0, 0, 0x80]), [2, 2, 0, 0x80]);
        assert_eq!(uint(&[]), [2, 1, 0]);
        assert_eq!(uint(&[1]), [2, 1, 1]);
        // prime256v1, 1.2.840.10045.3.1.7
        assert_eq!(
            oid(&[1, 2, 840, 10045, 3, 1, 7]),
            [6, 8, 0x2a, 0x86, 0x48, 0xce, 0x3d, 3, 1, 7]
        );
    }

    #[test]
    fn the_reader_refuses_what_is_cut_short_and_never_panics() {
        let good = seq(&[&small_int(5), &tlv(OCTET_STRING, b"ab")]);
        let t = parse_one(&good).unwrap();
        let mut r = t.reader();
        assert_eq!(uint_bytes(&r.next().unwrap()).unwrap(), [5]);
        assert_eq!(r.expect(OCTET_STRING).unwrap().content, b"ab");
        assert!(r.is_empty());
        for cut in 0..good.len() {
            assert!(parse_one(&good[..cut]).is_err());
        }
        for bytes in [
            &[0x30, 0x84, 0xff, 0xff, 0xff, 0xff][..],
            &[0x1f, 0],
            &[0x30, 0x80],
        ] {
            assert!(parse_one(bytes).is_err());
        }
    }
}
