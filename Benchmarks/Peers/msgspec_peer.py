#!/usr/bin/env python3
"""msgspec peer of the Sluice benchmarks: typed decoding of the same bytes.

    python3 Benchmarks/Peers/msgspec_peer.py MODE FILE N

MODE is twitter, citm_catalog, canada or jsonapi. FILE is read once; a msgspec.json.Decoder for
structs typing every field of the document (forbid_unknown_fields checks that none is left out)
is made once and decodes it N times, each result alive until the next decode starts. After the
last, one checksum line is printed: the line Benchmarks/Peers/serde/ prints for the same mode.

jsonapi runs Benchmarks/msgspec_anchor.py's decode_and_link (its structs, its decoder, its
linking) N times and prints the anchor's checksum line.

Needs msgspec: Benchmarks/.build-peers/venv/bin/python has it
(python3 -m venv Benchmarks/.build-peers/venv && Benchmarks/.build-peers/venv/bin/pip install msgspec).
"""

import os
import sys
from typing import Optional

try:
    import msgspec
except ImportError:  # pragma: no cover - a set-up fault, said plainly
    sys.exit("msgspec is not installed: pip install msgspec")


class Strict(msgspec.Struct, forbid_unknown_fields=True):
    """The base of the corpora's structs: a key the struct does not name is an error."""


# ---------------------------------------------------------------------------------------------
# twitter.json


class SearchMetadata(Strict):
    completed_in: float
    max_id: int
    max_id_str: str
    next_results: str
    query: str
    refresh_url: str
    count: int
    since_id: int
    since_id_str: str


class StatusMetadata(Strict):
    result_type: str
    iso_language_code: str


class Point(Strict):
    type: str
    coordinates: tuple[float, float]


class Place(Strict):
    id: str
    url: str
    place_type: str
    name: str
    full_name: str
    country_code: str
    country: str


class Contributor(Strict):
    id: int
    id_str: str
    screen_name: str


class Url(Strict):
    url: str
    expanded_url: str
    display_url: str
    indices: list[int]


class UrlList(Strict):
    urls: list[Url]


class UserEntities(Strict):
    description: UrlList
    url: Optional[UrlList] = None  # missing from users without a URL


class User(Strict):
    id: int
    id_str: str
    name: str
    screen_name: str
    location: str
    description: str
    url: Optional[str]
    entities: UserEntities
    protected: bool
    followers_count: int
    friends_count: int
    listed_count: int
    created_at: str
    favourites_count: int
    utc_offset: Optional[int]
    time_zone: Optional[str]
    geo_enabled: bool
    verified: bool
    statuses_count: int
    lang: str
    contributors_enabled: bool
    is_translator: bool
    is_translation_enabled: bool
    profile_background_color: str
    profile_background_image_url: str
    profile_background_image_url_https: str
    profile_background_tile: bool
    profile_image_url: str
    profile_image_url_https: str
    profile_link_color: str
    profile_sidebar_border_color: str
    profile_sidebar_fill_color: str
    profile_text_color: str
    profile_use_background_image: bool
    default_profile: bool
    default_profile_image: bool
    following: bool
    follow_request_sent: bool
    notifications: bool
    profile_banner_url: Optional[str] = None  # missing from most users


class Hashtag(Strict):
    text: str
    indices: list[int]


class Symbol(Strict):
    """Always empty in the corpus; a cashtag has the hashtag's shape."""

    text: str
    indices: list[int]


class UserMention(Strict):
    screen_name: str
    name: str
    id: int
    id_str: str
    indices: list[int]


class Size(Strict):
    w: int
    h: int
    resize: str


class Sizes(Strict):
    medium: Size
    small: Size
    thumb: Size
    large: Size


class Media(Strict):
    id: int
    id_str: str
    indices: list[int]
    media_url: str
    media_url_https: str
    url: str
    display_url: str
    expanded_url: str
    type: str
    sizes: Sizes
    # Only in pictures taken from another status.
    source_status_id: Optional[int] = None
    source_status_id_str: Optional[str] = None


class StatusEntities(Strict):
    hashtags: list[Hashtag]
    symbols: list[Symbol]
    urls: list[Url]
    user_mentions: list[UserMention]
    media: Optional[list[Media]] = None  # only in statuses with pictures


class Status(Strict):
    metadata: StatusMetadata
    created_at: str
    id: int
    id_str: str
    text: str
    source: str
    truncated: bool
    in_reply_to_status_id: Optional[int]
    in_reply_to_status_id_str: Optional[str]
    in_reply_to_user_id: Optional[int]
    in_reply_to_user_id_str: Optional[str]
    in_reply_to_screen_name: Optional[str]
    user: User
    # Null in every status of the corpus; typed as Twitter documents them.
    geo: Optional[Point]
    coordinates: Optional[Point]
    place: Optional[Place]
    contributors: Optional[list[Contributor]]
    retweet_count: int
    favorite_count: int
    entities: StatusEntities
    favorited: bool
    retweeted: bool
    lang: str
    possibly_sensitive: Optional[bool] = None  # missing from some statuses
    retweeted_status: Optional["Status"] = None  # only in retweets


class Twitter(Strict):
    statuses: list[Status]
    search_metadata: SearchMetadata


