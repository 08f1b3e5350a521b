//! `dbrace run`: the plan, the checks before anything starts, the matrix, the report.

use super::charts::{check_charts, write_charts};
use super::gib;
use crate::cli::RunArgs;
use crate::error::Result;
use crate::host::Host;
use crate::instance::Locations;
use crate::options::counters::Pace;
use crate::plan::{self, Request};
use crate::report;
use crate::results::{Results, RunOptions, RunStatus, SCHEMA, now_rfc3339};
use crate::runner::{self, Settings, progress::Progress};
use crate::startup::{check_writable, default_results_path, launched, machine, reap_containers, reap_locations};
use crate::workload::WorkloadOptions;
use crate::{signals, workload};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// `--budget` when neither it, `--repeat` nor `--precision` is given: the default matrix
/// with PostgreSQL within a minute on a two-core machine, servers' start and stop included.
pub const DEFAULT_BUDGET: Duration = Duration::from_secs(50);

pub(super) fn run(a: RunArgs) -> Result<i32> {
    let (plan, settings) = plan_run(&a)?;
    if a.dry_run {
        print!("{}", dry_run(&plan, &a, &settings));
        return Ok(0);
    }
    let progress = Progress { enabled: !a.quiet };
    let (out, locations) = checks(&a, &plan, &settings, progress)?;
    let cx = runner::Context { machine: &plan.machine, settings: &settings, locations: &locations, progress };
    let kept = runner::preflight(&plan.cells, cx)?;
    let mut results = new_results(run_options(&a, &settings, &plan), &locations);
    let start = runner::matrix::Start { cells: &plan.cells, cx, kept };
    let outcome = runner::matrix::run(start, &mut results, &out);
    // A summary that cannot be made is the report's to say, below.
    if report::summarize(&mut results, &plan.baseline).is_ok() {
        results.save(&out)?;
    }
    // Whatever happened, show what was measured and where it is kept.
    show(&results, &plan, &a, &out, progress)?;
    let all_ok = outcome?;
    Ok(if all_ok { 0 } else { 1 })
}

/// The flags checked, the matrix built and how its repeats run: all before anything starts.
fn plan_run(a: &RunArgs) -> Result<(plan::Plan, Settings)> {
    check_flags(a)?;
    let precision = precision_target(a, a.driving.confidence)?;
    let budget = budget(a)?;
    signals::install();
    let transport = a.transport.under(a.launcher.launcher);
    let machine = crate::engine::Machine { transport, protocol: a.protocol, ..machine(&a.locations) };
    let plan = plan::build(&request(a, &workload_options(a), launched(machine, &a.launcher))?)?;
    check_shard(a, &plan)?;
    if let Some(b) = budget {
        check_budget(b, &plan, a)?;
    }
    let settings = settings(a, precision, budget);
    Ok((plan, settings))
}

/// The checks before any server starts: the output files writable, the locations found
/// and leftovers of killed runs reaped, each cell's options and the space its data needs.
fn checks(a: &RunArgs, plan: &plan::Plan, s: &Settings, progress: Progress) -> Result<(PathBuf, Locations)> {
    let out = match &a.out {
        Some(p) => p.clone(),
        None => default_results_path()?,
    };
    check_writable(&out, "--out", "results.json")?;
    check_charts(&a.charts)?;
    let (disk_dir, ram_dir) = (a.locations.disk_dir.as_deref(), a.locations.ram_dir.as_deref());
    let locations = Locations::resolve(disk_dir, ram_dir, true, ram_need(plan))?;
    reap_locations(&locations, progress);
    crate::startup::open_files();
    reap_containers(&plan.machine, progress);
    for c in &plan.cells {
        c.workload.check(&c.options)?;
    }
    announce(plan, a, progress);
    check_space(plan, &locations, s)?;
    Ok((out, locations))
}

/// The results file as it starts: the run's facts, no cells yet.
fn new_results(options: RunOptions, locations: &Locations) -> Results {
    Results {
        schema: SCHEMA,
        dbrace_version: crate::version::VERSION.to_string(),
        status: RunStatus::Running,
        started_at: now_rfc3339(),
        finished_at: None,
        // Passwords in URLs stay out of the results file.
        command: std::env::args().map(|a| crate::redact::redact(&a)).collect(),
        host: Host::detect(),
        locations: locations.all().into_iter().cloned().collect(),
        options,
        cells: Vec::new(),
        precision_outcome: None,
        budget_outcome: None,
    }
}

