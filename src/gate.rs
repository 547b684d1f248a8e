//! The gate: the fixed rule that accepts or rejects a result against the best
//! recorded for its model. (Issue #4 fills this in.)

use crate::Context;
use crate::cli::GateArgs;
use crate::error::Result;

/// `bob-eval gate`.
pub fn command(ctx: &Context, args: &GateArgs) -> Result<u8> {
    let _ = (ctx, args);
    todo!("issue #4")
}
