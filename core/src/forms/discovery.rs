//! The discovery forms ([`crate::discovery`]): a `ClaudeStart` in (unknown fields refused, in
//! each lock too; `env` is any object, of which only the CLI's own variables are read, so
//! `process.env` can be passed as it is), a `Verdict` out.

use super::FormError;
use super::config::path_style;
use super::read::{Val, string, strings};
use super::write::Object;
use crate::discovery::{AutoConnect, Candidate, ClaudeEnv, ClaudeStart, LockChoice, Verdict};
use crate::ide::PathStyle;
use crate::json::push_u64;

const START_FIELDS: [&str; 6] = [
    "cwd",
    "pathStyle",
    "locks",
    "env",
    "autoConnectConfig",
    "ideFlag",
];

/// A `ClaudeStart` in its JSON form.
pub(super) fn claude_start(v: Val<'_>) -> Result<ClaudeStart, FormError> {
    let o = v.object()?;
    o.each_known(&START_FIELDS, &mut |name, _| {
        Ok(START_FIELDS.contains(&name))
    })?;
    Ok(ClaudeStart {
        cwd: o.string("cwd")?,
        path_style: o.or("pathStyle", PathStyle::default(), path_style)?,
        locks: o.req("locks", |v| v.list(candidate))?,
        env: o.or("env", ClaudeEnv::default(), claude_env)?,
        auto_connect_config: o.flag("autoConnectConfig")?,
        ide_flag: o.flag("ideFlag")?,
    })
}

const CANDIDATE_FIELDS: [&str; 2] = ["port", "workspaceFolders"];

fn candidate(v: Val<'_>) -> Result<Candidate, FormError> {
    let o = v.object()?;
    o.each_known(&CANDIDATE_FIELDS, &mut |name, _| {
        Ok(CANDIDATE_FIELDS.contains(&name))
    })?;
    Ok(Candidate {
        port: o.req("port", |v| v.integer(u64::from(u16::MAX)))? as u16,
        workspace_folders: o.req("workspaceFolders", strings)?,
    })
}

fn claude_env(v: Val<'_>) -> Result<ClaudeEnv, FormError> {
    let o = v.object()?;
    let [a, b, c, d, e, f] = ClaudeEnv::NAMES;
    Ok(ClaudeEnv {
        auto_connect_ide: o.opt(a, string)?,
        sse_port: o.opt(b, string)?,
        ide_skip_valid_check: o.opt(c, string)?,
        force_code_terminal: o.opt(d, string)?,
        term_program: o.opt(e, string)?,
        terminal_emulator: o.opt(f, string)?,
    })
}

/// A `Verdict` in its JSON form.
pub(super) fn verdict(out: &mut Vec<u8>, verdict: &Verdict) {
    let Verdict {
        auto_connect,
        choice,
        ide_terminal,
        ancestor_rule,
        connects_to,
    } = verdict;
    Object::new(out)
        .with("autoConnect", |out| match auto_connect {
            AutoConnect::Disabled => Object::new(out).str("state", "disabled").end(),
            AutoConnect::On { reason } => Object::new(out)
                .str("state", "on")
                .str("reason", reason.as_str())
                .end(),
            AutoConnect::NotRequested => Object::new(out).str("state", "notRequested").end(),
        })
        .with("choice", |out| match choice {
            LockChoice::One { port } => {
                Object::new(out).str("kind", "one").u64("port", *port).end()
            }
            LockChoice::None => Object::new(out).str("kind", "none").end(),
            LockChoice::Ambiguous { ports } => Object::new(out)
                .str("kind", "ambiguous")
                .with("ports", |out| {
                    out.push(b'[');
                    for (at, port) in ports.iter().enumerate() {
                        if at > 0 {
                            out.push(b',');
                        }
                        push_u64(out, u64::from(*port));
                    }
                    out.push(b']');
                })
                .end(),
        })
        .nullable("ideTerminal", *ide_terminal, |out, terminal| {
            crate::json::push_string(out, terminal.as_str())
        })
        .bool("ancestorRule", *ancestor_rule)
        .nullable("connectsTo", *connects_to, |out, port| {
            push_u64(out, u64::from(port))
        })
        .end();
}
