/*
 * The migrations runner.
 *
 * A migration is a file `NNNN_name.sql` (four digits, an underscore, lower
 * case letters, digits and underscores) in the migrations directory; other
 * files are ignored. They are applied in version order, each in its own
 * BEGIN IMMEDIATE transaction together with its row in schema_migrations
 * (version, name, SHA-256 of the file's bytes, applied_at), so a migration is
 * either wholly applied and recorded or not at all.
 *
 * Before anything is applied every recorded migration is checked against its
 * file: a changed file stops the run with GQ_ERR_INVALID_VALUE and nothing is
 * applied. A recorded version whose file is gone is tolerated (a database
 * migrated by a newer checkout). Each pending version is looked up again
 * inside its transaction, so two processes migrating at once apply it once.
 *
 * Migration files are trusted SQL and run with sqlite3_exec(); they must not
 * contain BEGIN/COMMIT. Foreign keys are on while they run.
 */
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <nettle/base16.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store/db.h"
#include "store/store.h"

#define CHECKSUM_SIZE (BASE16_ENCODE_LENGTH(SHA256_DIGEST_SIZE) + 1)

struct migration {
    int version;
    char *name; /* "0002_seed_catalog.sql" */
    char *sql;  /* the file's bytes, NUL-terminated */
    size_t size;
    char checksum[CHECKSUM_SIZE]; /* lower-case hex */
    bool applied;
};

struct migration_list {
    struct migration *items;
    size_t count;
};

static const char SQL_CREATE_HISTORY[] = "CREATE TABLE IF NOT EXISTS schema_migrations ("
                                         " version INTEGER PRIMARY KEY,"
                                         " name TEXT NOT NULL,"
                                         " checksum TEXT NOT NULL,"
                                         " applied_at INTEGER NOT NULL)";
static const char SQL_RECORDED_CHECKSUM[] =
    "SELECT checksum FROM schema_migrations WHERE version = ?1";
static const char SQL_RECORD[] =
    "INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?1, ?2, ?3, ?4)";
static const char SQL_RECORDED[] = "SELECT version, name FROM schema_migrations ORDER BY version";

/* ---- The files. ---- */

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || is_digit(c) || c == '_';
}

/* True for names matching ^[0-9]{4}_[a-z0-9_]+\.sql$. */
static bool is_migration_name(const char *name)
{
    size_t length = strlen(name);
    if (length < 10 || strcmp(name + length - 4, ".sql") != 0 || name[4] != '_')
        return false;
    for (size_t i = 0; i < 4; i++)
        if (!is_digit(name[i]))
            return false;
    for (size_t i = 5; i < length - 4; i++)
        if (!is_name_char(name[i]))
            return false;
    return true;
}

static void compute_checksum(const char *bytes, size_t size, char out[CHECKSUM_SIZE])
{
    struct sha256_ctx context;
    uint8_t digest[SHA256_DIGEST_SIZE];
    sha256_init(&context);
    sha256_update(&context, size, (const uint8_t *)bytes);
    sha256_digest(&context, sizeof digest, digest);
    base16_encode_update(out, sizeof digest, digest);
    out[CHECKSUM_SIZE - 1] = '\0';
}

