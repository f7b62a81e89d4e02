//! The one place that decides who may use a listening proxy: where it may listen (loopback
//! unless remote use is allowed) and which `Host` and `Origin` a request may carry, the MCP
//! specification's defence against DNS rebinding (an invalid `Origin` is answered 403).
//!
//! The rules, and why:
//! - `Host` naming an IP address is allowed: a browser only sends one for the address it
//!   connected to, and DNS rebinding needs a name. `localhost` is allowed when the proxy listens
//!   on loopback (or on every address). Any other name must be allowed by name (`--allow-host`;
//!   `*` allows any). A request without `Host` is refused.
//! - `Origin` absent (no browser) is allowed. Otherwise its host must be loopback (`localhost`,
//!   `127.0.0.0/8`, `::1`) or the listening address itself, any port, `http` or `https`, or the
//!   origin must be allowed exactly (`--allow-origin`; `*` allows any). `null` is refused.

use hyper::header::{HOST, HeaderMap, ORIGIN};
use std::net::{IpAddr, SocketAddr};

/// Who may use a listening proxy. Built from the listening address and the allow-lists; one
/// instance answers for every request.
#[derive(Clone, Debug)]
pub struct Guard {
    listen: IpAddr,
    /// Host names allowed besides IP addresses and `localhost` (lower case, no port).
    hosts: Vec<String>,
    /// Origins allowed exactly (lower case, no trailing `/`).
    origins: Vec<String>,
}

/// What a guard is built from (the command line's `--allow-remote`, `--allow-host`,
/// `--allow-origin`).
#[derive(Clone, Debug, Default)]
pub struct Access {
    /// Listening on an address other than loopback is allowed.
    pub allow_remote: bool,
    /// Host names clients may use (`example.org`; a port given is ignored; `*`: any).
    pub hosts: Vec<String>,
    /// Origins browsers may send (`https://app.example.org`; `*`: any).
    pub origins: Vec<String>,
}

impl Guard {
    /// The guard of a proxy listening on `listen`; an error (to be said as it is) when
    /// `listen` is not loopback and remote use is not allowed.
    pub fn new(listen: SocketAddr, access: &Access) -> Result<Guard, String> {
        let ip = listen.ip();
        if !ip.is_loopback() && !access.allow_remote {
            return Err(format!(
                "{listen} is not a loopback address: a listening proxy is reachable from other \
                 machines there; give --allow-remote to mean it"
            ));
        }
        Ok(Guard {
            listen: ip,
            hosts: access.hosts.iter().map(|h| host_name(h)).collect(),
            origins: access.origins.iter().map(|o| origin_text(o)).collect(),
        })
    }

    /// `Ok` when a request with these headers may pass; otherwise why not.
    pub fn check(&self, headers: &HeaderMap) -> Result<(), String> {
        let host = headers
            .get(HOST)
            .ok_or("a request without Host is refused (DNS rebinding protection)")?;
        let host = String::from_utf8_lossy(host.as_bytes());
        if !self.host_allowed(&host) {
            return Err(format!(
                "Host {host:?} is not allowed (DNS rebinding protection; --allow-host {} allows it)",
                host_name(&host)
            ));
        }
        for origin in headers.get_all(ORIGIN) {
            let origin = String::from_utf8_lossy(origin.as_bytes());
            if !self.origin_allowed(&origin) {
                return Err(format!(
                    "Origin {origin:?} is not allowed (--allow-origin {} allows it)",
                    origin_text(&origin)
                ));
            }
        }
        Ok(())
    }

    fn host_allowed(&self, host: &str) -> bool {
        let name = host_name(host);
        if name.is_empty() {
            return false;
        }
        if ip(&name).is_some() || self.hosts.iter().any(|h| h == "*" || *h == name) {
            return true;
        }
        name == "localhost" && (self.listen.is_loopback() || self.listen.is_unspecified())
    }

    fn origin_allowed(&self, origin: &str) -> bool {
        let text = origin_text(origin);
        if self.origins.iter().any(|o| o == "*" || *o == text) {
            return true;
        }
        let Some(rest) = text
            .strip_prefix("http://")
            .or_else(|| text.strip_prefix("https://"))
        else {
            return false;
        };
        let name = host_name(rest);
        match ip(&name) {
            Some(address) => address.is_loopback() || address == self.listen,
            None => name == "localhost",
        }
    }
}

