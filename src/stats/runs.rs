//! The value of `--runs`: a fixed number of runs per arm of each case, or
//! `auto` / `auto:MAX` for adaptive runs ([`crate::stats::adaptive`]).

use std::fmt;
use std::str::FromStr;

/// Most runs per arm of a case `--runs` accepts, fixed or as `auto`'s MAX.
pub const MAX_RUNS: u32 = 50;
/// `auto`'s MAX when none is given: a cap, since auto plans its MAX from
/// the minimum effect of interest ([`crate::stats::AutoPolicy::planned_for`]).
pub const DEFAULT_AUTO_MAX: u32 = super::adaptive::PLANNED_CAP;

/// A parsed `--runs` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunsSpec {
    /// `N`: exactly N runs per arm of each case (1–50).
    Fixed(u32),
    /// `auto` or `auto:MAX`: adaptive runs, at most MAX per arm of each case
    /// (2–100; plain `auto` plans it, at most 100).
    Auto {
        /// Most runs per arm of a case.
        max: u32,
    },
}

/// Why a `--runs` value was refused; the message says what is accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunsSpecError {
    /// Neither a number nor `auto[:MAX]`.
    #[error(
        "--runs {0:?} is not a number of runs or `auto`: use N (1-50), `auto` or `auto:MAX` (MAX 2-100)"
    )]
    Unknown(String),
    /// A number out of range.
    #[error("--runs {0} is out of range: use 1 to 50 runs per arm, or `auto`")]
    OutOfRange(String),
    /// `auto:` with a bad MAX.
    #[error(
        "--runs {0:?}: MAX must be a whole number from 2 to 100 (e.g. `auto:20`); plain `auto` plans MAX from --min-effect, at most 100"
    )]
    BadMax(String),
}

impl FromStr for RunsSpec {
    type Err = RunsSpecError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let s = text.trim();
        if s.eq_ignore_ascii_case("auto") {
            return Ok(RunsSpec::Auto {
                max: DEFAULT_AUTO_MAX,
            });
        }
        if let Some((head, max)) = s.split_once(':')
            && head.eq_ignore_ascii_case("auto")
        {
            return match max.parse::<u32>() {
                Ok(m) if (2..=DEFAULT_AUTO_MAX).contains(&m) => Ok(RunsSpec::Auto { max: m }),
                _ => Err(RunsSpecError::BadMax(text.to_string())),
            };
        }
        if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
            return match s.parse::<u32>() {
                Ok(n) if (1..=MAX_RUNS).contains(&n) => Ok(RunsSpec::Fixed(n)),
                _ => Err(RunsSpecError::OutOfRange(text.to_string())),
            };
        }
        Err(RunsSpecError::Unknown(text.to_string()))
    }
}

impl fmt::Display for RunsSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunsSpec::Fixed(n) => write!(f, "{n}"),
            RunsSpec::Auto { max } => write!(f, "auto:{max}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_numbers_and_auto() {
        assert_eq!("3".parse(), Ok(RunsSpec::Fixed(3)));
        assert_eq!("1".parse(), Ok(RunsSpec::Fixed(1)));
        assert_eq!("50".parse(), Ok(RunsSpec::Fixed(50)));
        assert_eq!("auto".parse(), Ok(RunsSpec::Auto { max: 100 }));
        assert_eq!("AUTO".parse(), Ok(RunsSpec::Auto { max: 100 }));
        assert_eq!("auto:2".parse(), Ok(RunsSpec::Auto { max: 2 }));
        assert_eq!("auto:100".parse(), Ok(RunsSpec::Auto { max: 100 }));
    }

    #[test]
    fn refuses_with_a_message_that_says_what_works() {
        for bad in ["0", "51", "99999999999"] {
            let e = bad.parse::<RunsSpec>().unwrap_err();
            assert!(matches!(e, RunsSpecError::OutOfRange(_)), "{bad}: {e:?}");
            assert!(e.to_string().contains("1 to 50"), "{e}");
        }
        for bad in ["auto:1", "auto:101", "auto:", "auto:x", "auto:-3"] {
            let e = bad.parse::<RunsSpec>().unwrap_err();
            assert!(matches!(e, RunsSpecError::BadMax(_)), "{bad}: {e:?}");
            assert!(e.to_string().contains("2 to 100"), "{e}");
        }
        for bad in ["", "three", "-1", "3.5", "autox", "fixed:3"] {
            let e = bad.parse::<RunsSpec>().unwrap_err();
            assert!(matches!(e, RunsSpecError::Unknown(_)), "{bad:?}: {e:?}");
        }
    }

    #[test]
    fn display_round_trips() {
        for spec in [RunsSpec::Fixed(7), RunsSpec::Auto { max: 20 }] {
            assert_eq!(spec.to_string().parse(), Ok(spec));
        }
    }
}
