//! The evidence store under faults: a corrupt, foreign, newer-schema,
//! read-only or locked file gives an error naming it (exit 3) and loses no
//! run; eight writer processes at once lose nothing; writers SIGKILLed at
//! random moments leave a sound store holding every committed result whole.
//!
//! Child processes are this test binary itself, run with `EVIDENCE_CHILD`
//! set to their role (see [`child_process`]).

use bob_eval::Error;
use bob_eval::evidence::{
    Arm, GraderOutcome, Origin, RunKey, RunOutcome, Store, StoredRun, options_digest,
};
use camino::{Utf8Path, Utf8PathBuf};
use chrono::DateTime;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};
use std::{fs, thread};

const CHILD: &str = "EVIDENCE_CHILD";
const WRITERS: usize = 8;
const RESULTS_PER_WRITER: usize = 25;
const RUNS_PER_RESULT: usize = 40;
const KILL_RESULT: usize = 200;
const KILLS: usize = 25;

fn temp() -> (tempfile::TempDir, Utf8PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8PathBuf::from_path_buf(dir.path().to_path_buf()).unwrap();
    (dir, root)
}

/// The runs of one platform result: `writer` and `result` make them unique.
fn result(writer: usize, result: usize, runs: usize) -> Vec<StoredRun> {
    (0..runs)
        .map(|i| {
            let key = RunKey {
                item: format!("item-{writer}"),
                item_digest: "a".repeat(64),
                case: format!("case-{}", i % 10),
                case_digest: "b".repeat(64),
                arm: if i % 2 == 0 { Arm::With } else { Arm::Without },
                model: "claude-sonnet-5-5".into(),
                judge_model: "default".into(),
                platform_version: "2.1.328".into(),
                tools: vec![],
                options: options_digest(&[]),
            };
            let outcome = RunOutcome {
                score: 1.0,
                passed: true,
                graders: vec![GraderOutcome {
                    name: "fires".into(),
                    passed: true,
                    scored: false,
                    with_only: true,
                    weight: 1.0,
                    explanation: "Skill called 1x (expected 1..)".into(),
                    judge_votes: Vec::new(),
                    evidence: None,
                }],
                cost_usd: 0.01,
                judge_cost_usd: 0.0,
                duration_seconds: 2.0,
                turns: 2,
                error: None,
                skipped_paid_graders: false,
                started_at: DateTime::from_timestamp(1_796_000_000 + result as i64, 0).unwrap(),
                run: i as u32 + 1,
                bought_by: format!("eval-item-{writer}-{result}"),
                mocks: None,
            };
            StoredRun::new(key, outcome)
        })
        .collect()
}

fn child(role: &str, path: &Utf8Path) -> Command {
    // The test's name in this binary: its module path without the crate.
    let name = module_path!()
        .split_once("::")
        .map_or("child_process".to_string(), |(_, m)| {
            format!("{m}::child_process")
        });
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", &name, "--nocapture", "--test-threads=1"])
        .env(CHILD, role)
        .env("EVIDENCE_PATH", path.as_str());
    cmd
}

/// Not a test of its own: the work of a child process, when `EVIDENCE_CHILD` says so.
#[test]
fn child_process() {
    let Ok(role) = std::env::var(CHILD) else {
        return;
    };
    let path = Utf8PathBuf::from(std::env::var("EVIDENCE_PATH").unwrap());
    match role.as_str() {
        "writer" => {
            let writer: usize = std::env::var("EVIDENCE_WRITER").unwrap().parse().unwrap();
            let mut store = Store::open(&path).unwrap();
            for r in 0..RESULTS_PER_WRITER {
                let added = store
                    .insert(&result(writer, r, RUNS_PER_RESULT), &Origin::Bought)
                    .unwrap();
                assert_eq!(added, RUNS_PER_RESULT);
            }
        }
        "killable" => {
            let base: usize = std::env::var("EVIDENCE_BASE").unwrap().parse().unwrap();
            let mut store = Store::open(&path).unwrap();
            let mut out = std::io::stdout();
            for r in base.. {
                store
                    .insert(&result(0, r, KILL_RESULT), &Origin::Bought)
                    .unwrap();
                writeln!(out, "committed {}", r + 1).unwrap();
                out.flush().unwrap();
            }
        }
        "read-only" => read_only_checks(path.parent().unwrap()),
        other => panic!("unknown child role {other}"),
    }
}

