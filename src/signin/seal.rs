//! Sealing: what sign-in hands out (access and refresh tokens, codes, the
//! state sent through GitLab, consent tickets, registered client ids) is
//! encrypted and authenticated with the operator's key (AES-256-GCM), so
//! no store is needed and any instance holding the key can open it.
//!
//! A sealed value reads `gmcp1.<base64url(key id ‖ nonce ‖ ciphertext ‖ tag)>`.
//! The key id (4 bytes of the key's SHA-256) picks the key to open with, so
//! keys can be rotated: the first key seals, every listed key opens. The
//! purpose (`access`, `code`...) is authenticated data: a value sealed for
//! one purpose never opens as another. Expiry is checked by the caller,
//! from the payload.

use ring::aead::{AES_256_GCM, Aad, LessSafeKey, Nonce, UnboundKey};
use ring::digest::{SHA256, digest};
use ring::hkdf::{HKDF_SHA256, KeyType, Salt};
use ring::rand::{SecureRandom, SystemRandom};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::encoding::{decode_base64url, encode_base64url};

/// The prefix of every sealed value: tells them apart from GitLab tokens.
pub const PREFIX: &str = "gmcp1.";

/// The shortest key the operator may give, in bytes.
pub const MIN_KEY_BYTES: usize = 32;

const KEY_ID_LEN: usize = 4;
const NONCE_LEN: usize = 12;

/// Why a value does not open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum OpenError {
    #[error("not a value this server sealed")]
    Malformed,
    #[error("sealed with a key this server does not hold")]
    UnknownKey,
    #[error("tampered with, or sealed for another purpose")]
    Forged,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error(
        "GITLAB_MCP_TOKEN_KEY: each key must be at least {MIN_KEY_BYTES} bytes (such as `openssl rand -hex 32`); key {0} has {1}"
    )]
    TooShort(usize, usize),
    #[error("GITLAB_MCP_TOKEN_KEY is empty")]
    Empty,
}

struct Key {
    id: [u8; KEY_ID_LEN],
    aead: LessSafeKey,
}

pub struct Sealer {
    /// The first seals; all open.
    keys: Vec<Key>,
    random: SystemRandom,
}

impl std::fmt::Debug for Sealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Sealer({} keys)", self.keys.len())
    }
}

/// HKDF's output length for one AES-256 key.
struct Len32;

impl KeyType for Len32 {
    fn len(&self) -> usize {
        32
    }
}

impl Sealer {
    /// From the operator's comma-separated keys, each at least 32 bytes.
    pub fn new(keys: &str) -> Result<Sealer, KeyError> {
        let secrets: Vec<&str> = keys
            .split(',')
            .map(str::trim)
            .filter(|k| !k.is_empty())
            .collect();
        if secrets.is_empty() {
            return Err(KeyError::Empty);
        }
        let mut out = Vec::new();
        for (i, secret) in secrets.iter().enumerate() {
            if secret.len() < MIN_KEY_BYTES {
                return Err(KeyError::TooShort(i + 1, secret.len()));
            }
            // The operator's text is key material, not a key: HKDF makes a
            // uniform 256-bit key of it.
            let prk = Salt::new(HKDF_SHA256, b"gitlab-mcp sealing v1").extract(secret.as_bytes());
            let mut bytes = [0u8; 32];
            prk.expand(&[b"aes-256-gcm"], Len32)
                .and_then(|okm| okm.fill(&mut bytes))
                .expect("32 bytes is a valid HKDF-SHA256 output");
            let mut id = [0u8; KEY_ID_LEN];
            id.copy_from_slice(&digest(&SHA256, &bytes).as_ref()[..KEY_ID_LEN]);
            let aead = LessSafeKey::new(
                UnboundKey::new(&AES_256_GCM, &bytes).expect("a 32-byte AES-256 key"),
            );
            out.push(Key { id, aead });
        }
        Ok(Sealer {
            keys: out,
            random: SystemRandom::new(),
        })
    }

