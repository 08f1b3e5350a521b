//! `dbrace exec`: run a user's own command (a test suite) against a throwaway server under
//! each profile, time it as hyperfine times commands — untimed warm-ups first, profiles
//! in rounds of a random order — and say how much faster each profile made it, or that it
//! made no significant difference.

pub mod child;
pub mod command;
pub mod database;
pub mod report;
pub mod results;
pub mod summarize;
pub mod summary;

use crate::cli::ExecArgs;
use crate::engine::access::Access;
use crate::engine::{Engine, Machine, Target};
use crate::error::{Error, Result};
use crate::host::Host;
use crate::instance::{Locations, datadir};
use crate::profile::Profile;
use crate::redact::scrub;
use crate::report::{Format, step_summary};
use crate::results::{RunStatus, now_rfc3339};
use crate::rng::Rng;
use crate::runner::budget::Budget;
use crate::runner::progress::Progress;
use crate::runner::rule::{Next, Rule};
use crate::session::{Session, Setup, Spec};
use crate::startup::{check_writable, launched, machine, reap_containers, reap_locations};
use crate::{engine, signals};
use child::{Ending, Output, Spawn};
use results::{ExecOptions, ExecResults, ProfileRuns, Run, RunOutcome};
use std::path::{Path, PathBuf};
use std::time::Instant;
use summary::Summary;

/// Everything an exec needs, checked before any server starts.
struct Job {
    engine: &'static dyn Engine,
    profiles: Vec<Profile>,
    argv: Vec<String>,
    prepare: Option<Vec<String>>,
    setup: Option<Setup>,
    access: Access,
    machine: Machine,
    /// Throwaway servers, or the `--url` server.
    target: Target,
    notes: Vec<String>,
}

/// The profiles when `--profile` gives none: the server as it is against everything in
/// RAM and unsynced.
const DEFAULT_PROFILES: &[&str] = &["disk", "ram-nosync"];

/// The engine when neither `--engine` nor `--compose` names one.
const DEFAULT_ENGINE: &str = "postgres";

/// Resolve a profile list for `engine` as exec and serve run it: built-in names only, each
/// one the engine can hand to a command.
pub fn profiles(names: &[String], tls: bool, engine: &dyn Engine, machine: &Machine) -> Result<Vec<Profile>> {
    let named =
        crate::profile::with_tls(names.to_vec(), tls).iter().map(|n| Profile::named(n)).collect::<Result<_>>()?;
    resolved(named, engine, machine)
}

/// `list` as `engine` runs each profile for a command, each named once.
pub fn resolved(list: Vec<Profile>, engine: &dyn Engine, machine: &Machine) -> Result<Vec<Profile>> {
    let mut out: Vec<Profile> = Vec::new();
    for p in list {
        let n = p.name.clone();
        if p.tls && !engine.facts().serves_tls {
            return Err(bad_input!("{} has no server to run with TLS; drop --tls or +tls", engine.name()));
        }
        let p = engine.resolve_profile(&p).ok_or_else(|| bad_input!("{} has no '{n}' mode", engine.name()))?;
        if out.iter().any(|x| x.name == p.name) {
            return Err(bad_input!("profile '{n}' is given twice; name each profile once"));
        }
        engine.check_exposed(&p, machine)?;
        out.push(p);
    }
    if out.is_empty() {
        return Err(bad_input!("no profile given; use e.g. --profile disk,ram-nosync"));
    }
    Ok(out)
}

/// The access flags as the engines take them.
pub fn access(a: &crate::cli::AccessArgs) -> Access {
    Access { port: a.port, user: a.user.clone(), password: a.password.clone(), database: a.database.clone() }
}

