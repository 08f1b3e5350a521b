//! `perf script`'s text -> folded stacks: each sample's frames, innermost first in perf's
//! output, turned outermost first under the process's name, joined by ';'. Its text is
//! another program's output: every line is parsed without trusting its shape.

use super::KEPT_STACKS;
use std::collections::HashMap;

/// The folded stacks of `script`'s samples stamped within `window` (seconds on perf's
/// clock), and how many samples they hold.
pub fn fold(script: &str, window: (f64, f64)) -> (Vec<(String, u64)>, u64) {
    let mut by: HashMap<String, u64> = HashMap::new();
    let mut samples = 0;
    for block in script.split("\n\n") {
        let mut lines = block.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#'));
        let Some(head) = lines.next() else { continue };
        if !stamped(head).is_some_and(|t| t >= window.0 && t <= window.1) {
            continue;
        }
        let comm = head.split_whitespace().next().unwrap_or("?");
        let mut frames: Vec<String> = lines.filter_map(frame).collect();
        frames.push(comm.to_string());
        frames.reverse();
        *by.entry(frames.join(";")).or_default() += 1;
        samples += 1;
    }
    (heaviest(by.into_iter().collect()), samples)
}

/// A sample's time stamp: the header's word "SECONDS:".
fn stamped(head: &str) -> Option<f64> {
    head.split_whitespace().find_map(|w| w.strip_suffix(':').and_then(|t| t.parse::<f64>().ok()))
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

    /// Two samples as perf 6.1's `perf script` prints them.
    const SCRIPT: &str = "postgres 4242 [001] 1234.5678:   1001001 cpu-clock:pppH: \n\
\t    ffffffff8a3c1f ext4_sync_file+0x1f ([kernel.kallsyms])\n\
\t    ffffffff8a0001 do_fsync+0x38 ([kernel.kallsyms])\n\
\t    7f00aa issue_xlog_fsync+0x4c (/usr/lib/postgresql/15/bin/postgres)\n\
\t    7f00bb [unknown] (/usr/lib/x86_64-linux-gnu/libc.so.6)\n\
\n\
postgres 4242 [000] 1234.6000:   1001001 cpu-clock:pppH: \n\
\t    7f00cc base_yyparse+0x100 (/usr/lib/postgresql/15/bin/postgres)\n\
\n";

    #[test]
    fn perf_script_samples_fold_outermost_first() {
        let (stacks, samples) = fold(SCRIPT, (1234.0, 1235.0));
        assert_eq!(samples, 2);
        assert_eq!(
            stacks,
            [
                ("postgres;[libc.so.6];issue_xlog_fsync;do_fsync_[k];ext4_sync_file_[k]".to_string(), 1),
                ("postgres;base_yyparse".to_string(), 1)
            ]
        );
        // Outside the measured phase: not kept.
        assert_eq!(fold(SCRIPT, (1234.59, 1235.0)).1, 1);
        // Garbage is no sample and no panic.
        assert_eq!(fold("\n\n  \n###\n", (0.0, 1e9)).1, 0);
        assert_eq!(fold("x 1.5:\n\t\u{0}\n", (0.0, 1e9)).0[0].0, "x");
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