/// The summary and charts of what was measured, if anything, and where the results are.
fn show(results: &Results, plan: &plan::Plan, a: &RunArgs, out: &Path, progress: Progress) -> Result<()> {
    let mut charts = Ok(());
    if results.cells.iter().any(|c| !c.repeats.is_empty()) {
        let shown = report::Shown { columns: &a.columns, by_type: a.by_type };
        print!("{}", report::render(results, &plan.baseline, a.format, shown)?);
        charts = write_charts(results, &plan.baseline, &a.charts, out, progress);
    }
    progress.line(&format!("results: {}", out.display()));
    charts
}

/// Flags that make no sense together, refused before anything else.
fn check_flags(a: &RunArgs) -> Result<()> {
    if a.driving.latency_limit.is_some() && a.driving.rate.is_none() {
        return Err(bad_input!(
            "--latency-limit needs --rate: lateness is measured against an open-loop schedule (as pgbench's -L with -R); add --rate TPS"
        ));
    }
    if a.driving.max_tries == Some(0) && a.driving.transactions.is_some() && a.driving.latency_limit.is_none() {
        return Err(bad_input!(
            "--max-tries 0 tries a conflicting transaction without end, and --transactions waits for every one; measure for a --duration instead, or give --max-tries N"
        ));
    }
    if let (Some(i), None) = (a.driving.log_interval, a.driving.transactions)
        && i > a.driving.per_repeat()
    {
        let d = humantime::format_duration(a.driving.per_repeat());
        return Err(bad_input!(
            "--log-interval {} is longer than the measured --duration {d}, so no slice would be whole; give a --log-interval of at most {d}, or a longer --duration",
            humantime::format_duration(i)
        ));
    }
    Ok(())
}

/// What the workloads are given: each one's own options as the flags gave them, the
/// counters' paced by the run's `--transactions` or `--duration`, and `--report-per-statement`.
fn workload_options(a: &RunArgs) -> WorkloadOptions {
    let pace = match a.driving.transactions {
        Some(n) => Pace::Tracks(n),
        None => Pace::Time(a.driving.per_repeat()),
    };
    WorkloadOptions {
        counters: a.counters.options(pace),
        per_statement: a.report_per_statement,
        ..a.workload_options.clone()
    }
}

/// What the plan is asked for: the flags', over a `--compose` service if one is given.
fn request(a: &RunArgs, workload: &WorkloadOptions, machine: crate::engine::Machine) -> Result<Request> {
    let plain = plain_request(a, workload, machine)?;
    let Some(c) = a.compose.chosen(a.asked.engine.first().map(String::as_str))? else { return Ok(plain) };
    if !a.quiet {
        for n in &c.notes {
            eprintln!("dbrace: compose: {n}");
        }
    }
    let machine = c.machine(plain.machine);
    let names = crate::compose::with_as_written(plan::profile_names(&a.asked.profile, a.launcher.tls));
    let profile_values = c.profiles(&names, &machine)?;
    let asked = plan::Asked { engine: vec![c.engine.name().into()], ..plain.asked };
    Ok(Request { asked, profile_values, machine, ..plain })
}

/// What the flags ask the plan for.
fn plain_request(a: &RunArgs, workload: &WorkloadOptions, machine: crate::engine::Machine) -> Result<Request> {
    Ok(Request {
        asked: a.asked.clone(),
        profile_values: Vec::new(),
        options: workload.clone(),
        script: script_config(a)?,
        tls: a.launcher.tls,
        machine,
        no_ram: a.locations.ram_dir.is_none().then(crate::instance::location::no_ram_location).flatten(),
    })
}

/// How every repeat runs, and how often.
fn settings(a: &RunArgs, precision: Option<runner::precision::Target>, budget: Option<Duration>) -> Settings {
    Settings {
        driving: a.driving.clone().resolved(),
        // Without --repeat a budget or a precision decides, or --start-at runs one repeat.
        repeat: a.repeat.unwrap_or(1),
        precision,
        budget,
        progress: a.progress,
        threads: a.threads,
        counters: !a.no_counters,
        hotspots: a.hotspots,
    }
}

