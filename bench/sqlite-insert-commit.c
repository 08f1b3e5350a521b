/* The native peer of dbrace's SQLite insert-commit workload: the same loop in C.
 *
 *   sqlite-insert-commit DB_FILE N SYNC   -> prints the tps of N transactions
 *   sqlite-insert-commit --version        -> prints the SQLite library version
 *
 * SYNC is FULL (profiles disk, ram) or OFF (nosync). Same database setup as dbrace:
 * journal_mode=WAL, the given synchronous, table dbrace_insert; per transaction
 * BEGIN IMMEDIATE; INSERT one row with a 100-byte payload; COMMIT; all three
 * statements prepared once. Only the loop is timed (CLOCK_MONOTONIC). */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char PAYLOAD[] = "dbrace-insert-commit-payload-0123456789-abcdefghijklmnopqrstuvwxyz-"
                              "ABCDEFGHIJKLMNOPQRSTUVWXYZ-012345";

static sqlite3 *db;

static void die(const char *what) {
    fprintf(stderr, "sqlite-insert-commit: %s: %s\n", what, db ? sqlite3_errmsg(db) : "?");
    exit(1);
}

static void exec(const char *sql) {
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) die(sql);
}

static sqlite3_stmt *prepare(const char *sql) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) die(sql);
    return st;
}

static void step(sqlite3_stmt *st, const char *what) {
    if (sqlite3_step(st) != SQLITE_DONE) die(what);
    sqlite3_reset(st);
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "--version") == 0) {
        printf("%s\n", sqlite3_libversion());
        return 0;
    }
    if (argc != 4) {
        fprintf(stderr, "usage: %s DB_FILE N FULL|OFF | --version\n", argv[0]);
        return 2;
    }
    long n = atol(argv[2]);
    char pragma[64];
    snprintf(pragma, sizeof pragma, "PRAGMA synchronous=%s", argv[3]);
    if (strlen(PAYLOAD) != 100) die("payload is not 100 bytes");

    /* Same open flags as dbrace (one connection per thread, no SQLite mutex). */
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
    if (sqlite3_open_v2(argv[1], &db, flags, NULL) != SQLITE_OK) die("open");
    exec("PRAGMA journal_mode=WAL");
    exec(pragma);
    exec("CREATE TABLE dbrace_insert (client integer, seq integer, payload varchar(100))");

    sqlite3_stmt *begin = prepare("BEGIN IMMEDIATE");
    sqlite3_stmt *insert = prepare("INSERT INTO dbrace_insert (client, seq, payload) VALUES (?, ?, ?)");
    sqlite3_stmt *commit = prepare("COMMIT");

    double start = now();
    for (long seq = 1; seq <= n; seq++) {
        step(begin, "BEGIN IMMEDIATE");
        sqlite3_bind_int64(insert, 1, 0);
        sqlite3_bind_int64(insert, 2, seq);
        sqlite3_bind_text(insert, 3, PAYLOAD, 100, SQLITE_STATIC);
        step(insert, "INSERT");
        step(commit, "COMMIT");
    }
    double secs = now() - start;

    /* Same check as dbrace's verify step: rows = committed transactions. */
    sqlite3_stmt *count = prepare("SELECT count(*) FROM dbrace_insert");
    if (sqlite3_step(count) != SQLITE_ROW || sqlite3_column_int64(count, 0) != n) die("verify");

    sqlite3_finalize(count);
    sqlite3_finalize(begin);
    sqlite3_finalize(insert);
    sqlite3_finalize(commit);
    sqlite3_close(db);
    printf("%.1f\n", n / secs);
    return 0;
}
