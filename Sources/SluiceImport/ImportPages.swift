// A paginated collection imported page by page into one database: the loop every caller of a
// paginated API would otherwise write, with its stops (the last page, a limit, a link that leads
// back) and the counts committed before a fault.

extension ImportJob {
    /// What the page after a page is found from: that page, and its summary (whose `links` hold
    /// the document's top-level links, `next` among them).
    public struct ImportedPage: Sendable {
        /// The page's source (its name is how `documents` records it).
        public var source: ImportSource
        /// What importing it did.
        public var summary: ImportSummary
    }

    /// Imports the pages of a paginated collection into `destination`, in order, each as a
    /// document of its own (its `documents` row, its summary), one page at a time so that memory
    /// stays that of one import.
    ///
    /// `nextPage` is called with `nil` for the first page, then with each page imported; it
    /// returns the page to import next (say, a body fetched from the previous page's
    /// `links.next`), or `nil` after the last. The import stops at the first page that fails (its
    /// outcome is the last one returned), after `maxPages` pages, and at a page whose name was
    /// imported before (a `next` link that leads back), which throws.
    ///
    /// See <doc:ImportingWithoutTheCLI> for `nextPage` following each page's `next` link.
    ///
    /// - Returns: The outcome of each page imported or tried, in order.
    /// - Throws: ``ImportPagesError`` when `nextPage` throws or leads back to a page already
    ///   imported, with the outcomes of the pages before.
    public static func importPages(
        into destination: any ImportDestination,
        maxPages: Int? = nil,
        progress: (@Sendable (ImportSource, ImportProgress) -> Void)? = nil,
        nextPage: (_ previous: ImportedPage?) async throws -> ImportSource?
    ) async throws -> [Outcome] {
        var outcomes: [Outcome] = []
        var previous: ImportedPage?
        var names = Set<String>()
        while maxPages.map({ outcomes.count < $0 }) ?? true {
            let page: ImportSource?
            do {
                page = try await nextPage(previous)
            } catch {
                throw ImportPagesError(reason: .nextPage(error), imported: outcomes)
            }
            guard let page else { break }
            guard names.insert(page.name).inserted else {
                throw ImportPagesError(reason: .leadsBack(page.name), imported: outcomes)
            }
            let outcome = await importDocument(page, into: destination) { progress?(page, $0) }
            outcomes.append(outcome)
            guard case .success(let summary) = outcome.result else { break }
            previous = ImportedPage(source: page, summary: summary)
        }
        return outcomes
    }
}

/// Why ``ImportJob/importPages(into:maxPages:progress:nextPage:)`` stopped before a page was
/// imported, with the pages imported until then.
public struct ImportPagesError: Error, CustomStringConvertible {
    /// Why.
    public enum Reason: Sendable {
        /// Finding or fetching the next page failed with this error.
        case nextPage(any Error)
        /// The next page is one imported already (its name): following on would not end.
        case leadsBack(String)
    }

    /// Why the pages stopped.
    public var reason: Reason
    /// The outcomes of the pages before.
    public var imported: [ImportJob.Outcome]

    /// Resources committed by the pages before.
    public var committedResources: Int {
        imported.reduce(0) { total, outcome in
            switch outcome.result {
            case .success(let summary): total + summary.resources
            case .failure(let failure): total + failure.committedResources
            }
        }
    }

    /// The reason, as a sentence.
    public var description: String {
        switch reason {
        case .nextPage(let error): "the next page could not be read: \(error)"
        case .leadsBack(let name): "\(name): the next link leads back to a page already imported"
        }
    }
}
