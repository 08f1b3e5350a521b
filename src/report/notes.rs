//! The lines under a table: what the numbers mean, the machine, and anything that went
//! wrong or needs saying (failures, tpmC, rows/s, unsynced commits, the budget).

use super::cells::*;
use super::{Row, cost, disturbed, precision};
use crate::results::{Results, RunStatus, StopReason, Survives};
use crate::stats::{self, Estimate};
use crate::workload::figure::Figure;

/// A cell's failed, retried and reconnected transactions in one line, as pgbench counts
/// them; none when there were none.
pub(crate) fn failures_line(row: &Row) -> Option<String> {
    let r = &row.tally;
    if r.errors == 0 && r.retries == 0 && r.reconnects == 0 {
        return None;
    }
    let mut line = format!("{}: {} failed transactions", row.id, r.errors);
    if r.failed > 0 {
        line.push_str(&format!(" ({} out of tries)", r.failed));
    }
    match (r.retried, r.retries) {
        (0, 0) => {}
        // Files from before transactions retried were counted.
        (0, n) => line.push_str(&format!(", {n} retries")),
        (t, n) => line.push_str(&format!(", {t} transactions retried ({n} retries)")),
    }
    if r.reconnects > 0 {
        line.push_str(&format!("; {} reconnects, {:.3} s lost to them", r.reconnects, r.reconnect_s));
    }
    Some(line)
}

/// Lines under the table: what the numbers mean, the machine, and anything that went wrong.
pub(crate) fn notes(results: &Results, rows: &[Row], baseline: &str) -> Vec<String> {
    let mut n = Vec::new();
    n.push(interval_note(results, rows, baseline));
    let h = &results.host;
    let system = format!("{} {}", h.os, h.kernel);
    let mut env =
        format!("host: {} CPUs, {:.1} GiB, {}", h.cpus, h.memory_bytes as f64 / (1u64 << 30) as f64, system.trim_end());
    for l in &results.locations {
        env.push_str(&format!("; {} {} ({})", l.kind, l.path.display(), l.fs_type));
        if let Some(f) = &l.fsync {
            env.push_str(&format!(" fsync {:.3} ms{}", f.median_us / 1000.0, f.drive_flush_words()));
        }
    }
    n.push(env);
    if !h.not_available.is_empty() {
        n.push(format!("{}: {}", crate::platform::NOT_AVAILABLE, h.not_available.join(", ")));
    }
    n.extend(results.locations.iter().filter_map(|l| l.warning()).map(|w| format!("warning: {w}")));
    n.extend(durability_line(rows));
    if let Some(rate) = results.options.driving.rate {
        n.push(format!(
            "open loop: {} tps scheduled over each cell's clients as Poisson arrivals (--rate); latency from each transaction's scheduled start, lag = how late it started.",
            num(rate)
        ));
    }
    let limit = results.options.driving.latency_limit.map(|l| l.as_secs_f64() * 1e3);
    for r in rows {
        if let Some(s) = &r.schedule {
            let mut line = format!("{}: schedule lag avg {:.3} (max {:.3}) ms", r.id, s.lag_avg_ms, s.lag_max_ms);
            if let Some(l) = limit {
                line.push_str(&format!(
                    "; skipped {} ({:.3}%); above the {l} ms latency limit {}/{} ({:.3}%)",
                    s.skipped, s.skipped_pct, s.late, s.committed, s.late_pct
                ));
            }
            n.push(line);
        }
    }
    n.extend(figure_lines(rows));
    for r in rows {
        if r.failed_repeats > 0 {
            let why = r.failure.as_deref().unwrap_or("unknown error");
            n.push(format!("{}: {} repeat(s) FAILED: {why}", r.id, r.failed_repeats));
        }
        if r.verify_failed > 0 {
            n.push(format!("{}: consistency check FAILED in {} repeat(s)", r.id, r.verify_failed));
        }
        if let Some(line) = failures_line(r) {
            n.push(line);
        }
    }
    n.extend(counter_lines(rows));
    n.extend(rows.iter().filter_map(hotspots_line));
    n.extend(rows.iter().filter_map(waits_line));
    n.extend(rows.iter().filter_map(unsynced_line));
    n.extend(results.budget_outcome.as_ref().map(budget_line));
    n.extend(disturbed::line(results));
    if let (Some(outcome), Some(p)) = (&results.precision_outcome, results.options.precision) {
        n.extend(precision::summary(outcome, p));
    }
    if results.status == RunStatus::Interrupted {
        n.push("run interrupted: only the repeats finished before the signal are shown.".into());
    }
    n
}

