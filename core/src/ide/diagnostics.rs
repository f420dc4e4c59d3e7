//! The diagnostics an [`EditorState`](super::EditorState) keeps, per file, ordered by path.

use std::fmt;

use super::event::Diagnostic;

/// The diagnostics of every file that has some, ordered by path (byte order, as `getDiagnostics`
/// lists them). A vector sorted by path rather than a map: a lookup is a binary search, and the
/// wasm module carries no map routines for this one key and value type.
#[derive(Clone, Default)]
pub struct DiagnosticsByFile(Vec<(String, Vec<Diagnostic>)>);

impl DiagnosticsByFile {
    /// The diagnostics of `path`, spelled as the state normalized it.
    pub fn get(&self, path: &str) -> Option<&[Diagnostic]> {
        let at = self.find(path).ok()?;
        Some(&self.0[at].1)
    }

    /// Each file's path and diagnostics, ordered by path.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &[Diagnostic])> {
        self.0
            .iter()
            .map(|(path, list)| (path.as_str(), list.as_slice()))
    }

    /// How many files have diagnostics.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True when no file has diagnostics.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Sets the diagnostics of `path`, replacing its previous ones.
    pub(crate) fn insert(&mut self, path: String, list: Vec<Diagnostic>) {
        match self.find(&path) {
            Ok(at) => self.0[at].1 = list,
            Err(at) => self.0.insert(at, (path, list)),
        }
    }

    /// Forgets the diagnostics of `path`, returning them.
    pub(crate) fn remove(&mut self, path: &str) -> Option<Vec<Diagnostic>> {
        let at = self.find(path).ok()?;
        Some(self.0.remove(at).1)
    }

    fn find(&self, path: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(p, _)| p.as_str().cmp(path))
    }
}

/// Prints as a map from path to diagnostics.
impl fmt::Debug for DiagnosticsByFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}
