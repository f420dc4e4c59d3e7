//! The built-in WSL mapping: a bridge started through `wsl.exe` (or `wsl`) runs in WSL, which
//! sees each Windows drive `X:` at `/mnt/x` (WSL's default `automount` root, `/mnt/`). When
//! the remote command runs WSL, each workspace folder's drive gets its `/mnt/<drive>/=<DRIVE>:/`
//! pair, unless the user's own `--map` already names that drive on either side. The bridge
//! is a Linux process serving WSL's own loopback, so its lock says `runningInWindows: false`
//! (the hello's default; docs/remote.md, "WSL 2 and `runningInWindows`").

/// `wsl.exe [-d DISTRO] idelink bridge`: the bridge command of `--wsl [DISTRO]`.
pub fn wsl_command(distro: &str) -> String {
    match distro.trim() {
        "" => "wsl.exe idelink bridge".to_owned(),
        name => format!("wsl.exe -d \"{name}\" idelink bridge"),
    }
}

/// Whether `command` starts WSL: its program (after `exec` and `NAME=value` words) is `wsl`
/// or `wsl.exe`, in any case and under any folder.
pub fn runs_wsl(command: &str) -> bool {
    let program = command
        .split_whitespace()
        .find(|word| *word != "exec" && !word.contains('='))
        .map(|word| word.trim_matches(|c| c == '"' || c == '\''))
        .map(|word| {
            word.rsplit(['/', '\\'])
                .next()
                .unwrap_or(word)
                .to_ascii_lowercase()
        });
    matches!(program.as_deref(), Some("wsl" | "wsl.exe"))
}

/// The mappings to use: the user's `maps`, then, when `command` runs WSL, one
/// `/mnt/<drive>/=<DRIVE>:/` pair for each drive of `folders` (Windows paths, `C:/proj` or
/// `C:\proj`) that no user pair names.
pub fn with_wsl_maps(command: &str, folders: &[String], maps: &[String]) -> Vec<String> {
    let mut all = maps.to_vec();
    if !runs_wsl(command) {
        return all;
    }
    for drive in folders.iter().filter_map(|f| drive_of(f)) {
        let named = all.iter().any(|map| {
            let (remote, local) = map.split_once('=').unwrap_or((map, ""));
            drive_of(local) == Some(drive) || mount_drive(remote) == Some(drive)
        });
        if !named {
            all.push(format!("/mnt/{}/={}:/", drive.to_ascii_lowercase(), drive));
        }
    }
    all
}

/// The upper-case drive letter of a Windows path (`c:\x`, `C:/x`, `C:`).
fn drive_of(path: &str) -> Option<char> {
    let mut chars = path.chars();
    let letter = chars.next().filter(char::is_ascii_alphabetic)?;
    (chars.next() == Some(':') && matches!(chars.next(), None | Some('/' | '\\')))
        .then(|| letter.to_ascii_uppercase())
}

/// The drive a WSL path names under `/mnt/` (`/mnt/c`, `/mnt/c/proj`).
fn mount_drive(path: &str) -> Option<char> {
    let rest = path.strip_prefix("/mnt/")?;
    let mut chars = rest.chars();
    let letter = chars.next().filter(char::is_ascii_alphabetic)?;
    matches!(chars.next(), None | Some('/')).then(|| letter.to_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn wsl_is_told_by_the_program_of_the_command() {
        assert!(runs_wsl("wsl.exe -d Ubuntu idelink bridge"));
        assert!(runs_wsl("WSL idelink bridge"));
        assert!(runs_wsl(r"C:\Windows\System32\wsl.exe idelink bridge"));
        assert!(runs_wsl("exec \"wsl.exe\" -e idelink bridge"));
        assert!(!runs_wsl("ssh -T wsl.example idelink bridge"));
        assert!(!runs_wsl("docker exec -i box idelink bridge"));
        assert!(!runs_wsl(""));
    }

    #[test]
    fn each_workspace_drive_gets_its_mount_unless_the_user_mapped_it() {
        let folders = strings(&["C:/proj", r"d:\data\x"]);
        assert_eq!(
            with_wsl_maps("wsl.exe idelink bridge", &folders, &[]),
            strings(&["/mnt/c/=C:/", "/mnt/d/=D:/"])
        );
        // The user's own pair for C: (either side named) wins; D: still gets its mount.
        let mine = strings(&["/home/me/proj=C:/proj"]);
        assert_eq!(
            with_wsl_maps("wsl.exe idelink bridge", &folders, &mine),
            strings(&["/home/me/proj=C:/proj", "/mnt/d/=D:/"])
        );
        let mine = strings(&["/mnt/c/src=E:/src"]);
        assert_eq!(
            with_wsl_maps("wsl idelink bridge", &folders[..1], &mine),
            mine
        );
        // Not WSL, or not a drive path: nothing added.
        assert!(with_wsl_maps("ssh dev idelink bridge", &folders, &[]).is_empty());
        assert!(
            with_wsl_maps("wsl.exe idelink bridge", &strings(&["//server/share"]), &[]).is_empty()
        );
    }

    #[test]
    fn the_added_pairs_are_ones_the_engine_reads() {
        let maps = with_wsl_maps("wsl.exe idelink bridge", &strings(&["C:/proj"]), &[]);
        let map = idelink_core::path_map::PathMap::parse(&maps).map_err(|e| e.to_string());
        let folders = map.map(|m| m.folders(&strings(&["C:/proj"])));
        assert_eq!(folders, Ok(strings(&["/mnt/c/proj"])));
    }

    #[test]
    fn the_wsl_shorthand_names_the_distribution_when_given() {
        assert_eq!(wsl_command(""), "wsl.exe idelink bridge");
        assert_eq!(
            wsl_command("Ubuntu"),
            "wsl.exe -d \"Ubuntu\" idelink bridge"
        );
    }
}