/// The lines said before the run: the cells skipped, and each shard's share.
fn announce(plan: &plan::Plan, a: &RunArgs, progress: Progress) {
    for s in &plan.skipped {
        progress.line(&format!("skipping {s}"));
    }
    let Some(sh) = a.driving.shard else { return };
    for c in &plan.cells {
        let mine = sh.clients(c.clients);
        let which = match mine.len() {
            1 => format!("client {}", mine.start),
            _ => format!("clients {}–{}", mine.start, mine.end - 1),
        };
        progress.line(&format!(
            "shard {}: {which} of {}'s {}, on data of this shard's own on the server (rows are not shared between shards: docs/distributed.md)",
            sh.label(),
            c.id(),
            c.clients
        ));
    }
}

/// The options the results file records.
fn run_options(a: &RunArgs, s: &Settings, plan: &plan::Plan) -> RunOptions {
    let (precision, workload) = (s.precision, workload_options(a));
    RunOptions {
        driving: s.driving.clone(),
        // Under --precision or --budget, the rounds run (the matrix counts them up).
        repeat: if precision.is_some() || s.budget.is_some() { 0 } else { s.repeat },
        counters: plan
            .cells
            .iter()
            .any(|c| c.workload.name().starts_with(workload::counters::FAMILY))
            .then(|| workload.counters.clone()),
        workload: workload.recording(),
        baseline: plan.baseline.clone(),
        precision: precision.map(|t| t.precision),
        max_time_s: precision.map(|t| t.max_time.as_secs_f64()),
        min_repeat: precision.map(|t| t.min_repeat),
        max_repeat: precision.map(|t| t.max_repeat),
        shards: None,
        budget_s: s.budget.map(|b| b.as_secs_f64()),
    }
}

/// `--shard` and `--start-at` need one measured phase to line up, and a shard a `--url`
/// server to share and at least one client of every cell.
fn check_shard(a: &RunArgs, plan: &plan::Plan) -> Result<()> {
    if a.driving.start_at.is_none() {
        return match a.driving.shard {
            Some(s) => Err(bad_input!(
                "--shard {} needs --start-at TIME, so that every shard measures the same moments; add e.g. --start-at +30 (the same time for all shards)",
                s.label()
            )),
            None => Ok(()),
        };
    }
    if a.precision.is_some() {
        return Err(bad_input!(
            "--start-at lines up one measured phase, and --precision repeats until it stops; drop one of them"
        ));
    }
    for c in a.driving.shard.iter().flat_map(|s| plan.cells.iter().map(move |c| (s, c))) {
        let (shard, c) = c;
        if !matches!(c.target, crate::engine::Target::Url(_)) {
            return Err(bad_input!(
                "--shard {} splits the load on one server over several processes, and {} would start a throwaway server of its own; give --url for {}",
                shard.label(),
                c.id(),
                c.engine.name()
            ));
        }
        if shard.clients(c.clients).is_empty() {
            return Err(bad_input!(
                "--shard {} has no client of {}'s {} over {} shards; give --clients {} or more",
                shard.label(),
                c.id(),
                c.clients,
                shard.count,
                shard.count
            ));
        }
    }
    let repeats = a.repeat.unwrap_or(1);
    if plan.cells.len() != 1 || repeats != 1 {
        return Err(bad_input!(
            "--start-at lines up one measured phase, and this run has {} cells × {repeats} repeats; run one cell with --repeat 1 per start time (docs/distributed.md)",
            plan.cells.len()
        ));
    }
    Ok(())
}

/// `--budget` as given, or the default when nothing else says how often cells run; refused
/// beside `--repeat` or `--precision`, which decide that too.
fn budget(a: &RunArgs) -> Result<Option<Duration>> {
    let other = match (a.repeat, a.precision) {
        (Some(n), _) => Some(format!("--repeat {n}")),
        (None, Some(_)) => Some("--precision".to_string()),
        _ => None,
    };
    match (a.budget, other) {
        (Some(b), Some(flag)) => Err(bad_input!(
            "--budget {} and {flag} both decide how often cells run; drop one of them",
            humantime::format_duration(b)
        )),
        (Some(b), None) => Ok(Some(b)),
        // One measured phase to line up: --start-at runs one repeat.
        (None, None) if a.driving.start_at.is_none() => Ok(Some(DEFAULT_BUDGET)),
        _ => Ok(None),
    }
}