fn check(a: &ExecArgs, machine: Machine) -> Result<Job> {
    command::check(&a.command, "command")?;
    if let (Some(n), Some(b)) = (a.repeat, a.budget) {
        return Err(bad_input!(
            "--repeat {n} and --budget {} both decide how often the command runs; drop one of them",
            humantime::format_duration(b)
        ));
    }
    let prepare = a.prepare.as_deref().map(command::split).transpose()?;
    if let Some(p) = &prepare {
        command::check(p, "--prepare")?;
    }
    let served = served(a, machine)?;
    let (setup, notes) = (served.setup(a.setup.as_deref())?, served.notes());
    let Served { engine, profiles, access, machine, .. } = served;
    if let Some(port) = access.port {
        if a.reuse && profiles.len() > 1 {
            return Err(bad_input!(
                "--reuse keeps one server per profile up at once, and they cannot all listen on --port {port}; drop --reuse or give one profile"
            ));
        }
        crate::instance::server::check_port(port)?;
    }
    if let Some(out) = &a.out {
        check_writable(out, "--out", "exec.json")?;
    }
    let target = a.url.clone().map_or(Target::Managed, Target::Url);
    Ok(Job { engine, profiles, argv: a.command.clone(), prepare, setup, access, machine, target, notes })
}

/// The engine, profiles, access and machine a command is served by: the flags', or the
/// `--compose` service's (the flags given still win).
pub struct Served {
    /// The engine.
    pub engine: &'static dyn Engine,
    /// Its profiles, resolved.
    pub profiles: Vec<Profile>,
    /// Where the servers answer.
    pub access: Access,
    /// How they run.
    pub machine: Machine,
    /// The Compose service, when one serves.
    pub compose: Option<crate::compose::Chosen>,
}

impl Served {
    /// What the Compose file's reading left out or kept, to tell the user.
    pub fn notes(&self) -> Vec<String> {
        self.compose.as_ref().map_or_else(Vec::new, |c| c.notes.clone())
    }

    /// What every server gets once up: the Compose service's SQL init scripts, then the
    /// `--setup` file.
    pub fn setup(&self, file: Option<&Path>) -> Result<Option<Setup>> {
        let given = file.map(|p| Setup::read(p, self.engine)).transpose()?;
        match &self.compose {
            Some(c) => c.setup(given),
            None => Ok(given),
        }
    }
}

/// What serves `a`'s command: its flags, over its `--compose` service if it has one,
/// whose `as-written` cell is the baseline unless `-p` places it.
fn served(a: &ExecArgs, machine: Machine) -> Result<Served> {
    if let Some(url) = &a.url {
        return on_url(a, url, machine);
    }
    let given = match a.profile.is_empty() {
        true => DEFAULT_PROFILES.iter().map(|p| p.to_string()).collect(),
        false => a.profile.clone(),
    };
    let names = match a.compose.files.is_empty() {
        true => given,
        false => crate::compose::with_as_written(given),
    };
    serving(a.engine.as_deref(), &names, &a.launcher, &a.access, &a.compose, machine)
}

/// What serves a command run against the `--url` server: its engine, as it is configured
/// (disk), reached as the URL says.
fn on_url(a: &ExecArgs, url: &str, machine: Machine) -> Result<Served> {
    let engine = engine::by_url(url)?;
    let clash = match () {
        _ if !a.compose.files.is_empty() => Some("--compose"),
        _ if a.access.port.is_some() || access(&a.access).given() => Some("--port, --user, --password and --database"),
        _ if a.launcher.tls => Some("--tls"),
        _ if a.engine.as_deref().is_some_and(|e| e != engine.name()) => Some("--engine"),
        _ if a.profile.iter().any(|p| p != "disk") => Some("--profile"),
        _ => None,
    };
    if let Some(flag) = clash {
        return Err(bad_input!(
            "--url names the server, its account and its settings, and the command meets it as it is (one profile, disk): drop {flag}, or drop --url to race throwaway servers"
        ));
    }
    let disk = Profile::named("disk")?;
    engine.check(&disk, &Target::Url(url.to_string()), &machine)?;
    Ok(Served { engine, profiles: vec![disk], access: Access::default(), machine, compose: None })
}

