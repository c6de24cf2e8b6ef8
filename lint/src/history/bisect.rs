//! Which published versions to capture: all of them when there are few, otherwise the
//! oldest and the newest, then the middle of every span whose two ends served different
//! tools, until each change is pinned to the version that made it. A server still at 0.0.x
//! keeps its whole history in patch releases, so versions are spans of a list, not of
//! version numbers. A version that could not be captured counts as a change.

use std::collections::BTreeMap;

/// The indexes to capture next among `n` versions (oldest first), given what was captured
/// (index -> the hash of its tools, `None` when it failed): every one when `n <= all`.
/// Empty when nothing is left to learn.
pub fn next_round(n: usize, all: usize, captured: &BTreeMap<usize, Option<String>>) -> Vec<usize> {
    if n <= all {
        return (0..n).filter(|i| !captured.contains_key(i)).collect();
    }
    let ends: Vec<usize> = [0, n - 1]
        .into_iter()
        .filter(|i| !captured.contains_key(i))
        .collect();
    if !ends.is_empty() {
        return ends;
    }
    let known: Vec<(&usize, &Option<String>)> = captured.iter().collect();
    let mut out = Vec::new();
    for w in known.windows(2) {
        let ((&a, ha), (&b, hb)) = (w[0], w[1]);
        let same = ha.is_some() && ha == hb;
        if b > a + 1 && !same {
            out.push(a + (b - a) / 2);
        }
    }
    out
}

/// The versions between two captures that served the same tools, which were not captured
/// because nothing changed between them.
pub fn skipped(n: usize, captured: &BTreeMap<usize, Option<String>>) -> Vec<usize> {
    (0..n).filter(|i| !captured.contains_key(i)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bisection over 40 versions whose surface changed at 7 and 31 finds both changes.
    #[test]
    fn bisection_finds_every_change() {
        let surface = |i: usize| Some(format!("s{}", usize::from(i >= 7) + usize::from(i >= 31)));
        let mut captured = BTreeMap::new();
        let mut rounds = 0;
        loop {
            let next = next_round(40, 10, &captured);
            if next.is_empty() {
                break;
            }
            rounds += 1;
            for i in next {
                captured.insert(i, surface(i));
            }
        }
        for change in [7, 31] {
            assert_eq!(captured.get(&change), Some(&surface(change)));
            assert_eq!(captured.get(&(change - 1)), Some(&surface(change - 1)));
        }
        assert!(captured.len() < 20, "{} captures", captured.len());
        assert!(rounds <= 8);
        assert_eq!(skipped(40, &captured).len(), 40 - captured.len());
        assert_eq!(next_round(3, 10, &BTreeMap::new()), [0, 1, 2]);
    }
}
