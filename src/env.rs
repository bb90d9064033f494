//! The environment `squad` reads: OpenCorvus's data root (LOC-2), squad's download cache, test
//! hooks. The only place that looks at environment variables.

// The one place that reads the environment (clippy.toml).
#![allow(clippy::disallowed_methods)]

use std::path::PathBuf;

/// `<R>`: `$OPENCORVUS_HOME` when absolute and not blank, else the per-OS data directory.
pub fn opencorvus_root() -> Option<PathBuf> {
    if let Some(home) = std::env::var_os("OPENCORVUS_HOME") {
        let path = PathBuf::from(&home);
        if path.is_absolute() && !home.to_string_lossy().trim().is_empty() {
            return Some(path);
        }
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    if cfg!(target_os = "macos") {
        return home.map(|home| home.join("Library/Application Support/opencorvus"));
    }
    if cfg!(windows) {
        return std::env::var_os("LOCALAPPDATA")
            .map(PathBuf::from)
            .or_else(|| home.map(|home| home.join("AppData").join("Local")))
            .map(|base| base.join("opencorvus"));
    }
    let data = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .filter(|path| path.is_absolute())
        .or_else(|| home.map(|home| home.join(".local/share")))?;
    Some(data.join("opencorvus"))
}

/// The global config root `<R>/config`.
pub fn global_config_root() -> Option<PathBuf> {
    opencorvus_root().map(|root| root.join("config"))
}

/// Whether colour is disabled by `NO_COLOR` (any non-empty value).
pub fn no_color() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty())
}

/// Now, in UTC; `SQUAD_NOW=YYYY-MM-DDTHH:MM:SSZ` overrides the clock (for tests of an index's
/// expiry).
pub fn now_utc() -> crate::version::Timestamp {
    std::env::var("SQUAD_NOW")
        .ok()
        .and_then(|text| crate::version::Timestamp::parse(&text))
        .unwrap_or_else(crate::version::Timestamp::now)
}

/// Today's UTC date; `SQUAD_TODAY=YYYY-MM-DD` overrides the clock (for tests and reproducible
/// scripts).
pub fn today_utc() -> crate::version::Date {
    std::env::var("SQUAD_TODAY")
        .ok()
        .and_then(|text| crate::version::Date::parse(&text))
        .unwrap_or_else(crate::version::Date::today_utc)
}

/// The system's temporary directory (`TMPDIR` on Unix).
pub fn temporary_directory() -> PathBuf {
    std::env::temp_dir()
}

/// `SQUAD_HTTP_TIMEOUT`: seconds to wait for a connection or for any read (like cargo's
/// `CARGO_HTTP_TIMEOUT`).
pub fn http_timeout() -> Option<std::time::Duration> {
    seconds("SQUAD_HTTP_TIMEOUT")
}

/// Seconds from an environment variable: positive, finite, under a day.
fn seconds(name: &str) -> Option<std::time::Duration> {
    std::env::var(name)
        .ok()
        .and_then(|text| text.trim().parse::<f64>().ok())
        .filter(|seconds| seconds.is_finite() && *seconds > 0.0 && *seconds < 86_400.0)
        .map(std::time::Duration::from_secs_f64)
}

/// `SQUAD_HEARTBEAT`: seconds between the heartbeat lines of a long transfer without a
/// terminal (10 by default, at least 1).
pub fn heartbeat() -> std::time::Duration {
    seconds("SQUAD_HEARTBEAT")
        .unwrap_or(std::time::Duration::from_secs(10))
        .max(std::time::Duration::from_secs(1))
}

/// `SQUAD_HTTP_DEADLINE`: seconds one request may take in all, its body included.
pub fn http_deadline() -> Option<std::time::Duration> {
    seconds("SQUAD_HTTP_DEADLINE")
}

/// `SQUAD_NET_DEADLINE`: seconds all the network work of one command may take.
pub fn net_deadline() -> Option<std::time::Duration> {
    seconds("SQUAD_NET_DEADLINE")
}

