//! What the module's exports do (docs/abi.md, section 3).
//! [`export!`](crate::export) defines the exports themselves in the
//! plugin's crate and calls these functions.
//!
//! Memory ownership: the module owns every byte. `caldera_buffer` hands the
//! host a buffer of this module's heap to write the request into; the reply
//! stays in another buffer here until the host's next call. Both are reused
//! from call to call.

use std::cell::RefCell;

use crate::module::{Serve, ABI_MAJOR, ABI_MINOR};

struct State {
    input: Vec<u8>,
    reply: Vec<u8>,
    module: Option<Box<dyn Serve>>,
}

thread_local! {
    // A Wasm instance runs one call at a time: the scheduler never enters a
    // module concurrently, and nothing here calls back into the host.
    static STATE: RefCell<State> = RefCell::new(State { input: Vec::new(), reply: Vec::new(), module: None });
}

/// `caldera_abi_version`: `major << 16 | minor`.
pub fn abi_version() -> u32 {
    ABI_MAJOR << 16 | ABI_MINOR
}

/// `caldera_buffer`: the address of a buffer of at least `size` bytes, valid
/// until the next call; 0 when memory runs out (the host then fails the
/// call with ENOMEM instead of the module trapping).
pub fn buffer(size: u32) -> u32 {
    STATE.with(|st| {
        let input = &mut st.borrow_mut().input;
        let size = size as usize;
        if input.len() < size {
            if input.try_reserve_exact(size - input.len()).is_err() {
                return 0;
            }
            input.resize(size, 0);
        }
        address(input.as_mut_ptr())
    })
}

/// `caldera_describe`: the packed address and length of the descriptor.
pub fn describe(new: fn() -> Box<dyn Serve>) -> u64 {
    STATE.with(|st| {
        let State { reply, module, .. } = &mut *st.borrow_mut();
        module.get_or_insert_with(|| start(new)).describe(reply);
        pack(reply)
    })
}

/// Makes the module's plugin, the first time the host calls it, and has
/// panics reported.
fn start(new: fn() -> Box<dyn Serve>) -> Box<dyn Serve> {
    report_panics();
    new()
}

/// Sends a panic's message and place to the scheduler as one `caldera.log`
/// line, "panic: MESSAGE (FILE:LINE:COL)", before the module aborts:
/// wasm32-unknown-unknown has nowhere to print it, and the scheduler reports
/// the line with the trap that follows (docs/abi.md, section 4).
#[cfg(target_arch = "wasm32")]
fn report_panics() {
    std::panic::set_hook(Box::new(|info| {
        let payload = info.payload();
        let message = match (payload.downcast_ref::<&str>(), payload.downcast_ref::<String>()) {
            (Some(s), _) => s,
            (_, Some(s)) => s.as_str(),
            _ => "a value that is not a string",
        };
        let line = match info.location() {
            Some(l) => format!("panic: {} ({}:{}:{})", message, l.file(), l.line(), l.column()),
            None => format!("panic: {}", message),
        };
        crate::log::log(crate::log::Level::Error, &line);
    }));
}

// Natively (a plugin's unit tests) the test harness reports panics.
#[cfg(not(target_arch = "wasm32"))]
fn report_panics() {}

/// `caldera_call`: serves the request of `len` bytes in the buffer and
/// returns the packed address and length of the reply.
pub fn call(new: fn() -> Box<dyn Serve>, hook: u32, len: u32) -> u64 {
    STATE.with(|st| {
        let State { input, reply, module } = &mut *st.borrow_mut();
        let n = (len as usize).min(input.len());
        module.get_or_insert_with(|| start(new)).call(hook, &input[..n], reply);
        pack(reply)
    })
}

/// A Wasm32 address (a pointer's value is not secret to the host: it is an
/// offset into the memory the host reads).
fn address(p: *const u8) -> u32 {
    p as usize as u32
}

/// `ptr << 32 | len` of a reply.
fn pack(b: &[u8]) -> u64 {
    u64::from(address(b.as_ptr())) << 32 | b.len() as u64
}
