/* SPDX-License-Identifier: Apache-2.0 */
/*
 * file_util.c — see file_util.h.
 */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* mkstemp, fsync, fchmod, umask, fileno */
#endif

#include "file_util.h"
#include "err.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static void *alloc_aligned(size_t align, size_t n) {
    /* aligned_alloc wants a size that is a multiple of the alignment. */
    size_t rounded = (n + align - 1) & ~(align - 1);
    if (rounded < n) return NULL;
    return aligned_alloc(align, rounded ? rounded : align);
}

/* Read a stream of unknown length (a pipe, /dev/stdin) by doubling. */
static int read_stream(FILE *fp, const char *path, size_t align, size_t limit, uint8_t **data,
                       size_t *len, char *err, size_t err_len) {
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    if (!buf) return edgeq_fail(err, err_len, "%s: out of memory", path);
    for (;;) {
        if (n == cap) {
            uint8_t *bigger = cap * 2 > cap ? realloc(buf, cap * 2) : NULL;
            if (!bigger) {
                free(buf);
                return edgeq_fail(err, err_len, "%s: out of memory", path);
            }
            buf = bigger;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, fp);
        n += got;
        if (got == 0) break;
        if (n > limit) {
            free(buf);
            return edgeq_fail(err, err_len, "%s: more than %zu bytes; not reading further", path, limit);
        }
    }
    if (ferror(fp)) {
        int e = errno;
        free(buf);
        return edgeq_fail(err, err_len, "%s: read failed: %s", path, strerror(e));
    }
    uint8_t *out = alloc_aligned(align, n + 1);
    if (!out) {
        free(buf);
        return edgeq_fail(err, err_len, "%s: out of memory (%zu bytes)", path, n);
    }
    if (n) memcpy(out, buf, n);
    out[n] = 0;
    free(buf);
    *data = out;
    *len = n;
    return 0;
}

int edgeq_read_file(const char *path, size_t align, uint8_t **data, size_t *len, char *err,
                    size_t err_len) {
    return edgeq_read_file_limit(path, align, SIZE_MAX, data, len, err, err_len);
}

int edgeq_read_file_limit(const char *path, size_t align, size_t limit, uint8_t **data,
                          size_t *len, char *err, size_t err_len) {
    *data = NULL;
    *len = 0;
    if (align < sizeof(void *) || (align & (align - 1)))
        return edgeq_fail(err, err_len, "%s: bad alignment %zu", path, align);
    FILE *fp = fopen(path, "rb");
    if (!fp) return edgeq_fail(err, err_len, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(fp), &st) != 0) {
        int e = errno;
        fclose(fp);
        return edgeq_fail(err, err_len, "%s: cannot stat: %s", path, strerror(e));
    }
    if (S_ISDIR(st.st_mode)) {
        fclose(fp);
        return edgeq_fail(err, err_len, "%s: is a directory, not a file", path);
    }
    if (!S_ISREG(st.st_mode)) {
        int rc = read_stream(fp, path, align, limit, data, len, err, err_len);
        fclose(fp);
        return rc;
    }
    if ((uintmax_t)st.st_size >= (uintmax_t)SIZE_MAX) {
        fclose(fp);
        return edgeq_fail(err, err_len, "%s: too large to load", path);
    }
    size_t n = (size_t)st.st_size;
    uint8_t *buf = alloc_aligned(align, n + 1);
    if (!buf) {
        fclose(fp);
        return edgeq_fail(err, err_len, "%s: out of memory (%zu bytes)", path, n);
    }
    size_t got = n ? fread(buf, 1, n, fp) : 0;
    int extra = fgetc(fp); /* the file must not have grown meanwhile */
    if (got != n || extra != EOF || ferror(fp)) {
        int e = errno;
        int was_error = ferror(fp);
        free(buf);
        fclose(fp);
        if (was_error) return edgeq_fail(err, err_len, "%s: read failed: %s", path, strerror(e));
        return edgeq_fail(err, err_len, "%s: file changed size while being read", path);
    }
    fclose(fp);
    buf[n] = 0;
    *data = buf;
    *len = n;
    return 0;
}