def twitter_checksum(document: Twitter) -> str:
    retweeted = followers = retweets = favorites = text_bytes = entities = 0
    for status in document.statuses:
        if status.retweeted_status is not None:
            retweeted += 1
        followers += status.user.followers_count
        retweets += status.retweet_count
        favorites += status.favorite_count
        text_bytes += len(status.text.encode())
        entities += len(status.entities.hashtags) + len(status.entities.urls) + len(status.entities.user_mentions)
    return (
        f"twitter statuses={len(document.statuses)} retweeted={retweeted} followers={followers} "
        f"retweets={retweets} favorites={favorites} text_bytes={text_bytes} entities={entities}"
    )


# ---------------------------------------------------------------------------------------------
# citm_catalog.json


class Event(Strict, rename="camel"):
    description: Optional[str]  # null in every event of the corpus
    id: int
    logo: Optional[str]
    name: str
    sub_topic_ids: list[int]
    subject_code: Optional[str]  # null in every event of the corpus
    subtitle: Optional[str]  # null in every event of the corpus
    topic_ids: list[int]


class Price(Strict, rename="camel"):
    amount: int
    audience_sub_category_id: int
    seat_category_id: int


class Area(Strict, rename="camel"):
    area_id: int
    block_ids: list[int]  # empty in the corpus; block ids are integers like the other ids


class SeatCategory(Strict, rename="camel"):
    areas: list[Area]
    seat_category_id: int


class Performance(Strict, rename="camel"):
    event_id: int
    id: int
    logo: Optional[str]
    name: Optional[str]  # null in every performance of the corpus
    prices: list[Price]
    seat_categories: list[SeatCategory]
    seat_map_image: Optional[str]  # null in every performance of the corpus
    start: int
    venue_code: str


class CitmCatalog(Strict, rename="camel"):
    area_names: dict[str, str]
    audience_sub_category_names: dict[str, str]
    block_names: dict[str, str]  # empty in the corpus; the other *Names maps name ids the same way
    events: dict[str, Event]
    performances: list[Performance]
    seat_category_names: dict[str, str]
    sub_topic_names: dict[str, str]
    subject_names: dict[str, str]  # empty in the corpus
    topic_names: dict[str, str]
    topic_sub_topics: dict[str, list[int]]
    venue_names: dict[str, str]


def citm_checksum(document: CitmCatalog) -> str:
    prices = amount = areas = start = 0
    for performance in document.performances:
        prices += len(performance.prices)
        amount += sum(price.amount for price in performance.prices)
        areas += sum(len(category.areas) for category in performance.seat_categories)
        start += performance.start
    names = sum(len(name.encode()) for name in document.area_names.values())
    return (
        f"citm_catalog events={len(document.events)} performances={len(document.performances)} "
        f"prices={prices} amount={amount} areas={areas} start={start} names={names}"
    )


# ---------------------------------------------------------------------------------------------
# canada.json


class Properties(Strict):
    name: str


class Geometry(Strict):
    type: str
    coordinates: list[list[tuple[float, float]]]  # a polygon: rings of (longitude, latitude)


class Feature(Strict):
    type: str
    properties: Properties
    geometry: Geometry


class Canada(Strict):
    type: str
    features: list[Feature]


def canada_checksum(document: Canada) -> str:
    rings = points = 0
    x = y = 0.0
    for feature in document.features:
        rings += len(feature.geometry.coordinates)
        for ring in feature.geometry.coordinates:
            points += len(ring)
            for point in ring:
                x += point[0]
                y += point[1]
    return "canada features=%d rings=%d points=%d x=%.6f y=%.6f" % (len(document.features), rings, points, x, y)


# ---------------------------------------------------------------------------------------------

CORPORA = {
    "twitter": (Twitter, twitter_checksum),
    "citm_catalog": (CitmCatalog, citm_checksum),
    "canada": (Canada, canada_checksum),
}

USAGE = "usage: msgspec_peer.py twitter|citm_catalog|canada|jsonapi FILE N"


def main() -> None:
    if len(sys.argv) != 4:
        sys.exit(USAGE)
    mode, path, runs = sys.argv[1:]
    try:
        runs = int(runs)
    except ValueError:
        runs = 0
    if runs < 1:
        sys.exit("N must be a positive integer\n" + USAGE)
    if mode != "jsonapi" and mode not in CORPORA:
        sys.exit(f"unknown mode {mode}\n" + USAGE)
    with open(path, "rb") as file:
        raw = file.read()

    if mode == "jsonapi":
        # The anchor's own code: its structs, its decoder, its linking, its checksum.
        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        from msgspec_anchor import decode_and_link

        checksum = None
        for _ in range(runs):
            checksum = None
            checksum = decode_and_link(raw)
        names = ["articles", "views", "author name bytes", "comments", "likes", "comment authors", "subjects"]
        print(", ".join(f"{name} {value}" for name, value in zip(names, checksum)))
        return

    kind, checksum = CORPORA[mode]
    decoder = msgspec.json.Decoder(type=kind)
    result = None
    for _ in range(runs):
        result = None  # the last result lives until the next decode starts
        result = decoder.decode(raw)
    print(checksum(result))


if __name__ == "__main__":
    main()
