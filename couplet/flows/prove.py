"""`couplet prove`: the formal property checks of the coupling layer (docs/formal.md).

Each IP lists its checks in hw/ip/<ip>/formal/proofs.toml: a harness (a top module that holds
the design under test, assumes what its environment does and asserts what the design promises),
its sources, the depth of the proof and the harness's mutants. A mutant is a define under which
the harness itself plants a bug between the design and the checks; each one must make a check
fail, which shows that the checks can fail at all.

- The full run (the default) tries a proof by k-induction to the entry's depth. A proof that
  closes holds in every reachable state ("proven"); one whose induction does not close still
  holds for `depth` cycles from reset ("bounded"). Each mutant gets a bounded run to that depth.
- `--quick` (the test suite's run) makes bounded runs only, to the entry's quick_depth.

The report (build/reports/prove.{json,md}) gives, per check, its assertions, the result and the
depth, and each mutant with the assertion that caught it.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from couplet import log, paths
from couplet.errors import BuildError
from couplet.model import rtl
from couplet.reports.results import markdown_table, write_report
from couplet.tools import sby

PROOFS_FILE = "proofs.toml"
KEYS = {"name", "top", "params", "sources", "core_sources", "depth", "quick_depth", "mutants"}


@dataclass(frozen=True)
class Proof:
    name: str
    top: str
    sources: tuple[Path, ...]
    depth: int
    params: tuple[tuple[str, str], ...]  # the top's parameters: one harness may serve several checks
    quick_depth: int
    mutants: tuple[str, ...]
    listed_in: Path


@dataclass(frozen=True)
class ProofResult:
    proof: Proof
    mode: str  # prove or bmc
    depth: int
    outcome: sby.CheckResult
    mutants: dict[str, sby.CheckResult]

    @property
    def verdict(self) -> str:
        """proven, bounded or failed; a mutant that no check catches also fails the proof."""
        status = self.outcome.status
        if status == "FAIL" or self.missed_mutants():
            return "failed"
        if status == "PASS" and self.mode == "prove":
            return "proven"
        return "bounded"

    def missed_mutants(self) -> list[str]:
        return [name for name, result in self.mutants.items() if result.status != "FAIL"]


def _proof_files() -> list[Path]:
    return sorted(paths.IP_DIR.glob(f"*/formal/{PROOFS_FILE}"))


def _load(file: Path, entry: dict[str, Any]) -> Proof:
    where = f"{file.relative_to(paths.ROOT)}: proof {entry.get('name', '?')!r}"
    unknown = set(entry) - KEYS
    missing = {"name", "top", "sources", "depth"} - set(entry)
    if unknown or missing:
        raise BuildError(f"{where}: unknown keys {sorted(unknown)}, missing keys {sorted(missing)}")
    sources = [paths.IP_DIR / s for s in entry["sources"]]
    if entry.get("core_sources"):
        by_name = {p.name: p for p in rtl.core_sources(simulation=False)}
        by_name.update({p.name: p for d in rtl.core_include_dirs() for p in d.glob("*.sv")})
        for name in entry["core_sources"]:
            if name not in by_name:
                raise BuildError(f"{where}: the CV32E40X has no source {name}")
        sources = [by_name[n] for n in entry["core_sources"]] + sources
    depth, quick = int(entry["depth"]), int(entry.get("quick_depth", entry["depth"]))
    if not 1 <= quick <= depth:
        raise BuildError(f"{where}: needs 1 <= quick_depth ({quick}) <= depth ({depth})")
    params = tuple((str(k), str(v)) for k, v in entry.get("params", {}).items())
    return Proof(entry["name"], entry["top"], tuple(sources), depth, params, quick, tuple(entry.get("mutants", [])),
                 file)


def proofs() -> list[Proof]:
    """Every check listed in the IPs' proofs.toml files, names unique."""
    found: dict[str, Proof] = {}
    for file in _proof_files():
        try:
            doc = tomllib.loads(file.read_text())
        except tomllib.TOMLDecodeError as err:
            raise BuildError(f"{file}: {err}") from err
        for entry in doc.get("proof", []):
            proof = _load(file, entry)
            if proof.name in found:
                raise BuildError(f"proof {proof.name!r} is listed twice ({found[proof.name].listed_in}, {file})")
            found[proof.name] = proof
    return list(found.values())


def select(names: list[str]) -> list[Proof]:
    every = proofs()
    if not names:
        return every
    by_name = {p.name: p for p in every}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise BuildError(f"no proof named {', '.join(unknown)}; known: {', '.join(sorted(by_name))}")
    return [by_name[n] for n in names]


