//! `idelink doctor`, `idelink claude`, `idelink env` without a port, completions and the man
//! page, as a user runs them: real processes, real servers, a private HOME and config folder.
#![expect(
    clippy::unwrap_used,
    reason = "a test: any failure must stop it loudly"
)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::Receiver;

mod support;

use support::{claude_path, idelink, lines, temp_dir, wait_for_line};

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
    std::fs::create_dir_all(dir).unwrap();
    let body = serde_json::json!({"pid": pid, "workspaceFolders": [claude_path(folder)], "ideName": "Gone",
        "transport": "ws", "authToken": "0123"});
    std::fs::write(dir.join(format!("{port}.lock")), body.to_string()).unwrap();
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
    assert!(live[0].starts_with(&format!("ok: port {port}: idelink answered initialize")));
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
