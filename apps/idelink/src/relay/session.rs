//! What the page link's text messages mean, sans IO: the hello that links a page
//! ([`super::hello`] decides who may), and the linked page's requests, each answered with its
//! id (docs/relay.md).
//!
//! The session also keeps the claude token, the one secret claude presents (the lock file
//! carries it; the page's engine checks it on every upgrade). A same-tab resume keeps it; every
//! other link is handed a new one, and a rotation revokes it at once, so a page the link moved
//! away from holds a token that opens nothing (docs/relay.md, "The claude token").

use super::files::Workspace;
use super::hello::{LinkKeys, Linking, POLICY, Refusal};
use super::ledger_disk::PageWrite;
use super::link::{FromPage, ToPage, request_id};
use idelink_core::AuthToken;
use idelink_core::ws::close_code;
use std::io;

/// What the welcome tells the page, besides the claude token.
pub struct Welcome {
    /// The port claude connects to.
    pub claude_port: u16,
    /// The workspace folder.
    pub workspace: String,
    /// The name claude shows.
    pub ide_name: String,
}

/// What a text message from the linked page asks of the relay.
#[derive(Debug, PartialEq, Eq)]
pub enum Asked {
    /// Send this answer (JSON) to the page.
    Answer(String),
    /// Close claude connection `conn` once what was sent before is written.
    Close {
        /// The connection id.
        conn: u32,
    },
}

/// A page that linked. `Debug` shows neither token (the welcome carries them).
pub struct Linked {
    /// The welcome to send it (JSON).
    pub welcome: String,
    /// The claude token it was given, which the lock file must carry.
    pub auth_token: AuthToken,
    /// The token is new: every claude connection made under the previous one must close.
    pub fresh: bool,
}

impl std::fmt::Debug for Linked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Linked")
            .field("welcome", &"<redacted>")
            .field("auth_token", &self.auth_token)
            .field("fresh", &self.fresh)
            .finish()
    }
}

/// The link's credentials and what a linked page may ask for.
pub struct Session {
    keys: LinkKeys,
    /// The claude token of the page that holds (or last held) the link; None before the first
    /// link and after a rotation.
    claude_token: Option<AuthToken>,
    welcome: Welcome,
    workspace: Workspace,
}

/// The refusal when the OS gives no entropy for a token.
const NO_ENTROPY: Refusal = Refusal {
    code: close_code::INTERNAL_ERROR,
    reason: "the relay cannot draw entropy for its tokens",
};

impl Session {
    /// A session whose link URL carries `secret`.
    pub fn new(secret: AuthToken, welcome: Welcome, workspace: Workspace) -> Self {
        Session {
            keys: LinkKeys::new(secret),
            claude_token: None,
            welcome,
            workspace,
        }
    }

    /// The secret of the printed URL.
    pub fn secret(&self) -> &AuthToken {
        self.keys.secret()
    }

    /// The user asked for a new link URL: the secret is replaced and the claude token revoked
    /// (the next link is given a new one).
    pub fn rotate(&mut self, secret: AuthToken) {
        self.keys.rotate(secret);
        self.claude_token = None;
    }

    /// The first message on a link socket (`None` when it was binary). Ok: the page links,
    /// and gets its welcome with a resume token and, unless the same tab resumes, a new claude
    /// token, each of 16 bytes from `entropy`; Err: close it so.
    pub fn hello(
        &mut self,
        text: Option<&str>,
        mut entropy: impl FnMut() -> io::Result<[u8; 16]>,
    ) -> Result<Linked, Refusal> {
        let hello = text.and_then(|t| serde_json::from_str::<FromPage>(t).ok());
        let Some(FromPage::Hello { secret, resume }) = hello else {
            return Err(Refusal {
                code: POLICY,
                reason: "the first message on the link must be a hello",
            });
        };
        let linking = self.keys.check(&secret, resume.as_deref())?;
        let resume = AuthToken::from_entropy(entropy().map_err(|_| NO_ENTROPY)?);
        let kept = match linking {
            Linking::Resumed => self.claude_token.clone(),
            Linking::Fresh => None,
        };
        let fresh = kept.is_none();
        let auth_token = match kept {
            Some(token) => token,
            None => AuthToken::from_entropy(entropy().map_err(|_| NO_ENTROPY)?),
        };
        let resume = self.keys.grant(resume);
        self.claude_token = Some(auth_token.clone());
        let welcome = &self.welcome;
        let welcome = ToPage::Welcome {
            claude_port: welcome.claude_port,
            auth_token: auth_token.as_str(),
            workspace: &welcome.workspace,
            ide_name: &welcome.ide_name,
            resume: resume.as_str(),
        }
        .to_json();
        Ok(Linked {
            welcome,
            auth_token,
            fresh,
        })
    }

