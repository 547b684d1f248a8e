//! The `bob-eval` binary: parse, call the library, map the outcome to an exit code.

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = bob_eval::commands::Cli::parse();
    match bob_eval::commands::dispatch(cli) {
        Ok(code) => ExitCode::from(code),
        // The reader went away (`| head`): nothing more to say to anyone.
        Err(bob_eval::Error::BrokenPipe) => ExitCode::SUCCESS,
        Err(err) => {
            // The library's errors already carry their cause and what to do.
            eprintln!("bob-eval: error: {err}");
            ExitCode::from(err.exit_code())
        }
    }
}
