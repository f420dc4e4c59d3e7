//! `idelink doctor`, `idelink claude`, `idelink env` without a port, completions and the man
//! page, as a user runs them: real processes, real servers, a private HOME and config folder.
#![expect(
    clippy::unwrap_used,
    reason = "a test: any failure must stop it loudly"
)]

use serde_json::Value;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

#[path = "doctor/fake_server.rs"]
mod fake_server;
mod support;

use fake_server::{Behaviour, FakeServer};
use support::{DEADLINE, claude_path, idelink, lines, temp_dir, wait_for_line};

/// A private HOME with `.claude/ide` as the lock directory, and the workspace `work/`.
struct Setup {
    home: PathBuf,
    work: PathBuf,
}

impl Setup {
    fn new(name: &str) -> Setup {
        let dir = temp_dir(name);
        let home = dir.join("home");
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        Setup {
            home,
            work: dir.join("work").canonicalize().unwrap(),
        }
    }

    fn config(&self) -> PathBuf {
        self.home.join(".claude")
    }

    /// `idelink ARGS` seeing only this setup: no inherited claude or proxy variables.
    fn command(&self, args: &[&str]) -> Command {
        let mut command = idelink(args);
        command
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            .env("CLAUDE_CONFIG_DIR", self.config())
            .stdin(Stdio::null());
        command
    }

    /// `idelink serve` on `work/`, until dropped; returns it with its port.
    fn serve(&self) -> (Server, u16) {
        let mut child = self
            .command(&["serve", "--diff", "reject"])
            .arg(&self.work)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let out = lines(child.stdout.take().unwrap());
        let banner = wait_for_line(&out, "on 127.0.0.1:");
        let port = banner.rsplit(':').next().unwrap().parse().unwrap();
        (
            Server {
                child,
                _stdout: out,
            },
            port,
        )
    }

    /// `idelink doctor --json work/` with `env` added: the report and whether it exited 0.
    fn doctor(&self, env: &[(&str, &str)]) -> (Value, bool) {
        let mut command = self.command(&["doctor", "--json"]);
        command.arg(&self.work).envs(env.iter().copied());
        let output = command.output().unwrap();
        let report: Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("doctor --json printed no JSON ({e}): {output:?}"));
        assert_eq!(report["connects"], output.status.success(), "{report:#}");
        (report, output.status.success())
    }
}

/// A server process, stopped when dropped; its stdout is read until then.
struct Server {
    child: Child,
    _stdout: Receiver<String>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The findings of `check`, as "level: message".
fn findings(report: &Value, check: &str) -> Vec<String> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["check"] == check)
        .map(|f| {
            format!(
                "{}: {}",
                f["level"].as_str().unwrap(),
                f["message"].as_str().unwrap()
            )
        })
        .collect()
}

/// A lock for `folder` whose pid is dead: the pid of a child that has exited.
fn write_stale_lock(dir: &Path, port: u16, folder: &Path) {
    let mut gone = Command::new(std::env::current_exe().unwrap())
        .arg("--list")
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let pid = gone.id();
    gone.wait().unwrap();
    write_lock(dir, port, pid, "0123", folder);
}

/// `<dir>/<port>.lock` naming `pid`, `token` and `folder`.
fn write_lock(dir: &Path, port: u16, pid: u32, token: &str, folder: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let body = serde_json::json!({"pid": pid, "workspaceFolders": [claude_path(folder)], "ideName": "Fake",
        "transport": "ws", "authToken": token});
    std::fs::write(dir.join(format!("{port}.lock")), body.to_string()).unwrap();
}

/// Runs `command` to its end, for at most `limit`: its output and how long it ran. One still
/// running at the limit is killed, and the test fails with what it had printed.
fn run_within(command: &mut Command, limit: Duration) -> (Output, Duration) {
    let started = Instant::now();
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!(
                "{command:?} did not end within {limit:?}; it printed {:?}",
                String::from_utf8_lossy(&stdout.join().unwrap())
            );
        }
        std::thread::park_timeout(Duration::from_millis(20));
    };
    let took = started.elapsed();
    let output = Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    };
    (output, took)
}

/// The token the doctor tests write into the locks of their fake servers.
const TOKEN: &str = "doctor-test-token-3f9a";