/// What the bound column means, once, and each cell whose counters could not all be read.
pub(crate) fn counter_lines(rows: &[Row]) -> Vec<String> {
    let mut out = Vec::new();
    if rows.iter().any(|r| r.bound.is_some()) {
        out.push("bound: what takes the largest share of each cell's time, from its counters: storage (the commit's flush, its kernel work and the CPU wait after it), server CPU, client CPU, disk reads, or round trips (the rest: the network, waking up, locks); A ≈ B is a near tie; unexplained: its storage or disk-reads share does not predict the cells without it; docs/explain.md".into());
    }
    out.extend(prediction_lines(rows));
    let waited: Vec<String> = rows
        .iter()
        .filter_map(|r| r.bound.as_ref().filter(|b| b.shares.cpu_wait >= 0.25).map(|b| (r, b)))
        .map(|(r, b)| format!("{} {:.0}%", r.id, b.shares.cpu_wait * 100.0))
        .collect();
    if !waited.is_empty() {
        out.push(format!("CPU wait: {}: of their time, their threads were ready but waited for a CPU others' work (or steal) held; their bound is that of the rest", waited.join(", ")));
    }
    for r in rows {
        if let Some(c) = r.cost.as_ref().filter(|c| !c.unread.is_empty()) {
            out.push(format!("{}: counters not read: {}", r.id, c.unread.join("; ")));
        }
    }
    out
}

/// Where a cell's server spent its CPU: the functions most samples ended in, and what
/// sampling cost.
pub(crate) fn hotspots_line(r: &Row) -> Option<String> {
    let h = r.hotspots.as_ref().filter(|h| h.samples > 0)?;
    let top: Vec<String> = h.top(5).iter().map(|f| format!("{} {:.0}%", f.name, f.share * 100.0)).collect();
    let cost = h.perf_cpu_s.map_or(String::new(), |s| format!("; perf used {s:.2} CPU s"));
    Some(format!("hotspots {}: {} (of {} samples{cost})", r.id, top.join(", "), h.samples))
}

/// What a cell's client sessions waited for, polled from a side connection.
fn waits_line(r: &Row) -> Option<String> {
    Some(format!("waits {}: {}", r.id, waits_text(r.hotspots.as_ref()?)?))
}

/// The wait events' shares of the sessions polled, and how often they were polled.
pub(crate) fn waits_text(h: &crate::hotspots::Hotspots) -> Option<String> {
    let shares: Vec<String> = h.wait_shares().iter().take(5).map(|(w, s)| format!("{w} {:.0}%", s * 100.0)).collect();
    let every = crate::hotspots::WAIT_EVERY.as_millis();
    (!shares.is_empty()).then(|| format!("{} (of {} polls, every {every} ms)", shares.join(", "), h.wait_polls))
}

/// Per cell whose storage or disk-reads share predicted others, its predictions and their
/// agreement.
fn prediction_lines(rows: &[Row]) -> Vec<String> {
    let profile = |id: &str| rows.iter().find(|r| r.id == id).map_or(id.to_string(), |r| r.profile.clone());
    let predicting = rows.iter().filter(|r| !r.predictions.is_empty());
    predicting
        .flat_map(|r| {
            let shares = r.bound.as_ref().map_or([0.0; 2], |b| super::predictions::predicting(&b.shares));
            super::predictions::lines(&r.id, shares, &r.predictions, profile)
        })
        .collect()
}

/// The workloads' headline figures (tpcc's tpmC), a line per cell and figure.
pub(crate) fn figure_lines(rows: &[Row]) -> Vec<String> {
    let mut figures: Vec<&Figure> = rows.iter().flat_map(|r| crate::workload::figure::of(&r.workload)).collect();
    figures.sort_by_key(|f| f.key);
    figures.dedup_by_key(|f| f.key);
    let mut out = Vec::new();
    for f in figures {
        let usual = usual_level(rows.iter().filter_map(|r| r.figures.get(f.key)).map(|t| t.confidence));
        for (r, t) in rows.iter().filter_map(|r| Some((r, r.figures.get(f.key)?))) {
            let interval = interval_said(t, usual);
            out.push(format!("{}: {} {}{interval}{}", r.id, num(t.median), f.unit, what_of(f, r)));
        }
    }
    out
}

