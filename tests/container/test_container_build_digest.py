"""The image, checked as an independent party would check it: the build digest the running image
serves is the one recomputed on the host from the image's own files, and a verdict signed inside
the image verifies on the host.

``scripts/container_test.sh`` runs this module on its own, with ``QB_BASE_URL`` (the running
container), ``QB_IMAGE`` (the image it runs) and ``DOCKER_HOST`` / ``QB_DOCKER`` (its private
dockerd). The host's tools are the repository's: ``quart-bezique`` beside this Python. Nothing of
the host's installation is trusted to describe the image: the image's ``site-packages`` is copied
out (``docker create`` + ``docker cp``, no process of the image runs) and digested from its bytes.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import marshal
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

from tests.container.test_deploy_manifests import pod_memory

pytestmark = pytest.mark.container

CLI: Final = Path(sys.executable).with_name("quart-bezique")
VENV: Final = "/opt/venv"
"""Where the Dockerfile installs the service (``python3 -m venv /opt/venv``)."""
SERVICE_UID: Final = 10001
"""The Dockerfile's ``USER 10001:10001``: the key file is readable by this group, as
Kubernetes' ``fsGroup`` makes the Secret's files."""
KEY_DIR: Final = "/etc/quart-bezique/signing"
"""Where k8s/deployment.yaml mounts the signing-key Secret."""
APP_PORT: Final = 8082
ENDPOINT: Final = "/v1/hands/score"
REQUEST: Final = b'{"cards":["KS","QS","JS","JC"],"trump":"S"}'
READY_SECONDS: Final = 120


def docker(*args: str, timeout: float = 300) -> str:
    command = [os.environ.get("QB_DOCKER", "docker"), *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    assert done.returncode == 0, f"docker {' '.join(args)}: {done.stderr}"
    return done.stdout.strip()


def cli(*args: str) -> tuple[int, dict[str, Any]]:
    """The host's ``quart-bezique --json``: exit status and answer."""
    done = subprocess.run(
        [str(CLI), "--json", *args], capture_output=True, timeout=300, check=False
    )
    assert done.stdout, done.stderr
    answer: dict[str, Any] = json.loads(done.stdout)
    return done.returncode, answer


@pytest.fixture(scope="module")
def image(base_url: str) -> str:
    name = os.environ.get("QB_IMAGE", "")
    if not name:
        pytest.skip("QB_IMAGE is not set: run scripts/container_test.sh")
    return name


@pytest.fixture(scope="module")
def served_build(base_url: str) -> str:
    """The build digest the running container answers ``GET /`` with."""
    with urllib.request.urlopen(f"{base_url}/", timeout=10) as answer:
        build: str = json.loads(answer.read())["build"]
    assert len(build) == 64
    return build


