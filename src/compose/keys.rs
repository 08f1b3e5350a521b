//! The keys of a Compose service: those dbrace takes, those the Compose Specification
//! has that dbrace leaves out (and says so), and any other, a mistake refused as
//! `docker compose` refuses it. `x-` extension fields are the file's own.

use crate::error::Result;
use yaml_serde::Value;

/// The keys of a service dbrace takes (`extends` and `env_file` are the project's).
#[rustfmt::skip]
const TAKEN: &[&str] = &[
    "image", "environment", "env_file", "extends", "command", "entrypoint", "ports", "tmpfs",
    "volumes", "container_name", "shm_size", "ulimits", "deploy", "cpus", "mem_limit",
];

/// Every other key the Compose Specification gives a service: named as left out.
#[rustfmt::skip]
const LEFT_OUT: &[&str] = &[
    "annotations", "attach", "blkio_config", "build", "cap_add", "cap_drop", "cgroup",
    "cgroup_parent", "configs", "cpu_count", "cpu_percent", "cpu_period", "cpu_quota",
    "cpu_rt_period", "cpu_rt_runtime", "cpu_shares", "cpuset", "credential_spec", "depends_on",
    "develop", "device_cgroup_rules", "devices", "dns", "dns_opt", "dns_search", "domainname",
    "driver_opts", "expose", "external_links", "extra_hosts", "gpus", "group_add", "healthcheck",
    "hostname", "init", "ipc", "isolation", "label_file", "labels", "links", "logging",
    "mac_address", "mem_reservation", "mem_swappiness", "memswap_limit", "network_mode", "networks",
    "oom_kill_disable", "oom_score_adj", "pid", "pids_limit", "platform", "post_start", "pre_stop",
    "privileged", "profiles", "provider", "pull_policy", "read_only", "restart", "runtime", "scale",
    "secrets", "security_opt", "stdin_open", "stop_grace_period", "stop_signal", "storage_opt",
    "sysctls", "tty", "use_api_socket", "user", "userns_mode", "uts", "volumes_from", "working_dir",
];

/// Refuse a key that is no service key of the Compose Specification (`x-` extensions aside).
pub fn check(v: &Value, at: &dyn Fn(&str) -> String) -> Result<()> {
    for k in v.as_mapping().into_iter().flatten().map(|(k, _)| k.as_str().unwrap_or("?")) {
        if !TAKEN.contains(&k) && !LEFT_OUT.contains(&k) && !k.starts_with("x-") {
            return Err(bad_input!("{} is not a key of a Compose service (a typo?); fix or remove it", at(k)));
        }
    }
    Ok(())
}

/// Its keys dbrace does not take, and of `deploy` all but `resources.limits`.
pub fn left_out(v: &Value) -> Vec<String> {
    let keys = v.as_mapping().into_iter().flatten().filter_map(|(k, _)| k.as_str());
    let mut out: Vec<String> = keys.filter(|k| LEFT_OUT.contains(k)).map(str::to_string).collect();
    let deploy = v.get("deploy").and_then(Value::as_mapping).into_iter().flatten();
    for (k, d) in deploy.filter_map(|(k, d)| Some((k.as_str()?, d))) {
        match (k, d.as_mapping()) {
            ("resources", Some(r)) => {
                let other = r.iter().filter_map(|(k, _)| k.as_str()).filter(|k| *k != "limits");
                out.extend(other.map(|o| format!("deploy.resources.{o}")));
            }
            _ => out.push(format!("deploy.{k}")),
        }
    }
    out
}
