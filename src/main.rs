//! The `bob-eval` binary: parse, call the library, map the outcome to an exit code.

use clap::Parser;
use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    // First thing: SIGHUP, SIGINT, SIGTERM and SIGQUIT end every command with
    // the interrupted code, after cleaning up what it owns.
    if let Err(err) = bob_eval::error::interrupt::install() {
        return fail(&err);
    }
    let cli = bob_eval::commands::Cli::parse();
    match bob_eval::commands::dispatch(cli) {
        Ok(code) => ExitCode::from(code),
        // The reader went away (`| head`): nothing more to say to anyone.
        Err(bob_eval::Error::BrokenPipe) => ExitCode::SUCCESS,
        Err(err) => fail(&err),
    }
}

/// Say what went wrong and exit with its code. The library's errors already
/// carry their cause and what to do. stderr may be gone (a closed terminal
/// after SIGHUP): the exit code must not become a panic's.
fn fail(err: &bob_eval::Error) -> ExitCode {
    // Errors may quote names from outside (an imported run's): made safe first.
    let _ = writeln!(
        std::io::stderr().lock(),
        "bob-eval: error: {}",
        bob_eval::text::block(&err.to_string())
    );
    ExitCode::from(err.exit_code())
}
