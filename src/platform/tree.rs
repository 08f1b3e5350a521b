//! Which processes descend from which, by the parents a platform's process table gives.

/// Whether `pid` is `root` or under it, by `parent_of`.
pub fn descends(mut pid: u32, root: u32, parent_of: impl Fn(u32) -> Option<u32>) -> bool {
    // Up the parents to the root, or to init (1) or the kernel's threads (2, 0).
    for _ in 0..64 {
        if pid == root {
            return true;
        }
        match parent_of(pid) {
            Some(p) if pid > 2 => pid = p,
            _ => return false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn a_grandchild_descends_and_a_stranger_does_not() {
        let parents = HashMap::from([(10, 1), (11, 10), (12, 11), (20, 1)]);
        assert!(descends(12, 10, |p| parents.get(&p).copied()));
        assert!(descends(10, 10, |p| parents.get(&p).copied()));
        assert!(!descends(20, 10, |p| parents.get(&p).copied()));
        assert!(!descends(99, 10, |p| parents.get(&p).copied()));
    }
}