/// How the owner check reads on this OS for a listener the lock's pid holds: Wine's TCP table
/// names no owner (pid 0).
fn owner_verified() -> &'static str {
    #[cfg(windows)]
    if support::under_wine() {
        return "owner cannot be told (the OS names no owner)";
    }
    if cfg!(any(target_os = "linux", windows)) {
        "owner verified"
    } else {
        "owner cannot be told (not on this OS)"
    }
}

#[test]
fn doctor_passes_a_healthy_setup_and_checks_the_server_live() {
    let setup = Setup::new("doctor-healthy");
    let (_server, port) = setup.serve();
    let (report, ok) = setup.doctor(&[]);
    assert!(ok, "{report:#}");
    assert_eq!(
        findings(&report, "choice"),
        [format!(
            "ok: claude in {} picks the server on port {port}",
            claude_path(&setup.work)
        )]
    );
    let live = findings(&report, "live check");
    assert_eq!(live.len(), 1, "{live:?}");
    assert!(
        live[0].starts_with(&format!(
            "ok: port {port}: {}; idelink answered initialize",
            owner_verified()
        )),
        "{live:?}"
    );
    let lock = &report["locks"][0];
    assert_eq!(lock["port"], port);
    assert_eq!(lock["pidAlive"], true);
    assert_eq!(lock["containsDir"], true);
    assert!(
        !report.to_string().contains("authToken"),
        "the token never leaves the lock"
    );
}

#[test]
fn doctor_reports_a_stale_lock_and_fails_when_it_is_the_only_one() {
    let setup = Setup::new("doctor-stale");
    write_stale_lock(&setup.config().join("ide"), 9, &setup.work);
    let (report, ok) = setup.doctor(&[]);
    assert!(!ok, "{report:#}");
    let stale = findings(&report, "stale lock");
    assert_eq!(stale.len(), 1, "{report:#}");
    assert!(stale[0].starts_with("warn: ") && stale[0].contains("is not alive"));
    assert!(findings(&report, "choice")[0].starts_with("fail: no live lock contains"));

    let (_server, _port) = setup.serve();
    let (report, ok) = setup.doctor(&[]);
    assert!(
        ok,
        "a stale lock beside a live one does not stop claude: {report:#}"
    );
    assert_eq!(findings(&report, "stale lock").len(), 1);
}

#[test]
fn doctor_fails_two_servers_for_the_folder_unless_the_port_picks_one() {
    let setup = Setup::new("doctor-two");
    let (_first, first) = setup.serve();
    let (_second, second) = setup.serve();
    let (report, ok) = setup.doctor(&[]);
    assert!(!ok, "{report:#}");
    let choice = &findings(&report, "choice")[0];
    assert!(choice.starts_with("fail: 2 live locks contain"), "{choice}");
    assert!(choice.contains(&first.to_string()) && choice.contains(&second.to_string()));

    let (report, ok) = setup.doctor(&[("CLAUDE_CODE_SSE_PORT", &second.to_string())]);
    assert!(ok, "{report:#}");
    assert!(findings(&report, "choice")[0].ends_with(&format!("port {second}")));

    for args in [&["claude"][..], &["env"][..]] {
        let output = setup
            .command(args)
            .current_dir(&setup.work)
            .output()
            .unwrap();
        assert!(!output.status.success());
        let error = String::from_utf8_lossy(&output.stderr);
        assert!(error.contains("2 servers have"), "{args:?}: {error}");
    }
}

