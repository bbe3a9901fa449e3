import Foundation

/// Where the PostgreSQL server programs (`initdb`, `pg_ctl`, `postgres`) are on this machine.
package struct PostgresBinaries: Sendable, Hashable {
    package var directory: URL

    package var initdb: URL { directory.appending(path: "initdb") }
    package var pgCtl: URL { directory.appending(path: "pg_ctl") }

    package init(directory: URL) {
        self.directory = directory
    }

    /// Looks in `override` (flag or ACTIOND_PG_BINDIR) if given, else on PATH, else in
    /// `pg_config --bindir`, else the newest `/usr/lib/postgresql/*/bin` (Debian, Ubuntu).
    package static func locate(override: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) throws(EmbeddedClusterError) -> PostgresBinaries {
        if let override {
            let candidate = PostgresBinaries(directory: URL(fileURLWithPath: override))
            guard candidate.isComplete else {
                throw EmbeddedClusterError(.binariesNotFound, "no initdb and pg_ctl in \(override) (from --pg-bindir or ACTIOND_PG_BINDIR)")
            }
            return candidate
        }
        var searched: [String] = []
        for directory in (environment["PATH"] ?? "").split(separator: ":").map(String.init) where !directory.isEmpty {
            let candidate = PostgresBinaries(directory: URL(fileURLWithPath: directory))
            if candidate.isComplete { return candidate }
        }
        searched.append("PATH")
        if let pgConfig = findOnPath("pg_config", environment: environment),
           let output = try? ProcessRunner.run(pgConfig, ["--bindir"]), output.status == 0 {
            let candidate = PostgresBinaries(directory: URL(fileURLWithPath: output.output.trimmingWhitespace()))
            if candidate.isComplete { return candidate }
        }
        searched.append("pg_config --bindir")
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? [])
            .compactMap { name in Double(name).map { (name, $0) } }
            .sorted { $0.1 > $1.1 }
        for (name, _) in versions {
            let candidate = PostgresBinaries(directory: root.appending(path: name).appending(path: "bin"))
            if candidate.isComplete { return candidate }
        }
        searched.append("/usr/lib/postgresql/*/bin")
        throw EmbeddedClusterError(.binariesNotFound, """
            PostgreSQL server programs (initdb, pg_ctl) not found; looked in \(searched.joined(separator: ", ")).
            Install them (Debian/Ubuntu: apt-get install postgresql), point ACTIOND_PG_BINDIR at their folder, \
            or use an existing server with --database-url / DATABASE_URL.
            """)
    }

    /// A client program of the same installation (pg_dump, psql): beside initdb, beside the
    /// file initdb links to, or in the newest `/usr/lib/postgresql/*/bin`.
    package func tool(_ name: String) throws(EmbeddedClusterError) -> URL {
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []).sorted().reversed()
        let candidates = [directory, initdb.resolvingSymlinksInPath().deletingLastPathComponent()]
            + versions.map { URL(fileURLWithPath: "/usr/lib/postgresql/\($0)/bin") }
        for folder in candidates where FileManager.default.isExecutableFile(atPath: folder.appending(path: name).path) {
            return folder.appending(path: name)
        }
        throw EmbeddedClusterError(.binariesNotFound, "\(name) not found beside initdb (\(directory.path)) or in /usr/lib/postgresql/*/bin")
    }

    var isComplete: Bool {
        FileManager.default.isExecutableFile(atPath: initdb.path) && FileManager.default.isExecutableFile(atPath: pgCtl.path)
    }

    package static func findOnPath(_ name: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> URL? {
        let directories = (environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/bin", "/sbin", "/bin"]
        for directory in directories where !directory.isEmpty {
            let candidate = URL(fileURLWithPath: directory).appending(path: name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }
}
