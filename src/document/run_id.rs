//! Run ids (one format, minted and parsed here) and dollar sums bounded so no import can make them infinite.

/// The UTC stamp in a run id made from a platform result's start ([`run_id`]).
pub(super) const RUN_STAMP: &str = "%Y%m%dT%H%M%SZ";
/// The UTC stamp of a run id bob-eval mints ([`new_run_id`]): microseconds, fixed width.
pub(super) const FINE_STAMP: &str = "%Y%m%dT%H%M%S%.6fZ";

/// The id of `item`'s evaluation reduced from a platform result started at
/// `started`: `eval-<item>-<UTC stamp>`, to the second (the same result
/// reduced twice gets the same id).
pub fn run_id(item: &str, started: chrono::DateTime<chrono::Utc>) -> String {
    format!("eval-{item}-{}", started.format(RUN_STAMP))
}

/// A new id for an evaluation of `item` that bob-eval starts at `started`
/// (a document's `run`, the `bought_by` of the runs it bought):
/// `eval-<item>-<UTC stamp to the microsecond>-<8 hex digits>`. Two
/// evaluations started in the same microsecond still differ by the suffix
/// (random per process, then a counter); ids sort by their start.
pub fn new_run_id(item: &str, started: chrono::DateTime<chrono::Utc>) -> String {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    hasher.write_u32(std::process::id());
    hasher.write_i64(started.timestamp_nanos_opt().unwrap_or_default());
    let suffix = hasher.finish() as u32;
    format!("eval-{item}-{}-{suffix:08x}", started.format(FINE_STAMP))
}

/// The day of a run id of `item` ([`run_id`] or [`new_run_id`]),
/// `YYYY-MM-DD`; `None` when `id` is neither.
pub fn run_id_date(item: &str, id: &str) -> Option<String> {
    let stamp = id
        .strip_prefix("eval-")?
        .strip_prefix(item)?
        .strip_prefix('-')?;
    let time = match stamp.split_once("Z-") {
        Some((fine, suffix))
            if suffix.len() == 8 && suffix.bytes().all(|b| b.is_ascii_hexdigit()) =>
        {
            chrono::NaiveDateTime::parse_from_str(&format!("{fine}Z"), FINE_STAMP).ok()?
        }
        Some(_) => return None,
        None => chrono::NaiveDateTime::parse_from_str(stamp, RUN_STAMP).ok()?,
    };
    Some(time.format("%Y-%m-%d").to_string())
}

/// The most dollars any one sum of costs is taken to be: a cost above it (or
/// not finite) is clamped, so no sum of imported numbers becomes infinite.
pub const MAX_USD: f64 = 1e9;

/// The sum of `costs`, each taken as 0 when negative or not a number and at
/// most [`MAX_USD`], the sum at most [`MAX_USD`]: always finite.
pub fn sum_usd(costs: impl IntoIterator<Item = f64>) -> f64 {
    costs
        .into_iter()
        .map(|c| {
            if c.is_nan() {
                0.0
            } else {
                c.clamp(0.0, MAX_USD)
            }
        })
        .fold(0.0, |sum, c| (sum + c).min(MAX_USD))
}