/// `SQUAD_NET_RETRY`: retries after a transient network failure (like `CARGO_NET_RETRY`).
pub fn net_retry() -> Option<u32> {
    std::env::var("SQUAD_NET_RETRY")
        .ok()
        .and_then(|text| text.trim().parse::<u32>().ok())
        .map(|retries| retries.min(10))
}

/// Registry credentials from the environment, for CI (docs/project-files.md, "CI"):
/// `SQUAD_REGISTRY_HOST`, `SQUAD_REGISTRY_USERNAME` and `SQUAD_REGISTRY_TOKEN`, each when set and
/// not blank (the token as given: a secret, never printed).
pub fn registry_token() -> (Option<String>, Option<String>, Option<String>) {
    let var = |name: &str| {
        std::env::var(name)
            .ok()
            .filter(|value| !value.trim().is_empty())
    };
    (
        var("SQUAD_REGISTRY_HOST"),
        var("SQUAD_REGISTRY_USERNAME"),
        var("SQUAD_REGISTRY_TOKEN"),
    )
}

/// `DOCKER_AUTH_CONFIG`: a Docker `config.json` given as the variable's value (as GitLab CI
/// and other runners pass registry credentials), when set and not blank.
pub fn docker_auth_config() -> Option<String> {
    std::env::var("DOCKER_AUTH_CONFIG")
        .ok()
        .filter(|value| !value.trim().is_empty())
}

/// A non-empty environment variable naming a path (`DOCKER_CONFIG`, `REGISTRY_AUTH_FILE`,
/// `XDG_RUNTIME_DIR`, `HOME`).
pub fn path_var(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
}

/// squad's download cache: `$SQUAD_CACHE_DIR` (made absolute against the current directory),
/// else the per-OS user cache directory (`$XDG_CACHE_HOME/squad` or `~/.cache/squad`,
/// `~/Library/Caches/squad`, `%LOCALAPPDATA%\squad\cache`).
pub fn cache_dir() -> Option<PathBuf> {
    if let Some(dir) = path_var("SQUAD_CACHE_DIR") {
        return Some(if dir.is_absolute() {
            dir
        } else {
            std::env::current_dir().ok()?.join(dir)
        });
    }
    let home = path_var("HOME");
    if cfg!(target_os = "macos") {
        return home.map(|home| home.join("Library/Caches/squad"));
    }
    if cfg!(windows) {
        return path_var("LOCALAPPDATA")
            .or_else(|| home.map(|home| home.join("AppData").join("Local")))
            .map(|base| base.join("squad").join("cache"));
    }
    path_var("XDG_CACHE_HOME")
        .filter(|path| path.is_absolute())
        .or_else(|| home.map(|home| home.join(".cache")))
        .map(|base| base.join("squad"))
}

/// A test hook: `SQUAD_FAILPOINT=<phase>` stops the process at that phase and says so on stderr.
/// It then waits to be killed (crash tests), or, when `SQUAD_FAILPOINT_RESUME` names a FIFO,
/// until the test has opened and closed that FIFO (race tests change the file system while it
/// waits, then let it go on).
pub fn failpoint(phase: &str) {
    if std::env::var("SQUAD_FAILPOINT").is_ok_and(|wanted| wanted == phase) {
        #[allow(clippy::print_stderr)]
        {
            eprintln!("failpoint {phase}");
        }
        match std::env::var_os("SQUAD_FAILPOINT_RESUME") {
            Some(fifo) => {
                let _ = std::fs::read(fifo);
            }
            None => std::thread::sleep(std::time::Duration::from_secs(120)),
        }
    }
}

/// `SQUAD_LOCK_STALE_MS`: a shorter stale window for install locks, so crash tests need not
/// wait ten seconds for each killed holder.
pub fn lock_stale_millis() -> Option<u64> {
    std::env::var("SQUAD_LOCK_STALE_MS")
        .ok()
        .and_then(|text| text.parse::<u64>().ok())
}
