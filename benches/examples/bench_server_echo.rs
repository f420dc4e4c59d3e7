//! The transport floor: a raw TCP echo on 127.0.0.1 returning every byte as it arrives, with
//! the same I/O model as the idelink host (one thread, mio's edge-triggered epoll, 64 KiB
//! reads), so the difference to idelink is the protocol work and nothing else. Prints
//! `<port> -` (it checks no token), then serves until killed.

use mio::net::{TcpListener, TcpStream};
use mio::{Events, Interest, Poll, Token};
use std::collections::BTreeMap;
use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, SocketAddr};

const LISTENER: Token = Token(0);

/// One client: bytes read but not yet written back wait in `pending` (the client is slow to
/// read), and nothing more is read until they are gone.
struct Conn {
    stream: TcpStream,
    pending: Vec<u8>,
    sent: usize,
}

fn main() -> io::Result<()> {
    let mut listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))?;
    let mut poll = Poll::new()?;
    poll.registry()
        .register(&mut listener, LISTENER, Interest::READABLE)?;
    println!("{} -", listener.local_addr()?.port());
    io::stdout().flush()?;
    let mut events = Events::with_capacity(256);
    let mut conns = BTreeMap::new();
    let mut next = 1;
    let mut buf = vec![0; 64 * 1024];
    loop {
        match poll.poll(&mut events, None) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            result => result?,
        }
        for event in &events {
            if event.token() == LISTENER {
                while let Ok((mut stream, _)) = listener.accept() {
                    stream.set_nodelay(true)?;
                    let token = Token(next);
                    next += 1;
                    let interest = Interest::READABLE | Interest::WRITABLE;
                    poll.registry().register(&mut stream, token, interest)?;
                    let conn = Conn {
                        stream,
                        pending: Vec::new(),
                        sent: 0,
                    };
                    conns.insert(token, conn);
                }
                continue;
            }
            let alive = match conns.get_mut(&event.token()) {
                Some(conn) => pump(conn, &mut buf).unwrap_or(false),
                None => continue,
            };
            if !alive && let Some(mut conn) = conns.remove(&event.token()) {
                poll.registry().deregister(&mut conn.stream)?;
            }
        }
    }
}

/// Writes back what waits, then reads and writes back until the socket would block. False
/// once the client is gone.
fn pump(conn: &mut Conn, buf: &mut [u8]) -> io::Result<bool> {
    loop {
        while conn.sent < conn.pending.len() {
            match conn.stream.write(&conn.pending[conn.sent..]) {
                Ok(n) => conn.sent += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(true),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        conn.pending.clear();
        conn.sent = 0;
        let n = match conn.stream.read(buf) {
            Ok(0) => return Ok(false),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(true),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let written = match conn.stream.write(&buf[..n]) {
            Ok(written) => written,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => 0,
            Err(e) => return Err(e),
        };
        conn.pending.extend_from_slice(&buf[written..n]);
    }
}
