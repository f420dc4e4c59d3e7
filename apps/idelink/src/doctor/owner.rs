//! Whether the process a lock names owns the socket listening on the lock's port, asked of the
//! OS before the doctor sends that socket the lock's token.
//!
//! Any local program may listen on a port whose server has gone, or beside it: a lock's port
//! says nothing of who answers there. Where the OS tells which process holds a listening
//! socket, every listener that can take a connection to `127.0.0.1:<port>` must be the lock
//! pid's, or the token is not sent:
//! - Linux: the listening sockets' inodes from `/proc/net/tcp` and `/proc/net/tcp6` (proc(5):
//!   state `0A` is `TCP_LISTEN`) against the `socket:[<inode>]` links in `/proc/<pid>/fd`;
//! - Windows: `GetExtendedTcpTable` with `TCP_TABLE_OWNER_PID_LISTENER` (`crate::windows`); an
//!   owner reported as pid 0 counts as not told (Wine reports every owner so);
//! - elsewhere (macOS: `proc_pidinfo` is not called yet) the OS is not asked, and the report
//!   says so.

/// What the OS said about the listener's owner.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(
    not(any(target_os = "linux", windows)),
    expect(
        dead_code,
        reason = "only Linux and Windows are asked who owns a listener"
    )
)]
pub enum Owner {
    /// Every listener on the port belongs to the lock's pid.
    Verified,
    /// Some listener does not (or none was found): why, in words. The token is not sent.
    Differs(String),
    /// The OS was not asked, or could not answer: why. The token is sent, as before.
    Unknown(&'static str),
}

impl Owner {
    /// The words the report uses, as the doctor's docs list them.
    pub fn words(&self) -> String {
        match self {
            Owner::Verified => "owner verified".to_owned(),
            Owner::Differs(why) => format!("owner differs: token not sent ({why})"),
            Owner::Unknown(why) => format!("owner cannot be told ({why})"),
        }
    }
}

/// Asks the OS whether `pid` holds every socket listening on `port` that a connection to
/// `127.0.0.1:<port>` can reach.
#[cfg(target_os = "linux")]
pub fn listener_owner(port: u16, pid: u32) -> Owner {
    let mut listeners = Vec::new();
    let mut read_any = false;
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        if let Ok(text) = std::fs::read_to_string(table) {
            read_any = true;
            listeners.extend(listening_inodes(&text, port));
        }
    }
    if !read_any {
        return Owner::Unknown("/proc/net/tcp cannot be read");
    }
    if listeners.is_empty() {
        return Owner::Differs(format!("no socket listens on 127.0.0.1:{port}"));
    }
    let fd_dir = format!("/proc/{pid}/fd");
    let entries = match std::fs::read_dir(&fd_dir) {
        Ok(entries) => entries,
        Err(e) => return Owner::Differs(format!("cannot read {fd_dir}: {e}")),
    };
    let held: Vec<u64> = entries
        .flatten()
        .filter_map(|entry| std::fs::read_link(entry.path()).ok())
        .filter_map(|target| socket_inode(&target.to_string_lossy()))
        .collect();
    if listeners.iter().all(|inode| held.contains(inode)) {
        Owner::Verified
    } else {
        Owner::Differs(format!(
            "the socket listening on port {port} is not held by pid {pid}"
        ))
    }
}

