//! Names and label values made from an object's name, within Kubernetes' limits. One that does
//! not fit keeps its start and ends with a hash of the whole: long names that share a start
//! still differ, and a name always gets the same value (a Deployment's selector never changes).

pub const LABEL_VALUE_MAX: usize = 63;

/// The most characters of a Deployment's name that leave room for its ReplicaSets' and pods'
/// suffixes (`-<pod-template-hash>-<5 characters>`).
pub const DEPLOYMENT_NAME_MAX: usize = 236;

pub fn label_value(value: &str) -> String {
    bounded(value, LABEL_VALUE_MAX)
}

/// `value` in at most `max` characters: itself, or its start, a `-` and 16 hex digits of a hash.
pub fn bounded(value: &str, max: usize) -> String {
    if value.len() <= max {
        return value.to_string();
    }
    let hash = format!("{:016x}", fnv1a(value.as_bytes()));
    let end = value.floor_char_boundary(max.saturating_sub(hash.len() + 1));
    // Names and label values start and end with an alphanumeric character.
    match value[..end].trim_end_matches(|c: char| !c.is_ascii_alphanumeric()) {
        "" => hash,
        start => format!("{start}-{hash}"),
    }
}

/// FNV-1a: stable across Rust versions, unlike `std`'s hasher, so a new build of the operator
/// computes the same values as the old one.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_values_are_kept() {
        assert_eq!(label_value("cache"), "cache");
        let exactly = "a".repeat(LABEL_VALUE_MAX);
        assert_eq!(label_value(&exactly), exactly);
    }

    #[test]
    fn long_values_fit_stay_distinct_and_stable() {
        let start = "a-long-name-that-a-team-gave-its-cache-in-the-production-cluster";
        let one = label_value(&format!("{start}-one"));
        let two = label_value(&format!("{start}-two"));
        assert!(one.len() <= LABEL_VALUE_MAX, "{one}");
        assert_ne!(one, two);
        assert_eq!(one, label_value(&format!("{start}-one")));
        assert!(one.starts_with("a-long-name"), "{one}");
        // The values Kubernetes accepts: alphanumeric at both ends.
        for value in [&one, &two] {
            assert!(value.chars().next().unwrap().is_ascii_alphanumeric());
            assert!(value.chars().last().unwrap().is_ascii_alphanumeric());
        }
    }

    #[test]
    fn a_cut_that_ends_in_a_dash_drops_it() {
        let value = format!("{}-{}", "a".repeat(45), "b".repeat(40));
        let cut = label_value(&value);
        assert!(!cut.contains("--"), "{cut}");
        assert!(cut.len() <= LABEL_VALUE_MAX);
    }

    #[test]
    fn a_cut_never_splits_a_character() {
        let cut = bounded(&"é".repeat(40), 30);
        assert!(cut.len() <= 30, "{cut}");
    }

    #[test]
    fn the_hash_is_fnv1a() {
        // The published FNV-1a test vectors.
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
