//! The columns the terminal and Markdown tables add after their own (`--columns`): what
//! bounds each cell, and its costs per transaction.

use super::{Row, sig3};

/// A column after the table's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Column {
    /// What bounds the cell: storage, server CPU, client, disk reads or round trips
    Bound,
    /// The server's fsyncs per transaction
    Fsyncs,
    /// Flushes of the data location's disk per transaction (anyone's)
    Flushes,
    /// Bytes of write-ahead, redo or append-only log per transaction
    Log,
    /// Full-page images in the log per transaction (PostgreSQL)
    Fpi,
    /// Bytes written to the data location's disk per transaction (anyone's)
    Disk,
    /// The server's CPU per transaction, microseconds
    ServerCpu,
    /// The kernel's part of the server's CPU per transaction, microseconds
    Kernel,
    /// Microseconds per transaction the server's threads waited for storage (delay
    /// accounting: `sysctl kernel.task_delayacct=1`)
    IoWait,
    /// The clients' CPU per transaction, microseconds
    ClientCpu,
    /// Microseconds per transaction the server's and clients' threads waited for a CPU
    CpuWait,
    /// Share of page requests the server's cache answered
    Hit,
    /// Pages read into the server's cache per transaction
    Reads,
    /// Every column above
    All,
    /// No column beyond the table's own
    None,
}

/// The columns every `All` stands for.
const EVERY: [Column; 13] = [
    Column::Bound,
    Column::Fsyncs,
    Column::Flushes,
    Column::Log,
    Column::Fpi,
    Column::Disk,
    Column::ServerCpu,
    Column::Kernel,
    Column::IoWait,
    Column::ClientCpu,
    Column::CpuWait,
    Column::Hit,
    Column::Reads,
];

/// The columns `asked` names, in the order given, each once; none when no row has
/// counters (a run with --no-counters, a file from before).
pub fn chosen(asked: &[Column], rows: &[Row]) -> Vec<Column> {
    if rows.iter().all(|r| r.cost.is_none()) {
        return Vec::new();
    }
    let mut out: Vec<Column> = Vec::new();
    for c in asked.iter().flat_map(|c| if *c == Column::All { EVERY.to_vec() } else { vec![*c] }) {
        if c != Column::None && !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

impl Column {
    /// Its header.
    pub fn header(self) -> &'static str {
        match self {
            Column::Bound => "bound",
            Column::Fsyncs => "fsyncs/tx",
            Column::Flushes => "flushes/tx",
            Column::Log => "log B/tx",
            Column::Fpi => "FPI/tx",
            Column::Disk => "disk B/tx",
            Column::ServerCpu => "server µs/tx",
            Column::Kernel => "kernel µs/tx",
            Column::IoWait => "I/O wait µs/tx",
            Column::ClientCpu => "client µs/tx",
            Column::CpuWait => "CPU wait µs/tx",
            Column::Hit => "cache hit",
            Column::Reads => "reads/tx",
            Column::All | Column::None => "",
        }
    }

    /// Its value for `r`; "-" where the cell has none.
    pub fn value(self, r: &Row) -> String {
        let Some(c) = &r.cost else { return "-".into() };
        let n = |v: Option<f64>| v.map_or("-".to_string(), sig3);
        match self {
            Column::Bound => match &r.bound {
                Some(_) if r.unexplained() => "unexplained".into(),
                Some(b) => b.said(),
                None => "-".into(),
            },
            Column::Fsyncs => n(c.fsyncs),
            Column::Flushes => n(c.flushes),
            Column::Log => n(c.log_bytes),
            Column::Fpi => n(c.full_pages),
            Column::Disk => n(c.disk_write_bytes),
            Column::ServerCpu => n(c.server_cpu_us),
            Column::Kernel => n(c.server_kernel_cpu_us),
            Column::IoWait => n(c.io_wait_us),
            Column::ClientCpu => n(Some(c.client_cpu_us)),
            Column::CpuWait => n(c.cpu_wait_us),
            Column::Hit => c.cache_hit_ratio.map_or("-".into(), |h| format!("{:.1}%", h * 100.0)),
            Column::Reads => n(c.cache_misses),
            Column::All | Column::None => String::new(),
        }
    }
}
