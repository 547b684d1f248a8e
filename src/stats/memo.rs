//! A bounded memo for the statistics' pure searches (the spending
//! boundaries, the score interval): answers kept by their arguments' bits,
//! all forgotten at once when the memo is full, so its memory stays bounded
//! however long a simulation runs.

use std::collections::HashMap;
use std::hash::Hash;

/// At most `most` answers; the next one after that empties the memo first.
pub(crate) struct Memo<K, V> {
    /// Made on the first answer (a `HashMap` cannot be made in a `const`).
    map: Option<HashMap<K, V>>,
    most: usize,
}

impl<K: Hash + Eq, V: Clone> Memo<K, V> {
    /// An empty memo that holds at most `most` answers.
    pub(crate) const fn new(most: usize) -> Self {
        Memo { map: None, most }
    }

    /// The answer remembered for `key`, if any.
    pub(crate) fn get(&self, key: &K) -> Option<V> {
        self.map.as_ref()?.get(key).cloned()
    }

    /// Remember `value` for `key`, first emptying a full memo.
    pub(crate) fn insert(&mut self, key: K, value: V) {
        let map = self.map.get_or_insert_with(HashMap::new);
        if map.len() >= self.most {
            map.clear();
        }
        map.insert(key, value);
    }

    /// Answers held now.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.map.as_ref().map_or(0, HashMap::len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_memo_starts_afresh_and_never_holds_more_than_its_most() {
        let mut m = Memo::new(3);
        assert_eq!(m.get(&1), None);
        for k in 0..3 {
            m.insert(k, k * 10);
        }
        assert_eq!((m.len(), m.get(&2)), (3, Some(20)));
        m.insert(3, 30);
        assert_eq!((m.len(), m.get(&0), m.get(&3)), (1, None, Some(30)));
    }
}
