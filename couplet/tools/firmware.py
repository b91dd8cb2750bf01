"""Firmware builds: the SDK library of a configuration and the apps linked against it.

Flags follow ``shared/notes/toolchain.md``: compile for rv32imac with Zicsr/Zifencei, link
with plain rv32imac so the linker picks the rv32imac/ilp32 multilib of picolibc. Objects are
rebuilt only when a source, a header it includes (from gcc's -MMD files) or the flags change.
"""

from __future__ import annotations

import hashlib
import subprocess
from dataclasses import dataclass
from pathlib import Path

from couplet import log, paths
from couplet.errors import BuildError
from couplet.gen.generate import write_config_outputs
from couplet.model.config import SocConfig

ARCH_CFLAGS = ["-march=rv32imac_zicsr_zifencei", "-mabi=ilp32"]
ARCH_LDFLAGS = ["-march=rv32imac", "-mabi=ilp32"]
# GCC 12's early scheduler makes rv32 code spill heavily at -O2 (toolchain notes): leave it off.
OPT_CFLAGS = ["-O2", "-fno-schedule-insns", "-g"]
WARN_CFLAGS = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-Wshadow", "-Wstrict-prototypes"]
COMMON_CFLAGS = [*ARCH_CFLAGS, "--specs=picolibc.specs", "-ffunction-sections", "-fdata-sections"]

BSP_SOURCES = ("crt0.S", "trap_entry.S")


@dataclass(frozen=True)
class Sdk:
    """What an app needs to compile and link against the SDK of one configuration."""

    config: SocConfig
    build_dir: Path
    startup_objects: tuple[Path, ...]
    library: Path
    linker_script: Path

    @property
    def include_dirs(self) -> list[Path]:
        return [paths.SW_DIR / "include", self.build_dir.parent / "gen" / "include"]

    @property
    def cflags(self) -> list[str]:
        return [*COMMON_CFLAGS, *OPT_CFLAGS, *WARN_CFLAGS, *(f"-I{d}" for d in self.include_dirs)]

    @property
    def ldflags(self) -> list[str]:
        return [
            *ARCH_LDFLAGS,
            "--specs=picolibc.specs",
            "-nostartfiles",
            f"-T{self.linker_script}",
            "-Wl,--gc-sections",
            # One RAM holds everything, so the single RWX segment is by design.
            "-Wl,--no-warn-rwx-segments",
        ]

    @property
    def libs(self) -> list[str]:
        # picolibc calls back into the SDK (stdout, _exit): resolve the two archives as a group.
        return [
            *(str(o) for o in self.startup_objects),
            "-Wl,--start-group",
            str(self.library),
            "-lc",
            "-Wl,--end-group",
        ]


def _run(cmd: list[str], what: str) -> None:
    log.debug(" ".join(cmd))
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise BuildError(f"{what} failed:\n{proc.stdout}{proc.stderr}".rstrip())


def _flags_stamp(flags: list[str]) -> str:
    return hashlib.sha256("\0".join(flags).encode()).hexdigest()[:16]


def _up_to_date(obj: Path, source: Path, stamp: str) -> bool:
    dep = obj.with_suffix(".d")
    stamp_file = obj.with_suffix(".flags")
    if not (obj.exists() and dep.exists() and stamp_file.exists()):
        return False
    if stamp_file.read_text() != stamp:
        return False
    built = obj.stat().st_mtime
    # gcc's -MMD output: "obj: src hdr1 hdr2 \\\n hdr3 ..."
    prerequisites = dep.read_text().replace("\\\n", " ").split(":", 1)[-1].split()
    for item in [str(source), *prerequisites]:
        path = Path(item)
        if not path.exists() or path.stat().st_mtime > built:
            return False
    return True


def compile_sources(sources: list[Path], out_dir: Path, cflags: list[str]) -> list[Path]:
    gcc = paths.cross_tool("gcc")
    stamp = _flags_stamp(cflags)
    objects = []
    for source in sources:
        obj = out_dir / (source.name + ".o")
        if not _up_to_date(obj, source, stamp):
            obj.parent.mkdir(parents=True, exist_ok=True)
            _run([gcc, *cflags, "-MMD", "-c", str(source), "-o", str(obj)], f"compiling {source}")
            obj.with_suffix(".flags").write_text(stamp)
        objects.append(obj)
    return objects