    /// A text message from the linked page; every answer carries the request's id (`null`
    /// when the message has none the relay can read).
    pub fn request(&self, text: &str) -> Asked {
        let answer = match serde_json::from_str::<FromPage>(text) {
            Ok(FromPage::Close { conn }) => return Asked::Close { conn },
            Ok(FromPage::List { id }) => {
                let listing = self.workspace.list();
                tracing::debug!(
                    files = listing.files.len(),
                    folders = listing.folders_read,
                    entries = listing.entries_visited,
                    truncated = listing.truncated,
                    "workspace listed"
                );
                ToPage::Files {
                    id,
                    files: &listing.files,
                    truncated: listing.truncated,
                }
                .to_json()
            }
            Ok(FromPage::Read { id, path }) => match self.workspace.read(&path) {
                Ok((path, text)) => ToPage::File {
                    id,
                    path: &path,
                    text: &text,
                }
                .to_json(),
                Err(message) => ToPage::Error {
                    id: Some(id),
                    message: &message,
                }
                .to_json(),
            },
            Ok(FromPage::Content { id, path }) => match self.workspace.ledger_content(&path) {
                Ok((path, content)) => ToPage::Content {
                    id,
                    path: &path,
                    content: &content,
                }
                .to_json(),
                Err(message) => ToPage::Error {
                    id: Some(id),
                    message: &message,
                }
                .to_json(),
            },
            Ok(FromPage::Write {
                id,
                path,
                expected,
                text,
            }) => {
                let write = PageWrite {
                    path,
                    expected,
                    text,
                };
                match self.workspace.ledger_write(write) {
                    Ok(done) => ToPage::Written {
                        id,
                        path: &done.path,
                        content: &done.content,
                        conflict: done.conflict.as_deref(),
                    }
                    .to_json(),
                    Err(message) => ToPage::Error {
                        id: Some(id),
                        message: &message,
                    }
                    .to_json(),
                }
            }
            Ok(FromPage::Hello { .. }) => ToPage::Error {
                id: None,
                message: "this page is already linked",
            }
            .to_json(),
            Err(e) => ToPage::Error {
                id: request_id(text),
                message: &format!("the relay does not understand this request: {e}"),
            }
            .to_json(),
        };
        Asked::Answer(answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn session(name: &str) -> (std::path::PathBuf, Session) {
        let dir =
            std::env::temp_dir().join(format!("idelink-session-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.txt"), "alpha").unwrap();
        let welcome = Welcome {
            claude_port: 4000,
            workspace: "/w".into(),
            ide_name: "n".into(),
        };
        let root = dir.canonicalize().unwrap();
        let secret = AuthToken::from_entropy([1; 16]);
        (dir, Session::new(secret, welcome, Workspace::new(root)))
    }

    fn answer(asked: Asked) -> Value {
        match asked {
            Asked::Answer(json) => serde_json::from_str(&json).unwrap(),
            other => panic!("{other:?}"),
        }
    }

    /// Entropy that counts: 1, 2, 3… in every byte.
    fn counter() -> impl FnMut() -> io::Result<[u8; 16]> {
        let mut next = 0;
        move || {
            next += 1;
            Ok([next; 16])
        }
    }

    fn hello_text(secret: &str, resume: Option<&str>) -> String {
        serde_json::json!({ "type": "hello", "secret": secret, "resume": resume }).to_string()
    }

    fn welcome_of(linked: &Linked) -> Value {
        serde_json::from_str(&linked.welcome).unwrap()
    }

    #[test]
    fn a_hello_with_the_secret_gets_the_welcome_and_a_resume_token() {
        let (dir, mut session) = session("hello");
        let secret = session.secret().as_str().to_owned();
        let hello = hello_text(&secret, None);
        let linked = session.hello(Some(&hello), counter()).unwrap();
        let welcome = welcome_of(&linked);
        assert_eq!(welcome["type"], "welcome");
        assert_eq!(welcome["resume"], AuthToken::from_entropy([1; 16]).as_str());
        assert_eq!(
            welcome["authToken"],
            AuthToken::from_entropy([2; 16]).as_str()
        );
        assert_eq!(welcome["authToken"], linked.auth_token.as_str());
        assert!(linked.fresh);
        let refused = session.hello(Some(&hello), counter()).unwrap_err();
        assert_eq!(refused.code, super::super::hello::LINK_TAKEN);
        let not_hello = session.hello(Some(r#"{"type":"list","id":1}"#), counter());
        assert_eq!(not_hello.unwrap_err().code, POLICY);
        assert_eq!(session.hello(None, counter()).unwrap_err().code, POLICY);
        let resume = welcome["resume"].as_str().unwrap();
        let no_entropy = session.hello(Some(&hello_text(&secret, Some(resume))), || {
            Err(io::Error::other("none"))
        });
        assert_eq!(no_entropy.unwrap_err().code, close_code::INTERNAL_ERROR);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn only_a_same_tab_resume_keeps_the_claude_token() {
        let (dir, mut session) = session("tokens");
        let secret = session.secret().as_str().to_owned();
        let first = session
            .hello(Some(&hello_text(&secret, None)), counter())
            .unwrap();
        let resume = welcome_of(&first)["resume"].as_str().unwrap().to_owned();
        // The same tab reloaded: the same claude token, nothing to close.
        let mut later = counter();
        later().unwrap();
        later().unwrap();
        let reloaded = session
            .hello(Some(&hello_text(&secret, Some(&resume))), later)
            .unwrap();
        assert!(!reloaded.fresh);
        assert!(
            reloaded
                .auth_token
                .matches(first.auth_token.as_str().as_bytes())
        );
        // A rotation: the next page gets a new token, and the old one is void.
        let rotated = AuthToken::from_entropy([9; 16]);
        session.rotate(rotated.clone());
        let mut after = counter();
        for _ in 0..4 {
            after().unwrap();
        }
        let moved = session
            .hello(Some(&hello_text(rotated.as_str(), None)), after)
            .unwrap();
        assert!(moved.fresh);
        assert!(
            !moved
                .auth_token
                .matches(first.auth_token.as_str().as_bytes())
        );
        assert_eq!(welcome_of(&moved)["authToken"], moved.auth_token.as_str());
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn requests_are_answered_with_their_id() {
        let (dir, session) = session("requests");
        let file = answer(session.request(r#"{"type":"read","id":3,"path":"a.txt"}"#));
        assert_eq!(
            (&file["type"], &file["id"], &file["text"]),
            (&"file".into(), &3.into(), &"alpha".into())
        );
        let missing = answer(session.request(r#"{"type":"read","id":4,"path":"b.txt"}"#));
        assert_eq!(
            (&missing["type"], &missing["id"]),
            (&"error".into(), &4.into())
        );
        let files = answer(session.request(r#"{"type":"list","id":5}"#));
        assert_eq!(
            (&files["id"], &files["files"][0]),
            (&5.into(), &"a.txt".into())
        );
        let unknown = answer(session.request(r#"{"type":"format","id":6}"#));
        assert_eq!(
            (&unknown["type"], &unknown["id"]),
            (&"error".into(), &6.into())
        );
        let garbage = answer(session.request("{"));
        assert_eq!(
            (&garbage["type"], &garbage["id"]),
            (&"error".into(), &Value::Null)
        );
        let content = answer(session.request(r#"{"type":"content","id":7,"path":"a.txt"}"#));
        assert_eq!(
            (&content["type"], &content["id"], &content["content"]),
            (
                &"content".into(),
                &7.into(),
                &serde_json::json!({"kind": "text", "text": "alpha"})
            )
        );
        let write = r#"{"type":"write","id":8,"path":"a.txt","expected":{"kind":"text","text":"alpha"},"text":"beta"}"#;
        let written = answer(session.request(write));
        assert_eq!(
            (&written["type"], &written["id"], &written["conflict"]),
            (&"written".into(), &8.into(), &Value::Null)
        );
        assert_eq!(std::fs::read_to_string(dir.join("a.txt")).unwrap(), "beta");
        let stale = answer(session.request(write));
        assert!(stale["conflict"].as_str().is_some(), "{stale}");
        assert_eq!(std::fs::read_to_string(dir.join("a.txt")).unwrap(), "beta");
        let outside = answer(session.request(r#"{"type":"content","id":9,"path":"../x"}"#));
        assert_eq!(
            (&outside["type"], &outside["id"]),
            (&"error".into(), &9.into())
        );
        assert_eq!(
            session.request(r#"{"type":"close","conn":9}"#),
            Asked::Close { conn: 9 }
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}
