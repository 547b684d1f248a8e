//! Human output: one file per command's report, plain text for stderr/stdout,
//! snapshot-tested.

pub mod check;
pub mod gate;
pub mod run;
pub mod script;
