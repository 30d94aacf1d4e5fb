"""The results as text tables (printed) or Markdown (``results.md``, pasted into
docs/performance.md): the same rows either way, so the page and the terminal agree."""

from __future__ import annotations

from scripts.bench.config import CONTAINER_TEST
from scripts.bench.container import provenance
from scripts.bench.records import ColdStart, Results, Spread
from scripts.bench.targets import ratio

INPROCESS_LABELS = {
    "score_hand": "core score_hand (breakdown), as the score endpoint",
    "batch_loop_scores": "batch typed road (decode, check, score), scores",
    "batch_loop_breakdowns": "batch typed road (decode, check, score), breakdowns",
    "treys_evaluate": "treys Evaluator.evaluate (5 cards)",
    "treys_five_internal": "treys Evaluator._five (internal)",
    "loop_overhead": "empty loop + call (overhead)",
}


def fmt(value: float | int | bool | str | None, digits: int = 1) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool | str):
        return str(value)
    if isinstance(value, int) or abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.{digits}f}"


def table_lines(headers: list[str], rows: list[list[str]], markdown: bool) -> list[str]:
    if markdown:
        lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return lines
    widths = [
        max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)
    ]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return lines


class _Page:
    def __init__(self, markdown: bool) -> None:
        self.markdown = markdown
        self.lines: list[str] = []
        self.bullet = "- " if markdown else ""
        self.note = "- " if markdown else "  note "

    def heading(self, title: str) -> None:
        if self.markdown:
            self.lines += ["", f"### {title}", ""]
        else:
            self.lines += ["", title, "=" * len(title)]

    def table(self, headers: list[str], rows: list[list[str]]) -> None:
        self.lines += table_lines(headers, rows, self.markdown)


def report(results: Results, markdown: bool) -> str:
    page = _Page(markdown)
    _header(results, page)
    _http(results, page)
    _inprocess(results, page)
    _startup(results, page)
    _targets(results, page)
    return "\n".join(page.lines) + "\n"


def _header(results: Results, page: _Page) -> None:
    meta, settings, idle = results.meta, results.settings, results.idle
    page.lines.append(
        f"{page.bullet}mode {meta.mode}, {meta.when}, commit {meta.commit}"
        f"{' (dirty)' if meta.dirty else ''}, {meta.cpu_model} x{meta.cpus}"
    )
    if results.http:
        page.lines.append(
            f"{page.bullet}gunicorn: {settings.gunicorn}; {settings.pinning}; each run "
            f"{settings.duration_s} s after a {settings.warmup_s} s warm-up"
        )
    else:
        page.lines.append(f"{page.bullet}no HTTP runs; {settings.pinning}")
    page.lines.append(
        f"{page.bullet}machine {'idle' if idle.idle else 'NOT IDLE'} before the run: "
        f"{idle.busy_cpus} CPUs busy, load {idle.loadavg}"
    )


def _http(results: Results, page: _Page) -> None:
    if not results.http:
        return
    page.heading("HTTP (wrk on 127.0.0.1)")
    base_entry = results.http.get("baseline_flask")
    base = base_entry.run if base_entry else None
    base_cpu = base.server_cpu_us_per_request if base else None
    rows = []
    for key, entry in results.http.items():
        run = entry.run
        if run is None:
            rows.append([entry.label, "skipped"] + ["-"] * 8)
            continue
        vs = base if entry.server == "service" and key == "score" else None
        rows.append(
            [
                entry.label,
                fmt(run.rps),
                fmt(run.latency_ms.p50, 2),
                fmt(run.latency_ms.p99, 2),
                fmt(run.server_cpu_us_per_request),
                ""
                if run.hands_per_s is not None
                else fmt(ratio(run.server_cpu_us_per_request, base_cpu), 2),
                fmt(ratio(run.rps, vs.rps), 2) if vs else "",
                fmt(ratio(run.latency_ms.p99, vs.latency_ms.p99), 2) if vs else "",
                fmt(run.hands_per_s),
                fmt(run.other_cpus, 2) + (" !" if run.notes else ""),
            ]
        )
    page.table(
        ["endpoint", "req/s", "p50 ms", "p99 ms", "CPU µs/req", "CPU x base", "req/s x base",
         "p99 x base", "hands/s", "other CPUs"],
        rows,
    )  # fmt: skip
    page.lines.append("")
    for key, entry in results.http.items():
        if entry.skipped:
            page.lines.append(f"{page.note}{key}: {entry.skipped}")
        for note in entry.run.notes if entry.run else []:
            page.lines.append(f"{page.note}{key}: {note}")