/* Reads `directory`/`name` whole into *out (NUL-terminated) and its size. */
static enum gq_code read_file(const char *directory, const char *name, char **out, size_t *size,
                              struct gq_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", directory, name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat info;
    if (fd < 0 || fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        int saved = fd < 0 ? errno : EINVAL;
        if (fd >= 0)
            close(fd);
        return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL, "cannot read migration %s: %s", path,
                       strerror(saved));
    }
    size_t length = (size_t)info.st_size;
    char *buffer = malloc(length + 1);
    size_t done = 0;
    while (buffer != NULL && done < length) {
        ssize_t n = read(fd, buffer + done, length - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    close(fd);
    if (buffer == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading migration %s", path);
    if (done != length) {
        free(buffer);
        return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL, "cannot read migration %s", path);
    }
    buffer[length] = '\0';
    *out = buffer;
    *size = length;
    return GQ_OK;
}

static void free_migrations(struct migration_list *list)
{
    for (size_t i = 0; i < list->count; i++) {
        free(list->items[i].name);
        free(list->items[i].sql);
    }
    free(list->items);
    list->items = NULL;
    list->count = 0;
}

static int compare_migrations(const void *a, const void *b)
{
    const struct migration *left = a, *right = b;
    if (left->version != right->version)
        return left->version < right->version ? -1 : 1;
    return strcmp(left->name, right->name);
}

/* Appends a migration named `name` (its file not read yet). */
static enum gq_code append_migration(struct migration_list *list, const char *name,
                                     struct gq_error *err)
{
    struct migration *items = realloc(list->items, (list->count + 1) * sizeof *items);
    if (items == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory listing migrations");
    list->items = items;
    struct migration *migration = &items[list->count];
    memset(migration, 0, sizeof *migration);
    migration->name = strdup(name);
    if (migration->name == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory listing migrations");
    migration->version = atoi(name); /* four digits, then '_' */
    list->count++;
    return GQ_OK;
}

/* Fills `list` with the directory's migration names, sorted by version. */
static enum gq_code list_migrations(const char *directory, struct migration_list *list,
                                    struct gq_error *err)
{
    DIR *dir = opendir(directory);
    if (dir == NULL)
        return gq_fail(err, GQ_ERR_NOT_READY, NULL, "cannot open migrations directory %s: %s",
                       directory, strerror(errno));
    enum gq_code code = GQ_OK;
    struct dirent *entry;
    while (code == GQ_OK && (entry = readdir(dir)) != NULL)
        if (is_migration_name(entry->d_name))
            code = append_migration(list, entry->d_name, err);
    closedir(dir);
    if (code != GQ_OK)
        return code;
    /* A mistyped or empty directory would otherwise "apply 0 migrations"
     * and leave a database with no catalog. */
    if (list->count == 0)
        return gq_fail(err, GQ_ERR_NOT_READY, NULL,
                       "migrations directory %s has no migration (NNNN_name.sql)", directory);
    if (list->count > 1)
        qsort(list->items, list->count, sizeof *list->items, compare_migrations);
    for (size_t i = 1; i < list->count; i++)
        if (list->items[i].version == list->items[i - 1].version)
            return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL,
                           "migrations %s and %s have the same version", list->items[i - 1].name,
                           list->items[i].name);
    return GQ_OK;
}

/* Reads every listed file and computes its checksum. */
static enum gq_code read_migrations(const char *directory, struct migration_list *list,
                                    struct gq_error *err)
{
    for (size_t i = 0; i < list->count; i++) {
        struct migration *migration = &list->items[i];
        enum gq_code code =
            read_file(directory, migration->name, &migration->sql, &migration->size, err);
        if (code != GQ_OK)
            return code;
        if (memchr(migration->sql, '\0', migration->size) != NULL)
            return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL, "migration %s contains a NUL byte",
                           migration->name);
        compute_checksum(migration->sql, migration->size, migration->checksum);
    }
    return GQ_OK;
}

/* ---- The history table. ---- */

static enum gq_code create_history(struct store_conn *conn, struct gq_error *err)
{
    int rc = sqlite3_exec(conn->db, SQL_CREATE_HISTORY, NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        return store_db_fail(conn, rc, "creating schema_migrations", err);
    return GQ_OK;
}

/* Copies the recorded checksum of `version` into `out`, "" when the version
 * is not recorded. */
static enum gq_code find_recorded(struct store_conn *conn, int version, char out[CHECKSUM_SIZE],
                                  struct gq_error *err)
{
    sqlite3_stmt *stmt = store_db_prepare(conn, SQL_RECORDED_CHECKSUM, err);
    if (stmt == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    sqlite3_bind_int(stmt, 1, version);
    int rc = sqlite3_step(stmt);
    out[0] = '\0';
    if (rc == SQLITE_ROW) {
        const unsigned char *text = sqlite3_column_text(stmt, 0);
        snprintf(out, CHECKSUM_SIZE, "%s", text != NULL ? (const char *)text : "?");
    }
    enum gq_code code = GQ_OK;
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        code = store_db_fail(conn, rc, "reading schema_migrations", err);
    sqlite3_finalize(stmt);
    return code;
}

static enum gq_code report_changed(const struct migration *migration, const char *recorded,
                                   struct gq_error *err)
{
    return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL,
                   "migration %s was changed after it was applied (checksum %.16s..., "
                   "recorded %.16s...); add a new migration instead",
                   migration->name, migration->checksum, recorded);
}

/* Marks the recorded migrations applied; fails when one was changed. */
static enum gq_code verify_recorded(struct store_conn *conn, struct migration_list *list,
                                    struct gq_error *err)
{
    for (size_t i = 0; i < list->count; i++) {
        struct migration *migration = &list->items[i];
        char recorded[CHECKSUM_SIZE];
        enum gq_code code = find_recorded(conn, migration->version, recorded, err);
        if (code != GQ_OK)
            return code;
        if (recorded[0] == '\0')
            continue;
        if (strcmp(recorded, migration->checksum) != 0)
            return report_changed(migration, recorded, err);
        migration->applied = true;
    }
    return GQ_OK;
}

static enum gq_code record_migration(struct store_conn *conn, const struct migration *migration,
                                     struct gq_error *err)
{
    sqlite3_stmt *stmt = store_db_prepare(conn, SQL_RECORD, err);
    if (stmt == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    sqlite3_bind_int(stmt, 1, migration->version);
    sqlite3_bind_text(stmt, 2, migration->name, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 3, migration->checksum, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 4, (sqlite3_int64)time(NULL));
    int rc = sqlite3_step(stmt);
    sqlite3_finalize(stmt);
    if (rc != SQLITE_DONE)
        return store_db_fail(conn, rc, "recording a migration", err);
    return GQ_OK;
}

/* ---- Applying. ---- */

static enum gq_code execute_migration(struct store_conn *conn, const struct migration *migration,
                                      struct gq_error *err)
{
    char *message = NULL;
    int rc = sqlite3_exec(conn->db, migration->sql, NULL, NULL, &message);
    if (rc == SQLITE_OK)
        return GQ_OK;
    enum gq_code code;
    if (store_db_is_busy(rc))
        code = gq_fail(err, GQ_ERR_RETRY_LATER, NULL, "migration %s: database is busy, retry",
                       migration->name);
    else
        code = gq_fail(err, GQ_ERR_INTERNAL, NULL, "migration %s failed: %s", migration->name,
                       message != NULL ? message : sqlite3_errstr(rc));
    sqlite3_free(message);
    return code;
}

/* Applies one migration and records it, in one transaction. *done is set
 * when this call applied it (another process may have done so already). */
static enum gq_code apply_migration(struct store_conn *conn, const struct migration *migration,
                                    bool *done, struct gq_error *err)
{
    *done = false;
    enum gq_code code = store_db_begin_write(conn, err);
    if (code != GQ_OK)
        return code;
    char recorded[CHECKSUM_SIZE];
    code = find_recorded(conn, migration->version, recorded, err);
    if (code == GQ_OK && recorded[0] != '\0') {
        store_db_end(conn);
        return strcmp(recorded, migration->checksum) == 0
                   ? GQ_OK
                   : report_changed(migration, recorded, err);
    }
    if (code == GQ_OK)
        code = execute_migration(conn, migration, err);
    if (code == GQ_OK)
        code = record_migration(conn, migration, err);
    if (code == GQ_OK)
        code = store_db_commit(conn, err);
    if (code != GQ_OK) {
        store_db_end(conn);
        return code;
    }
    *done = true;
    return GQ_OK;
}

static enum gq_code apply_pending(struct store_conn *conn, const struct migration_list *list,
                                  int *applied, struct gq_error *err)
{
    for (size_t i = 0; i < list->count; i++) {
        if (list->items[i].applied)
            continue;
        bool done;
        enum gq_code code = apply_migration(conn, &list->items[i], &done, err);
        if (code != GQ_OK)
            return code;
        if (done)
            (*applied)++;
    }
    return GQ_OK;
}

/* See store.h. */
enum gq_code store_check_migrations(const char *directory, struct gq_error *err)
{
    assert(directory != NULL);
    struct migration_list list = {NULL, 0};
    enum gq_code code = list_migrations(directory, &list, err);
    if (code == GQ_OK)
        code = read_migrations(directory, &list, err);
    free_migrations(&list);
    return code;
}

/* See store.h. On failure *applied still counts the migrations applied (and
 * committed) before the failing one. */
enum gq_code store_migrate(struct store *store, const char *directory, int *applied,
                           struct gq_error *err)
{
    assert(store != NULL && directory != NULL);
    int count = 0;
    struct migration_list list = {NULL, 0};
    enum gq_code code = list_migrations(directory, &list, err);
    if (code == GQ_OK)
        code = read_migrations(directory, &list, err);
    if (code == GQ_OK) {
        struct store_conn *conn = store_db_checkout(store);
        code = create_history(conn, err);
        if (code == GQ_OK)
            code = verify_recorded(conn, &list, err);
        if (code == GQ_OK)
            code = apply_pending(conn, &list, &count, err);
        store_db_checkin(store, conn);
    }
    free_migrations(&list);
    if (applied != NULL)
        *applied = count;
    return code;
}

/* See store.h. */
enum gq_code store_unknown_migrations(struct store *store, const char *directory, int *count,
                                      char *newest, size_t newest_size, struct gq_error *err)
{
    *count = 0;
    if (newest_size > 0)
        newest[0] = '\0';
    struct migration_list list = {NULL, 0};
    enum gq_code code = list_migrations(directory, &list, err);
    struct store_conn *conn = store_db_checkout(store);
    sqlite3_stmt *stmt = code == GQ_OK ? store_db_prepare(conn, SQL_RECORDED, err) : NULL;
    if (code == GQ_OK && stmt == NULL)
        code = err != NULL ? err->code : GQ_ERR_INTERNAL;
    /* Versions above the newest file; a gap below it is a migration since
     * deleted from the directory, not one of a newer version. */
    int newest_file = list.count > 0 ? list.items[list.count - 1].version : 0;
    int rc = SQLITE_DONE;
    while (stmt != NULL && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        if (sqlite3_column_int(stmt, 0) <= newest_file)
            continue;
        (*count)++;
        const unsigned char *name = sqlite3_column_text(stmt, 1);
        snprintf(newest, newest_size, "%s", name != NULL ? (const char *)name : "?");
    }
    if (stmt != NULL && rc != SQLITE_DONE)
        code = store_db_fail(conn, rc, "reading schema_migrations", err);
    sqlite3_finalize(stmt);
    store_db_checkin(store, conn);
    free_migrations(&list);
    return code;
}

/* See store.h. */
enum gq_code store_pending_migrations(struct store *store, const char *directory, int *count,
                                      char *oldest, size_t oldest_size, struct gq_error *err)
{
    *count = 0;
    if (oldest_size > 0)
        oldest[0] = '\0';
    struct migration_list list = {NULL, 0};
    enum gq_code code = list_migrations(directory, &list, err);
    struct store_conn *conn = store_db_checkout(store);
    /* A database never migrated has no history: every file is pending. */
    bool has_history = sqlite3_table_column_metadata(conn->db, "main", "schema_migrations",
                                                     NULL, NULL, NULL, NULL, NULL,
                                                     NULL) == SQLITE_OK;
    for (size_t i = 0; code == GQ_OK && i < list.count; i++) {
        char recorded[CHECKSUM_SIZE] = "";
        if (has_history)
            code = find_recorded(conn, list.items[i].version, recorded, err);
        if (code != GQ_OK || recorded[0] != '\0')
            continue;
        if ((*count)++ == 0)
            snprintf(oldest, oldest_size, "%s", list.items[i].name);
    }
    store_db_checkin(store, conn);
    free_migrations(&list);
    return code;
}
