# Caldera's container image: one static binary, run as UID 65532.
#
#   docker build -t caldera:latest .
#
# BuildKit (Docker 23 or later, or docker buildx) sets BUILDPLATFORM and
# TARGETOS/TARGETARCH, so `docker buildx build --platform linux/amd64,linux/arm64`
# cross-compiles without emulation.
#
# The runtime base defaults to an empty image plus the CA bundle, which is what
# the scheduler needs: in a cluster it trusts the service account's CA file.
# To run on the distroless static nonroot image instead, pass its full
# reference: --build-arg RUNTIME_IMAGE=<registry>/distroless/static:nonroot
ARG RUNTIME_IMAGE=scratch

# The Go release matches go.mod's go directive (go 1.26).
FROM --platform=$BUILDPLATFORM golang:1.26 AS build
ARG TARGETOS
ARG TARGETARCH
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH \
    go build -trimpath -ldflags="-s -w" -o /caldera ./cmd/caldera

FROM ${RUNTIME_IMAGE}
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /caldera /caldera
USER 65532:65532
ENTRYPOINT ["/caldera"]
CMD ["run"]
