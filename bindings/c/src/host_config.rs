//! The JSON form of a host configuration (`idelink_host_start`'s `config_json`): this
//! binding's own form, read with serde; its `engine` member is core's `Config` form, read by
//! core's codec (`idelink_core::forms`).

use idelink_mio::{HostConfig, LockPlacement, PortChoice};
use serde::Deserialize;

/// `{"ideName":"My Editor","workspaceFolders":["/p"],"lock":"default"|"none"|{"dir":"/d"},
/// "port":0|40000|[40000,40100],"headless":false,"serveWhenHeadless":false,
/// "runningInWindows":false,"pid":1234,"resume":false,"engine":{…}}`. Only `ideName` and `workspaceFolders`
/// are required; an unknown field is an error naming it.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct HostConfigJson {
    ide_name: String,
    workspace_folders: Vec<String>,
    #[serde(default)]
    lock: LockJson,
    #[serde(default)]
    port: PortJson,
    #[serde(default)]
    headless: bool,
    #[serde(default)]
    serve_when_headless: bool,
    #[serde(default)]
    running_in_windows: bool,
    #[serde(default)]
    resume: bool,
    pid: Option<u32>,
    pause_reads_at_bytes: Option<usize>,
    engine: Option<Box<serde_json::value::RawValue>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
enum LockJson {
    #[default]
    Default,
    None,
    Dir(String),
}

#[derive(Debug, Default, Deserialize)]
#[serde(untagged)]
enum PortJson {
    #[default]
    #[serde(skip)]
    Ephemeral,
    Fixed(u16),
    Range([u16; 2]),
}

/// Parses `text`; the error says which field is wrong.
pub(crate) fn parse(text: &str) -> Result<HostConfig, String> {
    let json: HostConfigJson = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let mut config = HostConfig::new(json.ide_name, json.workspace_folders);
    config.lock = match json.lock {
        LockJson::Default => LockPlacement::Default,
        LockJson::None => LockPlacement::None,
        LockJson::Dir(dir) => LockPlacement::At(dir.into()),
    };
    config.port = match json.port {
        PortJson::Ephemeral | PortJson::Fixed(0) => PortChoice::Ephemeral,
        PortJson::Fixed(port) => PortChoice::Fixed(port),
        PortJson::Range([low, high]) => PortChoice::Range(low, high),
    };
    config.headless = json.headless;
    config.serve_when_headless = json.serve_when_headless;
    config.running_in_windows = json.running_in_windows;
    config.resume = json.resume;
    if let Some(pid) = json.pid {
        config.pid = pid;
    }
    if let Some(bytes) = json.pause_reads_at_bytes {
        config.pump = idelink_core::host_rules::PumpPolicy::pausing_at(bytes);
    }
    if let Some(engine) = json.engine {
        config.engine =
            idelink_core::forms::read(engine.get()).map_err(|e| format!("engine: {e}"))?;
    }
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_maps_onto_the_host_config() {
        let config = parse(
            r#"{"ideName":"Ed","workspaceFolders":["/p"],"lock":{"dir":"/tmp/l"},
                "port":[41000,41010],"headless":true,"serveWhenHeadless":true,
                "runningInWindows":true,"pid":7,"pauseReadsAtBytes":1024,"resume":true,
                "engine":{"readyDelayMs":0}}"#,
        );
        let config = config.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(config.ide_name, "Ed");
        assert_eq!(config.workspace_folders, ["/p"]);
        assert_eq!(config.lock, LockPlacement::At("/tmp/l".into()));
        assert_eq!(config.port, PortChoice::Range(41000, 41010));
        assert!(config.headless && config.serve_when_headless && config.running_in_windows);
        assert!(config.resume);
        assert_eq!((config.pid, config.pump.pause_reads_at_bytes), (7, 1024));
        assert_eq!(config.engine.ready_delay_ms, 0);
    }

    #[test]
    fn defaults_and_the_other_lock_and_port_forms() {
        let config = parse(r#"{"ideName":"Ed","workspaceFolders":[]}"#);
        let config = config.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(config.lock, LockPlacement::Default);
        assert_eq!(config.port, PortChoice::Ephemeral);
        assert!(!config.headless && !config.resume);
        let config = parse(r#"{"ideName":"Ed","workspaceFolders":[],"lock":"none","port":4100}"#);
        let config = config.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(config.lock, LockPlacement::None);
        assert_eq!(config.port, PortChoice::Fixed(4100));
    }

    #[test]
    fn a_wrong_field_is_named() {
        let err = parse(r#"{"ideName":"Ed","workspaceFolders":[],"lockDir":"/x"}"#);
        assert!(err.is_err_and(|e| e.contains("unknown field `lockDir`")));
        let err = parse(r#"{"ideName":"Ed","workspaceFolders":[],"engine":{"prot":1}}"#);
        assert!(err.is_err_and(|e| e.starts_with("engine: config: unknown field `prot`")));
    }
}