/// One round of every cell: the warm-up and measured time of each, and a throwaway
/// server's start where it has one.
fn round_estimate(plan: &plan::Plan, a: &RunArgs) -> f64 {
    let each = a.driving.warmup.as_secs_f64()
        + if a.driving.transactions.is_some() { 0.0 } else { a.driving.per_repeat().as_secs_f64() };
    plan.cells.len() as f64 * each
}

/// Refuse a budget that cannot hold one round of every cell, before anything starts.
fn check_budget(budget: Duration, plan: &plan::Plan, a: &RunArgs) -> Result<()> {
    let round = round_estimate(plan, a);
    if budget.as_secs_f64() < round {
        return Err(bad_input!(
            "--budget {} cannot hold one round of these {} cells ({} of warm-up and measured time); give --budget {} or more, or fewer cells",
            humantime::format_duration(budget),
            plan.cells.len(),
            secs(round),
            secs((round * 2.0).ceil().max(1.0))
        ));
    }
    Ok(())
}

/// `--precision` and its bounds as a stopping rule, or none; refuses the flags that bound
/// it without it, and bounds that can never reach `level`.
fn precision_target(a: &RunArgs, level: f64) -> Result<Option<runner::precision::Target>> {
    use runner::precision::{DEFAULT_MAX_REPEAT, DEFAULT_MAX_TIME, Target, least_repeats};
    let Some(precision) = a.precision else {
        let given = [
            ("--max-time", a.max_time.is_some()),
            ("--min-repeat", a.min_repeat.is_some()),
            ("--max-repeat", a.max_repeat.is_some()),
        ];
        if let Some((flag, _)) = given.into_iter().find(|(_, g)| *g) {
            return Err(bad_input!(
                "{flag} bounds a --precision run; add --precision P% (e.g. --precision 3%), or give a fixed count with --repeat N"
            ));
        }
        return Ok(None);
    };
    if let Some(n) = a.repeat {
        return Err(bad_input!(
            "--repeat {n} and --precision both decide how often cells run; drop --repeat (bound a --precision run with --min-repeat and --max-repeat)"
        ));
    }
    let least = least_repeats(level);
    let lvl = crate::stats::percent(level);
    let max_repeat = a.max_repeat.unwrap_or(DEFAULT_MAX_REPEAT.max(a.min_repeat.unwrap_or(0)));
    if let Some(min) = a.min_repeat.filter(|&m| m > max_repeat) {
        return Err(bad_input!(
            "--min-repeat {min} is more than --max-repeat {max_repeat}; give a --min-repeat of at most {max_repeat} or a larger --max-repeat"
        ));
    }
    if max_repeat < least {
        return Err(bad_input!(
            "--max-repeat {max_repeat} can never reach {lvl}: an interval of the median needs {least} repeats for {lvl}; give --max-repeat {least} or more"
        ));
    }
    Ok(Some(Target {
        precision,
        // Fewer repeats cannot hold the level, so cannot reach the precision either.
        min_repeat: a.min_repeat.unwrap_or(least).max(least),
        max_repeat,
        max_time: a.max_time.unwrap_or(DEFAULT_MAX_TIME),
    }))
}

/// What `--dry-run` prints: the cells, a rough time for each, and the run as a config file.
fn dry_run(plan: &plan::Plan, a: &RunArgs, s: &Settings) -> String {
    let measured = a.driving.warmup.as_secs_f64() + a.driving.per_repeat().as_secs_f64();
    let (precision, budget) = (s.precision.as_ref().map(|t| (t, s.driving.confidence)), s.budget);
    let repeat = s.repeat;
    let mut out = String::new();
    let mut round = 0.0;
    let width = plan.cells.iter().map(|c| c.id().len()).max().unwrap_or(0);
    for c in &plan.cells {
        // A throwaway server starts in about a second; a load writes some 50 MB/s; a cell
        // that keeps its instance pays both once, before the rounds.
        let server = if c.engine.needs_data_dir(&c.profile, &c.target) { 1.0 } else { 0.0 };
        let load = c.workload.estimated_bytes(&c.options) as f64 / 50e6;
        let setup = if s.keeps(c) { 0.0 } else { server + load };
        let each = setup + if a.driving.transactions.is_some() { a.driving.warmup.as_secs_f64() } else { measured };
        round += each;
        out += &match (precision, budget) {
            (None, None) => format!("  {:width$}  ≈ {} × {}\n", c.id(), repeat, secs(each)),
            _ => format!("  {:width$}  ≈ {} a repeat\n", c.id(), secs(each)),
        };
    }
    out.insert_str(0, &dry_run_head(plan, a, s, round));
    for s in &plan.skipped {
        out += &format!("skipping {s}\n");
    }
    out += &format!("baseline: {}\n\nas a --config file:\n{}", plan.baseline, a.as_config);
    out
}

