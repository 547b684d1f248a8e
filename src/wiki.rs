//! `wiki/skill-impact.md`: row format, parsing, `check-wiki`. (Issue #4 fills this in.)

use crate::Context;
use crate::cli::CheckWikiArgs;
use crate::error::Result;

/// `bob-eval check-wiki`.
pub fn command(ctx: &Context, args: &CheckWikiArgs) -> Result<u8> {
    let _ = (ctx, args);
    todo!("issue #4")
}
