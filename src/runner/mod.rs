//! The measurement core: for one cell and repeat, on the instance the cell kept (or one
//! launched and loaded for it), connect, warm up, measure N clients, verify. It drives
//! `Transactor`s and records time; it knows no engine and no workload.

pub mod budget;
pub mod cell;
pub mod connect;
pub mod control;
pub mod coordinator;
pub mod counters;
pub mod cpu;
pub mod gauge;
pub mod intervals;
pub mod live;
pub mod matrix;
pub mod perf;
pub mod precision;
pub mod progress;
pub mod recovery;
pub mod rule;
pub mod schedule;
pub mod start;
mod totals;
pub mod waits;
pub mod worker;
pub mod workers;

use crate::engine::{Connection, Instance, Launch, Machine, Target};
use crate::error::{Error, Result};
use crate::instance::{Locations, Storage};
use crate::options::driving::Driving;
use crate::results::{Latency, RepeatResult, RepeatStatus, ScheduleStats, encode_histogram, now_rfc3339};
use crate::signals;
use crate::workload::{CellWorkload, Transactor};
use cell::Cell;
use control::{Control, Observe};
use coordinator::{Coordinator, Measurement};
use progress::Progress;
use schedule::Schedule;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use totals::Totals;
use worker::{Duty, Recovery, WorkerReport};

/// How every cell is driven, and how often.
#[derive(Clone, Debug)]
pub struct Settings {
    /// How clients are driven in every cell, resolved: what the results file keeps.
    pub driving: Driving,
    /// Repeats per cell, in rounds of every cell (unless `precision` or `budget` decides).
    pub repeat: u32,
    /// `--precision`: repeat in rounds until every cell is this precise, instead of `repeat`.
    pub precision: Option<precision::Target>,
    /// `--budget`: the wall time the rounds may take, each comparison measured until its
    /// verdict is settled (instead of `repeat`).
    pub budget: Option<Duration>,
    /// A line on stderr this often per running cell (`--progress`).
    pub progress: Option<Duration>,
    /// `--threads`: worker threads that share each cell's clients (default: one per core).
    pub threads: Option<u32>,
    /// Read the server's, its processes' and the disk's counters around each measured
    /// phase (`--no-counters` turns it off).
    pub counters: bool,
    /// Sample the server's CPU with perf over each measured phase (`--hotspots`).
    pub hotspots: bool,
}

impl Settings {
    /// Whether `cell` keeps its instance and data set from one repeat to the next: unless
    /// `--fresh`, where its workload allows and more than one repeat may run.
    pub fn keeps(&self, cell: &Cell) -> bool {
        !self.driving.fresh
            && cell.workload.keeps_data()
            && (self.repeat > 1 || self.precision.is_some() || self.budget.is_some())
    }

    /// Client `i`'s share of the rate as its own schedule (pgbench gives each thread
    /// rate/threads; here every client is a thread).
    fn schedule(&self, clients: u32, i: u32, seed: u64) -> Option<Schedule> {
        // Its own stream, apart from the workload's generator of the same client.
        let seed = (seed ^ 0x5eed_0fa2_217a_1500).wrapping_add(u64::from(i));
        let d = &self.driving;
        d.rate.map(|r| Schedule::new(r / f64::from(clients), d.latency_limit, seed))
    }

    /// What the clients record beyond the measurement.
    fn observe(&self) -> Observe {
        let expected = match (self.driving.log_interval, self.driving.duration) {
            (Some(i), Some(d)) => (d.as_secs_f64() / i.as_secs_f64()).ceil() as usize + 1,
            (Some(_), None) => 64,
            _ => 0,
        };
        Observe {
            progress: self.progress.is_some(),
            log_interval: self.driving.log_interval,
            expected_intervals: expected,
            types: 0,
        }
    }
}

/// What every repeat of a run needs besides its cell: how servers run, how cells are
/// driven, where data lives, and where progress is shown.
#[derive(Clone, Copy)]
pub struct Context<'a> {
    /// How managed servers run.
    pub machine: &'a Machine,
    /// How every cell is driven.
    pub settings: &'a Settings,
    /// Where data lives.
    pub locations: &'a Locations,
    /// Progress bars and per-repeat lines.
    pub progress: Progress,
}

