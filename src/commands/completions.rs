//! `bob-eval completions SHELL` and `bob-eval man`: shell completions and a
//! man page, both generated from the same clap definitions as the parser.

use crate::error::exit::Conclusion;
use crate::error::{Error, Result};
use clap::{Args, CommandFactory};
use clap_complete::Shell;

/// `completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, powershell or elvish
    #[arg(value_name = "SHELL")]
    pub shell: Shell,
}

/// `man`.
#[derive(Debug, Args)]
pub struct ManArgs {}

/// Print the completion script for the shell.
pub fn exec(args: &CompletionsArgs) -> Result<Conclusion<'static>> {
    let mut cmd = super::Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "bob-eval", &mut out);
    super::print(&String::from_utf8_lossy(&out))?;
    Ok(Conclusion::Done)
}

/// Print the man page (roff) for bob-eval and its subcommands.
pub fn exec_man(_: &ManArgs) -> Result<Conclusion<'static>> {
    let cmd = super::Cli::command();
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd.clone())
        .render(&mut out)
        .map_err(|e| Error::io("<man page>", "rendering", e))?;
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = format!("bob-eval-{}", sub.get_name());
        let sub = sub.clone().display_name(name);
        clap_mangen::Man::new(sub)
            .render(&mut out)
            .map_err(|e| Error::io("<man page>", "rendering", e))?;
    }
    super::print(&String::from_utf8_lossy(&out))?;
    Ok(Conclusion::Done)
}
