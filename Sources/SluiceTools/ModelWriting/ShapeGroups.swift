// Object shapes that recur: twitter's `urls` entries at five places, a status's `user` and its
// retweet's, `sizes` with four members of one shape. Each place has its own `ObjectShape` (the
// sampler keeps them apart, counting per place); written as they are, they would be `Url`,
// `Url2` ... `Url8`, copies a user must convert between. Grouped by structure before writing,
// each group becomes one type.

/// The object shapes of a sample, grouped by structure: the same member names, each holding
/// values of the same kinds (nested objects and arrays compared the same way, `null` aside).
final class ShapeGroups {
    /// One structure, and every place it was met.
    final class Group {
        /// The shapes of all its places added up: a member that some place lacked or held `null`
        /// makes an optional property.
        let merged = ObjectShape()
        /// The type name each place would have had, in the order met.
        fileprivate(set) var placeNames: [String] = []
        /// The structure of the object each place is a member of, and that object's type name.
        fileprivate(set) var parents: [(structure: String, name: String)?] = []
        /// Its type's name, once written.
        var name: String?

        /// The name for its type: the one every place suggests; for places that are the
        /// differently named members of one parent (`sizes`' `medium`, `small`, `thumb` and
        /// `large`), the parent's name made singular (`Size`); else the name most places
        /// suggest, the first met among equals.
        var suggestedName: String {
            var counts: [String: Int] = [:]
            for name in placeNames { counts[name, default: 0] += 1 }
            if counts.count > 1, let parent = parents.first ?? nil,
                parents.allSatisfy({ $0?.structure == parent.structure })
            {
                let singular = SwiftModelWriter.singular(parent.name)
                if singular != parent.name { return singular }
            }
            var best = placeNames.first ?? "Value"
            for name in placeNames where counts[name, default: 0] > counts[best, default: 0] { best = name }
            return best
        }
    }

    private var groups: [String: Group] = [:]
    /// Structures worked out, by shape; the shapes are held so that an identifier is never
    /// reused for another shape while this lives.
    private var structures: [ObjectIdentifier: (shape: ObjectShape, structure: String)] = [:]

    /// Visits every nested object shape of the sample the way `SwiftModelWriter` will, noting
    /// each place under its structure.
    func collect(_ sampler: ModelSampler, rootObjectName: String, elementName: String) {
        for resource in sampler.resources {
            let parent = (
                structure: "resource:" + resource.type,
                name: SwiftModelWriter.typeName(resource.type, singular: true)
            )
            for member in resource.attributes.members {
                collect(member.shape, name: SwiftModelWriter.typeName(member.name, singular: false), parent: parent)
            }
        }
        let root = (structure: structure(of: sampler.rootObject), name: rootObjectName)
        for member in sampler.rootObject.members {
            collect(member.shape, name: SwiftModelWriter.typeName(member.name, singular: false), parent: root)
        }
        collect(sampler.rootElements, name: elementName, parent: nil)
    }

    /// The group of `object`, a shape met while writing (a shape `collect` visited, or one of the
    /// same structure: the values of a map are merged anew each time they are asked for).
    func group(of object: ObjectShape) -> Group? {
        groups[structure(of: object)]
    }

    private func collect(_ shape: ValueShape, name: String, parent: (structure: String, name: String)?) {
        let kinds = shape.kinds
        guard kinds.count == 1, let kind = kinds.first else { return }
        switch kind {
        case .array:
            guard SwiftModelWriter.fixedSizeVector(shape) == nil, shape.elements.count > 0 else { return }
            collect(shape.elements, name: SwiftModelWriter.singular(name), parent: parent)
        case .object:
            let object = shape.object
            guard !object.members.isEmpty else { return }
            if object.looksLikeMap {
                collect(object.mergedValues, name: SwiftModelWriter.singular(name), parent: parent)
                return
            }
            let key = structure(of: object)
            let group = groups[key] ?? Group()
            groups[key] = group
            group.merged.absorb(object)
            group.placeNames.append(name)
            group.parents.append(parent)
            for member in object.members {
                collect(
                    member.shape,
                    name: SwiftModelWriter.typeName(member.name, singular: false),
                    parent: (key, name)
                )
            }
        case .bool, .number, .string:
            return
        }
    }

    /// The structure of `object`: its member names in order of their bytes, each with the
    /// structure of its values.
    private func structure(of object: ObjectShape) -> String {
        let id = ObjectIdentifier(object)
        if let known = structures[id] { return known.structure }
        var text: String
        if object.looksLikeMap {
            // Memoized too: the merged values are made anew (allocated) on every ask.
            text = "map(" + structure(of: object.mergedValues) + ")"
        } else {
            let members = object.members.sorted {
                Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8))
            }
            text = "{"
            for member in members {
                text += member.name.debugDescription + ":" + structure(of: member.shape) + ","
            }
            text += "}"
        }
        structures[id] = (object, text)
        return text
    }

    /// The structure of the values `shape` counted: the kinds met (numbers one kind, whether
    /// whole or not), with nested structures.
    private func structure(of shape: ValueShape) -> String {
        var text = ""
        for kind in shape.kinds.sorted(by: { "\($0)" < "\($1)" }) {
            switch kind {
            case .bool: text += "b"
            case .number: text += "n"
            case .string: text += "s"
            case .object: text += structure(of: shape.object)
            case .array:
                if let vector = SwiftModelWriter.fixedSizeVector(shape) {
                    text += vector
                } else {
                    text += "[" + structure(of: shape.elements) + "]"
                }
            }
        }
        return text.isEmpty ? "null" : text
    }
}
