/* SPDX-License-Identifier: Apache-2.0 */
/*
 * file_util.h — whole-file reads and all-or-nothing writes for the host
 * tool.
 *
 * Reads load a file into one aligned heap block (the engine wants its model
 * bytes 16-byte aligned). Writes go to a temporary file in the target's own
 * directory and are renamed over the target only once everything was
 * written and flushed, so a failed or interrupted run never leaves a
 * partial output behind (rename within a directory is atomic on POSIX).
 *
 * Every function returns 0 on success and -1 on failure, with a message
 * naming the file and the reason (strerror) in `err` (always
 * NUL-terminated when err_len > 0).
 */
#ifndef EDGEQ_FILE_UTIL_H
#define EDGEQ_FILE_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Read all of `path` into a new block aligned to `align` (a power of two,
 * at least sizeof(void *)). The block holds *len bytes plus one NUL byte
 * (handy for text), is never NULL on success (even for an empty file), and
 * is released with free(). */
int edgeq_read_file(const char *path, size_t align, uint8_t **data, size_t *len, char *err,
                    size_t err_len);

/* The same, but a stream that is not a regular file (a pipe, /dev/zero) is
 * refused once it passes `limit` bytes instead of being read forever.
 * Regular files are read whole: their size is known up front. */
int edgeq_read_file_limit(const char *path, size_t align, size_t limit, uint8_t **data,
                          size_t *len, char *err, size_t err_len);

/* An output being written: `fp` is the open temporary file; write to it
 * with stdio, then edgeq_atomic_commit() or edgeq_atomic_abort(). */
typedef struct edgeq_atomic_file {
    FILE *fp;
    char *path; /* the final name */
    char *tmp;  /* the temporary name, in the same directory */
} edgeq_atomic_file;

/* Create the temporary file beside `path` (mode 0666 & ~umask, as a plain
 * fopen would give). */
int edgeq_atomic_open(edgeq_atomic_file *f, const char *path, char *err, size_t err_len);

/* Flush, sync and close the temporary file, then rename it to the final
 * name. On any failure the temporary file is removed and the target is left
 * as it was. `f` is released either way. */
int edgeq_atomic_commit(edgeq_atomic_file *f, char *err, size_t err_len);

/* Drop the temporary file; the target is untouched. Safe on a zeroed or
 * already finished `f`. */
void edgeq_atomic_abort(edgeq_atomic_file *f);

/* Write `len` bytes of `data` to `path` all at once (open, write, commit). */
int edgeq_write_file(const char *path, const void *data, size_t len, char *err, size_t err_len);

/* 1 when `path` ends in `ext` (".npy"), ignoring ASCII case. */
int edgeq_has_ext(const char *path, const char *ext);

#endif