/// " (lo–hi)" of an estimate's interval, its level said when not the `usual` one; empty
/// without an interval.
pub(crate) fn interval_said(t: &Estimate, usual: Option<f64>) -> String {
    match (t.lo, t.hi) {
        (Some(lo), Some(hi)) => format!(" ({}–{}{})", sig3(lo), sig3(hi), own_level(t.confidence, usual)),
        _ => String::new(),
    }
}

/// What a figure line says after the number: what the figure counts, or for one derived
/// per `Each`, how many each transaction held and what one of them cost.
fn what_of(f: &Figure, r: &Row) -> String {
    match r.each().filter(|_| f.each().is_some()) {
        Some((n, each)) => {
            let cost = r.cost.as_ref().map_or(String::new(), |c| per_one(c, f64::from(n), each.names.0));
            format!(" at {}{cost}", each.said(n))
        }
        None => format!(" ({})", f.about),
    }
}

/// "; per row 0.01 fsyncs, 2.1 log bytes, 45 server µs": a cost per transaction of `n`
/// rows (each a `one`) shared among them.
fn per_one(c: &cost::Cost, n: f64, one: &str) -> String {
    let figures = [(c.fsyncs, "fsyncs"), (c.log_bytes, "log bytes"), (c.server_cpu_us, "server µs")];
    let said: Vec<String> =
        figures.iter().filter_map(|(v, what)| v.map(|v| format!("{} {what}", sig3(v / n)))).collect();
    if said.is_empty() { String::new() } else { format!("; per {one} {}", said.join(", ")) }
}

/// A warning for a cell whose settings say a commit survives a power loss while, at one
/// client, its commits were not synced to the disk: the server made no fsyncs, or the disk
/// completed no flushes for them.
pub(crate) fn unsynced_line(r: &Row) -> Option<String> {
    let c = r.cost.as_ref().filter(|_| r.survives == Some(Survives::PowerLoss) && r.clients == 1)?;
    // Only commits that wrote: a read-only transaction needs no sync.
    let wrote = c.log_bytes.or(c.server_write_bytes).is_some_and(|b| b > 10.0);
    let claim = format!("{}: its settings say an acknowledged commit survives a power loss, but", r.id);
    let lost = "a power loss (or a crash of a host that lies about its flushes) may lose acknowledged commits";
    match (c.fsyncs, c.flushes) {
        (Some(f), _) if wrote && f < 0.05 => {
            Some(format!("{claim} the server made {} fsyncs per commit: {lost}", sig3(f)))
        }
        (Some(f), Some(d)) if wrote && f >= 0.5 && d < 0.05 => Some(format!(
            "{claim} its disk completed {} flushes per commit for the server's {} fsyncs: a flush that does nothing (a volume mounted without barriers, a virtual disk that acknowledges what it only cached, Docker Desktop's file sharing) means {lost}",
            sig3(d),
            sig3(f)
        )),
        (None, Some(d)) if wrote && d < 0.05 => {
            Some(format!("{claim} its disk completed {} flushes per commit: {lost}", sig3(d)))
        }
        _ => None,
    }
}

/// What the legend's durability line begins with.
pub(crate) const DURABILITY: &str = "durability";

/// `durability (what an acknowledged commit survives, docs/durability.md): postgres disk =
/// power loss, postgres nosync = server crash`: each engine and profile of the run once, in
/// the table's order; none when no repeat recorded it (files from before).
pub(crate) fn durability_line(rows: &[Row]) -> Option<String> {
    let mut seen: Vec<(&str, &str, Survives)> = Vec::new();
    for r in rows {
        let Some(s) = r.survives else { continue };
        match seen.iter_mut().find(|(e, p, _)| *e == r.engine && *p == r.profile) {
            Some(known) => known.2 = known.2.weaker(s),
            None => seen.push((&r.engine, &r.profile, s)),
        }
    }
    let pairs: Vec<String> = seen.iter().map(|(e, p, s)| format!("{e} {p} = {s}")).collect();
    (!pairs.is_empty()).then(|| {
        format!("{DURABILITY} (what an acknowledged commit survives, docs/durability.md): {}", pairs.join(", "))
    })
}

