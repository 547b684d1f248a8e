//! The one bounded parallel map of the crate: `check` loads suites on every
//! core, `evaluate_all` runs suites `jobs` at once.

use std::sync::atomic::{AtomicUsize, Ordering};

/// `f` over `items` on at most `threads` threads (at least one, never more
/// than there are items); the results come back in the order of `items`.
/// A panic in `f` is resumed on the caller's thread.
pub fn map<T: Sync, R: Send>(items: &[T], threads: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = threads.clamp(1, items.len().max(1));
    if threads == 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let mut results: Vec<(usize, R)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break };
                        done.push((i, f(item)));
                    }
                    done
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}

/// The machine's cores (1 when unknown).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The threads worth starting for `n` small jobs (a file read each): one
/// below 64 jobs, where starting threads costs more than it saves.
pub fn cores_for(n: usize) -> usize {
    if n < 64 { 1 } else { cores() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_order_and_bounds_threads() {
        let items: Vec<u32> = (0..100).collect();
        let running = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        let out = map(&items, 3, |x| {
            let now = running.fetch_add(1, Ordering::SeqCst) + 1;
            most.fetch_max(now, Ordering::SeqCst);
            std::thread::sleep(std::time::Duration::from_millis(1));
            running.fetch_sub(1, Ordering::SeqCst);
            x * 2
        });
        assert_eq!(out, items.iter().map(|x| x * 2).collect::<Vec<_>>());
        assert!(most.load(Ordering::SeqCst) <= 3);
        assert!(map(&Vec::<u32>::new(), 4, |x| *x).is_empty());
    }
}
