//! Secrets out of what is recorded: the credentials of `Authorization`, `Proxy-Authorization`,
//! `Cookie` and `Set-Cookie`, of any header whose value is a bearer token, and of an
//! `access_token` query parameter are replaced by `<redacted sha256:XXXXXXXX>`, the first 32
//! bits of the credential's SHA-256. The scheme stays (`Bearer <redacted ...>`), and so does
//! the difference between two credentials: a trace still tells which requests shared one
//! (rule M8 compares listings per authorization) without holding any. What the observer gets
//! from the proxy is untouched: the checks see the real values, only the record is redacted.

use crate::event::{EventKind, HttpExchange};
use crate::refuse::Refusal;

/// Headers whose value is a scheme and a credential.
const AUTHORIZATION: [&str; 2] = ["authorization", "proxy-authorization"];
/// Headers whose whole value is a credential.
const COOKIE: [&str; 2] = ["cookie", "set-cookie"];

/// An event as it may be recorded: its headers and path redacted. Messages are unchanged.
pub fn redacted(kind: &EventKind) -> EventKind {
    match kind {
        EventKind::Http(http) => EventKind::Http(HttpExchange {
            path: path(&http.path),
            request_headers: headers(&http.request_headers),
            response_headers: headers(&http.response_headers),
            ..http.clone()
        }),
        EventKind::Refused(refusal) => EventKind::Refused(Refusal {
            path: path(&refusal.path),
            request_headers: headers(&refusal.request_headers),
            ..refusal.clone()
        }),
        other => other.clone(),
    }
}

/// Header pairs with their secrets redacted.
pub fn headers(pairs: &[(String, String)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(name, value)| (name.clone(), header(name, value)))
        .collect()
}

fn header(name: &str, value: &str) -> String {
    let name = name.to_ascii_lowercase();
    let bearer = value
        .get(..7)
        .is_some_and(|s| s.eq_ignore_ascii_case("bearer "));
    if COOKIE.contains(&name.as_str()) {
        return mark(value);
    }
    if !AUTHORIZATION.contains(&name.as_str()) && !bearer {
        return value.to_string();
    }
    // `Scheme credentials`: the scheme stays.
    match value.trim().split_once(' ') {
        Some((scheme, credentials)) => format!("{scheme} {}", mark(credentials.trim())),
        None => mark(value),
    }
}

/// A path with the value of an `access_token` query parameter redacted.
pub fn path(path: &str) -> String {
    let Some((base, query)) = path.split_once('?') else {
        return path.to_string();
    };
    let pairs: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((key, value)) if key.eq_ignore_ascii_case("access_token") => {
                format!("{key}={}", mark(value))
            }
            _ => pair.to_string(),
        })
        .collect();
    format!("{base}?{}", pairs.join("&"))
}

/// What stands for a secret: the first 32 bits of its SHA-256.
fn mark(secret: &str) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, secret.as_bytes());
    let hex: String = digest.as_ref()[..4]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("<redacted sha256:{hex}>")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(name: &str, value: &str, expected: &str) {
        let pairs = vec![(name.to_string(), value.to_string())];
        assert_eq!(headers(&pairs)[0].1, expected, "{name}: {value}");
    }

    #[test]
    fn secrets_are_redacted_schemes_and_differences_kept() {
        // SHA-256("abc") begins ba7816bf.
        let abc = "<redacted sha256:ba7816bf>";
        check("Authorization", "Bearer abc", &format!("Bearer {abc}"));
        check("authorization", "Basic abc", &format!("Basic {abc}"));
        check(
            "Proxy-Authorization",
            "Bearer  abc ",
            &format!("Bearer {abc}"),
        );
        check("Cookie", "abc", abc);
        check("set-cookie", "abc", abc);
        check("X-Upstream-Token", "bearer abc", &format!("bearer {abc}"));
        check("Authorization", "abc", abc);
        check("Mcp-Session-Id", "abc", "abc");
        check("Accept", "application/json", "application/json");
        let other = headers(&[("authorization".into(), "Bearer abd".into())]);
        assert_ne!(other[0].1, format!("Bearer {abc}"));
    }

    #[test]
    fn access_tokens_in_the_query() {
        assert_eq!(
            path("/mcp?x=1&access_token=abc"),
            "/mcp?x=1&access_token=<redacted sha256:ba7816bf>"
        );
        assert_eq!(path("/mcp?x=1"), "/mcp?x=1");
        assert_eq!(path("/mcp"), "/mcp");
    }
}
