//! The exec report: as hyperfine prints it (a block per profile, then relative speed), as
//! Markdown for a pull request, as CSV (one row per run), or as the JSON of every run.

use super::database::{self, Share};
use super::results::{ExecResults, ProfileRuns, Run, RunOutcome};
use super::summary::{self, Summary, Times, Verdict};
use crate::error::Result;
use crate::report::Format;
use crate::results::Survives;
use std::fmt::Write;

/// Render `r`, summarized as `s`, in `format`.
pub fn render(r: &ExecResults, s: &Summary, format: Format) -> Result<String> {
    Ok(match format {
        Format::Table => text(r, s),
        Format::Markdown => markdown(r, s),
        Format::Csv => csv(r),
        Format::Json => {
            let mut r = r.clone();
            r.summary = Some(s.clone());
            serde_json::to_string_pretty(&r).map_err(|e| failed!("cannot encode results: {e}"))? + "\n"
        }
    })
}

/// Seconds or milliseconds, whichever reads better for `mean` (one unit per line, as hyperfine).
fn unit(mean: f64) -> (f64, &'static str, usize) {
    if mean < 1.0 { (1e3, "ms", 1) } else { (1.0, "s", 3) }
}

fn fmt(v: f64, (scale, name, digits): (f64, &str, usize)) -> String {
    format!("{:.*} {name}", digits, v * scale)
}

/// How a profile's server was set up: the profile's words, or the `--url` server as it is
/// and what its settings read back say a commit survives.
fn served_as(r: &ExecResults, p: &ProfileRuns) -> String {
    let Some(url) = &r.options.url else { return p.profile.described() };
    let survives = crate::engine::by_name(&r.engine).map_or(Survives::Unknown, |e| e.survives(&p.profile, &p.settings));
    format!("the server at {url} as it is configured, a commit survives: {survives}")
}

fn text(r: &ExecResults, s: &Summary) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "Command: {}", super::command::shown(&r.command));
    for (p, ps) in r.profiles.iter().zip(&s.profiles) {
        let version = p.engine_version.as_deref().map_or(String::new(), |v| format!(" {v}"));
        let _ = writeln!(o, "\nProfile {}: {}{version}, {}", ps.profile, r.engine, served_as(r, p));
        if let Some(t) = &ps.times {
            let u = unit(t.mean_s);
            let _ = writeln!(
                o,
                "  Time (mean ± σ):     {} ± {}    [User: {}, System: {}]",
                fmt(t.mean_s, u),
                fmt(t.stddev_s, u),
                fmt(t.user_s, unit(t.user_s)),
                fmt(t.system_s, unit(t.system_s))
            );
            let runs = if ps.runs == 1 { "run".to_string() } else { "runs".to_string() };
            let _ =
                writeln!(o, "  Range (min … max):   {} … {}    {} {runs}", fmt(t.min_s, u), fmt(t.max_s, u), ps.runs);
        } else {
            let _ = writeln!(o, "  no successful run");
        }
        if let Some(d) = &ps.database {
            let _ = writeln!(o, "  Database:            {}", database_line(d));
        }
        failures(&mut o, &p.runs);
    }
    let others: Vec<_> = s.profiles.iter().filter_map(|p| p.versus.map(|v| (p, v))).collect();
    if !others.is_empty() {
        let how = if others.iter().any(|(_, v)| v.speedup.pairs.is_some()) {
            "the median of the runs' within-round ratios, with its signed-rank interval"
        } else {
            "ratio of median wall times, with its distribution-free interval"
        };
        let _ = writeln!(
            o,
            "\nSummary (against {}: {how}, {} asked; p of a Mann–Whitney U test)",
            s.baseline,
            crate::stats::percent(s.confidence)
        );
        for (p, v) in others {
            let _ = writeln!(o, "  {}", summary::speed_sentence(&p.profile, &s.baseline, &v, s.confidence));
        }
    } else if s.profiles.len() > 1 {
        let _ = writeln!(o, "\nNo comparison: the baseline {} or the others have no successful run.", s.baseline);
    }
    if let Some(v) = summary::verdict(s) {
        let _ = writeln!(o, "{v}");
    }
    bounds(&mut o, s, "  ");
    o
}

/// What the server did in a run, in a few figures: "busy 0.210 s (6%) [CPU 0.150 s,
/// storage wait 0.040 s; 2000 commits, 2000 fsyncs, 1.2 MB log]".
fn database_line(d: &Share) -> String {
    let mut parts = vec![format!("CPU {:.3} s", d.cpu_s)];
    let waits = [("storage wait", d.storage_wait_s), ("CPU wait", d.cpu_wait_s)];
    parts.extend(waits.iter().map(|(w, v)| v.map_or(format!("{w} not counted"), |v| format!("{w} {v:.3} s"))));
    let counts = [("commits", d.commits), ("fsyncs", d.fsyncs)];
    let mut counted: Vec<String> = counts.iter().filter_map(|(w, v)| v.map(|v| format!("{v:.0} {w}"))).collect();
    counted.extend(d.log_bytes.map(|b| format!("{:.1} MB log", b / 1e6)));
    let tail = if counted.is_empty() { String::new() } else { format!("; {}", counted.join(", ")) };
    format!("busy {:.3} s ({})    [{}{tail}]", d.busy_s, database::percent(d.share), parts.join(", "))
}

