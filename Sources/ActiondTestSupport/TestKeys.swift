import ActiondSealing
import Foundation

/// The test run's key file, beside its embedded cluster (made once), shared by in-process
/// workers and the `actiond` children (ACTIOND_KEY_FILE), so both open each other's text.
package enum TestKeys {
    package static let path: String = {
        let path = TestPaths.clusterDirectory + ".key"
        try? FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: path) { _ = try? KeyFile.create(at: path) }
        return path
    }()

    /// A key ring on the test key file.
    package static var ring: KeyRing {
        get throws { KeyRing(provider: try KeyFile(path: path)) }
    }

    /// One shared ring (its cache shared too), for in-process workers.
    package static let shared: KeyRing = {
        do { return try ring } catch { preconditionFailure("the test key file \(path) cannot be read: \(error)") }
    }()
}
