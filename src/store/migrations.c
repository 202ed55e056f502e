/*
 * The migrations runner, the same for every backend.
 *
 * A migration is a file `NNNN_name.sql` (four digits, an underscore, lower
 * case letters, digits and underscores) in the directory of the backend's
 * dialect under the migrations root (migrations/sqlite/,
 * migrations/postgres/); other files are ignored. Both dialects number the
 * same change alike. They are applied in version order, each in its own
 * transaction together with its row in schema_migrations (version, name,
 * SHA-256 of the file's bytes, applied_at): the backend's apply_migration
 * does that, under a lock, so two processes migrating at once apply each
 * once.
 *
 * Before anything is applied every recorded migration is checked against
 * its file: a changed file stops the run with GQ_ERR_INVALID_VALUE and
 * nothing is applied. A recorded version whose file is gone is tolerated (a
 * database migrated by a newer checkout). Migration files are trusted SQL;
 * they must not contain BEGIN/COMMIT.
 */
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/backend.h"
#include "store/store.h"
#include "util/digest.h"

struct migration_list {
    struct migration *items;
    size_t count;
};

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

/* The dialect directory: root/sqlite, root/postgres. */
static void dialect_directory(const struct store_backend_ops *ops, const char *root, char *out,
                              size_t size)
{
    snprintf(out, size, "%s/%s", root, ops->name);
}

/* Reads `directory`/`name` whole into *out (NUL-terminated) and its size. */
static enum gq_code read_file(const char *directory, const char *name, char **out, size_t *size,
                              struct gq_error *err)
{
    char path[4096 + 256];
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
        digest_sha256_hex(migration->sql, migration->size, migration->checksum);
    }
    return GQ_OK;
}

/* Lists and reads the dialect's migrations under `root`. */
static enum gq_code load_migrations(const struct store_backend_ops *ops, const char *root,
                                    bool read, struct migration_list *list, struct gq_error *err)
{
    char directory[4096];
    dialect_directory(ops, root, directory, sizeof directory);
    enum gq_code code = list_migrations(directory, list, err);
    if (code == GQ_OK && read)
        code = read_migrations(directory, list, err);
    return code;
}

/* ---- The history. ---- */

/* The recorded row of `version`, or NULL. */
static const struct recorded_migration *find_recorded(const struct migration_history *history,
                                                      int version)
{
    for (size_t i = 0; i < history->count; i++)
        if (history->items[i].version == version)
            return &history->items[i];
    return NULL;
}

enum gq_code store_migration_check_recorded(const struct migration *migration, const char *recorded,
                                            struct gq_error *err)
{
    if (strcmp(recorded, migration->checksum) == 0)
        return GQ_OK;
    return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL,
                   "migration %s was changed after it was applied (checksum %.16s..., "
                   "recorded %.16s...); add a new migration instead",
                   migration->name, migration->checksum, recorded);
}

void store_migration_history_free(struct migration_history *history)
{
    free(history->items);
    history->items = NULL;
    history->count = 0;
}

/* Fails when a recorded migration's file was changed. */
static enum gq_code verify_recorded(const struct migration_list *list,
                                    const struct migration_history *history, struct gq_error *err)
{
    enum gq_code code = GQ_OK;
    for (size_t i = 0; code == GQ_OK && i < list->count; i++) {
        const struct recorded_migration *recorded = find_recorded(history, list->items[i].version);
        if (recorded != NULL)
            code = store_migration_check_recorded(&list->items[i], recorded->checksum, err);
    }
    return code;
}

static enum gq_code apply_pending(struct store *store, const struct migration_list *list,
                                  const struct migration_history *history, int *applied,
                                  struct gq_error *err)
{
    const struct store_backend_ops *ops = store_ops(store);
    for (size_t i = 0; i < list->count; i++) {
        if (find_recorded(history, list->items[i].version) != NULL)
            continue;
        bool done = false;
        enum gq_code code = ops->apply_migration(store_backend(store), &list->items[i], &done, err);
        if (code != GQ_OK)
            return code;
        if (done)
            (*applied)++;
    }
    return GQ_OK;
}

/* The migration files beside what the database records of them. */
struct migration_state {
    struct migration_list files;
    struct migration_history history;
};

/* The dialect's migration files under `root` (their SQL read when `read`)
 * and the migrations the database records, into *state, which the caller
 * frees with free_state(), on failure too. */
static enum gq_code load_state(struct store *store, const char *root, bool read,
                               struct migration_state *state, struct gq_error *err)
{
    memset(state, 0, sizeof *state);
    enum gq_code code = load_migrations(store_ops(store), root, read, &state->files, err);
    if (code == GQ_OK)
        code = store_ops(store)->read_history(store_backend(store), &state->history, err);
    return code;
}

static void free_state(struct migration_state *state)
{
    store_migration_history_free(&state->history);
    free_migrations(&state->files);
}

/* ---- Entry points (store.h). ---- */

enum gq_code store_check_migrations(const char *database, const char *root, struct gq_error *err)
{
    assert(root != NULL);
    struct migration_list list = {NULL, 0};
    enum gq_code code = load_migrations(store_ops_for_database(database), root, true, &list, err);
    free_migrations(&list);
    return code;
}

/* On failure *applied still counts the migrations applied (and committed)
 * before the failing one. */
enum gq_code store_migrate(struct store *store, const char *root, int *applied,
                           struct gq_error *err)
{
    assert(store != NULL && root != NULL);
    int count = 0;
    struct migration_state state;
    enum gq_code code = load_state(store, root, true, &state, err);
    if (code == GQ_OK)
        code = verify_recorded(&state.files, &state.history, err);
    if (code == GQ_OK)
        code = apply_pending(store, &state.files, &state.history, &count, err);
    free_state(&state);
    if (applied != NULL)
        *applied = count;
    return code;
}

/* The start of a count of migrations: none yet, the name it reports
 * empty, and the files and the history read (free_state() after, on
 * failure too). */
static enum gq_code load_to_count(struct store *store, const char *root, int *count, char *name,
                                  size_t name_size, struct migration_state *state,
                                  struct gq_error *err)
{
    *count = 0;
    if (name_size > 0)
        name[0] = '\0';
    return load_state(store, root, false, state, err);
}

enum gq_code store_unknown_migrations(struct store *store, const char *root, int *count,
                                      char *newest, size_t newest_size, struct gq_error *err)
{
    struct migration_state state;
    enum gq_code code = load_to_count(store, root, count, newest, newest_size, &state, err);
    /* Versions above the newest file; a gap below it is a migration since
     * deleted from the directory, not one of a newer version. */
    int newest_file = state.files.count > 0 ? state.files.items[state.files.count - 1].version : 0;
    for (size_t i = 0; code == GQ_OK && i < state.history.count; i++) {
        if (state.history.items[i].version <= newest_file)
            continue;
        (*count)++;
        snprintf(newest, newest_size, "%s", state.history.items[i].name);
    }
    free_state(&state);
    return code;
}

enum gq_code store_pending_migrations(struct store *store, const char *root, int *count,
                                      char *oldest, size_t oldest_size, struct gq_error *err)
{
    struct migration_state state;
    enum gq_code code = load_to_count(store, root, count, oldest, oldest_size, &state, err);
    for (size_t i = 0; code == GQ_OK && i < state.files.count; i++) {
        if (find_recorded(&state.history, state.files.items[i].version) != NULL)
            continue;
        if ((*count)++ == 0)
            snprintf(oldest, oldest_size, "%s", state.files.items[i].name);
    }
    free_state(&state);
    return code;
}
