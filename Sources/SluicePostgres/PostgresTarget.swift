// Where a PostgreSQL import goes: a `postgres://` URL read into postgres-nio's configuration, the
// password from the URL or PGPASSWORD (never printed), TLS from `sslmode`, and server errors
// turned into one readable sentence.

public import Foundation
import NIOSSL
import PostgresNIO

/// A PostgreSQL server and database to import into, read from a URL such as
/// `postgres://importer@db.example.com:5432/exports?sslmode=require`.
///
/// - The user name comes from the URL, else `PGUSER`, else `postgres`.
/// - The password comes from the URL, else `PGPASSWORD`; ``description`` never shows it.
/// - The host and port come from the URL (`localhost` and 5432 when absent), the database from its
///   path (else the user name, as `psql` does).
/// - `sslmode` (also `PGSSLMODE`): `disable`; `prefer` (the default: TLS when the server offers it,
///   without checking its certificate); `require` (TLS, certificate not checked); `verify-ca` (TLS,
///   certificate checked against the system's trust roots); `verify-full` (the host name too).
/// - `connect_timeout` (also `PGCONNECT_TIMEOUT`): seconds to wait for the connection; 30 when
///   absent.
public struct PostgresTarget: Sendable, CustomStringConvertible {
    /// How the connection uses TLS (`sslmode`).
    public enum TLSMode: String, Sendable {
        /// No TLS.
        case disable
        /// TLS when the server offers it, its certificate not checked.
        case prefer
        /// TLS required, its certificate not checked.
        case require
        /// TLS required, the certificate checked against the system's roots, not the host name.
        case verifyCA = "verify-ca"
        /// TLS required, the certificate and host name checked against the system's roots.
        case verifyFull = "verify-full"
    }

    /// The server's host name or address.
    public var host: String
    /// The server's port.
    public var port: Int
    /// The user to connect as.
    public var username: String
    /// The password, when one was given; never printed.
    public var password: String?
    /// The database to import into.
    public var database: String
    /// How the connection uses TLS.
    public var tls: TLSMode
    /// How long to wait for the connection (`connect_timeout`). Default: 30 seconds, since a
    /// loaded server or a busy machine can take longer than a few seconds to accept.
    public var connectTimeout: Duration = .seconds(30)

    /// A URL that cannot be read as a PostgreSQL target.
    public struct InvalidURL: Error, CustomStringConvertible, Sendable {
        /// What is wrong with it.
        public var reason: String
        /// The fault, as one sentence.
        public var description: String { "Not a PostgreSQL URL: \(reason)." }
    }

    /// Reads `url` (`postgres://` or `postgresql://`), with `environment` standing in for
    /// `PGUSER`, `PGPASSWORD` and `PGSSLMODE` where the URL says nothing.
    public init(url: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard let components = URLComponents(string: url),
            let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql"
        else {
            throw InvalidURL(reason: "expected postgres://[user[:password]@]host[:port]/database")
        }
        host = components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "localhost"
        port = components.port ?? 5432
        username =
            components.percentEncodedUser.flatMap { $0.removingPercentEncoding } ?? environment["PGUSER"] ?? "postgres"
        password = components.percentEncodedPassword.flatMap { $0.removingPercentEncoding } ?? environment["PGPASSWORD"]
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.isEmpty ? username : path
        let timeout =
            components.queryItems?.first(where: { $0.name == "connect_timeout" })?.value
            ?? environment["PGCONNECT_TIMEOUT"]
        if let timeout {
            guard let seconds = Int(timeout), seconds > 0 else {
                throw InvalidURL(reason: "connect_timeout must be a whole number of seconds above 0, not \(timeout)")
            }
            connectTimeout = .seconds(seconds)
        }
        let mode = components.queryItems?.first(where: { $0.name == "sslmode" })?.value ?? environment["PGSSLMODE"]
        switch mode {
        case nil, "prefer", "allow": tls = .prefer
        case "disable": tls = .disable
        case "require": tls = .require
        case "verify-ca": tls = .verifyCA
        case "verify-full": tls = .verifyFull
        case let other?:
            throw InvalidURL(
                reason: "sslmode must be disable, prefer, require, verify-ca or verify-full, not \(other)"
            )
        }
    }

    /// The target without its password: `postgres://user@host:port/database`.
    public var description: String {
        "postgres://\(username)@\(host):\(port)/\(database)"
    }

    /// postgres-nio's configuration for this target.
    func configuration() throws -> PostgresConnection.Configuration {
        let tlsSetting: PostgresConnection.Configuration.TLS
        switch tls {
        case .disable:
            tlsSetting = .disable
        case .prefer, .require:
            var settings = TLSConfiguration.makeClientConfiguration()
            settings.certificateVerification = .none
            let context = try NIOSSLContext(configuration: settings)
            tlsSetting = tls == .prefer ? .prefer(context) : .require(context)
        case .verifyCA:
            var settings = TLSConfiguration.makeClientConfiguration()
            settings.certificateVerification = .noHostnameVerification
            tlsSetting = .require(try NIOSSLContext(configuration: settings))
        case .verifyFull:
            tlsSetting = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
        var configuration = PostgresConnection.Configuration(
            host: host,
            port: port,
            username: username,
            password: password,
            database: database,
            tls: tlsSetting
        )
        configuration.options.connectTimeout = .init(connectTimeout)
        return configuration
    }
}

/// A PostgreSQL failure in one sentence: the server's message, SQLSTATE and detail, or what
/// happened to the connection. (postgres-nio's own description hides all of it, so that nothing
/// sensitive is logged by accident; these fields carry no password.)
public struct PostgresImportError: Error, CustomStringConvertible, Sendable {
    /// The failure, as one sentence that ends with what the import was doing.
    public var description: String

    init(_ error: any Error, doing: String) {
        if let error = error as? PSQLError {
            var text = "PostgreSQL: "
            if let message = error.serverInfo?[.message] {
                text += message
                if let state = error.serverInfo?[.sqlState] { text += " (SQLSTATE \(state))" }
                if let detail = error.serverInfo?[.detail] { text += ". \(detail)" }
            } else {
                switch error.code {
                case .serverClosedConnection, .uncleanShutdown: text += "the server closed the connection"
                case .clientClosedConnection: text += "the connection was closed"
                case .connectionError: text += "cannot connect"
                default: text += "\(error.code)"
                }
                if let underlying = error.underlying { text += " (\(underlying))" }
            }
            description = text + " while \(doing)"
        } else if error is PostgresImporter.ConnectionClosed {
            description =
                "PostgreSQL: the connection closed (the server ended it, or the network failed) while \(doing)"
        } else {
            description = "PostgreSQL: \(error) while \(doing)"
        }
    }
}