def _inprocess(results: Results, page: _Page) -> None:
    inproc = results.inprocess
    if inproc is None:
        return
    page.heading("In-process (fresh interpreter pinned to the server CPU)")
    rows = []
    for key, label in INPROCESS_LABELS.items():
        figures = inproc.core.get(key)
        if figures is not None:
            best = figures.best_us
            rows.append(
                [label, fmt(best, 3), fmt(figures.median_us, 3), fmt(1e6 / best if best else None)]
            )
    page.table(["per hand", "best µs", "median µs", "hands/s"], rows)
    if inproc.wsgi:
        page.lines.append("")
        rows = []
        for key, timing in inproc.wsgi.items():
            entry = results.http.get(key)
            server_cpu = entry.run.server_cpu_us_per_request if entry and entry.run else None
            if timing.timing is not None:
                mean = timing.timing.mean_us or timing.timing.best_us
                share = server_cpu - mean if server_cpu is not None else None
                rows.append(
                    [key, fmt(timing.timing.best_us), fmt(mean), fmt(server_cpu), fmt(share)]
                )
            elif timing.cold_ms is not None:
                cold = timing.cold_ms
                rows.append(
                    [key, f"p50 {cold.p50} ms / p99 {cold.p99} ms", "", fmt(server_cpu), ""]
                )
            else:
                rows.append([key, timing.skipped or "-", "", "", ""])
        page.table(
            ["WSGI call in-process", "best µs/req", "mean µs/req (GC incl.)",
             "server CPU µs/req (HTTP)", "server - mean: gunicorn+HTTP µs"],
            rows,
        )  # fmt: skip
    extra = []
    for key, timing in inproc.wsgi.items():
        if timing.gc_per_call and timing.timing is not None and timing.timing.mean_us:
            gc_ms = sum(g.ms for g in timing.gc_per_call.values())
            full = timing.gc_per_call["gen2"].collections
            extra.append(
                f"{key}: garbage collector {gc_ms:.3f} ms per call "
                f"({gc_ms * 1000 / timing.timing.mean_us:.0%} of the mean; full collections "
                f"{full:.2f}/call, {inproc.gc_tracked_objects:,} tracked objects)"
            )
    extra.append(
        f"validate_betting core, 100 actions: {fmt(inproc.validate_betting_core.best_us)} µs"
    )
    if inproc.odds_core_cold_ms is not None:
        o = inproc.odds_core_cold_ms
        extra.append(
            f"hand_odds core, cold queries: p50 {o.p50} ms, p99 {o.p99} ms, max {o.max} ms "
            f"(odds tables built in {inproc.odds_tables_build_s} s)"
        )
    extra.append(f"score tables built in {inproc.tables_build_s} s")
    if inproc.batch_tables_build_s is not None:
        extra.append(f"batch loop tables built in {inproc.batch_tables_build_s} s")
    extra += inproc.notes
    page.lines += ["", *[page.bullet + e for e in extra]]


def _startup(results: Results, page: _Page) -> None:
    if not results.startup and results.cold_start is None:
        return
    page.heading("Start-up and memory")
    rows = []
    for name in ("service", "baseline_flask", "baseline_wsgi"):
        s = results.startup.get(name)
        if s is None:
            continue
        idle_rss = [w.rss_mib or 0.0 for w in s.idle_workers]
        idle_pss = [w.pss_mib or 0.0 for w in s.idle_workers]
        loaded = [w.rss_mib or 0.0 for w in s.loaded_workers]
        rows.append(
            [
                name,
                fmt(s.spawn_to_ready_s, 3),
                fmt(s.worker_start_to_ready_s, 2),
                fmt(s.respawn.kill_to_ready_s if s.respawn else None, 3),
                fmt(max(idle_rss), 1) if idle_rss else "-",
                fmt(max(idle_pss), 1) if idle_pss else "-",
                fmt(max(loaded), 1) if loaded else "-",
            ]
        )
    if rows:
        page.lines.append(
            f"{page.bullet}the HTTP servers as they came up for the runs (preload as "
            "configured; information, not targets):"
        )
        page.lines.append("")
        page.table(
            ["server", "spawn->/readyz s", "worker start->ready s", "respawn s", "idle RSS MiB",
             "idle PSS MiB", "RSS after load MiB"],
            rows,
        )  # fmt: skip
    if results.cold_start is not None:
        _cold_start(results.cold_start, results, page)


