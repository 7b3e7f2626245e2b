//! Pauses between attempts as client-go paces them: exponential, capped, and jittered, so that
//! the many clients a broken API server failed at the same moment do not all come back at the
//! same moment. Watches use kube-runtime's `DefaultBackoff` (client-go's reflector backoff,
//! 800 ms doubling to 30 s, with jitter); polls and retried requests use this one.

use std::hash::{BuildHasher, Hasher};
use std::time::Duration;

use tokio::time::Instant;

/// Doubling pauses from `first` up to `max`, each lengthened by up to half of itself at random.
#[derive(Debug, Clone)]
pub struct Backoff {
    first: Duration,
    next: Duration,
    max: Duration,
    /// Pauses taken since the last reset: the attempts that failed in a row.
    steps: u32,
}

impl Backoff {
    pub fn new(first: Duration, max: Duration) -> Self {
        Backoff {
            first,
            next: first,
            max,
            steps: 0,
        }
    }

    /// The pause before the next attempt, and the step after it.
    pub fn next_pause(&mut self) -> Duration {
        let base = self.next;
        self.next = (self.next * 2).min(self.max);
        self.steps = self.steps.saturating_add(1);
        jittered(base).min(self.max)
    }

    /// How many pauses were taken since the last reset.
    pub fn steps(&self) -> u32 {
        self.steps
    }

    /// Back to the first pause, after a success.
    pub fn reset(&mut self) {
        self.next = self.first;
        self.steps = 0;
    }

    /// Sleeps for the next pause, cut short by `deadline`; false when the deadline has passed.
    pub async fn sleep(&mut self, deadline: Instant) -> bool {
        let now = Instant::now();
        if now >= deadline {
            return false;
        }
        let pause = self.next_pause().min(deadline - now);
        tokio::time::sleep(pause).await;
        true
    }
}

/// `base` plus a random part of up to half of it (client-go's `wait.Jitter` with factor 0.5).
pub fn jittered(base: Duration) -> Duration {
    base + base.mul_f64(0.5 * random_fraction())
}

/// A number in [0, 1). The standard library's hasher keys are random per process and
/// advance per `RandomState`, which is all the randomness jitter needs.
fn random_fraction() -> f64 {
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(0);
    (hasher.finish() >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pauses_double_up_to_the_cap_with_at_most_half_more() {
        let mut backoff = Backoff::new(Duration::from_secs(1), Duration::from_secs(8));
        let pauses: Vec<Duration> = (0..6).map(|_| backoff.next_pause()).collect();
        for (pause, base) in pauses.iter().zip([1, 2, 4, 8, 8, 8]) {
            let base = Duration::from_secs(base);
            assert!(*pause >= base.min(Duration::from_secs(8)), "{pauses:?}");
            assert!(
                *pause <= (base + base / 2).min(Duration::from_secs(8)),
                "{pauses:?}"
            );
        }
        assert_eq!(backoff.steps(), 6);
        backoff.reset();
        assert_eq!(backoff.steps(), 0);
        assert!(backoff.next_pause() < Duration::from_millis(1500));
    }

    #[test]
    fn jitter_spreads_clients_apart() {
        let pauses: std::collections::HashSet<Duration> =
            (0..20).map(|_| jittered(Duration::from_secs(10))).collect();
        assert!(pauses.len() > 10, "{pauses:?}");
    }
}
