//! Every fact that differs by operating system, answered in one place: a child that dies
//! with dbrace, the event loop's fine timer and sockets, a thread's and another process's
//! CPU time, a filesystem's kind and whether it is RAM, flushing it, the RAM location,
//! disk counters, users and file owners, signals, the host. The rest of the crate asks
//! these modules and never names an OS; no `cfg` of an OS appears outside this folder.
//! Each OS folder offers the same modules; what Linux and macOS share is in unix/, the
//! values every OS gives in one shape in values.rs, and what a platform does not measure
//! in the without_*.rs stubs. A figure a platform cannot give is `None` ("not available
//! on this platform"), never a zero that would look measured.

#[cfg(not(target_os = "linux"))]
#[path = "without_disk_counters.rs"]
pub mod disk;
pub mod homebrew;
pub mod mach_time;
#[cfg(not(target_os = "linux"))]
#[path = "without_machine_times.rs"]
pub mod machine;
pub mod ram_disk;
pub mod tree;
mod values;
#[cfg(not(target_os = "macos"))]
mod without_ram_disk;

#[cfg(unix)]
mod unix;

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
pub use linux::{disk, host, machine, packages, procs, storage, timer};

#[cfg(target_os = "macos")]
mod macos;
#[cfg(target_os = "macos")]
pub use macos::{host, packages, procs, storage, timer};

#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::{cpu, files, host, packages, process, procs, signal, socket, storage, timer, user};

#[cfg(unix)]
pub use unix::{cpu, files, process, signal, socket, user};

/// What a report says of a figure this platform cannot give.
pub const NOT_AVAILABLE: &str = "not available on this platform";

/// This platform's name, as results record it: `linux`, `macos` or `windows`.
pub const OS: &str = std::env::consts::OS;
