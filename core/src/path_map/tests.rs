//! The mapping of single paths, both ways, and of the engine's edge forms.

use super::*;
use crate::ide::{EditorEvent, FileDiagnostics, OpenTab, ToolOutcome, ToolRequest};

fn map() -> PathMap {
    PathMap::parse(&[
        "/home/me=/Users/me",
        "/home/me/proj/=/work/proj",
        "/mnt/c/=C:/",
    ])
    .expect("parses")
}

#[test]
fn longest_prefix_wins_both_ways() {
    let map = map();
    assert_eq!(
        map.to_local("/home/me/proj/a.rs").as_deref(),
        Ok("/work/proj/a.rs")
    );
    assert_eq!(map.to_local("/home/me/proj").as_deref(), Ok("/work/proj"));
    assert_eq!(
        map.to_local("/home/me/notes.md").as_deref(),
        Ok("/Users/me/notes.md")
    );
    assert_eq!(
        map.to_local("/mnt/c/Users/x.txt").as_deref(),
        Ok("C:/Users/x.txt")
    );
    assert_eq!(
        map.to_remote("/work/proj/src/a.rs").as_deref(),
        Ok("/home/me/proj/src/a.rs")
    );
    assert_eq!(map.to_remote("/Users/me").as_deref(), Ok("/home/me"));
    // The editor's Windows spelling is normalized before it is matched.
    assert_eq!(
        map.to_remote(r"c:\Users\x.txt").as_deref(),
        Ok("/mnt/c/Users/x.txt")
    );
}

#[test]
fn a_path_outside_every_mapping_is_refused_with_the_mappings_named() {
    let map = map();
    let error = map
        .to_local("/home/meow/a.rs")
        .expect_err("a prefix of a name is not a folder");
    assert_eq!(
        error.to_string(),
        "/home/meow/a.rs is outside every path mapping (/home/me=/Users/me, \
         /home/me/proj/=/work/proj, /mnt/c/=C:/): the editor has no name for it"
    );
    assert!(map.to_local("/etc/passwd").is_err());
    assert!(map.to_remote("/tmp/x").is_err());
    // `..` after the prefix might leave it: refused, not resolved.
    assert!(map.to_local("/home/me/proj/../../../etc/passwd").is_err());
    assert!(map.to_local("/home/me/./a").is_err());
}

#[test]
fn the_root_maps_everything_under_it() {
    let map = PathMap::parse(&["/=/srv/box/"]).expect("parses");
    assert_eq!(
        map.to_local("/etc/hosts").as_deref(),
        Ok("/srv/box/etc/hosts")
    );
    assert_eq!(map.to_remote("/srv/box").as_deref(), Ok("/"));
    assert!(map.to_remote("/srv/boxes").is_err());
}

#[test]
fn bad_entries_are_refused_and_a_broken_map_refuses_every_path() {
    for (entry, why) in [
        ("/a", "no `=`"),
        ("a=/b", "both sides must be absolute paths"),
        ("/a=", "both sides must be absolute paths"),
    ] {
        let error = PathMap::parse(&[entry]).expect_err(entry);
        assert_eq!(
            error,
            PathMapError::BadEntry {
                entry: entry.into(),
                why
            }
        );
        let broken = PathMap::parse_or_refuse(&[entry]);
        assert!(broken.is_active());
        assert_eq!(broken.to_local("/a/b"), Err(error));
    }
    assert!(!PathMap::parse_or_refuse::<&str>(&[]).is_active());
}

#[test]
fn requests_map_to_the_editor_and_refuse_outside() {
    let map = map();
    let request = ToolRequest::OpenDiff {
        old_file_path: "/home/me/proj/a.rs".into(),
        new_file_path: "/home/me/proj/a.rs".into(),
        new_file_contents: "x".into(),
        tab_name: "t".into(),
        dirty: false,
    };
    let ToolRequest::OpenDiff {
        old_file_path,
        new_file_path,
        ..
    } = map.request_to_local(request).expect("maps")
    else {
        unreachable!("the same variant")
    };
    assert_eq!(
        (&*old_file_path, &*new_file_path),
        ("/work/proj/a.rs", "/work/proj/a.rs")
    );
    let outside = ToolRequest::GetDiagnostics {
        path: Some("/opt/x".into()),
    };
    assert!(map.request_to_local(outside).is_err());
    assert_eq!(
        map.request_to_local(ToolRequest::GetDiagnostics { path: None }),
        Ok(ToolRequest::GetDiagnostics { path: None })
    );
}

#[test]
fn events_and_answers_map_to_claude_and_withhold_outside() {
    let map = map();
    let mention = EditorEvent::Mention {
        path: "/work/proj/a.rs".into(),
        line_start: Some(1),
        line_end: None,
    };
    assert_eq!(
        map.event_to_remote(&mention),
        Some(EditorEvent::Mention {
            path: "/home/me/proj/a.rs".into(),
            line_start: Some(1),
            line_end: None,
        })
    );
    let outside = EditorEvent::DocumentActivated {
        path: "/tmp/scratch".into(),
    };
    assert_eq!(map.event_to_remote(&outside), None);
    let folders = EditorEvent::WorkspaceFoldersChanged {
        folders: vec!["/work/proj".into(), "/tmp".into()],
    };
    assert_eq!(
        map.event_to_remote(&folders),
        Some(EditorEvent::WorkspaceFoldersChanged {
            folders: vec!["/home/me/proj".into()]
        })
    );
    let tabs = ToolOutcome::OpenEditors {
        tabs: ["/work/proj/a.rs", "/tmp/b"]
            .map(|path| OpenTab {
                path: path.into(),
                language_id: None,
                is_dirty: false,
                is_untitled: false,
                is_active: false,
            })
            .to_vec(),
    };
    let ToolOutcome::OpenEditors { tabs } = map.outcome_to_remote(&tabs) else {
        unreachable!("the same variant")
    };
    assert_eq!(tabs.len(), 1);
    assert_eq!(tabs[0].path, "/home/me/proj/a.rs");
    let files = ToolOutcome::Diagnostics {
        files: vec![FileDiagnostics {
            path: "/tmp/b".into(),
            diagnostics: Vec::new(),
        }],
    };
    assert_eq!(
        map.outcome_to_remote(&files),
        ToolOutcome::Diagnostics { files: Vec::new() }
    );
    let selection = ToolOutcome::Selection {
        path: "/tmp/b".into(),
        text: String::new(),
        selection: crate::ide::Range::default(),
    };
    assert_eq!(map.outcome_to_remote(&selection), ToolOutcome::NoSelection);
}
