# Builds the production actiond (the operating commands only: no demo, bench or db; the
# actiond-worker product) in release mode and ships it as `actiond` on a slim image.
FROM swift:6.2-bookworm AS build
WORKDIR /src
COPY Package.swift ./
COPY Sources Sources
COPY Plugins Plugins
COPY Schema Schema
COPY categories categories
# The manifest names the example and test targets too; SwiftPM wants their folders present.
COPY Examples Examples
COPY Tests Tests
RUN swift build -c release --product actiond-worker \
    && cp "$(swift build -c release --show-bin-path)/actiond-worker" /actiond

FROM swift:6.2-bookworm-slim
# A fixed uid, so that the key file mounted from the host can be owned by it (mode 0600).
RUN useradd --system --uid 10001 --create-home actiond
COPY --from=build /actiond /usr/local/bin/actiond
USER actiond
# `actiond work` serves /metrics, /health/live and /health/ready here (other commands ignore it),
# on every interface of the container (actiond's own default is loopback only), so Prometheus
# on the compose network can scrape it; the compose file publishes it on no host port.
ENV ACTIOND_HTTP_PORT=9090 ACTIOND_HTTP_HOST=0.0.0.0 ACTIOND_LOG_FORMAT=json
EXPOSE 9090
# Ready: the database answers and has this build's schema, and batches are not failing
# systemically (docs/operations.md, "Running in production"). bash's /dev/tcp: the slim image has no curl.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
    CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/${ACTIOND_HTTP_PORT} && printf 'GET /health/ready HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n' >&3 && head -n 1 <&3 | grep -q ' 200 '"]
ENTRYPOINT ["actiond"]
