# dbrace in a container, for Docker Desktop (macOS, Windows) and CI: it starts its
# servers as sibling containers through the daemon's socket (docs/docker.md).
#
#   docker build -t dbrace .                      # from this checkout
#   docker run --rm --network host --pid host -v /var/run/docker.sock:/var/run/docker.sock \
#     -v "$PWD/dbrace-data:$PWD/dbrace-data" dbrace run --launcher docker \
#     --disk-dir "$PWD/dbrace-data" --run-as nobody -e postgres -p disk,ram -w tpcb
#
# The first stage is the one the tests build (scripts/dbrace-image): a dbrace binary and a
# docker client from its build context, on a Debian base given as BASE, with no network
# and no registry. The stages after it build from the checkout.

ARG BASE=debian:bookworm-slim

FROM ${BASE} AS prebuilt
COPY dbrace docker /usr/local/bin/
ENTRYPOINT ["dbrace"]

FROM rust:1-bookworm AS build
COPY . /src
RUN cd /src && cargo build --release --locked

FROM ${BASE}
RUN apt-get update && apt-get install -y --no-install-recommends docker.io && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/target/release/dbrace /usr/local/bin/dbrace
ENTRYPOINT ["dbrace"]
