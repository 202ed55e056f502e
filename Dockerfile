# gpuquote in a container: build on Debian bookworm, run on bookworm-slim.
#
#   docker build -t gpuquote . && docker run -p 8080:8080 gpuquote
#
# The database lives on the /data volume (SQLite), or is a PostgreSQL server
# named by GPUQUOTE_DATABASE=postgresql://... (both backends are built in);
# pending migrations are applied at start. Configuration: config/gpuquote.json baked in, overridden by
# GPUQUOTE_* environment variables (docker run -e GPUQUOTE_THREADS=4 ...).

FROM debian:bookworm AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends gcc libc6-dev make pkg-config \
      libmicrohttpd-dev libjansson-dev libsqlite3-dev libpq-dev nettle-dev liblz4-dev libjemalloc-dev \
      libcurl4-gnutls-dev libpango1.0-dev libcairo2-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Makefile openapi.yaml ./
COPY scripts/ scripts/
COPY src/ src/
COPY web/ web/
# The same build `make` does on a workstation.
RUN make build/gpuquote

FROM debian:bookworm-slim
# The quotation's PDF: pango and cairo, and a font with Chinese glyphs
# (WenQuanYi Micro Hei, 5 MB) whose subsets each PDF embeds. Installing the
# font builds fontconfig's system cache, so the server needs to write none.
RUN apt-get update \
 && apt-get install -y --no-install-recommends libmicrohttpd12 libjansson4 libsqlite3-0 libpq5 \
      libnettle8 liblz4-1 libjemalloc2 libcurl3-gnutls curl \
      libpangocairo-1.0-0 fonts-wqy-microhei \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /data --shell /usr/sbin/nologin gpuquote \
 && mkdir -p /data && chown gpuquote:gpuquote /data
COPY --from=build /src/build/gpuquote /usr/local/bin/gpuquote
WORKDIR /usr/share/gpuquote
COPY migrations/ migrations/
COPY config/ config/
# Docker stops a container with SIGKILL 10 s after SIGTERM unless told
# otherwise (--stop-timeout): 6 s of grace for requests in flight, up to 2 s
# to answer quotes already committed, and closing the database fit in that.
ENV GPUQUOTE_LISTEN=0.0.0.0 \
    GPUQUOTE_DATABASE=/data/gpuquote.db \
    GPUQUOTE_SHUTDOWN_GRACE_SECONDS=6 \
    GPUQUOTE_BOOTSTRAP_KEY_FILE=/data/admin.key \
    XDG_CACHE_HOME=/tmp
VOLUME ["/data"]
USER gpuquote
EXPOSE 8080
# The port the server was given (-e GPUQUOTE_PORT=9090 too).
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD curl -fsS "http://127.0.0.1:${GPUQUOTE_PORT:-8080}/healthz" || exit 1
ENTRYPOINT ["/usr/local/bin/gpuquote"]
