// SQLite's own share of `sluice import --sqlite` on the generated 100 000-article document: the
// same rows (100 000 articles, 300 000 comments, 300 000 relationship rows; texts of the same
// sizes), bound and inserted from C with nothing else running, under the importer's settings
// (16 KB pages, WAL, synchronous NORMAL, 6 MB of cache, batches of 5 000 resources, 32 rows a
// statement), then the indexes the importer makes at the end. No JSON is read: this is the time
// the database needs, whatever parses the document.
//
//     cc -O2 -o /tmp/sqlite-floor Benchmarks/SQLiteFloor/floor.c -lsqlite3 && /tmp/sqlite-floor [DIR]
//
// Three layouts: `text` is the importer's (TEXT keys, as JSON:API ids are strings); `int-keys`
// keys the type tables by INTEGER (the same decimal ids), everything else as in `text`; `all-int`
// stores every id column as INTEGER, the to-one and relationship ones too, to show what text
// key comparison costs in all.

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static sqlite3 *db;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void run(const char *sql) {
    char *message = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &message) != SQLITE_OK) {
        fprintf(stderr, "%s: %s\n", sql, message);
        exit(1);
    }
}

/// INSERT of `rows` rows of `columns` values each, upserting on `conflict`.
static sqlite3_stmt *prepare(const char *table, int columns, int rows, const char *conflict) {
    size_t size = 256 + (size_t)rows * (size_t)columns * 3 + strlen(conflict);
    char *sql = malloc(size);
    int used = snprintf(sql, size, "INSERT INTO %s VALUES ", table);
    for (int row = 0; row < rows; row++) {
        used += snprintf(sql + used, size - (size_t)used, row ? ",(" : "(");
        for (int column = 0; column < columns; column++) used += snprintf(sql + used, size - (size_t)used, column ? ",?" : "?");
        used += snprintf(sql + used, size - (size_t)used, ")");
    }
    snprintf(sql + used, size - (size_t)used, " %s", conflict);
    sqlite3_stmt *statement;
    if (sqlite3_prepare_v2(db, sql, -1, &statement, NULL) != SQLITE_OK) {
        fprintf(stderr, "%s\n", sqlite3_errmsg(db));
        exit(1);
    }
    free(sql);
    return statement;
}

/// A statement of `per` rows filled one row at a time: `next` is the first parameter of the
/// row being bound, and the statement runs once it is full.
typedef struct queue {
    sqlite3_stmt *statement;
    int columns, per, rows;
} queue;

static int slot(queue *q) { return q->rows * q->columns + 1; }

static void filled(queue *q) {
    if (++q->rows < q->per) return;
    if (sqlite3_step(q->statement) != SQLITE_DONE) {
        fprintf(stderr, "%s\n", sqlite3_errmsg(db));
        exit(1);
    }
    sqlite3_reset(q->statement);
    q->rows = 0;
}

static void text(sqlite3_stmt *s, int i, const char *t) { sqlite3_bind_text(s, i, t, -1, SQLITE_TRANSIENT); }

enum layout { text_keys, integer_keys, all_integer };