/// The engine, profiles `names`, access and machine that serve a user's command: the
/// flags', or the `--compose` service's (the flags given still win).
pub fn serving(
    engine: Option<&str>,
    names: &[String],
    launcher: &crate::cli::LauncherArgs,
    given: &crate::cli::AccessArgs,
    compose: &crate::cli::ComposeArgs,
    machine: Machine,
) -> Result<Served> {
    let given = access(given);
    let Some(c) = compose.chosen(engine)? else {
        let engine = engine::by_name(engine.unwrap_or(DEFAULT_ENGINE))?;
        let profiles = profiles(names, launcher.tls, engine, &machine)?;
        return Ok(Served { engine, profiles, access: given, machine, compose: None });
    };
    let machine = c.machine(machine);
    let names = crate::profile::with_tls(names.to_vec(), launcher.tls);
    let profiles = resolved(c.profiles(&names, &machine)?, c.engine, &machine)?;
    let access = c.access(given);
    Ok(Served { engine: c.engine, profiles, access, machine, compose: Some(c) })
}

/// Run `dbrace exec`; the exit code.
pub fn run(a: ExecArgs) -> Result<i32> {
    signals::install();
    let job = check(&a, launched(machine(&a.locations), &a.launcher))?;
    let progress = Progress { enabled: !a.quiet };
    for n in &job.notes {
        progress.line(&format!("compose: {n}"));
    }
    let ram = job.profiles.iter().any(Profile::on_ram).then_some(datadir::RAM_DISK_BYTES);
    let locations = Locations::resolve(a.locations.disk_dir.as_deref(), a.locations.ram_dir.as_deref(), true, ram)?;
    reap_locations(&locations, progress);
    reap_containers(&job.machine, progress);
    let mut results = new_results(&a, &job, &locations);
    let output = datadir::scratch(&locations.disk.path, "exec-output");
    let mut runner = Runner {
        job: &job,
        a: &a,
        locations: &locations,
        output: if a.show_output { None } else { Some(output.clone()) },
        sessions: job.profiles.iter().map(|_| None).collect(),
        progress,
        order: Rng::new(now_seed()),
    };
    let outcome = runner.all(&mut results, a.out.as_deref());
    // Servers stop and their directories go before the report is printed.
    drop(runner);
    let _ = std::fs::remove_file(&output);
    results.finished_at = Some(now_rfc3339());
    results.status = run_status(&outcome);
    let summary = summarize::summarize(&results);
    results.summary = Some(summary.clone());
    save_and_report(&a, &results, &summary, progress)?;
    outcome?;
    check_failed_runs(&a, &results, &summary)?;
    Ok(0)
}

/// The results of an exec about to start: what it runs and how, no runs yet.
fn new_results(a: &ExecArgs, job: &Job, locations: &Locations) -> ExecResults {
    let secret = job.access.password.clone().unwrap_or_default();
    ExecResults {
        kind: results::KIND.into(),
        schema: results::SCHEMA,
        dbrace_version: crate::version::VERSION.to_string(),
        status: RunStatus::Running,
        started_at: now_rfc3339(),
        finished_at: None,
        engine: job.engine.name().to_string(),
        command: command::recorded(&job.argv, &secret),
        prepare: job.prepare.as_ref().map(|p| command::recorded(p, &secret)),
        setup: job.setup.as_ref().map(|s| s.path.display().to_string()),
        options: exec_options(a, job),
        host: Host::detect(),
        locations: locations.all().into_iter().cloned().collect(),
        profiles: job
            .profiles
            .iter()
            .map(|p| ProfileRuns {
                profile: p.clone(),
                engine_version: None,
                settings: Default::default(),
                runs: vec![],
            })
            .collect(),
        summary: None,
    }
}