/// The baseline's share of the command's time, the most any profile could gain from it,
/// and each measured ratio against that bound.
fn bounds(o: &mut String, s: &Summary, bullet: &str) {
    let Some(base) = s.profiles.iter().find(|p| p.profile == s.baseline).and_then(|p| p.database) else { return };
    let _ = writeln!(
        o,
        "\nThe database's share (the server's CPU and the waits it or the kernel counted, over the command's wall time):"
    );
    let _ = writeln!(o, "{bullet}{}", database::sentence(&s.baseline, &base));
    let Some(bound) = base.at_most else { return };
    for (p, v) in s.profiles.iter().filter_map(|p| p.versus.map(|v| (p, v))) {
        let _ = writeln!(o, "{bullet}{}", database::checked(&p.profile, &v.speedup, bound));
    }
}

/// Failed timed runs: one line each, the first with the tail of its output.
fn failures(o: &mut String, runs: &[Run]) {
    let failed: Vec<&Run> = runs.iter().filter(|r| !r.warmup && r.status != RunOutcome::Ok).collect();
    if failed.is_empty() {
        return;
    }
    let timed = runs.iter().filter(|r| !r.warmup).count();
    let list: Vec<String> = failed.iter().map(|r| format!("#{} {}", r.repeat, super::describe(r))).collect();
    let _ = writeln!(o, "  FAILED {} of {timed} runs (not in the statistics): {}", failed.len(), list.join(", "));
    if let Some(tail) = failed[0].output_tail.as_deref().filter(|t| !t.trim().is_empty()) {
        let _ = writeln!(o, "  last lines of #{}'s output:", failed[0].repeat);
        for line in tail.lines() {
            let _ = writeln!(o, "    | {line}");
        }
    }
}

fn markdown(r: &ExecResults, s: &Summary) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "`{}` on {}\n", super::command::shown(&r.command), r.engine);
    let _ = writeln!(o, "| profile | mean ± σ | min … max | user | system | runs | vs {} |", s.baseline);
    let _ = writeln!(o, "|---|---:|---:|---:|---:|---:|---|");
    let usual = crate::report::usual_level(s.profiles.iter().map(|p| p.versus.and_then(|v| v.speedup.confidence)));
    for ps in &s.profiles {
        let cells = |t: &Times| {
            let u = unit(t.mean_s);
            (
                format!("{} ± {}", fmt(t.mean_s, u), fmt(t.stddev_s, u)),
                format!("{} … {}", fmt(t.min_s, u), fmt(t.max_s, u)),
                fmt(t.user_s, unit(t.user_s)),
                fmt(t.system_s, unit(t.system_s)),
            )
        };
        let (mean, range, user, system) =
            ps.times.as_ref().map_or_else(|| ("-".into(), "-".into(), "-".into(), "-".into()), cells);
        let vs = match (&ps.versus, ps.profile == s.baseline) {
            (_, true) => "baseline".to_string(),
            (Some(v), _) => {
                let r = &v.speedup;
                let own = match (r.confidence, usual) {
                    (Some(l), Some(u)) if (l - u).abs() < 1e-9 => String::new(),
                    (Some(l), _) => format!(" at {}", crate::stats::percent(l)),
                    _ => String::new(),
                };
                let interval = match (r.lo, r.hi) {
                    (Some(lo), Some(hi)) => format!("{lo:.2}–{hi:.2}{own}, p = {:.3}", v.p),
                    _ => "no interval".to_string(),
                };
                match v.verdict {
                    Verdict::Faster | Verdict::Slower => format!("**{:.2}×** ({interval})", r.value),
                    Verdict::NoDifference => format!("{:.2}× ({interval}): no significant difference", r.value),
                    Verdict::TooFewRuns => format!("{:.2}× ({interval}): too few runs to tell", r.value),
                }
            }
            (None, _) => "-".to_string(),
        };
        let failed = if ps.failed > 0 { format!(" ({} failed)", ps.failed) } else { String::new() };
        let _ = writeln!(o, "| {} | {mean} | {range} | {user} | {system} | {}{failed} | {vs} |", ps.profile, ps.runs);
    }
    let _ = writeln!(
        o,
        "\n× is the speed against {} (its median wall time over the profile's) with its {} and the p of a Mann–Whitney U test; a difference is claimed when the interval excludes 1 ({} asked).",
        s.baseline,
        crate::report::interval_words(usual),
        crate::stats::percent(s.confidence)
    );
    if let Some(v) = summary::verdict(s) {
        let _ = writeln!(o, "{v}");
    }
    bounds(&mut o, s, "- ");
    o
}

fn csv(r: &ExecResults) -> String {
    let mut o = String::from(
        "profile,run,warmup,status,exit_code,wall_s,user_s,system_s,server_cpu_s,server_storage_wait_s,server_cpu_wait_s,commits,fsyncs,log_bytes\n",
    );
    for p in &r.profiles {
        for run in &p.runs {
            let status = serde_json::to_value(run.status).ok().and_then(|v| v.as_str().map(str::to_string));
            let _ = writeln!(
                o,
                "{},{},{},{},{},{:.6},{:.6},{:.6},{}",
                p.profile.name,
                run.repeat,
                run.warmup,
                status.unwrap_or_default(),
                run.exit_code.map_or(String::new(), |c| c.to_string()),
                run.wall_s,
                run.user_s,
                run.system_s,
                database::csv_fields(run.server.as_ref())
            );
        }
    }
    o
}