#[test]
fn doctor_fails_when_auto_connect_is_turned_off() {
    let setup = Setup::new("doctor-off");
    let (_server, _port) = setup.serve();
    let (report, ok) = setup.doctor(&[("CLAUDE_CODE_AUTO_CONNECT_IDE", "false")]);
    assert!(!ok, "{report:#}");
    assert_eq!(
        findings(&report, "auto-connect"),
        ["fail: CLAUDE_CODE_AUTO_CONNECT_IDE=false turns auto-connect off"]
    );
    let (_, ok) = setup.doctor(&[("CLAUDE_CODE_AUTO_CONNECT_IDE", "1")]);
    assert!(ok);

    let text = |env: &[(&str, &str)]| {
        let output = setup
            .command(&["doctor"])
            .arg(&setup.work)
            .env("CLAUDE_CODE_AUTO_CONNECT_IDE", "off")
            .envs(env.iter().copied())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1));
        String::from_utf8(output.stdout).unwrap()
    };
    let plain = text(&[]);
    assert!(
        plain.contains("FAIL auto-connect: CLAUDE_CODE_AUTO_CONNECT_IDE=off"),
        "{plain}"
    );
    assert!(
        plain.contains("verdict: claude will NOT connect"),
        "{plain}"
    );
    assert!(
        !plain.contains('\x1b'),
        "no colour codes into a pipe: {plain:?}"
    );
    let forced = text(&[("CLICOLOR_FORCE", "1")]);
    assert!(forced.contains("\x1b[1m\x1b[31mFAIL\x1b[0m"), "{forced:?}");
}

#[cfg(unix)]
#[test]
fn claude_and_env_find_the_server_and_forward_arguments_and_status() {
    let setup = Setup::new("claude-cmd");
    let (_server, port) = setup.serve();
    let script = "echo \"$CLAUDE_CODE_SSE_PORT $NO_PROXY $(pwd) $*\"; exit 7";
    let output = setup
        .command(&["claude", "--claude", "/bin/sh"])
        .arg(&setup.work)
        .args(["--", "-c", script, "sh", "--resume", "x y"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(7), "{output:?}");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        format!(
            "{port} 127.0.0.1,localhost,::1 {} --resume x y\n",
            setup.work.display()
        )
    );

    let env = setup
        .command(&["env"])
        .current_dir(&setup.work)
        .output()
        .unwrap();
    assert!(env.status.success(), "{env:?}");
    let text = String::from_utf8_lossy(&env.stdout);
    assert!(
        text.starts_with(&format!("export CLAUDE_CODE_SSE_PORT='{port}'\n")),
        "{text}"
    );

    let elsewhere = setup
        .command(&["claude", "--claude", "/bin/true"])
        .arg(&setup.home)
        .output()
        .unwrap();
    assert!(!elsewhere.status.success());
    assert!(String::from_utf8_lossy(&elsewhere.stderr).contains("no running server has"));
}

#[test]
fn serve_stdio_takes_the_folder_after_the_flag() {
    let setup = Setup::new("stdio-dir");
    for flag in ["--stdio", "--stdio=lines"] {
        let output = setup
            .command(&["serve", flag])
            .arg(&setup.work)
            .output()
            .unwrap();
        assert!(output.status.success(), "{flag}: {output:?}");
        let text = String::from_utf8_lossy(&output.stdout);
        assert!(text.contains("\"idelink/ready\""), "{flag}: {text}");
        assert!(
            text.contains(&format!("{:?}", claude_path(&setup.work))),
            "{text}"
        );
    }
}

#[test]
fn completions_and_the_man_page_cover_every_subcommand() {
    let setup = Setup::new("completions");
    let mut outputs = Vec::new();
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let output = setup.command(&["completions", shell]).output().unwrap();
        assert!(output.status.success(), "{shell}");
        outputs.push((shell, String::from_utf8(output.stdout).unwrap()));
    }
    let man = setup.command(&["man"]).output().unwrap();
    assert!(man.status.success());
    let man = String::from_utf8(man.stdout).unwrap();
    assert!(
        man.starts_with(".ie") && man.contains(".TH idelink 1"),
        "{man}"
    );
    outputs.push(("man", man));
    for (what, text) in outputs {
        for sub in ["serve", "relay", "claude", "doctor", "env", "completions"] {
            assert!(text.contains(sub), "{what} lacks {sub}");
        }
    }
}

