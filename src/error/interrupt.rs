//! SIGHUP, SIGINT, SIGTERM and SIGQUIT: every one ends bob-eval with
//! [`exit::INTERRUPTED`], but never while it owns something that must not
//! outlive it.
//!
//! What must be cleaned up (a `claude --version` probe, a plugin folder, a
//! platform run) is held with a [`Guard`]. While no guard is held, a signal
//! exits the process at once: there is nothing to clean. While one is, the
//! signal is only recorded ([`caught`]); the code holding the guards polls it
//! (a wait on the probe, the platform run, plugin assembly between steps),
//! stops what it started and returns [`Error::Interrupted`], and the guards are
//! released as that error unwinds the stack: the plugin's `Drop` removes its
//! folder. When the last guard is released with a signal caught, the process
//! exits with [`exit::INTERRUPTED`] there and then, whether or not an error
//! carried the signal that far (a signal caught while a result was reduced
//! ends the command as surely as one caught during the platform run). Once a
//! signal is caught, no new guard is given ([`guard`] fails with
//! [`Error::Interrupted`]), so nothing new is started.
//!
//! A signal ignored when bob-eval starts stays ignored (`nohup` ignores
//! SIGHUP; a shell script's `&` ignores SIGINT and SIGQUIT): bob-eval was
//! asked to survive it. SIGKILL cannot be caught: a SIGKILLed bob-eval leaves
//! what it owned behind.

use super::{Error, Result, exit};
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// The signals that interrupt bob-eval.
pub const SIGNALS: [libc::c_int; 4] = [libc::SIGHUP, libc::SIGINT, libc::SIGTERM, libc::SIGQUIT];

/// What the handlers and the guards share.
struct State {
    /// The last signal caught, 0 for none. Written by the handlers first, so a
    /// handler that finds the process busy has always left its mark.
    caught: Arc<AtomicUsize>,
    /// No guard is held: a signal exits at once. Read by the handlers after
    /// they recorded the signal.
    idle: Arc<AtomicBool>,
    /// Guards held.
    held: Mutex<usize>,
}

fn state() -> Result<&'static State> {
    static STATE: OnceLock<std::result::Result<State, String>> = OnceLock::new();
    STATE
        .get_or_init(|| {
            let caught = Arc::new(AtomicUsize::new(0));
            let idle = Arc::new(AtomicBool::new(true));
            for sig in SIGNALS.into_iter().filter(|sig| !ignored(*sig)) {
                // Registered actions run in order: record, then exit if idle.
                signal_hook::flag::register_usize(sig, Arc::clone(&caught), sig as usize)
                    .map_err(|e| format!("{}: {e}", name(sig)))?;
                signal_hook::flag::register_conditional_shutdown(
                    sig,
                    i32::from(exit::INTERRUPTED),
                    Arc::clone(&idle),
                )
                .map_err(|e| format!("{}: {e}", name(sig)))?;
            }
            Ok(State {
                caught,
                idle,
                held: Mutex::new(0),
            })
        })
        .as_ref()
        .map_err(|e| Error::PlatformFailed {
            message: format!("cannot install the signal handlers ({e})"),
            details: vec![],
        })
}

/// Whether `sig` is ignored (inherited as such: bob-eval ignores none itself).
fn ignored(sig: libc::c_int) -> bool {
    // SAFETY: a zeroed sigaction is a valid out-parameter for sigaction(2).
    let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
    // SAFETY: sigaction(2) with no new action only reads the current one.
    let rc = unsafe { libc::sigaction(sig, std::ptr::null(), &mut old) };
    rc == 0 && old.sa_sigaction == libc::SIG_IGN
}

/// Install the handlers (once; later calls do nothing), except for a signal
/// that is ignored: it stays so. The binary calls it first thing, so that
/// each of [`SIGNALS`] exits with [`exit::INTERRUPTED`] whatever the command;
/// [`guard`] calls it too, for library users.
pub fn install() -> Result<()> {
    state().map(|_| ())
}

/// The signal caught while a guard was held, if any.
pub fn caught() -> Option<libc::c_int> {
    let state = state().ok()?;
    match state.caught.load(Ordering::SeqCst) {
        0 => None,
        sig => libc::c_int::try_from(sig).ok(),
    }
}

/// [`Error::Interrupted`] once a signal was caught.
pub fn check() -> Result<()> {
    match caught() {
        Some(_) => Err(Error::Interrupted),
        None => Ok(()),
    }
}

/// The name of one of [`SIGNALS`], for messages.
pub fn name(sig: libc::c_int) -> &'static str {
    match sig {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGTERM => "SIGTERM",
        libc::SIGQUIT => "SIGQUIT",
        _ => "a signal",
    }
}

/// While held, a signal is recorded instead of ending the process at once;
/// see the module docs. Take it before creating what it protects, and let it
/// be dropped after that is cleaned up (declare it first; as a struct field,
/// last).
pub struct Guard(&'static State);

impl std::fmt::Debug for Guard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("interrupt::Guard")
    }
}

/// Hold off signals until the guard is dropped; [`Error::Interrupted`] if a
/// signal was already caught (nothing new starts then).
pub fn guard() -> Result<Guard> {
    let state = state()?;
    {
        let mut held = state.held.lock().unwrap_or_else(|p| p.into_inner());
        *held += 1;
        state.idle.store(false, Ordering::SeqCst);
    }
    // Looked at only now that the process is busy: a signal that came before
    // either exited the process or is seen here.
    let guard = Guard(state);
    check()?;
    Ok(guard)
}

impl Drop for Guard {
    fn drop(&mut self) {
        let mut held = self.0.held.lock().unwrap_or_else(|p| p.into_inner());
        *held = held.saturating_sub(1);
        if *held > 0 {
            return;
        }
        // Idle first, then look: a signal that comes after the look finds the
        // process idle and exits by itself.
        self.0.idle.store(true, Ordering::SeqCst);
        if let Some(sig) = caught() {
            // stderr may be gone with the terminal (SIGHUP): never panic here.
            let _ = writeln!(
                std::io::stderr().lock(),
                "bob-eval: error: interrupted ({})",
                name(sig)
            );
            // Still under the lock: no other thread takes a guard and starts
            // something while the process exits.
            std::process::exit(i32::from(exit::INTERRUPTED));
        }
    }
}
