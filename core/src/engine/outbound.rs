//! A connection's unsent bytes: appended at the back, taken from the front as the host writes
//! them, without moving what is left on every partial write.

/// Above this capacity an emptied buffer is freed rather than kept: one big answer should not
/// hold its memory for the rest of the connection's life.
const KEEP_CAPACITY: usize = 1 << 20;

/// Bytes waiting for the host to write them, oldest first.
///
/// A host writes a large buffer in pieces as the socket takes them (a 16 MiB answer over
/// loopback goes in dozens of writes). Removing each piece from the front of a `Vec` would
/// move the rest every time, quadratic in the answer's size; the written bytes are instead
/// counted, and the buffer compacted once they are at least half of it, so each byte is moved
/// at most once on average.
#[derive(Default)]
pub(crate) struct Outbound {
    buf: Vec<u8>,
    /// Bytes at the front of `buf` already written.
    sent: usize,
}

impl Outbound {
    /// The buffer to append bytes to (what is already in it stays put).
    pub(crate) fn buf_mut(&mut self) -> &mut Vec<u8> {
        &mut self.buf
    }

    /// The unsent bytes, oldest first.
    pub(crate) fn unsent(&self) -> &[u8] {
        &self.buf[self.sent..]
    }

    /// How many bytes are unsent.
    pub(crate) fn len(&self) -> usize {
        self.buf.len() - self.sent
    }

    /// True when nothing is unsent.
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The first `n` unsent bytes were written (`n` at most [`Outbound::len`]). A buffer
    /// emptied by this and too big to keep is given back (the caller may reuse it elsewhere).
    #[must_use = "a big buffer given back is to be reused or dropped"]
    pub(crate) fn consume(&mut self, n: usize) -> Option<Vec<u8>> {
        self.sent += n.min(self.len());
        let mut big = None;
        if self.sent == self.buf.len() {
            if self.buf.capacity() > KEEP_CAPACITY {
                big = Some(std::mem::take(&mut self.buf));
            } else {
                self.buf.clear();
            }
            self.sent = 0;
        } else if self.sent >= self.buf.len() / 2 {
            self.buf.drain(..self.sent);
            self.sent = 0;
        }
        big
    }

    /// When nothing is unsent, lets `frame` swap a buffer holding frames from some offset on
    /// (the offset it returns) for the empty one held: the frames become the unsent bytes
    /// without being copied. True when it did.
    pub(crate) fn swap_in(&mut self, frame: impl FnOnce(&mut Vec<u8>) -> Option<usize>) -> bool {
        if !self.is_empty() {
            return false;
        }
        self.buf.clear();
        self.sent = 0;
        match frame(&mut self.buf) {
            Some(start) => {
                self.sent = start.min(self.buf.len());
                true
            }
            None => false,
        }
    }

    /// Drops every unsent byte and the memory behind them.
    pub(crate) fn release(&mut self) {
        *self = Outbound::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_leave_from_the_front_in_any_pieces() {
        let mut out = Outbound::default();
        out.buf_mut().extend_from_slice(b"abcdefghij");
        assert_eq!(out.consume(3), None);
        assert_eq!(out.unsent(), b"defghij");
        out.buf_mut().extend_from_slice(b"kl");
        assert_eq!(out.unsent(), b"defghijkl");
        assert_eq!(out.consume(1), None);
        assert_eq!((out.unsent(), out.len()), (&b"efghijkl"[..], 8));
        assert_eq!(out.consume(8), None);
        assert!(out.is_empty());
        out.buf_mut().extend_from_slice(b"mn");
        assert_eq!(out.unsent(), b"mn");
    }

    #[test]
    fn a_big_buffer_is_compacted_at_half_and_freed_once_sent() {
        let mut out = Outbound::default();
        out.buf_mut().resize(4 << 20, 7);
        assert_eq!(out.consume(1 << 20), None);
        assert_eq!((out.sent, out.len()), (1 << 20, 3 << 20));
        assert_eq!(out.consume(1 << 20), None);
        assert_eq!((out.sent, out.len()), (0, 2 << 20));
        let given_back = out.consume(2 << 20).unwrap();
        assert!(given_back.capacity() >= 4 << 20);
        assert_eq!((out.buf.capacity(), out.len()), (0, 0));
        out.buf_mut().extend_from_slice(b"small");
        assert_eq!(out.consume(5), None);
        assert!(out.buf.capacity() >= 5, "a small buffer keeps its memory");
    }

    #[test]
    fn a_buffer_swapped_in_is_sent_from_its_offset_and_only_when_empty() {
        let mut out = Outbound::default();
        out.buf_mut().extend_from_slice(b"kept");
        let mut before = Vec::new();
        assert!(!out.swap_in(|buf| {
            before = buf.clone();
            Some(0)
        }));
        assert!(
            before.is_empty(),
            "nothing is offered while bytes are unsent"
        );
        assert_eq!(out.consume(4), None);
        let mut framed = b"..frame".to_vec();
        assert!(out.swap_in(|buf| {
            std::mem::swap(buf, &mut framed);
            Some(2)
        }));
        assert_eq!(out.unsent(), b"frame");
        assert!(framed.is_empty(), "the empty buffer went to the caller");
        assert_eq!(out.consume(5), None);
        assert!(out.is_empty());
        assert!(!out.swap_in(|_| None));
        assert!(out.is_empty());
    }

    #[test]
    fn release_drops_everything() {
        let mut out = Outbound::default();
        out.buf_mut().extend_from_slice(b"abc");
        out.release();
        assert!(out.is_empty());
    }
}
