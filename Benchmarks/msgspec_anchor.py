#!/usr/bin/env python3
"""The Python anchor of the JSON:API suite: msgspec (typed decoding in C) on the same document.

Decodes the generated compound document into typed structs, links articles to their authors,
comments and subjects through dictionaries keyed by (type, id), and reduces the result to the
checksum the Swift contenders compute (Benchmarks/Sources/Profile/JSONAPIModels.swift), so that
all of them are seen to do the same work. Prints the checksum, the median of the runs and the
throughput, on one thread.

    Benchmarks/.build/release/Profile jsonapi-document 0 20000 > articles.json
    python3 Benchmarks/msgspec_anchor.py articles.json [--runs 10]

Needs `pip install msgspec`.
"""

import argparse
import statistics
import sys
import time
from typing import Optional, Union

try:
    import msgspec
except ImportError:  # pragma: no cover - a set-up fault, said plainly
    sys.exit("msgspec is not installed: pip install msgspec")


class Identifier(msgspec.Struct, frozen=True):
    type: str
    id: str


class ToOne(msgspec.Struct):
    data: Optional[Identifier] = None


class ToMany(msgspec.Struct):
    data: list[Identifier] = []


class Metadata(msgspec.Struct, rename="kebab"):
    word_count: int
    flags: list[Optional[bool]]
    ratio: float


class ArticleAttributes(msgspec.Struct, rename="kebab"):
    title: str
    body: str
    published: bool
    views: int
    rating: float
    published_at: str
    tags: list[str]
    metadata: Metadata
    subtitle: Optional[str] = None


class ArticleRelationships(msgspec.Struct):
    author: ToOne
    comments: ToMany
    subject: ToOne


class Article(msgspec.Struct):
    id: str
    attributes: ArticleAttributes
    relationships: ArticleRelationships


class PersonAttributes(msgspec.Struct):
    name: str
    age: int
    verified: bool
    email: Optional[str] = None


class Person(msgspec.Struct, tag_field="type", tag="people"):
    id: str
    attributes: PersonAttributes


class CommentAttributes(msgspec.Struct):
    body: str
    likes: int


class CommentRelationships(msgspec.Struct):
    author: ToOne
    article: ToOne


class Comment(msgspec.Struct, tag_field="type", tag="comments"):
    id: str
    attributes: CommentAttributes
    relationships: CommentRelationships


class Document(msgspec.Struct):
    data: list[Article]
    included: list[Union[Person, Comment]]


DECODER = msgspec.json.Decoder(Document)


def decode_and_link(raw: bytes) -> tuple:
    """The Swift contenders' checksum: articles, views, author name bytes, resolved comments,
    comment likes, comment authors found, subjects found."""
    document = DECODER.decode(raw)
    people = {}
    comments = {}
    for resource in document.included:
        if type(resource) is Person:
            people[resource.id] = resource.attributes
        else:
            comments[resource.id] = resource
    article_ids = {article.id for article in document.data}
    articles = views = name_bytes = resolved = likes = comment_authors = subjects = 0
    for article in document.data:
        articles += 1
        views += article.attributes.views
        author = article.relationships.author.data
        if author is not None and author.type == "people" and author.id in people:
            name_bytes += len(people[author.id].name.encode())
        for identifier in article.relationships.comments.data:
            comment = comments.get(identifier.id) if identifier.type == "comments" else None
            if comment is None:
                continue
            resolved += 1
            likes += comment.attributes.likes
            writer = comment.relationships.author.data
            if writer is not None and writer.type == "people" and writer.id in people:
                comment_authors += 1
        subject = article.relationships.subject.data
        if subject is not None and (
            (subject.type == "people" and subject.id in people)
            or (subject.type == "articles" and subject.id in article_ids)
        ):
            subjects += 1
    return articles, views, name_bytes, resolved, likes, comment_authors, subjects


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("document", help="the generated JSON:API document")
    parser.add_argument("--runs", type=int, default=10, help="timed runs (default 10)")
    arguments = parser.parse_args()
    with open(arguments.document, "rb") as file:
        raw = file.read()
    checksum = decode_and_link(raw)
    names = ["articles", "views", "author name bytes", "comments", "likes", "comment authors", "subjects"]
    print(", ".join(f"{name} {value}" for name, value in zip(names, checksum)))
    times = []
    for _ in range(arguments.runs):
        start = time.process_time()
        decode_and_link(raw)
        times.append(time.process_time() - start)
    median = statistics.median(times)
    print(
        f"msgspec {msgspec.__version__}: median {median * 1000:.1f} ms CPU over {arguments.runs} runs, "
        f"{len(raw) / median / 1e6:.1f} MB/s ({len(raw)} bytes)"
    )


if __name__ == "__main__":
    main()