/// The host of a `Host` value (or of an origin without its scheme): lower case, without
/// port or trailing dot, an IPv6 address without brackets.
fn host_name(host: &str) -> String {
    let host = host.trim().to_ascii_lowercase();
    let name = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or("").to_string(),
        None => host.split(':').next().unwrap_or("").to_string(),
    };
    name.trim_end_matches('.').to_string()
}

fn origin_text(origin: &str) -> String {
    origin.trim().trim_end_matches('/').to_ascii_lowercase()
}

fn ip(name: &str) -> Option<IpAddr> {
    name.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::HeaderValue;

    /// Whether a request with `host` and `origin` passes a guard on `listen` with `access`.
    fn check(listen: &str, access: &Access, host: Option<&str>, origin: Option<&str>) -> bool {
        let guard = Guard::new(listen.parse().unwrap(), access).unwrap();
        let mut headers = HeaderMap::new();
        if let Some(host) = host {
            headers.insert(HOST, HeaderValue::from_str(host).unwrap());
        }
        if let Some(origin) = origin {
            headers.insert(ORIGIN, HeaderValue::from_str(origin).unwrap());
        }
        guard.check(&headers).is_ok()
    }

    /// Listening address, access, `Host`, `Origin`, whether it passes.
    type Case<'a> = (&'a str, &'a Access, Option<&'a str>, Option<&'a str>, bool);

    #[test]
    fn hosts_and_origins() {
        let none = Access::default();
        let named = Access {
            allow_remote: true,
            hosts: vec!["Mcp.Example.org:443".into()],
            origins: vec!["https://app.example.org/".into()],
        };
        let local = "127.0.0.1:8080";
        let cases: &[Case] = &[
            (local, &none, Some("127.0.0.1:8080"), None, true),
            (local, &none, Some("localhost:9"), None, true),
            (local, &none, Some("[::1]:8080"), None, true),
            (local, &none, Some("10.0.0.7"), None, true),
            // DNS rebinding: the attacker's name resolves to loopback now.
            (local, &none, Some("evil.example:8080"), None, false),
            (local, &none, Some("localhost.evil.example"), None, false),
            (local, &none, None, None, false),
            (local, &none, Some(""), None, false),
            (
                local,
                &none,
                Some("localhost"),
                Some("http://localhost:3000"),
                true,
            ),
            (
                local,
                &none,
                Some("localhost"),
                Some("https://127.0.0.1"),
                true,
            ),
            (
                local,
                &none,
                Some("localhost"),
                Some("http://[::1]:5"),
                true,
            ),
            (
                local,
                &none,
                Some("localhost"),
                Some("http://evil.example"),
                false,
            ),
            (
                local,
                &none,
                Some("127.0.0.1"),
                Some("http://10.0.0.7"),
                false,
            ),
            (local, &none, Some("localhost"), Some("null"), false),
            (
                local,
                &none,
                Some("localhost"),
                Some("file://localhost"),
                false,
            ),
            ("0.0.0.0:80", &named, Some("mcp.example.org."), None, true),
            ("0.0.0.0:80", &named, Some("localhost"), None, true),
            ("0.0.0.0:80", &named, Some("other.example.org"), None, false),
            (
                "10.0.0.7:80",
                &named,
                Some("10.0.0.7"),
                Some("https://APP.example.org"),
                true,
            ),
            ("10.0.0.7:80", &named, Some("localhost"), None, false),
            (
                "10.0.0.7:80",
                &named,
                Some("x"),
                Some("http://10.0.0.7:1"),
                false,
            ),
            (
                "10.0.0.7:80",
                &named,
                Some("10.0.0.7"),
                Some("http://10.0.0.7:1"),
                true,
            ),
        ];
        for (listen, access, host, origin, expected) in cases {
            let got = check(listen, access, *host, *origin);
            assert_eq!(got, *expected, "{listen} {access:?} {host:?} {origin:?}");
        }
    }

    #[test]
    fn any_host_and_origin_with_a_star() {
        let any = Access {
            allow_remote: false,
            hosts: vec!["*".into()],
            origins: vec!["*".into()],
        };
        assert!(check("[::1]:1", &any, Some("evil.example"), Some("null")));
    }

    #[test]
    fn remote_listening_must_be_asked_for() {
        let remote: SocketAddr = "0.0.0.0:8080".parse().unwrap();
        let refused = Guard::new(remote, &Access::default()).unwrap_err();
        assert!(refused.contains("--allow-remote"), "{refused}");
        for local in ["127.0.0.1:0", "127.3.4.5:1", "[::1]:0"] {
            assert!(Guard::new(local.parse().unwrap(), &Access::default()).is_ok());
        }
    }
}
