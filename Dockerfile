# sluice: build stage (Debian 12, the same -dev packages as integration/services/install-deps.sh)
# and a slim runtime stage with only the shared libraries the binary links.
#
#   docker build -t sluice:local .
#   docker run --rm -p 127.0.0.1:9464:9464 \
#     -v $PWD/examples/docker/sluice.yaml:/etc/sluice/sluice.yaml:ro sluice:local
#
# The build stage (target `build`) also carries kcat: docker-compose.yml's sample producer uses it.
#
# The OCI labels' version, revision and source come from build arguments, e.g.
#   docker build --build-arg VERSION=0.1.0 --build-arg REVISION="$(git rev-parse HEAD)" \
#     --build-arg SOURCE=<repository URL> -t sluice:0.1.0 .

FROM debian:12 AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      build-essential cmake ninja-build pkg-config ca-certificates \
      librdkafka-dev libpqxx-dev libpq-dev libsimdjson-dev libyaml-cpp-dev doctest-dev \
      prometheus-cpp-dev libcivetweb-dev libjemalloc-dev libhowardhinnant-date-dev libavro-dev libcli11-dev \
      zlib1g-dev libsnappy-dev libre2-dev \
      libcurl4-openssl-dev libmariadb-dev libssl-dev kcat curl \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSLUICE_TESTS=OFF \
 && cmake --build /build --target sluice \
 && install -D -m 0755 /build/sluice /out/sluice \
 && strip --strip-debug /out/sluice

FROM debian:12-slim AS runtime
# curl is for health checks (docker-compose.yml's on /readyz) and for `kubectl exec … curl
# localhost:9464/status`; it adds 0.5 MB, its libcurl4 being here already for the registry
# client. A bash /dev/tcp request would do without it, but hand-writes HTTP in every check.
# The user has a fixed numeric UID so that Kubernetes' runAsNonRoot can verify it (a name
# cannot be checked against the image) and the Helm chart's runAsUser names the same one.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      librdkafka1 librdkafka++1 libpqxx-6.4 libpq5 libsimdjson14 libavro23 libyaml-cpp0.7 \
      libprometheus-cpp-core1.0 libprometheus-cpp-pull1.0 libcivetweb1 libjemalloc2 \
      libdate-tz3 libcurl4 zlib1g libsnappy1v5 libre2-9 libmariadb3 tzdata ca-certificates curl \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 sluice \
 && useradd --system --uid 10001 --gid sluice --no-create-home --shell /usr/sbin/nologin sluice
COPY --from=build /out/sluice /usr/local/bin/sluice
# Fail the image build, not the first run, when a library the binary links is missing above.
RUN if ldd /usr/local/bin/sluice | grep 'not found'; then exit 1; fi
# source.timezone names are read from the system tzdata (libdate-tz is built USE_OS_TZDB).
RUN test -f /usr/share/zoneinfo/Europe/Paris
# Its metrics.listen is 0.0.0.0:9464: every interface of the container, as a port mapping
# needs; publish it on the host's loopback (docker run -p 127.0.0.1:9464:9464). PUT /pause and
# /resume stay disabled unless SLUICE_HTTP_TOKEN is set (http.auth.token).
COPY examples/docker/sluice.yaml /etc/sluice/sluice.yaml
USER 10001:10001
EXPOSE 9464
ENTRYPOINT ["sluice"]
CMD ["run", "-c", "/etc/sluice/sluice.yaml"]
# Last, so that a new version or revision rebuilds no layer above. The tree has no licence
# file yet: NOASSERTION (SPDX) rather than a guess.
ARG VERSION=dev
ARG REVISION=unknown
ARG SOURCE=""
LABEL org.opencontainers.image.title="sluice" \
      org.opencontainers.image.description="Kafka to PostgreSQL CDC sink: newest change wins by CSN, offsets committed with the rows" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.licenses="NOASSERTION" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
