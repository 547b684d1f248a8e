//! Human output: one file per command's report, plain text for stderr/stdout,
//! snapshot-tested, and the progress display.

pub mod check;
pub mod evidence;
pub mod gate;
pub mod progress;
pub mod run;
pub mod wiki;
