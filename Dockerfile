# benchgate's image: one static Go binary on a minimal base, for hermetic
# `docker://` use (report, swebench merge); the action itself runs on the
# runner (action.yml).
#
# The build stage runs on the builder's own platform and cross-compiles
# for the target one, so `docker buildx build --platform
# linux/amd64,linux/arm64` needs no emulation. BuildKit sets the platform
# arguments; the classic builder (Docker 20.10 as Debian ships it) sets
# none, so each has a fallback at its use. No ARG here has a default: a
# default would count as set by the user and win over BuildKit's value.
# With the classic builder both are linux/amd64 unless given: on an ARM
# machine, --build-arg BUILDPLATFORM=linux/arm64 --build-arg TARGETARCH=arm64.
ARG BUILDPLATFORM
FROM --platform=${BUILDPLATFORM:-linux/amd64} golang:1.26-bookworm AS build
ARG TARGETOS
ARG TARGETARCH
ARG VERSION=dev
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH:-amd64} \
    go build -trimpath -ldflags "-s -w -X github.com/benchgate/benchgate/internal/cli.Version=$VERSION" \
    -o /out/benchgate ./cmd/benchgate

# distroless static (not the :nonroot tag): CA certificates, tzdata and
# /etc/passwd, nothing else. It runs as root so that `docker run -v
# "$PWD:/w"` can write into a runner's workspace and a `docker://` step
# into the file-command files the runner mounts; there is no WORKDIR
# (the runner sets --workdir).
FROM gcr.io/distroless/static-debian12:latest
COPY --from=build /out/benchgate /benchgate
ENTRYPOINT ["/benchgate", "action"]
