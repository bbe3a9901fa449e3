import Foundation

/// libpq's password file (`PGPASSFILE`, else `~/.pgpass`), so an operator keeps a login's
/// password out of the command line, where every local user reads it in `ps`.
///
/// Written by hand because PostgresNIO reads no password file. The format is libpq's: one
/// `hostname:port:database:username:password` per line, `*` matching any value in the first
/// four fields, `\:` and `\\` escaping a colon and a backslash, `#` starting a comment line;
/// the first line that matches wins. Unlike libpq, which ignores such a file with a warning,
/// a file that its group or others may read is refused: a password in it is no secret.
package struct PasswordFile: Sendable {
    /// The file's path.
    package let path: String

    package init(path: String) {
        self.path = path
    }

    /// The file a command uses: `PGPASSFILE`, else `.pgpass` in `HOME`; nil with neither.
    package static func configured(environment: [String: String]) -> PasswordFile? {
        if let path = environment["PGPASSFILE"], !path.isEmpty { return PasswordFile(path: path) }
        if let home = environment["HOME"], !home.isEmpty { return PasswordFile(path: home + "/.pgpass") }
        return nil
    }

    /// The password for `url`'s server, database and user, or nil when the file does not
    /// exist or has no matching line. A file readable by group or others is refused, naming it.
    package func password(for url: DatabaseURL) throws(DatabaseURLError) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }  // no file: nothing to find, as libpq
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw DatabaseURLError("the password file \(path) is not a regular file")
        }
        guard status.st_mode & (S_IRWXG | S_IRWXO) == 0 else {
            throw DatabaseURLError(
                "the password file \(path) may be read by group or others (mode \(String(status.st_mode & 0o777, radix: 8))): chmod 600 \(path)")
        }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw DatabaseURLError("the password file \(path) cannot be read as UTF-8 text")
        }
        return Self.password(in: text, host: url.host, port: url.port, database: url.database, username: url.username)
    }

    /// The password of the first line of `text` (a password file's content) that matches.
    package static func password(in text: String, host: String, port: Int, database: String, username: String) -> String? {
        let wanted = [host, String(port), database, username]
        for line in text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline) {
            if line.hasPrefix("#") { continue }
            let fields = Self.fields(of: Substring(line))
            guard fields.count >= 5 else { continue }
            let matches = zip(fields.prefix(4), wanted).allSatisfy { field, value in field == "*" || field == value }
            if matches { return fields[4] }
        }
        return nil
    }

    /// A line's colon-separated fields, `\:` and `\\` unescaped (as libpq, the password ends at
    /// an unescaped colon).
    private static func fields(of line: Substring) -> [String] {
        var fields: [String] = []
        var current = ""
        var escaped = false
        for character in line {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":" {
                fields.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        fields.append(current)
        return fields
    }
}