fn assert_store_error(err: Error, path: &Utf8Path, words: &str) {
    let text = err.to_string();
    assert_eq!(err.exit_code(), 3, "{text}");
    assert!(matches!(err, Error::Store { .. }), "{text}");
    assert!(text.contains(path.as_str()), "does not name {path}: {text}");
    assert!(text.contains(words), "does not say {words:?}: {text}");
}

#[test]
fn garbage_is_refused_naming_the_file() {
    let (_t, root) = temp();
    let path = root.join("evidence.db");
    fs::write(
        &path,
        "this is not a database, it is a shopping list\n".repeat(200),
    )
    .unwrap();
    let err = Store::open(&path).unwrap_err();
    assert_store_error(err, &path, "corrupt");
    assert!(
        fs::read_to_string(&path)
            .unwrap()
            .starts_with("this is not"),
        "the file is left as it was"
    );
}

#[test]
fn damaged_pages_are_found_not_read_as_data() {
    let (_t, root) = temp();
    let path = root.join("evidence.db");
    let mut store = Store::open(&path).unwrap();
    for r in 0..10 {
        store.insert(&result(0, r, 200), &Origin::Bought).unwrap();
    }
    drop(store);
    let mut bytes = fs::read(&path).unwrap();
    assert!(bytes.len() > 64 * 1024, "{} bytes", bytes.len());
    for b in &mut bytes[16 * 1024..48 * 1024] {
        *b = 0xA5;
    }
    fs::write(&path, bytes).unwrap();
    let err = match Store::open(&path) {
        Err(e) => e,
        Ok(store) => store
            .integrity_check()
            .and_then(|()| store.export(&[], std::io::sink(), "-".into()).map(|_| ()))
            .unwrap_err(),
    };
    let text = err.to_string();
    assert_eq!(err.exit_code(), 3, "{text}");
    assert!(text.contains(path.as_str()), "{text}");
}

