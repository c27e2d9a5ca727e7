//! Bounds on the MCP requests served at once: by the whole process, and by
//! each credential, so one caller cannot take every slot. A credential is
//! held as a keyed hash while it has a request in flight, and forgotten
//! when its last request ends.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

pub struct Limits {
    total: Arc<Semaphore>,
    per_key: Mutex<HashMap<u64, usize>>,
    per_key_max: usize,
}

/// Which bound a request hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Full {
    Server,
    Credential,
}

/// A request's place; dropping it frees both counts.
pub struct Permit {
    _total: OwnedSemaphorePermit,
    limits: Arc<Limits>,
    key: u64,
}

impl Limits {
    pub fn new(total: usize, per_key: usize) -> Arc<Self> {
        Arc::new(Limits {
            total: Arc::new(Semaphore::new(total.max(1))),
            per_key: Mutex::new(HashMap::new()),
            per_key_max: per_key.max(1),
        })
    }

    /// A place for a request of credential `key`, or which bound is full.
    pub fn admit(self: &Arc<Self>, key: u64) -> Result<Permit, Full> {
        {
            let mut per_key = self.per_key.lock().unwrap_or_else(|e| e.into_inner());
            let count = per_key.entry(key).or_default();
            if *count >= self.per_key_max {
                return Err(Full::Credential);
            }
            *count += 1;
        }
        match self.total.clone().try_acquire_owned() {
            Ok(total) => Ok(Permit {
                _total: total,
                limits: self.clone(),
                key,
            }),
            Err(_) => {
                self.release(key);
                Err(Full::Server)
            }
        }
    }

    fn release(&self, key: u64) {
        let mut per_key = self.per_key.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = per_key.get_mut(&key) {
            *count -= 1;
            if *count == 0 {
                per_key.remove(&key);
            }
        }
    }

    /// Credentials with a request in flight.
    #[cfg(test)]
    fn credentials_in_flight(&self) -> usize {
        self.per_key.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        self.limits.release(self.key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_credential_and_total_bounds_hold_and_free() {
        let limits = Limits::new(3, 2);
        let a1 = limits.admit(1).unwrap();
        let _a2 = limits.admit(1).unwrap();
        assert_eq!(limits.admit(1).err(), Some(Full::Credential));
        let _b1 = limits.admit(2).unwrap();
        assert_eq!(limits.admit(3).err(), Some(Full::Server));
        drop(a1);
        assert!(limits.admit(1).is_ok());
        assert_eq!(limits.credentials_in_flight(), 2);
    }

    #[test]
    fn a_credential_is_forgotten_when_its_last_request_ends() {
        let limits = Limits::new(8, 8);
        let p = limits.admit(42).unwrap();
        assert_eq!(limits.credentials_in_flight(), 1);
        drop(p);
        assert_eq!(limits.credentials_in_flight(), 0);
    }
}