/// The options an exec runs with, as its results record them.
fn exec_options(a: &ExecArgs, job: &Job) -> ExecOptions {
    ExecOptions {
        repeat: a.repeat.unwrap_or(0),
        max_repeat: a.repeat.is_none().then_some(a.max_repeat),
        budget_s: a.budget.filter(|_| a.repeat.is_none()).map(|b| b.as_secs_f64()),
        warmup: a.warmup,
        reuse: a.reuse,
        timeout_s: a.timeout.map(|t| t.as_secs_f64()),
        ignore_failure: a.ignore_failure,
        baseline: job.profiles[0].name.clone(),
        confidence: a.confidence,
        port: job.access.port,
        url: a.url.as_deref().map(crate::redact::redact),
    }
}

/// How the exec ended, as its results record it.
fn run_status(outcome: &Result<()>) -> RunStatus {
    match outcome {
        Ok(()) => RunStatus::Complete,
        Err(Error::Interrupted(_)) => RunStatus::Interrupted,
        Err(_) => RunStatus::Failed,
    }
}

/// Write the results to `--out`, print the report of the timed runs, and say where the results are.
fn save_and_report(a: &ExecArgs, results: &ExecResults, summary: &Summary, progress: Progress) -> Result<()> {
    if let Some(out) = &a.out {
        crate::results::save_json(results, out)?;
    }
    if results.profiles.iter().any(|p| p.runs.iter().any(|r| !r.warmup)) {
        print!("{}", report::render(results, summary, a.format)?);
        step_summary::append(&report::render(results, summary, Format::Markdown)?);
    }
    if let Some(out) = &a.out {
        progress.line(&format!("results: {}", out.display()));
    }
    Ok(())
}

/// An error when timed runs failed, unless `--ignore-failure`.
fn check_failed_runs(a: &ExecArgs, results: &ExecResults, summary: &Summary) -> Result<()> {
    let timed = |p: &ProfileRuns| p.runs.iter().filter(|r| !r.warmup).count();
    let failed: usize = summary.profiles.iter().map(|p| p.failed).sum();
    if failed > 0 && !a.ignore_failure {
        let total: usize = results.profiles.iter().map(timed).sum();
        return Err(failed!(
            "{failed} of {total} timed runs failed (shown above, never averaged in); --ignore-failure exits 0 anyway"
        ));
    }
    Ok(())
}

/// The runs of one exec, and the servers they use.
struct Runner<'a> {
    job: &'a Job,
    a: &'a ExecArgs,
    locations: &'a Locations,
    /// The file a run's output goes to (none with `--show-output`).
    output: Option<PathBuf>,
    /// The server of each profile between runs (`--reuse`), else none.
    sessions: Vec<Option<Session>>,
    progress: Progress,
    /// Draws each round's order.
    order: Rng,
}

