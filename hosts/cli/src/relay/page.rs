//! The browser side of the relay: HTTP requests for the demo files, and the one authenticated
//! page link (a WebSocket, RFC 6455 framing by `idelink_core::ws`).

use super::io_util::{ReadOutcome, flush, read_once};
use super::link::{FromPage, ToPage, split_data};
use super::page_http::{self, Decision};
use super::server::Relay;
use idelink_core::ws::{Message, ServerSocket, WsConfig, close_code};
use mio::net::TcpStream;
use mio::{Interest, Token};
use std::net::Shutdown;
use std::time::{Duration, Instant};

/// Time for a browser to send its request head, and then to take the answer.
const HTTP_DEADLINE: Duration = Duration::from_secs(10);
/// Close code for a link replaced by a newer page (application range, RFC 6455 §7.4.2).
const REPLACED: u16 = 4000;
/// Largest message from the page: it sends claude's answers in chunks of at most 1 MiB.
const MAX_LINK_MESSAGE_BYTES: usize = 8 << 20;

/// One browser connection (or a claude connection turned away, answered like one).
pub(super) struct PageConn {
    stream: TcpStream,
    inbuf: Vec<u8>,
    out: Vec<u8>,
    /// The answer went out and our side is shut: wait for the peer's end of stream, so that
    /// closing with its unread bytes pending does not reset the answer away.
    write_shut: bool,
    pub(super) stage: Stage,
}

/// Where a browser connection is.
pub(super) enum Stage {
    /// Reading the request head until the deadline.
    Head { deadline: Instant },
    /// Answered: flush, shut our side, read until the peer closes; all by the deadline.
    Answered { deadline: Instant },
    /// Upgraded to the page link.
    Link(Box<ServerSocket>),
}

/// A message taken out of the WebSocket's buffer.
enum Owned {
    Text(String),
    Binary(Vec<u8>),
}

impl Relay {
    /// Accepts every pending browser connection.
    pub(super) fn accept_page(&mut self) {
        while let Ok((stream, _)) = self.http_listener.accept() {
            let head = Stage::Head {
                deadline: Instant::now() + HTTP_DEADLINE,
            };
            self.add_page_conn(stream, Vec::new(), head);
        }
    }

    /// Sends `answer` on `stream` and closes it gracefully (for a claude connection arriving
    /// while no page is linked).
    pub(super) fn answer_and_close(&mut self, stream: TcpStream, answer: Vec<u8>) {
        let answered = Stage::Answered {
            deadline: Instant::now() + HTTP_DEADLINE,
        };
        self.add_page_conn(stream, answer, answered);
    }

    fn add_page_conn(&mut self, mut stream: TcpStream, out: Vec<u8>, stage: Stage) {
        let token = self.next_token();
        let registered = self.poll.registry().register(
            &mut stream,
            Token(token),
            Interest::READABLE | Interest::WRITABLE,
        );
        if registered.is_ok() {
            let conn = PageConn {
                stream,
                inbuf: Vec::new(),
                out,
                write_shut: false,
                stage,
            };
            self.page.insert(token, conn);
            self.page_ready(token);
        }
    }

    /// Reads and writes what browser connection `token` is ready for.
    pub(super) fn page_ready(&mut self, token: usize) {
        loop {
            let Some(conn) = self.page.get_mut(&token) else {
                return;
            };
            match read_once(&mut conn.stream, &mut self.read_buf) {
                ReadOutcome::Data(n) => {
                    let bytes = &self.read_buf[..n];
                    match &mut conn.stage {
                        Stage::Head { .. } => {
                            conn.inbuf.extend_from_slice(bytes);
                            self.answer_head(token);
                        }
                        Stage::Answered { .. } => {}
                        Stage::Link(ws) => {
                            ws.receive(bytes);
                            self.pump_link(token);
                        }
                    }
                }
                ReadOutcome::WouldBlock => break,
                ReadOutcome::Gone => {
                    self.drop_page(token);
                    return;
                }
            }
        }
        self.flush_page(token);
        if self.link == Some(token) {
            self.resume_claude_reads();
        }
    }

