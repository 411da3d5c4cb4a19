//! Files that are whole or absent: written under a temporary name in the same folder, synced, and
//! renamed over the final name only when complete, so that an interrupted run (even `kill -9`)
//! leaves the previous file or the new one, never a torn one.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// A file written under a temporary name (`.NAME.PID.tmp` beside it) and renamed into place by
/// [`AtomicFile::commit`]; dropped uncommitted, it removes its temporary file. Checkpoints and the
/// command line's output files are both written through it.
#[derive(Debug)]
pub struct AtomicFile {
    temp: PathBuf,
    path: PathBuf,
    file: Option<BufWriter<File>>,
}

impl AtomicFile {
    /// Creates the temporary file for `path`, in the same folder (so that the rename is atomic).
    ///
    /// # Errors
    /// Whatever creating the temporary file gives (a missing or read-only folder, for example).
    pub fn create(path: &Path) -> std::io::Result<AtomicFile> {
        let name = path.file_name().map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
        let temp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
        let file = File::create(&temp)?;
        Ok(AtomicFile { temp, path: path.to_path_buf(), file: Some(BufWriter::new(file)) })
    }

    /// The final path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flushes and syncs the file, renames it over the final path, and syncs the folder, so that the
    /// rename survives a crash.
    ///
    /// # Errors
    /// Any I/O error on the way; the temporary file is then removed.
    pub fn commit(mut self) -> std::io::Result<()> {
        let file = self.file.take().expect("committed once");
        let result = (|| {
            let file = file.into_inner().map_err(|e| e.into_error())?;
            file.sync_all()?;
            std::fs::rename(&self.temp, &self.path)?;
            if let Some(folder) = self.path.parent().filter(|p| !p.as_os_str().is_empty()) {
                File::open(folder)?.sync_all()?;
            }
            Ok(())
        })();
        if result.is_err() {
            let _ = std::fs::remove_file(&self.temp);
        }
        result
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.as_mut().expect("not written after commit").write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.as_mut().map_or(Ok(()), |f| f.flush())
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.file.is_some() {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

/// Writes `bytes` to `path` through an [`AtomicFile`].
///
/// # Errors
/// As [`AtomicFile::create`] and [`AtomicFile::commit`].
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = AtomicFile::create(path)?;
    file.write_all(bytes)?;
    file.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_appears_whole_or_not_at_all() {
        let dir = std::env::temp_dir().join(format!("fibtree-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("out.txt");
        std::fs::write(&path, "old").unwrap();
        {
            let mut file = AtomicFile::create(&path).unwrap();
            file.write_all(b"new but unfinished").unwrap();
            assert_eq!(std::fs::read_to_string(&path).unwrap(), "old", "not yet committed");
        } // dropped: the temporary file goes, the old file stays
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        write_atomically(&path, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "no temporary file left");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
