//! Reduce the platform's result document (`schemaVersion` 1) to `skill-eval/1`.
//! (Issue #3 fills this in.)
