//! couplet FreeRTOS firmware: the entry point and the panic handler.
//!
//! The SDK's crt0 (`sw/bsp/crt0.S`) sets up gp, sp, tp and .bss, then calls `main`; its return
//! value becomes the program's exit code. Everything else is C, built by build.rs: FreeRTOS, the
//! glue in `apps/common/` and the application in `apps/<app>/`.

#![no_std]
#![no_main]

use core::panic::PanicInfo;

// Mirrors apps/common/couplet_rtos.h.
const EXIT_SCHEDULER_RETURNED: i32 = 110;
const EXIT_PANIC: i32 = 114;

unsafe extern "C" {
    fn couplet_rtos_install_trap_vector();
    fn app_main();
    fn vTaskStartScheduler();
    fn couplet_exit(code: i32) -> !;
}

#[unsafe(no_mangle)]
pub extern "C" fn main() -> i32 {
    // SAFETY: plain C functions without arguments, called once, before any task exists.
    unsafe {
        // The port does not set mtvec: from here on every trap goes to FreeRTOS.
        couplet_rtos_install_trap_vector();
        app_main();
        // Returns only when the idle task cannot be created (no heap left).
        vTaskStartScheduler();
    }
    EXIT_SCHEDULER_RETURNED
}

#[panic_handler]
fn panic(_info: &PanicInfo) -> ! {
    // SAFETY: ends the simulation; safe to call from any context.
    unsafe { couplet_exit(EXIT_PANIC) }
}
