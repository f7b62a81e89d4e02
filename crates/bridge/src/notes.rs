//! Notes for the report (what the bridge or its transport dropped or refused), bounded: a
//! listening bridge runs until it is stopped, and whoever reaches its port could make it note
//! something with each request, so only the first `CAP` are kept, then one last note counts
//! the rest.

/// How many notes are kept.
pub const CAP: usize = 1000;

#[derive(Default)]
pub struct Notes {
    /// The first `CAP` notes, then the count of the others (kept up to date).
    kept: Vec<String>,
    dropped: usize,
}

impl Notes {
    pub fn push(&mut self, text: String) {
        if self.kept.len() < CAP {
            return self.kept.push(text);
        }
        self.dropped += 1;
        let count = format!(
            "{} more note(s) not kept (the first {CAP} are)",
            self.dropped
        );
        match self.dropped {
            1 => self.kept.push(count),
            _ => self.kept[CAP] = count,
        }
    }

    /// The notes kept, in order, then how many were not, if any.
    pub fn all(&self) -> &[String] {
        &self.kept
    }

    /// `all`, emptied.
    pub fn take(&mut self) -> Vec<String> {
        self.dropped = 0;
        std::mem::take(&mut self.kept)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Up to `CAP` notes are kept whole; past it only counted, the count the last line.
    #[test]
    fn notes_are_capped_with_a_count() {
        let check = |pushed: usize, want_last: Option<String>| {
            let mut notes = Notes::default();
            for k in 0..pushed {
                notes.push(format!("note {k}"));
            }
            assert_eq!(
                notes.all().len(),
                pushed.min(CAP) + usize::from(want_last.is_some())
            );
            let got = notes.take();
            assert_eq!(
                got.first().cloned(),
                (pushed > 0).then(|| "note 0".to_string())
            );
            if let Some(last) = want_last {
                assert_eq!(got[CAP - 1], format!("note {}", CAP - 1));
                assert_eq!(got.last(), Some(&last));
            }
            assert!(notes.take().is_empty(), "taking empties them");
        };
        check(0, None);
        check(3, None);
        check(CAP, None);
        let more = |n: usize| Some(format!("{n} more note(s) not kept (the first {CAP} are)"));
        check(CAP + 1, more(1));
        check(CAP + 25, more(25));
    }
}