    /// Closes the link (if any) with a close frame, best effort.
    pub(super) fn close_link(&mut self, reason: &str) {
        let now = self.now();
        if let Some(token) = self.link {
            if let Some(conn) = self.page.get_mut(&token)
                && let Stage::Link(ws) = &mut conn.stage
            {
                ws.close(now, close_code::GOING_AWAY, reason, &mut conn.out);
                let _ = flush(&mut conn.stream, &mut conn.out);
            }
            self.drop_page(token);
        }
    }

    /// Sends a text message on the link, if there is one.
    pub(super) fn send_page(&mut self, message: &ToPage) {
        let Some(token) = self.link else { return };
        if let Some(conn) = self.page.get_mut(&token)
            && let Stage::Link(ws) = &mut conn.stage
        {
            ws.send_text(message.to_json().as_bytes(), &mut conn.out);
        }
        self.flush_page(token);
    }

    /// Sends a binary message on the link, if there is one.
    pub(super) fn send_page_binary(&mut self, message: &[u8]) {
        let Some(token) = self.link else { return };
        if let Some(conn) = self.page.get_mut(&token)
            && let Stage::Link(ws) = &mut conn.stage
        {
            ws.send_binary(message, &mut conn.out);
        }
        self.flush_page(token);
    }

    /// Bytes queued for the page and not yet written.
    pub(super) fn link_queued(&self) -> usize {
        self.link
            .and_then(|t| self.page.get(&t))
            .map_or(0, |conn| conn.out.len())
    }

    /// Deadlines of browser connections, and the link's WebSocket timers.
    pub(super) fn page_timers(&mut self) {
        let now = self.now();
        let instant = Instant::now();
        let tokens: Vec<usize> = self.page.keys().copied().collect();
        for token in tokens {
            let Some(conn) = self.page.get_mut(&token) else {
                continue;
            };
            match &mut conn.stage {
                Stage::Head { deadline } | Stage::Answered { deadline } => {
                    if instant >= *deadline {
                        self.drop_page(token);
                    }
                }
                Stage::Link(ws) => {
                    if ws.poll_timeout().is_some_and(|at| at <= now) {
                        ws.handle_timeout(now, &mut conn.out);
                    }
                    self.flush_page(token);
                }
            }
        }
    }

    /// Decides on the request head received so far.
    fn answer_head(&mut self, token: usize) {
        let now = self.now();
        let Some(conn) = self.page.get_mut(&token) else {
            return;
        };
        let decision = page_http::decide(&conn.inbuf, self.http_port, &self.secret, |path| {
            self.assets.has(path)
        });
        let answered = Stage::Answered {
            deadline: Instant::now() + HTTP_DEADLINE,
        };
        match decision {
            Decision::Partial => {}
            Decision::Serve(path) => {
                conn.out = match self.assets.get(&path) {
                    Ok((kind, body)) => page_http::response(200, kind, &body, self.http_port),
                    Err(why) => page_http::response(
                        404,
                        "text/plain; charset=utf-8",
                        why.as_bytes(),
                        self.http_port,
                    ),
                };
                conn.stage = answered;
            }
            Decision::Refuse(status, why) => {
                tracing::debug!(status, why, "browser request refused");
                conn.out = page_http::response(
                    status,
                    "text/plain; charset=utf-8",
                    why.as_bytes(),
                    self.http_port,
                );
                conn.stage = answered;
            }
            Decision::Link {
                head_len,
                accept_key,
            } => {
                conn.out = page_http::switching_protocols(&accept_key);
                let config = WsConfig {
                    accept_binary: true,
                    max_message_bytes: MAX_LINK_MESSAGE_BYTES,
                    ..WsConfig::default()
                };
                let mut ws = ServerSocket::new(config, now);
                ws.receive(&conn.inbuf[head_len..]);
                conn.inbuf = Vec::new();
                conn.stage = Stage::Link(Box::new(ws));
                self.linked(token);
            }
        }
    }

