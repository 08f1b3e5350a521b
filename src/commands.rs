//! The subcommands' bodies: glue between the CLI and the library.

use crate::cli::{ChartArgs, CleanArgs, Command, CompareArgs, EnginesArgs, ReportArgs, RunArgs};
use crate::error::Result;
use crate::host::Host;
use crate::instance::{Locations, datadir, location};
use crate::options::counters::Pace;
use crate::options::workload::WorkloadOptions;
use crate::plan::{self, Request};
use crate::report;
use crate::results::{Results, RunOptions, RunStatus, SCHEMA, now_rfc3339};
use crate::runner::{self, Settings, progress::Progress};
use crate::{engine, profile, signals, workload};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// Run a parsed command; the process exit code on success.
pub fn dispatch(cmd: Command) -> Result<i32> {
    match cmd {
        Command::Run(a) => run(*a),
        Command::Report(a) => report_cmd(a),
        Command::Compare(a) => compare_cmd(a),
        Command::Engines(a) => engines(a),
        Command::Clean(a) => clean(a),
        Command::Exec(a) => crate::exec::run(*a),
        Command::Serve(a) => crate::serve::run(a),
    }
}

/// Record the machine options every command shares.
pub(crate) fn machine(a: &crate::cli::LocationArgs) {
    crate::instance::user::choose(a.run_as.clone());
    crate::engine::postgres::managed::choose_bin_dir(a.pg_bin.clone());
    crate::engine::mysql::managed::choose_bin_dir(a.mysql_bin.clone());
}

fn run(a: RunArgs) -> Result<i32> {
    if a.latency_limit.is_some() && a.rate.is_none() {
        return Err(bad_input!(
            "--latency-limit needs --rate: lateness is measured against an open-loop schedule (as pgbench's -L with -R); add --rate TPS"
        ));
    }
    let confidence = a.confidence;
    let precision = precision_target(&a, confidence)?;
    if let (Some(i), None) = (a.log_interval, a.transactions)
        && i > a.duration
    {
        let d = humantime::format_duration(a.duration);
        return Err(bad_input!(
            "--log-interval {} is longer than the measured --duration {d}, so no slice would be whole; give a --log-interval of at most {d}, or a longer --duration",
            humantime::format_duration(i)
        ));
    }
    signals::install();
    machine(&a.locations);
    crate::engine::postgres::client::choose_protocol(a.protocol);
    crate::engine::choose_transport(a.transport);
    workload::script::configure(script_config(&a)?);
    let pace = match a.transactions {
        Some(n) => Pace::Tracks(n),
        None => Pace::Time(a.duration),
    };
    let workload = WorkloadOptions {
        scale: a.scale,
        tables: a.tables,
        table_size: a.table_size,
        per_statement: a.report_per_statement,
        records: a.records,
        distribution: a.distribution,
        counters: a.counters.options(pace),
    };
    let plan = plan::build(&Request {
        engines: a.engine.clone(),
        profiles: a.profile.clone(),
        workloads: a.workload.clone(),
        clients: a.clients.clone(),
        sets: a.set.clone(),
        baseline: a.baseline.clone(),
        urls: a.url.clone(),
        sweep: a.sweep.clone(),
        options: workload.clone(),
    })?;
    if a.dry_run {
        print!("{}", dry_run(&plan, &a, precision.as_ref().map(|t| (t, confidence))));
        return Ok(0);
    }
    let out = match &a.out {
        Some(p) => p.clone(),
        None => default_results_path()?,
    };
    check_writable(&out, "--out", "results.json")?;
    check_charts(&a.charts)?;
    let progress = Progress { enabled: !a.quiet };
    let locations = Locations::resolve(a.locations.disk_dir.as_deref(), a.locations.ram_dir.as_deref(), true)?;
    reap_locations(&locations, progress);
    for c in &plan.cells {
        c.workload.check(&c.options)?;
    }
    check_space(&plan, &locations)?;
    runner::preflight(&plan.cells, &locations)?;
    for s in &plan.skipped {
        progress.line(&format!("skipping {s}"));
    }
    let seed = a.seed.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64)
    });
    let settings = Settings {
        duration: a.transactions.is_none().then_some(a.duration),
        transactions: a.transactions,
        warmup: a.warmup,
        repeat: a.repeat.unwrap_or(crate::cli::DEFAULT_REPEAT),
        precision,
        confidence,
        seed,
        rate: a.rate,
        latency_limit: a.latency_limit,
        progress: a.progress,
        log_interval: a.log_interval,
    };
    let mut results = Results {
        schema: SCHEMA,
        dbrace_version: env!("CARGO_PKG_VERSION").to_string(),
        status: RunStatus::Running,
        started_at: now_rfc3339(),
        finished_at: None,
        // Passwords in URLs stay out of the results file.
        command: std::env::args().map(|a| crate::redact::redact(&a)).collect(),
        host: Host::detect(),
        locations: vec![locations.disk.clone(), locations.ram.clone()],
        options: RunOptions {
            duration_s: settings.duration.map(|d| d.as_secs_f64()),
            transactions: settings.transactions,
            warmup_s: settings.warmup.as_secs_f64(),
            // Under --precision, the rounds run (the matrix counts them up).
            repeat: if precision.is_some() { 0 } else { settings.repeat },
            scale: a.scale,
            tables: a.tables,
            table_size: a.table_size,
            records: a.records,
            distribution: a.distribution,
            counters: plan
                .cells
                .iter()
                .any(|c| c.workload.name().starts_with(workload::counters::FAMILY))
                .then(|| workload.counters.clone()),
            seed,
            baseline: plan.baseline.clone(),
            confidence,
            rate: a.rate,
            latency_limit_ms: a.latency_limit.map(|d| d.as_secs_f64() * 1e3),
            precision: precision.map(|t| t.precision),
            max_time_s: precision.map(|t| t.max_time.as_secs_f64()),
            min_repeat: precision.map(|t| t.min_repeat),
            max_repeat: precision.map(|t| t.max_repeat),
            log_interval_s: a.log_interval.map(|d| d.as_secs_f64()),
        },
        cells: Vec::new(),
        precision_outcome: None,
    };
    let outcome = runner::matrix::run(&plan.cells, &settings, &locations, &mut results, &out, progress);
    // Whatever happened, show what was measured and where it is kept.
    let mut charts = Ok(());
    if results.cells.iter().any(|c| !c.repeats.is_empty()) {
        print!("{}", report::render(&results, &plan.baseline, a.format)?);
        charts = write_charts(&results, &plan.baseline, &a.charts, &out, progress);
    }
    progress.line(&format!("results: {}", out.display()));
    charts?;
    let all_ok = outcome?;
    Ok(if all_ok { 0 } else { 1 })
}

