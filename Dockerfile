# actiond's production image: `actiond-worker` (the operating commands only: no demo, bench
# or db, and no PostgreSQL of its own) shipped as `actiond`, run as a fixed non-root uid.
#
# The bases are build arguments; the defaults are what a team pulls:
#   BUILD_IMAGE    the Swift toolchain image the binary is built in (swift:6.2-bookworm)
#   RUNTIME_IMAGE  the image it runs on (debian:bookworm-slim): the binary is linked with
#                  --static-swift-stdlib, so the runtime needs no Swift libraries
# Targets:
#   built (the default)  builds the binary here, in BUILD_IMAGE
#   prebuilt             packages a binary built elsewhere (CI, a team's own build): put it
#                        in the build context as prebuilt/actiond, and any shared libraries it
#                        needs beyond the runtime image's in prebuilt/lib/ (a binary built with
#                        --static-swift-stdlib needs none)
# e.g. `docker build --build-arg RUNTIME_IMAGE=localhost/debian:bookworm --target prebuilt .`
# (what the compose test does with bases made from Debian's packages: Scripts/compose-test.sh).
ARG BUILD_IMAGE=swift:6.2-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

FROM ${BUILD_IMAGE} AS build
WORKDIR /src
COPY Package.swift ./
COPY Sources Sources
COPY Plugins Plugins
COPY Schema Schema
COPY categories categories
# The manifest names the example and test targets too; SwiftPM wants their folders present.
COPY Examples Examples
COPY Tests Tests
RUN swift build -c release --product actiond-worker --static-swift-stdlib \
    && cp "$(swift build -c release --show-bin-path)/actiond-worker" /actiond

FROM ${RUNTIME_IMAGE} AS runtime
# A fixed uid, so that the key file mounted from the host can be owned by it (mode 0600).
# No development tools: useradd comes with the base (passwd), and nothing else is installed.
RUN useradd --system --uid 10001 --create-home actiond
# `actiond work` serves /metrics, /health/live and /health/ready here (other commands ignore it),
# on every interface of the container (actiond's own default is loopback only), so Prometheus
# on the compose network can scrape it; the compose file publishes it on no host port.
ENV ACTIOND_HTTP_PORT=9090 ACTIOND_HTTP_HOST=0.0.0.0 ACTIOND_LOG_FORMAT=json
EXPOSE 9090
# Ready: the database answers and has this build's schema, and batches are not failing
# systemically (docs/operations.md, "Running in production"). bash's /dev/tcp: the image has
# no curl. (The console's service replaces it with its own check.)
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
    CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/${ACTIOND_HTTP_PORT} && printf 'GET /health/ready HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n' >&3 && head -n 1 <&3 | grep -q ' 200 '"]
ENTRYPOINT ["actiond"]

FROM runtime AS prebuilt
COPY prebuilt/lib/ /usr/local/lib/actiond/
ENV LD_LIBRARY_PATH=/usr/local/lib/actiond
COPY --chmod=755 prebuilt/actiond /usr/local/bin/actiond
USER actiond

FROM runtime AS built
COPY --from=build /actiond /usr/local/bin/actiond
USER actiond