    /// A page authenticated: it replaces any earlier one, gets the lock written and the
    /// welcome (the only place the claude token is sent).
    fn linked(&mut self, token: usize) {
        if let Some(old) = self.link {
            let now = self.now();
            if let Some(conn) = self.page.get_mut(&old)
                && let Stage::Link(ws) = &mut conn.stage
            {
                ws.close(
                    now,
                    REPLACED,
                    "another page took over the relay",
                    &mut conn.out,
                );
            }
            self.flush_page(old);
            self.unlink();
        }
        self.link = Some(token);
        let (port, workspace, ide_name) = (
            self.claude_port,
            self.lock_spec.workspace.clone(),
            self.lock_spec.ide_name.clone(),
        );
        let auth_token = self.token.as_str().to_owned();
        self.send_page(&ToPage::Welcome {
            claude_port: port,
            auth_token: &auth_token,
            workspace: &workspace,
            ide_name: &ide_name,
        });
        self.write_lock();
    }

    /// Handles every complete message a link connection has buffered (a replaced link's
    /// messages are read, for its close handshake, and dropped).
    fn pump_link(&mut self, token: usize) {
        let now = self.now();
        loop {
            let Some(conn) = self.page.get_mut(&token) else {
                return;
            };
            let Stage::Link(ws) = &mut conn.stage else {
                return;
            };
            let message = match ws.poll_message(now, &mut conn.out) {
                Some(Message::Text(text)) => Owned::Text(text.to_owned()),
                Some(Message::Binary(bytes)) => Owned::Binary(bytes.to_vec()),
                None => return,
            };
            if self.link != Some(token) {
                continue;
            }
            match message {
                Owned::Binary(bytes) => match split_data(&bytes) {
                    Some((conn, data)) => self.page_data(conn, data),
                    None => tracing::debug!("page sent a data message without a connection id"),
                },
                Owned::Text(text) => self.page_request(&text),
            }
        }
    }

    /// A text request from the page.
    fn page_request(&mut self, text: &str) {
        match serde_json::from_str::<FromPage>(text) {
            Ok(FromPage::Close { conn }) => self.page_close(conn),
            Ok(FromPage::List) => {
                let (files, truncated) = self.workspace.list();
                self.send_page(&ToPage::Files {
                    files: &files,
                    truncated,
                });
            }
            Ok(FromPage::Read { path }) => match self.workspace.read(&path) {
                Ok((path, text)) => self.send_page(&ToPage::File {
                    path: &path,
                    text: &text,
                }),
                Err(message) => self.send_page(&ToPage::Error { message: &message }),
            },
            Err(e) => {
                let message = format!("the relay does not understand this request: {e}");
                self.send_page(&ToPage::Error { message: &message });
            }
        }
    }

    /// Writes what `token` has queued; shuts the write side of an answered connection once it
    /// is all written; closes a link once its WebSocket finished (after one last write).
    fn flush_page(&mut self, token: usize) {
        let Some(conn) = self.page.get_mut(&token) else {
            return;
        };
        let flushed = flush(&mut conn.stream, &mut conn.out);
        let done = match (&conn.stage, flushed) {
            (_, Err(_)) => true,
            (Stage::Answered { .. }, Ok(true)) if !conn.write_shut => {
                conn.write_shut = true;
                conn.stream.shutdown(Shutdown::Write).is_err()
            }
            (Stage::Answered { .. } | Stage::Head { .. }, Ok(_)) => false,
            (Stage::Link(ws), Ok(_)) => ws.finished().is_some(),
        };
        if done {
            self.drop_page(token);
        }
    }

    /// Forgets browser connection `token`; when it was the link, unlinks.
    fn drop_page(&mut self, token: usize) {
        if let Some(mut conn) = self.page.remove(&token) {
            let _ = self.poll.registry().deregister(&mut conn.stream);
        }
        if self.link == Some(token) {
            self.unlink();
        }
    }
}
