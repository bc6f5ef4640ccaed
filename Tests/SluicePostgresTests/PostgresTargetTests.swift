import Foundation
import SluicePostgres
import Testing

/// Reading a `postgres://` URL: the connect timeout from the URL, the environment or the default.
@Suite("PostgreSQL targets")
struct PostgresTargetTests {
    @Test("connect_timeout: from the URL, else PGCONNECT_TIMEOUT, else 30 seconds; anything else refused")
    func connectTimeout() throws {
        #expect(try PostgresTarget(url: "postgres://u@h/db", environment: [:]).connectTimeout == .seconds(30))
        #expect(
            try PostgresTarget(url: "postgres://u@h/db?connect_timeout=5", environment: [:]).connectTimeout
                == .seconds(5)
        )
        #expect(
            try PostgresTarget(url: "postgres://u@h/db", environment: ["PGCONNECT_TIMEOUT": "90"]).connectTimeout
                == .seconds(90)
        )
        let error = try #require(throws: PostgresTarget.InvalidURL.self) {
            try PostgresTarget(url: "postgres://u@h/db?connect_timeout=soon", environment: [:])
        }
        #expect(
            error.description
                == "Not a PostgreSQL URL: connect_timeout must be a whole number of seconds above 0, not soon."
        )
    }
}
