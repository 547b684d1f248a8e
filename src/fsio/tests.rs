use super::{
    Links, OpenOptions, Pinned, ReadError, Staged, Utf8Path, append, check_writable,
    check_writable_as, fs, read, read_regular, read_text, write_atomically, write_confined,
};
use std::io::Read;
use std::os::unix::fs::FileTypeExt;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};

fn names(dir: &Utf8Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    v.sort();
    v
}

#[test]
fn atomic_write_replaces_and_leaves_no_temp() {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8Path::from_path(dir.path()).unwrap();
    let path = root.join("r.json");
    write_atomically(&path, b"one").unwrap();
    write_atomically(&path, b"two").unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), "two");
    assert_eq!(names(root), vec!["r.json"]);
    assert!(write_atomically(&root.join("missing/r.json"), b"x").is_err());
    assert!(write_atomically(root, b"x").is_err());
    assert!(write_atomically(Utf8Path::new(""), b"x").is_err());
}

#[test]
fn a_symlink_is_written_at_its_target_and_stays_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8Path::from_path(dir.path()).unwrap();
    fs::create_dir(root.join("real")).unwrap();
    fs::write(root.join("real/b.json"), "old").unwrap();
    std::os::unix::fs::symlink("real/b.json", root.join("link.json")).unwrap();
    write_atomically(&root.join("link.json"), b"new").unwrap();
    assert!(
        fs::symlink_metadata(root.join("link.json"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(fs::read_to_string(root.join("real/b.json")).unwrap(), "new");
    assert_eq!(names(&root.join("real")), vec!["b.json"]);
}

#[test]
fn a_device_is_written_through_never_replaced() {
    write_atomically(Utf8Path::new("/dev/null"), b"x").unwrap();
    let meta = fs::metadata("/dev/null").unwrap();
    assert!(meta.file_type().is_char_device());
    check_writable(Utf8Path::new("/dev/null")).unwrap();
}

#[test]
fn a_dropped_stage_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8Path::from_path(dir.path()).unwrap();
    let staged = Staged::write(&root.join("x"), b"x").unwrap();
    drop(staged);
    assert!(names(root).is_empty());
}

#[test]
fn writable_checks_refuse_what_cannot_be_written() {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8Path::from_path(dir.path()).unwrap();
    check_writable(&root.join("new.json")).unwrap();
    assert!(check_writable(root).is_err());
    assert!(check_writable(&root.join("missing/x.json")).is_err());
    assert!(check_writable(Utf8Path::new("")).is_err());
}

#[test]
fn a_replaced_file_keeps_its_mode() {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8Path::from_path(dir.path()).unwrap();
    let path = root.join("m");
    fs::write(&path, "a").unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
    write_atomically(&path, b"b").unwrap();
    assert_eq!(
        fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o600
    );
}

fn mkfifo(path: &Utf8Path) {
    let c = std::ffi::CString::new(path.as_str()).unwrap();
    // SAFETY: mkfifo(3) on a NUL-terminated path we own.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

#[test]
fn only_a_regular_file_of_bounded_size_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8Path::from_path(dir.path()).unwrap();
    fs::write(root.join("f"), "12345").unwrap();
    assert_eq!(read(&root.join("f"), 5).unwrap(), b"12345");
    assert!(matches!(
        read_regular(&root.join("f"), Links::Follow, 4),
        Err(ReadError::TooLarge { len: 5, limit: 4 })
    ));
    // A FIFO nobody writes: refused at once, never waited on.
    mkfifo(&root.join("pipe"));
    let err = read(&root.join("pipe"), 10).unwrap_err();
    assert!(err.to_string().contains("a FIFO"), "{err}");
    // A device that never ends.
    assert!(matches!(
        read_regular(Utf8Path::new("/dev/zero"), Links::Follow, 10),
        Err(ReadError::NotRegular("a device"))
    ));
    assert!(matches!(
        read_regular(root, Links::Follow, 10),
        Err(ReadError::Folder)
    ));
    std::os::unix::fs::symlink(root.join("f"), root.join("link")).unwrap();
    assert_eq!(read(&root.join("link"), 5).unwrap(), b"12345");
    assert!(matches!(
        read_regular(&root.join("link"), Links::Refuse, 5),
        Err(ReadError::Link)
    ));
    assert!(read(Utf8Path::new(""), 5).is_err());
    fs::write(root.join("bin"), [0xff, 0xfe]).unwrap();
    assert!(read_text(&root.join("bin"), 5).is_err());
}

/// A file is read whole whether or not it holds what `fstat` said: empty,
/// exactly its length, or a file the kernel says is empty and is not.
#[test]
fn a_file_is_read_whole_whatever_its_stated_length() {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8Path::from_path(dir.path()).unwrap();
    fs::write(root.join("empty"), "").unwrap();
    assert!(read(&root.join("empty"), 5).unwrap().is_empty());
    let text = "x".repeat(70_000);
    fs::write(root.join("long"), &text).unwrap();
    assert_eq!(read_text(&root.join("long"), 70_000).unwrap(), text);
    let stat = Utf8Path::new("/proc/self/stat");
    assert_eq!(fs::metadata(stat).unwrap().len(), 0);
    let read = read_text(stat, 1 << 20).unwrap();
    assert!(read.ends_with('\n') && read.len() > 20, "{read:?}");
    assert!(matches!(
        read_regular(stat, Links::Follow, 10),
        Err(ReadError::TooLarge { len: 11, limit: 10 })
    ));
}

#[test]
fn a_confined_write_refuses_a_planted_link_or_fifo() {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8Path::from_path(dir.path()).unwrap();
    fs::write(root.join("outside"), "keep").unwrap();
    std::os::unix::fs::symlink(root.join("outside"), root.join("r.json")).unwrap();
    let err = write_confined(&root.join("r.json"), b"x").unwrap_err();
    assert!(err.to_string().contains("symlink"), "{err}");
    assert!(check_writable_as(&root.join("r.json"), Links::Refuse).is_err());
    assert_eq!(fs::read_to_string(root.join("outside")).unwrap(), "keep");
    mkfifo(&root.join("p.json"));
    assert!(write_confined(&root.join("p.json"), b"x").is_err());
    assert!(write_confined(Utf8Path::new("/dev/null"), b"x").is_err());
    write_confined(&root.join("new.json"), b"new").unwrap();
    write_confined(&root.join("new.json"), b"newer").unwrap();
    assert_eq!(fs::read_to_string(root.join("new.json")).unwrap(), "newer");
}

#[test]
fn a_pinned_write_follows_nothing_planted_after_the_pin() {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8Path::from_path(dir.path()).unwrap();
    let kind = |p: &str| fs::symlink_metadata(root.join(p)).unwrap().file_type();
    fs::write(root.join("outside"), "keep").unwrap();
    // A link planted at the name is replaced, never written through.
    let pinned = Pinned::new(&root.join("r.html"), Links::Follow).unwrap();
    std::os::unix::fs::symlink(root.join("outside"), root.join("r.html")).unwrap();
    pinned.write(b"report").unwrap();
    assert_eq!(fs::read_to_string(root.join("outside")).unwrap(), "keep");
    assert!(kind("r.html").is_file());
    assert_eq!(fs::read_to_string(root.join("r.html")).unwrap(), "report");
    // So is a FIFO, never waited on; a regular file keeps its mode.
    let pinned = Pinned::new(&root.join("p.html"), Links::Follow).unwrap();
    mkfifo(&root.join("p.html"));
    pinned.write(b"x").unwrap();
    assert!(kind("p.html").is_file());
    fs::set_permissions(root.join("p.html"), fs::Permissions::from_mode(0o600)).unwrap();
    Pinned::new(&root.join("p.html"), Links::Follow)
        .unwrap()
        .write(b"y")
        .unwrap();
    assert_eq!(
        fs::metadata(root.join("p.html"))
            .unwrap()
            .permissions()
            .mode()
            & 0o777,
        0o600
    );
    // A folder swapped for a link to elsewhere: refused, nothing written there.
    fs::create_dir(root.join("reports")).unwrap();
    fs::create_dir(root.join("elsewhere")).unwrap();
    let pinned = Pinned::new(&root.join("reports/r.html"), Links::Follow).unwrap();
    fs::rename(root.join("reports"), root.join("reports.old")).unwrap();
    std::os::unix::fs::symlink(root.join("elsewhere"), root.join("reports")).unwrap();
    let err = pinned.write(b"x").unwrap_err();
    assert!(err.to_string().contains("changed during the run"), "{err}");
    assert!(names(&root.join("elsewhere")).is_empty());
    assert!(names(&root.join("reports.old")).is_empty());
    // The operator's link is followed once, when pinned: retargeted since,
    // the first target is written and the link stays.
    fs::write(root.join("a.html"), "a").unwrap();
    fs::write(root.join("b.html"), "b").unwrap();
    std::os::unix::fs::symlink("a.html", root.join("link.html")).unwrap();
    let pinned = Pinned::new(&root.join("link.html"), Links::Follow).unwrap();
    fs::remove_file(root.join("link.html")).unwrap();
    std::os::unix::fs::symlink("b.html", root.join("link.html")).unwrap();
    pinned.write(b"new").unwrap();
    assert_eq!(fs::read_to_string(root.join("a.html")).unwrap(), "new");
    assert_eq!(fs::read_to_string(root.join("b.html")).unwrap(), "b");
    assert!(kind("link.html").is_symlink());
    // A device is written through; a FIFO swapped for a link is refused.
    Pinned::new(Utf8Path::new("/dev/null"), Links::Follow)
        .unwrap()
        .write(b"x")
        .unwrap();
    mkfifo(&root.join("q"));
    let pinned = Pinned::new(&root.join("q"), Links::Follow).unwrap();
    fs::remove_file(root.join("q")).unwrap();
    std::os::unix::fs::symlink(root.join("outside"), root.join("q")).unwrap();
    assert!(pinned.write(b"x").is_err());
    assert_eq!(fs::read_to_string(root.join("outside")).unwrap(), "keep");
    // No temp file is left behind.
    assert!(
        names(root).iter().all(|n| !n.ends_with(".tmp")),
        "{:?}",
        names(root)
    );
    assert!(Pinned::new(Utf8Path::new(""), Links::Follow).is_err());
}

#[test]
fn append_writes_only_to_a_regular_file() {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8Path::from_path(dir.path()).unwrap();
    append(&root.join("s.md"), b"a\n").unwrap();
    append(&root.join("s.md"), b"b\n").unwrap();
    assert_eq!(fs::read_to_string(root.join("s.md")).unwrap(), "a\nb\n");
    mkfifo(&root.join("pipe"));
    // No reader: refused at once.
    let err = append(&root.join("pipe"), b"x").unwrap_err();
    assert!(err.to_string().contains("FIFO"), "{err}");
    // A reader: still refused, nothing written.
    let reader = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(root.join("pipe"))
        .unwrap();
    let err = append(&root.join("pipe"), b"x").unwrap_err();
    assert!(err.to_string().contains("FIFO"), "{err}");
    let mut got = Vec::new();
    let _ = (&reader).read_to_end(&mut got);
    assert!(got.is_empty());
    assert!(append(Utf8Path::new("/dev/null"), b"x").is_err());
    assert!(append(Utf8Path::new(""), b"x").is_err());
}

#[test]
fn a_fifo_with_a_reader_is_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8Path::from_path(dir.path()).unwrap();
    let pipe = root.join("pipe");
    mkfifo(&pipe);
    let reader = {
        let pipe = pipe.clone();
        std::thread::spawn(move || fs::read(pipe).unwrap())
    };
    write_atomically(&pipe, b"through").unwrap();
    assert_eq!(reader.join().unwrap(), b"through");
    assert!(fs::symlink_metadata(&pipe).unwrap().file_type().is_fifo());
}

#[test]
fn a_socket_is_refused_never_waited_on() {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8Path::from_path(dir.path()).unwrap();
    let sock = root.join("s.sock");
    let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    assert!(check_writable(&sock).is_err());
    assert!(write_atomically(&sock, b"x").is_err());
    assert!(read(&sock, 10).is_err());
    assert!(append(&sock, b"x").is_err());
}
