"""FreeRTOS firmware: a C app from fw/rtos/apps/ with the FreeRTOS kernel, built by cargo.

The kernel sources come only from the `freertos-next` crate and are compiled only by the
firmware crate's build.rs (fw/rtos/build.rs) through `freertos-build`. This module prepares the
SDK of the configuration, hands build.rs what it needs through environment variables (the C
flags, the link arguments, the heap size, the app folder) and runs `cargo build`. Cargo keeps
one target folder per app and kernel variant under build/<config>/rtos/, so a second build
with nothing changed only checks timestamps.

Kernel variants (`VARIANTS`): "sw" is FreeRTOS as released; "hw-tight" and "hw-mmio" build a
copy of the kernel patched by fw/rtos/kernel_hw/*.patch (build.rs applies the patches at build
time) with the glue fw/rtos/kernel_hw/couplet_kernel_hw.c, so that the RTOS accelerator's thread
manager and scheduler serve the kernel through the named coupling (docs/rtos.md).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from couplet import log, paths
from couplet.errors import BuildError
from couplet.model.config import SocConfig
from couplet.tools import firmware

CRATE_DIR = paths.ROOT / "fw" / "rtos"
APPS_DIR = CRATE_DIR / "apps"
COMMON_DIR = APPS_DIR / "common"
KERNEL_HW_DIR = CRATE_DIR / "kernel_hw"
CONFIG_HEADER = CRATE_DIR / "FreeRTOSConfig.h"
# Code shared by apps: an app's `libraries` file names folders of LIB_DIR, one per line.
LIB_DIR = CRATE_DIR / "lib"
LIBRARIES_FILE = "libraries"
RUST_TARGET = "riscv32imac-unknown-none-elf"
BINARY_NAME = "couplet-rtos"
# Room left in SRAM, besides the start-up stack, for code, data and picolibc (test_kernel needs
# about 30 KiB, test_api on the sw kernel with its static tasks about 47 KiB): the rest is
# FreeRTOS's heap. The link fails (linker script ASSERT) if it is short.
PROGRAM_RESERVE = 52 * 1024
# The hardware kernels' patched kernel and glue are about 5 KiB more code (test_api: 33.6 KiB on
# sw, 38.1 KiB on hw-mmio), and an app that allocates statically keeps its tasks' stacks in
# .bss: their heap leaves 8 KiB more (they run only on SoCs with the RTOS accelerator, never on
# one as small as `small`).
PROGRAM_RESERVE_HW = PROGRAM_RESERVE + 8 * 1024
MIN_HEAP = 8 * 1024
# -Os as ChamelIoT used; the SDK's own code keeps its -O2 (it is prebuilt in libcouplet.a).
RTOS_OPT_CFLAGS = ["-Os", "-g"]
# Our C (apps, libraries, kernel_hw glue) builds in one compilation with the kernel, so the flags
# are shared. The kernel is -Wextra clean except one warning of its RISC-V port: port.c casts its
# uint64_t timer-compare base to a pointer (64-bit integer to 32-bit pointer), which is not ours to
# change; only that warning is left a warning.
RTOS_WARN_CFLAGS = ["-std=gnu11", "-Wall", "-Wextra", "-Werror", "-Wno-error=int-to-pointer-cast"]


@dataclass(frozen=True)
class KernelVariant:
    """Which FreeRTOS kernel the firmware is built with."""

    name: str
    kernel_dir: Path | None = None  # None: the FreeRTOS-Kernel bundled by freertos-next
    extra_sources: tuple[Path, ...] = ()  # their folders are on the include path too
    defines: tuple[str, ...] = ()  # NAME or NAME=VALUE, for the kernel and the app alike
    # Applied in order with `patch -p1` to a fresh copy of the kernel (kernel_dir or the bundled
    # one) that build.rs makes in its OUT_DIR; the copy is what gets built.
    patches: tuple[Path, ...] = ()
    # The coupling of the SoC's RTOS accelerator this variant calls (None: needs none).
    rtos_coupling: str | None = None

    def max_tasks(self, config: SocConfig) -> int | None:
        """Tasks (the idle task included) the kernel holds at once on `config`: the RTOS
        accelerator's threads for a variant that uses it; None: as many as the heap allows."""
        if self.rtos_coupling is None or config.rtos is None:
            return None
        return config.rtos.max_threads

    def check(self, config: SocConfig) -> None:
        """A clear error when `config` lacks what the variant needs."""
        if self.rtos_coupling is None:
            return
        if config.rtos is None:
            raise BuildError(
                f"FreeRTOS kernel variant '{self.name}' needs the RTOS accelerator, and config "
                f"'{config.name}' has none ([accelerator.rtos] with the '{self.rtos_coupling}' coupling)"
            )
        if not config.rtos.has(self.rtos_coupling):
            raise BuildError(
                f"FreeRTOS kernel variant '{self.name}' needs the '{self.rtos_coupling}' coupling of the RTOS "
                f"accelerator, and config '{config.name}' has only {', '.join(config.rtos.couplings)} "
                "([accelerator.rtos] couplings)"
            )