/// Launch each distinct engine × profile once before measuring, so a setting the engine
/// refuses is bad input reported in a second, not a failed cell after the whole matrix.
/// A cell that keeps its instance across repeats (`keeps`) launches and loads the one it
/// keeps here; the others' instances are stopped again. Returns each cell's kept instance.
pub fn preflight(cells: &[Cell], cx: Context) -> Result<Vec<Option<Loaded>>> {
    let Context { machine, settings: s, locations, progress } = cx;
    let mut seen: Vec<String> = Vec::new();
    let mut kept = Vec::new();
    for c in cells {
        signals::check()?;
        let refused = |e: Error| match e {
            Error::Run(m) if !c.profile.settings.is_empty() => {
                Error::Input(format!("{m}; check the values given with --set"))
            }
            other => other,
        };
        if s.keeps(c) {
            let bar = progress.bar(&c.id(), 1000);
            bar.set_message("loading");
            let launched = launch(c, cx).map_err(refused)?;
            // A load that fails fails the cell's repeats, which say why, not the run.
            let loaded = match fill(c, launched) {
                Err(Error::Run(_)) => None,
                other => Some(other?),
            };
            bar.finish_and_clear();
            kept.push(loaded);
            continue;
        }
        kept.push(None);
        let key = format!("{}/{}", c.engine.name(), c.profile.name);
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let storage = storage(c, locations)?;
        c.engine.launch(&Launch::run(&c.profile, &c.target, &storage, machine)).map(drop).map_err(refused)?;
    }
    Ok(kept)
}

/// Commits after which a kept data set is given up and the next repeat loads a fresh one:
/// a fast engine's insert-commit would otherwise grow its data set without end (a
/// million rows a second in the memory store).
pub const RENEW_AFTER: u64 = 1_000_000;

/// A cell's instance with its data set loaded, which repeats measure on: one repeat's
/// own, or kept by the cell from one repeat to the next where its workload allows.
pub struct Loaded {
    // Fields drop in order: the workload's and the instance's connections go before the
    // files they use.
    workload: Box<dyn crate::workload::CellWorkload>,
    instance: Box<dyn crate::engine::Instance>,
    storage: Storage,
    /// Transactions committed on this data set by the repeats before (verify counts all).
    committed: u64,
    /// Launch and load as timed, for the first repeat that measures on it.
    launched: Option<(f64, f64, Vec<crate::results::LoadPhase>)>,
}

/// Measure one repeat of one cell on `kept`, the instance its last repeat left, or on a
/// fresh one; leave the instance in `kept` when the cell keeps it and the repeat went
/// well. A failure of the run becomes a failed repeat; bad input and interruption are
/// returned as errors that end the whole run.
pub fn run_repeat(cell: &Cell, repeat: u32, cx: Context, kept: &mut Option<Loaded>) -> Result<RepeatResult> {
    let s = cx.settings;
    let started_at = now_rfc3339();
    let label = format!("{} #{repeat}", cell.id());
    let bar = cx.progress.bar(&label, s.driving.transactions.map_or(1000, |t| t * clients_of(cell, s).len() as u64));
    let r = match kept.take() {
        Some(loaded) => Ok(loaded),
        None => {
            bar.set_message("loading");
            load(cell, cx)
        }
    }
    .and_then(|mut loaded| {
        let r = measure(cell, &mut loaded, repeat, cx, &bar, &label);
        let good = r.as_ref().is_ok_and(|r| r.status == RepeatStatus::Ok);
        if s.keeps(cell) && good && loaded.committed < RENEW_AFTER {
            *kept = Some(loaded);
        }
        r
    });
    bar.finish_and_clear();
    // A failure caused by the signal (a load cut short) is the signal, not a failed cell.
    if let (Err(Error::Run(_)), Some(sig)) = (&r, signals::pending()) {
        return Err(Error::Interrupted(sig));
    }
    match r {
        Err(Error::Run(msg)) => {
            Ok(RepeatResult::failed(repeat, msg, started_at, cell.engine.version(cx.machine).unwrap_or_default()))
        }
        other => other.map(|r| RepeatResult { started_at, ..r }),
    }
}

/// The clients of `cell` this process runs: all, or its shard's share. A shard's clients
/// keep their numbers in the whole cell, so their seeds, schedules and the keys they
/// insert are those one process would give them.
fn clients_of(cell: &Cell, s: &Settings) -> std::ops::Range<u32> {
    s.driving.shard.map_or(0..cell.clients, |sh| sh.clients(cell.clients))
}

/// Fresh directories in the cell's locations, if its engine keeps files.
fn storage(cell: &Cell, locations: &Locations) -> Result<Storage> {
    if !cell.engine.needs_data_dir(&cell.profile, &cell.target) {
        return Ok(Storage::default());
    }
    Storage::create(&cell.profile, locations)
}

/// Launch a fresh instance of `cell` and load its workload's data set.
pub fn load(cell: &Cell, cx: Context) -> Result<Loaded> {
    launch(cell, cx).and_then(|launched| fill(cell, launched))
}

