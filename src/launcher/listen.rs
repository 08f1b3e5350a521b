//! Where a throwaway server listens: its socket, or TCP on 127.0.0.1 at a port given or
//! chosen (and chosen again when someone took it first).

use crate::error::Result;

/// Where a throwaway server listens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Listen {
    /// Only the unix socket in the instance's 0700 directory.
    Socket,
    /// TCP on 127.0.0.1: this port, or a free one.
    Tcp(Option<u16>),
}

impl Listen {
    /// The TCP port to start on now (the one asked for, or a free one); none for a socket.
    pub fn port(self) -> Result<Option<u16>> {
        match self {
            Listen::Socket => Ok(None),
            Listen::Tcp(Some(p)) => Ok(Some(p)),
            Listen::Tcp(None) => crate::instance::server::free_port().map(Some),
        }
    }

    /// Whether a start that lost its port to someone else may try another one.
    pub fn may_retry(self) -> bool {
        self == Listen::Tcp(None)
    }

    /// The error for a server that could not bind: the user's port is taken (exit 2), or
    /// `other` when the port was ours to choose.
    pub fn taken(self, log_tail: &str, other: crate::error::Error) -> crate::error::Error {
        match self {
            Listen::Tcp(Some(p)) if log_tail.contains("already in use") => crate::instance::server::port_taken(p),
            _ => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_chosen_port_is_the_users_to_free() {
        let other = || failed!("other");
        assert_eq!(Listen::Tcp(Some(7)).taken("Address already in use", other()).exit_code(), 2);
        assert_eq!(Listen::Tcp(None).taken("Address already in use", other()).exit_code(), 1);
        assert_eq!(Listen::Tcp(Some(7)).taken("FATAL: something else", other()).exit_code(), 1);
        assert!(Listen::Tcp(None).may_retry() && !Listen::Tcp(Some(7)).may_retry());
    }
}