/// `--dry-run`'s first line: how many cells, how they repeat, and about how long it takes.
fn dry_run_head(plan: &plan::Plan, a: &RunArgs, s: &Settings, round: f64) -> String {
    let (precision, budget, repeat) = (s.precision.as_ref().map(|t| (t, s.driving.confidence)), s.budget, s.repeat);
    let per = match a.driving.transactions {
        Some(t) => format!(", plus {t} transactions per client each repeat"),
        None => String::new(),
    };
    match precision {
        Some((t, level)) => {
            let at_most = (round * f64::from(t.max_repeat)).min(t.max_time.as_secs_f64());
            format!(
                "would measure {} cells in interleaved rounds until each is within ±{} at {}: {} to {} repeats a cell, no round started that would end after {}; a round ≈ {}{per}, so ≈ {} to {}:\n",
                plan.cells.len(),
                runner::precision::percent(t.precision),
                crate::stats::percent(level),
                t.min_repeat,
                t.max_repeat,
                secs(t.max_time.as_secs_f64()),
                secs(round),
                secs(round * f64::from(t.min_repeat)),
                secs(at_most),
            )
        }
        None => match budget {
            Some(b) => format!(
                "would measure {} cells in rounds, a round ≈ {}{per}, until every cell's comparison with its baseline is settled or --budget {} is spent:\n",
                plan.cells.len(),
                secs(round),
                secs(b.as_secs_f64())
            ),
            None => format!(
                "would measure {} cells × {} repeats, ≈ {}{per}:\n",
                plan.cells.len(),
                repeat,
                secs(round * f64::from(repeat))
            ),
        },
    }
}

/// A rough time, in the unit that reads best.
fn secs(s: f64) -> String {
    if s < 90.0 { format!("{s:.1} s") } else { format!("{:.0} min", s / 60.0) }
}

/// The options of script workloads.
fn script_config(a: &RunArgs) -> Result<workload::script::Config> {
    let defines = a
        .define
        .iter()
        .map(|d| match d.split_once('=') {
            Some((k, v)) => Ok((k.to_string(), v.to_string())),
            None => Err(bad_input!("--define '{d}' is not NAME=VALUE; write e.g. --define aid=1")),
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(workload::script::Config {
        defines,
        per_statement: a.report_per_statement,
        data: a.script_data,
        init: a.script_init.clone(),
    })
}

/// The room a RAM disk made for the ram location needs: every data set on RAM at once,
/// with half again for the servers' own files; None when no cell is on RAM.
fn ram_need(plan: &plan::Plan) -> Option<u64> {
    let on_ram: Vec<_> = plan.cells.iter().filter(|c| c.profile.on_ram()).collect();
    let data: u64 = on_ram.iter().map(|c| c.workload.estimated_bytes(&c.options)).sum();
    (!on_ram.is_empty()).then_some(data + data / 2)
}

/// Refuse a data set that cannot fit its location, before loading fills it up: the cells
/// that keep their instances hold their data sets all at once.
fn check_space(plan: &plan::Plan, locations: &Locations, s: &Settings) -> Result<()> {
    let mut kept = [0u64; 2];
    for c in &plan.cells {
        let opts = &c.options;
        let need = c.workload.estimated_bytes(opts);
        if !c.engine.needs_data_dir(&c.profile, &c.target) {
            continue;
        }
        let loc = locations.get(c.profile.location)?;
        let held = &mut kept[usize::from(loc.kind == crate::profile::LocationKind::Ram)];
        *held += if s.keeps(c) { need } else { 0 };
        if need.max(*held) > loc.free_bytes {
            let fix = if need > loc.free_bytes { "" } else { ", or --fresh to hold one data set at a time" };
            return Err(bad_input!(
                "{} with {} needs about {} in {} ({}), which has {} free; give a smaller data set or choose another {} location{fix}",
                c.workload.name(),
                c.workload.size_options(opts),
                gib(need.max(*held)),
                loc.path.display(),
                loc.fs_type,
                gib(loc.free_bytes),
                loc.kind
            ));
        }
    }
    Ok(())
}