#[cfg(unix)]
#[test]
fn doctor_checks_the_claude_version_and_proxy_variables() {
    use std::os::unix::fs::PermissionsExt;
    let setup = Setup::new("doctor-version");
    let (_server, _port) = setup.serve();
    let bin = setup.home.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let claude = bin.join("claude");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for (version, expected) in [
        ("2.1.332", "(verified)"),
        (
            "9.9.9",
            "not a verified version (verified: 2.1.332, 2.1.316, 2.1.286, 2.1.257, 2.1.252, 2.1.220, 2.1.197, 2.1.160, 2.1.112)",
        ),
    ] {
        std::fs::write(
            &claude,
            format!("#!/bin/sh\necho '{version} (Claude Code)'\n"),
        )
        .unwrap();
        std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755)).unwrap();
        let (report, ok) = setup.doctor(&[("PATH", &path), ("https_proxy", "http://proxy:1")]);
        assert!(ok, "version and proxy findings are warnings: {report:#}");
        let found = findings(&report, "claude");
        assert!(
            found[0].contains(version) && found[0].ends_with(expected),
            "{found:?}"
        );
        assert_eq!(
            findings(&report, "proxy"),
            ["warn: https_proxy is set and no_proxy does not list 127.0.0.1 or localhost"]
        );
    }
}

#[test]
fn doctor_shows_what_a_server_says_inert() {
    let name = "evil\x1b]52;c;aGk=\x07\x1b[2J\r\u{202e}gpj.exe";
    // Into a pipe, and as into a terminal (CLICOLOR_FORCE: anstream then passes escape
    // sequences through instead of stripping them).
    for force_colour in [false, true] {
        let setup = Setup::new(&format!("doctor-inert-{force_colour}"));
        let server = FakeServer::start(Behaviour::Answers(name));
        let ide = setup.config().join("ide");
        write_lock(&ide, server.port, std::process::id(), TOKEN, &setup.work);
        let mut doctor = setup.command(&["doctor"]);
        doctor.arg(&setup.work);
        if force_colour {
            doctor.env("CLICOLOR_FORCE", "1");
        }
        let (output, _) = run_within(&mut doctor, DEADLINE);
        let text = String::from_utf8(output.stdout).unwrap();
        assert!(output.status.success(), "{text}");
        for raw in ["\x1b]", "\x1b[2J", "\x07", "\r", "\u{202e}"] {
            assert!(
                !text.contains(raw),
                "{raw:?} reached the terminal: {text:?}"
            );
        }
        let live = format!(
            "live check: port {}: {}; evil<ESC>]52;c;aGk=<BEL><ESC>[2J<CR><U+202E>gpj.exe answered initialize",
            server.port,
            owner_verified()
        );
        assert!(text.contains(&live), "{text}");
        let received = server.received(DEADLINE).unwrap();
        assert!(String::from_utf8_lossy(&received).contains(TOKEN));
    }
}

#[test]
fn a_server_that_only_pings_or_floods_ends_the_check_within_its_deadline() {
    for (every, why) in [
        (Duration::from_millis(250), "no answer within 5 s"),
        (Duration::ZERO, "the server sent more than 64 frames"),
    ] {
        let setup = Setup::new("doctor-pings");
        let server = FakeServer::start(Behaviour::Pings(every));
        let ide = setup.config().join("ide");
        write_lock(&ide, server.port, std::process::id(), TOKEN, &setup.work);
        let (output, took) = run_within(
            setup.command(&["doctor", "--json"]).arg(&setup.work),
            DEADLINE,
        );
        eprintln!("pings every {every:?}: doctor ended in {took:?}");
        assert!(took < Duration::from_secs(8), "{took:?}");
        assert!(!output.status.success());
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        let live = findings(&report, "live check");
        assert_eq!(live.len(), 1, "{live:?}");
        assert!(
            live[0].starts_with(&format!(
                "fail: port {}: {}; ",
                server.port,
                owner_verified()
            )) && live[0].contains(why),
            "{live:?}"
        );
    }
}