/// Windows: the owning pid of each listener, from the OS's TCP tables.
#[cfg(windows)]
pub fn listener_owner(port: u16, pid: u32) -> Owner {
    match crate::windows::tcp_listener_pids(port) {
        Err(_) => Owner::Unknown("GetExtendedTcpTable failed"),
        Ok(pids) if pids.is_empty() => {
            Owner::Differs(format!("no socket listens on 127.0.0.1:{port}"))
        }
        // Pid 0 (the System Idle Process) holds no socket: the OS did not say (Wine 8
        // reports every owner as 0).
        Ok(pids) if pids.contains(&0) => Owner::Unknown("the OS names no owner"),
        Ok(pids) if pids.iter().all(|&owner| owner == pid) => Owner::Verified,
        Ok(pids) => Owner::Differs(format!(
            "the socket listening on port {port} is not held by pid {pid} but by pid {}",
            pids.iter()
                .filter(|&&owner| owner != pid)
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// Other systems: not asked.
#[cfg(not(any(target_os = "linux", windows)))]
pub fn listener_owner(_port: u16, _pid: u32) -> Owner {
    Owner::Unknown("not on this OS")
}

/// The inodes of the sockets in a `/proc/net/tcp{,6}` table that listen on `port` at an address
/// a connection to 127.0.0.1 reaches: `127.0.0.1`, `0.0.0.0`, `::` (dual stack) or
/// `::ffff:127.0.0.1`. Lines that do not parse are skipped.
#[cfg(any(target_os = "linux", test))]
fn listening_inodes(table: &str, port: u16) -> Vec<u64> {
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (local, state, inode) = (fields.get(1)?, fields.get(3)?, fields.get(9)?);
            // proc(5), /proc/net/tcp: "st" is the kernel's TCP state; 0A is TCP_LISTEN.
            if *state != "0A" {
                return None;
            }
            let (address, port_hex) = local.split_once(':')?;
            if u16::from_str_radix(port_hex, 16).ok()? != port || !reaches_loopback(address)? {
                return None;
            }
            inode.parse().ok()
        })
        .collect()
}

/// Whether a table's local address (hex, each 32-bit word as the kernel holds it in memory,
/// printed as a native integer) takes connections to 127.0.0.1; `None` when it does not parse.
#[cfg(any(target_os = "linux", test))]
fn reaches_loopback(hex: &str) -> Option<bool> {
    let mut bytes = Vec::with_capacity(16);
    for word in hex.as_bytes().chunks(8) {
        let word = u32::from_str_radix(std::str::from_utf8(word).ok()?, 16).ok()?;
        bytes.extend_from_slice(&word.to_ne_bytes());
    }
    Some(match bytes.len() {
        4 => bytes == [127, 0, 0, 1] || bytes == [0; 4],
        16 => {
            let mapped_loopback = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1];
            bytes == [0; 16] || bytes == mapped_loopback
        }
        _ => return None,
    })
}

/// The inode of a `/proc/<pid>/fd/<n>` link to a socket (`socket:[12345]`).
#[cfg(any(target_os = "linux", test))]
fn socket_inode(target: &str) -> Option<u64> {
    target
        .strip_prefix("socket:[")?
        .strip_suffix(']')?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `hex` of a 4-byte address as the kernel prints it on this machine.
    fn v4(bytes: [u8; 4]) -> String {
        format!("{:08X}", u32::from_ne_bytes(bytes))
    }

    #[test]
    fn listeners_reaching_loopback_on_the_port_are_picked_from_the_table() {
        let header = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode";
        let row = |addr: &str, port: u16, state: &str, inode: u64| {
            format!(
                "   0: {addr}:{port:04X} 00000000:0000 {state} 00000000:00000000 00:00000000 00000000  1000        0 {inode} 1 0000000000000000 100 0 0 10 0"
            )
        };
        let table = [
            header.to_owned(),
            row(&v4([127, 0, 0, 1]), 4242, "0A", 11),
            row(&v4([0, 0, 0, 0]), 4242, "0A", 12),
            row(&v4([127, 0, 0, 1]), 4242, "01", 13),
            row(&v4([127, 0, 0, 1]), 4243, "0A", 14),
            row(&v4([10, 0, 0, 1]), 4242, "0A", 15),
            "garbage".to_owned(),
        ]
        .join("\n");
        assert_eq!(listening_inodes(&table, 4242), [11, 12]);
        let any6 = "0".repeat(32);
        let loop6 = format!("{}{}", "0".repeat(24), v4([0, 0, 0, 1]));
        let table6 = [
            header.to_owned(),
            row(&any6, 4242, "0A", 21),
            row(&loop6, 4242, "0A", 22),
        ]
        .join("\n");
        assert_eq!(listening_inodes(&table6, 4242), [21], "::1 is not reached");
    }

    #[test]
    fn socket_links_give_their_inode() {
        assert_eq!(socket_inode("socket:[98765]"), Some(98765));
        assert_eq!(socket_inode("pipe:[98765]"), None);
        assert_eq!(socket_inode("/dev/null"), None);
    }

    // Linux only: Wine, where the Windows build's tests run, names no owner (pid 0).
    #[cfg(target_os = "linux")]
    #[test]
    fn our_own_listener_is_ours_and_not_our_parents() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("address").port();
        assert_eq!(listener_owner(port, std::process::id()), Owner::Verified);
        assert!(matches!(
            listener_owner(port, std::os::unix::process::parent_id()),
            Owner::Differs(_)
        ));
        drop(listener);
        assert!(matches!(
            listener_owner(port, std::process::id()),
            Owner::Differs(_)
        ));
    }
}
