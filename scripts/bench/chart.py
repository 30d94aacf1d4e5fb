"""``bench.png``: throughput, latency and CPU per request of every endpoint, the baselines grey."""

from __future__ import annotations

from pathlib import Path

from scripts.bench.records import HttpRun, Results


def chart(results: Results, path: Path) -> bool:
    """Draw the chart; False when nothing was measured over HTTP. Raises ImportError without
    matplotlib (the caller records a warning: the chart is optional, the figures are not)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs: list[tuple[str, str, HttpRun]] = [
        (e.label, e.server, e.run) for e in results.http.values() if e.run is not None
    ]
    if not runs:
        return False
    labels = [label for label, _, _ in runs]
    colours = ["#888888" if server != "service" else "#2b6cb0" for _, server, _ in runs]
    y = list(range(len(runs)))
    fig, axes = plt.subplots(1, 3, figsize=(16, 0.55 * len(runs) + 2.2), sharey=True)
    ax = axes[0]
    ax.barh(y, [r.rps for _, _, r in runs], color=colours)
    ax.set_xscale("log")
    ax.set_title("throughput (req/s, log)")
    for i, (_, _, r) in enumerate(runs):
        note = f"{r.rps:,.0f}"
        if r.hands_per_s:
            note += f"  ({r.hands_per_s / 1e6:.2f} M hands/s)"
        ax.text(r.rps, i, " " + note, va="center", fontsize=8)
    ax.set_xlim(right=max(r.rps for _, _, r in runs) * 12)
    ax.set_yticks(y, labels)
    ax.invert_yaxis()
    ax = axes[1]
    p50 = [r.latency_ms.p50 for _, _, r in runs]
    p99 = [r.latency_ms.p99 for _, _, r in runs]
    ax.barh([i - 0.2 for i in y], p50, height=0.4, color=colours, label="p50")
    ax.barh([i + 0.2 for i in y], p99, height=0.4, color=colours, alpha=0.5, label="p99")
    ax.set_xscale("log")
    ax.set_title("latency (ms, log): p50 solid, p99 light")
    ax.set_xlim(right=max(p99) * 6)
    for i in y:
        ax.text(p99[i], i + 0.2, f" {p99[i]:.2f}", va="center", fontsize=8)
    ax = axes[2]
    cpu = [r.server_cpu_us_per_request or 0.0 for _, _, r in runs]
    ax.barh(y, cpu, color=colours)
    ax.set_xscale("log")
    ax.set_title("server CPU per request (µs, log)")
    ax.set_xlim(right=max(cpu) * 6)
    for i in y:
        ax.text(cpu[i], i, f" {cpu[i]:,.0f}", va="center", fontsize=8)
    meta = results.meta
    fig.suptitle(
        f"Quart-Bezique service vs baselines (grey), {results.settings.gunicorn}, "
        f"{meta.mode} run {meta.when}" + ("" if results.idle.idle else " NOT IDLE"),
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True
