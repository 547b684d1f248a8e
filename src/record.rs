//! Recording an outcome: `baseline.json` and a `wiki/skill-impact.md` row,
//! atomically and under a lock. (Issue #4 fills this in.)
