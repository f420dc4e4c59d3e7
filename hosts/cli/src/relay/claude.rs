//! The claude side of the relay: accept, read into the page link, write what the page sends.
//! No byte is interpreted.

use super::io_util::{ReadOutcome, flush, read_once};
use super::link::{ToPage, data_message};
use super::server::{ClaudeConn, Relay};
use mio::{Interest, Token};
use std::net::Shutdown;
use std::time::{Duration, Instant};

/// Page link bytes queued above which claude sockets are no longer read (back-pressure).
const LINK_HIGH_BYTES: usize = 16 << 20;
/// Reading resumes when the page link's queue drops below this.
const LINK_LOW_BYTES: usize = 4 << 20;
/// Bytes the page may queue for one claude connection that does not read; then it is closed.
const CLAUDE_OUT_CAP_BYTES: usize = 128 << 20;
/// How long a connection the page closed may take to close its side.
const LINGER: Duration = Duration::from_secs(2);
/// Why claude is turned away when no editor page is linked.
const NO_PAGE: &str = "no editor page is linked: open the URL idelink relay printed\n";

impl Relay {
    /// Accepts every pending claude connection; without a linked page each gets a 503.
    pub(super) fn accept_claude(&mut self) {
        while let Ok((mut stream, _)) = self.claude_listener.accept() {
            let token = self.next_token();
            let conn = u32::try_from(token);
            let (Some(_), Ok(conn)) = (self.link, conn) else {
                let answer = format!(
                    "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\n\
                     Content-Length: {}\r\nConnection: close\r\n\r\n{NO_PAGE}",
                    NO_PAGE.len()
                );
                self.answer_and_close(stream, answer.into_bytes());
                continue;
            };
            let registered = self.poll.registry().register(
                &mut stream,
                Token(token),
                Interest::READABLE | Interest::WRITABLE,
            );
            if registered.is_err() {
                continue;
            }
            let _ = stream.set_nodelay(true);
            self.claude.insert(
                token,
                ClaudeConn {
                    stream,
                    out: Vec::new(),
                    closing: false,
                    lingering_until: None,
                    paused: false,
                },
            );
            tracing::debug!(conn, "claude connection accepted");
            println!("claude connected (#{conn})");
            self.send_page(&ToPage::Open { conn });
            self.claude_readable(token);
        }
    }

    /// Reads `token` until it would block, forwarding to the page; pauses while the link is
    /// backed up; on end of stream tells the page.
    pub(super) fn claude_readable(&mut self, token: usize) {
        let Ok(conn) = u32::try_from(token) else {
            return;
        };
        loop {
            if self.link_queued() > LINK_HIGH_BYTES {
                if let Some(c) = self.claude.get_mut(&token) {
                    c.paused = true;
                }
                return;
            }
            let Some(c) = self.claude.get_mut(&token) else {
                return;
            };
            let lingering = c.lingering_until.is_some();
            match read_once(&mut c.stream, &mut self.read_buf) {
                ReadOutcome::Data(_) if lingering => {}
                ReadOutcome::Gone if lingering => {
                    self.drop_claude(token);
                    return;
                }
                ReadOutcome::Data(n) => {
                    data_message(conn, &self.read_buf[..n], &mut self.scratch);
                    let message = std::mem::take(&mut self.scratch);
                    self.send_page_binary(&message);
                    self.scratch = message;
                }
                ReadOutcome::WouldBlock => return,
                ReadOutcome::Gone => {
                    self.drop_claude(token);
                    self.send_page(&ToPage::Closed { conn });
                    return;
                }
            }
        }
    }

    /// Writes what the page queued for `token`; closes it when the page asked and all went.
    pub(super) fn claude_writable(&mut self, token: usize) {
        let Some(c) = self.claude.get_mut(&token) else {
            return;
        };
        match flush(&mut c.stream, &mut c.out) {
            Ok(true) if c.closing && c.lingering_until.is_none() => {
                c.lingering_until = Some(Instant::now() + LINGER);
                if c.stream.shutdown(Shutdown::Write).is_err() {
                    self.drop_claude(token);
                }
            }
            Ok(_) => {}
            Err(_) => {
                self.drop_claude(token);
                if let Ok(conn) = u32::try_from(token) {
                    self.send_page(&ToPage::Closed { conn });
                }
            }
        }
    }

    /// Bytes from the page for claude connection `conn` (dropped when it is already gone:
    /// the page learns that from the `closed` message on its way).
    pub(super) fn page_data(&mut self, conn: u32, bytes: &[u8]) {
        let token = conn as usize;
        let Some(c) = self.claude.get_mut(&token) else {
            return;
        };
        if c.closing {
            return;
        }
        if c.out.len() + bytes.len() > CLAUDE_OUT_CAP_BYTES {
            tracing::warn!(conn, "claude does not read its answers: closing it");
            self.drop_claude(token);
            self.send_page(&ToPage::Closed { conn });
            return;
        }
        c.out.extend_from_slice(bytes);
        self.claude_writable(token);
    }

    /// The page asked to close claude connection `conn` once its bytes are written.
    pub(super) fn page_close(&mut self, conn: u32) {
        let token = conn as usize;
        if let Some(c) = self.claude.get_mut(&token) {
            c.closing = true;
            self.claude_writable(token);
        }
    }

    /// Resumes reading the claude connections paused while the link was backed up.
    pub(super) fn resume_claude_reads(&mut self) {
        if self.link_queued() >= LINK_LOW_BYTES {
            return;
        }
        let paused: Vec<usize> = self
            .claude
            .iter()
            .filter(|(_, c)| c.paused)
            .map(|(t, _)| *t)
            .collect();
        for token in paused {
            if let Some(c) = self.claude.get_mut(&token) {
                c.paused = false;
            }
            self.claude_readable(token);
        }
    }

    /// Drops the connections whose linger ran out.
    pub(super) fn claude_timers(&mut self) {
        let now = Instant::now();
        let expired: Vec<usize> = self
            .claude
            .iter()
            .filter(|(_, c)| c.lingering_until.is_some_and(|until| now >= until))
            .map(|(t, _)| *t)
            .collect();
        for token in expired {
            self.drop_claude(token);
        }
    }

    /// Forgets claude connection `token` and closes its socket.
    pub(super) fn drop_claude(&mut self, token: usize) {
        if let Some(mut c) = self.claude.remove(&token) {
            let _ = self.poll.registry().deregister(&mut c.stream);
            let _ = c.stream.shutdown(Shutdown::Both);
            println!("claude disconnected (#{token})");
        }
    }
}
