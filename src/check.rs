//! Static checks of suites before any money is spent. (Issue #2 fills this in.)

use crate::Context;
use crate::cli::CheckArgs;
use crate::error::Result;

/// `bob-eval check`.
pub fn command(ctx: &Context, args: &CheckArgs) -> Result<u8> {
    let _ = (ctx, args);
    todo!("issue #2")
}
