# benchgate's GitHub Action image: one static Go binary on a minimal base.
#
# The build stage runs on the builder's own platform and cross-compiles
# for the target one, so `docker buildx build --platform
# linux/amd64,linux/arm64` needs no emulation.
FROM --platform=$BUILDPLATFORM golang:1.26-bookworm AS build
ARG TARGETOS=linux
ARG TARGETARCH=amd64
ARG VERSION=dev
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH \
    go build -trimpath -ldflags "-s -w -X github.com/benchgate/benchgate/internal/cli.Version=$VERSION" \
    -o /out/benchgate ./cmd/benchgate

# distroless static (not the :nonroot tag): CA certificates, tzdata and
# /etc/passwd, nothing else. Docker actions must run as root to write to
# the mounted workspace and file-command files, so there is no USER line,
# and no WORKDIR either (the runner mounts the workspace and sets --workdir).
FROM gcr.io/distroless/static-debian12:latest
COPY --from=build /out/benchgate /benchgate
ENTRYPOINT ["/benchgate", "action"]
