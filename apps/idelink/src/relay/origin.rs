//! `--allow-origin`: another page origin (a user's dev server) that may open the page link,
//! checked when the relay starts so that a value the browser never sends is refused with what
//! to write instead. The upgrade compares `Origin` byte for byte (RFC 6454 §6.1, the
//! serialization browsers send), so the value must be that serialization.

/// The serialized origin `text` (`http://localhost:5173`), or what is wrong with it and how
/// to write it.
pub fn parse_origin(text: &str) -> Result<String, String> {
    let problem = |what: &str| Err(format!("--allow-origin {text:?}: {what}"));
    if text == "*" || text == "null" {
        return problem(
            "only one exact origin is accepted, never a wildcard or `null`: give the dev server's \
             address, e.g. --allow-origin http://localhost:5173",
        );
    }
    let Some((scheme, rest)) = text.split_once("://") else {
        return problem(
            "an origin is scheme://host[:port], e.g. --allow-origin http://localhost:5173",
        );
    };
    let default_port = match scheme {
        "http" => "80",
        "https" => "443",
        _ => return problem("the scheme must be http or https (the page's own address)"),
    };
    if let Some(at) = rest.find(['/', '?', '#']) {
        return problem(&format!(
            "an origin has no path, query or fragment: write {scheme}://{}",
            &rest[..at]
        ));
    }
    if rest.contains('@') {
        return problem("an origin has no user name or password");
    }
    let (host, port) = match rest.rsplit_once(':') {
        Some((host, port)) if !port.contains(']') => (host, Some(port)),
        _ => (rest, None),
    };
    if host.is_empty() {
        return problem("the host is missing, e.g. http://localhost:5173");
    }
    if host.bytes().any(|b| b.is_ascii_uppercase()) {
        return problem(&format!(
            "browsers send the host in lower case: write {}",
            text.to_ascii_lowercase()
        ));
    }
    let bracketed = host.starts_with('[') && host.ends_with(']');
    let plain = host
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'-');
    if !bracketed && !plain {
        return problem("the host may only hold letters, digits, `.` and `-` (or [an:ip:v6])");
    }
    if let Some(port) = port {
        if port == default_port {
            return problem(&format!(
                "browsers leave out the default port {port}: write {scheme}://{host}"
            ));
        }
        let valid = !port.is_empty()
            && !port.starts_with('0')
            && port.bytes().all(|b| b.is_ascii_digit())
            && port.parse::<u16>().is_ok();
        if !valid {
            return problem("the port must be a number from 1 to 65535 without leading zeros");
        }
    }
    Ok(text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_as_browsers_send_them_are_accepted() {
        for origin in [
            "http://localhost:5173",
            "https://ide.example.com",
            "http://127.0.0.1:8080",
            "http://[::1]:3000",
        ] {
            assert_eq!(parse_origin(origin).as_deref(), Ok(origin));
        }
    }

    #[test]
    fn anything_else_says_what_to_write() {
        for (bad, hint) in [
            ("*", "never a wildcard"),
            ("null", "never a wildcard"),
            ("localhost:5173", "scheme://host"),
            ("ftp://host", "http or https"),
            ("http://localhost:5173/", "write http://localhost:5173"),
            ("http://localhost:5173/app?x", "write http://localhost:5173"),
            ("http://user@host", "no user name"),
            ("http://:5173", "host is missing"),
            ("http://LocalHost:5173", "write http://localhost:5173"),
            ("http://local_host", "letters, digits"),
            ("http://localhost:80", "write http://localhost"),
            ("https://localhost:443", "write https://localhost"),
            ("http://localhost:65536", "1 to 65535"),
            ("http://localhost:05173", "1 to 65535"),
            ("http://localhost:", "1 to 65535"),
        ] {
            let message = parse_origin(bad).unwrap_err();
            assert!(message.starts_with("--allow-origin "), "{message}");
            assert!(message.contains(hint), "{bad}: {message}");
        }
    }
}
