//! The time written in `volcano.sh/predicate-time`, Unix nanoseconds.
//!
//! The SDK offers no clock, and a wasm32-unknown-unknown module imports
//! nothing a host could give one through (std's clock panics there). Built
//! so, the port writes a stand-in: what wazero's fake wall clock reads to a
//! WASI module of this host (midnight UTC 2022-01-01, one millisecond more
//! at each reading), counted per instance. A wasm32-wasip1 build and the
//! unit tests read std's clock, which in the sandbox is that same fake.

#[derive(Debug, Default)]
pub(crate) struct Clock {
    readings: i64,
}

impl Clock {
    pub(crate) fn unix_nanos(&mut self) -> i64 {
        self.readings += 1;
        read(self.readings)
    }
}

#[cfg(all(target_arch = "wasm32", not(target_os = "wasi")))]
fn read(reading: i64) -> i64 {
    const FAKE_EPOCH: i64 = 1_640_995_200_000_000_000;
    const STEP: i64 = 1_000_000;
    FAKE_EPOCH + (reading - 1) * STEP
}

#[cfg(not(all(target_arch = "wasm32", not(target_os = "wasi"))))]
fn read(_: i64) -> i64 {
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    i64::try_from(since.as_nanos()).unwrap_or(i64::MAX)
}
