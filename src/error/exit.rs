//! Process exit codes (README, "Exit codes"): the only place they are
//! defined, and [`code`], the only place an outcome (a command's, or
//! an [`Error`]) becomes one.

use super::Error;

/// Done: the command completed (`gate`: accepted).
pub const OK: u8 = 0;
/// `gate`: rejected; `check`/`check-wiki`: problems found; `sweep`: a suite could not run.
pub const FAILED: u8 = 1;
/// Usage: bad flags, bad names, invalid input files.
pub const USAGE: u8 = 2;
/// Could not run: platform missing, too old or failed; item did not load.
pub const COULD_NOT_RUN: u8 = 3;
/// Incomplete: `sweep --max-total-usd` spent its budget and left suites
/// unlaunched (a suite that could not run still makes it [`FAILED`]).
pub const INCOMPLETE: u8 = 4;
/// Interrupted: SIGINT (Ctrl-C), SIGTERM, SIGHUP or SIGQUIT ([`super::interrupt`]).
pub const INTERRUPTED: u8 = 130;

/// How a command ended, as far as its exit code goes: each command's typed
/// outcome says which of these it is, and [`code`] gives the code.
#[derive(Debug, Clone, Copy)]
pub enum Conclusion<'a> {
    /// The work is done, whatever the figures (`run`, `history`, `show`, …).
    Done,
    /// A gate's decision (`gate`, `propose`).
    Decided {
        /// The change was accepted.
        accepted: bool,
    },
    /// A check (`check`, `check-wiki`).
    Checked {
        /// It found an error (warnings and notes never fail).
        errors: bool,
    },
    /// A sweep's suites (`sweep`, `collect`), whatever their verdicts.
    Swept {
        /// A suite could not run.
        could_not_run: bool,
        /// The budget left a suite unlaunched.
        unlaunched: bool,
    },
    /// A user's pipeline (`bob-eval script`) returned this code itself.
    Returned(u8),
    /// The command stopped on an error.
    Failed(&'a Error),
}

/// The process exit code for `conclusion`.
pub fn code(conclusion: &Conclusion<'_>) -> u8 {
    match *conclusion {
        Conclusion::Done => OK,
        Conclusion::Decided { accepted } => pass_or_fail(accepted),
        Conclusion::Checked { errors } => pass_or_fail(!errors),
        Conclusion::Swept {
            could_not_run: true,
            ..
        } => FAILED,
        Conclusion::Swept {
            unlaunched: true, ..
        } => INCOMPLETE,
        Conclusion::Swept { .. } => OK,
        Conclusion::Returned(code) => code,
        Conclusion::Failed(error) => for_error(error),
    }
}

fn pass_or_fail(passed: bool) -> u8 {
    if passed { OK } else { FAILED }
}

fn for_error(error: &Error) -> u8 {
    match error {
        Error::Usage(_)
        | Error::InvalidItemName { .. }
        | Error::ItemNotFound { .. }
        | Error::ItemAmbiguous { .. }
        | Error::NoSuite { .. }
        | Error::SuiteInvalid { .. }
        | Error::InvalidInput { .. }
        | Error::Script { .. } => USAGE,
        Error::Io { .. }
        | Error::PlatformMissing(_)
        | Error::PlatformTooOld { .. }
        | Error::PlatformFailed { .. }
        | Error::PluginNotLoaded(_)
        | Error::Store { .. } => COULD_NOT_RUN,
        Error::Interrupted => INTERRUPTED,
        Error::BudgetSpent { .. } => INCOMPLETE,
        Error::BrokenPipe => OK,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decisions_checks_and_sweeps_have_the_documented_codes() {
        let of = |c| code(&c);
        assert_eq!(of(Conclusion::Done), OK);
        assert_eq!(of(Conclusion::Decided { accepted: true }), OK);
        assert_eq!(of(Conclusion::Decided { accepted: false }), FAILED);
        assert_eq!(of(Conclusion::Checked { errors: true }), FAILED);
        assert_eq!(of(Conclusion::Checked { errors: false }), OK);
        let swept = |could_not_run, unlaunched| {
            of(Conclusion::Swept {
                could_not_run,
                unlaunched,
            })
        };
        assert_eq!(swept(false, false), OK);
        assert_eq!(swept(false, true), INCOMPLETE);
        assert_eq!(swept(true, true), FAILED);
        assert_eq!(swept(true, false), FAILED);
        assert_eq!(of(Conclusion::Returned(7)), 7);
    }

    #[test]
    fn errors_have_the_documented_codes() {
        let of = |e: Error| code(&Conclusion::Failed(&e));
        assert_eq!(of(Error::Usage("x".into())), USAGE);
        assert_eq!(of(Error::PlatformMissing("x".into())), COULD_NOT_RUN);
        assert_eq!(of(Error::Interrupted), INTERRUPTED);
        assert_eq!(
            of(Error::BudgetSpent {
                spent: 1.0,
                budget: 1.0
            }),
            INCOMPLETE
        );
        assert_eq!(of(Error::BrokenPipe), OK);
    }
}