def _hw_variant(coupling: str) -> KernelVariant:
    """FreeRTOS whose thread manager and scheduler, semaphores and queues are the RTOS accelerator's,
    through `coupling` (fw/rtos/kernel_hw/README.md)."""
    return KernelVariant(
        name=f"hw-{coupling}",
        extra_sources=(KERNEL_HW_DIR / "couplet_kernel_hw.c", KERNEL_HW_DIR / "couplet_kernel_hw_sync.c"),
        defines=("COUPLET_RTOS_KERNEL_HW=1", f"COUPLET_RTOS_BACKEND=COUPLET_RTOS_BACKEND_{coupling.upper()}"),
        patches=(KERNEL_HW_DIR / "freertos_h.patch", KERNEL_HW_DIR / "tasks.patch", KERNEL_HW_DIR / "tasks_sync.patch",
                 KERNEL_HW_DIR / "queue.patch", KERNEL_HW_DIR / "tasks_abort.patch",
                 KERNEL_HW_DIR / "queue_restricted.patch"),
        rtos_coupling=coupling,
    )


VARIANTS: dict[str, KernelVariant] = {
    "sw": KernelVariant("sw"),
    "hw-tight": _hw_variant("tight"),
    "hw-mmio": _hw_variant("mmio"),
}


def cargo_tool() -> Path:
    """cargo from PATH, else from where rustup installs it (CI may not have it on PATH)."""
    found = shutil.which("cargo")
    candidates = [Path(found)] if found else []
    cargo_home = os.environ.get("CARGO_HOME")
    if cargo_home:
        candidates.append(Path(cargo_home) / "bin" / "cargo")
    candidates += [Path.home() / ".cargo" / "bin" / "cargo", Path("/root/.cargo/bin/cargo")]
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    raise paths.ToolError("cargo is not installed (looked on PATH and in ~/.cargo/bin); run ./bootstrap.sh")


def kernel_setting(name: str) -> int:
    """A number #defined by the tree's fw/rtos/FreeRTOSConfig.h (an app's FreeRTOSConfig_app.h
    may change it for that app)."""
    found = re.search(rf"^#define {name} (\d+)$", CONFIG_HEADER.read_text(), re.MULTILINE)
    if not found:
        raise BuildError(f"{CONFIG_HEADER} defines no number {name}")
    return int(found[1])


def kernel_tasks() -> int:
    """Tasks the kernel runs itself: the idle task, and the timer service task when software
    timers are on. On the hardware kernels each takes a node of the accelerator's thread table."""
    return 1 + kernel_setting("configUSE_TIMERS")


def app_dir(app: str | Path) -> Path:
    """An app's folder: a name in fw/rtos/apps/, or a folder anywhere (docs/rtos-app.md)."""
    folder = firmware.app_folder(app, APPS_DIR, "FreeRTOS app", reserved=(COMMON_DIR.name,))
    firmware.folder_sources(folder, "FreeRTOS app")
    return folder