def run_proof(proof: Proof, quick: bool, out_dir: Path) -> ProofResult:
    mode, depth = ("bmc", proof.quick_depth) if quick else ("prove", proof.depth)
    outcome = sby.run(sby.Check(proof.name, proof.top, proof.sources, mode, depth, params=proof.params), out_dir)
    mutants = {}
    for mutant in proof.mutants:
        check = sby.Check(f"{proof.name}-{mutant.lower()}", proof.top, proof.sources, "bmc", depth, (mutant,),
                          proof.params)
        mutants[mutant] = sby.run(check, out_dir)
    return ProofResult(proof, mode, depth, outcome, mutants)


def _result_cell(r: ProofResult) -> str:
    if r.verdict == "proven":
        return "proven (k-induction)"
    if r.verdict == "bounded":
        return f"bounded to {r.depth} cycles" + (" (induction did not close)" if r.mode == "prove" else "")
    if r.outcome.status == "FAIL":
        return "FAILED: " + "; ".join(r.outcome.failed)
    return "FAILED: mutant not caught: " + ", ".join(r.missed_mutants())


def _mutant_cell(r: ProofResult) -> str:
    cells = []
    for name, m in r.mutants.items():
        caught = m.failed[0].split(" at ")[0].split(".")[-1] if m.failed else "NOT CAUGHT"
        cells.append(f"{name.removeprefix('FV_MUTANT_').lower()}: {caught}")
    return ", ".join(cells) or "-"


def report(results: list[ProofResult], quick: bool) -> tuple[str, dict[str, Any], str]:
    """The console table, the JSON document and the Markdown report of a run."""
    headers = ["check", "assertions", "result", "mutants caught", "seconds"]
    rows = [[r.proof.name, str(r.outcome.assertions), _result_cell(r),
             f"{len(r.mutants) - len(r.missed_mutants())} of {len(r.mutants)}",
             f"{r.outcome.seconds + sum(m.seconds for m in r.mutants.values()):.0f}"]
            for r in results]
    data = {
        "quick": quick,
        "solver": sby.SOLVER,
        "checks": [{
            "name": r.proof.name, "top": r.proof.top, "mode": r.mode, "depth": r.depth,
            "assertions": r.outcome.assertions, "verdict": r.verdict, "status": r.outcome.status,
            "failed": list(r.outcome.failed), "seconds": round(r.outcome.seconds, 1),
            "trace": str(r.outcome.trace) if r.outcome.status == "FAIL" and r.outcome.trace else None,
            "mutants": {n: {"status": m.status, "caught_by": list(m.failed)} for n, m in r.mutants.items()},
        } for r in results],
    }
    title = "Formal property checks" + (" (quick: bounded runs)" if quick else "")
    markdown = f"# {title}\n\n`couplet prove{' --quick' if quick else ''}`, SymbiYosys with {sby.SOLVER}.\n\n"
    markdown += markdown_table(headers, rows)
    markdown += "\n" + markdown_table(["check", "mutant: the assertion that caught it"],
                                      [[r.proof.name, _mutant_cell(r)] for r in results])
    markdown += ("\nproven: holds in every reachable state; bounded: holds for that many cycles from reset. "
                 "Each mutant plants a bug in the harness; the assertion named is the one that caught it.\n")
    return log.table(headers, rows), data, markdown


def prove(names: list[str], quick: bool) -> int:
    selected = select(names)
    out_dir = paths.BUILD_DIR / "prove" / ("quick" if quick else "full")
    results = []
    for i, proof in enumerate(selected, 1):
        what = f"bounded to {proof.quick_depth}" if quick else f"k-induction to {proof.depth}"
        log.info(f"[{i}/{len(selected)}] {proof.name}: {what}, {len(proof.mutants)} mutant(s)")
        result = run_proof(proof, quick, out_dir)
        log.info(f"[{i}/{len(selected)}] {proof.name}: {_result_cell(result)}")
        results.append(result)
    text, data, markdown = report(results, quick)
    print(text)
    json_path, md_path = write_report("prove-quick" if quick else "prove", data, markdown)
    log.info(f"wrote {json_path} and {md_path}")
    failed = [r.proof.name for r in results if r.verdict == "failed"]
    if failed:
        log.error(f"failed: {', '.join(failed)} (counterexamples under {out_dir})")
        return 1
    return 0

