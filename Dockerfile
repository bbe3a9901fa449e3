# Builds the actiond executable in release mode and ships it on a slim image.
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
RUN swift build -c release --product actiond \
    && cp "$(swift build -c release --show-bin-path)/actiond" /actiond

FROM swift:6.2-bookworm-slim
RUN useradd --system --create-home actiond
COPY --from=build /actiond /usr/local/bin/actiond
USER actiond
ENTRYPOINT ["actiond"]