/// A cell's instance started in fresh storage, and the seconds it took.
struct Launched(Storage, Box<dyn crate::engine::Instance>, f64);

/// Start a fresh instance of `cell` in fresh storage.
fn launch(cell: &Cell, cx: Context) -> Result<Launched> {
    let storage = storage(cell, cx.locations)?;
    let start = Instant::now();
    let profile = cell.launch_profile(clients_of(cell, cx.settings).len());
    let instance = cell.engine.launch(&Launch::run(&profile, &cell.target, &storage, cx.machine))?;
    Ok(Launched(storage, instance, start.elapsed().as_secs_f64()))
}

/// Load `cell`'s data set on its launched instance.
fn fill(cell: &Cell, Launched(storage, instance, start_s): Launched) -> Result<Loaded> {
    let load_start = Instant::now();
    // Loading has its own connections, closed before clients start: an idle extra
    // connection is not free for every engine (SQLite's file locks, a server's backends).
    let mut loader = crate::workload::Loader::new(&*instance)?;
    let workload = cell.workload.prepare(&mut loader, &cell.options)?;
    let load_phases = loader.finish();
    let load_s = load_start.elapsed().as_secs_f64();
    signals::check()?;
    Ok(Loaded { workload, instance, storage, committed: 0, launched: Some((start_s, load_s, load_phases)) })
}

fn measure(
    cell: &Cell,
    loaded: &mut Loaded,
    repeat: u32,
    cx: Context,
    bar: &indicatif::ProgressBar,
    label: &str,
) -> Result<RepeatResult> {
    let s = cx.settings;
    let mine = clients_of(cell, s);
    let kept = loaded.launched.is_none();
    let (start_s, load_s, load_phases) = loaded.launched.take().unwrap_or_default();
    let (instance, prepared) = (&*loaded.instance, &mut *loaded.workload);
    let mut probe = probe(instance, &loaded.storage, cx);
    let server_before = probe.as_mut().and_then(|p| p.server(false));
    cx.locations.settle();
    let seed = s.driving.seed().wrapping_add(u64::from(repeat) << 32);
    let first_id = mine.start;
    let Connected { clients, connect_s, evented } = connect_clients(instance, prepared, mine, seed)?;
    let threads = workers::threads(s.threads, clients.len(), evented);
    let types = cell.workload.types();
    let ctl = Control::observed(clients.len(), Observe { types: types.len(), ..s.observe() });
    let n = cell.clients;
    let mut clients = clients.into_iter().enumerate();
    let (_, first) = clients.next().ok_or_else(|| failed!("a cell needs at least one client"))?;
    let measure_at = match s.driving.start_at {
        Some(at) => Some(start::wait_for(at, s.driving.warmup, bar)?),
        None => None,
    };
    // A client that reconnects builds its transactor anew, as the ones above were built:
    // rare, so one lock over the repeat's workload is no cost.
    let shared = Mutex::new(&mut *prepared);
    let rebuild = |id: u32, seed: u64| {
        let conn = instance.connect()?;
        // Building a transactor talks to the server: a fiber holding the lock parks, so
        // another fiber of its thread must not block on the lock, only wait its turn.
        lock_waiting(&shared).client(conn, id, seed)
    };
    let (tries, reconnect) = (recovery::Tries::from_flag(s.driving.max_tries), s.driving.reconnect);
    let recovery = |id: u32| Recovery {
        tries,
        reconnect: reconnect.then(|| recovery::Reconnect::new(&rebuild, id, seed.wrapping_add(u64::from(id)))),
    };
    let ctl = &ctl;
    let mut measured = None;
    let reports = {
        let measured = &mut measured;
        // Client 0 runs on this thread and coordinates between its transactions (see
        // coordinator.rs); the phases start before any client does.
        let sampler = probe.as_mut().map(|p| p as &mut dyn counters::Sample);
        let mut coord = Coordinator::new(ctl, s, bar, label, measure_at, sampler);
        let (pace, recovery0) = (s.schedule(n, first_id, seed), recovery(first_id));
        let mut loops: Vec<workers::Client> = vec![Box::new(move || {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let duty = Duty { ctl, me: 0, limit: s.driving.transactions, coord: Some(&mut coord), schedule: pace };
                worker::run_recovering(first, duty, recovery0)
            }));
            if r.is_err() {
                // The others stop too: nobody is left to end the measured phase.
                coord.abort();
            }
            // Out of its loop, client 0 goes on ticking on a timer until every client stops.
            *measured = Some(coord.finish());
            r.unwrap_or_else(|p| std::panic::resume_unwind(p))
        })];
        for (i, tx) in clients {
            let id = first_id + i as u32;
            let (pace, recovery) = (s.schedule(n, id, seed), recovery(id));
            let duty = Duty { ctl, me: i, limit: s.driving.transactions, coord: None, schedule: pace };
            loops.push(Box::new(move || worker::run_recovering(tx, duty, recovery)));
        }
        workers::drive(loops, threads)
    };
    let (mut m, reports) = gathered(measured, reports)?;
    add_settled_server(probe.as_mut(), server_before.as_ref(), &mut m);
    let r = summarize(repeat, loaded, reports, m, [start_s, connect_s, load_s], s, &types)?;
    let r = RepeatResult { threads: Some(threads as u32), load_phases, kept, ..r };
    Ok(attributed(cell, cx.machine, loaded, r))
}

