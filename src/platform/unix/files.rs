//! Files as POSIX has them: owners, modes, links, the device a file is on.

use std::fs::{DirBuilder, File, Metadata, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Give `path` to the user `uid` and group `gid`.
pub fn chown(path: &Path, uid: u32, gid: u32) -> io::Result<()> {
    std::os::unix::fs::chown(path, Some(uid), Some(gid))
}

/// Give the link `path` itself (not what it points at) to `uid` and `gid`.
pub fn lchown(path: &Path, uid: u32, gid: u32) -> io::Result<()> {
    std::os::unix::fs::lchown(path, Some(uid), Some(gid))
}

/// A symbolic link at `from` pointing to `to`.
pub fn symlink(to: &Path, from: &Path) -> io::Result<()> {
    std::os::unix::fs::symlink(to, from)
}

/// Create the directory `path`, open to its owner alone (0700).
pub fn private_dir(path: &Path) -> io::Result<()> {
    DirBuilder::new().mode(0o700).create(path)
}

/// Open `path` for writing as `options` says; a file it creates is its owner's alone (0600).
pub fn private_file(path: &Path, options: &mut OpenOptions) -> io::Result<File> {
    options.mode(0o600).open(path)
}

/// Set `path`'s permission bits.
pub fn set_mode(path: &Path, mode: u32) -> io::Result<()> {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

/// A file's permission bits (0o777 and above).
pub fn mode(m: &Metadata) -> u32 {
    m.permissions().mode()
}

/// The user id owning a file.
pub fn owner(m: &Metadata) -> u32 {
    m.uid()
}

/// The device a file is on, to tell filesystems apart.
pub fn device(m: &Metadata) -> u64 {
    m.dev()
}

/// Whether some user may run the file.
pub fn executable(m: &Metadata) -> bool {
    m.permissions().mode() & 0o111 != 0
}

/// Whether a command's first word names a file rather than a name to look up on PATH.
pub fn names_a_path(program: &str) -> bool {
    program.contains('/')
}

/// The file names PATH is searched for to run `program`: the name itself.
pub fn program_names(program: &str) -> Vec<String> {
    vec![program.to_string()]
}
