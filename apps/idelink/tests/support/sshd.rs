//! A real OpenSSH server for the remote tests: `sshd -D -e -f CONFIG` on a free loopback
//! port, run as the current user, with its own host key and one authorized client key made in
//! a temporary folder. [`Sshd::start`] says why when sshd is not installed (the caller skips,
//! or fails under `CI=true`); [`Sshd::transport`] is the `ssh` command line that reaches it.
#![cfg(unix)]

use std::io::{BufRead, BufReader};
use std::net::{Ipv4Addr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// Where Debian, Fedora and Arch install the server (it is not on an ordinary user's PATH).
const SSHD_PATHS: [&str; 3] = ["/usr/sbin/sshd", "/usr/bin/sshd", "/usr/local/sbin/sshd"];

/// How many free ports are tried before giving up: another process may take the one found
/// between our probe and sshd's bind; a second collision in a row is already rare.
const PORT_ATTEMPTS: usize = 5;

/// How long sshd may take to say it listens (it loads two keys).
const LISTEN_DEADLINE: Duration = Duration::from_secs(10);

/// A running sshd; killed and reaped on drop.
pub struct Sshd {
    child: Child,
    port: u16,
    key: PathBuf,
    known_hosts: PathBuf,
}

impl Sshd {
    /// Starts sshd under `dir` (keys, config), or says why it cannot.
    pub fn start(dir: &Path) -> Result<Sshd, String> {
        let sshd = SSHD_PATHS
            .iter()
            .map(Path::new)
            .find(|p| p.is_file())
            .ok_or("sshd is not installed (apt-get install openssh-server)")?;
        let dir = dir.join("sshd");
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        for name in ["host_key", "client_key"] {
            keygen(&dir.join(name))?;
        }
        std::fs::copy(dir.join("client_key.pub"), dir.join("authorized_keys"))
            .map_err(|e| e.to_string())?;
        privilege_separation_dir()?;
        let mut last = String::new();
        for _ in 0..PORT_ATTEMPTS {
            let port = free_port()?;
            let config = dir.join("sshd_config");
            std::fs::write(&config, config_text(&dir, port)).map_err(|e| e.to_string())?;
            match listen(sshd, &config, port)? {
                Ok(child) => {
                    return Ok(Sshd {
                        child,
                        port,
                        key: dir.join("client_key"),
                        known_hosts: dir.join("known_hosts"),
                    });
                }
                Err(why) => last = why,
            }
        }
        Err(format!(
            "sshd did not listen after {PORT_ATTEMPTS} ports: {last}"
        ))
    }

    /// `ssh … 127.0.0.1 REMOTE_COMMAND`, with this server's port, the client key, no terminal
    /// and no prompt (a failure is an error, never a question).
    pub fn transport(&self, remote_command: &str) -> String {
        format!(
            "ssh -T -F /dev/null -p {} -i '{}' -o IdentitiesOnly=yes -o BatchMode=yes \
             -o StrictHostKeyChecking=no -o UserKnownHostsFile='{}' -o LogLevel=ERROR \
             127.0.0.1 {remote_command}",
            self.port,
            self.key.display(),
            self.known_hosts.display()
        )
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn keygen(path: &Path) -> Result<(), String> {
    let _ = std::fs::remove_file(path);
    let _ = std::fs::remove_file(path.with_extension("pub"));
    let out = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-f"])
        .arg(path)
        .output()
        .map_err(|e| format!("cannot run ssh-keygen: {e}"))?;
    match out.status.success() {
        true => Ok(()),
        false => Err(format!(
            "ssh-keygen failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )),
    }
}

/// sshd run by root insists on its privilege separation folder, which the system's ssh
/// service makes at its start (systemd's `RuntimeDirectory=sshd`); a machine where that
/// service never ran (a container) lacks it. An ordinary user's sshd does not use it.
fn privilege_separation_dir() -> Result<(), String> {
    if !rustix::process::geteuid().is_root() {
        return Ok(());
    }
    std::fs::create_dir_all("/run/sshd").map_err(|e| format!("cannot create /run/sshd: {e}"))
}

/// A port nobody listened on a moment ago (sshd binds it next; a collision is retried).
fn free_port() -> Result<u16, String> {
    let probe = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).map_err(|e| e.to_string())?;
    probe
        .local_addr()
        .map(|a| a.port())
        .map_err(|e| e.to_string())
}

/// The whole config: loopback only, keys only, as the current user, no PAM (no system login
/// rules), no mode checks on the temporary folder, no pid file.
fn config_text(dir: &Path, port: u16) -> String {
    let dir = dir.display();
    format!(
        "ListenAddress 127.0.0.1\nPort {port}\nHostKey {dir}/host_key\n\
         AuthorizedKeysFile {dir}/authorized_keys\nPubkeyAuthentication yes\n\
         PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\n\
         StrictModes no\nPidFile none\nPermitRootLogin prohibit-password\n"
    )
}

/// Starts sshd and waits for its `Server listening on` line: `Ok(Err(why))` when it exited
/// first (its port was taken), to try another.
fn listen(sshd: &Path, config: &Path, port: u16) -> Result<Result<Child, String>, String> {
    let mut child = Command::new(sshd)
        .args(["-D", "-e", "-f"])
        .arg(config)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start sshd: {e}"))?;
    let stderr = child.stderr.take().ok_or("sshd has no stderr")?;
    let (send, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            // sshd's log goes on after the test stopped reading: keep draining it.
            let _ = send.send(line);
        }
    });
    let wanted = format!("Server listening on 127.0.0.1 port {port}");
    let mut said = Vec::new();
    loop {
        match lines.recv_timeout(LISTEN_DEADLINE) {
            Ok(line) if line.contains(&wanted) => return Ok(Ok(child)),
            Ok(line) => said.push(line),
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                return Ok(Err(said.join("; ")));
            }
        }
    }
}