def app_libraries(app: Path) -> list[Path]:
    """The folders of fw/rtos/lib/ that app folder `app` names in its `libraries` file (one per
    line; blank lines and `#` comments ignored): their .c/.S files are built with the app and the
    folders are on the include path. No file: none."""
    listing = app / LIBRARIES_FILE
    if not listing.is_file():
        return []
    known = sorted(p.name for p in LIB_DIR.iterdir() if p.is_dir()) if LIB_DIR.is_dir() else []
    folders: list[Path] = []
    for number, line in enumerate(listing.read_text().splitlines(), 1):
        name = line.split("#", 1)[0].strip()
        if not name:
            continue
        if name not in known:
            raise BuildError(f"{listing}:{number}: no FreeRTOS library '{name}' in fw/rtos/lib/ "
                             f"(known: {', '.join(known) or 'none'})")
        folder = LIB_DIR / name
        if folder not in folders:
            folders.append(folder)
    return folders


def library_sources(folders: list[Path]) -> list[Path]:
    """The .c and .S files directly inside each library folder, in a reproducible order."""
    return [f for folder in folders for f in sorted(folder.iterdir()) if f.is_file() and f.suffix in (".c", ".S")]


def heap_size(config: SocConfig, variant: KernelVariant) -> int:
    reserve = PROGRAM_RESERVE if variant.rtos_coupling is None else PROGRAM_RESERVE_HW
    size = (config.sram.size - config.stack_size - reserve) // 1024 * 1024
    if size < MIN_HEAP:
        raise BuildError(
            f"config '{config.name}': {config.sram.size // 1024} KiB of SRAM leave no room for a FreeRTOS heap "
            f"of at least {MIN_HEAP // 1024} KiB"
        )
    return size


def target_dir(config: SocConfig, app: str | Path, variant: KernelVariant) -> Path:
    """Cargo's target folder of an app and kernel variant. Apps outside fw/rtos/apps/ build under
    rtos-ext/, so that one named like an app of the tree does not rebuild the tree's each time."""
    folder = app_dir(app)
    base = "rtos" if folder.parent == APPS_DIR.resolve() else "rtos-ext"
    name = folder.name if variant.name == "sw" else f"{folder.name}-{variant.name}"
    return paths.config_build_dir(config.name) / base / name


def _cflags(sdk: firmware.Sdk, variant: KernelVariant) -> list[str]:
    return [
        *firmware.COMMON_CFLAGS,
        *RTOS_OPT_CFLAGS,
        *RTOS_WARN_CFLAGS,
        *(f"-I{d}" for d in sdk.include_dirs),
        *(f"-D{d}" for d in variant.defines),
    ]


def _link_args(sdk: firmware.Sdk) -> list[str]:
    return [
        *sdk.ldflags,
        # Interrupts run on the start-up stack once the scheduler runs (FreeRTOSConfig.h).
        "-Wl,--defsym=__freertos_irq_stack_top=__stack_top",
        *sdk.libs,
        # rustc links with -nodefaultlibs: GCC's helpers (64-bit division for printf) are ours to add.
        "-lgcc",
    ]


def _environment(
    config: SocConfig, sdk: firmware.Sdk, app: Path, variant: KernelVariant, cargo: Path
) -> dict[str, str]:
    env = dict(os.environ)
    # cargo calls rustc and the linker by name: its own folder and the cross tools must be found.
    env["PATH"] = os.pathsep.join([str(cargo.parent), env.get("PATH", "")])
    # Flags meant for the host would reach our cross builds through cargo and cc-rs.
    for name in ("RUSTFLAGS", "CFLAGS", "CARGO_BUILD_TARGET", "CARGO_TARGET_DIR"):
        env.pop(name, None)
    libraries = app_libraries(app)
    depends = [*sdk.include_dirs, *sdk.startup_objects, sdk.library, sdk.linker_script, *variant.patches,
               *libraries]
    extra_sources = [*variant.extra_sources, *library_sources(libraries)]
    env.update(
        {
            "COUPLET_RTOS_APP_DIR": str(app),
            "COUPLET_RTOS_CC": paths.cross_tool("gcc"),
            "COUPLET_RTOS_AR": paths.cross_tool("ar"),
            "COUPLET_RTOS_CFLAGS": "\n".join(_cflags(sdk, variant)),
            "COUPLET_RTOS_LINK_ARGS": "\n".join(_link_args(sdk)),
            "COUPLET_RTOS_DEPENDS": "\n".join(str(p) for p in depends),
            "COUPLET_RTOS_HEAP_SIZE": str(heap_size(config, variant)),
            "COUPLET_RTOS_KERNEL_DIR": str(variant.kernel_dir or ""),
            "COUPLET_RTOS_EXTRA_SOURCES": "\n".join(str(p) for p in extra_sources),
            "COUPLET_RTOS_KERNEL_PATCHES": "\n".join(str(p) for p in variant.patches),
        }
    )
    return env


