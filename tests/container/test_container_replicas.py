"""Horizontal scaling, proven on the image: three replicas behind HAProxy, as a cluster runs them.

``scripts/container_test.sh`` runs this module on its own, after the other container tests, with
``QB_IMAGE`` (the image), ``DOCKER_HOST`` / ``QB_DOCKER`` (its private dockerd), ``QB_HAPROXY``
(Debian's haproxy, run on the host), ``QB_REPLICA_ENV`` (the tunables of k8s/configmap.yaml),
``QB_REPLICA_MEMORY`` / ``QB_REPLICA_CPUS`` (the limits of k8s/deployment.yaml) and
``QB_WORK_DIR`` (where HAProxy's configuration and sockets go). Each replica runs like the main
container: read-only, non-root, no capabilities, API keys on, and every replica signing with the
same key, as pods mounting one Secret do.

HAProxy reaches the replicas on their bridge addresses (as a Service reaches pod IPs), checks
``/readyz`` twice a second and takes a replica out after one failed check. Against that:

1. every replica, asked directly, gives byte-identical answers and identical audit digests;
2. throughput through the balancer with 1, 2 and 3 replicas, and HAProxy's own CPU (printed only:
   the machine is shared and small);
3. a rolling restart under constant mixed load (``docker stop``, which is SIGTERM, then a fresh
   replica, one at a time): not one request may fail. This is the drain's proof: a stopping
   replica fails readiness while it still serves, the balancer stops sending to it, what it has
   in flight finishes, and only then does it close its listener;
4. a replica SIGKILLed under load: only the requests it had in flight may fail (each client
   thread has at most one), and HAProxy takes it out; the time that took is printed.

Every replica start is timed from ``docker run`` to the first 200 on ``/readyz`` (printed with its
target). Nothing here asserts a duration or a rate; only answers and failure counts are checked.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import signal
import socket
import statistics
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

from scripts.bench.config import LIMIT_CONTAINER_READY_S
from tests.container.test_deploy_manifests import pod_memory

pytestmark = pytest.mark.container

REPLICAS: Final = 3
APP_PORT: Final = 8081
BACKEND: Final = "replicas"
SERVICE_UID: Final = 10001
"""The Dockerfile's user: the key file is readable by its group, as ``fsGroup`` makes a Secret."""
KEY_DIR: Final = "/etc/quart-bezique/signing"
READY_SECONDS: Final = 120
"""Generous on purpose: a loaded 2-core machine may start a replica slowly; only answers count."""
CHECK_INTER_MS: Final = 500
CLIENT_THREADS: Final = 4
THROUGHPUT_SECONDS: Final = 6.0
CLIENT_TIMEOUT: Final = 60.0
WITHHELD_RETRIES: Final = 5
"""How often the load clients resend a withheld verdict before the request counts as failed."""