/// Where the OS tells the owner (macOS is not asked yet: the token is sent there).
#[cfg(any(target_os = "linux", windows))]
#[test]
fn a_listener_the_locks_pid_does_not_own_never_gets_the_token() {
    #[cfg(windows)]
    if support::under_wine() {
        println!(
            "wine-skip: a_listener_the_locks_pid_does_not_own_never_gets_the_token: \
             Wine's TCP table names no owner (pid 0), so the doctor cannot tell and sends the token"
        );
        return;
    }
    let setup = Setup::new("doctor-owner");
    // A live process that is not the listener's: a real server, serving its own port.
    let (server, _port) = setup.serve();
    let impostor = FakeServer::start(Behaviour::Records);
    let ide = setup.config().join("ide");
    write_lock(&ide, impostor.port, server.child.id(), TOKEN, &setup.home);
    let (report, _) = setup.doctor(&[]);
    let received = impostor.received(DEADLINE).unwrap_or_default();
    assert!(
        !String::from_utf8_lossy(&received).contains(TOKEN),
        "the token reached a listener the lock's pid does not own: {:?}",
        String::from_utf8_lossy(&received)
    );
    let live = findings(&report, "live check");
    let about = live
        .iter()
        .find(|line| line.contains(&format!("port {}:", impostor.port)))
        .unwrap_or_else(|| panic!("{live:?}"));
    assert!(
        about.starts_with(&format!(
            "warn: port {}: owner differs: token not sent (the socket listening on port {} is not held by pid {}",
            impostor.port, impostor.port, server.child.id()
        )),
        "{about}"
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_named_like_a_lock_or_claudes_config_stalls_neither_doctor_nor_claude_nor_env() {
    let setup = Setup::new("doctor-fifo");
    let ide = setup.config().join("ide");
    std::fs::create_dir_all(&ide).unwrap();
    // mkfifo(1) (POSIX), as rustix has no mkfifoat on every Unix.
    let made = Command::new("mkfifo")
        .arg(ide.join("x.lock"))
        .arg(setup.config().join(".claude.json"))
        .status()
        .unwrap();
    assert!(made.success());
    let limit = Duration::from_secs(10);
    let (output, took) = run_within(setup.command(&["doctor", "--json"]).arg(&setup.work), limit);
    eprintln!("doctor with a FIFO lock ended in {took:?}");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        report["locks"][0]["error"], "cannot read: it is a FIFO, not a regular file",
        "{report:#}"
    );
    for args in [&["claude", "--claude", "/bin/true"][..], &["env"][..]] {
        let (output, took) = run_within(setup.command(args).current_dir(&setup.work), limit);
        eprintln!("{args:?} with a FIFO lock ended in {took:?}");
        let error = String::from_utf8_lossy(&output.stderr);
        assert!(error.contains("no running server has"), "{args:?}: {error}");
    }
}

#[cfg(unix)]
#[test]
fn claude_is_found_before_entering_the_workspace_and_doctor_names_the_same_one() {
    use std::os::unix::fs::PermissionsExt;
    let setup = Setup::new("claude-lookup");
    let (_server, _port) = setup.serve();
    let script = |path: &Path, marker: &str| {
        std::fs::write(
            path,
            format!("#!/bin/sh\necho \"{marker} $0\" >&2\necho '2.1.332 (Claude Code)'\n"),
        )
        .unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    script(&setup.work.join("claude"), "WORKSPACE");
    let bin = setup.home.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    // An empty entry (the trailing `:`) and `.` name the workspace once claude runs there.
    let path = format!("{}:.:", bin.display());
    let run = |args: &[&str]| {
        let (output, _) = run_within(
            setup
                .command(args)
                .arg(&setup.work)
                .env("PATH", &path)
                .current_dir(&setup.work),
            DEADLINE,
        );
        output
    };
    let claude = run(&["claude"]);
    let said = String::from_utf8_lossy(&claude.stdout);
    assert!(
        !said.contains("WORKSPACE"),
        "the workspace's claude ran: {said}"
    );
    let error = String::from_utf8_lossy(&claude.stderr);
    assert!(error.contains("no `claude` on PATH"), "{claude:?}");
    let doctor: Value = serde_json::from_slice(&run(&["doctor", "--json"]).stdout).unwrap();
    let found = findings(&doctor, "claude");
    assert!(
        found[0].starts_with("warn: no `claude` on PATH"),
        "{found:?}"
    );

    script(&bin.join("claude"), "BIN");
    let claude = run(&["claude"]);
    let said = String::from_utf8_lossy(&claude.stderr);
    let ran = format!("BIN {}", bin.join("claude").display());
    assert!(said.starts_with(&ran), "{said}");
    let doctor: Value = serde_json::from_slice(&run(&["doctor", "--json"]).stdout).unwrap();
    assert_eq!(
        findings(&doctor, "claude"),
        [format!(
            "ok: {} 2.1.332 (verified)",
            bin.join("claude").display()
        )]
    );
}
