/*
 * Reading fuzz inputs back for the regression suites: every file of a
 * directory (tests/fuzz/regressions/<target>/, tests/fuzz/corpus/<target>/)
 * in name order, whole, under $GPUQUOTE_SOURCE_DIR (default: the current
 * directory, the repository root under make).
 */
#ifndef GQ_TESTS_FUZZ_REPLAY_FILES_H
#define GQ_TESTS_FUZZ_REPLAY_FILES_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"

/* One input file: its name within the directory and its bytes. */
struct fuzz_file {
    char name[256];
    uint8_t *data;
    size_t size;
};

/* Writes "$GPUQUOTE_SOURCE_DIR/tests/fuzz/<kind>/<target>" into `buf`. */
static inline void fuzz_dir_path(char *buf, size_t size, const char *kind, const char *target)
{
    const char *root = getenv("GPUQUOTE_SOURCE_DIR");
    snprintf(buf, size, "%s/tests/fuzz/%s/%s", root != NULL && root[0] != '\0' ? root : ".", kind,
             target);
}

static inline int fuzz_compare_names(const void *a, const void *b)
{
    return strcmp(((const struct fuzz_file *)a)->name, ((const struct fuzz_file *)b)->name);
}

static inline uint8_t *fuzz_read_whole(const char *path, size_t *size)
{
    FILE *file = fopen(path, "rb");
    FUZZ_CHECK(file != NULL);
    FUZZ_CHECK(fseek(file, 0, SEEK_END) == 0);
    long length = ftell(file);
    FUZZ_CHECK(length >= 0 && fseek(file, 0, SEEK_SET) == 0);
    uint8_t *data = malloc((size_t)length + 1);
    FUZZ_CHECK(data != NULL);
    FUZZ_CHECK(fread(data, 1, (size_t)length, file) == (size_t)length);
    fclose(file);
    *size = (size_t)length;
    return data;
}

/* Reads every regular file (dot files aside) of tests/fuzz/<kind>/<target>
 * into a new array sorted by name; *count = 0 when the directory does not
 * exist. Free with fuzz_files_free(). */
static inline struct fuzz_file *fuzz_files_read(const char *kind, const char *target, size_t *count)
{
    char dir_path[512];
    fuzz_dir_path(dir_path, sizeof dir_path, kind, target);
    *count = 0;
    struct fuzz_file *files = NULL;
    DIR *dir = opendir(dir_path);
    if (dir == NULL)
        return NULL;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        if (entry->d_name[0] == '.')
            continue;
        struct fuzz_file *grown = realloc(files, (*count + 1) * sizeof *files);
        FUZZ_CHECK(grown != NULL);
        files = grown;
        struct fuzz_file *file = &files[(*count)++];
        snprintf(file->name, sizeof file->name, "%s", entry->d_name);
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir_path, entry->d_name);
        file->data = fuzz_read_whole(path, &file->size);
    }
    closedir(dir);
    if (*count > 1)
        qsort(files, *count, sizeof *files, fuzz_compare_names);
    return files;
}

static inline void fuzz_files_free(struct fuzz_file *files, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(files[i].data);
    free(files);
}

#endif