static char *dup_str(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

static void atomic_release(edgeq_atomic_file *f) {
    free(f->path);
    free(f->tmp);
    f->path = NULL;
    f->tmp = NULL;
    f->fp = NULL;
}

/* ---- interrupted runs ----
 * A temporary output must not outlive the process: SIGINT, SIGTERM and
 * SIGHUP (when nobody else handles them) unlink every temporary file still
 * open, then die of the signal as before (exit status 128 + signal). The
 * names live in a fixed table the handler can read without locks; signals
 * are blocked while an entry and its file change together. */
#define LIVE_MAX 16
static char *volatile live_tmp[LIVE_MAX];
static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP};

static void on_fatal_signal(int sig) {
    for (int i = 0; i < LIVE_MAX; i++) {
        char *p = live_tmp[i];
        if (p) unlink(p); /* async-signal-safe */
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void block_signals(sigset_t *old) {
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof cleanup_signals / sizeof cleanup_signals[0]; i++)
        sigaddset(&set, cleanup_signals[i]);
    sigprocmask(SIG_BLOCK, &set, old);
}

static void install_cleanup(void) {
    static int installed;
    if (installed) return;
    installed = 1;
    for (size_t i = 0; i < sizeof cleanup_signals / sizeof cleanup_signals[0]; i++) {
        struct sigaction old, sa;
        if (sigaction(cleanup_signals[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL) continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(cleanup_signals[i], &sa, NULL);
    }
}

static void live_add(char *tmp) {
    for (int i = 0; i < LIVE_MAX; i++)
        if (!live_tmp[i]) {
            live_tmp[i] = tmp;
            return;
        }
}

static void live_remove(const char *tmp) {
    for (int i = 0; i < LIVE_MAX; i++)
        if (live_tmp[i] == tmp) live_tmp[i] = NULL;
}

int edgeq_atomic_open(edgeq_atomic_file *f, const char *path, char *err, size_t err_len) {
    f->fp = NULL;
    f->path = NULL;
    f->tmp = NULL;
    if (!path || !*path) return edgeq_fail(err, err_len, "empty output file name");
    size_t n = strlen(path);
    if (path[n - 1] == '/') return edgeq_fail(err, err_len, "%s: is a directory name, not a file", path);
    struct stat st;
    int exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode))
        return edgeq_fail(err, err_len, "%s: is a directory, not a file", path);
    if (exists && !S_ISREG(st.st_mode)) {
        /* A device, FIFO or socket (/dev/null, /dev/full, a pipe): write to
         * it directly. Renaming a temporary file over it would replace the
         * device node with a regular file (as root) instead of writing to
         * it, and all-or-nothing means nothing for a stream anyway. */
        f->fp = fopen(path, "wb");
        if (!f->fp) return edgeq_fail(err, err_len, "%s: cannot open for writing: %s", path, strerror(errno));
        f->path = dup_str(path);
        if (!f->path) {
            fclose(f->fp);
            f->fp = NULL;
            return edgeq_fail(err, err_len, "%s: out of memory", path);
        }
        return 0;
    }

    /* "<dir>/.<base>.tmp-XXXXXX": hidden, and in the same directory so the
     * final rename cannot cross file systems. */
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
    const char *base = path + dir_len;
    size_t tmp_len = dir_len + 1 + strlen(base) + sizeof(".tmp-XXXXXX");
    f->path = dup_str(path);
    f->tmp = malloc(tmp_len);
    if (!f->path || !f->tmp) {
        atomic_release(f);
        return edgeq_fail(err, err_len, "%s: out of memory", path);
    }
    snprintf(f->tmp, tmp_len, "%.*s.%s.tmp-XXXXXX", (int)dir_len, path, base);
    install_cleanup();
    sigset_t oldmask;
    block_signals(&oldmask);
    int fd = mkstemp(f->tmp);
    if (fd >= 0) live_add(f->tmp);
    sigprocmask(SIG_SETMASK, &oldmask, NULL);
    if (fd < 0) {
        int e = errno;
        atomic_release(f);
        return edgeq_fail(err, err_len, "%s: cannot create a file there: %s", path, strerror(e));
    }
    /* mkstemp makes the file 0600; give it the mode fopen would have. */
    mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fd, (mode_t)0666 & ~mask); /* failing only keeps it private */
    f->fp = fdopen(fd, "wb");
    if (!f->fp) {
        int e = errno;
        close(fd);
        block_signals(&oldmask);
        unlink(f->tmp);
        live_remove(f->tmp);
        sigprocmask(SIG_SETMASK, &oldmask, NULL);
        atomic_release(f);
        return edgeq_fail(err, err_len, "%s: cannot open for writing: %s", path, strerror(e));
    }
    return 0;
}