impl Runner<'_> {
    /// Warm-ups, then the timed runs, in rounds of every profile in a random order, so
    /// drift hits every profile alike and two profiles' runs of one round are a fair pair:
    /// `--repeat` rounds, or rounds until every profile's comparison with the baseline is
    /// settled (stats/looks.rs); `out` is rewritten after each run.
    fn all(&mut self, results: &mut ExecResults, out: Option<&Path>) -> Result<()> {
        let n = self.job.profiles.len();
        for w in 1..=self.a.warmup {
            for i in self.shuffled((0..n).collect()) {
                self.step(i, None, w, &format!("[warm-up {w}]"), results, out)?;
            }
        }
        match self.a.repeat {
            Some(repeat) => {
                for round in 1..=repeat {
                    for (j, i) in self.shuffled((0..n).collect()).into_iter().enumerate() {
                        let done = (round - 1) as usize * n + j + 1;
                        let label = format!("[{done:>3}/{}]", repeat as usize * n);
                        self.step(i, Some(round), round, &label, results, out)?;
                    }
                }
            }
            None => self.until_settled(results, out)?,
        }
        signals::check()
    }

    /// Rounds of the profiles whose comparison with the baseline is not settled yet, up to
    /// `--max-repeat` rounds and within `--budget`.
    fn until_settled(&mut self, results: &mut ExecResults, out: Option<&Path>) -> Result<()> {
        let n = self.job.profiles.len();
        let ids: Vec<String> = self.job.profiles.iter().map(|p| p.name.clone()).collect();
        let against_baseline = (1..n).map(|i| (i, 0)).collect();
        let level = self.a.confidence;
        let mut rule = Budget::new(n, against_baseline, level, self.a.budget, self.a.max_repeat);
        let (mut round, began) = (0, Instant::now());
        while let Next::Round(profiles) = rule.next(began.elapsed()) {
            round += 1;
            for i in self.shuffled(profiles) {
                let took = Instant::now();
                let run = self.step(i, Some(round), rule.repeats(i) + 1, &format!("[round {round}]"), results, out)?;
                rule.record(i, round, run.then_some(run_wall(results, i)), took.elapsed());
            }
            self.progress.line(&rule.finish_round(&ids));
            results.options.repeat = round;
        }
        Ok(())
    }

    /// `profiles` in an order drawn at random for one round.
    fn shuffled(&mut self, mut profiles: Vec<usize>) -> Vec<usize> {
        self.order.shuffle(&mut profiles);
        profiles
    }

    /// Run profile `i` once, timed in `round` or a warm-up (`None`), numbered `k`; say how
    /// it went after `label`, keep it. Whether it succeeded.
    fn step(
        &mut self,
        i: usize,
        round: Option<u32>,
        k: u32,
        label: &str,
        results: &mut ExecResults,
        out: Option<&Path>,
    ) -> Result<bool> {
        signals::check()?;
        let warm = round.is_none();
        let run = self.one(i, warm, k, results)?;
        let name = &self.job.profiles[i].name;
        let what = if warm { format!("{name} warm-up {k}") } else { format!("{name} #{k}") };
        let line = match run.status {
            RunOutcome::Ok if warm => format!("{:.3} s (untimed)", run.wall_s),
            RunOutcome::Ok => format!("{:.3} s", run.wall_s),
            _ => format!("FAILED: {}", describe(&run)),
        };
        self.progress.line(&format!("{label} {what}: {line}"));
        let ok = run.status == RunOutcome::Ok;
        let tail = run.output_tail.clone();
        results.profiles[i].runs.push(Run { round, ..run });
        if let Some(out) = out {
            crate::results::save_json(results, out)?;
        }
        if warm && !ok && !self.a.ignore_failure {
            // A command that fails while warming up will fail timed too: say so now.
            for l in tail.iter().flat_map(|t| t.lines()) {
                eprintln!("    | {l}");
            }
            return Err(failed!(
                "the warm-up run under {name} failed; fix the command (its output ends above), or pass --ignore-failure"
            ));
        }
        Ok(ok)
    }

    /// One run under profile `i`: a server (fresh, or the profile's kept one), `--prepare`
    /// when the server is new, then the command, timed.
    fn one(&mut self, i: usize, warmup: bool, k: u32, results: &mut ExecResults) -> Result<Run> {
        let profile = &self.job.profiles[i];
        let (mut server_start_s, mut prepare_s) = (None, None);
        if self.sessions[i].is_none() {
            let spec = Spec {
                engine: self.job.engine,
                profile,
                target: &self.job.target,
                access: &self.job.access,
                setup: self.job.setup.as_ref(),
                locations: self.locations,
                machine: &self.job.machine,
            };
            let session = Session::start(&spec)?;
            server_start_s = Some(session.ready_s);
            let kept = &mut results.profiles[i];
            if kept.engine_version.is_none() {
                kept.engine_version = Some(session.version());
                kept.settings = session.settings();
            }
            if let Some(prepare) = &self.job.prepare {
                prepare_s = Some(self.prepare(prepare, &session, &profile.name)?);
            }
            self.sessions[i] = Some(session);
        }
        let session = self.sessions[i].as_ref().ok_or_else(|| failed!("no server for {}", profile.name))?;
        let mut env = session.env().to_vec();
        env.push(("DBRACE_PROFILE".into(), profile.name.clone()));
        let output = self.output.as_deref().map_or(Output::Stderr, Output::File);
        let spawn = Spawn { argv: &self.job.argv, env: &env, unset: session.unset(), output, timeout: self.a.timeout };
        let started_at = now_rfc3339();
        let (timed, server) = session.probe().over(|| child::run(&spawn));
        let secrets = [session.password().to_string(), self.job.access.password.clone().unwrap_or_default()];
        if !self.a.reuse {
            // Stopped and removed between runs, untimed.
            self.sessions[i] = None;
        }
        let t = timed?;
        if let Ending::Interrupted(sig) = t.ending {
            return Err(Error::Interrupted(sig));
        }
        let (status, exit_code, signal) = match t.ending {
            Ending::Exited(0) => (RunOutcome::Ok, Some(0), None),
            Ending::Exited(c) => (RunOutcome::Failed, Some(c), None),
            Ending::Signaled(s) => (RunOutcome::Failed, None, Some(s)),
            _ => (RunOutcome::TimedOut, None, None),
        };
        let output_tail = match (&self.output, status) {
            (Some(path), RunOutcome::Failed | RunOutcome::TimedOut) => {
                Some(secrets.iter().fold(child::tail(path), |t, s| scrub(&t, s)))
            }
            _ => None,
        };
        Ok(Run {
            repeat: k,
            round: None,
            warmup,
            status,
            exit_code,
            signal,
            wall_s: t.wall.as_secs_f64(),
            user_s: t.user.as_secs_f64(),
            system_s: t.system.as_secs_f64(),
            started_at,
            server_start_s,
            prepare_s,
            output_tail,
            server: Some(server),
        })
    }

    /// Run `--prepare` against a new server, untimed; a failure stops the exec.
    fn prepare(&self, argv: &[String], session: &Session, profile: &str) -> Result<f64> {
        let mut env = session.env().to_vec();
        env.push(("DBRACE_PROFILE".into(), profile.to_string()));
        let output = self.output.as_deref().map_or(Output::Stderr, Output::File);
        let t = child::run(&Spawn { argv, env: &env, unset: session.unset(), output, timeout: self.a.timeout })?;
        match t.ending {
            Ending::Exited(0) => Ok(t.wall.as_secs_f64()),
            Ending::Interrupted(sig) => Err(Error::Interrupted(sig)),
            other => {
                if let Some(path) = &self.output {
                    for l in scrub(&child::tail(path), session.password()).lines() {
                        eprintln!("    | {l}");
                    }
                }
                Err(failed!(
                    "--prepare '{}' failed under {profile} ({}); its output ends above",
                    command::shown(argv),
                    ending_words(other, t.wall.as_secs_f64())
                ))
            }
        }
    }
}

/// The wall time of profile `i`'s last run.
fn run_wall(results: &ExecResults, i: usize) -> f64 {
    results.profiles[i].runs.last().map_or(0.0, |r| r.wall_s)
}

/// A seed from the clock, for the order of the rounds.
fn now_seed() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64)
}

/// A failed run in a few words.
pub(crate) fn describe(run: &Run) -> String {
    match (run.status, run.exit_code, run.signal) {
        (RunOutcome::TimedOut, _, _) => format!("timed out after {:.1} s", run.wall_s),
        (_, Some(c), _) => format!("exit code {c}"),
        (_, _, Some(s)) => format!("killed by signal {s}"),
        _ => "failed".into(),
    }
}

fn ending_words(e: Ending, wall_s: f64) -> String {
    match e {
        Ending::Exited(c) => format!("exit code {c}"),
        Ending::Signaled(s) => format!("killed by signal {s}"),
        Ending::TimedOut => format!("timed out after {wall_s:.1} s"),
        Ending::Interrupted(s) => format!("interrupted by signal {s}"),
    }
}
