//! macOS: libproc for processes (their CPU in Mach ticks, scaled by the timebase),
//! sysctl for the host, statfs's type names for filesystems; kqueue's exact timeout
//! needs no timer of its own.

pub mod host;
pub mod packages;
pub mod procs;
pub mod ram_disk;
pub mod storage;
pub mod timer;

/// A sysctl's bytes by name.
fn sysctl(name: &str) -> Option<Vec<u8>> {
    let c = std::ffi::CString::new(name).ok()?;
    let mut len: libc::size_t = 0;
    // SAFETY: a null buffer asks for the length; the second call fills a buffer of it.
    if unsafe { libc::sysctlbyname(c.as_ptr(), std::ptr::null_mut(), &mut len, std::ptr::null_mut(), 0) } != 0 {
        return None;
    }
    let mut buf = vec![0u8; len];
    if unsafe { libc::sysctlbyname(c.as_ptr(), buf.as_mut_ptr().cast(), &mut len, std::ptr::null_mut(), 0) } != 0 {
        return None;
    }
    buf.truncate(len);
    Some(buf)
}

/// A C string of a fixed-size field, up to its NUL.
fn c_text(bytes: &[libc::c_char]) -> String {
    let b: Vec<u8> = bytes.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
    String::from_utf8_lossy(&b).into_owned()
}
