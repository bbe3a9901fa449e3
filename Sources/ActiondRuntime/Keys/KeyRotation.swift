import ActiondPostgres
import ActiondSealing
import Logging
import PostgresNIO

/// `actiond keys rotate`: wraps every data key under a new KEK, page by page, beside its old
/// wrapping, without touching sealed text. Resumable: each page commits, and a key that has a
/// wrapping under the new KEK is skipped.
package struct KeyRotation: Sendable {
    let client: PostgresClient
    let from: any KeyProvider
    let to: any KeyProvider
    let pageSize: Int
    let logger: Logger

    package init(client: PostgresClient, from: any KeyProvider, to: any KeyProvider, pageSize: Int = 1000, logger: Logger) {
        self.client = client
        self.from = from
        self.to = to
        self.pageSize = pageSize
        self.logger = logger
    }

    /// Returns how many keys were wrapped anew.
    package func run() async throws -> Int {
        var after = (user: "", version: 0)
        var total = 0
        while true {
            let page = try await KeyStore.keysToRewrap(kekID: to.kekID, after: after, page: pageSize, client: client, logger: logger)
            guard let last = page.last else { break }
            var rewrapped: [StoredDataKey] = []
            for key in page {
                let dataKey = try await from.unwrap(key.wrapped, kekID: key.kekID, userID: key.userID, version: key.version)
                rewrapped.append(StoredDataKey(userID: key.userID, version: key.version, kekID: to.kekID,
                                               wrapped: try await to.wrap(dataKey, userID: key.userID, version: key.version)))
            }
            total += try await KeyStore.addWrappings(rewrapped, kekID: to.kekID, client: client, logger: logger)
            after = (last.userID, last.version)
            logger.info("keys rewrapped", metadata: ["keys": "\(total)"])
        }
        return total
    }
}