    /// `value` as JSON, sealed for `purpose`.
    pub fn seal<T: Serialize>(&self, purpose: &str, value: &T) -> String {
        let key = &self.keys[0];
        let mut nonce = [0u8; NONCE_LEN];
        self.random
            .fill(&mut nonce)
            .expect("the system's random source works");
        let mut data = serde_json::to_vec(value).expect("sealed payloads serialize");
        key.aead
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(purpose.as_bytes()),
                &mut data,
            )
            .expect("AES-GCM seals any length this server makes");
        let mut raw = Vec::with_capacity(KEY_ID_LEN + NONCE_LEN + data.len());
        raw.extend_from_slice(&key.id);
        raw.extend_from_slice(&nonce);
        raw.extend_from_slice(&data);
        format!("{PREFIX}{}", encode_base64url(&raw))
    }

    /// The payload of a value sealed for `purpose` with one of the keys.
    pub fn open<T: DeserializeOwned>(&self, purpose: &str, sealed: &str) -> Result<T, OpenError> {
        let body = sealed.strip_prefix(PREFIX).ok_or(OpenError::Malformed)?;
        // Strict: one spelling per value (`encoding::decode_base64url`).
        let raw = decode_base64url(body).ok_or(OpenError::Malformed)?;
        if raw.len() < KEY_ID_LEN + NONCE_LEN + AES_256_GCM.tag_len() {
            return Err(OpenError::Malformed);
        }
        let (id, rest) = raw.split_at(KEY_ID_LEN);
        let (nonce, ciphertext) = rest.split_at(NONCE_LEN);
        let key = self
            .keys
            .iter()
            .find(|k| k.id == id)
            .ok_or(OpenError::UnknownKey)?;
        let mut data = ciphertext.to_vec();
        let nonce = Nonce::try_assume_unique_for_key(nonce).map_err(|_| OpenError::Malformed)?;
        let plain = key
            .aead
            .open_in_place(nonce, Aad::from(purpose.as_bytes()), &mut data)
            .map_err(|_| OpenError::Forged)?;
        serde_json::from_slice(plain).map_err(|_| OpenError::Forged)
    }

    /// Fresh random bytes, base64url: PKCE verifiers, CSRF nonces.
    pub fn random_text(&self, bytes: usize) -> String {
        let mut buf = vec![0u8; bytes];
        self.random
            .fill(&mut buf)
            .expect("the system's random source works");
        encode_base64url(&buf)
    }
}

/// PKCE's S256 challenge of a verifier (RFC 7636 §4.2).
pub fn s256(verifier: &str) -> String {
    encode_base64url(digest(&SHA256, verifier.as_bytes()).as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Serialize, Deserialize, PartialEq)]
    struct Payload {
        token: String,
        exp: u64,
    }

    const KEY_A: &str = "0123456789abcdef0123456789abcdef-a";
    const KEY_B: &str = "0123456789abcdef0123456789abcdef-b";

    fn payload() -> Payload {
        Payload {
            token: "gitlab-oauth-token".into(),
            exp: 99,
        }
    }

    #[test]
    fn seals_and_opens_without_showing_the_payload() {
        let s = Sealer::new(KEY_A).unwrap();
        let sealed = s.seal("access", &payload());
        assert!(sealed.starts_with(PREFIX));
        assert!(!sealed.contains("gitlab-oauth-token"));
        assert_eq!(s.open::<Payload>("access", &sealed).unwrap(), payload());
        assert_ne!(
            sealed,
            s.seal("access", &payload()),
            "a fresh nonce each time"
        );
    }

    #[test]
    fn another_purpose_a_tampered_value_or_an_unknown_key_never_opens() {
        let s = Sealer::new(KEY_A).unwrap();
        let sealed = s.seal("code", &payload());
        assert_eq!(s.open::<Payload>("access", &sealed), Err(OpenError::Forged));
        let mut tampered = sealed.clone().into_bytes();
        let last = tampered.len() - 5;
        tampered[last] = if tampered[last] == b'A' { b'B' } else { b'A' };
        let tampered = String::from_utf8(tampered).unwrap();
        assert_eq!(s.open::<Payload>("code", &tampered), Err(OpenError::Forged));
        let other = Sealer::new(KEY_B).unwrap();
        assert_eq!(
            other.open::<Payload>("code", &sealed),
            Err(OpenError::UnknownKey)
        );
        assert_eq!(
            s.open::<Payload>("code", "glpat-abc"),
            Err(OpenError::Malformed)
        );
        assert_eq!(
            s.open::<Payload>("code", "gmcp1.!!"),
            Err(OpenError::Malformed)
        );
    }

    #[test]
    fn rotation_seals_with_the_first_key_and_opens_with_any() {
        let old = Sealer::new(KEY_A).unwrap();
        let sealed_before = old.seal("access", &payload());
        let rotated = Sealer::new(&format!("{KEY_B},{KEY_A}")).unwrap();
        assert_eq!(
            rotated.open::<Payload>("access", &sealed_before).unwrap(),
            payload()
        );
        let sealed_after = rotated.seal("access", &payload());
        assert_eq!(
            old.open::<Payload>("access", &sealed_after),
            Err(OpenError::UnknownKey)
        );
    }

    #[test]
    fn short_keys_are_refused() {
        assert_eq!(Sealer::new("short").unwrap_err(), KeyError::TooShort(1, 5));
        assert_eq!(Sealer::new(" , ").unwrap_err(), KeyError::Empty);
    }

    #[test]
    fn pkce_s256_is_base64url_of_sha256() {
        // Computed independently: Python's
        // base64.urlsafe_b64encode(hashlib.sha256(v).digest()).rstrip(b"=").
        assert_eq!(
            s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gXk6dNMw"),
            "hdubCUsji5dHBrjt5s8Fy0gQNKj0kzCWb3SL9sBI-FI"
        );
    }
}