/// The repeat's counters, unless `--no-counters`, with perf's files in the disk location
/// under `--hotspots`.
fn probe<'i>(
    instance: &'i dyn Instance,
    storage: &crate::instance::Storage,
    cx: Context,
) -> Option<counters::Probe<'i>> {
    let perf = cx.settings.hotspots.then_some(cx.locations.disk.path.as_path());
    cx.settings.counters.then(|| counters::Probe::open(instance, storage, perf))
}

/// The server's counters over the repeat, read once the clients have gone and what the
/// server owed for them is in; and what perf sampled (`--hotspots`).
fn add_settled_server(
    probe: Option<&mut counters::Probe>,
    before: Option<&crate::engine::counters::Reading>,
    m: &mut Measurement,
) {
    let (Some(p), Some(c)) = (probe, m.counters.as_mut()) else { return };
    if let (Some(after), Some(before)) = (p.server(true), before) {
        p.add_server(c, before, &after);
    }
    // After the server's counters, which reset the unread list this adds to.
    p.add_hotspots(c);
}

/// A measured repeat with what it is owed to: the transactions its server counters
/// cover, others' CPU only where the server is dbrace's child, what its commits survive;
/// its commits added to its data set's.
fn attributed(cell: &Cell, machine: &Machine, loaded: &mut Loaded, mut r: RepeatResult) -> RepeatResult {
    let covered = r.transactions + r.warmup_transactions;
    if let Some(c) = r.counters.as_mut().filter(|c| !c.server.is_empty()) {
        c.server_transactions = Some(covered);
    }
    // A server that is not dbrace's child does its work among the others.
    let own_server = cell.target == Target::Managed && machine.launcher.servers_are_children();
    if let Some(n) = r.noise.as_mut().filter(|_| !own_server) {
        n.others_cpu = None;
    }
    loaded.committed += covered;
    let survives = Some(cell.engine.survives(&cell.profile, &r.settings));
    RepeatResult { survives, ..r }
}

/// A transactor for each of the clients `ids`, each on a connection of its own: them, the
/// seconds connecting took (pgbench's "initial connection time", without the workload's
/// statement preparation that follows), and whether every connection can park on its socket.
fn connect_clients(
    instance: &dyn Instance,
    workload: &mut dyn CellWorkload,
    ids: std::ops::Range<u32>,
    seed: u64,
) -> Result<Connected> {
    let connecting = Instant::now();
    let conns = connect::open(instance, ids.len())?;
    let connect_s = connecting.elapsed().as_secs_f64();
    let evented = conns.iter().all(Connection::evented);
    let clients = ids
        .zip(conns)
        .map(|(i, conn)| workload.client(conn, i, seed.wrapping_add(u64::from(i))))
        .collect::<Result<Vec<_>>>()?;
    Ok(Connected { clients, connect_s, evented })
}

/// A repeat's clients, connected.
struct Connected {
    clients: Vec<Box<dyn Transactor>>,
    connect_s: f64,
    /// Every connection can park on its socket (`--threads` may multiplex them).
    evented: bool,
}

/// The lock, taken without blocking the thread: a fiber holding it may be parked on its
/// socket, and the fiber waiting must let it run.
fn lock_waiting<'m, T>(m: &'m Mutex<T>) -> std::sync::MutexGuard<'m, T> {
    loop {
        match m.try_lock() {
            Ok(w) => return w,
            Err(std::sync::TryLockError::Poisoned(p)) => return p.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => crate::fiber::sleep(Duration::from_millis(1)),
        }
    }
}

