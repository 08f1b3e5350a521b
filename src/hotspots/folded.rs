//! `perf script`'s text -> folded stacks: each sample's frames, innermost first in perf's
//! output, turned outermost first under the process's name, joined by ';'. perf samples
//! the whole machine, so only the samples of the server's processes are kept: those it
//! had when perf started and those they forked since (perf's task events say which).
//! Its text is another program's output: every line is parsed without trusting its shape.

use super::KEPT_STACKS;
use std::collections::{HashMap, HashSet};

/// The folded stacks of the samples of `roots` and their descendants stamped within
/// `window` (seconds on perf's clock), and how many samples they hold. `script` is
/// `perf script --show-task-events -F comm,pid,tid,time,ip,sym,dso`'s output.
pub fn fold(script: &str, window: (f64, f64), roots: &[u32]) -> (Vec<(String, u64)>, u64) {
    let mut server: HashSet<u32> = roots.iter().copied().collect();
    let mut by: HashMap<String, u64> = HashMap::new();
    let mut samples = 0;
    // The sample being read: its process's name, then its frames, innermost first.
    let mut current: Option<Vec<String>> = None;
    let mut keep = |frames: Option<Vec<String>>| {
        if let Some(mut frames) = frames {
            frames[1..].reverse();
            *by.entry(frames.join(";")).or_default() += 1;
            samples += 1;
        }
    };
    for line in script.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')) {
        if line.starts_with(char::is_whitespace) {
            if let (Some(frames), Some(f)) = (current.as_mut(), frame(line)) {
                frames.push(f);
            }
            continue;
        }
        keep(current.take());
        if let Some((child, parent)) = forked(line) {
            if server.contains(&parent) {
                server.insert(child);
            }
            continue;
        }
        let Some(head) = header(line) else { continue };
        if server.contains(&head.pid) && head.time >= window.0 && head.time <= window.1 {
            current = Some(vec![head.comm.to_string()]);
        }
    }
    keep(current.take());
    (heaviest(by.into_iter().collect()), samples)
}

/// A sample's first line: "COMM PID/TID SECONDS:".
struct Header<'a> {
    comm: &'a str,
    pid: u32,
    time: f64,
}

/// The header's parts; the process's name may hold spaces, so the pid is found first.
fn header(line: &str) -> Option<Header<'_>> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| w.split_once('/').is_some_and(|(p, t)| numeric(p) && numeric(t)))?;
    let pid = words[at].split_once('/')?.0.parse().ok()?;
    let time = words[at + 1..].iter().find_map(|w| w.strip_suffix(':').and_then(|t| t.parse::<f64>().ok()))?;
    let comm = line.split(words[at]).next().unwrap_or("?").trim();
    Some(Header { comm: if comm.is_empty() { "?" } else { comm }, pid, time })
}

fn numeric(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// A task event "… PERF_RECORD_FORK(CHILD:TID):(PARENT:TID)": the new process and its
/// parent (a new thread's is its own process).
fn forked(line: &str) -> Option<(u32, u32)> {
    let rest = line.split_once("PERF_RECORD_FORK(")?.1;
    let (child, rest) = rest.split_once(':')?;
    let parent = rest.split_once(":(")?.1.split_once(':')?.0;
    Some((child.parse().ok()?, parent.parse().ok()?))
}

/// One frame line ("\t ffffffff8123 ext4_sync_file+0x1f ([kernel.kallsyms])"): its
/// function, "_[k]" added for the kernel's; an unresolved one by its object's name.
fn frame(line: &str) -> Option<String> {
    let rest = line.trim().split_once(' ')?.1.trim();
    let (sym, dso) = match rest.rfind(" (") {
        Some(i) => (&rest[..i], rest[i + 2..].trim_end_matches(')')),
        None => (rest, ""),
    };
    let name = sym.split("+0x").next().unwrap_or(sym).trim();
    let name = if name.is_empty() || name == "[unknown]" {
        format!("[{}]", dso.rsplit('/').next().unwrap_or("unknown"))
    } else {
        name.replace(';', ":")
    };
    Some(if dso.contains("kernel.kallsyms") { format!("{name}_[k]") } else { name })
}

/// `stacks` the heaviest first, those past `KEPT_STACKS` summed into one line.
pub fn heaviest(mut stacks: Vec<(String, u64)>) -> Vec<(String, u64)> {
    stacks.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    if stacks.len() > KEPT_STACKS {
        let rest: u64 = stacks.drain(KEPT_STACKS..).map(|(_, n)| n).sum();
        stacks.push(("[other stacks]".into(), rest));
    }
    stacks
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Samples as perf 6.1's `perf script --show-task-events -F comm,pid,tid,time,ip,sym,dso`
    /// prints them: the server's (4242, and 4300 it forks), another process's, and idle.
    const SCRIPT: &str = "postgres  4242/4242  1234.5678: \n\
\t    ffffffff8a3c1f ext4_sync_file+0x1f ([kernel.kallsyms])\n\
\t    ffffffff8a0001 do_fsync+0x38 ([kernel.kallsyms])\n\
\t    7f00aa issue_xlog_fsync+0x4c (/usr/lib/postgresql/15/bin/postgres)\n\
\t    7f00bb [unknown] (/usr/lib/x86_64-linux-gnu/libc.so.6)\n\
\n\
postgres  4242/4242  1234.5800: PERF_RECORD_FORK(4300:4300):(4242:4242)\n\
dbrace  5000/5001  1234.5900: \n\
\t    7f00dd some_client_work+0x10 (/usr/bin/dbrace)\n\
\n\
postgres  4300/4300  1234.6000: \n\
\t    7f00cc base_yyparse+0x100 (/usr/lib/postgresql/15/bin/postgres)\n\
\n\
swapper     0/0      1234.6100: \n\
\t    ffffffff8224379b pv_native_safe_halt ([kernel.kallsyms])\n\
\n";

    #[test]
    fn the_servers_samples_fold_outermost_first() {
        let (stacks, samples) = fold(SCRIPT, (1234.0, 1235.0), &[4242]);
        assert_eq!(samples, 2);
        assert_eq!(
            stacks,
            [
                ("postgres;[libc.so.6];issue_xlog_fsync;do_fsync_[k];ext4_sync_file_[k]".to_string(), 1),
                ("postgres;base_yyparse".to_string(), 1)
            ]
        );
        // Outside the measured phase: not kept.
        assert_eq!(fold(SCRIPT, (1234.59, 1235.0), &[4242]).1, 1);
        // Not the server's: not kept.
        assert_eq!(fold(SCRIPT, (1234.0, 1235.0), &[5000]).1, 1);
        // Garbage is no sample and no panic.
        assert_eq!(fold("\n\n  \n###\n", (0.0, 1e9), &[1]).1, 0);
        assert_eq!(fold("x 1/1 1.5:\n\t\u{0}\n", (0.0, 1e9), &[1]).0[0].0, "x");
        assert_eq!(fold("a b 7/7 x: PERF_RECORD_FORK(:):(\n", (0.0, 1e9), &[7]).1, 0);
    }

    #[test]
    fn past_the_kept_stacks_the_rest_is_one_line() {
        let many: Vec<(String, u64)> = (0..KEPT_STACKS as u64 + 5).map(|i| (format!("s{i}"), i + 1)).collect();
        let kept = heaviest(many);
        assert_eq!(kept.len(), KEPT_STACKS + 1);
        assert_eq!(kept[0].1, KEPT_STACKS as u64 + 5);
        assert_eq!(kept.last().unwrap(), &("[other stacks]".to_string(), 15));
    }
}
