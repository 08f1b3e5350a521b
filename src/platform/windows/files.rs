//! Files as Windows has them: no POSIX owners or modes (a file is read-only or not), so
//! giving a file to a user does nothing and private files are the user's profile's own.

use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::path::Path;

/// Nothing to do: files have no POSIX owner here.
pub fn chown(_: &Path, _: u32, _: u32) -> io::Result<()> {
    Ok(())
}

/// Nothing to do: files have no POSIX owner here.
pub fn lchown(_: &Path, _: u32, _: u32) -> io::Result<()> {
    Ok(())
}

/// A symbolic link at `from` pointing to the file or directory `to`.
pub fn symlink(to: &Path, from: &Path) -> io::Result<()> {
    if to.is_dir() { std::os::windows::fs::symlink_dir(to, from) } else { std::os::windows::fs::symlink_file(to, from) }
}

/// Create the directory `path` (its access is what the parent's ACL gives).
pub fn private_dir(path: &Path) -> io::Result<()> {
    std::fs::create_dir(path)
}

/// Open `path` as `options` says (its access is what the parent's ACL gives).
pub fn private_file(path: &Path, options: &mut OpenOptions) -> io::Result<File> {
    options.open(path)
}

/// Make `path` read-only when `mode` lets no one write it, writable otherwise.
pub fn set_mode(path: &Path, mode: u32) -> io::Result<()> {
    let mut p = std::fs::metadata(path)?.permissions();
    p.set_readonly(mode & 0o222 == 0);
    std::fs::set_permissions(path, p)
}

/// A file's permission bits as POSIX would show them: 0o444 read-only, 0o666 otherwise.
pub fn mode(m: &Metadata) -> u32 {
    if m.permissions().readonly() { 0o444 } else { 0o666 }
}

/// No POSIX owner: every file reads as this user's (0).
pub fn owner(_: &Metadata) -> u32 {
    0
}

/// Not told apart on this platform: every file reads as on one device.
pub fn device(_: &Metadata) -> u64 {
    0
}

/// Whether a file may be run: Windows runs any file by its extension's handler.
pub fn executable(m: &Metadata) -> bool {
    m.is_file()
}

/// Whether a command's first word names a file rather than a name to look up on PATH.
pub fn names_a_path(program: &str) -> bool {
    program.contains(['/', '\\', ':'])
}

/// The file names PATH is searched for to run `program`: as given when it has an
/// extension, else with each of PATHEXT's, as the command prompt tries them.
pub fn program_names(program: &str) -> Vec<String> {
    if std::path::Path::new(program).extension().is_some() {
        return vec![program.to_string()];
    }
    let exts = std::env::var("PATHEXT").unwrap_or_else(|_| ".COM;.EXE;.BAT;.CMD".into());
    exts.split(';').filter(|e| !e.is_empty()).map(|e| format!("{program}{e}")).collect()
}