/// The measurement and every client's report, or why there are none: an interrupted run,
/// a client that panicked, client 0's thread gone before the measurement ended.
fn gathered(
    measured: Option<Measurement>,
    reports: Vec<std::thread::Result<WorkerReport>>,
) -> Result<(Measurement, Vec<WorkerReport>)> {
    let m = measured.ok_or_else(|| failed!("client 0's worker thread failed before the measurement ended"))?;
    if let Some(sig) = m.interrupted {
        return Err(Error::Interrupted(sig));
    }
    let reports = reports
        .into_iter()
        .collect::<std::result::Result<Vec<WorkerReport>, _>>()
        .map_err(|p| failed!("a client panicked: {}", panic_message(&*p)))?;
    Ok((m, reports))
}

/// Why a repeat with no measured transaction failed, in one line.
fn nothing_measured(t: &Totals, first_error: Option<&str>) -> String {
    let why = first_error.map_or(String::new(), |e| format!("; first error: {e}"));
    let skips = if t.skipped > 0 { format!("{} skipped past --latency-limit, ", t.skipped) } else { String::new() };
    format!("no transaction completed in the measured time ({skips}{} conflicts retried{why})", t.tally.retries)
}

/// What a panic said, when it said it in words.
fn panic_message(p: &(dyn std::any::Any + Send)) -> &str {
    p.downcast_ref::<String>().map(String::as_str).or_else(|| p.downcast_ref::<&str>().copied()).unwrap_or("no message")
}

fn summarize(
    repeat: u32,
    loaded: &mut Loaded,
    mut reports: Vec<WorkerReport>,
    m: Measurement,
    [start_s, connect_s, load_s]: [f64; 3],
    s: &Settings,
    types: &[String],
) -> Result<RepeatResult> {
    let instance = &*loaded.instance;
    let mut t = Totals::of(&reports)?;
    // Counting transactions, the measurement ends with the last one (not at the next
    // coordinator tick); on a clock, at the stop or the last transaction, whichever is later.
    let end = match (s.driving.duration.is_some(), t.last_end) {
        (false, Some(e)) => e,
        (_, e) => e.map_or(m.stop, |e| e.max(m.stop)),
    };
    let measured_time = end.saturating_duration_since(m.start);
    let duration_s = measured_time.as_secs_f64();
    let slices: Vec<_> = reports.iter_mut().map(|r| std::mem::take(&mut r.intervals)).collect();
    let mut intervals = match s.driving.log_interval {
        Some(every) => intervals::merge(slices, every, measured_time)?,
        None => Vec::new(),
    };
    for (i, c) in intervals.iter_mut().zip(m.slices) {
        i.counters = Some(c);
    }
    let first_error = reports.iter().find_map(|r| r.first_error.clone());
    // A kept data set holds what every repeat on it committed.
    let verify = loaded.workload.verify(&mut instance.connect()?, loaded.committed + t.committed)?;
    if t.failure.is_none() && t.measured == 0 {
        t.failure = Some(nothing_measured(&t, first_error.as_deref()));
    }
    let status = match (&t.failure, verify.ok) {
        (Some(_), _) => RepeatStatus::Failed,
        (None, false) => RepeatStatus::VerifyFailed,
        (None, true) => RepeatStatus::Ok,
    };
    Ok(RepeatResult {
        repeat,
        status,
        error: t.failure.or(first_error),
        started_at: String::new(),
        engine_version: instance.version(),
        settings: instance.settings(),
        survives: None,
        start_s,
        connect_s: Some(connect_s),
        threads: None,
        load_s,
        load_phases: Vec::new(),
        transactions: t.measured,
        warmup_transactions: t.committed - t.measured,
        tally: t.tally,
        duration_s,
        tps: if duration_s > 0.0 { t.measured as f64 / duration_s } else { 0.0 },
        latency_ms: Latency::of(&t.hist),
        histogram: encode_histogram(&t.hist),
        timeline: t.timeline,
        client_cpu_s: t.cpu.total.as_secs_f64(),
        client_kernel_cpu_s: t.cpu.system.map(|s| s.as_secs_f64()),
        verify: Some(verify),
        statements: t.statements,
        types: t.types.iter().zip(types).map(|(t, name)| t.record(name)).collect(),
        schedule: s.driving.rate.map(|_| ScheduleStats {
            lag_avg_ms: if t.measured > 0 { t.lag_sum_ns as f64 / t.measured as f64 / 1e6 } else { 0.0 },
            lag_max_ms: t.lag_max_ns as f64 / 1e6,
            skipped: t.skipped,
            late: t.late,
        }),
        intervals,
        measure_started_at: s.driving.start_at.map(|_| humantime::format_rfc3339_micros(m.started).to_string()),
        round: None,
        kept: false,
        noise: m.noise,
        counters: m.counters,
    })
}