def build_sdk(config: SocConfig) -> Sdk:
    """Generate the config's header and linker script, then build the BSP and libcouplet.a."""
    build_dir = paths.config_build_dir(config.name) / "sdk"
    generated = write_config_outputs(config, paths.config_build_dir(config.name) / "gen")
    sdk = Sdk(
        config=config,
        build_dir=build_dir,
        startup_objects=tuple(build_dir / "bsp" / (s + ".o") for s in BSP_SOURCES),
        library=build_dir / "libcouplet.a",
        linker_script=generated["linker"],
    )
    compile_sources([paths.SW_DIR / "bsp" / s for s in BSP_SOURCES], build_dir / "bsp", sdk.cflags)
    # Each service may keep its files in a folder of its own (sw/lib/aes/).
    lib_sources = sorted((paths.SW_DIR / "lib").rglob("*.c"))
    lib_objects = compile_sources(lib_sources, build_dir / "lib", sdk.cflags)
    # Rebuilt from scratch when an object is newer or the set of sources changed, so that the
    # object of a deleted source cannot linger in the archive.
    members_file = sdk.library.with_suffix(".members")
    members = "\n".join(o.name for o in lib_objects)
    newest = max(o.stat().st_mtime for o in lib_objects)
    stale = not sdk.library.exists() or sdk.library.stat().st_mtime < newest
    if stale or not members_file.exists() or members_file.read_text() != members:
        sdk.library.unlink(missing_ok=True)
        _run([paths.cross_tool("ar"), "rcs", str(sdk.library), *map(str, lib_objects)], "archiving libcouplet.a")
        members_file.write_text(members)
    return sdk


def app_folder(app: str | Path, apps_dir: Path, what: str = "app", reserved: tuple[str, ...] = ()) -> Path:
    """The folder of an app given as a path to a folder of its own, or as the name of a folder in
    `apps_dir` (a path wins, as on a shell). `reserved` folders of `apps_dir` are not apps; `what`
    names the kind of app in errors. The answer is absolute."""
    given = Path(app)
    folder = given if given.is_dir() else apps_dir / given
    resolved = folder.resolve() if folder.is_dir() else None
    if resolved is not None and resolved not in {(apps_dir / r).resolve() for r in reserved}:
        return resolved
    if len(given.parts) != 1:
        raise BuildError(f"no {what} folder '{app}' (not a folder, or one that is not an app)")
    known = ", ".join(sorted(p.name for p in apps_dir.iterdir() if p.is_dir() and p.name not in reserved))
    raise BuildError(
        f"no {what} '{app}' in {apps_dir.relative_to(paths.ROOT)}/ (known: {known}), and no folder '{app}' here"
    )


def folder_sources(folder: Path, what: str = "app") -> list[Path]:
    """The .c and .S files directly in an app's folder, sorted; none is an error."""
    sources = sorted([*folder.glob("*.c"), *folder.glob("*.S")])
    if not sources:
        raise BuildError(f"{what} folder {folder} has no .c or .S files")
    return [s.resolve() for s in sources]


def app_sources(app: str | Path) -> tuple[str, list[Path]]:
    """An app is a folder in sw/apps/, a folder of C files, or one C file."""
    given = Path(app)
    if given.suffix == ".c" and given.is_file():
        return given.stem, [given.resolve()]
    folder = app_folder(app, paths.APPS_DIR)
    return folder.name, folder_sources(folder)


def build_app(
    config: SocConfig, app: str | Path, out: Path | None = None, defines: dict[str, str] | None = None
) -> Path:
    """Compile and link an app; `defines` (-DNAME=VALUE for the app's own files) build a variant of
    it in a folder of its own, e.g. a benchmark with fewer runs for the test suite."""
    sdk = build_sdk(config)
    name, sources = app_sources(app)
    variant = "".join(f"-{k}={v}" for k, v in sorted((defines or {}).items()))
    app_dir = paths.config_build_dir(config.name) / "apps" / (name + variant)
    cflags = [*sdk.cflags, *(f"-D{k}={v}" for k, v in sorted((defines or {}).items()))]
    objects = compile_sources(sources, app_dir, cflags)
    elf = out or app_dir / f"{name}.elf"
    inputs = [*objects, *sdk.startup_objects, sdk.library, sdk.linker_script]
    if not elf.exists() or elf.stat().st_mtime < max(p.stat().st_mtime for p in inputs):
        elf.parent.mkdir(parents=True, exist_ok=True)
        log.info(f"linking {name} for '{config.name}'")
        _run(
            [paths.cross_tool("gcc"), *sdk.ldflags, *map(str, objects), *sdk.libs, "-o", str(elf)],
            f"linking {name}",
        )
    return elf
