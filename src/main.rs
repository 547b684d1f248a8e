//! The `bob-eval` binary: parse, call the library, map the outcome to an exit code.

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = bob_eval::cli::Cli::parse();
    match bob_eval::cli::dispatch(cli) {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            // The library's errors already carry their cause and what to do.
            eprintln!("bob-eval: error: {err}");
            ExitCode::from(err.exit_code())
        }
    }
}
