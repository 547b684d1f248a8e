//! The wiki row parser: never a panic, an error always says why, and a row it
//! accepts formats back to a line it parses to the same row.
#![no_main]

use bob_eval::wiki::{format_row, parse_row};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|line: &str| {
    match parse_row(line) {
        Ok(row) => assert_eq!(parse_row(&format_row(&row)), Ok(row)),
        Err(why) => assert!(!why.trim().is_empty()),
    }
});
