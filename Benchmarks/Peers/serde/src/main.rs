//! serde_json peer of the Sluice benchmarks: typed decoding of the same bytes.
//!
//!     serde_peer MODE FILE N
//!
//! MODE is twitter, citm_catalog, canada, jsonapi or jsonapi-tagfirst. FILE is read once into
//! memory and decoded N times with `serde_json::from_slice` into derived structs that type every
//! field of the document (`deny_unknown_fields` checks that none is left out). Each result stays
//! alive until the next decode starts; after the last one, one checksum line is printed, the same
//! line Benchmarks/Peers/msgspec_peer.py prints (and, for the JSON:API modes,
//! Benchmarks/msgspec_anchor.py).

// The structs keep every field of the documents; the checksums read only some of them.
#![allow(dead_code)]

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::process::exit;
use std::time::Instant;

use serde::de::{self, DeserializeOwned, Deserializer, MapAccess, Visitor};
use serde::Deserialize;

// ---------------------------------------------------------------------------------------------
// twitter.json

mod twitter {
    use super::*;

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Twitter {
        pub statuses: Vec<Status>,
        pub search_metadata: SearchMetadata,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct SearchMetadata {
        pub completed_in: f64,
        pub max_id: u64,
        pub max_id_str: String,
        pub next_results: String,
        pub query: String,
        pub refresh_url: String,
        pub count: i64,
        pub since_id: u64,
        pub since_id_str: String,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Status {
        pub metadata: StatusMetadata,
        pub created_at: String,
        pub id: u64,
        pub id_str: String,
        pub text: String,
        pub source: String,
        pub truncated: bool,
        pub in_reply_to_status_id: Option<u64>,
        pub in_reply_to_status_id_str: Option<String>,
        pub in_reply_to_user_id: Option<u64>,
        pub in_reply_to_user_id_str: Option<String>,
        pub in_reply_to_screen_name: Option<String>,
        pub user: User,
        // Null in every status of the corpus; typed as Twitter documents them.
        pub geo: Option<Point>,
        pub coordinates: Option<Point>,
        pub place: Option<Place>,
        pub contributors: Option<Vec<Contributor>>,
        // Only in retweets; a retweeted status has none itself.
        pub retweeted_status: Option<Box<Status>>,
        pub retweet_count: i64,
        pub favorite_count: i64,
        pub entities: StatusEntities,
        pub favorited: bool,
        pub retweeted: bool,
        // Missing from some statuses.
        pub possibly_sensitive: Option<bool>,
        pub lang: String,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct StatusMetadata {
        pub result_type: String,
        pub iso_language_code: String,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Point {
        #[serde(rename = "type")]
        pub kind: String,
        pub coordinates: [f64; 2],
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Place {
        pub id: String,
        pub url: String,
        pub place_type: String,
        pub name: String,
        pub full_name: String,
        pub country_code: String,
        pub country: String,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Contributor {
        pub id: u64,
        pub id_str: String,
        pub screen_name: String,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct User {
        pub id: u64,
        pub id_str: String,
        pub name: String,
        pub screen_name: String,
        pub location: String,
        pub description: String,
        pub url: Option<String>,
        pub entities: UserEntities,
        pub protected: bool,
        pub followers_count: i64,
        pub friends_count: i64,
        pub listed_count: i64,
        pub created_at: String,
        pub favourites_count: i64,
        pub utc_offset: Option<i64>,
        pub time_zone: Option<String>,
        pub geo_enabled: bool,
        pub verified: bool,
        pub statuses_count: i64,
        pub lang: String,
        pub contributors_enabled: bool,
        pub is_translator: bool,
        pub is_translation_enabled: bool,
        pub profile_background_color: String,
        pub profile_background_image_url: String,
        pub profile_background_image_url_https: String,
        pub profile_background_tile: bool,
        pub profile_image_url: String,
        pub profile_image_url_https: String,
        // Missing from most users.
        pub profile_banner_url: Option<String>,
        pub profile_link_color: String,
        pub profile_sidebar_border_color: String,
        pub profile_sidebar_fill_color: String,
        pub profile_text_color: String,
        pub profile_use_background_image: bool,
        pub default_profile: bool,
        pub default_profile_image: bool,
        pub following: bool,
        pub follow_request_sent: bool,
        pub notifications: bool,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct UserEntities {
        // Missing from users without a URL.
        pub url: Option<UrlList>,
        pub description: UrlList,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct UrlList {
        pub urls: Vec<Url>,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Url {
        pub url: String,
        pub expanded_url: String,
        pub display_url: String,
        pub indices: Vec<i64>,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct StatusEntities {
        pub hashtags: Vec<Hashtag>,
        pub symbols: Vec<Symbol>,
        pub urls: Vec<Url>,
        pub user_mentions: Vec<UserMention>,
        // Only in statuses with pictures.
        pub media: Option<Vec<Media>>,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Hashtag {
        pub text: String,
        pub indices: Vec<i64>,
    }

    /// Always empty in the corpus; a cashtag has the hashtag's shape.
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Symbol {
        pub text: String,
        pub indices: Vec<i64>,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct UserMention {
        pub screen_name: String,
        pub name: String,
        pub id: u64,
        pub id_str: String,
        pub indices: Vec<i64>,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Media {
        pub id: u64,
        pub id_str: String,
        pub indices: Vec<i64>,
        pub media_url: String,
        pub media_url_https: String,
        pub url: String,
        pub display_url: String,
        pub expanded_url: String,
        #[serde(rename = "type")]
        pub kind: String,
        pub sizes: Sizes,
        // Only in pictures taken from another status.
        pub source_status_id: Option<u64>,
        pub source_status_id_str: Option<String>,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Sizes {
        pub medium: Size,
        pub small: Size,
        pub thumb: Size,
        pub large: Size,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Size {
        pub w: i64,
        pub h: i64,
        pub resize: String,
    }

    pub fn checksum(document: &Twitter) -> String {
        let (mut retweeted, mut followers, mut retweets, mut favorites) = (0u64, 0i64, 0i64, 0i64);
        let (mut text_bytes, mut entities) = (0usize, 0usize);
        for status in &document.statuses {
            if status.retweeted_status.is_some() {
                retweeted += 1;
            }
            followers += status.user.followers_count;
            retweets += status.retweet_count;
            favorites += status.favorite_count;
            text_bytes += status.text.len();
            entities += status.entities.hashtags.len()
                + status.entities.urls.len()
                + status.entities.user_mentions.len();
        }
        format!(
            "twitter statuses={} retweeted={} followers={} retweets={} favorites={} text_bytes={} entities={}",
            document.statuses.len(),
            retweeted,
            followers,
            retweets,
            favorites,
            text_bytes,
            entities
        )
    }
}

// ---------------------------------------------------------------------------------------------
// citm_catalog.json

mod citm {
    use super::*;

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
    pub struct CitmCatalog {
        pub area_names: HashMap<String, String>,
        pub audience_sub_category_names: HashMap<String, String>,
        // Empty in the corpus; the other *Names maps name ids the same way.
        pub block_names: HashMap<String, String>,
        pub events: HashMap<String, Event>,
        pub performances: Vec<Performance>,
        pub seat_category_names: HashMap<String, String>,
        pub sub_topic_names: HashMap<String, String>,
        // Empty in the corpus.
        pub subject_names: HashMap<String, String>,
        pub topic_names: HashMap<String, String>,
        pub topic_sub_topics: HashMap<String, Vec<i64>>,
        pub venue_names: HashMap<String, String>,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
    pub struct Event {
        // Null in every event of the corpus.
        pub description: Option<String>,
        pub id: i64,
        pub logo: Option<String>,
        pub name: String,
        pub sub_topic_ids: Vec<i64>,
        // Null in every event of the corpus.
        pub subject_code: Option<String>,
        // Null in every event of the corpus.
        pub subtitle: Option<String>,
        pub topic_ids: Vec<i64>,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
    pub struct Performance {
        pub event_id: i64,
        pub id: i64,
        pub logo: Option<String>,
        // Null in every performance of the corpus.
        pub name: Option<String>,
        pub prices: Vec<Price>,
        pub seat_categories: Vec<SeatCategory>,
        // Null in every performance of the corpus.
        pub seat_map_image: Option<String>,
        pub start: i64,
        pub venue_code: String,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
    pub struct Price {
        pub amount: i64,
        pub audience_sub_category_id: i64,
        pub seat_category_id: i64,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
    pub struct SeatCategory {
        pub areas: Vec<Area>,
        pub seat_category_id: i64,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
    pub struct Area {
        pub area_id: i64,
        // Empty in the corpus; block ids are integers like the other ids.
        pub block_ids: Vec<i64>,
    }

    pub fn checksum(document: &CitmCatalog) -> String {
        let (mut prices, mut amount, mut areas, mut start) = (0usize, 0i64, 0usize, 0i64);
        for performance in &document.performances {
            prices += performance.prices.len();
            amount += performance.prices.iter().map(|price| price.amount).sum::<i64>();
            areas += performance
                .seat_categories
                .iter()
                .map(|category| category.areas.len())
                .sum::<usize>();
            start += performance.start;
        }
        let names: usize = document.area_names.values().map(String::len).sum();
        format!(
            "citm_catalog events={} performances={} prices={} amount={} areas={} start={} names={}",
            document.events.len(),
            document.performances.len(),
            prices,
            amount,
            areas,
            start,
            names
        )
    }
}

// ---------------------------------------------------------------------------------------------
// canada.json

mod canada {
    use super::*;

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Canada {
        #[serde(rename = "type")]
        pub kind: String,
        pub features: Vec<Feature>,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Feature {
        #[serde(rename = "type")]
        pub kind: String,
        pub properties: Properties,
        pub geometry: Geometry,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Properties {
        pub name: String,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Geometry {
        #[serde(rename = "type")]
        pub kind: String,
        /// A polygon: rings of (longitude, latitude) points.
        pub coordinates: Vec<Vec<[f64; 2]>>,
    }

    pub fn checksum(document: &Canada) -> String {
        let (mut rings, mut points, mut x, mut y) = (0usize, 0usize, 0f64, 0f64);
        for feature in &document.features {
            rings += feature.geometry.coordinates.len();
            for ring in &feature.geometry.coordinates {
                points += ring.len();
                for point in ring {
                    x += point[0];
                    y += point[1];
                }
            }
        }
        format!(
            "canada features={} rings={} points={} x={:.6} y={:.6}",
            document.features.len(),
            rings,
            points,
            x,
            y
        )
    }
}

// ---------------------------------------------------------------------------------------------
// The generated JSON:API compound document (Benchmarks/.build/release/Profile jsonapi-document).

mod jsonapi {
    use super::*;

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Identifier {
        #[serde(rename = "type")]
        pub kind: String,
        pub id: String,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct ToOne {
        pub data: Option<Identifier>,
        // Only on an article's subject.
        pub meta: Option<RelationshipMeta>,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct RelationshipMeta {
        pub relevance: f64,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct ToMany {
        #[serde(default)]
        pub data: Vec<Identifier>,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "kebab-case")]
    pub struct Metadata {
        pub word_count: i64,
        pub flags: Vec<Option<bool>>,
        pub ratio: f64,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "kebab-case")]
    pub struct ArticleAttributes {
        pub title: String,
        pub body: String,
        pub published: bool,
        pub views: i64,
        pub rating: f64,
        pub published_at: String,
        pub subtitle: Option<String>,
        pub tags: Vec<String>,
        pub metadata: Metadata,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct ArticleRelationships {
        pub author: ToOne,
        pub comments: ToMany,
        pub subject: ToOne,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Article {
        #[serde(rename = "type")]
        pub kind: String,
        pub id: String,
        pub attributes: ArticleAttributes,
        pub relationships: ArticleRelationships,
        pub links: Links,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Links {
        #[serde(rename = "self")]
        pub this: String,
        // Only in the document's links, where it is null.
        pub next: Option<String>,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct PersonAttributes {
        pub name: String,
        pub age: i64,
        pub verified: bool,
        pub email: Option<String>,
    }

    /// A person, less its "type" (the resource enum reads that).
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Person {
        pub id: String,
        pub attributes: PersonAttributes,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct CommentAttributes {
        pub body: String,
        pub likes: i64,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct CommentRelationships {
        pub author: ToOne,
        pub article: ToOne,
    }

    /// A comment, less its "type" (the resource enum reads that).
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Comment {
        pub id: String,
        pub attributes: CommentAttributes,
        pub relationships: CommentRelationships,
    }

    /// What both resource enums give the linking code.
    pub trait Resource {
        fn person(&self) -> Option<&Person>;
        fn comment(&self) -> Option<&Comment>;
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Document<R> {
        pub jsonapi: JsonApi,
        pub data: Vec<Article>,
        pub included: Vec<R>,
        pub meta: DocumentMeta,
        pub links: Links,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct JsonApi {
        pub version: String,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct DocumentMeta {
        pub articles: i64,
        pub people: i64,
        pub seed: u64,
    }

    /// `jsonapi`: serde's own internally tagged enum, which buffers each resource whole before
    /// it reads the tag.
    #[derive(Deserialize)]
    #[serde(tag = "type")]
    pub enum TaggedResource {
        #[serde(rename = "people")]
        Person(Person),
        #[serde(rename = "comments")]
        Comment(Comment),
    }

    impl Resource for TaggedResource {
        fn person(&self) -> Option<&Person> {
            match self {
                TaggedResource::Person(person) => Some(person),
                TaggedResource::Comment(_) => None,
            }
        }
        fn comment(&self) -> Option<&Comment> {
            match self {
                TaggedResource::Comment(comment) => Some(comment),
                TaggedResource::Person(_) => None,
            }
        }
    }

    /// `jsonapi-tagfirst`: the same enum, read by hand. When the resource's first key is "type",
    /// the rest of the object goes straight to the typed struct's derived visitor, unbuffered;
    /// otherwise the object is buffered and the tag looked up in it.
    pub enum TagFirstResource {
        Person(Person),
        Comment(Comment),
    }

    impl Resource for TagFirstResource {
        fn person(&self) -> Option<&Person> {
            match self {
                TagFirstResource::Person(person) => Some(person),
                TagFirstResource::Comment(_) => None,
            }
        }
        fn comment(&self) -> Option<&Comment> {
            match self {
                TagFirstResource::Comment(comment) => Some(comment),
                TagFirstResource::Person(_) => None,
            }
        }
    }

    /// The resource types, read from the tag's string without allocating.
    #[derive(Deserialize)]
    enum Kind {
        #[serde(rename = "people")]
        People,
        #[serde(rename = "comments")]
        Comments,
    }

    /// A resource's first key: "type", or another one (kept for the buffered fallback).
    enum FirstKey {
        Type,
        Other(String),
    }

    impl<'de> Deserialize<'de> for FirstKey {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct KeyVisitor;
            impl<'de> Visitor<'de> for KeyVisitor {
                type Value = FirstKey;
                fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
                    formatter.write_str("a resource's key")
                }
                fn visit_str<E: de::Error>(self, key: &str) -> Result<FirstKey, E> {
                    Ok(if key == "type" {
                        FirstKey::Type
                    } else {
                        FirstKey::Other(key.to_owned())
                    })
                }
                fn visit_string<E: de::Error>(self, key: String) -> Result<FirstKey, E> {
                    Ok(if key == "type" {
                        FirstKey::Type
                    } else {
                        FirstKey::Other(key)
                    })
                }
            }
            deserializer.deserialize_identifier(KeyVisitor)
        }
    }

    impl<'de> Deserialize<'de> for TagFirstResource {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            deserializer.deserialize_map(TagFirstVisitor)
        }
    }

    struct TagFirstVisitor;

    impl<'de> Visitor<'de> for TagFirstVisitor {
        type Value = TagFirstResource;

        fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
            formatter.write_str("a JSON:API resource object")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TagFirstResource, A::Error> {
            match map.next_key::<FirstKey>()? {
                Some(FirstKey::Type) => {
                    // The tag first: the struct's derived visitor reads the remaining keys
                    // from the same map, with nothing buffered.
                    let kind: Kind = map.next_value()?;
                    let rest = de::value::MapAccessDeserializer::new(map);
                    Ok(match kind {
                        Kind::People => TagFirstResource::Person(Person::deserialize(rest)?),
                        Kind::Comments => TagFirstResource::Comment(Comment::deserialize(rest)?),
                    })
                }
                Some(FirstKey::Other(first)) => {
                    // The tag later (or missing): buffer the object, then read it from the buffer.
                    let mut object = serde_json::Map::new();
                    object.insert(first, map.next_value()?);
                    while let Some((key, value)) = map.next_entry::<String, serde_json::Value>()? {
                        object.insert(key, value);
                    }
                    from_buffer(object).map_err(de::Error::custom)
                }
                None => Err(de::Error::missing_field("type")),
            }
        }
    }

    fn from_buffer(
        mut object: serde_json::Map<String, serde_json::Value>,
    ) -> Result<TagFirstResource, serde_json::Error> {
        let tag = object
            .remove("type")
            .ok_or_else(|| de::Error::missing_field("type"))?;
        let kind = Kind::deserialize(tag)?;
        let rest = serde_json::Value::Object(object);
        Ok(match kind {
            Kind::People => TagFirstResource::Person(Person::deserialize(rest)?),
            Kind::Comments => TagFirstResource::Comment(Comment::deserialize(rest)?),
        })
    }

    /// msgspec_anchor.py's decode_and_link after the decode: the same lookups, through maps keyed
    /// by id per resource type (the anchor's `people` and `comments` dictionaries and its
    /// `article_ids` set), borrowing the decoded strings. Returns its checksum.
    pub fn link<R: Resource>(document: &Document<R>) -> Checksum {
        let mut people: HashMap<&str, &PersonAttributes> = HashMap::new();
        let mut comments: HashMap<&str, &Comment> = HashMap::new();
        for resource in &document.included {
            if let Some(person) = resource.person() {
                people.insert(&person.id, &person.attributes);
            } else if let Some(comment) = resource.comment() {
                comments.insert(&comment.id, comment);
            }
        }
        let article_ids: HashSet<&str> = document.data.iter().map(|article| article.id.as_str()).collect();
        let (mut articles, mut views, mut name_bytes, mut resolved) = (0u64, 0i64, 0usize, 0u64);
        let (mut likes, mut comment_authors, mut subjects) = (0i64, 0u64, 0u64);
        for article in &document.data {
            articles += 1;
            views += article.attributes.views;
            if let Some(author) = &article.relationships.author.data {
                if author.kind == "people" {
                    if let Some(person) = people.get(author.id.as_str()) {
                        name_bytes += person.name.len();
                    }
                }
            }
            for identifier in &article.relationships.comments.data {
                let comment = if identifier.kind == "comments" {
                    comments.get(identifier.id.as_str())
                } else {
                    None
                };
                let Some(comment) = comment else { continue };
                resolved += 1;
                likes += comment.attributes.likes;
                if let Some(writer) = &comment.relationships.author.data {
                    if writer.kind == "people" && people.contains_key(writer.id.as_str()) {
                        comment_authors += 1;
                    }
                }
            }
            if let Some(subject) = &article.relationships.subject.data {
                if (subject.kind == "people" && people.contains_key(subject.id.as_str()))
                    || (subject.kind == "articles" && article_ids.contains(subject.id.as_str()))
                {
                    subjects += 1;
                }
            }
        }
        Checksum {
            articles,
            views,
            name_bytes,
            resolved,
            likes,
            comment_authors,
            subjects,
        }
    }

    /// decode_and_link's tuple: articles, views, author name bytes, resolved comments, comment
    /// likes, comment authors found, subjects found.
    pub struct Checksum {
        articles: u64,
        views: i64,
        name_bytes: usize,
        resolved: u64,
        likes: i64,
        comment_authors: u64,
        subjects: u64,
    }

    impl Checksum {
        /// The line msgspec_anchor.py prints.
        pub fn line(&self) -> String {
            format!(
                "articles {}, views {}, author name bytes {}, comments {}, likes {}, comment authors {}, subjects {}",
                self.articles,
                self.views,
                self.name_bytes,
                self.resolved,
                self.likes,
                self.comment_authors,
                self.subjects
            )
        }
    }
}

// ---------------------------------------------------------------------------------------------

/// Decodes `bytes` `runs` times, each result alive until the next decode starts, and does `each`
/// to every result (the JSON:API modes link every document, as msgspec_anchor.py does); returns
/// what `each` gave for the last.
///
/// With PEER_PHASES=1 in the environment it also prints, on standard error, the median wall time
/// of each phase: the decode, `each` (the link), and the drop of the result (timed as the next
/// run starts, so runs - 1 of them), to set beside the Profile harness's jsonapi-generated-phases.
fn repeat<T: DeserializeOwned, C>(bytes: &[u8], runs: u64, each: impl Fn(&T) -> C) -> C {
    let timed = std::env::var("PEER_PHASES").map_or(false, |value| value == "1");
    let mut phases: [Vec<f64>; 3] = [Vec::new(), Vec::new(), Vec::new()];
    let mut last: Option<T> = None;
    let mut outcome = None;
    for _ in 0..runs {
        let start = Instant::now();
        if let Some(previous) = last.take() {
            drop(previous);
            phases[2].push(start.elapsed().as_secs_f64());
        }
        let start = Instant::now();
        let decoded: T = match serde_json::from_slice(bytes) {
            Ok(decoded) => decoded,
            Err(error) => {
                eprintln!("serde_peer: decoding failed: {error}");
                exit(1)
            }
        };
        let decoded_at = Instant::now();
        outcome = Some(each(&decoded));
        phases[0].push((decoded_at - start).as_secs_f64());
        phases[1].push(decoded_at.elapsed().as_secs_f64());
        last = Some(decoded);
    }
    if timed {
        let median = |times: &mut Vec<f64>| {
            times.sort_by(|a, b| a.total_cmp(b));
            times.get(times.len() / 2).map_or(f64::NAN, |time| time * 1000.0)
        };
        let [decode, link, release] = &mut phases;
        eprintln!(
            "serde_peer medians of {runs}: decode {:.2} ms, link {:.2} ms, release {:.2} ms",
            median(decode),
            median(link),
            median(release)
        );
    }
    outcome.expect("at least one run")
}

fn main() {
    let arguments: Vec<String> = std::env::args().collect();
    let usage = "usage: serde_peer twitter|citm_catalog|canada|jsonapi|jsonapi-tagfirst FILE N";
    if arguments.len() != 4 {
        eprintln!("{usage}");
        exit(2);
    }
    let mode = arguments[1].as_str();
    if !["twitter", "citm_catalog", "canada", "jsonapi", "jsonapi-tagfirst"].contains(&mode) {
        eprintln!("serde_peer: unknown mode {mode}\n{usage}");
        exit(2);
    }
    let runs: u64 = match arguments[3].parse() {
        Ok(runs) if runs > 0 => runs,
        _ => {
            eprintln!("serde_peer: N must be a positive integer\n{usage}");
            exit(2)
        }
    };
    let bytes = match std::fs::read(&arguments[2]) {
        Ok(bytes) => bytes,
        Err(error) => {
            eprintln!("serde_peer: {}: {error}", arguments[2]);
            exit(1)
        }
    };
    // The corpora: a decode per run, the checksum of the last result. JSON:API: a decode and the
    // linking per run, as msgspec_anchor.py times them, and the line of the last.
    let line = match mode {
        "twitter" => last_only(&bytes, runs, twitter::checksum),
        "citm_catalog" => last_only(&bytes, runs, citm::checksum),
        "canada" => last_only(&bytes, runs, canada::checksum),
        "jsonapi" => repeat(&bytes, runs, jsonapi::link::<jsonapi::TaggedResource>).line(),
        "jsonapi-tagfirst" => repeat(&bytes, runs, jsonapi::link::<jsonapi::TagFirstResource>).line(),
        _ => unreachable!("modes are checked above"),
    };
    println!("{line}");
}

/// Decodes `bytes` `runs` times, each result alive until the next decode starts, and returns
/// the checksum line of the last result.
fn last_only<T: DeserializeOwned>(bytes: &[u8], runs: u64, checksum: fn(&T) -> String) -> String {
    let mut last: Option<T> = None;
    for _ in 0..runs {
        drop(last.take());
        match serde_json::from_slice::<T>(bytes) {
            Ok(decoded) => last = Some(decoded),
            Err(error) => {
                eprintln!("serde_peer: decoding failed: {error}");
                exit(1)
            }
        }
    }
    checksum(last.as_ref().expect("at least one run"))
}
