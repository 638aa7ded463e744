# The chart's bundled Redis for the test node: Debian's redis-server (no registry is reachable).
# Like the official image, protected mode is off (the pod network is the boundary) and /data is the
# working directory; the chart's args follow the entrypoint.
FROM docker.io/library/debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends redis-server \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir /data && chown 999:999 /data
WORKDIR /data
ENTRYPOINT ["redis-server", "--protected-mode", "no"]
