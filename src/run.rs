//! The `run` command: plugin → platform → reduce → validated document.
//! (Issue #3 fills this in.)

use crate::Context;
use crate::cli::RunArgs;
use crate::error::Result;

/// `bob-eval run`.
pub fn command(ctx: &Context, args: &RunArgs) -> Result<u8> {
    let _ = (ctx, args);
    todo!("issue #3")
}
