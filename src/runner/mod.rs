//! The measurement core: for one cell and repeat, launch a fresh instance, load, warm
//! up, measure N clients, verify, tear down. It drives `Transactor`s and records time;
//! it knows no engine and no workload.

pub mod cell;
pub mod connect;
pub mod coordinator;
pub mod cpu;
pub mod gauge;
pub mod intervals;
pub mod live;
pub mod matrix;
pub mod precision;
pub mod progress;
pub mod recovery;
pub mod schedule;
pub mod start;
pub mod worker;
pub mod workers;

use crate::engine::{Connection, Launch, Machine};
use crate::error::{Error, Result};
use crate::instance::{Locations, Storage};
use crate::options::shard::Shard;
use crate::results::{Latency, RepeatResult, RepeatStatus, ScheduleStats, encode_histogram, now_rfc3339};
use crate::signals;
use cell::Cell;
use coordinator::{Coordinator, Measurement};
use progress::Progress;
use schedule::Schedule;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};
use worker::{Control, Observe, Recovery, WorkerReport};

/// How every cell is driven.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Measured time per repeat (unless counting transactions).
    pub duration: Option<Duration>,
    /// Measured transactions per client (instead of a duration).
    pub transactions: Option<u64>,
    /// Unmeasured warm-up before each measurement.
    pub warmup: Duration,
    /// Repeats per cell, interleaved across cells (unless `precision` decides).
    pub repeat: u32,
    /// `--precision`: repeat in rounds until every cell is this precise, instead of `repeat`.
    pub precision: Option<precision::Target>,
    /// The confidence level intervals aim at.
    pub confidence: f64,
    /// Base seed for the clients' generators.
    pub seed: u64,
    /// Open loop: transactions per second scheduled over each cell's clients (`--rate`).
    pub rate: Option<f64>,
    /// With a rate: later than this is late, and a slot already this late is skipped.
    pub latency_limit: Option<Duration>,
    /// A line on stderr this often per running cell (`--progress`).
    pub progress: Option<Duration>,
    /// A latency histogram per slice this long of each measured phase (`--log-interval`).
    pub log_interval: Option<Duration>,
    /// `--shard I/N`: this process runs only its share of each cell's clients.
    pub shard: Option<Shard>,
    /// `--start-at`: when the measured phase begins (the warm-up just before it).
    pub start_at: Option<SystemTime>,
    /// How often a transaction that conflicts is tried (`--max-tries`).
    pub tries: recovery::Tries,
    /// `--reconnect`: a client whose connection is lost opens a new one and goes on.
    pub reconnect: bool,
    /// `--threads`: worker threads that share each cell's clients (default: one per core).
    pub threads: Option<u32>,
}

impl Settings {
    /// Client `i`'s share of the rate as its own schedule (pgbench gives each thread
    /// rate/threads; here every client is a thread).
    fn schedule(&self, clients: u32, i: u32, seed: u64) -> Option<Schedule> {
        // Its own stream, apart from the workload's generator of the same client.
        let seed = (seed ^ 0x5eed_0fa2_217a_1500).wrapping_add(u64::from(i));
        self.rate.map(|r| Schedule::new(r / f64::from(clients), self.latency_limit, seed))
    }

    /// What the clients record beyond the measurement.
    fn observe(&self) -> Observe {
        let expected = match (self.log_interval, self.duration) {
            (Some(i), Some(d)) => (d.as_secs_f64() / i.as_secs_f64()).ceil() as usize + 1,
            (Some(_), None) => 64,
            _ => 0,
        };
        Observe { progress: self.progress.is_some(), log_interval: self.log_interval, expected_intervals: expected }
    }
}

/// Launch each distinct engine × profile once before measuring, so a setting the engine
/// refuses is bad input reported in a second, not a failed cell after the whole matrix.
pub fn preflight(cells: &[Cell], machine: &Machine, locations: &Locations) -> Result<()> {
    let mut seen: Vec<String> = Vec::new();
    for c in cells {
        let key = format!("{}/{}", c.engine.name(), c.profile.name);
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let storage = storage(c, locations)?;
        c.engine.launch(&Launch::run(&c.profile, &c.target, &storage, machine)).map(drop).map_err(|e| match e {
            Error::Run(m) if !c.profile.settings.is_empty() => {
                Error::Input(format!("{m}; check the values given with --set"))
            }
            other => other,
        })?;
    }
    Ok(())
}

/// Measure one repeat of one cell. A failure of the run becomes a failed repeat; bad
/// input and interruption are returned as errors that end the whole run.
pub fn run_repeat(
    cell: &Cell,
    machine: &Machine,
    repeat: u32,
    s: &Settings,
    locations: &Locations,
    progress: Progress,
) -> Result<RepeatResult> {
    let started_at = now_rfc3339();
    let r = measure(cell, machine, repeat, s, locations, progress);
    // A failure caused by the signal (a load cut short) is the signal, not a failed cell.
    if let (Err(Error::Run(_)), Some(sig)) = (&r, signals::pending()) {
        return Err(Error::Interrupted(sig));
    }
    match r {
        Err(Error::Run(msg)) => {
            Ok(RepeatResult::failed(repeat, msg, started_at, cell.engine.version(machine).unwrap_or_default()))
        }
        other => other.map(|r| RepeatResult { started_at, ..r }),
    }
}

