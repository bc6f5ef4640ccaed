import Foundation
import HTTPTypes
import HTTPTypesFoundation
import SluiceJSON
public import SluiceJSONAPI

// Writing: creating, updating and deleting resources, and changing relationships.
extension JSONAPIClient {
    /// Creates a resource (`POST /<type>`). Give it a `lid` and no `id` to let the server assign
    /// the id, or an `id` the client generated. The result holds the created resource when the
    /// server returns it (201, or 200 with a document), none for 202/204.
    public func create<R: Resource & Encodable>(
        _ resource: R,
        included: [any Resource & Encodable] = [],
        query: JSONAPIQuery = JSONAPIQuery(),
        options: RequestOptions = RequestOptions()
    ) async throws -> JSONAPIWriteResult<Linked<R>> {
        let body = try encoder.encode(resource, included: included)
        let url = try url(for: .collection(type: R.resourceType), query: query)
        return try await registering(R.self).write(Linked<R>.self, .post, url, body: body, options: options)
    }

    /// Updates a resource (`PATCH /<type>/<id>`). Only the members the model writes are sent:
    /// `Field.absent` and `ToOne.unchanged` leave a member out (unchanged on the server), `.null`
    /// clears it.
    @discardableResult
    public func update<R: Resource & Encodable>(
        _ resource: R,
        query: JSONAPIQuery = JSONAPIQuery(),
        options: RequestOptions = RequestOptions()
    ) async throws -> JSONAPIWriteResult<Linked<R>> {
        let (body, target) = try encoder.encodeIdentified(resource)
        guard let target, !target.isLocal else {
            throw JSONAPIClientError(
                kind: .invalidURL,
                request: "PATCH \(R.resourceType)",
                body: "an update needs the resource's id; the model wrote none"
            )
        }
        let url = try url(for: .resource(type: target.type, id: target.key), query: query)
        return try await registering(R.self).write(Linked<R>.self, .patch, url, body: body, options: options)
    }

    /// Deletes a resource (`DELETE /<type>/<id>`).
    @discardableResult
    public func delete(
        type: String,
        id: String,
        options: RequestOptions = RequestOptions()
    ) async throws -> JSONAPIWriteResult<NoPrimaryData> {
        try await write(
            NoPrimaryData.self,
            .delete,
            url(for: .resource(type: type, id: id)),
            body: nil,
            options: options
        )
    }

    /// Deletes a resource of model type `T`.
    @discardableResult
    public func delete<T: Resource>(
        _ type: T.Type,
        id: String,
        options: RequestOptions = RequestOptions()
    ) async throws -> JSONAPIWriteResult<NoPrimaryData> {
        try await delete(type: T.resourceType, id: id, options: options)
    }

    /// Replaces a to-one relationship (`PATCH .../relationships/<name>`); `nil` clears it.
    @discardableResult
    public func replaceRelationship(
        type: String,
        id: String,
        relationship: String,
        with target: ResourceIdentifier?,
        options: RequestOptions = RequestOptions()
    ) async throws -> JSONAPIWriteResult<RelationshipLinkage> {
        try await linkage(.patch, type: type, id: id, relationship: relationship, .one(target), options: options)
    }

    /// Replaces every member of a to-many relationship (`PATCH`); an empty array clears it.
    @discardableResult
    public func replaceRelationship(
        type: String,
        id: String,
        relationship: String,
        with members: [ResourceIdentifier],
        options: RequestOptions = RequestOptions()
    ) async throws -> JSONAPIWriteResult<RelationshipLinkage> {
        try await linkage(.patch, type: type, id: id, relationship: relationship, .many(members), options: options)
    }

    /// Adds members to a to-many relationship (`POST`); members already there stay once.
    @discardableResult
    public func addToRelationship(
        type: String,
        id: String,
        relationship: String,
        _ members: [ResourceIdentifier],
        options: RequestOptions = RequestOptions()
    ) async throws -> JSONAPIWriteResult<RelationshipLinkage> {
        try await linkage(.post, type: type, id: id, relationship: relationship, .many(members), options: options)
    }

    /// Removes members from a to-many relationship (`DELETE` with the members in the body).
    @discardableResult
    public func removeFromRelationship(
        type: String,
        id: String,
        relationship: String,
        _ members: [ResourceIdentifier],
        options: RequestOptions = RequestOptions()
    ) async throws -> JSONAPIWriteResult<RelationshipLinkage> {
        try await linkage(.delete, type: type, id: id, relationship: relationship, .many(members), options: options)
    }

    private func linkage(
        _ method: HTTPRequest.Method,
        type: String,
        id: String,
        relationship: String,
        _ data: JSONAPIRequestDocument.Linkage,
        options: RequestOptions
    ) async throws -> JSONAPIWriteResult<RelationshipLinkage> {
        let body = try StreamingJSONEncoder().encode(JSONAPIRequestDocument(data: data))
        let url = try url(for: .relationship(type: type, id: id, name: relationship))
        return try await write(RelationshipLinkage.self, method, url, body: body, options: options)
    }

    private func write<Primary: PrimaryData>(
        _ primary: Primary.Type,
        _ method: HTTPRequest.Method,
        _ url: URL,
        body: Data?,
        options: RequestOptions
    ) async throws -> JSONAPIWriteResult<Primary> {
        let exchange = try await send(method, url, body: body, options: options)
        let document: Document<Primary>?
        do {
            document = try await exchange.document(primary)
        } catch let error as JSONAPIClientError where error.kind == .invalidDocument && Self.lacksData(error) {
            // A write may be answered with only `meta` (the specification allows it for an
            // update): the change was applied, there is just no resource to return.
            document = nil
        }
        return JSONAPIWriteResult(
            document: document,
            status: exchange.response.head.status.code,
            headers: exchange.response.head.headerFields,
            url: url
        )
    }
}

/// The request documents the client writes itself: relationship linkage.
struct JSONAPIRequestDocument: Encodable {
    enum Linkage: Encodable {
        case one(ResourceIdentifier?)
        case many([ResourceIdentifier])
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .one(let identifier?): try container.encode(identifier)
            case .one(nil): try container.encodeNil()
            case .many(let identifiers): try container.encode(identifiers)
            }
        }
    }
    var data: Linkage
}