def _cold_start(cold: ColdStart, results: Results, page: _Page) -> None:
    limits = {t.id: t for t in results.targets}

    def row(label: str, figure: Spread | None, unit: str, digits: int, tid: str = "") -> list[str]:
        target = limits.get(tid)
        judged = f"{tid}: {target.op} {target.limit:g} {unit}, {target.status}" if target else ""
        if figure is None:
            return [label, "-", "-", "-", judged]
        return [
            label,
            f"{figure.median:.{digits}f} {unit}",
            f"{figure.min:.{digits}f}",
            f"{figure.max:.{digits}f}",
            judged,
        ]

    fresh, alone, deployed = cold.interpreter, cold.no_preload, cold.preload
    rows = [
        row("worker, no preload: process start -> /readyz 200", alone.start_to_ready_s, "s", 3,
            "5a"),
        row("  the same from the worker seen (polled)", alone.seen_to_ready_s, "s", 3),
        row("idle worker, no preload: VmRSS", alone.idle_rss_mib, "MiB", 1, "5b"),
        row("idle worker, no preload: PSS", alone.idle_pss_mib, "MiB", 1),
        row("fresh interpreter: spawn -> app built", fresh.spawn_to_built_s, "s", 3, "5a'"),
        row("  of which interpreter start", fresh.interpreter_s, "s", 3),
        row("  of which import quart_bezique.api.app", fresh.imports_s, "s", 3),
        row("  of which create_app and the rest", fresh.app_s, "s", 3),
        row("fresh interpreter: VmRSS once built", fresh.rss_mib, "MiB", 1),
    ]  # fmt: skip
    if deployed is not None:
        rows += [
            row("worker, preload: process start -> /readyz 200", deployed.start_to_ready_s, "s",
                3),
            row("idle worker, preload: VmRSS", deployed.idle_rss_mib, "MiB", 1, "5b'"),
            row("idle worker, preload: PSS", deployed.idle_pss_mib, "MiB", 1),
        ]  # fmt: skip
    container = limits.get("5c")
    quoted = results.container_start
    judged = f"5c: <= {container.limit:g} s" if container else ""
    if quoted is None:
        rows.append(["container: docker run -> /readyz 200", "N/A here", "", "",
                     f"{judged}, see the container test" if judged else ""])  # fmt: skip
    else:
        rows.append(["container: docker run -> /readyz 200 (quoted)", f"{quoted.median_s:.3f} s",
                     f"{min(quoted.starts_s):.3f}", f"{max(quoted.starts_s):.3f}",
                     f"{judged}, {container.status}" if container else ""])  # fmt: skip
    page.lines += [
        "",
        f"{page.bullet}the start-up part: each server alone, one worker pinned like the others, "
        f"median of {alone.start_to_ready_s.n} start(s); memory after {alone.requests} requests "
        "(one of each kind) and a pause",
        f"{page.bullet}bytecode: {cold.bytecode}",
        f"{page.bullet}container: docker run -> first 200 on /readyz, "
        + (
            f"{len(quoted.starts_s)} fresh starts {provenance(quoted, results.meta.commit)}; "
            f"docker alone (python3 -c pass) {quoted.docker_alone_s:.3f} s ({CONTAINER_TEST})"
            if quoted
            else f"N/A here: the container test has not run on this machine ({CONTAINER_TEST})"
        ),
        "",
    ]
    page.table(["figure", "median", "min", "max", "target"], rows)


def _targets(results: Results, page: _Page) -> None:
    page.heading("Targets (7 is the odds latency)")
    rows = [
        [
            t.id,
            t.target,
            fmt(t.value, 3 if t.unit in ("x", "µs", "s") else 1)
            + ("" if t.value is None else " " + t.unit),
            f"{t.op} {fmt(t.limit, 2)} {t.unit}",
            t.status,
        ]
        for t in results.targets
    ]
    page.table(["#", "target", "measured", "limit", "result"], rows)
    if results.warnings:
        page.lines += ["", "WARNINGS:"] + [
            ("- " if page.markdown else "  ") + w for w in results.warnings
        ]
