"""``scripts/container_start.py`` (the container test's start-up series) against a stand-in for
``docker``: it starts each container on the port it chose, waits for its first 200 on
``/readyz``, removes it, and reports; a container that does not start stops it with docker's
reason. The real thing runs in ``make container-test``."""

from __future__ import annotations

import os
import signal
import stat
import statistics
import sys
from pathlib import Path

import pytest

from scripts import container_start
from scripts.bench.container import provenance, quoted_start
from scripts.bench.records import ContainerStart

FAKE_DOCKER = """\
import os, signal, subprocess, sys
state = os.environ["FAKE_DOCKER_STATE"]
args = sys.argv[1:]
with open(os.path.join(state, "calls"), "a") as calls:
    calls.write(" ".join(args) + "\\n")
pidfile = os.path.join(state, "server.pid")
if args[:2] == ["rm", "-f"]:
    if os.path.exists(pidfile):
        os.kill(int(open(pidfile).read()), signal.SIGTERM)
        os.remove(pidfile)
    sys.exit(0)
if args[:2] == ["run", "-d"]:
    if args[-1] == "broken":
        sys.stderr.write("no such image: broken\\n")
        sys.exit(125)
    port = args[args.index("--publish") + 1].split(":")[1]
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER, port], start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    open(pidfile, "w").write(str(server.pid))
    sys.exit(0)
if args[:2] == ["run", "--rm"] and args[-3:] == ["python3", "-c", "pass"]:
    sys.exit(0)
sys.exit("unexpected: " + " ".join(args))
"""

SERVER = """\
import http.server, sys, time
time.sleep(0.2)  # not ready at once: the poller must wait
class Ready(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200 if self.path == "/readyz" else 404)
        self.end_headers()
    def log_message(self, *args):
        pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Ready).serve_forever()
"""


@pytest.fixture
def fake_docker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    script = tmp_path / "docker"
    script.write_text(f"#!{sys.executable}\nSERVER = {SERVER!r}\n{FAKE_DOCKER}", encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("QB_DOCKER", str(script))
    monkeypatch.setenv("FAKE_DOCKER_STATE", str(tmp_path))
    return tmp_path


def _arguments(image: str) -> list[str]:
    return ["--image", image, "--env-file", "env", "--memory", "320m", "--cpus", "1", "--count",
            "2"]  # fmt: skip


def test_each_start_is_timed_to_its_first_ready_answer_and_removed(
    fake_docker: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    figures = fake_docker / "figures.json"
    arguments = [*_arguments("qb:test"), "--revision", "abc123", "--json", str(figures)]
    assert container_start.main(arguments) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("2 fresh containers, one after another: docker run to the first 200")
    each = [float(s) for s in out[0].split("each: ")[1].split()]
    assert len(each) == 2 and all(s >= 0.2 for s in each)  # the stand-in waits 0.2 s to listen
    assert out[1].startswith("docker alone, the same image and limits running python3 -c pass")
    calls = (fake_docker / "calls").read_text().splitlines()
    assert sum(c.startswith("run -d --name qb-start-series") for c in calls) == 2
    assert sum(c.startswith("run --rm") for c in calls) == 3
    assert not (fake_docker / "server.pid").exists()  # every container removed
    written = quoted_start(figures)
    assert written == (written[0], []) and written[0] is not None
    record = written[0]
    assert record.revision == "abc123"
    assert [round(t, 2) for t in record.starts_s] == each  # what was printed, to 2 decimals
    assert record.median_s == pytest.approx(statistics.median(record.starts_s), abs=0.001)


def test_the_bench_quotes_the_figures_and_says_which_image_they_are_for(tmp_path: Path) -> None:
    assert quoted_start(tmp_path / "absent.json") == (None, [])
    damaged = tmp_path / "damaged.json"
    damaged.write_text('{"median_s": "fast"}', encoding="utf-8")
    found, warnings = quoted_start(damaged)
    assert found is None and "cannot be read" in warnings[0]
    start = ContainerStart(0.53, [0.53, 0.5, 0.54], 0.19, "554bd60aa", "2026-12-01T09:40:00+00:00")
    assert "this revision's image" in provenance(start, "554bd60")
    assert "the image of revision 554bd60aa" in provenance(start, "1234567")
    assert "the image of revision" in provenance(start, "")


def test_a_container_that_does_not_start_stops_the_series_with_dockers_reason(
    fake_docker: Path,
) -> None:
    with pytest.raises(SystemExit, match="docker run qb-start-series failed: no such image"):
        container_start.main(_arguments("broken"))
    pidfile = fake_docker / "server.pid"
    if pidfile.exists():  # pragma: no cover - only if the stand-in misbehaved
        os.kill(int(pidfile.read_text()), signal.SIGTERM)
