# Production image of the Quart-Bezique adjudication service.
#
#   docker build -t quart-bezique:1.0.0 .
#   docker run --rm --read-only --tmpfs /tmp -p 8000:8000 quart-bezique:1.0.0
#
# Any base image with Python >= 3.11 and its venv module works:
#   docker build --build-arg BASE_IMAGE=registry.example/python:3.12-slim -t quart-bezique:1.0.0 .
# The image needs no network at run time and writes only to /tmp (mount a tmpfs there).
# docs/deploy.md has the whole story: build, push, run, Kubernetes.

# checkov:skip=CKV_DOCKER_7:FROM ${BASE_IMAGE} hides the tag from checkov; the default below is pinned
ARG BASE_IMAGE=python:3.11-slim-bookworm

# ---------------------------------------------------------------- build stage
# Installs the project and its pinned dependencies into a self-contained virtual environment.
# Every dependency ships wheels, so no compiler is needed here either.
FROM ${BASE_IMAGE} AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_INPUT=1
WORKDIR /src
RUN python3 -m venv /opt/venv
COPY pyproject.toml constraints.txt README.md gunicorn.conf.py ./
COPY service ./service
# Versions are pinned by constraints.txt. pip itself is not needed at run time: it leaves the venv.
# Bytecode is compiled once, here, deliberately: pip compiles nothing (--no-compile), then every
# module of site-packages is compiled in unchecked-hash mode, so the interpreter runs exactly these
# .pyc files (it never compares them with the sources, or with file times a copy may lose) and
# the build manifest hashes them with everything else (docs/verification.md, "What the digest
# covers"). A copy of gunicorn.conf.py beside the package puts the configuration in the manifest
# an auditor recomputes from site-packages; the one gunicorn runs (/app) must have the same bytes.
RUN /opt/venv/bin/python -m pip install --no-cache-dir --no-compile -c constraints.txt '.[server]' \
    && /opt/venv/bin/python -m pip uninstall --yes --quiet pip setuptools wheel \
    && SITE="$(/opt/venv/bin/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')" \
    && /opt/venv/bin/python -m compileall -q -j 0 --invalidation-mode unchecked-hash "$SITE" \
    && cp gunicorn.conf.py "$SITE/gunicorn.conf.py" \
    && PYTHONDONTWRITEBYTECODE=1 /opt/venv/bin/python -c "import gunicorn, quart_bezique"

# -------------------------------------------------------------- runtime stage
# The base image plus the virtual environment and the gunicorn configuration, nothing else:
# no compiler, no pip, no caches, no sources beyond the installed package.
FROM ${BASE_IMAGE} AS runtime

ARG VERSION=1.0.0
ARG SOURCE_URL=""
ARG REVISION=""
LABEL org.opencontainers.image.title="quart-bezique" \
      org.opencontainers.image.description="Reference adjudication service for Quart-Bezique: scoring, showdown, betting, settlement" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.source="${SOURCE_URL}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.licenses="MIT"

# HOME and TMPDIR point at /tmp, the only place a library may write to (mount a tmpfs there).
# HOST and PORT are read by gunicorn.conf.py, like its other settings (WEB_CONCURRENCY, ...).
ENV PATH="/opt/venv/bin:${PATH}" \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    HOME=/tmp \
    TMPDIR=/tmp \
    HOST=0.0.0.0 \
    PORT=8000

COPY --from=build /opt/venv /opt/venv
COPY gunicorn.conf.py /app/gunicorn.conf.py
WORKDIR /app

# A fixed numeric non-root user (no /etc/passwd entry needed, so any base works; Kubernetes can verify
# runAsNonRoot against a numeric USER). Code and configuration stay root-owned and read-only to it.
USER 10001:10001
EXPOSE 8000

# gunicorn runs as PID 1 (exec form): on SIGTERM it first drains (GUNICORN_DRAIN_SECONDS: still
# serving, /readyz 503, every answer Connection: close), then stops accepting, lets in-flight
# requests finish (GUNICORN_GRACEFUL_TIMEOUT), writes its audit lines and exits 0 (74 if it could
# not write them all; docs/deploy.md, rolling restarts).
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
    CMD ["python3", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('PORT', '8000'), timeout=2)"]

CMD ["gunicorn", "--config", "/app/gunicorn.conf.py", "quart_bezique.wsgi:app"]
