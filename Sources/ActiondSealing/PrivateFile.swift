import Foundation

/// Files only their owner may read: created 0600, written whole then renamed, synced; a
/// file replaced keeps its owner and group, and one created beside a key file takes the key
/// file's (when the process may set them: as root), so that a command run as root leaves
/// nothing the workers' Unix user cannot read.
enum PrivateFile {
    /// The Unix user this process runs as, for sentences: `name (uid N)`.
    static var processUser: String {
        let uid = geteuid()
        if let entry = getpwuid(uid), let name = entry.pointee.pw_name { return "\(String(cString: name)) (uid \(uid))" }
        return "uid \(uid)"
    }

    /// The file's bytes; nil when it does not exist and `missingIsEmpty`. Refuses (naming the
    /// file and the Unix user) one that exists but cannot be read, and one that group or
    /// others may read (as ssh refuses a private key).
    static func read(_ path: String, what: String, missingIsEmpty: Bool) throws -> Data? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT && missingIsEmpty { return nil }
            throw KeyError("\(what) \(path) cannot be read by Unix user \(processUser): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw KeyError("\(what) \(path) may be read by group or others (mode \(String(info.st_mode & 0o777, radix: 8))): run chmod 600 \(path); it is refused until then")
        }
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw KeyError("\(what) \(path) cannot be read by Unix user \(processUser): \(String(cString: strerror(errno))); make it owned by the user the workers run as (chown), mode 0600")
        }
        close(fd)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw KeyError("\(what) \(path) cannot be read by Unix user \(processUser)")
        }
        return data
    }

    /// Gives the file at `fd` the owner and group of `reference`, when they differ and the
    /// process may (root); otherwise leaves it as created.
    private static func takeOwner(of reference: String, fd: Int32) {
        var info = stat()
        guard stat(reference, &info) == 0, info.st_uid != geteuid() || info.st_gid != getegid() else { return }
        _ = fchown(fd, info.st_uid, info.st_gid)
    }

    static func write(_ data: Data, to path: String, ownerLike reference: String? = nil) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else { throw KeyError("cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        if let reference { takeOwner(of: reference, fd: fd) }
        try writeAll(data, fd: fd, path: path)
    }

    static func replace(_ data: Data, at path: String) throws {
        let temporary = path + ".new"
        unlink(temporary)
        try write(data, to: temporary, ownerLike: path)
        guard rename(temporary, path) == 0 else { throw KeyError("cannot replace \(path): \(String(cString: strerror(errno)))") }
    }

    static func append(_ data: Data, to path: String, ownerLike reference: String) throws {
        let created = !FileManager.default.fileExists(atPath: path)
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        guard fd >= 0 else { throw KeyError("cannot open \(path) as Unix user \(processUser): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        if created { takeOwner(of: reference, fd: fd) }
        try writeAll(data, fd: fd, path: path)
    }

    private static func writeAll(_ data: Data, fd: Int32, path: String) throws {
        try data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                guard written > 0 else { throw KeyError("cannot write \(path): \(String(cString: strerror(errno)))") }
                offset += written
            }
        }
        guard fsync(fd) == 0 else { throw KeyError("cannot sync \(path): \(String(cString: strerror(errno)))") }
    }
}