/// Fresh directories in the cell's locations, if its engine keeps files.
fn storage(cell: &Cell, locations: &Locations) -> Result<Storage> {
    if !cell.engine.needs_data_dir(&cell.profile, &cell.target) {
        return Ok(Storage::default());
    }
    Storage::create(&cell.profile, locations)
}

fn measure(
    cell: &Cell,
    machine: &Machine,
    repeat: u32,
    s: &Settings,
    locations: &Locations,
    progress: Progress,
) -> Result<RepeatResult> {
    let label = format!("{} #{repeat}", cell.id());
    // A shard's clients keep their numbers in the whole cell, so their seeds, schedules
    // and the keys they insert are those one process would give them.
    let mine = s.shard.map_or(0..cell.clients, |sh| sh.clients(cell.clients));
    let bar = progress.bar(&label, s.transactions.map_or(1000, |t| t * mine.len() as u64));
    bar.set_message("loading");
    // Declared first so it is dropped last: connections and the instance go before the files.
    let storage = storage(cell, locations)?;
    let start = Instant::now();
    let profile = cell.launch_profile(mine.len());
    let instance = cell.engine.launch(&Launch::run(&profile, &cell.target, &storage, machine))?;
    let start_s = start.elapsed().as_secs_f64();
    let load_start = Instant::now();
    // Loading has its own connections, closed before clients start: an idle extra
    // connection is not free for every engine (SQLite's file locks, a server's backends).
    let mut loader = crate::workload::Loader::new(&*instance)?;
    let mut prepared = cell.workload.prepare(&mut loader, &cell.options)?;
    let load_phases = loader.finish();
    let load_s = load_start.elapsed().as_secs_f64();
    signals::check()?;

    let seed = s.seed.wrapping_add(u64::from(repeat) << 32);
    let first_id = mine.start;
    // Connecting alone is timed (pgbench's "initial connection time"), not the workload's
    // statement preparation that follows each connection.
    let connecting = Instant::now();
    let conns = connect::open(&*instance, mine.len())?;
    let connect_s = connecting.elapsed().as_secs_f64();
    let evented = conns.iter().all(Connection::evented);
    let clients = mine
        .zip(conns)
        .map(|(i, conn)| prepared.client(conn, i, seed.wrapping_add(u64::from(i))))
        .collect::<Result<Vec<_>>>()?;
    let threads = workers::threads(s.threads, clients.len(), evented);
    let ctl = Control::observed(clients.len(), s.observe());
    let n = cell.clients;
    let mut clients = clients.into_iter().enumerate();
    let (_, first) = clients.next().ok_or_else(|| failed!("a cell needs at least one client"))?;
    let measure_at = match s.start_at {
        Some(at) => Some(start::wait_for(at, s.warmup, &bar)?),
        None => None,
    };
    // A client that reconnects builds its transactor anew, as the ones above were built:
    // rare, so one lock over the repeat's workload is no cost.
    let shared = Mutex::new(&mut *prepared);
    let rebuild = |id: u32, seed: u64| {
        let conn = instance.connect()?;
        // Building a transactor talks to the server: a fiber holding the lock parks, so
        // another fiber of its thread must not block on the lock, only wait its turn.
        let mut workload = loop {
            match shared.try_lock() {
                Ok(w) => break w,
                Err(std::sync::TryLockError::Poisoned(p)) => break p.into_inner(),
                Err(std::sync::TryLockError::WouldBlock) => crate::fiber::sleep(Duration::from_millis(1)),
            }
        };
        workload.client(conn, id, seed)
    };
    let recovery = |id: u32| Recovery {
        tries: s.tries,
        reconnect: s.reconnect.then(|| recovery::Reconnect::new(&rebuild, id, seed.wrapping_add(u64::from(id)))),
    };
    let ctl = &ctl;
    let mut measured = None;
    let reports = {
        let measured = &mut measured;
        // Client 0 runs on this thread and coordinates between its transactions (see
        // coordinator.rs); the phases start before any client does.
        let mut coord = Coordinator::new(ctl, s, &bar, &label, measure_at);
        let (pace, recovery0) = (s.schedule(n, first_id, seed), recovery(first_id));
        let mut loops: Vec<workers::Client> = vec![Box::new(move || {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                worker::run_recovering(first, ctl, 0, s.transactions, Some(&mut coord), pace, recovery0)
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
            loops.push(Box::new(move || worker::run_recovering(tx, ctl, i, s.transactions, None, pace, recovery)));
        }
        workers::drive(loops, threads)
    };
    let m = measured.ok_or_else(|| failed!("client 0's worker thread failed before the measurement ended"))?;
    bar.finish_and_clear();
    if let Some(sig) = m.interrupted {
        return Err(Error::Interrupted(sig));
    }
    let reports = reports
        .into_iter()
        .collect::<std::result::Result<Vec<WorkerReport>, _>>()
        .map_err(|p| failed!("a client panicked: {}", panic_message(&*p)))?;
    let r = summarize(repeat, &*instance, &mut *prepared, reports, m, [start_s, connect_s, load_s], s)?;
    Ok(RepeatResult { threads: Some(threads as u32), load_phases, ..r })
}

/// What a panic said, when it said it in words.
fn panic_message(p: &(dyn std::any::Any + Send)) -> &str {
    p.downcast_ref::<String>().map(String::as_str).or_else(|| p.downcast_ref::<&str>().copied()).unwrap_or("no message")
}

fn summarize(
    repeat: u32,
    instance: &dyn crate::engine::Instance,
    prepared: &mut dyn crate::workload::CellWorkload,
    mut reports: Vec<WorkerReport>,
    m: Measurement,
    [start_s, connect_s, load_s]: [f64; 3],
    s: &Settings,
) -> Result<RepeatResult> {
    let duration_mode = s.duration.is_some();
    let mut hist = crate::results::new_histogram();
    let mut timeline: Vec<u64> = Vec::new();
    let (mut measured, mut committed, mut cpu) = (0, 0, Duration::ZERO);
    let mut tally = crate::results::Tally::default();
    let (mut lag_sum_ns, mut lag_max_ns, mut skipped, mut late) = (0, 0, 0, 0);
    let mut last_end = None;
    let mut failure: Option<String> = None;
    let mut statements = Vec::new();
    for r in &reports {
        crate::results::merge_statements(&mut statements, &r.statements);
        hist.add(&r.hist).map_err(|e| failed!("cannot merge latency histograms: {e:?}"))?;
        measured += r.measured;
        committed += r.committed;
        tally += &r.tally;
        cpu += r.cpu;
        lag_sum_ns += r.lag_sum_ns;
        lag_max_ns = lag_max_ns.max(r.lag_max_ns);
        skipped += r.skipped;
        late += r.late;
        last_end = last_end.max(r.last_end);
        if timeline.len() < r.timeline.len() {
            timeline.resize(r.timeline.len(), 0);
        }
        for (t, n) in timeline.iter_mut().zip(&r.timeline) {
            *t += n;
        }
        if failure.is_none() {
            failure = r.lost.clone();
        }
        if r.gave_up && failure.is_none() {
            failure = r.first_error.as_ref().map(|e| format!("a client gave up after repeated errors: {e}"));
        }
    }
    // Counting transactions, the measurement ends with the last one (not at the next
    // coordinator tick); on a clock, at the stop or the last transaction, whichever is later.
    let end = match (duration_mode, last_end) {
        (false, Some(e)) => e,
        (_, e) => e.map_or(m.stop, |e| e.max(m.stop)),
    };
    let measured_time = end.saturating_duration_since(m.start);
    let duration_s = measured_time.as_secs_f64();
    let slices: Vec<_> = reports.iter_mut().map(|r| std::mem::take(&mut r.intervals)).collect();
    let intervals = match s.log_interval {
        Some(every) => intervals::merge(slices, every, measured_time)?,
        None => Vec::new(),
    };
    let first_error = reports.iter().find_map(|r| r.first_error.clone());
    let verify = prepared.verify(&mut instance.connect()?, committed)?;
    if failure.is_none() && measured == 0 {
        let why = first_error.as_deref().map_or(String::new(), |e| format!("; first error: {e}"));
        let skips = if skipped > 0 { format!("{skipped} skipped past --latency-limit, ") } else { String::new() };
        let retries = tally.retries;
        failure =
            Some(format!("no transaction completed in the measured time ({skips}{retries} conflicts retried{why})"));
    }
    let status = match (&failure, verify.ok) {
        (Some(_), _) => RepeatStatus::Failed,
        (None, false) => RepeatStatus::VerifyFailed,
        (None, true) => RepeatStatus::Ok,
    };
    Ok(RepeatResult {
        repeat,
        status,
        error: failure.or(first_error),
        started_at: String::new(),
        engine_version: instance.version(),
        settings: instance.settings(),
        start_s,
        connect_s: Some(connect_s),
        threads: None,
        load_s,
        load_phases: Vec::new(),
        transactions: measured,
        warmup_transactions: committed - measured,
        tally,
        duration_s,
        tps: if duration_s > 0.0 { measured as f64 / duration_s } else { 0.0 },
        latency_ms: Latency::of(&hist),
        histogram: encode_histogram(&hist),
        timeline,
        client_cpu_s: cpu.as_secs_f64(),
        verify: Some(verify),
        statements,
        schedule: s.rate.map(|_| ScheduleStats {
            lag_avg_ms: if measured > 0 { lag_sum_ns as f64 / measured as f64 / 1e6 } else { 0.0 },
            lag_max_ms: lag_max_ns as f64 / 1e6,
            skipped,
            late,
        }),
        intervals,
        measure_started_at: s.start_at.map(|_| humantime::format_rfc3339_micros(m.started).to_string()),
    })
}