@pytest.fixture(scope="module")
def site_packages(image: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The image's virtual environment, copied to the host from a created, never started
    container (the files themselves, not anything a process of the image says about them):
    its ``site-packages``, inside the copy of the venv whose ``pyvenv.cfg`` and ``bin/`` the
    manifest covers too."""
    destination = tmp_path_factory.mktemp("image")
    name = f"qb-build-digest-{os.getpid()}"
    docker("create", "--name", name, image)
    try:
        docker("cp", f"{name}:{VENV}", str(destination / "venv"))
    finally:
        docker("rm", name)
    (found,) = (destination / "venv" / "lib").glob("python3.*/site-packages")
    assert (found / "quart_bezique" / "__init__.py").is_file()
    assert (destination / "venv" / "pyvenv.cfg").is_file()
    assert list(found.glob("quart_bezique-*.dist-info")), "a regular install: metadata beside it"
    return found


def _copy(site_packages: Path, tmp_path: Path) -> Path:
    """A copy of the whole venv (symlinks kept); its ``site-packages``."""
    venv = site_packages.parents[2]
    shutil.copytree(venv, tmp_path / "venv", symlinks=True)
    return tmp_path / "venv" / site_packages.relative_to(venv)


def test_the_served_build_is_recomputed_on_the_host_from_the_image_files(
    served_build: str, site_packages: Path
) -> None:
    code, answer = cli("build-digest", "--root", str(site_packages))
    assert code == 0, answer
    assert answer["digest"] == served_build
    assert answer["files"] > 500  # the package, its bytecode, the dependencies' files
    assert answer["dependencies"] >= 9 and answer["python"], answer
    assert cli("build-digest", "--root", str(site_packages), "--expect", served_build)[0] == 0
    # The configuration beside the package is the repository's; the one gunicorn ran from /app
    # was hashed by the running service: equal digests say the two are the same bytes.
    conf = site_packages / "gunicorn.conf.py"
    assert conf.read_bytes() == (Path(__file__).parents[2] / "gunicorn.conf.py").read_bytes()


def test_the_image_bytecode_is_compiled_unchecked_hash(site_packages: Path) -> None:
    """The Dockerfile compiles every module itself (pip compiles nothing): hash-based bytecode
    the interpreter runs without looking at the source or at file times."""
    pycs = list((site_packages / "quart_bezique").rglob("__pycache__/*.pyc"))
    pycs += list((site_packages / "flask").rglob("__pycache__/*.pyc"))
    assert len(pycs) > 50
    flags = {int.from_bytes(p.read_bytes()[4:8], "little") for p in pycs}
    assert flags == {0b01}, flags


def test_a_changed_file_in_the_copy_changes_the_digest(
    served_build: str, site_packages: Path, tmp_path: Path
) -> None:
    """The comparison above could fail: one byte added to a rules file moves the digest."""
    altered = _copy(site_packages, tmp_path)
    assert cli("build-digest", "--root", str(altered), "--expect", served_build)[0] == 0
    scoring = altered / "quart_bezique" / "game" / "scoring.py"
    scoring.write_bytes(scoring.read_bytes() + b"\n")
    code, answer = cli("build-digest", "--root", str(altered), "--expect", served_build)
    assert code == 1 and answer["matches"] is False


def test_a_swapped_pyc_in_the_copy_changes_the_digest(
    served_build: str, site_packages: Path, tmp_path: Path
) -> None:
    """Bytecode is what runs: another body under the same header (the source untouched) moves
    the digest, as does a changed file of a dependency."""
    altered = _copy(site_packages, tmp_path)
    (pyc,) = (altered / "quart_bezique" / "wire" / "__pycache__").glob("render.*.pyc")
    data = pyc.read_bytes()
    pyc.write_bytes(data[:16] + marshal.dumps(compile("SCORE_BONUS = 100", "render.py", "exec")))
    code, answer = cli("build-digest", "--root", str(altered), "--expect", served_build)
    assert code == 1 and answer["matches"] is False
    pyc.write_bytes(data)
    assert cli("build-digest", "--root", str(altered), "--expect", served_build)[0] == 0
    (flask_app,) = (altered / "flask" / "__pycache__").glob("app.*.pyc")
    flask_app.write_bytes(flask_app.read_bytes() + b"\0")
    assert cli("build-digest", "--root", str(altered), "--expect", served_build)[0] == 1


def test_the_image_reports_the_same_digest_for_itself(image: str, served_build: str) -> None:
    """``quart-bezique build-digest`` inside the image (read-only, no network): the running
    process's figure, the image's own, and the host's recomputation all agree."""
    out = docker(
        "run", "--rm", "--network", "none", "--read-only", "--tmpfs", "/tmp",
        image, "quart-bezique", "--json", "build-digest",
    )  # fmt: skip
    assert json.loads(out)["digest"] == served_build


# ------------------------------------------------------------------------------ a signed verdict


def _key_dir(root: Path) -> Path:
    """A directory as Kubernetes mounts the Secret: root-owned, the key file mode 0440 and
    group-owned by the service's group, the directory traversable by that group only."""
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


def _wait_ready(host: str, port: int, name: str) -> None:
    deadline = time.monotonic() + READY_SECONDS
    while time.monotonic() < deadline:
        assert docker("inspect", "-f", "{{.State.Running}}", name) == "true", docker("logs", name)
        try:
            with urllib.request.urlopen(f"http://{host}:{port}/readyz", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.2)
    pytest.fail(f"the signing container was not ready in {READY_SECONDS} s: {docker('logs', name)}")


@pytest.fixture(scope="module")
def signing(image: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """A second container of the image, signing with a key bind-mounted read-only where the
    Deployment mounts its Secret; yields the key directory and the container's base URL."""
    if os.geteuid() != 0:
        pytest.skip("the key file is given to the service's group: needs root, as the script is")
    keys = _key_dir(tmp_path_factory.mktemp("keys"))
    name = f"qb-signing-{os.getpid()}"
    docker(
        "run", "-d", "--name", name,
        "--read-only", "--tmpfs", "/tmp:rw,nosuid,nodev,noexec,size=16m",
        "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
        "--memory", pod_memory(), "--pids-limit", "256",
        "--mount", f"type=bind,source={keys},target={KEY_DIR},readonly",
        "--env", f"SIGNING_KEY_FILE={KEY_DIR}/signing-key.pem",
        "--env", "WEB_CONCURRENCY=1", "--env", f"PORT={APP_PORT}",
        "--publish", f"127.0.0.1::{APP_PORT}",
        image,
    )  # fmt: skip
    try:
        port = int(docker("port", name, f"{APP_PORT}/tcp").splitlines()[0].rsplit(":", 1)[1])
        _wait_ready("127.0.0.1", port, name)
        yield keys, f"http://127.0.0.1:{port}"
    finally:
        docker("rm", "-f", name)


def test_a_verdict_signed_in_the_image_verifies_on_the_host(
    signing: tuple[Path, str], served_build: str, site_packages: Path, tmp_path: Path
) -> None:
    keys, url = signing
    host, port = url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    conn.request("POST", ENDPOINT, body=REQUEST, headers={"Content-Type": "application/json"})
    answer = conn.getresponse()
    status, receipt, body = answer.status, answer.getheader("Verdict-Receipt"), answer.read()
    conn.request("GET", "/.well-known/jwks.json")
    jwks = conn.getresponse().read()
    conn.close()
    assert status == 200 and receipt, body

    # The key set the container publishes is the one the host derives from the key file.
    env = {**os.environ, "SIGNING_KEY_FILE": str(keys / "signing-key.pem")}
    derived = subprocess.run(
        [str(CLI), "--json", "jwks"], capture_output=True, env=env, timeout=60, check=True
    )
    assert json.loads(jwks) == json.loads(derived.stdout)

    record = tmp_path / "record.json"
    record.write_text(
        json.dumps(
            {
                "endpoint": ENDPOINT,
                "request": json.loads(REQUEST),
                "response": body.decode("utf-8"),
                "receipt": receipt,
            }
        )
    )
    (tmp_path / "jwks.json").write_bytes(jwks)
    jwks_file = str(tmp_path / "jwks.json")
    code, verdict = cli("verify", str(record), "--jwks", jwks_file, "--build", served_build)
    assert code == 0, verdict
    assert verdict["reason"] == "VALID"
    assert verdict["claims"]["build"] == served_build
    digest = hashlib.sha256(body).hexdigest()
    assert verdict["response_sha256"] == {"recorded": digest, "recomputed": digest}

    # The receipt names the image's build: the digest of the files copied out of it.
    assert cli("build-digest", "--root", str(site_packages))[1]["digest"] == served_build

    # One byte of the stored response changed: the host refuses it.
    changed = json.loads(record.read_text())
    changed["response"] = changed["response"].replace('"score":16', '"score":17')
    record.write_text(json.dumps(changed))
    code, verdict = cli("verify", str(record), "--jwks", jwks_file)
    assert code == 1 and verdict["reason"] == "RESPONSE_MISMATCH"
