//! What the page link's text messages mean, sans IO: the hello that links a page
//! ([`super::hello`] decides who may), and the linked page's requests, each answered with its
//! id (docs/relay.md).

use super::files::Workspace;
use super::hello::{LinkKeys, POLICY, Refusal};
use super::link::{FromPage, ToPage, request_id};
use idelink_core::AuthToken;
use idelink_core::ws::close_code;
use std::io;

/// What the welcome tells the page.
pub struct Welcome {
    /// The port claude connects to.
    pub claude_port: u16,
    /// The token in the lock file.
    pub auth_token: String,
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

/// The link's credentials and what a linked page may ask for.
pub struct Session {
    keys: LinkKeys,
    welcome: Welcome,
    workspace: Workspace,
}

impl Session {
    /// A session whose link URL carries `secret`.
    pub fn new(secret: AuthToken, welcome: Welcome, workspace: Workspace) -> Self {
        Session {
            keys: LinkKeys::new(secret),
            welcome,
            workspace,
        }
    }

    /// The secret of the printed URL.
    pub fn secret(&self) -> &AuthToken {
        self.keys.secret()
    }

    /// The user asked for a new link URL.
    pub fn rotate(&mut self, secret: AuthToken) {
        self.keys.rotate(secret);
    }

    /// The first message on a link socket (`None` when it was binary). Ok: the page links,
    /// and gets this welcome (with a resume token made from `entropy`); Err: close it so.
    pub fn hello(
        &mut self,
        text: Option<&str>,
        entropy: io::Result<[u8; 16]>,
    ) -> Result<String, Refusal> {
        let hello = text.and_then(|t| serde_json::from_str::<FromPage>(t).ok());
        let Some(FromPage::Hello { secret, resume }) = hello else {
            return Err(Refusal {
                code: POLICY,
                reason: "the first message on the link must be a hello",
            });
        };
        self.keys.check(&secret, resume.as_deref())?;
        let entropy = entropy.map_err(|_| Refusal {
            code: close_code::INTERNAL_ERROR,
            reason: "the relay cannot draw entropy for the resume token",
        })?;
        let resume = self.keys.grant(AuthToken::from_entropy(entropy));
        let welcome = &self.welcome;
        Ok(ToPage::Welcome {
            claude_port: welcome.claude_port,
            auth_token: &welcome.auth_token,
            workspace: &welcome.workspace,
            ide_name: &welcome.ide_name,
            resume: resume.as_str(),
        }
        .to_json())
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
            auth_token: "t".into(),
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

    #[test]
    fn a_hello_with_the_secret_gets_the_welcome_and_a_resume_token() {
        let (dir, mut session) = session("hello");
        let secret = session.secret().as_str().to_owned();
        let hello = format!(r#"{{"type":"hello","secret":"{secret}","resume":null}}"#);
        let welcome: Value =
            serde_json::from_str(&session.hello(Some(&hello), Ok([2; 16])).unwrap()).unwrap();
        assert_eq!(welcome["type"], "welcome");
        assert_eq!(welcome["authToken"], "t");
        assert_eq!(welcome["resume"], AuthToken::from_entropy([2; 16]).as_str());
        let refused = session.hello(Some(&hello), Ok([3; 16])).unwrap_err();
        assert_eq!(refused.code, super::super::hello::LINK_TAKEN);
        let not_hello = session.hello(Some(r#"{"type":"list","id":1}"#), Ok([3; 16]));
        assert_eq!(not_hello.unwrap_err().code, POLICY);
        assert_eq!(session.hello(None, Ok([3; 16])).unwrap_err().code, POLICY);
        let no_entropy = session.hello(
            Some(&hello.replace(
                "null",
                &format!("\"{}\"", welcome["resume"].as_str().unwrap()),
            )),
            Err(io::Error::other("none")),
        );
        assert_eq!(no_entropy.unwrap_err().code, close_code::INTERNAL_ERROR);
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
        assert_eq!(
            session.request(r#"{"type":"close","conn":9}"#),
            Asked::Close { conn: 9 }
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}
