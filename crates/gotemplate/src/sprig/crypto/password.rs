//! Sprig's password functions: `derivePassword` (the Master Password algorithm), `bcrypt` and
//! `htpasswd` (Sprig v3.3's two-argument form, bcrypt only, as Helm 4 ships it).

use base64::Engine as _;

/// The Master Password site-key scope.
const SEED: &[u8] = b"com.lyndir.masterpassword";

/// Master Password's templates per password type.
fn templates(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "maximum" => &["anoxxxxxxxxxxxxxxxxx", "axxxxxxxxxxxxxxxxxno"],
        "long" => &[
            "CvcvnoCvcvCvcv",
            "CvcvCvcvnoCvcv",
            "CvcvCvcvCvcvno",
            "CvccnoCvcvCvcv",
            "CvccCvcvnoCvcv",
            "CvccCvcvCvcvno",
            "CvcvnoCvccCvcv",
            "CvcvCvccnoCvcv",
            "CvcvCvccCvcvno",
            "CvcvnoCvcvCvcc",
            "CvcvCvcvnoCvcc",
            "CvcvCvcvCvccno",
            "CvccnoCvccCvcv",
            "CvccCvccnoCvcv",
            "CvccCvccCvcvno",
            "CvcvnoCvccCvcc",
            "CvcvCvccnoCvcc",
            "CvcvCvccCvccno",
            "CvccnoCvcvCvcc",
            "CvccCvcvnoCvcc",
            "CvccCvcvCvccno",
        ],
        "medium" => &["CvcnoCvc", "CvcCvcno"],
        "short" => &["Cvcn"],
        "basic" => &["aaanaaan", "aannaaan", "aaannaaa"],
        "pin" => &["nnnn"],
        _ => return None,
    })
}

/// The characters a template letter stands for.
fn characters(class: u8) -> &'static [u8] {
    match class {
        b'V' => b"AEIOU",
        b'C' => b"BCDFGHJKLMNPQRSTVWXYZ",
        b'v' => b"aeiou",
        b'c' => b"bcdfghjklmnpqrstvwxyz",
        b'A' => b"AEIOUBCDFGHJKLMNPQRSTVWXYZ",
        b'a' => b"AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz",
        b'n' => b"0123456789",
        b'o' => b"@&%?,=[]_:-+*$#!'^~;()/.",
        b'x' => b"AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz0123456789!@#$%^&*()",
        _ => b"",
    }
}

/// Sprig's `derivePassword`: its output or its message.
pub(crate) fn derive_password(
    counter: u32,
    kind: &str,
    password: &str,
    user: &str,
    site: &str,
) -> String {
    let Some(templates) = templates(kind) else {
        return format!("cannot find password template {kind}");
    };
    // The master key: scrypt(password, scope ‖ len(user) ‖ user), N=32768, r=8, p=2.
    let mut salt = SEED.to_vec();
    salt.extend_from_slice(&(user.len() as u32).to_be_bytes());
    salt.extend_from_slice(user.as_bytes());
    let mut key = [0u8; 64];
    let derived = scrypt::Params::new(15, 8, 2, 64)
        .map_err(|e| e.to_string())
        .and_then(|p| {
            scrypt::scrypt(password.as_bytes(), &salt, &p, &mut key).map_err(|e| e.to_string())
        });
    if let Err(e) = derived {
        return format!("failed to derive password: {e}");
    }
    // The site seed: HMAC-SHA256(key, scope ‖ len(site) ‖ site ‖ counter).
    let mut message = SEED.to_vec();
    message.extend_from_slice(&(site.len() as u32).to_be_bytes());
    message.extend_from_slice(site.as_bytes());
    message.extend_from_slice(&counter.to_be_bytes());
    let hmac_key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &key);
    let seed = ring::hmac::sign(&hmac_key, &message);
    let seed = seed.as_ref();
    let template = templates[seed[0] as usize % templates.len()].as_bytes();
    template
        .iter()
        .enumerate()
        .map(|(i, class)| {
            let chars = characters(*class);
            chars[seed[i + 1] as usize % chars.len()] as char
        })
        .collect()
}

/// Go's `bcrypt.DefaultCost`.
const COST: u32 = 10;

/// Sprig's `bcrypt`: Go's `bcrypt.GenerateFromPassword` text ("$2a$10$..."), or its message.
pub(crate) fn bcrypt(password: &str) -> String {
    let mut salt = [0u8; 16];
    salt.copy_from_slice(&super::random_bytes(16));
    match bcrypt_with_salt(password.as_bytes(), COST, salt) {
        Ok(hash) => hash,
        Err(e) => format!("failed to encrypt string with bcrypt: {e}"),
    }
}

fn bcrypt_with_salt(password: &[u8], cost: u32, salt: [u8; 16]) -> Result<String, String> {
    if password.len() > 72 {
        return Err("bcrypt: password length exceeds 72 bytes".into());
    }
    // Go (like OpenBSD) hashes the password with its terminating NUL.
    let mut key = password.to_vec();
    key.push(0);
    key.truncate(72);
    let hash = bcrypt::bcrypt(cost, salt, &key);
    let b64 = base64::engine::GeneralPurpose::new(
        &base64::alphabet::BCRYPT,
        base64::engine::general_purpose::NO_PAD,
    );
    // Go keeps 23 of the 24 bytes, as every bcrypt does.
    Ok(format!(
        "$2a${cost:02}${}{}",
        b64.encode(salt),
        b64.encode(&hash[..23])
    ))
}

/// Sprig's `htpasswd`: an Apache `user:hash` line, or its message for a bad user name.
pub(crate) fn htpasswd(user: &str, password: &str) -> String {
    if user.contains(':') {
        return format!("invalid username: {user}");
    }
    format!("{user}:{}", bcrypt(password))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derive_password_matches_sprig() {
        // Computed by Helm 4 (Sprig v3.3): derivePassword 1 "long" "password" "user" "example.com".
        assert_eq!(
            derive_password(1, "long", "password", "user", "example.com"),
            "ZedaFaxcZaso9*"
        );
        assert_eq!(
            derive_password(1, "nope", "p", "u", "s"),
            "cannot find password template nope"
        );
    }

    #[test]
    fn bcrypt_matches_the_reference_vectors() {
        // OpenBSD's test vector: "U*U" with salt "CCCCCCCCCCCCCCCCCCCCC." at cost 5.
        let b64 = base64::engine::GeneralPurpose::new(
            &base64::alphabet::BCRYPT,
            base64::engine::general_purpose::NO_PAD,
        );
        let salt: [u8; 16] = b64
            .decode("CCCCCCCCCCCCCCCCCCCCC.")
            .unwrap()
            .try_into()
            .unwrap();
        assert_eq!(
            bcrypt_with_salt(b"U*U", 5, salt).unwrap(),
            "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"
        );
        let long = "x".repeat(73);
        assert_eq!(
            bcrypt(&long),
            "failed to encrypt string with bcrypt: bcrypt: password length exceeds 72 bytes"
        );
        let hash = bcrypt("pw");
        assert!(hash.starts_with("$2a$10$") && hash.len() == 60, "{hash}");
        assert_eq!(htpasswd("a:b", "pw"), "invalid username: a:b");
        assert!(htpasswd("user", "pw").starts_with("user:$2a$10$"));
    }
}
