//! Ctrl-C as a value model calls can look at. The binary counts presses of Ctrl-C (SIGINT)
//! into an [`Interrupt`]; the client and the stages only read it: after the first press no
//! new request is sent (a request already under way may finish, and its answer is kept),
//! after the second the requests under way are cancelled too. What a stage does with the
//! answers it already has (write them out, or leave its output as it was) is the stage's
//! business. Not a signal handler: nothing here touches the process's signals, so the
//! library stays usable where Ctrl-C means something else.

use tokio::sync::watch;

/// How many times the user has asked a run to stop, shared by everything that may make a
/// model call. A fresh one is never pressed; clones share their count.
///
/// ```
/// use kgrade::client::Interrupt;
/// let interrupt = Interrupt::default();
/// assert!(!interrupt.stopping());
/// interrupt.press();
/// assert!(interrupt.stopping() && !interrupt.cancelling());
/// ```
#[derive(Clone, Debug)]
pub struct Interrupt {
    presses: std::sync::Arc<watch::Sender<u32>>,
}

impl Default for Interrupt {
    fn default() -> Self {
        Interrupt {
            presses: std::sync::Arc::new(watch::Sender::new(0)),
        }
    }
}

impl Interrupt {
    /// One more press: the first stops new requests, the second cancels those under way.
    pub fn press(&self) {
        // `send_modify` updates the value even when nobody is waiting yet.
        self.presses.send_modify(|n| *n = n.saturating_add(1));
    }

    /// Presses so far.
    pub fn presses(&self) -> u32 {
        *self.presses.borrow()
    }

    /// Pressed at least once: send no new request.
    pub fn stopping(&self) -> bool {
        self.presses() >= 1
    }

    /// Pressed at least twice: give up on the requests under way as well.
    pub fn cancelling(&self) -> bool {
        self.presses() >= 2
    }

    /// Wait until there have been at least `presses` presses (at once if there have).
    pub async fn pressed(&self, presses: u32) {
        let mut rx = self.presses.subscribe();
        // `self` holds the sender, so the channel cannot close while this waits: an error
        // here is impossible, and returning on it would only end the wait early.
        let _ = rx.wait_for(|n| *n >= presses).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waiters_wake_at_their_press_and_not_before() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        rt.block_on(async {
            let interrupt = Interrupt::default();
            let second = tokio::spawn({
                let i = interrupt.clone();
                async move { i.pressed(2).await }
            });
            interrupt.press();
            interrupt.pressed(1).await;
            for _ in 0..10 {
                tokio::task::yield_now().await;
            }
            assert!(!second.is_finished(), "one press does not cancel");
            interrupt.press();
            second.await.unwrap();
            assert!(interrupt.cancelling());
        });
    }
}
