//! Where things are in a CSV dataset file, for error messages that name the physical line an
//! editor shows: the line of a byte offset (the csv crate's own line count is off on CRLF)
//! and where a field starts inside a record whose quoted fields hold line breaks. Not a CSV
//! reader: the csv crate reads the records; this only locates them.

/// The byte offset in `record` (a CSV record's text and what follows it, starting at its first
/// field) where field `index` starts, read as the csv crate reads it with `delimiter` (`"`,
/// doubled quotes); the record's end if it has fewer fields.
pub(super) fn csv_field_start(record: &[u8], index: usize, delimiter: u8) -> usize {
    let at = |p: usize| record.get(p).copied();
    let mut pos = 0;
    for _ in 0..index {
        if at(pos) == Some(b'"') {
            // A quoted field ends at a quote not doubled.
            pos += 1;
            loop {
                match at(pos) {
                    None => return record.len(),
                    Some(b'"') if at(pos + 1) == Some(b'"') => pos += 2,
                    Some(b'"') => {
                        pos += 1;
                        break;
                    }
                    Some(_) => pos += 1,
                }
            }
        }
        loop {
            match at(pos) {
                None | Some(b'\r' | b'\n') => return pos,
                Some(b) if b == delimiter => break,
                Some(_) => pos += 1,
            }
        }
        pos += 1;
    }
    pos
}

/// The bytes from the record that starts at `byte` on: on CRLF input the csv reader places
/// a record's start at the line end before it, which is skipped as [`LineCounter`] skips it.
pub(super) fn record_text(bytes: &[u8], byte: u64) -> &[u8] {
    let mut at = (byte as usize).min(bytes.len());
    while at < bytes.len() && matches!(bytes[at], b'\r' | b'\n') {
        at += 1;
    }
    &bytes[at..]
}

/// The 1-based physical line of a byte offset, counted incrementally (offsets only grow).
pub(super) struct LineCounter<'a> {
    bytes: &'a [u8],
    offset: usize,
    line: u64,
}

impl<'a> LineCounter<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> LineCounter<'a> {
        LineCounter {
            bytes,
            offset: 0,
            line: 1,
        }
    }

    pub(super) fn line_at(&mut self, byte: u64) -> u64 {
        let mut to = (byte as usize).min(self.bytes.len());
        // On CRLF input the csv reader places a record's start at the `\n` that ends the
        // line before it; the record itself starts after any line ends.
        while to < self.bytes.len() && matches!(self.bytes[to], b'\r' | b'\n') {
            to += 1;
        }
        if to < self.offset {
            self.offset = 0;
            self.line = 1;
        }
        self.line += memchr::memchr_iter(b'\n', &self.bytes[self.offset..to]).count() as u64;
        self.offset = to;
        self.line
    }
}
