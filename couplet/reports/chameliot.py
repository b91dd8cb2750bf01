"""ChamelIoT's Thread-Metric results (its Table II), written once, and the cycles per iteration
derived from them.

Source: the ChamelIoT paper (seed `chameliot_hw_rtos.txt`), section IV-C "RTOS performance",
Table II "Thread-Metric benchmark results": the loop count of each benchmark over a period of
30 seconds (the mean of 100 such periods), per OS, without (SW) and with (HW) the accelerator.
Section IV-A gives the clock: an E31 Coreplex core (RV32IMAC) with the accelerator on RoCC, on an
Arty A7-100T at 65 MHz; FreeRTOS v10.2.1, RIOT v6ae67, Zephyr v2.6.0-577, GCC 9.2.0 with -Os.

A period of 30 s at 65 MHz is 1.95e9 cycles, so one iteration took 65e6 * 30 / count cycles on
average, tick interrupts and everything else the kernel did in the period included. Table II's
third row per OS (HW vs SW in %) is not written here: it follows from the counts (count_gain).
"""

from __future__ import annotations

SOURCE = ("ChamelIoT, section IV-C, Table II (Thread-Metric benchmark results): loop counts over "
          "30 s on an E31 core at 65 MHz (section IV-A)")
SETUP = "FreeRTOS v10.2.1 on an E31 (RV32IMAC), GCC 9.2.0 -Os"  # our kernels' counterpart, section IV-A
CLOCK_HZ = 65_000_000
PERIOD_S = 30
WINDOW_CYCLES = CLOCK_HZ * PERIOD_S

# Table II's columns in its order, by the names of our Thread-Metric-equivalent tests
# (Basic Processing, Cooperative Scheduling, Preemptive Scheduling, Message Processing,
# Synchronization).
TESTS = ("basic", "cooperative", "preemptive", "message", "synchronization")
SW, HW = "SW", "HW"

# Table II's counts, a row per OS and configuration, in the order of TESTS.
TABLE_II: dict[str, dict[str, tuple[int, int, int, int, int]]] = {
    "RIOT": {SW: (67_902, 4_020_065, 1_956_595, 7_103_937, 7_127_183),
             HW: (67_902, 5_868_621, 2_849_510, 10_658_732, 15_068_628)},
    "Zephyr": {SW: (63_399, 1_141_517, 705_823, 2_828_726, 6_853_456),
               HW: (63_400, 1_249_308, 717_260, 7_151_998, 13_725_909)},
    "FreeRTOS": {SW: (59_222, 1_612_707, 753_302, 2_362_369, 3_675_268),
                 HW: (63_165, 4_846_436, 2_086_273, 3_641_817, 4_451_240)},
}
# The OS our kernels are: every couplet kernel variant is FreeRTOS.
OUR_OS = "FreeRTOS"


def count(rtos: str, configuration: str, test: str) -> int | None:
    """Table II's loop count, or None for a test the table does not have."""
    if test not in TESTS:
        return None
    return TABLE_II[rtos][configuration][TESTS.index(test)]


def cycles_per_iteration(rtos: str, configuration: str, test: str) -> float | None:
    """The mean cycles one loop iteration took: the period in cycles over the count."""
    n = count(rtos, configuration, test)
    return WINDOW_CYCLES / n if n else None


def count_gain(rtos: str, test: str) -> float | None:
    """Table II's "(%)" row: how many more iterations HW ran than SW, in %."""
    sw, hw = count(rtos, SW, test), count(rtos, HW, test)
    return (hw / sw - 1.0) * 100.0 if sw and hw else None


def as_json() -> dict[str, object]:
    """The table, its source and the derived figures, for a report."""
    return {
        "source": SOURCE,
        "clock_hz": CLOCK_HZ,
        "period_s": PERIOD_S,
        "counts": {r: {c: dict(zip(TESTS, row)) for c, row in rows.items()} for r, rows in TABLE_II.items()},
        "cycles_per_iteration": {r: {c: {t: cycles_per_iteration(r, c, t) for t in TESTS} for c in rows}
                                 for r, rows in TABLE_II.items()},
        "hw_vs_sw_pct": {r: {t: count_gain(r, t) for t in TESTS} for r in TABLE_II},
    }
