//! The files a command writes (`sweep --out`, `--plot`, `run --trace`): never one the command
//! reads, an existing file only with `--force`, and every error — of a write, of the flush, of
//! the data reaching the disk — reported with the file's name (issue 39).
//!
//! A device or a pipe (`/dev/stdout`, `/dev/null`, a FIFO) is written without `--force`: writing
//! to it replaces nothing.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::Path;

/// One output file of a command.
#[derive(Clone, Copy)]
pub struct Target<'a> {
    /// The flag naming it, for messages (`--out`).
    pub flag: &'a str,
    pub path: &'a str,
    /// `--force`: an existing file may be replaced.
    pub force: bool,
    /// The files the command reads (scenario files, parts): never written.
    pub inputs: &'a [&'a str],
}

impl Target<'_> {
    /// What can be known before any work: the folder exists; the file is no input, no folder,
    /// and not an existing file unless `--force`.
    pub fn check(&self) -> Result<(), String> {
        let (flag, path) = (self.flag, self.path);
        crate::check_folder(flag, path)?;
        let p = Path::new(path);
        let Ok(meta) = std::fs::metadata(p) else {
            return Ok(()); // nothing there yet
        };
        if let Some(input) = self.inputs.iter().find(|i| same_file(p, Path::new(i))) {
            return Err(format!(
                "{flag} {path}: that is {input}, which this command reads; it is never \
                 overwritten (not even with --force): name another file"
            ));
        }
        if meta.is_dir() {
            return Err(format!("{flag} {path}: that is a folder; name a file"));
        }
        if meta.is_file() && !self.force {
            return Err(format!(
                "{flag} {path}: the file exists; add --force to replace it, or name another"
            ));
        }
        Ok(())
    }

    /// Open the file for writing, checked again (it may have appeared since [`Target::check`]):
    /// a new file is created only if there is none (`create_new`), an existing one truncated
    /// only with `--force`.
    pub fn create(&self) -> Result<Writer, String> {
        self.check()?;
        let meta = std::fs::metadata(self.path).ok();
        let regular = meta.as_ref().is_none_or(|m| m.is_file());
        let mut o = OpenOptions::new();
        o.write(true);
        match &meta {
            None => o.create_new(true),
            Some(m) if m.is_file() => o.truncate(true),
            Some(_) => &mut o, // a device or a pipe
        };
        let file = o.open(self.path).map_err(|e| self.error(e))?;
        Ok(Writer {
            out: BufWriter::new(file),
            regular,
            flag: self.flag.to_string(),
            path: self.path.to_string(),
        })
    }

    /// Write `bytes` as the whole file.
    pub fn write(&self, bytes: &[u8]) -> Result<(), String> {
        let mut w = self.create()?;
        w.write_all(bytes).map_err(|e| w.error(e))?;
        w.finish()
    }

    fn error(&self, e: std::io::Error) -> String {
        format!("{} {}: cannot write: {e}", self.flag, self.path)
    }
}

/// An open output file. [`Writer::finish`] reports what dropping it would swallow: the last
/// buffered bytes' write, and (for a regular file) errors the system reports only when the
/// data reaches the disk (`fsync`: a full disk with delayed allocation, a network file system).
pub struct Writer {
    out: BufWriter<File>,
    regular: bool,
    flag: String,
    path: String,
}

impl Writer {
    /// An error of this file, with its name.
    pub fn error(&self, e: std::io::Error) -> String {
        format!("{} {}: cannot write: {e}", self.flag, self.path)
    }

    pub fn finish(self) -> Result<(), String> {
        let name = format!("{} {}", self.flag, self.path);
        let file = self
            .out
            .into_inner()
            .map_err(|e| format!("{name}: cannot write: {}", e.error()))?;
        if self.regular {
            file.sync_all()
                .map_err(|e| format!("{name}: cannot write: {e}"))?;
        }
        Ok(())
    }
}

impl Write for Writer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.out.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// Whether `a` and `b` are one file (hard links and symbolic links included).
fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (std::fs::metadata(a), std::fs::metadata(b)) {
            (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(x), Ok(y)) if x == y
        )
    }
}
