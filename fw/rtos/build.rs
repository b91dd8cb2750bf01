//! Builds FreeRTOS and one C application into `libfreertos.a` and tells rustc how to link the
//! firmware against the couplet SDK.
//!
//! The kernel sources are the ones the `freertos-next` crate bundles (FreeRTOS-Kernel V11.2.0);
//! `freertos-build` compiles them with the GCC/RISC-V port, `FreeRTOSConfig.h` from this folder,
//! heap_4 and the application's C files, all with the same flags and `-D` configuration.
//!
//! Everything that depends on the SoC configuration comes from environment variables that
//! `couplet/tools/freertos.py` sets (run `couplet rtos build APP`): lists are one item per line.
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
//! | `COUPLET_RTOS_EXTRA_SOURCES` | optional: more C/assembly files for a kernel variant (their |
//! |                              | folders are on the include path too)                       |
//! | `COUPLET_RTOS_KERNEL_PATCHES`| optional: patches (`patch -p1`) applied to a fresh copy of  |
//! |                              | the kernel in OUT_DIR, which is then built instead         |

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

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

/// Relative to the kernel tree: what the build compiles or includes, so what a patched copy needs.
const KERNEL_PARTS: &[&str] = &[
    "include",
    "portable/GCC/RISC-V",
    "portable/MemMang/heap_4.c",
];

/// Copies `from` (a file or a folder, recursively) to `to`, keeping every file's modification
/// time: freertos-build declares the kernel's files with `rerun-if-changed`, and a file newer
/// than the build script's start would make cargo rerun it on every build.
fn copy_keeping_mtime(from: &Path, to: &Path) {
    if from.is_dir() {
        fs::create_dir_all(to).unwrap_or_else(|e| panic!("{}: {e}", to.display()));
        let entries = fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
        for entry in entries.filter_map(Result::ok) {
            copy_keeping_mtime(&entry.path(), &to.join(entry.file_name()));
        }
        return;
    }
    if let Some(parent) = to.parent() {
        fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{}: {e}", parent.display()));
    }
    fs::copy(from, to).unwrap_or_else(|e| panic!("copying {}: {e}", from.display()));
    set_mtime_of(to, from);
}

fn set_mtime_of(file: &Path, like: &Path) {
    let mtime = fs::metadata(like)
        .and_then(|m| m.modified())
        .unwrap_or_else(|e| panic!("{}: {e}", like.display()));
    fs::File::options()
        .write(true)
        .open(file)
        .and_then(|f| f.set_modified(mtime))
        .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
}

/// A fresh copy of the kernel's compiled and included files in OUT_DIR with `patches` applied,
/// in order. Made anew on every run of this script, so a changed patch always applies to the
/// pristine sources. A patch that does not apply cleanly (no fuzz) stops the build with
/// patch's own output.
fn patched_kernel(pristine: &Path, patches: &[String]) -> PathBuf {
    let copy = PathBuf::from(env::var("OUT_DIR").unwrap()).join("FreeRTOS-Kernel");
    if copy.exists() {
        fs::remove_dir_all(&copy).unwrap_or_else(|e| panic!("{}: {e}", copy.display()));
    }
    fs::create_dir_all(&copy).unwrap_or_else(|e| panic!("{}: {e}", copy.display()));
    for file in sources_in(pristine) {
        copy_keeping_mtime(&file, &copy.join(file.file_name().unwrap()));
    }
    for part in KERNEL_PARTS {
        copy_keeping_mtime(&pristine.join(part), &copy.join(part));
    }
    for patch in patches {
        println!("cargo:rerun-if-changed={patch}");
        let output = Command::new("patch")
            .args([
                "-p1",
                "--forward",
                "--batch",
                "--no-backup-if-mismatch",
                "--fuzz=0",
            ])
            .arg("--reject-file=-")
            .arg("-d")
            .arg(&copy)
            .arg("-i")
            .arg(patch)
            .output()
            .unwrap_or_else(|e| panic!("running patch for {patch}: {e}"));
        if !output.status.success() {
            panic!(
                "kernel patch {patch} does not apply cleanly to {}:\n{}{}",
                pristine.display(),
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
        }
    }
    // The files patch rewrote are newer than this script's start; give them their pristine
    // times back (the patches themselves are declared with rerun-if-changed above).
    for file in sources_in(&copy) {
        set_mtime_of(&file, &pristine.join(file.file_name().unwrap()));
    }
    for part in KERNEL_PARTS {
        reset_mtimes(&copy.join(part), &pristine.join(part));
    }
    copy
}

fn reset_mtimes(copy: &Path, pristine: &Path) {
    if copy.is_dir() {
        for entry in fs::read_dir(copy).unwrap().filter_map(Result::ok) {
            reset_mtimes(&entry.path(), &pristine.join(entry.file_name()));
        }
    } else if pristine.is_file() {
        set_mtime_of(copy, pristine);
    }
}

fn main() {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let app_dir = PathBuf::from(required("COUPLET_RTOS_APP_DIR"));
    let common_dir = manifest_dir.join("apps").join("common");
    let heap_size: usize = required("COUPLET_RTOS_HEAP_SIZE")
        .parse()
        .expect("COUPLET_RTOS_HEAP_SIZE: a number of bytes");
    let pristine_dir = var("COUPLET_RTOS_KERNEL_DIR")
        .or_else(|| env::var("DEP_FREERTOS_KERNEL").ok())
        .map(PathBuf::from)
        .expect("no FreeRTOS kernel: freertos-next did not report its bundled FreeRTOS-Kernel");
    // The hardware-kernel variants build a patched copy of the kernel made here.
    let patches = list("COUPLET_RTOS_KERNEL_PATCHES");
    let kernel_dir = if patches.is_empty() {
        pristine_dir
    } else {
        patched_kernel(&pristine_dir, &patches)
    };
    let extra_sources = list("COUPLET_RTOS_EXTRA_SOURCES");

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
    // A variant's glue headers sit next to its sources (the patched kernel includes them).
    for source in &extra_sources {
        if let Some(folder) = Path::new(source).parent() {
            cc.include(folder);
            println!("cargo:rerun-if-changed={}", folder.display());
        }
    }

    b.add_build_files(sources_in(&common_dir));
    b.add_build_files(sources_in(&app_dir));
    b.add_build_files(&extra_sources);
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
