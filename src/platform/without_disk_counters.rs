//! A platform whose block device counters are not read (macOS's IOKit, Windows' are
//! not): a cell records none, rather than zeros.

use crate::counters::Device;
use std::path::Path;

/// A block device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceId;

/// Not available on this platform.
pub fn under(_: &Path) -> Option<DeviceId> {
    None
}

/// Not available on this platform.
pub fn sample(_: DeviceId) -> Option<Device> {
    None
}