SCORE = {"cards": ["KS", "QS", "JS", "JC"], "trump": "S"}
ROUND: dict[str, Any] = {
    "players": ["ann", "bob", "cid", "dan"],
    "dealer": "dan",
    "ante": 10,
    "actions": [
        {"player": "ann", "type": "stake", "amount": 10},
        {"player": "bob", "type": "stake", "amount": 20},
        {"player": "ann", "type": "top_up", "amount": 10},
        {"player": "cid", "type": "fold"},
        {"player": "dan", "type": "stake", "amount": 20},
        {"player": "ann", "type": "fold"},
        {"player": "bob", "type": "open", "amount": 20},
    ],
}
BOB: Final = ["KH", "QH", "KD", "10D"]
DAN: Final = ["QS", "JC", "QH", "JD"]
SHOWDOWN: dict[str, Any] = {
    "trump": "H",
    "hands": [{"player": "bob", "cards": BOB}, {"player": "dan", "cards": DAN}],
}
BODIES: Final[list[tuple[str, dict[str, Any]]]] = [
    ("/v1/hands/score", SCORE),
    ("/v1/hands/batch-score", {"hands": [SCORE, {"cards": DAN}] * 20}),
    ("/v1/showdown", SHOWDOWN),
    ("/v1/betting/validate", ROUND),
    ("/v1/rounds/settle", {**ROUND, "hands": {"bob": BOB, "dan": DAN}}),
    ("/v1/hands/odds", {"cards": ["KS", "QS", "JS", "JC"], "trump": "S", "opponents": 1}),
]
MIX: Final = [(path, json.dumps(body, separators=(",", ":")).encode()) for path, body in BODIES]
"""One body per verdict endpoint: the load's mix, each answer checked against the reference."""
TWO_PLAYERS: Final = (
    b'{"players":["ann","bob"],"dealer":"bob","ante":10,'
    b'"actions":[{"player":"ann","type":"stake","amount":5}]}'
)
SAMPLES: Final[list[tuple[str, bytes]]] = [
    *MIX,
    ("/v1/hands/score", '{"trump":"♠","cards":["К♠","qs","Вп","jc"]}'.encode()),  # aliases
    ("/v1/hands/batch-score", b'{"hands":[{"cards":["TS","10S","AS","9S"]}],"breakdown":false}'),
    ("/v1/hands/odds", b'{"cards":["AS","AC","AH","AD"],"opponents":2}'),
    ("/v1/betting/validate", TWO_PLAYERS),
    ("/v1/hands/score", b'{"cards":["KS","XX","JS","JC"]}'),  # a refusal is identical too
]
GETS: Final = ("/", "/v1/rules", "/v1/build", "/.well-known/jwks.json", "/openapi.json")
AUDITED: Final = ("endpoint", "status", "version", "ruleset", "key_id", "body_sha256",
                  "response_sha256", "verdict")  # fmt: skip


def say(line: str) -> None:
    """A figure: printed (the script runs this module with ``-s``) and kept in ``QB_FIGURES``,
    which the script repeats in its summary."""
    print(f"[replicas] {line}", flush=True)
    if figures := os.environ.get("QB_FIGURES", ""):
        with open(figures, "a", encoding="utf-8") as out:
            out.write(line + "\n")


# ------------------------------------------------------------------------------ the raw client


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes


class Client:
    """One kept-alive HTTP/1.1 connection, reopened when the server closes it. Cheaper than
    http.client (no email parser), so that a few threads can load three replicas."""

    def __init__(self, host: str, port: int, timeout: float = CLIENT_TIMEOUT) -> None:
        self.address = (host, port)
        self.timeout = timeout
        self.sock: socket.socket | None = None
        self.reader: Any = None

    def close(self) -> None:
        if self.sock is not None:
            with contextlib.suppress(OSError):
                self.reader.close()
                self.sock.close()
        self.sock = self.reader = None

    def request(
        self, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None
    ) -> Answer:
        try:
            return self._exchange(method, path, body, headers or {})
        except BaseException:
            self.close()
            raise

    def _exchange(self, method: str, path: str, body: bytes, headers: dict[str, str]) -> Answer:
        if self.sock is None:
            self.sock = socket.create_connection(self.address, timeout=self.timeout)
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.reader = self.sock.makefile("rb")
        fields = {"Host": f"{self.address[0]}:{self.address[1]}", **headers}
        if method == "POST":
            fields["Content-Type"] = "application/json"
            fields["Content-Length"] = str(len(body))
        head = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in fields.items())
        self.sock.sendall(head.encode("latin-1") + b"\r\n" + body)
        status_line = self.reader.readline(65537)
        if not status_line:
            raise ConnectionError("connection closed before an answer")
        status = int(status_line.split(b" ", 2)[1])
        answer_headers: dict[str, str] = {}
        while (line := self.reader.readline(65537)) not in (b"\r\n", b"\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            answer_headers[name.strip().lower()] = value.strip()
        length = int(answer_headers.get("content-length", "-1"))
        if length < 0:
            raise ConnectionError(f"an answer without Content-Length: {answer_headers}")
        data = self.reader.read(length)
        if len(data) != length:
            raise ConnectionError(f"answer cut short: {len(data)} of {length} bytes")
        if answer_headers.get("connection", "").lower() == "close":
            self.close()
        return Answer(status, answer_headers, data)


# ------------------------------------------------------------------------------ docker, haproxy


def docker(*args: str, timeout: float = 120) -> str:
    command = [os.environ.get("QB_DOCKER", "docker"), *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    assert done.returncode == 0, f"docker {' '.join(args)}: {done.stderr}"
    return done.stdout.strip()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Replica:
    slot: int
    name: str
    port: int
    """Published on 127.0.0.1: for asking this replica directly."""
    address: str
    """On the bridge: where HAProxy sends its share."""
    startup: float


@dataclass
class Settings:
    image: str
    env_file: str
    memory: str
    cpus: str
    work: Path
    haproxy: str
    api_key: str
    keys: Path
    generation: list[int] = field(default_factory=lambda: [0])


def start_replica(settings: Settings, slot: int) -> Replica:
    """``docker run`` as the script runs the main container, timed to the first 200 on /readyz."""
    settings.generation[0] += 1
    name = f"qb-replica-{slot}-{settings.generation[0]}"
    port = free_port()
    started = time.monotonic()
    docker(
        "run", "-d", "--name", name, "--label", "qb-container-test=replica",
        "--env-file", settings.env_file, "--env", f"PORT={APP_PORT}",
        "--env", f"API_KEYS={settings.api_key}",
        "--env", f"SIGNING_KEY_FILE={KEY_DIR}/signing-key.pem",
        # A proxy pooling connections to the replicas must close idle ones first (docs/deploy.md,
        # "Fronting the service"): HAProxy purges its idle pool within seconds.
        "--env", "GUNICORN_KEEPALIVE=75",
        "--mount", f"type=bind,source={settings.keys},target={KEY_DIR},readonly",
        "--read-only", "--tmpfs", "/tmp:rw,nosuid,nodev,noexec,size=16m",
        "--memory", settings.memory, "--memory-swap", settings.memory, "--cpus", settings.cpus,
        "--pids-limit", "256", "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
        "--publish", f"127.0.0.1:{port}:{APP_PORT}",
        settings.image,
    )  # fmt: skip
    deadline = started + READY_SECONDS
    probe = Client("127.0.0.1", port, timeout=2)
    try:
        while True:
            try:
                if probe.request("GET", "/readyz").status == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"{name} not ready in {READY_SECONDS} s: {docker('logs', name)}")
            time.sleep(0.01)
    finally:
        probe.close()
    startup = time.monotonic() - started
    address = docker("inspect", "-f", "{{.NetworkSettings.IPAddress}}", name)
    assert address, f"{name} has no bridge address"
    direct = Client(address, APP_PORT, timeout=5)
    try:
        assert direct.request("GET", "/readyz").status == 200, f"{name} at {address}"
    finally:
        direct.close()
    return Replica(slot, name, port, address, startup)


class Balancer:
    """HAProxy on the host, its configuration generated here, driven through its stats socket."""

    def __init__(self, settings: Settings, replicas: list[Replica]) -> None:
        self.port = free_port()
        self.socket_path = settings.work / "haproxy.sock"
        config = settings.work / "haproxy.cfg"
        servers = "".join(f"    server r{r.slot} {r.address}:{APP_PORT} check\n" for r in replicas)
        config.write_text(
            f"""global
    maxconn 2000
    stats socket {self.socket_path} mode 600 level admin

defaults
    mode http
    option redispatch 1
    retries 3
    retry-on conn-failure empty-response
    timeout connect 1s
    timeout client 60s
    timeout server 35s
    timeout http-request 10s
    timeout http-keep-alive 10s
    timeout queue 10s
    timeout check 2s

frontend api
    bind 127.0.0.1:{self.port}
    default_backend {BACKEND}

backend {BACKEND}
    balance roundrobin
    option httpchk GET /readyz
    http-check expect status 200
    default-server inter {CHECK_INTER_MS}ms fastinter {CHECK_INTER_MS}ms downinter {CHECK_INTER_MS}ms fall 1 rise 2
{servers}"""  # noqa: E501
        )
        checked = subprocess.run(
            [settings.haproxy, "-c", "-f", str(config)], capture_output=True, text=True, check=False
        )
        assert checked.returncode == 0, checked.stdout + checked.stderr
        self.socket_path.unlink(missing_ok=True)  # a stale one would refuse, not be absent
        self.log = (settings.work / "haproxy.log").open("wb")
        self.process = subprocess.Popen(
            [settings.haproxy, "-db", "-f", str(config)], stdout=self.log, stderr=subprocess.STDOUT
        )
        # For the script's clean-up, should this process be killed before its finalizers run.
        (settings.work / "haproxy.pid").write_text(f"{self.process.pid}\n")
        try:
            deadline = time.monotonic() + 30
            while True:
                assert self.process.poll() is None, "haproxy exited at start"
                try:
                    self.command("show info")
                    break
                except OSError:
                    assert time.monotonic() < deadline, "haproxy's stats socket never answered"
                    time.sleep(0.01)
            self.wait_for({f"r{r.slot}" for r in replicas}, "UP")
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self.log.close()

    def command(self, line: str) -> str:
        with socket.socket(socket.AF_UNIX) as admin:
            admin.settimeout(10)
            admin.connect(str(self.socket_path))
            admin.sendall(line.encode() + b"\n")
            chunks = []
            while chunk := admin.recv(65536):
                chunks.append(chunk)
        return b"".join(chunks).decode()

    def stats(self, totals: bool = False) -> dict[str, dict[str, str]]:
        """HAProxy's CSV statistics of the backend's servers, by server name (with the
        backend's own row, ``BACKEND``, when ``totals``)."""
        lines = self.command("show stat").splitlines()
        header = lines[0].lstrip("# ").split(",")
        rows = [dict(zip(header, line.split(","), strict=False)) for line in lines[1:] if line]
        skip = {"FRONTEND"} if totals else {"BACKEND", "FRONTEND"}
        return {
            row["svname"]: row
            for row in rows
            if row.get("pxname") == BACKEND and row["svname"] not in skip
        }

    def resent(self) -> tuple[int, int]:
        """Requests HAProxy sent again so far: (retries, redispatches to another replica)."""
        backend = self.stats(totals=True)["BACKEND"]
        return int(backend["wretr"] or 0), int(backend["wredis"] or 0)

    def resent_since(self, before: tuple[int, int]) -> tuple[int, int]:
        retries, redispatches = self.resent()
        return retries - before[0], redispatches - before[1]

    def status(self, server: str) -> str:
        return self.stats()[server]["status"].split(" ")[0]

    def wait_for(self, servers: set[str], status: str, timeout: float = READY_SECONDS) -> float:
        """Poll until every server in ``servers`` has ``status``; the seconds it took."""
        started = time.monotonic()
        while True:
            assert self.process.poll() is None, "haproxy exited"
            if all(self.status(s) == status for s in servers):
                return time.monotonic() - started
            if time.monotonic() - started > timeout:
                pytest.fail(f"{servers} not {status} in {timeout} s: {self.stats()}")
            time.sleep(0.01)

    def cpu_seconds(self) -> float:
        """HAProxy's own CPU time (user + system, all its threads)."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_cpu_seconds() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine so far, from /proc/stat."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]
    tick = os.sysconf("SC_CLK_TCK")
    return (sum(values[:8]) - idle) / tick, sum(values[:8]) / tick


# ------------------------------------------------------------------------------ the load


@dataclass
class Failure:
    at: float
    path: str
    reason: str


class Load:
    """Client threads sending the mix through one address without pause, each on its own
    kept-alive connection; every answer is checked against the reference bytes."""

    def __init__(self, port: int, api_key: str, expected: dict[bytes, bytes]) -> None:
        self.port = port
        self.headers = {"Authorization": f"Bearer {api_key}"}
        self.expected = expected
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.done = 0
        self.failures: list[Failure] = []
        self.withheld = 0
        self.threads = [
            threading.Thread(target=self._client, args=(i,), daemon=True)
            for i in range(CLIENT_THREADS)
        ]

    def __enter__(self) -> Load:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=CLIENT_TIMEOUT + 10)
            assert not thread.is_alive(), "a client thread hangs"

    def _client(self, index: int) -> None:
        client = Client("127.0.0.1", self.port)
        step = index
        try:
            while not self.stopping.is_set():
                path, body = MIX[step % len(MIX)]
                step += 1
                try:
                    answer = self._send(client, path, body)
                except Exception as error:  # every way a request can fail counts
                    self._count(Failure(time.monotonic(), path, f"{type(error).__name__}: {error}"))
                    continue
                if answer.status != 200:
                    reason = f"{answer.status} {answer.body[:200]!r}"
                    self._count(Failure(time.monotonic(), path, reason))
                elif answer.body != self.expected[path.encode() + body]:
                    self._count(Failure(time.monotonic(), path, "answer differs from reference"))
                else:
                    self._count(None)
        finally:
            client.close()

    def _send(self, client: Client, path: str, body: bytes) -> Answer:
        """One request as docs/api.md tells a client to send it: a verdict withheld because the
        replica's log pipe is behind (503 ``AUDIT_UNAVAILABLE``, fail closed by design) is sent
        again after its ``Retry-After``, up to ``WITHHELD_RETRIES`` times. Withheld answers are
        counted apart: they measure the container's log driver on a loaded machine, not the
        balancing or the restarts these tests are about."""
        for _ in range(WITHHELD_RETRIES):
            answer = client.request("POST", path, body, self.headers)
            if answer.status != 503 or b'"AUDIT_UNAVAILABLE"' not in answer.body:
                return answer
            with self.lock:
                self.withheld += 1
            time.sleep(float(answer.headers.get("retry-after", "1")))
        return client.request("POST", path, body, self.headers)

    def _count(self, failure: Failure | None) -> None:
        with self.lock:
            if failure is None:
                self.done += 1
            else:
                self.failures.append(failure)


# ------------------------------------------------------------------------------ fixtures


def _key_dir(root: Path) -> Path:
    """The signing key as Kubernetes mounts the Secret: root-owned, readable by the group."""
    directory = root / "signing"
    directory.mkdir()
    key = directory / "signing-key.pem"
    key.write_bytes(
        Ed25519PrivateKey.generate().private_bytes(
            Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()
        )
    )
    for path, mode in ((key, 0o440), (directory, 0o750)):
        os.chown(path, 0, SERVICE_UID)
        path.chmod(mode)
    return directory


@dataclass
class Cluster:
    settings: Settings
    replicas: dict[int, Replica]
    balancer: Balancer
    expected: dict[bytes, bytes]
    startups: list[float]

    def load(self) -> Load:
        return Load(self.balancer.port, self.settings.api_key, self.expected)

    def replace(self, slot: int) -> Replica:
        """A fresh replica in ``slot``; HAProxy is pointed at it and waited for until UP."""
        fresh = start_replica(self.settings, slot)
        self.startups.append(fresh.startup)
        self.replicas[slot] = fresh
        self.balancer.command(f"set server {BACKEND}/r{slot} addr {fresh.address} port {APP_PORT}")
        self.balancer.wait_for({f"r{slot}"}, "UP")
        return fresh


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    values = {
        name: os.environ.get(name, "")
        for name in ("QB_IMAGE", "QB_HAPROXY", "QB_REPLICA_ENV", "QB_WORK_DIR")
    }
    if not all(values.values()):
        pytest.skip("QB_IMAGE, QB_HAPROXY, ... are not set: run scripts/container_test.sh")
    if os.geteuid() != 0:
        pytest.skip("the signing key is given to the service's group: needs root")
    work = Path(values["QB_WORK_DIR"])
    work.mkdir(parents=True, exist_ok=True)
    return Settings(
        image=values["QB_IMAGE"],
        env_file=values["QB_REPLICA_ENV"],
        memory=os.environ.get("QB_REPLICA_MEMORY") or pod_memory(),
        cpus=os.environ.get("QB_REPLICA_CPUS", "1"),
        work=work,
        haproxy=values["QB_HAPROXY"],
        api_key=secrets.token_urlsafe(32),
        keys=_key_dir(tmp_path_factory.mktemp("keys")),
    )


@pytest.fixture(scope="module")
def cluster(settings: Settings) -> Iterator[Cluster]:
    replicas: dict[int, Replica] = {}
    balancer: Balancer | None = None
    startups: list[float] = []
    try:
        for slot in range(1, REPLICAS + 1):
            replicas[slot] = start_replica(settings, slot)
            startups.append(replicas[slot].startup)
        balancer = Balancer(settings, list(replicas.values()))
        reference = Client("127.0.0.1", replicas[1].port)
        expected = {}
        for path, body in MIX:
            answer = reference.request(
                "POST", path, body, {"Authorization": f"Bearer {settings.api_key}"}
            )
            assert answer.status == 200, answer.body
            expected[path.encode() + body] = answer.body
        reference.close()
        yield Cluster(settings, replicas, balancer, expected, startups)
    finally:
        if balancer is not None:
            balancer.stop()
        names = docker("ps", "-aq", "--filter", "label=qb-container-test=replica")
        if names:
            docker("rm", "-f", *names.split())
        # The first REPLICAS start beside idle replicas; the rest during the rolling restart,
        # beside replicas serving the load (on this machine, no core of their own).
        for label, series in (
            ("beside idle replicas", startups[:REPLICAS]),
            ("during the rolling restart, under load", startups[REPLICAS:]),
        ):
            if series:
                say(
                    f"start-up, docker run to the first 200 on /readyz, {len(series)} replica "
                    f"starts {label}: median {statistics.median(series):.2f} s, "
                    f"min {min(series):.2f} s, max {max(series):.2f} s "
                    f"(target {LIMIT_CONTAINER_READY_S} s on an idle node)"
                )


# ------------------------------------------------------------------------------ the tests


def audit_lines(name: str, ids: set[str]) -> dict[str, dict[str, Any]]:
    """The audit lines of ``ids`` in a replica's stdout; waits for the writer to catch up."""
    deadline = time.monotonic() + 60
    while True:
        found = {}
        for line in docker("logs", name).splitlines():
            if line.startswith("{") and '"request_id"' in line:
                record = json.loads(line)
                if record["request_id"] in ids:
                    found[record["request_id"]] = record
        if set(found) == ids or time.monotonic() > deadline:
            return found
        time.sleep(0.2)


def test_every_replica_gives_the_same_bytes_and_audit_digests(cluster: Cluster) -> None:
    headers = {"Authorization": f"Bearer {cluster.settings.api_key}"}
    answers: dict[int, list[tuple[int, bytes]]] = {}
    audits: dict[int, list[dict[str, Any]]] = {}
    for slot, replica in cluster.replicas.items():
        client = Client("127.0.0.1", replica.port)
        ids = []
        answers[slot] = []
        for index, (path, body) in enumerate(SAMPLES):
            request_id = f"same-{replica.name}-{index}"
            answer = client.request("POST", path, body, {**headers, "X-Request-ID": request_id})
            assert answer.headers.get("x-request-id") == request_id
            answers[slot].append((answer.status, answer.body))
            ids.append(request_id)
            if answer.status == 200:
                assert answer.headers.get("verdict-receipt"), f"{path}: no receipt"
        for path in GETS:
            answer = client.request("GET", path, headers=headers)
            assert answer.status == 200, (path, answer.body)
            answers[slot].append((answer.status, answer.body))
        client.close()
        found = audit_lines(replica.name, set(ids))
        assert set(found) == set(ids), f"{replica.name}: audit lines missing"
        audits[slot] = [{k: found[i].get(k) for k in AUDITED} for i in ids]
        for (status, body), record in zip(answers[slot], audits[slot], strict=False):
            assert record["status"] == status
            if status == 200:
                assert record["response_sha256"] == hashlib.sha256(body).hexdigest()

    first = min(answers)
    for slot in answers:
        assert answers[slot] == answers[first], f"replica {slot} answers differently"
        assert audits[slot] == audits[first], f"replica {slot} audits differently"
    statuses = [status for status, _ in answers[first][: len(SAMPLES)]]
    assert statuses.count(200) == len(SAMPLES) - 1, statuses  # the last sample is a refusal
    say(
        f"identical on {len(answers)} replicas: {len(SAMPLES)} verdict requests (bytes and audit "
        f"digests) and {len(GETS)} documents (build digest, rules, JWKS, OpenAPI)"
    )


def test_throughput_with_one_two_and_three_replicas(cluster: Cluster) -> None:
    """Printed, never asserted: on a shared 2-core machine the replicas, HAProxy and the client
    threads compete for the same cores."""
    balancer = cluster.balancer
    servers = [f"r{slot}" for slot in sorted(cluster.replicas)]
    lines = []
    try:
        for count in range(1, len(servers) + 1):
            for server in servers[count:]:
                balancer.command(f"set server {BACKEND}/{server} state maint")
            for server in servers[:count]:
                balancer.command(f"set server {BACKEND}/{server} state ready")
            balancer.wait_for(set(servers[count:]), "MAINT")
            balancer.wait_for(set(servers[:count]), "UP")
            with cluster.load() as load:
                time.sleep(1.0)  # connections opened, caches warm
                done, cpu = load.done, balancer.cpu_seconds()
                busy, total = machine_cpu_seconds()
                clients = time.process_time()
                started = time.monotonic()
                time.sleep(THROUGHPUT_SECONDS)
                elapsed = time.monotonic() - started
                done, cpu = load.done - done, balancer.cpu_seconds() - cpu
                busy2, total2 = machine_cpu_seconds()
                clients = time.process_time() - clients
            assert not load.failures, load.failures[:5]
            busy, total = busy2 - busy, total2 - total
            lines.append(
                f"{count} replica(s): {done / elapsed:,.0f} req/s through HAProxy "
                f"({CLIENT_THREADS} keep-alive clients, mixed endpoints, {elapsed:.1f} s); "
                f"HAProxy CPU {cpu / elapsed * 100:.1f} % of a core, "
                f"{cpu / busy * 100 if busy else 0:.1f} % of all CPU time used "
                f"(machine {busy / total * 100 if total else 0:.0f} % busy), "
                f"{cpu / done * 1e6 if done else 0:.0f} us per request; the client threads "
                f"{clients / busy * 100 if busy else 0:.0f} % of all CPU time used; "
                f"{load.withheld} verdicts withheld (log pipe behind) and sent again"
            )
    finally:
        for server in servers:
            balancer.command(f"set server {BACKEND}/{server} state ready")
        balancer.wait_for(set(servers), "UP")
    for line in lines:
        say(f"throughput: {line}")


def _watch_down(balancer: Balancer, server: str, seconds: list[float]) -> None:
    seconds.append(balancer.wait_for({server}, "DOWN", timeout=60))


def test_rolling_restart_under_load_loses_no_request(cluster: Cluster) -> None:
    balancer = cluster.balancer
    steps = []
    resent = balancer.resent()
    started = time.monotonic()
    with cluster.load() as load:
        time.sleep(1.0)
        for slot in sorted(cluster.replicas):
            old = cluster.replicas[slot]
            server = f"r{slot}"
            down: list[float] = []
            watcher = threading.Thread(target=_watch_down, args=(balancer, server, down))
            stop_started = time.monotonic()
            watcher.start()
            docker("stop", "-t", "30", old.name, timeout=90)  # SIGTERM; returns once exited
            stopped = time.monotonic() - stop_started
            watcher.join()
            assert down, f"HAProxy never took {server} out of rotation"
            exit_code = docker("inspect", "-f", "{{.State.ExitCode}}", old.name)
            assert exit_code == "0", f"{old.name} exited {exit_code}"
            docker("rm", old.name)
            up_started = time.monotonic()
            fresh = cluster.replace(slot)
            steps.append(
                f"{server}: out of rotation {down[0]:.2f} s after SIGTERM, exited 0 after "
                f"{stopped:.1f} s, fresh replica ready in {fresh.startup:.2f} s and UP in "
                f"HAProxy {time.monotonic() - up_started:.2f} s after docker run"
            )
            time.sleep(1.0)  # the fresh replica takes its share before the next one goes
    elapsed = time.monotonic() - started
    retries, redispatches = balancer.resent_since(resent)
    for step in steps:
        say(f"rolling restart: {step}")
    say(
        f"rolling restart: {load.done:,} requests in {elapsed:.1f} s through HAProxy, "
        f"{len(load.failures)} failed, {retries} retried by HAProxy ({redispatches} redispatched), "
        f"{load.withheld} verdicts withheld (log pipe behind) and sent again by the clients"
    )
    assert not load.failures, [f"{f.path}: {f.reason}" for f in load.failures[:10]]
    assert load.done > 0
    # Not one request was refused or dropped by a stopping replica and quietly sent again: the
    # drain alone kept every answer, not HAProxy's retries.
    assert (retries, redispatches) == (0, 0)


def test_sigkill_loses_at_most_the_requests_in_flight(cluster: Cluster) -> None:
    balancer = cluster.balancer
    slot = max(cluster.replicas)
    victim, server = cluster.replicas[slot], f"r{slot}"
    with cluster.load() as load:
        time.sleep(2.0)
        before = load.done
        resent = balancer.resent()
        in_flight = balancer.stats()[server]["scur"]  # HAProxy's count, a moment before the kill
        killed = time.monotonic()
        docker("kill", "--signal", "KILL", victim.name)
        balancer.wait_for({server}, "DOWN", timeout=60)
        marked_down = time.monotonic() - killed
        time.sleep(3.0)
    retries, redispatches = balancer.resent_since(resent)
    say(
        f"SIGKILL of one replica of 3 under load: {len(load.failures)} failed of "
        f"{load.done - before + len(load.failures):,} sent after the kill; {in_flight} in flight "
        f"there just before it (bound asserted: {CLIENT_THREADS} client threads, one request in "
        f"flight each); HAProxy sent {retries} again ({redispatches} to another replica) and "
        f"marked it DOWN "
        f"{marked_down:.2f} s after the kill (check interval {CHECK_INTER_MS} ms, fall 1)"
    )
    for failure in load.failures:
        say(f"  failed: {failure.path}: {failure.reason} at +{failure.at - killed:.2f} s")
    assert len(load.failures) <= CLIENT_THREADS
    assert all(f.at >= killed for f in load.failures), "a failure before the kill"
    docker("rm", "-f", victim.name)
    cluster.replace(slot)