int edgeq_atomic_commit(edgeq_atomic_file *f, char *err, size_t err_len) {
    if (!f->fp) {
        atomic_release(f);
        return edgeq_fail(err, err_len, "output file is not open");
    }
    int bad = ferror(f->fp) != 0;
    int e = bad ? EIO : 0;
    if (!bad && fflush(f->fp) != 0) bad = 1, e = errno;
    if (!bad && fsync(fileno(f->fp)) != 0 && errno != EINVAL && errno != EROFS)
        bad = 1, e = errno; /* EINVAL: a special file that cannot sync */
    if (fclose(f->fp) != 0 && !bad) bad = 1, e = errno;
    f->fp = NULL;
    if (!f->tmp) { /* written in place (not a regular file) */
        int rc = bad ? edgeq_fail(err, err_len, "%s: write failed: %s", f->path, strerror(e)) : 0;
        atomic_release(f);
        return rc;
    }
    sigset_t oldmask;
    block_signals(&oldmask);
    if (!bad && rename(f->tmp, f->path) != 0) bad = 1, e = errno;
    if (bad) unlink(f->tmp);
    live_remove(f->tmp);
    sigprocmask(SIG_SETMASK, &oldmask, NULL);
    int rc = 0;
    if (bad) rc = edgeq_fail(err, err_len, "%s: write failed: %s", f->path, strerror(e));
    atomic_release(f);
    return rc;
}

void edgeq_atomic_abort(edgeq_atomic_file *f) {
    if (f->fp) {
        fclose(f->fp);
        f->fp = NULL;
    }
    if (f->tmp) {
        sigset_t oldmask;
        block_signals(&oldmask);
        unlink(f->tmp);
        live_remove(f->tmp);
        sigprocmask(SIG_SETMASK, &oldmask, NULL);
    }
    atomic_release(f);
}

int edgeq_write_file(const char *path, const void *data, size_t len, char *err, size_t err_len) {
    edgeq_atomic_file f;
    if (edgeq_atomic_open(&f, path, err, err_len) != 0) return -1;
    if (len && fwrite(data, 1, len, f.fp) != len) {
        int e = errno;
        edgeq_atomic_abort(&f);
        return edgeq_fail(err, err_len, "%s: write failed: %s", path, strerror(e));
    }
    return edgeq_atomic_commit(&f, err, err_len);
}

int edgeq_has_ext(const char *path, const char *ext) {
    size_t n = strlen(path), k = strlen(ext);
    if (k > n) return 0;
    const char *p = path + n - k;
    for (size_t i = 0; i < k; i++) {
        char a = p[i], b = ext[i];
        if (a >= 'A' && a <= 'Z') a = (char)(a - 'A' + 'a');
        if (b >= 'A' && b <= 'Z') b = (char)(b - 'A' + 'a');
        if (a != b) return 0;
    }
    return 1;
}
