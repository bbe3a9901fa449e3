import ActiondPostgres
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive `flock` on a file, held until `unlock()`: serialises cluster start-up between
/// processes (two `actiond` commands, or a test run and its child processes).
struct FileLock {
    private let descriptor: Int32

    init(path: String) throws(EmbeddedClusterError) {
        descriptor = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw EmbeddedClusterError(.dataDirectoryUnreachable, "cannot open lock file \(path): errno \(errno)")
        }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                close(descriptor)
                throw EmbeddedClusterError(.dataDirectoryUnreachable, "cannot lock \(path): errno \(errno)")
            }
        }
    }

    func unlock() {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
