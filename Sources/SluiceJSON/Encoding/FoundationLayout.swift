/// Lays out compact JSON text as Foundation's `JSONEncoder` pretty-prints: two spaces a level,
/// `"key" : value`, an empty container as `{` and `}` with an empty line between, and no newline
/// after the document. ``StreamingJSONEncoder`` writes compact text through yajl and passes it
/// through this when `.prettyPrinted` is set, so that output compared with Foundation's (golden
/// files, snapshot tests) is the same bytes.
///
/// A filter over bytes rather than a layout of yajl's: the compact text has no whitespace outside
/// strings, so every `{`, `[`, `,`, `:` and closing bracket outside a string is a place where the
/// layout adds its own. The state carries across chunks.
final class FoundationLayout {
    private let chunkSize: Int
    private var output: [UInt8] = []
    private var depth = 0
    private var strings = JSONStringTracker()
    /// A container was opened and nothing written in it yet.
    private var justOpened = false

    init(chunkSize: Int) {
        self.chunkSize = chunkSize
        output.reserveCapacity(chunkSize + 256)
    }

    /// Lays out `chunk` of compact text, handing `sink` full chunks as they fill.
    func lay(_ chunk: UnsafeRawBufferPointer, to sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        for byte in chunk {
            switch strings.place(of: byte) {
            case .inside:
                output.append(byte)
                continue
            case .opening:
                startValue()
                output.append(byte)
                continue
            case .outside:
                break
            }
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                startValue()
                output.append(byte)
                depth += 1
                justOpened = true
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                // An empty container has an empty line inside, as Foundation writes it.
                if justOpened { output.append(UInt8(ascii: "\n")) }
                newLine()
                output.append(byte)
                justOpened = false
            case UInt8(ascii: ","):
                output.append(byte)
                newLine()
            case UInt8(ascii: ":"):
                output.append(contentsOf: [0x20, UInt8(ascii: ":"), 0x20])
            default:
                startValue()
                output.append(byte)
            }
            if output.count >= chunkSize { try flush(to: sink) }
        }
    }

    /// Hands `sink` what is left.
    func flush(to sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard !output.isEmpty else { return }
        try output.withUnsafeBytes { try sink($0) }
        output.removeAll(keepingCapacity: true)
    }

    /// The first byte of a container's first member or element goes on a line of its own.
    private func startValue() {
        guard justOpened else { return }
        justOpened = false
        newLine()
    }

    private func newLine() {
        output.append(UInt8(ascii: "\n"))
        for _ in 0..<max(depth, 0) { output.append(contentsOf: [0x20, 0x20]) }
    }
}
