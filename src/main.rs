//! The `bob-eval` binary: parse, call the library, map the outcome to an exit code.

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = bob_eval::cli::Cli::parse();
    match bob_eval::cli::dispatch(cli) {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            let code = err.exit_code();
            eprintln!("bob-eval: error: {:#}", anyhow::Error::from(err));
            ExitCode::from(code)
        }
    }
}
