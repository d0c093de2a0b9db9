//! Logging through the scheduler (docs/abi.md, section 4: the `caldera.log`
//! import). Messages appear in the scheduler's log with the plugin's name.
//! Every module imports it: the SDK reports a panic through it.

/// How important a message is; `Debug(v)` maps to klog verbosity `v`
/// (3 to 9).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Error,
    Warning,
    Info,
    Debug(u8),
}

impl Level {
    fn code(self) -> i32 {
        match self {
            Level::Error => 0,
            Level::Warning => 1,
            Level::Info => 2,
            Level::Debug(v) => i32::from(v.clamp(3, 9)),
        }
    }
}

/// Logs one message through the scheduler. Outside Wasm (in a plugin's
/// unit tests) it goes to stderr.
pub fn log(level: Level, message: &str) {
    imp::log(level.code(), message)
}

#[cfg(target_arch = "wasm32")]
mod imp {
    #[link(wasm_import_module = "caldera")]
    extern "C" {
        #[link_name = "log"]
        fn caldera_log(level: i32, ptr: *const u8, len: usize);
    }

    pub(super) fn log(level: i32, message: &str) {
        // SAFETY: the host reads len bytes at ptr, which the &str guarantees,
        // during the call only.
        unsafe { caldera_log(level, message.as_ptr(), message.len()) }
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    pub(super) fn log(level: i32, message: &str) {
        eprintln!("[caldera log {}] {}", level, message);
    }
}
