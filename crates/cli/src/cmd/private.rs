//! Files that may hold secrets (a recorded trace, a report) are created readable and writable
//! by their owner only (mode 0600), and an existing regular file is narrowed to that mode too.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;

/// Creates (or truncates) `path` for writing, readable by its owner only.
pub fn create(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let file = options.open(path)?;
    // The mode only applies to a file the open creates; one that was there keeps its own,
    // unless it is narrowed. Not a device or a pipe (`--record /dev/stdout`): those are not
    // ours to change.
    #[cfg(unix)]
    if file.metadata()?.is_file() {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    Ok(file)
}

/// Writes `contents` to `path`, created as by [`create`].
pub fn write(path: &Path, contents: impl AsRef<[u8]>) -> io::Result<()> {
    create(path)?.write_all(contents.as_ref())
}
