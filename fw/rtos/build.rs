//! Builds FreeRTOS and one C application into `libfreertos.a` and tells rustc how to link the
//! firmware against the couplet SDK.
//!
//! The kernel sources are the ones the `freertos-next` crate bundles (FreeRTOS-Kernel V11.2.0);
//! `freertos-build` compiles them with the GCC/RISC-V port, `FreeRTOSConfig.h` from this folder,
//! heap_4 and the application's C files, all with the same flags and `-D` configuration.
//!
//! Everything that depends on the SoC configuration comes from environment variables that
//! `couplet/rtos_fw.py` sets (run `couplet rtos build APP`): lists are one item per line.
//!
//! | variable                     | meaning                                                    |
//! |------------------------------|------------------------------------------------------------|
//! | `COUPLET_RTOS_APP_DIR`       | folder of the application's `.c`/`.S` files (required)     |
//! | `COUPLET_RTOS_CC`, `_AR`     | the cross compiler and archiver (required)                 |
//! | `COUPLET_RTOS_CFLAGS`        | flags for every C and assembly file, SDK `-I` dirs included |
//! | `COUPLET_RTOS_LINK_ARGS`     | GCC link arguments: SDK ldflags, start-up objects, libs    |
//! | `COUPLET_RTOS_DEPENDS`       | files and folders whose change must rebuild (headers, libs) |
//! | `COUPLET_RTOS_HEAP_SIZE`     | `configTOTAL_HEAP_SIZE` in bytes (heap_4)                  |
//! | `COUPLET_RTOS_KERNEL_DIR`    | optional: another FreeRTOS-Kernel tree (a patched copy)    |
//! | `COUPLET_RTOS_EXTRA_SOURCES` | optional: more C/assembly files for a kernel variant       |

use std::env;
use std::path::{Path, PathBuf};

/// FreeRTOS priorities 0..7; the hardware kernel accelerator's default supports 8 too.
const MAX_PRIORITIES: u8 = 8;
/// In words: the idle task's stack, and the unit the apps size their task stacks in.
const MINIMAL_STACK_WORDS: usize = 256;
/// Relative to the kernel tree: the CLINT flavour of the RISC-V port's chip-specific header.
const CHIP_EXTENSIONS: &str =
    "portable/GCC/RISC-V/chip_specific_extensions/RISCV_MTIME_CLINT_no_extensions";

fn var(name: &str) -> Option<String> {
    println!("cargo:rerun-if-env-changed={name}");
    env::var(name).ok().filter(|v| !v.is_empty())
}

fn required(name: &str) -> String {
    var(name).unwrap_or_else(|| {
        panic!(
            "{name} is not set: build the firmware with `couplet rtos build APP` (see docs/rtos.md)"
        )
    })
}

fn list(name: &str) -> Vec<String> {
    var(name)
        .map(|v| {
            v.lines()
                .map(str::to_owned)
                .filter(|l| !l.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

/// The `.c` and `.S` files directly inside `dir`, sorted so that builds are reproducible.
fn sources_in(dir: &Path) -> Vec<PathBuf> {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.is_file() && matches!(p.extension().and_then(|x| x.to_str()), Some("c" | "S"))
        })
        .collect();
    files.sort();
    files
}

fn main() {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let app_dir = PathBuf::from(required("COUPLET_RTOS_APP_DIR"));
    let common_dir = manifest_dir.join("apps").join("common");
    let heap_size: usize = required("COUPLET_RTOS_HEAP_SIZE")
        .parse()
        .expect("COUPLET_RTOS_HEAP_SIZE: a number of bytes");
    // The hardware-kernel variant points this at a patched copy of the kernel made at build time.
    let kernel_dir = var("COUPLET_RTOS_KERNEL_DIR")
        .or_else(|| env::var("DEP_FREERTOS_KERNEL").ok())
        .map(PathBuf::from)
        .expect("no FreeRTOS kernel: freertos-next did not report its bundled FreeRTOS-Kernel");

    let mut b = freertos_build::Builder::new();
    b.freertos_kernel(&kernel_dir);
    b.freertos_port("GCC/RISC-V");
    b.freertos_config_dir(&manifest_dir);
    b.heap("heap_4.c");
    b.heap_size(heap_size);
    b.minimal_stack_size(MINIMAL_STACK_WORDS);
    b.max_task_priorities(MAX_PRIORITIES);
    b.use_preemption(true);
    // configCPU_CLOCK_HZ is left to FreeRTOSConfig.h: in this port it is the mtime rate, which
    // the generated soc_config.h knows.

    let cc = b.get_cc();
    // Exactly the flags couplet chooses (no cc-rs defaults such as -fPIC or its own -march).
    cc.no_default_flags(true);
    cc.compiler(required("COUPLET_RTOS_CC"));
    cc.archiver(required("COUPLET_RTOS_AR"));
    for flag in list("COUPLET_RTOS_CFLAGS") {
        cc.flag(&flag);
    }
    cc.include(kernel_dir.join(CHIP_EXTENSIONS));
    cc.include(&common_dir);
    cc.include(&app_dir);

    b.add_build_files(sources_in(&common_dir));
    b.add_build_files(sources_in(&app_dir));
    b.add_build_files(list("COUPLET_RTOS_EXTRA_SOURCES"));
    if let Err(err) = b.compile() {
        panic!("building FreeRTOS failed: {err:?}");
    }

    // Folders are scanned whole by cargo: a new, removed or edited file rebuilds.
    println!("cargo:rerun-if-changed={}", app_dir.display());
    println!("cargo:rerun-if-changed={}", common_dir.display());
    for path in list("COUPLET_RTOS_DEPENDS") {
        println!("cargo:rerun-if-changed={path}");
    }
    for arg in list("COUPLET_RTOS_LINK_ARGS") {
        println!("cargo:rustc-link-arg-bins={arg}");
    }
}
