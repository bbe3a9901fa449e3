// swift-tools-version: 6.2
import PackageDescription

/// One settings array for every target: Swift 6 language mode comes with the tools version;
/// upcoming features are turned on here once.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "actiond",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "actiond", targets: ["actiond"]),
        // The production build of it: the operating commands only (the Dockerfile ships it).
        .executable(name: "actiond-worker", targets: ["actiond-worker"]),
        // The library a team builds its own worker with: `CategoryHandler` and
        // `Actiond.main(handlers:)`, every operating command; no development tools.
        .library(name: "ActiondKit", targets: ["ActiondKit"]),
        // The development tools beside them (`demo`, `bench`, `db`), for a team that wants
        // them in a binary of its own: `ActiondDevelopment.main(handlers:)`.
        .library(name: "ActiondDevelopment", targets: ["ActiondDevelopment"]),
        // For a team's test target: a real database and actiond's own worker with its handlers.
        .library(name: "ActiondTesting", targets: ["ActiondTesting"]),
    ],
    dependencies: [
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        // Traces: spans through swift-distributed-tracing, exported over OTLP/HTTP by swift-otel
        // (its gRPC exporter left out: OTLP/HTTP is what every collector takes, and gRPC
        // would double the build).
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
        // `swift package generate-documentation --target ActiondDomain`: the handler API's DocC.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // actiond's JSON: the value tree, its reader (RFC 8259, the grammar submit accepts)
        // and writer (keys in byte order, times with microseconds). No I/O.
        .target(
            name: "ActiondJSON",
            swiftSettings: swiftSettings
        ),
        // Pure domain: categories, events, validation, the handler API, state machines. No I/O.
        .target(
            name: "ActiondDomain",
            dependencies: ["ActiondJSON"],
            swiftSettings: swiftSettings
        ),
        // The built-in handlers (meeting_invitation, timer, message_thread) on the handler API,
        // apart from it: ActiondKit uses them and does not re-export them.
        .target(
            name: "ActiondBuiltInHandlers",
            dependencies: ["ActiondDomain"],
            swiftSettings: swiftSettings
        ),
        // Protected text: key files and the KEK provider, data keys, AES-GCM sealing at rest,
        // the HPKE intake key producers seal to. No I/O but the key file.
        .target(
            name: "ActiondSealing",
            dependencies: [
                "ActiondDomain",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // PostgreSQL: migrations, category registry, submit, queue, reports.
        .target(
            name: "ActiondPostgres",
            dependencies: [
                "ActiondDomain",
                "ActiondBuiltInHandlers",
                "ActiondSealing",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings,
            plugins: ["EmbedResources"]
        ),
        // The embedded cluster: a PostgreSQL actiond creates and runs from the machine's server
        // programs, for development and tests (the `actiond` binary, the testing product);
        // never in a production worker, which is given a database URL.
        .target(
            name: "ActiondEmbedded",
            dependencies: [
                "ActiondPostgres",
                "ActiondRuntime",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // Runtime: database selection and lifecycle, workers, wake-ups, shutdown, metrics, HTTP.
        .target(
            name: "ActiondRuntime",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "OTel", package: "swift-otel"),
                "ActiondDomain",
                "ActiondBuiltInHandlers",
                "ActiondPostgres",
                "ActiondSealing",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        // The console (`actiond console`): server-rendered pages over the console_* functions,
        // sign-in, roles and the cross-site check. Templates, style and script are embedded.
        .target(
            name: "ActiondConsole",
            dependencies: [
                "ActiondDomain",
                "ActiondPostgres",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Assets"],
            swiftSettings: swiftSettings,
            plugins: ["EmbedResources"]
        ),
        // The public library: the handler API (re-exported from ActiondDomain) and the
        // command line, run with a team's handlers by `Actiond.main(handlers:)`.
        .target(
            name: "ActiondKit",
            dependencies: [
                "ActiondDomain",
                "ActiondBuiltInHandlers",
                "ActiondPostgres",
                "ActiondRuntime",
                "ActiondSealing",
                "ActiondConsole",
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // Development tooling, never in a production worker: the benchmark, the mixed
        // workload it and the tests submit, the demo's scenario.
        .target(
            name: "ActiondTooling",
            dependencies: [
                "ActiondEmbedded",
                "ActiondDomain",
                "ActiondBuiltInHandlers",
                "ActiondPostgres",
                "ActiondRuntime",
                "ActiondSealing",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The development commands (`demo`, `bench`, `db`) on top of ActiondKit's command line.
        .target(
            name: "ActiondDevelopment",
            dependencies: [
                "ActiondEmbedded",
                "ActiondKit",
                "ActiondTooling",
                "ActiondDomain",
                "ActiondPostgres",
                "ActiondRuntime",
                "ActiondSealing",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The thin executable: every command, development tools included, with the built-in handlers.
        .executableTarget(
            name: "actiond",
            dependencies: ["ActiondDevelopment"],
            swiftSettings: swiftSettings
        ),
        // The production executable: the operating commands only, with the built-in handlers.
        .executableTarget(
            name: "actiond-worker",
            dependencies: ["ActiondKit"],
            swiftSettings: swiftSettings
        ),
        // The example a team copies: a fourth category (ORDER_READY) written only against
        // ActiondKit's public API, its own worker executable, and its tests.
        .target(
            name: "OrderReady",
            dependencies: ["ActiondKit"],
            path: "Examples/OrderReady/Sources/OrderReady",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "order-ready-worker",
            dependencies: ["ActiondKit", "OrderReady", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Examples/OrderReady/Sources/order-ready-worker",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "OrderReadyTests",
            dependencies: [
                "OrderReady",
                "order-ready-worker",
                "actiond",
                "ActiondKit",
                "ActiondTesting",
            ],
            path: "Examples/OrderReady/Tests/OrderReadyTests",
            swiftSettings: swiftSettings
        ),
        // Build tool: embeds Schema/*.sql and categories/default.json into ActiondPostgres,
        // so the binary needs no files beside it at run time.
        .executableTarget(
            name: "EmbedResourcesTool",
            swiftSettings: swiftSettings
        ),
        .plugin(
            name: "EmbedResources",
            capability: .buildTool(),
            dependencies: ["EmbedResourcesTool"]
        ),
        // The testing product (public): `ActiondTestDatabase`, over the test helpers below.
        .target(
            name: "ActiondTesting",
            dependencies: [
                "ActiondEmbedded",
                "ActiondKit",
                "ActiondDomain",
                "ActiondBuiltInHandlers",
                "ActiondPostgres",
                "ActiondRuntime",
                "ActiondSealing",
                "ActiondTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // ORDER_READY tested as a team's package would: the handler, ActiondKit, ActiondTesting.
        .testTarget(
            name: "OrderReadyLibraryTests",
            dependencies: ["OrderReady", "ActiondKit", "ActiondTesting"],
            path: "Examples/OrderReady/Tests/OrderReadyLibraryTests",
            swiftSettings: swiftSettings
        ),
        // Test helpers: one embedded cluster per test run, a fresh database per suite.
        .target(
            name: "ActiondTestSupport",
            dependencies: [
                "ActiondEmbedded",
                "ActiondDomain",
                "ActiondBuiltInHandlers",
                "ActiondPostgres",
                "ActiondSealing",
                "ActiondRuntime",
                "ActiondTooling",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ActiondJSONTests",
            dependencies: [
                "ActiondJSON",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ActiondDomainTests",
            dependencies: [
                "ActiondDomain",
                "ActiondBuiltInHandlers",
                "ActiondJSON",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ActiondSealingTests",
            dependencies: [
                "ActiondDomain",
                "ActiondBuiltInHandlers",
                "ActiondSealing",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ActiondPostgresTests",
            dependencies: [
                "ActiondDomain",
                "ActiondBuiltInHandlers",
                "ActiondPostgres",
                "ActiondTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The command line's own parts: terminal output (reports, progress), JSON Lines input.
        .testTarget(
            name: "ActiondKitTests",
            dependencies: ["ActiondKit", "ActiondPostgres"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ActiondRuntimeTests",
            dependencies: [
                "ActiondTooling",
                "ActiondDomain",
                "ActiondBuiltInHandlers",
                "ActiondPostgres",
                "ActiondRuntime",
                "ActiondTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        // The console's pure parts: listening rules, the users file, the cross-site check, escaping.
        .testTarget(
            name: "ActiondConsoleTests",
            dependencies: [
                "ActiondConsole",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            swiftSettings: swiftSettings
        ),
        // End-to-end tests of the `actiond` executable, run as a child process.
        .testTarget(
            name: "actiondTests",
            dependencies: [
                "ActiondEmbedded",
                "actiond",
                "actiond-worker",
                "ActiondTooling",
                "ActiondDomain",
                "ActiondBuiltInHandlers",
                "ActiondSealing",
                "ActiondTestSupport",
                "ActiondPostgres",
                "ActiondRuntime",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
