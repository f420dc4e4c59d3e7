//! The link's tables by connection id: a `Vec` sorted by id. A link holds at most
//! `max_connections` (256) at once and opens them in growing id order (so an insert appends),
//! and a `BTreeMap` per table would cost the WebAssembly module some 18 KB of node code each
//! kind of entry; this costs a few hundred bytes, with the same order of iteration.

/// Entries of `V` by id `K`, in id order.
#[derive(Debug)]
pub(super) struct IdMap<K, V>(Vec<(K, V)>);

impl<K, V> Default for IdMap<K, V> {
    fn default() -> Self {
        IdMap(Vec::new())
    }
}

impl<K: Ord + Copy, V> IdMap<K, V> {
    fn find(&self, id: &K) -> Result<usize, usize> {
        self.0.binary_search_by(|(k, _)| k.cmp(id))
    }

    /// How many entries there are.
    pub(super) fn len(&self) -> usize {
        self.0.len()
    }

    /// True when there is none.
    pub(super) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// True when `id` has an entry.
    pub(super) fn contains_key(&self, id: &K) -> bool {
        self.find(id).is_ok()
    }

    /// The entry of `id`.
    pub(super) fn get(&self, id: &K) -> Option<&V> {
        self.find(id).ok().map(|i| &self.0[i].1)
    }

    /// The entry of `id`, to change.
    pub(super) fn get_mut(&mut self, id: &K) -> Option<&mut V> {
        self.find(id).ok().map(|i| &mut self.0[i].1)
    }

    /// Sets the entry of `id` (replacing one there).
    pub(super) fn insert(&mut self, id: K, value: V) {
        match self.find(&id) {
            Ok(i) => self.0[i].1 = value,
            Err(i) => self.0.insert(i, (id, value)),
        }
    }

    /// Takes the entry of `id` out.
    pub(super) fn remove(&mut self, id: &K) -> Option<V> {
        self.find(id).ok().map(|i| self.0.remove(i).1)
    }

    /// The ids, in order.
    pub(super) fn keys(&self) -> impl Iterator<Item = &K> {
        self.0.iter().map(|(k, _)| k)
    }

    /// The entries, in id order.
    pub(super) fn values(&self) -> impl Iterator<Item = &V> {
        self.0.iter().map(|(_, v)| v)
    }

    /// The ids and entries, in id order.
    pub(super) fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.0.iter().map(|(k, v)| (k, v))
    }

    /// Every id, in order, the table left empty.
    pub(super) fn take_keys(&mut self) -> impl Iterator<Item = K> + use<K, V> {
        std::mem::take(&mut self.0).into_iter().map(|(k, _)| k)
    }
}

#[cfg(test)]
mod tests {
    use super::IdMap;

    #[test]
    fn entries_stay_in_id_order_whatever_the_order_of_inserts() {
        let mut map = IdMap::default();
        for id in [5u32, 1, 9, 3] {
            map.insert(id, id * 10);
        }
        map.insert(3, 31);
        assert_eq!(map.keys().copied().collect::<Vec<_>>(), [1, 3, 5, 9]);
        assert_eq!(map.values().copied().collect::<Vec<_>>(), [10, 31, 50, 90]);
        assert_eq!((map.get(&5), map.get(&4)), (Some(&50), None));
        if let Some(v) = map.get_mut(&9) {
            *v += 1;
        }
        assert_eq!(map.remove(&9), Some(91));
        assert_eq!(map.remove(&9), None);
        assert!(map.contains_key(&1) && !map.contains_key(&9));
        assert_eq!(map.iter().next(), Some((&1, &10)));
        assert_eq!(map.len(), 3);
        assert_eq!(map.take_keys().collect::<Vec<_>>(), [1, 3, 5]);
        assert!(map.is_empty());
    }
}
