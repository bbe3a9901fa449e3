import ArgumentParser
import Configuration
import Foundation

/// The one reader of the environment: the `ACTIOND_*` variables behind the command-line flags,
/// read through swift-configuration (`--batch-size` is `ACTIOND_BATCH_SIZE`), with
/// `DATABASE_URL` and the terminal's `COLUMNS`. A flag wins over its variable; a variable that
/// is set but malformed is refused naming it, as a bad flag is. The modules below the command
/// line (runtime, PostgreSQL) are handed resolved values and read no environment.
struct EnvironmentSettings: Sendable {
    private let reader: ConfigReader

    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        reader = ConfigReader(provider: EnvironmentVariablesProvider(
            environmentVariables: environment, secretsSpecifier: .specific(["ACTIOND_DATABASE_URL", "DATABASE_URL"])))
    }

    /// The process's environment.
    static let current = EnvironmentSettings()

    /// The variable a flag reads: `batch-size` → `ACTIOND_BATCH_SIZE`.
    static func variable(_ flag: String) -> String {
        "ACTIOND_" + flag.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    private func key(_ flag: String) -> ConfigKey { ConfigKey(["actiond", flag]) }

    func string(_ flag: String) -> String? {
        reader.string(forKey: key(flag)).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `ACTIOND_DATABASE_URL`, else the conventional `DATABASE_URL`.
    var databaseURL: String? {
        string("database-url") ?? reader.string(forKey: ConfigKey(["database", "url"])).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The terminal's width (`COLUMNS`), when the shell exports it.
    var terminalColumns: Int? {
        reader.string(forKey: ConfigKey(["columns"])).flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }
    }

    func int(_ flag: String) throws -> Int? {
        guard string(flag) != nil else { return nil }
        do { return try reader.requiredInt(forKey: key(flag)) } catch {
            throw ValidationError("\(Self.variable(flag)) must be a whole number")
        }
    }

    func double(_ flag: String) throws -> Double? {
        guard let text = string(flag) else { return nil }
        guard let value = Double(text), value.isFinite else { throw ValidationError("\(Self.variable(flag)) must be a number") }
        return value
    }

    func bool(_ flag: String) throws -> Bool? {
        guard string(flag) != nil else { return nil }
        do { return try reader.requiredBool(forKey: key(flag)) } catch {
            throw ValidationError("\(Self.variable(flag)) must be true or false (also 1/0, yes/no)")
        }
    }
}
