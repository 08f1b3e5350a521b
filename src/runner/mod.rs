//! The measurement core: for one cell and repeat, launch a fresh instance, load, warm
//! up, measure N clients, verify, tear down. It drives `Transactor`s and records time;
//! it knows no engine and no workload.

pub mod coordinator;
pub mod cpu;
pub mod matrix;
pub mod progress;
pub mod rng;
pub mod worker;

use crate::error::{Error, Result};
use crate::instance::{DataDir, Locations};
use crate::plan::Cell;
use crate::results::{Latency, RepeatResult, encode_histogram, now_rfc3339};
use crate::signals;
use crate::workload::WorkloadOptions;
use coordinator::{Coordinator, Measurement};
use hdrhistogram::Histogram;
use progress::Progress;
use std::time::{Duration, Instant};
use worker::{Control, WorkerReport};

/// How every cell is driven.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Measured time per repeat (unless counting transactions).
    pub duration: Option<Duration>,
    /// Measured transactions per client (instead of a duration).
    pub transactions: Option<u64>,
    /// Unmeasured warm-up before each measurement.
    pub warmup: Duration,
    /// Repeats per cell, interleaved across cells.
    pub repeat: u32,
    /// Workload options (scale).
    pub workload: WorkloadOptions,
    /// Base seed for the clients' generators.
    pub seed: u64,
}

/// Measure one repeat of one cell. A failure of the run becomes a failed repeat; bad
/// input and interruption are returned as errors that end the whole run.
pub fn run_repeat(
    cell: &Cell,
    repeat: u32,
    s: &Settings,
    locations: &Locations,
    progress: Progress,
) -> Result<RepeatResult> {
    let started_at = now_rfc3339();
    match measure(cell, repeat, s, locations, progress) {
        Err(Error::Run(msg)) => Ok(RepeatResult {
            repeat,
            status: "failed".into(),
            error: Some(msg),
            started_at,
            engine_version: cell.engine.version().unwrap_or_default(),
            settings: Default::default(),
            load_s: 0.0,
            transactions: 0,
            warmup_transactions: 0,
            errors: 0,
            retries: 0,
            duration_s: 0.0,
            tps: 0.0,
            latency_ms: Latency::default(),
            histogram: String::new(),
            timeline: Vec::new(),
            client_cpu_s: 0.0,
            verify: None,
        }),
        other => other.map(|r| RepeatResult { started_at, ..r }),
    }
}

fn measure(cell: &Cell, repeat: u32, s: &Settings, locations: &Locations, progress: Progress) -> Result<RepeatResult> {
    let label = format!("{} #{repeat}", cell.id());
    let bar = progress.bar(&label, s.transactions.map_or(1000, |t| t * u64::from(cell.clients)));
    bar.set_message("loading");
    // Declared first so it is dropped last: connections and the instance go before the files.
    let dir = match cell.engine.needs_data_dir(&cell.profile) {
        true => Some(DataDir::create(&locations.get(cell.profile.location).path)?),
        false => None,
    };
    let instance = cell.engine.launch(&cell.profile, dir.as_ref())?;
    let load_start = Instant::now();
    // Loading has its own connection, closed before clients start: an idle extra
    // connection is not free for every engine (SQLite's file locks, a server's backends).
    cell.workload.prepare(&mut instance.connect()?, &s.workload)?;
    let load_s = load_start.elapsed().as_secs_f64();
    signals::check()?;

    let seed = s.seed.wrapping_add(u64::from(repeat) << 32);
    let clients = (0..cell.clients)
        .map(|i| cell.workload.client(instance.connect()?, i, seed.wrapping_add(u64::from(i)), &s.workload))
        .collect::<Result<Vec<_>>>()?;
    let ctl = Control::new(clients.len());
    let mut clients = clients.into_iter();
    let first = clients.next().ok_or_else(|| failed!("a cell needs at least one client"))?;
    let (reports, m) = std::thread::scope(|scope| {
        let ctl = &ctl;
        let handles: Vec<_> = clients
            .enumerate()
            .map(|(i, tx)| scope.spawn(move || worker::run(tx, ctl, i + 1, s.transactions, None)))
            .collect();
        // Client 0 runs here and coordinates between its transactions (see coordinator.rs).
        let mut coord = Coordinator::new(ctl, s, &bar);
        let r0 = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            worker::run(first, ctl, 0, s.transactions, Some(&mut coord))
        }));
        if r0.is_err() {
            coord.abort();
        }
        let m = coord.finish();
        let mut reports = vec![r0];
        reports.extend(handles.into_iter().map(|h| h.join()));
        (reports, m)
    });
    bar.finish_and_clear();
    if let Some(sig) = m.interrupted {
        return Err(Error::Interrupted(sig));
    }
    let reports = reports
        .into_iter()
        .collect::<std::result::Result<Vec<WorkerReport>, _>>()
        .map_err(|_| failed!("a client thread panicked"))?;
    summarize(cell, repeat, &*instance, reports, m, load_s, &s.workload)
}

#[allow(clippy::too_many_arguments)]
fn summarize(
    cell: &Cell,
    repeat: u32,
    instance: &dyn crate::engine::Instance,
    reports: Vec<WorkerReport>,
    m: Measurement,
    load_s: f64,
    opts: &WorkloadOptions,
) -> Result<RepeatResult> {
    let mut hist = Histogram::<u64>::new_with_bounds(1, 3_600_000_000_000, 3).expect("valid histogram bounds");
    let (mut measured, mut committed, mut errors, mut retries, mut cpu) = (0, 0, 0, 0, Duration::ZERO);
    let mut end = m.stop;
    let mut gave_up = None;
    for r in &reports {
        hist.add(&r.hist).map_err(|e| failed!("cannot merge latency histograms: {e:?}"))?;
        measured += r.measured;
        committed += r.committed;
        errors += r.errors;
        retries += r.retries;
        cpu += r.cpu;
        end = end.max(r.last_end.unwrap_or(end));
        if r.gave_up && gave_up.is_none() {
            gave_up = r.first_error.clone();
        }
    }
    let duration_s = (end - m.start).as_secs_f64();
    let first_error = reports.iter().find_map(|r| r.first_error.clone());
    let verify = cell.workload.verify(&mut instance.connect()?, committed, opts)?;
    let status = match (&gave_up, verify.ok) {
        (Some(_), _) => "failed",
        (None, false) => "verify-failed",
        (None, true) => "ok",
    };
    Ok(RepeatResult {
        repeat,
        status: status.into(),
        error: gave_up.map(|e| format!("a client gave up after repeated errors: {e}")).or(first_error),
        started_at: String::new(),
        engine_version: instance.version(),
        settings: instance.settings(),
        load_s,
        transactions: measured,
        warmup_transactions: committed - measured,
        errors,
        retries,
        duration_s,
        tps: if duration_s > 0.0 { measured as f64 / duration_s } else { 0.0 },
        latency_ms: Latency::of(&hist),
        histogram: encode_histogram(&hist),
        timeline: m.timeline,
        client_cpu_s: cpu.as_secs_f64(),
        verify: Some(verify),
    })
}
