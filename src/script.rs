//! The Rhai script host: the sandboxed engine, the primitives and the embedded
//! pipelines. (Issue #5 fills this in.)

use crate::Context;
use crate::cli::{ExamArgs, ProposeArgs, ScriptArgs, SweepArgs};
use crate::error::Result;

/// `bob-eval exam` (pipelines/exam.rhai).
pub fn exam_command(ctx: &Context, args: &ExamArgs) -> Result<u8> {
    let _ = (ctx, args);
    todo!("issue #5")
}

/// `bob-eval propose` (pipelines/proposer.rhai).
pub fn propose_command(ctx: &Context, args: &ProposeArgs) -> Result<u8> {
    let _ = (ctx, args);
    todo!("issue #5")
}

/// `bob-eval sweep` (pipelines/sweep.rhai).
pub fn sweep_command(ctx: &Context, args: &SweepArgs) -> Result<u8> {
    let _ = (ctx, args);
    todo!("issue #5")
}

/// `bob-eval script FILE` (an operator pipeline).
pub fn script_command(ctx: &Context, args: &ScriptArgs) -> Result<u8> {
    let _ = (ctx, args);
    todo!("issue #5")
}
