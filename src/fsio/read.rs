//! The one bounded reader: regular files only, opened without waiting, a size limit.

use super::{File, FileTypeExt, Links, OpenOptions, OpenOptionsExt, Read, ReadError, Utf8Path, fs};

/// What `kind` is, in words, when it is not a regular file nor a folder.
pub fn unusual_kind(kind: fs::FileType) -> Option<&'static str> {
    if kind.is_fifo() {
        Some("a FIFO")
    } else if kind.is_socket() {
        Some("a socket")
    } else if kind.is_char_device() || kind.is_block_device() {
        Some("a device")
    } else if kind.is_symlink() {
        Some("a symlink")
    } else {
        None
    }
}

/// Open `path` for reading when it is a regular file (see the module docs):
/// the file and what `fstat` says of it.
pub fn open_regular(
    path: &Utf8Path,
    links: Links,
) -> std::result::Result<(File, fs::Metadata), ReadError> {
    if path.as_str().is_empty() {
        return Err(ReadError::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "the path is empty",
        )));
    }
    let mut flags = libc::O_NONBLOCK;
    if links == Links::Refuse {
        flags |= libc::O_NOFOLLOW;
    }
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(flags)
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(libc::ELOOP) && links == Links::Refuse {
                ReadError::Link
            } else {
                ReadError::Io(e)
            }
        })?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    let kind = meta.file_type();
    if kind.is_dir() {
        return Err(ReadError::Folder);
    }
    if let Some(kind) = unusual_kind(kind) {
        return Err(ReadError::NotRegular(kind));
    }
    Ok((file, meta))
}

/// The bytes of the regular file at `path`, at most `limit` of them.
pub fn read_regular(
    path: &Utf8Path,
    links: Links,
    limit: u64,
) -> std::result::Result<Vec<u8>, ReadError> {
    let (file, meta) = open_regular(path, links)?;
    if meta.len() > limit {
        return Err(ReadError::TooLarge {
            len: meta.len(),
            limit,
        });
    }
    let bytes = read_to_limit(file, meta.len(), limit).map_err(ReadError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge {
            len: bytes.len() as u64,
            limit,
        });
    }
    Ok(bytes)
}

/// The bytes of `file`, whose `fstat` said `len`, up to `limit + 1` of them.
/// The first read asks for one byte more than `len`: when it brings exactly
/// `len`, the file ended where `fstat` said and no second read is made (one
/// system call less per file, which `check` pays for each of a suite's
/// files); otherwise reading goes on to the end or the limit.
fn read_to_limit(mut file: File, len: u64, limit: u64) -> std::io::Result<Vec<u8>> {
    let first = len.min(limit).saturating_add(1);
    let mut bytes = vec![0; first as usize];
    let got = loop {
        match file.read(&mut bytes) {
            Ok(n) => break n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    };
    bytes.truncate(got);
    if got as u64 != len {
        file.take(limit + 1 - got as u64).read_to_end(&mut bytes)?;
    }
    Ok(bytes)
}

/// [`read_regular`] following a symlink, as an I/O error for the caller to word.
pub fn read(path: &Utf8Path, limit: u64) -> std::io::Result<Vec<u8>> {
    Ok(read_regular(path, Links::Follow, limit)?)
}

/// [`read`] of UTF-8 text.
pub fn read_text(path: &Utf8Path, limit: u64) -> std::io::Result<String> {
    String::from_utf8(read(path, limit)?).map_err(|_| ReadError::NotUtf8.into())
}
