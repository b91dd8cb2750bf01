"""`couplet prove`: every formal check listed in hw/ip/*/formal/proofs.toml passes a short bounded
run, and each of its mutants (a bug the harness plants) is caught. The full proofs (k-induction)
are `couplet prove`'s own run, with its report in build/reports/prove.md (docs/formal.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_couplet
from couplet import paths
from couplet.errors import BuildError
from couplet.flows import prove
from couplet.tools import sby

PROOFS = prove.proofs()


def test_every_harness_is_listed_once() -> None:
    harnesses = {p.name for p in paths.IP_DIR.glob("*/formal/*_fv.sv")}
    listed = {s.name for p in PROOFS for s in p.sources if s.name.endswith("_fv.sv")}
    assert harnesses == listed
    # One harness may serve several checks, each with its own parameters.
    builds = [(p.top, p.params) for p in PROOFS]
    assert len(builds) == len(set(builds))
    # The bus, its slaves and the coupling layer's adapters are all covered.
    assert {"obi_demux", "obi_arbiter", "obi_fence", "reg_adapter", "xif_adapter", "accel_frontend", "dma_engine",
            "dma_engine_err", "dma_engine_bound", "dma_slots", "clint", "simctrl", "sram"} <= {p.name for p in PROOFS}


@pytest.mark.parametrize("proof", PROOFS, ids=[p.name for p in PROOFS])
def test_bounded_run_passes_and_every_mutant_is_caught(proof: prove.Proof, tmp_path: Path) -> None:
    result = prove.run_proof(proof, quick=True, out_dir=tmp_path)
    assert result.outcome.status == "PASS", f"{proof.name}: {result.outcome.failed} ({result.outcome.folder})"
    assert result.outcome.assertions > 0
    assert proof.mutants, f"{proof.name} has no mutant: nothing shows that its checks can fail"
    for name, mutant in result.mutants.items():
        assert mutant.status == "FAIL" and mutant.failed, f"{proof.name}: mutant {name} was not caught"
    assert result.verdict == "bounded"


def _check(status: str, failed: tuple[str, ...] = ()) -> sby.CheckResult:
    return sby.CheckResult(status, 3, failed, None, 0.0, Path("."))


def test_verdicts() -> None:
    proof = PROOFS[0]
    caught = {"M": _check("FAIL", ("x.Rule at f.sv:1",))}
    assert prove.ProofResult(proof, "prove", 9, _check("PASS"), caught).verdict == "proven"
    assert prove.ProofResult(proof, "prove", 9, _check("UNKNOWN"), caught).verdict == "bounded"
    assert prove.ProofResult(proof, "bmc", 9, _check("PASS"), caught).verdict == "bounded"
    assert prove.ProofResult(proof, "prove", 9, _check("FAIL", ("x.Rule at f.sv:1",)), caught).verdict == "failed"
    # A mutant that no check catches fails the proof: its checks may be unable to fail.
    missed = {"M": _check("PASS")}
    assert prove.ProofResult(proof, "prove", 9, _check("PASS"), missed).verdict == "failed"


def test_a_bad_entry_is_refused_by_name(tmp_path: Path) -> None:
    file = paths.IP_DIR / "obi" / "formal" / "proofs.toml"
    with pytest.raises(BuildError, match="unknown keys \\['dept'\\]"):
        prove._load(file, {"name": "x", "top": "x", "sources": [], "depth": 4, "dept": 3})
    with pytest.raises(BuildError, match="quick_depth"):
        prove._load(file, {"name": "x", "top": "x", "sources": [], "depth": 4, "quick_depth": 6})
    with pytest.raises(BuildError, match="no proof named nope"):
        prove.select(["nope"])


def test_cli_writes_the_report() -> None:
    proc = run_couplet("prove", "--quick", "obi_demux")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "obi_demux" in proc.stdout and "bounded to" in proc.stdout
    report = json.loads((paths.BUILD_DIR / "reports" / "prove-quick.json").read_text())
    [entry] = report["checks"]
    assert entry["name"] == "obi_demux" and entry["verdict"] == "bounded" and entry["assertions"] > 0
    assert all(m["status"] == "FAIL" for m in entry["mutants"].values())