/// Remove what killed runs left in both locations, and say so.
pub(crate) fn reap_locations(locations: &Locations, progress: Progress) {
    for l in [&locations.disk, &locations.ram] {
        let n = datadir::reap(&l.path);
        if n > 0 {
            progress.line(&format!(
                "removed {n} data director{} left by a killed run in {}",
                if n == 1 { "y" } else { "ies" },
                l.path.display()
            ));
        }
    }
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
fn dry_run(plan: &plan::Plan, a: &RunArgs, precision: Option<(&runner::precision::Target, f64)>) -> String {
    let measured = a.warmup.as_secs_f64() + a.duration.as_secs_f64();
    let repeat = a.repeat.unwrap_or(crate::cli::DEFAULT_REPEAT);
    let mut out = String::new();
    let mut total = 0.0;
    let width = plan.cells.iter().map(|c| c.id().len()).max().unwrap_or(0);
    for c in &plan.cells {
        // A throwaway server starts in about a second; a load writes some 50 MB/s.
        let server = if c.engine.needs_data_dir(&c.profile, &c.target) { 1.0 } else { 0.0 };
        let load = c.workload.estimated_bytes(&c.options) as f64 / 50e6;
        let each = server + load + if a.transactions.is_some() { a.warmup.as_secs_f64() } else { measured };
        total += each * f64::from(repeat);
        out += &match precision {
            Some(_) => format!("  {:width$}  ≈ {} a repeat\n", c.id(), secs(each)),
            None => format!("  {:width$}  ≈ {} × {}\n", c.id(), repeat, secs(each)),
        };
    }
    let per = match a.transactions {
        Some(t) => format!(", plus {t} transactions per client each repeat"),
        None => String::new(),
    };
    let head = match precision {
        Some((t, level)) => {
            let round = total / f64::from(repeat);
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
        None => format!("would measure {} cells × {} repeats, ≈ {}{per}:\n", plan.cells.len(), repeat, secs(total)),
    };
    out.insert_str(0, &head);
    for s in &plan.skipped {
        out += &format!("skipping {s}\n");
    }
    out += &format!("baseline: {}\n\nas a --config file:\n{}", plan.baseline, a.as_config);
    out
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

/// Refuse an unusable output file (`flag` names its option) before measuring anything.
pub(crate) fn check_writable(out: &Path, flag: &str, example: &str) -> Result<()> {
    if out.is_dir() {
        return Err(bad_input!("{flag} {} is a directory; give a file name such as {example}", out.display()));
    }
    let parent = out.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !parent.is_dir() {
        return Err(bad_input!(
            "the directory of {flag} {} does not exist; create it or choose another path",
            out.display()
        ));
    }
    let probe = datadir::scratch(parent, "out");
    std::fs::write(&probe, b"")
        .map_err(|e| bad_input!("cannot write next to {}: {e}; choose another {flag}", out.display()))?;
    let _ = std::fs::remove_file(probe);
    Ok(())
}

/// Refuse unusable --html and --plot files before measuring anything.
fn check_charts(a: &ChartArgs) -> Result<()> {
    if let Some(html) = &a.html {
        check_writable(html, "--html", "report.html")?;
    }
    if let Some(plot) = &a.plot {
        match plot.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
            Some("svg") => {}
            Some("png") if cfg!(feature = "png") => {}
            Some("png") => {
                return Err(bad_input!(
                    "--plot {}: this dbrace was built without PNG; write {} or build with `cargo build --release --features png`",
                    plot.display(),
                    plot.with_extension("svg").display(),
                ));
            }
            _ => return Err(bad_input!("--plot {}: give a file name ending in .svg or .png", plot.display())),
        }
        check_writable(plot, "--plot", "chart.svg")?;
    }
    Ok(())
}

/// Write the --html report and the --plot chart of `results`, if asked for.
fn write_charts(results: &Results, baseline: &str, a: &ChartArgs, source: &Path, progress: Progress) -> Result<()> {
    let write = |path: &Path, bytes: Vec<u8>| {
        std::fs::write(path, bytes).map_err(|e| failed!("cannot write {}: {e}", path.display()))?;
        progress.line(&format!("wrote {}", path.display()));
        Ok::<(), crate::error::Error>(())
    };
    let name = source.file_name().map_or_else(|| source.display().to_string(), |n| n.to_string_lossy().into_owned());
    if let Some(html) = &a.html {
        write(html, report::html::render(results, baseline, &name)?.into_bytes())?;
    }
    if let Some(plot) = &a.plot {
        let rows = report::rows(results, baseline)?;
        let svg = report::charts::standalone(results, &rows, a.chart)?;
        #[cfg(feature = "png")]
        if plot.extension().is_some_and(|e| e.eq_ignore_ascii_case("png")) {
            return write(plot, report::charts::png::render(&svg)?);
        }
        write(plot, svg.into_bytes())?;
    }
    Ok(())
}

/// Refuse a data set that cannot fit its location, before loading fills it up.
fn check_space(plan: &plan::Plan, locations: &Locations) -> Result<()> {
    for c in &plan.cells {
        let opts = &c.options;
        let need = c.workload.estimated_bytes(opts);
        let loc = locations.get(c.profile.location);
        if c.engine.needs_data_dir(&c.profile, &c.target) && need > loc.free_bytes {
            return Err(bad_input!(
                "{} with {} needs about {} in {} ({}), which has {} free; give a smaller data set or choose another {} location",
                c.workload.name(),
                c.workload.size_options(opts),
                gib(need),
                loc.path.display(),
                loc.fs_type,
                gib(loc.free_bytes),
                loc.kind
            ));
        }
    }
    Ok(())
}

fn clean(a: CleanArgs) -> Result<i32> {
    machine(&a.locations);
    let locations = Locations::resolve(a.locations.disk_dir.as_deref(), a.locations.ram_dir.as_deref(), false)?;
    for l in [&locations.disk, &locations.ram] {
        let n = datadir::reap(&l.path);
        println!("{}: removed {n} leftover{} of killed runs", l.path.display(), if n == 1 { "" } else { "s" });
    }
    Ok(0)
}

fn default_results_path() -> Result<PathBuf> {
    let dir = location::cache_dir()?.join("results");
    std::fs::create_dir_all(&dir)
        .map_err(|e| failed!("cannot create {}: {e}; give a results file with --out", dir.display()))?;
    let stamp: String = now_rfc3339().chars().filter(|c| c.is_ascii_digit()).collect();
    Ok(dir.join(format!("{stamp}-{}.json", std::process::id())))
}

fn report_cmd(a: ReportArgs) -> Result<i32> {
    check_charts(&a.charts)?;
    let mut results = Results::load(&a.file)?;
    // Re-rendered at another level, the file's repeats answer as if the run had asked it.
    if let Some(level) = a.confidence {
        results.options.confidence = level;
    }
    let baseline = a.baseline.unwrap_or_else(|| results.options.baseline.clone());
    print!("{}", report::render(&results, &baseline, a.format)?);
    write_charts(&results, &baseline, &a.charts, &a.file, Progress { enabled: true })?;
    Ok(0)
}

fn compare_cmd(a: CompareArgs) -> Result<i32> {
    let (old, new) = crate::compare::load(&a.old, &a.new)?;
    let names = (a.old.display().to_string(), a.new.display().to_string());
    let level = a.confidence.unwrap_or(new.options.confidence);
    let report = crate::compare::compare(&old, &new, (&names.0, &names.1), a.fail_if_slower, level)?;
    print!("{}", report::compare::render(&report, a.format)?);
    let Some(limit) = a.fail_if_slower else { return Ok(0) };
    use crate::compare::Verdict::{NotEnoughRepeats, NotMeasured};
    if report.cells.iter().all(|c| matches!(c.verdict, NotEnoughRepeats | NotMeasured)) {
        let need = crate::stats::repeats_for(level);
        return Err(bad_input!(
            "--fail-if-slower cannot judge any cell: too few measured repeats for a {} verdict (it needs {need} in each file); run both with --repeat {need} or more",
            crate::stats::percent(level)
        ));
    }
    let bad = report.regressions();
    if bad.is_empty() {
        return Ok(0);
    }
    let list: Vec<String> =
        bad.iter().map(|c| format!("{} ({:+.1}%)", c.id, c.ratio.map_or(0.0, |r| (r.value - 1.0) * 100.0))).collect();
    Err(failed!(
        "{} cell(s) significantly slower by more than {}%: {}",
        bad.len(),
        report::compare::percent(limit),
        list.join(", ")
    ))
}

fn engines(a: EnginesArgs) -> Result<i32> {
    signals::install();
    machine(&a.locations);
    let locations = Locations::resolve(a.locations.disk_dir.as_deref(), a.locations.ram_dir.as_deref(), true)?;
    signals::check()?;
    let engines: Vec<EngineInfo> = engine::all()
        .iter()
        .map(|e| {
            let (usable, version) = match e.version() {
                Ok(v) => (true, v),
                Err(err) => (false, err.to_string()),
            };
            let interface = format!("{:?}", e.interface()).to_lowercase();
            EngineInfo { engine: e.name(), usable, version, interface, settings: e.setting_keys() }
        })
        .collect();
    let locs = [&locations.disk, &locations.ram];
    if a.json {
        let v = serde_json::json!({"engines": engines, "locations": locs});
        println!("{}", serde_json::to_string_pretty(&v).map_err(|e| failed!("{e}"))?);
        return Ok(0);
    }
    let mut t = comfy_table::Table::new();
    t.load_style(comfy_table::presets::UTF8_FULL_CONDENSED).set_header([
        "engine",
        "usable",
        "version",
        "client",
        "settings for --set",
    ]);
    // Long setting lists wrap instead of stretching the table past the terminal.
    t.set_content_arrangement(comfy_table::ContentArrangement::Dynamic);
    if t.width().is_none() {
        t.set_width(120);
    }
    for e in &engines {
        let usable = if e.usable { "yes" } else { "no" };
        t.add_row([e.engine, usable, &e.version, &e.interface, &e.settings.join(", ")]);
    }
    println!("{t}");
    let mut t = comfy_table::Table::new();
    t.load_style(comfy_table::presets::UTF8_FULL_CONDENSED).set_header([
        "location",
        "path",
        "filesystem",
        "free",
        "fsync (8 KiB write + fdatasync)",
    ]);
    for l in locs {
        let fsync = l.fsync.as_ref().map_or("-".into(), |f| {
            format!("median {:.3} ms, max {:.3} ms ({} ops)", f.median_us / 1000.0, f.max_us / 1000.0, f.ops)
        });
        t.add_row([l.kind.to_string(), l.path.display().to_string(), l.fs_type.clone(), gib(l.free_bytes), fsync]);
    }
    println!("{t}");
    println!("profiles:");
    for (n, h) in profile::builtin_help() {
        println!("  {n:<11} {h}");
    }
    println!("workloads:");
    for w in workload::all() {
        let on: Vec<_> = engine::all().iter().filter(|e| w.supports(e.interface())).map(|e| e.name()).collect();
        println!("  {:<14} {} [{}]", w.name(), w.about(), on.join(", "));
    }
    let both: Vec<_> = engine::all().iter().map(|e| e.name()).collect();
    println!("  {:<14} counters-write and counters-read, a row each [{}]", workload::counters::FAMILY, both.join(", "));
    let sql: Vec<_> =
        engine::all().iter().filter(|e| e.interface() == engine::Interface::Sql).map(|e| e.name()).collect();
    println!(
        "  {:<14} pgbench's script format (script:FILE@WEIGHT to weigh it; the script: entries of a list form one mix) [{}]",
        "script:FILE",
        sql.join(", ")
    );
    if std::io::stdout().is_terminal() {
        println!("(a disk fsync far above a ram one is what makes ram profiles faster for commit-heavy workloads)");
    }
    Ok(0)
}

/// What `dbrace engines` says of one engine.
#[derive(serde::Serialize)]
struct EngineInfo {
    engine: &'static str,
    usable: bool,
    version: String,
    interface: String,
    settings: &'static [&'static str],
}

fn gib(b: u64) -> String {
    format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64)
}