def our_warnings(cargo_output: str, app: Path | None = None) -> list[str]:
    """The C compiler's warnings about files of fw/rtos/ (apps, glue) and of the app's folder
    `app`, from cargo's output.

    cargo shows a build script's compiler output only when the build script reruns, as lines
    "warning: <package>@<version>: <text>". Warnings about the kernel's own files are left out:
    they are upstream's to fix.
    """
    lines = []
    ours = False
    for line in cargo_output.splitlines():
        if not line.startswith(f"warning: {BINARY_NAME}@"):
            continue
        text = line.split(": ", 2)[-1] if line.count(": ") >= 2 else ""
        if text.startswith("/"):
            ours = any(text.startswith(f"{folder}/") for folder in (CRATE_DIR, app) if folder is not None)
        if ours:
            lines.append(text)
    return lines


def _failure_reasons(cargo_output: str) -> list[str]:
    """What stopped a build, for the error's first line: build.rs's own reason (a kernel patch
    that does not apply) or an #error of the configuration (FreeRTOSConfig.h, the kernel_hw glue:
    a setting the kernel variant cannot serve), as "FILE:LINE:COL: #error ...". Cargo's whole
    account follows in the error anyway."""
    reasons = []
    for line in cargo_output.splitlines():
        if "does not apply cleanly" in line:
            reasons.append(line.strip())
        elif ": error: #error " in line:
            text = line.split(": ", 2)[-1] if line.startswith(f"warning: {BINARY_NAME}@") else line.strip()
            reasons.append(text.replace(": error: #error ", ": #error ", 1))
    return reasons


def build_rtos_app(config: SocConfig, app: str | Path, variant: str = "sw") -> Path:
    """Build FreeRTOS app `app` (a folder in fw/rtos/apps/, or a path to a folder of its own) for
    `config`; returns the ELF."""
    if variant not in VARIANTS:
        raise BuildError(f"no FreeRTOS kernel variant '{variant}' (known: {', '.join(VARIANTS)})")
    kernel = VARIANTS[variant]
    kernel.check(config)
    folder = app_dir(app)
    name = folder.name
    app_libraries(folder)  # an unknown library name fails here, before anything is built
    sdk = firmware.build_sdk(config)
    cargo = cargo_tool()
    out_dir = target_dir(config, folder, kernel)
    built = out_dir / RUST_TARGET / "release" / BINARY_NAME
    if not built.exists():
        log.info(f"building FreeRTOS and '{name}' for '{config.name}' (the first build takes about 15 s)")
    command = [str(cargo), "build", "--release", "--locked", "--target", RUST_TARGET, "--target-dir", str(out_dir)]
    log.debug(" ".join(command))
    start = time.monotonic()
    proc = subprocess.run(
        command, cwd=CRATE_DIR, env=_environment(config, sdk, folder, kernel, cargo), capture_output=True, text=True
    )
    if proc.returncode != 0:
        reasons = _failure_reasons(proc.stderr)
        headline = f"building FreeRTOS app '{name}' failed:" + "".join(f" {r}" for r in reasons[:1])
        raise BuildError(f"{headline}\n{proc.stdout}{proc.stderr}".rstrip())
    for line in our_warnings(proc.stderr, folder):
        log.info(line)
    log.debug(f"cargo finished in {time.monotonic() - start:.1f} s")
    elf = out_dir / f"{name}.elf"
    if not elf.exists() or elf.stat().st_mtime < built.stat().st_mtime:
        shutil.copy2(built, elf)
    return elf
