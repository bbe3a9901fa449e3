import Foundation
import Logging
import Synchronization

/// The users file as the console's source of truth while it runs: every request asks for
/// `current()`, which looks at the file's identity, size and modification time (one `stat`)
/// and reads it again when any changed. So `console users remove` or a new role applies to
/// sessions already open at their next request. A file that cannot be read, is not a users
/// file, or may be read by group or others lets nobody in until it is fixed (never the last
/// good copy, never read-only access for all).
package final class ConsoleUsersFile: Sendable {
    /// What identifies one version of the file.
    struct Stamp: Equatable {
        let device: UInt64
        let inode: UInt64
        let size: Int64
        let modified: timespec
        let changed: timespec
        let mode: UInt32

        static func == (a: Stamp, b: Stamp) -> Bool {
            a.device == b.device && a.inode == b.inode && a.size == b.size && a.mode == b.mode
                && a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec
                && a.changed.tv_sec == b.changed.tv_sec && a.changed.tv_nsec == b.changed.tv_nsec
        }
    }

    private struct Loaded {
        var stamp: Stamp?
        var users: Result<ConsoleUsers, ConsoleUsersError>
    }

    package let path: String
    private let loaded: Mutex<Loaded>
    private let logger: Logger

    /// The file at `path`, as it is now.
    package init(path: String, logger: Logger) {
        self.path = path
        self.logger = logger
        let stamp = ConsoleUsersFile.stamp(path)
        self.loaded = Mutex(Loaded(stamp: stamp, users: Result { try ConsoleUsers.load(path) }.mapError { $0 as? ConsoleUsersError ?? .unreadable(path: path, reason: "\($0)") }))
    }

    /// The people the file lists now, or why nobody may come in. The file is small and read
    /// only when it changed, so reading it here (on the request's thread) is cheap.
    package func current() -> Result<ConsoleUsers, ConsoleUsersError> {
        let stamp = ConsoleUsersFile.stamp(path)
        return loaded.withLock { loaded in
            if stamp != loaded.stamp || stamp == nil {
                let users = Result { try ConsoleUsers.load(path) }.mapError { $0 as? ConsoleUsersError ?? .unreadable(path: path, reason: "\($0)") }
                if stamp != loaded.stamp {
                    switch users {
                    case .success(let users): logger.notice("console users file read again", metadata: ["console_users": "\(users.users.count)"])
                    case .failure(let error): logger.error("console users file refused: nobody may sign in until it is fixed", metadata: ["error": "\(error)"])
                    }
                }
                loaded = Loaded(stamp: stamp, users: users)
            }
            return loaded.users
        }
    }

    static func stamp(_ path: String) -> Stamp? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Stamp(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                     modified: info.st_mtim, changed: info.st_ctim, mode: UInt32(info.st_mode))
    }
}
