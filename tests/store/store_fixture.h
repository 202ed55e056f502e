/*
 * What every store suite needs: the migrations of the source tree, and a
 * temporary directory per test, removed with everything in it.
 */
#ifndef GQ_TESTS_STORE_FIXTURE_H
#define GQ_TESTS_STORE_FIXTURE_H

#include <check.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

/* $GPUQUOTE_SOURCE_DIR/migrations, or ./migrations: the root the store is
 * given (each backend reads its own dialect's directory below it). */
static inline const char *source_migrations(void)
{
    static char path[512];
    const char *root = getenv("GPUQUOTE_SOURCE_DIR");
    snprintf(path, sizeof path, "%s/migrations", root != NULL && root[0] != '\0' ? root : ".");
    return path;
}

/* Creates $TMPDIR/gq-<name>-XXXXXX into `dir` (512 bytes). */
static inline void make_temp_dir(char dir[512], const char *name)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, 512, "%s/gq-%s-XXXXXX", tmp != NULL ? tmp : "/tmp", name);
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static inline int remove_entry(const char *path, const struct stat *info, int flag,
                               struct FTW *ftw)
{
    (void)info;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* Removes `dir` and everything below it. */
static inline void remove_temp_dir(const char *dir)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

#endif