/// What the tps and × columns hold, with the levels their intervals share.
pub(crate) fn interval_note(results: &Results, rows: &[Row], baseline: &str) -> String {
    let (o, aim) = (&results.options, results.options.driving.confidence);
    let repeats = match (o.precision, o.budget_s) {
        (Some(p), _) => format!("repeated until ±{}", stats::precision_percent(p)),
        (None, Some(b)) => format!("in rounds until its comparisons were settled, within --budget {b} s"),
        (None, None) => format!("{} asked", o.repeat),
    };
    let (tps, ratio) = usual_levels(rows);
    let level =
        |l: Option<f64>| l.map_or_else(|| "no interval".to_string(), |l| format!("its {} interval", stats::percent(l)));
    let short = |l: Option<f64>| l.is_some_and(|l| l < aim - 1e-9);
    let mut s =
        format!("tps: median over each cell's measured repeats ({repeats}) with {} (order statistics)", level(tps));
    if short(tps) {
        let fewest = rows.iter().filter_map(|r| r.tps.map(|t| t.n)).min().unwrap_or(0);
        s.push_str(&format!(", short of the {} asked: {fewest} repeats reach no higher", stats::percent(aim)));
    }
    let paired = rows.iter().any(|r| r.vs_baseline.is_some_and(|x| x.pairs.is_some()));
    let how = match (paired, o.budget_s) {
        (false, _) => "ratio of medians",
        (true, None) => "median within-round ratio (signed rank over the rounds both ran in)",
        (true, Some(_)) => {
            "median within-round ratio (signed rank over the rounds both ran in, looked at after 7, 10, 14, … of them)"
        }
    };
    s.push_str(&format!(
        "; latency over all measured transactions; × vs baseline '{baseline}' (same workload and clients): {how} with {}",
        level(ratio)
    ));
    if ratio.is_none() {
        s.push_str(" (no cell against another here)");
    } else if short(ratio) {
        s.push_str(&format!(", short of the {} asked: too few repeats to tell", stats::percent(aim)));
    } else {
        s.push_str(", clear of 1 where the cells differ");
    }
    s.push_str("; a cell at another level says it. docs/statistics.md explains.");
    s
}

/// The line under a budgeted run's table: how many comparisons it settled, in how many
/// rounds, and why it stopped.
pub(crate) fn budget_line(o: &crate::results::BudgetOutcome) -> String {
    let rounds = format!("{} round{}", o.rounds, if o.rounds == 1 { "" } else { "s" });
    let open = o.comparisons - o.settled;
    if o.comparisons == 0 {
        return format!("budget: no cell against another; {rounds}, the fewest whose median interval holds the level.");
    }
    if open == 0 {
        return format!("budget: all {} comparisons settled in {rounds}.", o.comparisons);
    }
    let why = match o.reason {
        StopReason::MaxTime => "when the budget could not hold another round".to_string(),
        StopReason::MaxRepeat => format!("at the most rounds a run takes, {}", crate::runner::budget::MOST_ROUNDS),
        StopReason::Interrupted => "by a signal".to_string(),
        StopReason::Failed | StopReason::Reached => "by a failure".to_string(),
    };
    format!(
        "budget: {} of {} comparisons settled in {rounds}, stopped {why}; the {open} left were judged once more on all their rounds.",
        o.settled, o.comparisons
    )
}

/// Per-statement latency of the cells that have it, as pgbench -r prints it: a heading
/// per cell, then average milliseconds, failures, retried conflicts, and the command where
/// it is written.
pub(crate) fn statement_lines(rows: &[Row]) -> Vec<String> {
    let mut out = Vec::new();
    for r in rows.iter().filter(|r| !r.statements.is_empty()) {
        out.push(format!("statement latencies in milliseconds, failures and retries, {}:", r.id));
        for s in &r.statements {
            let file = s.script.rsplit('/').next().unwrap_or(&s.script);
            let at = format!("{file}:{}", s.line);
            out.push(format!("{:>10.3} {:>7} {:>7}  {at:<16} {}", s.avg_ms, s.failures, s.retries, s.command));
        }
    }
    out
}

/// What the type rows and the columns `--by-type` adds hold, under the table; or that no
/// cell has types.
pub(crate) fn by_type_note(rows: &[Row]) -> String {
    if rows.iter().all(|r| r.types.is_empty()) {
        return "by type: no workload of these cells mixes transaction types (each runs one); docs/workloads.md says which do".into();
    }
    "by type: under each cell, a row (↳) per transaction type: its committed transactions per second (median over the measured repeats, with its interval), its latency over all of them, its failed transactions and retries; a cell's p50, errors and retries are its own".into()
}
