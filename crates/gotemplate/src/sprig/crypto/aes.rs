//! Sprig's `encryptAES`/`decryptAES`: AES-256-CBC with the password zero-padded (or cut) to 32
//! bytes as the key, PKCS#7 padding, a random IV in front, all in standard base64. Go's panics
//! on malformed input become errors with Go's runtime messages, as the template engine
//! reports a function's panic.

use aes::Aes256;
use aes::cipher::{BlockDecrypt, BlockEncrypt, KeyInit, generic_array::GenericArray};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

const BLOCK: usize = 16;

fn cipher(password: &str) -> Aes256 {
    let mut key = [0u8; 32];
    let p = password.as_bytes();
    let n = p.len().min(32);
    key[..n].copy_from_slice(&p[..n]);
    Aes256::new(GenericArray::from_slice(&key))
}

pub(crate) fn encrypt(password: &str, plaintext: &str) -> String {
    let mut iv = [0u8; BLOCK];
    iv.copy_from_slice(&super::random_bytes(BLOCK));
    encrypt_with_iv(password, plaintext, iv)
}

fn encrypt_with_iv(password: &str, plaintext: &str, iv: [u8; BLOCK]) -> String {
    if plaintext.is_empty() {
        return String::new();
    }
    let aes = cipher(password);
    let mut content = plaintext.as_bytes().to_vec();
    let padding = BLOCK - content.len() % BLOCK;
    content.extend(std::iter::repeat_n(padding as u8, padding));
    let mut out = iv.to_vec();
    let mut previous = iv;
    for chunk in content.chunks(BLOCK) {
        let mut block = [0u8; BLOCK];
        for (b, (p, c)) in block.iter_mut().zip(previous.iter().zip(chunk)) {
            *b = p ^ c;
        }
        let mut ga = GenericArray::from(block);
        aes.encrypt_block(&mut ga);
        previous.copy_from_slice(&ga);
        out.extend_from_slice(&ga);
    }
    STANDARD.encode(out)
}

pub(crate) fn decrypt(password: &str, encoded: &str) -> Result<String, String> {
    if encoded.is_empty() {
        return Ok(String::new());
    }
    let crypt = STANDARD
        .decode(encoded)
        .map_err(|_| crate::sprig::encoding::b64_error(encoded))?;
    // The capacity Go's DecodeString allocates, which its slice panics report.
    let capacity = encoded.len() / 4 * 3;
    if crypt.len() < BLOCK {
        return Err(format!(
            "runtime error: slice bounds out of range [:{BLOCK}] with capacity {capacity}"
        ));
    }
    let (iv, body) = crypt.split_at(BLOCK);
    if body.len() % BLOCK != 0 {
        return Err("crypto/cipher: input not full blocks".into());
    }
    let aes = cipher(password);
    let mut plain = Vec::with_capacity(body.len());
    let mut previous = iv;
    for chunk in body.chunks(BLOCK) {
        let mut ga = GenericArray::clone_from_slice(chunk);
        aes.decrypt_block(&mut ga);
        plain.extend(ga.iter().zip(previous).map(|(a, b)| a ^ b));
        previous = chunk;
    }
    // Go trusts the last byte as the padding length, unchecked.
    let Some(&last) = plain.last() else {
        return Err("runtime error: index out of range [-1]".into());
    };
    let Some(end) = plain.len().checked_sub(last as usize) else {
        return Err(format!(
            "runtime error: slice bounds out of range [:{}]",
            plain.len() as i64 - last as i64
        ));
    };
    Ok(String::from_utf8_lossy(&plain[..end]).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vector_computed_from_the_scheme() {
        // AES-256-CBC, key "secret" + 26 zero bytes, IV 00..0f, "hello" + 11 bytes of 0x0b:
        // the IV then the block `openssl enc -aes-256-cbc -K 736563726574 (zeros to 64 hex
        // digits) -iv 000102030405060708090a0b0c0d0e0f` writes for "hello".
        let iv: [u8; 16] = std::array::from_fn(|i| i as u8);
        let out = encrypt_with_iv("secret", "hello", iv);
        assert_eq!(out, "AAECAwQFBgcICQoLDA0OD/zYDgky5Vq7TY3y/MAnTrM=");
        assert_eq!(decrypt("secret", &out).unwrap(), "hello");
        assert_eq!(
            decrypt("secret", &encrypt("secret", "a longer text, two blocks")).unwrap(),
            "a longer text, two blocks"
        );
    }

    #[test]
    fn go_panics_on_bad_input_become_errors() {
        assert_eq!(encrypt("k", ""), "");
        assert_eq!(decrypt("k", "").unwrap(), "");
        assert_eq!(
            decrypt("k", "AAAA").err().unwrap(),
            "runtime error: slice bounds out of range [:16] with capacity 3"
        );
        assert_eq!(
            decrypt("k", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
                .err()
                .unwrap(),
            "crypto/cipher: input not full blocks"
        );
        assert_eq!(
            decrypt("k", "AAAAAAAAAAAAAAAAAAAAAA==").err().unwrap(),
            "runtime error: index out of range [-1]"
        );
        assert_eq!(
            decrypt("k", "!!").err().unwrap(),
            "illegal base64 data at input byte 0"
        );
    }
}
