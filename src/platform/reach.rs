//! Whether the API the platform calls can be reached at all. With the API
//! unreachable the platform retries each call for many minutes and prints
//! nothing meanwhile; bob-eval connects to the API (or the proxy the
//! platform would use) itself once a run has been quiet for [`QUIET`], and
//! stops the platform with a message that says so when nothing answers.
//!
//! `BOB_EVAL_API_PROBE=off` turns the check off (a network where a plain TCP
//! connection to the API is refused but the platform's own route works).

use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

/// How long the platform may run before bob-eval checks the API.
pub const QUIET: Duration = Duration::from_secs(5);
/// How long one connection attempt may take.
pub const CONNECT: Duration = Duration::from_secs(5);
/// The variable that turns the check off.
pub const SWITCH: &str = "BOB_EVAL_API_PROBE";
/// The API the platform calls when `ANTHROPIC_BASE_URL` is not set.
const DEFAULT_API: &str = "https://api.anthropic.com";

/// Where the platform's API calls first go: the API, or the proxy in between.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// What the user knows it as (the URL and the variable it came from).
    pub named: String,
    /// Host name or address.
    pub host: String,
    /// TCP port.
    pub port: u16,
}

/// The endpoint the platform will connect to, read through `var` (the
/// platform's environment); `None` when the check is off.
pub fn endpoint(var: impl Fn(&str) -> Option<String>) -> Option<Endpoint> {
    if var(SWITCH).is_some_and(|v| matches!(v.trim(), "0" | "off" | "false" | "no")) {
        return None;
    }
    for proxy in ["HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"] {
        if let Some(url) = var(proxy).filter(|v| !v.trim().is_empty()) {
            return parse(&url, &format!("the proxy {url} (${proxy})"));
        }
    }
    match var("ANTHROPIC_BASE_URL").filter(|v| !v.trim().is_empty()) {
        Some(url) => parse(&url, &format!("the API at {url} ($ANTHROPIC_BASE_URL)")),
        None => parse(DEFAULT_API, &format!("the API at {DEFAULT_API}")),
    }
}

/// Host and port of `url` (`scheme://[user@]host[:port][/…]`); `None` when
/// it cannot be read, so an odd URL is left to the platform.
fn parse(url: &str, named: &str) -> Option<Endpoint> {
    let url = url.trim();
    let (scheme, rest) = url.split_once("://").unwrap_or(("http", url));
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let default_port = match scheme.to_ascii_lowercase().as_str() {
        "https" => 443,
        "http" => 80,
        _ => return None,
    };
    let (host, port) = if let Some(rest) = authority.strip_prefix('[') {
        let (host, after) = rest.split_once(']')?;
        let port = match after.strip_prefix(':') {
            Some(p) => p.parse().ok()?,
            None => default_port,
        };
        (host.to_owned(), port)
    } else {
        match authority.rsplit_once(':') {
            Some((host, p)) => (host.to_owned(), p.parse().ok()?),
            None => (authority.to_owned(), default_port),
        }
    };
    if host.is_empty() {
        return None;
    }
    Some(Endpoint {
        named: named.to_owned(),
        host,
        port,
    })
}

/// Connect to `endpoint` (every address its name resolves to, each within
/// `timeout`); `Err` says why nothing answered.
pub fn probe(endpoint: &Endpoint, timeout: Duration) -> Result<(), String> {
    let addrs: Vec<_> = (endpoint.host.as_str(), endpoint.port)
        .to_socket_addrs()
        .map_err(|e| format!("its name {} does not resolve: {e}", endpoint.host))?
        .collect();
    if addrs.is_empty() {
        return Err(format!("its name {} has no address", endpoint.host));
    }
    let mut last = String::new();
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, timeout) {
            Ok(_) => return Ok(()),
            Err(e) => last = format!("connecting to {addr}: {e}"),
        }
    }
    Err(last)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn with(vars: &[(&str, &str)]) -> Option<Endpoint> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        endpoint(|name| map.get(name).cloned())
    }

    #[test]
    fn the_endpoint_is_the_proxy_else_the_base_url_else_the_default() {
        let e = with(&[]).unwrap();
        assert_eq!((e.host.as_str(), e.port), ("api.anthropic.com", 443));
        let e = with(&[("ANTHROPIC_BASE_URL", "http://127.0.0.1:8080/v1")]).unwrap();
        assert_eq!((e.host.as_str(), e.port), ("127.0.0.1", 8080));
        assert!(e.named.contains("$ANTHROPIC_BASE_URL"), "{}", e.named);
        let e = with(&[
            ("ANTHROPIC_BASE_URL", "http://127.0.0.1:8080"),
            ("HTTPS_PROXY", "http://user:pw@proxy.local:3128"),
        ])
        .unwrap();
        assert_eq!((e.host.as_str(), e.port), ("proxy.local", 3128));
        let e = with(&[("ANTHROPIC_BASE_URL", "https://[::1]/")]).unwrap();
        assert_eq!((e.host.as_str(), e.port), ("::1", 443));
        assert_eq!(with(&[(SWITCH, "off")]), None);
        assert_eq!(with(&[("ANTHROPIC_BASE_URL", "ftp://x")]), None);
    }

    #[test]
    fn a_closed_port_is_unreachable_and_a_listener_is_not() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let open = parse(&format!("http://127.0.0.1:{port}"), "open").unwrap();
        assert_eq!(probe(&open, CONNECT), Ok(()));
        drop(listener);
        let closed = parse(&format!("http://127.0.0.1:{port}"), "closed").unwrap();
        let why = probe(&closed, CONNECT).unwrap_err();
        assert!(why.contains("127.0.0.1"), "{why}");
    }
}
