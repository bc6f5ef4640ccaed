// Written by `sluice models` from 1 sample.
//
// Decode with:
//     let decoder = StreamingJSONDecoder()
//     let value = try decoder.decode(Canada.self, from: data)

import Foundation
import SluiceMacros

@JSONModel
struct Canada: Codable {
    /// Present in 1 of 1.
    var type: String
    /// Present in 1 of 1.
    var features: [Feature]
}

@JSONModel
struct Feature: Codable {
    /// Present in 1 of 1.
    var type: String
    /// Present in 1 of 1.
    var properties: Properties
    /// Present in 1 of 1.
    var geometry: Geometry
}

@JSONModel
struct Properties: Codable {
    /// Present in 1 of 1.
    var name: String
}

@JSONModel
struct Geometry: Codable {
    /// Present in 1 of 1.
    var type: String
    /// Present in 1 of 1.
    var coordinates: [[SIMD2<Double>]]
}
