//! The serve terminal's own commands, typed as a line at any time, shown by `?`:
//! `@FILE[:LINE[-LINE]]` sends claude an @-mention, `s` lists the connected claude sessions
//! (pid, folders, which one is chosen), `s N` chooses session N (`s -` none), `d` shows the
//! diff under review again, `p` pauses or resumes sharing the editor's context. None of them
//! is a review answer (`a`, `r`, `e`), so
//! the review keystrokes keep their meaning while a diff is up.

use idelink_core::{ConnId, EditorEvent, EngineEvent, SessionInfo};
use std::collections::BTreeMap;
use std::path::Path;

/// The help `?` prints.
pub const HELP: &str = "commands: @FILE or @FILE:10 or @FILE:10-20 mentions a file or lines \
                        to claude · s lists claude sessions (pid, folders) · s N chooses session N for mentions \
                        (s - none) · d shows the pending diff again \
                        · p pauses / resumes sharing (no file, mention or read answer reaches \
                        claude while paused) \
                        · t lists claude's turns, t N shows one · u N [FILE [HUNK]] undoes a \
                        turn, a file or a hunk (then yes) \
                        · a / r / e answer a diff (one shown only in summary takes e, r or \
                        \"accept unseen\") · ? this help";

/// A command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `?`: the help.
    Help,
    /// `@FILE[:A[-B]]`: the mention to send.
    Mention(EditorEvent),
    /// `s`: the sessions.
    Sessions,
    /// `s N`: choose session N (`conn#N`) for mentions, and under `--routing chosen` every
    /// push; `s -`: none.
    Choose(Option<ConnId>),
    /// `d`: the pending diff again.
    ShowDiff,
    /// `p`: pause sharing, or resume it.
    TogglePause,
}

/// The command `line` is, `None` when it is none (a review answer, or anything else), or
/// what is wrong with it. Paths are taken relative to `workspace` unless absolute; the file
/// must exist; lines are 1-based as editors show them (the wire is 0-based).
pub fn parse(line: &str, workspace: &str) -> Option<Result<Command, String>> {
    let line = line.trim();
    match line {
        "?" | "help" => return Some(Ok(Command::Help)),
        "s" | "sessions" => return Some(Ok(Command::Sessions)),
        "d" | "diff" => return Some(Ok(Command::ShowDiff)),
        "p" | "pause" => return Some(Ok(Command::TogglePause)),
        _ => {}
    }
    if let Some(which) = line.strip_prefix("s ") {
        return Some(choice(which.trim()));
    }
    let spec = line.strip_prefix('@')?;
    Some(mention(spec, workspace).map(Command::Mention))
}

fn choice(which: &str) -> Result<Command, String> {
    if matches!(which, "-" | "none") {
        return Ok(Command::Choose(None));
    }
    let number = which.strip_prefix("conn#").unwrap_or(which);
    match number.parse::<u64>() {
        Ok(n) if n >= 1 => Ok(Command::Choose(Some(ConnId::from_u64(n)))),
        _ => Err(format!(
            "s {which}: give a session number from the list `s` shows (s 2), or s - for none"
        )),
    }
}

fn mention(spec: &str, workspace: &str) -> Result<EditorEvent, String> {
    let (file, lines) = match spec.rsplit_once(':') {
        Some((file, lines))
            if !lines.is_empty() && lines.chars().all(|c| c.is_ascii_digit() || c == '-') =>
        {
            (file, Some(lines))
        }
        _ => (spec, None),
    };
    if file.is_empty() {
        return Err("give a file after @, e.g. @src/main.rs:10-20".to_owned());
    }
    let path = if Path::new(file).is_absolute() {
        file.to_owned()
    } else {
        format!(
            "{}/{}",
            workspace.trim_end_matches('/'),
            file.trim_start_matches("./")
        )
    };
    if !Path::new(&path).is_file() {
        let near = completions(&path, 5);
        let hint = if near.is_empty() {
            String::new()
        } else {
            format!("; did you mean {}", near.join(", "))
        };
        return Err(format!("no file {file} in {workspace}{hint}"));
    }
    let (line_start, line_end) = match lines {
        None => (None, None),
        Some(range) => {
            let (a, b) = range.split_once('-').unwrap_or((range, range));
            let number = |text: &str| match text.parse::<u32>() {
                Ok(n) if n >= 1 => Ok(n - 1),
                _ => Err(format!(
                    "{range} is not a line or a range like 10-20 (lines start at 1)"
                )),
            };
            let (a, b) = (number(a)?, number(b)?);
            if b < a {
                return Err(format!("{range}: the range ends before it starts"));
            }
            (Some(a), Some(b))
        }
    };
    Ok(EditorEvent::Mention {
        path,
        line_start,
        line_end,
    })
}

/// Up to `max` names in `path`'s folder that start with its last component (folders end in
/// `/`), sorted: the completion a line-mode terminal can offer.
fn completions(path: &str, max: usize) -> Vec<String> {
    let (folder, prefix) = path.rsplit_once('/').unwrap_or((".", path));
    let Ok(entries) = std::fs::read_dir(if folder.is_empty() { "/" } else { folder }) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let folder = entry.file_type().ok()?.is_dir();
            name.starts_with(prefix)
                .then(|| if folder { format!("{name}/") } else { name })
        })
        .collect();
    names.sort();
    names.truncate(max);
    names
}

/// The connected claude sessions, kept from the engine's events.
#[derive(Debug, Default)]
pub struct Sessions {
    by_conn: BTreeMap<ConnId, String>,
}