static double layout(const char *directory, enum layout kind) {
    char path[4096];
    snprintf(path, sizeof path, "%s/sqlite-floor.db", directory);
    const char *suffixes[] = {"", "-wal", "-shm"};
    for (int i = 0; i < 3; i++) {
        char name[4200];
        snprintf(name, sizeof name, "%s%s", path, suffixes[i]);
        unlink(name);
    }
    sqlite3_open(path, &db);
    run("PRAGMA page_size = 16384; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -6144");
    const char *key = kind == text_keys ? "TEXT" : "INTEGER";
    const char *reference = kind == all_integer ? "INTEGER" : "TEXT";
    char sql[2048];
    snprintf(sql, sizeof sql,
             "CREATE TABLE articles (id %s PRIMARY KEY, title TEXT, body TEXT, published INTEGER, views INTEGER,"
             " rating REAL, published_at TEXT, tags TEXT, metadata TEXT, author_type TEXT, author_id %s,"
             " subject_type TEXT, subject_id %s, subject_meta TEXT);"
             "CREATE TABLE comments (id %s PRIMARY KEY, body TEXT, likes INTEGER, author_type TEXT, author_id %s,"
             " article_type TEXT, article_id %s);"
             "CREATE TABLE relationships (source_type TEXT NOT NULL, source_id %s NOT NULL, name TEXT NOT NULL,"
             " position INTEGER NOT NULL, target_type TEXT NOT NULL, target_id %s NOT NULL, meta TEXT,"
             " PRIMARY KEY (source_type, source_id, name, position)) WITHOUT ROWID",
             key, reference, reference, key, reference, reference, reference, reference);
    run(sql);
    queue articles = {prepare("articles", 14, 32, "ON CONFLICT (id) DO UPDATE SET title = excluded.title, body = excluded.body,"
                                                  " published = excluded.published, views = excluded.views"),
                      14, 32, 0};
    queue comments = {prepare("comments", 7, 32, "ON CONFLICT (id) DO UPDATE SET body = excluded.body, likes = excluded.likes"), 7, 32, 0};
    queue links = {prepare("relationships", 7, 32, "ON CONFLICT DO UPDATE SET target_type = excluded.target_type,"
                                                   " target_id = excluded.target_id"),
                   7, 32, 0};
    const char *title = "naive link gate model cafe";
    const char *body = "stream line break line break gate bytes kanji wave gate quote line break stream yajl sluice"
                       " wave quote sluice tab bed bytes kanji bytes link model model sluice";
    char id[24], author[24], comment[24];
    const double start = now();
    run("BEGIN");
    int batch = 0;
    for (int article = 0; article < 100000; article++) {
        snprintf(id, sizeof id, "%d", article);
        snprintf(author, sizeof author, "%d", (article * 7919) % 10000);
        sqlite3_stmt *s = articles.statement;
        int i = slot(&articles);
        text(s, i, id), text(s, i + 1, title), text(s, i + 2, body), sqlite3_bind_int64(s, i + 3, article & 1);
        sqlite3_bind_int64(s, i + 4, 645316 + article), sqlite3_bind_double(s, i + 5, 0.316);
        text(s, i + 6, "2024-07-09T12:34:56Z"), text(s, i + 7, "[\"yajl\",\"bytes\"]");
        text(s, i + 8, "{\"word-count\":516,\"flags\":[true,false,null],\"ratio\":-0.816e-3}");
        text(s, i + 9, "people"), text(s, i + 10, author), text(s, i + 11, "people"), text(s, i + 12, author);
        text(s, i + 13, "{\"relevance\":0.16}");
        filled(&articles);
        for (int position = 0; position < 3; position++) {
            snprintf(comment, sizeof comment, "%d", article * 3 + position);
            s = comments.statement, i = slot(&comments);
            text(s, i, comment), text(s, i + 1, title), sqlite3_bind_int64(s, i + 2, 93);
            text(s, i + 3, "people"), text(s, i + 4, author), text(s, i + 5, "articles"), text(s, i + 6, id);
            filled(&comments);
            s = links.statement, i = slot(&links);
            text(s, i, "articles"), text(s, i + 1, id), text(s, i + 2, "comments"), sqlite3_bind_int64(s, i + 3, position);
            text(s, i + 4, "comments"), text(s, i + 5, comment), sqlite3_bind_null(s, i + 6);
            filled(&links);
        }
        if (++batch == 1250) {  // 1 250 articles and their 3 750 comments: 5 000 resources
            run("COMMIT; BEGIN");
            batch = 0;
        }
    }
    run("COMMIT");
    const double inserted = now();
    run("CREATE INDEX relationships_target ON relationships (target_type, target_id);"
        "CREATE INDEX articles_author ON articles (author_id); CREATE INDEX articles_subject ON articles (subject_id);"
        "CREATE INDEX comments_author ON comments (author_id); CREATE INDEX comments_article ON comments (article_id)");
    const double indexed = now();
    sqlite3_finalize(articles.statement), sqlite3_finalize(comments.statement), sqlite3_finalize(links.statement);
    sqlite3_close(db);
    const double closed = now();
    printf("%-8s rows %.2f s, indexes %.2f s, close %.2f s, total %.2f s (%.0f MB/s of the 150 MB document)\n",
           kind == text_keys ? "text" : kind == integer_keys ? "int-keys" : "all-int", inserted - start, indexed - inserted, closed - indexed, closed - start,
           150.48 / (closed - start));
    for (int i = 0; i < 3; i++) {
        char name[4200];
        snprintf(name, sizeof name, "%s%s", path, suffixes[i]);
        unlink(name);
    }
    return closed - start;
}

int main(int argc, char **argv) {
    const char *directory = argc > 1 ? argv[1] : "/tmp";
    layout(directory, text_keys);
    layout(directory, integer_keys);
    layout(directory, all_integer);
    return 0;
}
