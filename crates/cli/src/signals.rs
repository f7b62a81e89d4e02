//! SIGINT and SIGTERM caught into a flag, for the commands that must end cleanly when told to
//! stop (a monitor still writes its report; the tester stops the servers it started).

use std::sync::Arc;
use std::sync::atomic::AtomicUsize;

/// From now on SIGINT and SIGTERM set the flag to their number instead of ending the process.
pub fn caught() -> Arc<AtomicUsize> {
    let signalled = Arc::new(AtomicUsize::new(0));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        let _ = signal_hook::flag::register_usize(sig, signalled.clone(), sig as usize);
    }
    signalled
}
