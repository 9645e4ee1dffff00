# The `clusterscope` CLI in a small image, for sweeps on a scheduler (docs/SCALE-OUT.md).
#   docker build -t clusterscope .
#   docker run --rm clusterscope sweep cassandra-21636-echo-race --seeds 100
FROM rust:1.95-slim-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked -p clusterscope-cli \
 && cp target/release/clusterscope /usr/local/bin/clusterscope

FROM debian:bookworm-slim
# A TrueType font for `--plot` (plotters draws text from a .ttf file).
RUN apt-get update && apt-get install -y --no-install-recommends fonts-dejavu-core \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /usr/local/bin/clusterscope /usr/local/bin/clusterscope
COPY scenarios /scenarios
WORKDIR /work
ENTRYPOINT ["clusterscope"]
