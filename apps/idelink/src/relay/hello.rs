//! Who may hold the page link, sans IO: the link secret, the resume token, and what a `hello`
//! gets.
//!
//! The secret (from the printed URL's fragment) links one page. Once a page linked, the secret
//! is spent: the link URL may have leaked (history, a screen share), so a second page
//! presenting it is refused, loudly, and the first page keeps the link. The linked page was
//! given a resume token (kept in its tab's `sessionStorage`), which links again from that tab
//! (a reload) and takes the link over from the page it replaces. Only the user moves the link
//! elsewhere: rotating ([`LinkKeys::rotate`], `r` + Enter in the relay's terminal) makes a new
//! secret, voids the resume token and unlinks the page.
//!
//! Which kind of link a hello makes ([`Linking`]) decides the claude token: only the same tab
//! resuming keeps it; any other link starts from a new one ([`super::session`]), so a page
//! the user moved the link away from holds a token that no longer opens anything.

use idelink_core::AuthToken;
use idelink_core::ws::close_code;

/// Close code for a link taken over by the same tab's reload (application range, RFC 6455
/// §7.4.2).
pub const REPLACED: u16 = 4000;
/// Close code for a page refused because another page holds (or held) the link.
pub const LINK_TAKEN: u16 = 4001;
/// Close code for a link closed because the user rotated the secret.
pub const ROTATED: u16 = 4002;
/// Close code for a missing, malformed or wrong hello (RFC 6455 §7.4.1: policy violation).
pub const POLICY: u16 = close_code::POLICY_VIOLATION;

/// Why a hello is refused: the close code and reason the page's socket gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refusal {
    /// The close code.
    pub code: u16,
    /// The close reason (at most 123 bytes, RFC 6455 §5.5.1).
    pub reason: &'static str,
}

/// A wrong or missing secret.
pub const WRONG_SECRET: Refusal = Refusal {
    code: POLICY,
    reason: "wrong link secret: open the URL idelink relay printed",
};
/// The secret is spent: another page linked with it.
pub const SECRET_SPENT: Refusal = Refusal {
    code: LINK_TAKEN,
    reason: "another page linked with this URL: type r and Enter in the relay terminal for a new one",
};

/// What a hello that links does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Linking {
    /// A page links with a secret no page has linked with yet (the first link, or the first
    /// after a rotation): it gets a new claude token.
    Fresh,
    /// The tab that last held the link links again (its resume token): it keeps the claude
    /// token it had.
    Resumed,
}

/// The credentials of the page link.
pub struct LinkKeys {
    secret: AuthToken,
    /// The linked page's resume token; Some once the secret is spent.
    resume: Option<AuthToken>,
}

impl LinkKeys {
    /// Keys with a fresh `secret`, not yet spent.
    pub fn new(secret: AuthToken) -> Self {
        LinkKeys {
            secret,
            resume: None,
        }
    }

    /// The secret the printed URL carries.
    pub fn secret(&self) -> &AuthToken {
        &self.secret
    }

    /// Decides on a hello: Ok when it links (taking the link over from any page linked now),
    /// saying how. Secrets and tokens are compared in constant time.
    pub fn check(&self, secret: &str, resume: Option<&str>) -> Result<Linking, Refusal> {
        if !self.secret.matches(secret.as_bytes()) {
            return Err(WRONG_SECRET);
        }
        match (&self.resume, resume) {
            (None, _) => Ok(Linking::Fresh),
            (Some(ours), Some(theirs)) if ours.matches(theirs.as_bytes()) => Ok(Linking::Resumed),
            (Some(_), _) => Err(SECRET_SPENT),
        }
    }

    /// A hello linked: `fresh` becomes the only resume token (the previous one is void, as
    /// the page that held it is replaced) and the secret is spent.
    pub fn grant(&mut self, fresh: AuthToken) -> &AuthToken {
        self.resume.insert(fresh)
    }

    /// The user asked for a new link URL: a new secret, no resume token.
    pub fn rotate(&mut self, secret: AuthToken) {
        self.secret = secret;
        self.resume = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(byte: u8) -> AuthToken {
        AuthToken::from_entropy([byte; 16])
    }

    #[test]
    fn the_secret_links_one_page_and_then_only_its_resume_token() {
        let mut keys = LinkKeys::new(token(1));
        let secret = token(1).as_str().to_owned();
        assert_eq!(keys.check("00", None), Err(WRONG_SECRET));
        assert_eq!(keys.check(&secret, None), Ok(Linking::Fresh));
        let resume = keys.grant(token(2)).as_str().to_owned();
        // A second page with the leaked URL.
        assert_eq!(keys.check(&secret, None), Err(SECRET_SPENT));
        assert_eq!(keys.check(&secret, Some("00")), Err(SECRET_SPENT));
        // The same tab, reloaded.
        assert_eq!(keys.check(&secret, Some(&resume)), Ok(Linking::Resumed));
        assert_eq!(keys.check("00", Some(&resume)), Err(WRONG_SECRET));
        let newer = keys.grant(token(3)).as_str().to_owned();
        assert_eq!(keys.check(&secret, Some(&resume)), Err(SECRET_SPENT));
        assert_eq!(keys.check(&secret, Some(&newer)), Ok(Linking::Resumed));
    }

    #[test]
    fn rotating_voids_the_secret_and_the_resume_token() {
        let mut keys = LinkKeys::new(token(1));
        let old = token(1).as_str().to_owned();
        let resume = keys.grant(token(2)).as_str().to_owned();
        keys.rotate(token(4));
        assert_eq!(keys.check(&old, Some(&resume)), Err(WRONG_SECRET));
        assert_eq!(keys.check(token(4).as_str(), None), Ok(Linking::Fresh));
        assert!(SECRET_SPENT.reason.len() <= 123 && WRONG_SECRET.reason.len() <= 123);
    }
}
