//! Clients spread over worker threads (`--threads`, pgbench's `-j`). A worker with one
//! client runs its loop as a thread does; a worker with several runs each client's loop as
//! a fiber on its event loop (`crate::fiber`), so 50 clients on a 2-core machine wait for
//! their replies in epoll instead of 50 threads taking turns at the scheduler. Connections
//! that cannot park a fiber (SQLite, the memory store, mysql_async) get a thread each.

use crate::fiber;
use crate::runner::cpu::ThreadCpu;
use crate::runner::worker::WorkerReport;
use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::thread::Result as Joined;

/// One client's loop, ready to run on a thread or as a fiber.
pub type Client<'a> = Box<dyn FnOnce() -> WorkerReport + Send + 'a>;

/// How many worker threads drive `clients` clients: `asked` (`--threads`), else one per
/// core, never more than there are clients; a thread each when the connections cannot
/// share one (`evented` false).
pub fn threads(asked: Option<u32>, clients: usize, evented: bool) -> usize {
    if !evented {
        return clients;
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    asked.map_or(cores, |t| t as usize).clamp(1, clients.max(1))
}

/// Run `clients` on `threads` workers, the first on the calling thread (client 0, which
/// coordinates, among its clients); each client's report, or its panic, in client order.
pub fn drive(clients: Vec<Client<'_>>, threads: usize) -> Vec<Joined<WorkerReport>> {
    let mut groups = split(clients, threads).into_iter();
    let first = groups.next().unwrap_or_default();
    std::thread::scope(|scope| {
        let handles: Vec<_> = groups.map(|g| (g.len(), scope.spawn(move || worker(g)))).collect();
        let mut out = worker(first);
        for (n, h) in handles {
            out.extend(h.join().unwrap_or_else(|p| lost(p, n)));
        }
        out
    })
}

/// `clients` in `threads` consecutive groups whose sizes differ by one at most.
fn split<T>(clients: Vec<T>, threads: usize) -> Vec<Vec<T>> {
    let threads = threads.clamp(1, clients.len().max(1));
    let (base, extra) = (clients.len() / threads, clients.len() % threads);
    let mut rest = clients.into_iter();
    (0..threads).map(|g| rest.by_ref().take(base + usize::from(g < extra)).collect()).collect()
}

/// One worker thread's clients: the loop itself for one, fibers for several, or, when
/// the event loop cannot start (no descriptor or memory left for it), a thread each.
fn worker(group: Vec<Client<'_>>) -> Vec<Joined<WorkerReport>> {
    let n = group.len();
    if n <= 1 {
        return threads_each(group);
    }
    match catch_unwind(AssertUnwindSafe(|| fiber::event_loop::run(group))) {
        Ok(Ok(mut out)) => {
            share_cpu(&mut out);
            out
        }
        Ok(Err(not_started)) => threads_each(not_started.tasks),
        Err(p) => lost(p, n),
    }
}

/// Each client on a thread of its own, the first on this one.
fn threads_each(group: Vec<Client<'_>>) -> Vec<Joined<WorkerReport>> {
    let mut group = group.into_iter();
    let first = group.next();
    std::thread::scope(|scope| {
        let handles: Vec<_> = group.map(|c| scope.spawn(c)).collect();
        let mut out: Vec<_> = first.into_iter().map(|c| catch_unwind(AssertUnwindSafe(c))).collect();
        out.extend(handles.into_iter().map(|h| h.join()));
        out
    })
}

/// The `n` clients of a worker that panicked outside their loops: its panic, once.
fn lost(p: Box<dyn Any + Send>, n: usize) -> Vec<Joined<WorkerReport>> {
    let gone = || Box::new("its worker thread panicked".to_string()) as Box<dyn Any + Send>;
    std::iter::once(Err(p)).chain((1..n).map(|_| Err(gone()))).collect()
}

/// Clients that shared a thread each measured the thread's CPU over their own measured
/// time, which is nearly the same span: the thread's CPU is the largest of them, once.
fn share_cpu(out: &mut [Joined<WorkerReport>]) {
    let most = out.iter().flatten().map(|r| r.cpu).max_by_key(|c| c.total).unwrap_or(ThreadCpu::ZERO);
    let mut first = true;
    for r in out.iter_mut().flatten() {
        r.cpu = if std::mem::take(&mut first) { most } else { ThreadCpu::ZERO };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_are_consecutive_and_even() {
        let sizes = |n: usize, t: usize| split((0..n).collect(), t).iter().map(Vec::len).collect::<Vec<_>>();
        assert_eq!(sizes(50, 2), [25, 25]);
        assert_eq!(sizes(7, 3), [3, 2, 2]);
        assert_eq!(sizes(2, 8), [1, 1]);
        assert_eq!(split((0..5).collect(), 2), [vec![0, 1, 2], vec![3, 4]]);
    }

    #[test]
    fn threads_default_to_the_cores_and_never_exceed_the_clients() {
        assert_eq!(threads(Some(4), 2, true), 2);
        assert_eq!(threads(Some(3), 64, true), 3);
        assert_eq!(threads(Some(3), 64, false), 64);
        let cores = std::thread::available_parallelism().unwrap().get();
        assert_eq!(threads(None, 500, true), cores);
        assert_eq!(threads(None, 1, true), 1);
    }
}