impl Sessions {
    /// Follows connects, ready sessions and closes.
    pub fn on_event(&mut self, event: &EngineEvent) {
        match event {
            EngineEvent::Connected { conn, user_agent } => {
                let agent = user_agent.as_deref().unwrap_or("no user agent");
                self.by_conn.insert(*conn, format!("connecting ({agent})"));
            }
            EngineEvent::SessionReady {
                conn,
                client,
                client_pid,
            } => {
                let pid = client_pid.map_or(String::new(), |pid| format!(", pid {pid}"));
                self.by_conn
                    .insert(*conn, format!("{} {}{pid}", client.name, client.version));
            }
            EngineEvent::Closed { conn, .. } => {
                self.by_conn.remove(conn);
            }
            _ => {}
        }
    }

    /// Whether `conn` passed the upgrade with the token and is not closed yet.
    pub fn knows(&self, conn: ConnId) -> bool {
        self.by_conn.contains_key(&conn)
    }

    /// One line per session, with what the engine's session list says of the ready ones
    /// (`listed`: folders from roots/list, and `*` before the chosen one), or one line saying
    /// there is none. Folder names come from the client: the screen renders them inert.
    pub fn lines(&self, listed: &[SessionInfo]) -> Vec<String> {
        if self.by_conn.is_empty() {
            return vec!["no claude session is connected".to_owned()];
        }
        self.by_conn
            .iter()
            .map(|(conn, what)| {
                let Some(info) = listed.iter().find(|info| info.conn == *conn) else {
                    return format!("  {conn}: {what}");
                };
                let mark = if info.chosen { '*' } else { ' ' };
                let folders = match &info.folders {
                    Some(folders) if !folders.is_empty() => folders.join(", "),
                    Some(_) => "no folders".to_owned(),
                    None => "folders not known".to_owned(),
                };
                format!("{mark} {conn}: {what} — {folders}")
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace() -> String {
        let dir = std::env::temp_dir().join(format!("idelink-commands-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("src")).expect("temp dir");
        std::fs::write(dir.join("src/main.rs"), "fn main() {}\n").expect("write");
        dir.to_str().expect("utf-8 temp dir").to_owned()
    }

    fn mentioned(path: String, start: Option<u32>, end: Option<u32>) -> Command {
        Command::Mention(EditorEvent::Mention {
            path,
            line_start: start,
            line_end: end,
        })
    }

    #[test]
    fn mentions_take_a_file_a_line_or_a_range_in_editor_line_numbers() {
        let w = workspace();
        let file = format!("{w}/src/main.rs");
        assert_eq!(
            parse("@src/main.rs:10-20", &w),
            Some(Ok(mentioned(file.clone(), Some(9), Some(19))))
        );
        assert_eq!(
            parse(" @./src/main.rs:3 ", &w),
            Some(Ok(mentioned(file.clone(), Some(2), Some(2))))
        );
        assert_eq!(
            parse(&format!("@{file}"), &w),
            Some(Ok(mentioned(file, None, None)))
        );
    }

    #[test]
    fn bad_mentions_say_what_is_wrong() {
        let w = workspace();
        for (line, says) in [
            ("@", "give a file"),
            ("@nope.rs", "no file nope.rs"),
            ("@src/ma", "did you mean main.rs"),
            ("@sr", "did you mean src/"),
            ("@src/main.rs:0", "lines start at 1"),
            ("@src/main.rs:5-2", "ends before it starts"),
            ("@src/main.rs:1-2-3", "not a line or a range"),
        ] {
            let error = parse(line, &w).and_then(Result::err).unwrap_or_default();
            assert!(error.contains(says), "{line}: {error}");
        }
    }

    #[test]
    fn review_answers_and_other_text_are_not_commands() {
        let w = workspace();
        for line in ["a", "r", "e", "accept", "hello", ""] {
            assert_eq!(parse(line, &w), None, "{line}");
        }
        assert_eq!(parse("?", &w), Some(Ok(Command::Help)));
        assert_eq!(parse("s", &w), Some(Ok(Command::Sessions)));
        assert_eq!(parse("d", &w), Some(Ok(Command::ShowDiff)));
    }

    #[test]
    fn s_with_a_number_chooses_that_session_and_s_dash_none() {
        let w = workspace();
        let conn = |n| Some(Ok(Command::Choose(Some(ConnId::from_u64(n)))));
        assert_eq!(parse("s 2", &w), conn(2));
        assert_eq!(parse("s conn#7", &w), conn(7));
        assert_eq!(parse("s -", &w), Some(Ok(Command::Choose(None))));
        assert_eq!(parse("s none", &w), Some(Ok(Command::Choose(None))));
        for bad in ["s 0", "s x", "s -1"] {
            let error = parse(bad, &w).and_then(Result::err).unwrap_or_default();
            assert!(error.contains("give a session number"), "{bad}: {error}");
        }
    }

    #[test]
    fn the_list_shows_each_sessions_folders_and_the_chosen_one() {
        let mut sessions = Sessions::default();
        for n in [1, 2, 3] {
            let conn = ConnId::from_u64(n);
            sessions.on_event(&EngineEvent::Connected {
                conn,
                user_agent: None,
            });
        }
        let listed = [
            SessionInfo {
                conn: ConnId::from_u64(1),
                pid: Some(11),
                folders: Some(vec!["/a".into(), "/b".into()]),
                connected_at: 0,
                chosen: true,
            },
            SessionInfo {
                conn: ConnId::from_u64(2),
                pid: None,
                folders: None,
                connected_at: 0,
                chosen: false,
            },
        ];
        let lines = sessions.lines(&listed);
        assert!(
            lines[0].starts_with("* conn#1: ") && lines[0].ends_with("— /a, /b"),
            "{lines:?}"
        );
        assert!(
            lines[1].starts_with("  conn#2: ") && lines[1].ends_with("— folders not known"),
            "{lines:?}"
        );
        assert_eq!(lines[2], "  conn#3: connecting (no user agent)");
    }
}