#[test]
fn a_newer_schema_is_refused_and_left_alone() {
    let (_t, root) = temp();
    let path = root.join("evidence.db");
    let mut store = Store::open(&path).unwrap();
    store.insert(&result(0, 0, 3), &Origin::Bought).unwrap();
    drop(store);
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.pragma_update(None, "user_version", 99).unwrap();
    drop(conn);
    let err = Store::open(&path).unwrap_err();
    assert_store_error(err, &path, "newer bob-eval (schema 99");
    let conn = rusqlite::Connection::open(&path).unwrap();
    let runs: i64 = conn
        .query_row("SELECT count(*) FROM runs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(runs, 3, "nothing was lost or migrated");
}

#[test]
fn another_sqlite_file_is_not_taken_over() {
    let (_t, root) = temp();
    let path = root.join("notes.db");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('keep me');")
        .unwrap();
    drop(conn);
    let err = Store::open(&path).unwrap_err();
    assert_store_error(err, &path, "not a bob-eval evidence store");
}

#[test]
fn locked_beyond_the_busy_timeout_is_a_clear_error_then_works() {
    let (_t, root) = temp();
    let path = root.join("evidence.db");
    Store::open(&path).unwrap();
    let holder = rusqlite::Connection::open(&path).unwrap();
    holder.execute_batch("BEGIN EXCLUSIVE").unwrap();

    let mut store = Store::open_with_timeout(&path, Duration::from_millis(300)).unwrap();
    let start = Instant::now();
    let err = store.insert(&result(0, 0, 5), &Origin::Bought).unwrap_err();
    assert!(
        start.elapsed() >= Duration::from_millis(250),
        "it waited first"
    );
    assert_store_error(err, &path, "locked by another process");

    holder.execute_batch("COMMIT").unwrap();
    assert_eq!(store.insert(&result(0, 0, 5), &Origin::Bought).unwrap(), 5);
}

#[test]
fn a_writer_waits_for_another_within_the_timeout() {
    let (_t, root) = temp();
    let path = root.join("evidence.db");
    Store::open(&path).unwrap();
    let holder = rusqlite::Connection::open(&path).unwrap();
    holder.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let release = thread::spawn(move || {
        thread::sleep(Duration::from_millis(300));
        holder.execute_batch("COMMIT").unwrap();
    });
    let mut store = Store::open(&path).unwrap();
    assert_eq!(store.insert(&result(0, 0, 5), &Origin::Bought).unwrap(), 5);
    release.join().unwrap();
}

/// What an unprivileged user sees: a read-only store file, a read-only folder
/// holding a store, and a new store in a read-only folder (set up by the caller).
fn read_only_checks(root: &Utf8Path) {
    let file = root.join("ro-file/evidence.db");
    assert_store_error(Store::open(&file).unwrap_err(), &file, "read-only");
    let in_folder = root.join("ro-folder/evidence.db");
    let err = Store::open(&in_folder).unwrap_err();
    assert_eq!(err.exit_code(), 3, "{err}");
    assert!(err.to_string().contains(in_folder.as_str()), "{err}");
    let new = root.join("ro-folder/new.db");
    let err = Store::open(&new).unwrap_err();
    assert_store_error(err, &new, "cannot be opened");
}

#[test]
fn read_only_files_and_folders_are_refused_and_keep_their_runs() {
    let (_t, root) = temp();
    fs::set_permissions(&root, fs::Permissions::from_mode(0o755)).unwrap();
    for (dir, file_mode, dir_mode) in [("ro-file", 0o444, 0o777), ("ro-folder", 0o666, 0o555)] {
        let path = root.join(dir).join("evidence.db");
        Store::open(&path)
            .unwrap()
            .insert(&result(0, 0, 4), &Origin::Bought)
            .unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(file_mode)).unwrap();
        fs::set_permissions(root.join(dir), fs::Permissions::from_mode(dir_mode)).unwrap();
    }

    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        read_only_checks(&root);
    } else {
        // Root writes anything: check as `nobody`, in a child process.
        let mut cmd = child("read-only", &root.join("unused.db"));
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                if libc::setgroups(0, std::ptr::null()) != 0
                    || libc::setgid(65534) != 0
                    || libc::setuid(65534) != 0
                {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let out = match cmd.output() {
            Ok(out) => out,
            Err(e) => {
                eprintln!("skipped: cannot run this test binary as nobody: {e}");
                return;
            }
        };
        assert!(
            out.status.success(),
            "as nobody:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    for dir in ["ro-file", "ro-folder"] {
        fs::set_permissions(root.join(dir), fs::Permissions::from_mode(0o755)).unwrap();
        let path = root.join(dir).join("evidence.db");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        let store = Store::open(&path).unwrap();
        assert_eq!(store.count().unwrap(), 4, "{dir}: no run lost");
        store.integrity_check().unwrap();
    }
}

#[test]
fn eight_writer_processes_lose_nothing() {
    let (_t, root) = temp();
    let path = root.join("evidence.db");
    let children: Vec<_> = (0..WRITERS)
        .map(|w| {
            child("writer", &path)
                .env("EVIDENCE_WRITER", w.to_string())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let store = Store::open(&path).unwrap();
    store.integrity_check().unwrap();
    assert_eq!(
        store.count().unwrap() as usize,
        WRITERS * RESULTS_PER_WRITER * RUNS_PER_RESULT
    );
    let list = store.list(&[]).unwrap();
    let items: std::collections::BTreeSet<_> = list.iter().map(|e| e.item.clone()).collect();
    assert_eq!(items.len(), WRITERS);
}

#[test]
fn eight_writer_threads_lose_nothing() {
    let (_t, root) = temp();
    let path = root.join("evidence.db");
    Store::open(&path).unwrap();
    let threads: Vec<_> = (0..WRITERS)
        .map(|w| {
            let path = path.clone();
            thread::spawn(move || {
                let mut store = Store::open(&path).unwrap();
                for r in 0..RESULTS_PER_WRITER {
                    store
                        .insert(&result(w, r, RUNS_PER_RESULT), &Origin::Bought)
                        .unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let store = Store::open(&path).unwrap();
    assert_eq!(
        store.count().unwrap() as usize,
        WRITERS * RESULTS_PER_WRITER * RUNS_PER_RESULT
    );
}

/// Openers meeting on a store that does not exist yet (a sharded sweep's
/// first minute): each must get in, none may be told the store is locked.
#[test]
fn openers_meeting_on_a_new_store_all_get_in() {
    let (_t, root) = temp();
    for round in 0..40 {
        let path = root.join(format!("evidence-{round}.db"));
        let gate = std::sync::Arc::new(std::sync::Barrier::new(WRITERS));
        let threads: Vec<_> = (0..WRITERS)
            .map(|_| {
                let (path, gate) = (path.clone(), gate.clone());
                thread::spawn(move || {
                    gate.wait();
                    Store::open(&path).map(|_| ())
                })
            })
            .collect();
        for t in threads {
            if let Err(e) = t.join().unwrap() {
                panic!("round {round}: {e}");
            }
        }
    }
}

/// A small xorshift generator; the seed is printed so a failure can be replayed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

#[test]
fn writers_killed_at_any_moment_leave_a_sound_store() {
    let (_t, root) = temp();
    let path = root.join("evidence.db");
    Store::open(&path).unwrap();
    let seed = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    eprintln!("seed {seed}");
    let mut rng = Rng(seed);
    let mut committed = 0usize;
    let mut parsed = std::collections::HashSet::new();
    for kill in 0..KILLS {
        // Each child goes on from the results already stored.
        let stored = Store::open(&path).unwrap().count().unwrap() as usize;
        assert_eq!(stored % KILL_RESULT, 0, "kill {kill}: half a result stored");
        let mut proc = child("killable", &path)
            .env("EVIDENCE_BASE", (stored / KILL_RESULT).to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = proc.stdout.take().unwrap();
        let (first_commit, committing) = std::sync::mpsc::channel();
        let reader = thread::spawn(move || {
            let mut last = 0usize;
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Some(n) = line.strip_prefix("committed ") {
                    last = n.trim().parse().unwrap();
                    let _ = first_commit.send(());
                }
            }
            last
        });
        if kill % 2 == 0 {
            // Any moment from the start: opening, the first transaction, …
            thread::sleep(Duration::from_micros(rng.below(150_000)));
        } else {
            // While it writes, whatever the machine's load made its start cost.
            committing.recv_timeout(Duration::from_secs(60)).unwrap();
            thread::sleep(Duration::from_micros(rng.below(60_000)));
        }
        proc.kill().unwrap();
        proc.wait().unwrap();
        let reported = reader.join().unwrap();
        committed = committed.max(reported);

        let store = Store::open(&path).unwrap();
        store
            .integrity_check()
            .unwrap_or_else(|e| panic!("seed {seed}, kill {kill}: {e}"));
        let count = store.count().unwrap() as usize;
        assert_eq!(
            count % KILL_RESULT,
            0,
            "seed {seed}, kill {kill}: half a result"
        );
        assert!(
            count >= committed * KILL_RESULT,
            "seed {seed}, kill {kill}: {count} runs stored, {committed} results committed"
        );
        // Every run reads back (the export reads each row); a line is parsed
        // again only when it differs from every line an earlier kill's
        // export already parsed (the store grows by kills: parsing all of it
        // each time was most of this test's time).
        let mut out = Vec::new();
        assert_eq!(store.export(&[], &mut out, "-".into()).unwrap(), count);
        for line in out.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            if parsed.insert(line.to_vec()) {
                StoredRun::from_line(std::str::from_utf8(line).unwrap()).unwrap();
            }
        }
    }
    assert!(
        committed > 0,
        "no child ever committed: the kills came too early"
    );
}

#[test]
fn an_import_file_with_a_bad_line_imports_nothing() {
    let (_t, root) = temp();
    let path = root.join("evidence.db");
    let mut store = Store::open(&path).unwrap();
    let mut lines: Vec<String> = result(1, 0, 5).iter().map(StoredRun::to_line).collect();
    let good = root.join("good.jsonl");
    fs::write(&good, lines.join("\n") + "\n").unwrap();
    lines.insert(3, r#"{"schema":"bob-eval-evidence/1","id":"x"}"#.into());
    let bad = root.join("bad.jsonl");
    fs::write(&bad, lines.join("\n") + "\n").unwrap();

    let err = store.import_file(&bad).unwrap_err();
    assert_eq!(err.exit_code(), 2, "{err}");
    assert!(err.to_string().starts_with(&format!("{bad}:4: ")), "{err}");
    assert_eq!(store.count().unwrap(), 0);

    let first = store.import_file(&good).unwrap();
    assert_eq!((first.runs, first.added, first.already), (5, 5, 0));
    let again = store.import_file(&good).unwrap();
    assert_eq!((again.runs, again.added, again.already), (5, 0, 5));

    let missing = root.join("missing.jsonl");
    let err = store.import_file(&missing).unwrap_err();
    assert_eq!(err.exit_code(), 2, "{err}");
    assert!(err.to_string().contains(missing.as_str()), "{err}");
}
