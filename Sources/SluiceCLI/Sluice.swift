import ArgumentParser
import Foundation

/// The `sluice` command.
@main
struct Sluice: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sluice",
        abstract: "Streams JSON and JSON:API documents: checks, converts and imports them in constant memory.",
        discussion: """
            Every subcommand reads files as a stream, so inputs of many gigabytes take no more memory \
            than small ones. Give - as a file name to read standard input (bench, which reads its \
            file once per run, needs a file).

            Exit codes: 0 on success, 1 when an input is invalid, 2 on a usage error or an input that \
            cannot be read, 3 when an input is a JSON:API error document (the server reported errors \
            instead of data; flatten, import and bench print them). Faults read \
            FILE:LINE:COLUMN: POINTER: message, where POINTER is a JSON Pointer (RFC 6901) and empty \
            for the document's root.

            Examples:
              sluice import export.json --sqlite export.sqlite
              sluice fetch 'https://api.example.com/articles?page[size]=100' --all-pages
              sluice validate response.json
              sluice generate --articles 1000 | sluice flatten -
              sluice bench export.json
            """,
        subcommands: [Import.self, Fetch.self, Validate.self, Flatten.self, Models.self, Generate.self, Bench.self]
    )

    /// Runs the command, with usage errors exiting 2 (argument parser's default is 64) so that
    /// scripts can tell "invalid input" (1) from "called wrongly" (2).
    static func main() async {
        // A closed pipe must reach the write as EPIPE (and end the command quietly, below), not
        // kill the process before it can say anything or clean up.
        signal(SIGPIPE, SIG_IGN)
        do {
            var command = try parseAsRoot(Validate.completingRequestOption(Array(CommandLine.arguments.dropFirst())))
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let failure as OutputFailure where failure.isClosedPipe {
            // `sluice flatten big.json | head`: the reader has what it wanted.
            exit(withError: ExitCode(0))
        } catch let failure as OutputFailure {
            // One place for every command: output that could not be written is not success.
            Terminal.message("sluice: cannot write: \(failure.reason)\n")
            exit(withError: ExitCode(2))
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                let message = fullMessage(for: error)
                Terminal.message(message + "\n")
                exit(withError: ExitCode(2))
            }
            exit(withError: error)
        }
    }
}
