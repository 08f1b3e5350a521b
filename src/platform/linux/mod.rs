//! Linux: /proc and /sys for processes, the machine and its disks; statfs's magic
//! numbers for a filesystem's kind; tmpfs at /dev/shm for RAM; timerfd for fine timers.

pub mod disk;
pub mod host;
pub mod machine;
pub mod packages;
pub mod procs;
pub mod storage;
pub mod timer;
