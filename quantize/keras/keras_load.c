/* SPDX-License-Identifier: Apache-2.0 */
/*
 * keras_load.c — edgeq_keras_load: tell the format by the file's first
 * bytes (file names lie: a ".keras" may be HDF5 and a ".h5" a zip), hand
 * over to the HDF5 or zip reader, and do that in a child process.
 *
 * Why a child: libhdf5 (1.10 in Debian 12, and later releases to a lesser
 * degree) is not robust against damaged files. Fuzzing the loader with
 * flipped bytes in real Keras files makes about 1 file in 80 crash inside
 * the library (H5HG_read on a broken global heap, frees of wild pointers)
 * and a few loop forever. Nothing in edgeq can validate an HDF5 file
 * before the library reads it, so the reading runs in a forked child that
 * sends the finished graph back through a pipe; a child that dies or hangs
 * becomes an ordinary error message. The cost is a fork and one copy of
 * the weights (milliseconds for MCU-sized models).
 * EDGEQ_KERAS_INPROCESS=1 in the environment loads in-process instead
 * (for debuggers).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "keras_internal.h"
#include "keras_load.h"

#define CHILD_TIMEOUT_S 60

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_UNDEFINED__)
#define EDGEQ_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define EDGEQ_SANITIZED 1
#endif
#endif

static const unsigned char HDF5_MAGIC[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};

/* The loader proper; messages without the file name. */
static int load_direct(const char *path, edgeq_graph *g, char *msg, size_t msglen) {
    unsigned char head[8] = {0};
    size_t got = 0;
    int rc = -1;
    memset(g, 0, sizeof *g);
    msg[0] = 0;
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        snprintf(msg, msglen, "%s", strerror(errno));
        return -1;
    }
    got = fread(head, 1, sizeof head, fp);
    fclose(fp);
    keras_h5_quiet();
    if (got == sizeof head && memcmp(head, HDF5_MAGIC, 8) == 0) {
        rc = keras_h5_load(path, g, msg, msglen);
    } else if (got >= 4 && memcmp(head, "PK\x03\x04", 4) == 0) {
        rc = keras_zip_load(path, g, msg, msglen);
    } else if (got == sizeof head && H5Fis_hdf5(path) > 0) {
        rc = keras_h5_load(path, g, msg, msglen); /* HDF5 after a user block */
    } else if (got == 0) {
        snprintf(msg, msglen, "the file is empty");
    } else {
        size_t i = 0;
        while (i < got && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t'))
            i++;
        if (i < got && head[i] == '{')
            snprintf(msg, msglen,
                     "a JSON file, not a model: edgeq needs the whole model with its weights "
                     "(model.save(\"model.keras\") or model.save(\"model.h5\"))");
        else
            snprintf(msg, msglen,
                     "not a Keras model: neither HDF5 (.h5) nor a zip (.keras) by its first "
                     "bytes %02x %02x %02x %02x",
                     head[0], head[1], head[2], head[3]);
    }
    if (rc != 0) edgeq_graph_free(g);
    return rc;
}

/* ---- the graph through a pipe ----
 * [u32 status][u32 msg length][msg]; then, on success, the graph struct,
 * the node structs, and for each node each of its six arrays that is
 * present, in struct order. Pointers inside the structs are meaningless on
 * the other side and are rebuilt from the arrays. */

typedef struct buf {
    unsigned char *p;
    size_t len, cap;
} buf;

static int write_all(int fd, const void *data, size_t len) {
    const unsigned char *p = data;
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

static float **node_array(edgeq_node *n, int i, size_t *len) {
    switch (i) {
    case 0: *len = n->kernel_len; return &n->kernel;
    case 1: *len = n->bias_len; return &n->bias;
    case 2: *len = n->bn_len; return &n->bn_gamma;
    case 3: *len = n->bn_len; return &n->bn_beta;
    case 4: *len = n->bn_len; return &n->bn_mean;
    default: *len = n->bn_len; return &n->bn_var;
    }
}

static int send_graph(int fd, int status, const char *msg, const edgeq_graph *g) {
    uint32_t head[2] = {(uint32_t)status, (uint32_t)strlen(msg)};
    if (write_all(fd, head, sizeof head) || write_all(fd, msg, head[1])) return -1;
    if (status != 0) return 0;
    if (write_all(fd, g, sizeof *g) ||
        write_all(fd, g->nodes, (size_t)g->n * sizeof *g->nodes))
        return -1;
    for (int i = 0; i < g->n; i++)
        for (int a = 0; a < 6; a++) {
            size_t len;
            float **p = node_array(&g->nodes[i], a, &len);
            if (*p && write_all(fd, *p, len * sizeof **p)) return -1;
        }
    return 0;
}

/* Read the pipe to its end, giving up at `deadline`. 1 on timeout. */
static int read_pipe(int fd, buf *b, time_t deadline) {
    for (;;) {
        time_t now = time(NULL);
        if (now >= deadline) return 1;
        struct pollfd pfd = {fd, POLLIN, 0};
        int pr = poll(&pfd, 1, (int)(deadline - now) * 1000);
        if (pr < 0 && errno == EINTR) continue;
        if (pr < 0) return -1;
        if (pr == 0) return 1;
        if (b->len == b->cap) {
            size_t cap = b->cap ? b->cap * 2 : 1 << 16;
            unsigned char *np = realloc(b->p, cap);
            if (!np) return -1;
            b->p = np;
            b->cap = cap;
        }
        ssize_t r = read(fd, b->p + b->len, b->cap - b->len);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -1;
        if (r == 0) return 0;
        b->len += (size_t)r;
    }
}

static int take(const buf *b, size_t *off, void *dst, size_t len) {
    if (len > b->len - *off) return -1;
    memcpy(dst, b->p + *off, len);
    *off += len;
    return 0;
}

/* Rebuild the graph, checking what the rest of edgeq relies on. */
static int parse_graph(const buf *b, size_t off, edgeq_graph *g) {
    edgeq_graph h;
    if (take(b, &off, &h, sizeof h)) return -1;
    if (h.n < 1 || h.n > KERAS_MAX_NODES || h.n_inputs < 1 || h.n_inputs > 8 ||
        h.n_outputs < 1 || h.n_outputs > 8)
        return -1;
    for (int i = 0; i < h.n_inputs; i++)
        if (h.inputs[i] < 0 || h.inputs[i] >= h.n) return -1;
    for (int i = 0; i < h.n_outputs; i++)
        if (h.outputs[i] < 0 || h.outputs[i] >= h.n) return -1;
    h.source[sizeof h.source - 1] = 0;
    h.nodes = calloc((size_t)h.n, sizeof *h.nodes);
    unsigned char *present = calloc((size_t)h.n * 6, 1);
    int bad = !h.nodes || !present;
    h.cap = h.n;
    if (!bad) bad = take(b, &off, h.nodes, (size_t)h.n * sizeof *h.nodes);
    /* The child's pointers mean nothing here: note which arrays follow and
     * clear them all before anything could free them. */
    for (int i = 0; i < h.n && h.nodes; i++)
        for (int a = 0; a < 6; a++) {
            size_t len;
            float **p = node_array(&h.nodes[i], a, &len);
            if (present) present[i * 6 + a] = *p != NULL;
            *p = NULL;
        }
    for (int i = 0; i < h.n && !bad; i++) {
        edgeq_node *n = &h.nodes[i];
        n->name[sizeof n->name - 1] = 0;
        n->keras_class[sizeof n->keras_class - 1] = 0;
        if (n->n_in < 0 || n->n_in > EDGEQ_MAX_INPUTS || n->rank < 1 || n->rank > EDGEQ_MAX_RANK)
            bad = 1;
        for (int k = 0; k < n->n_in && !bad; k++)
            if (n->in[k] < 0 || n->in[k] >= i) bad = 1;
        for (int a = 0; a < 6 && !bad; a++) {
            size_t len;
            float **p = node_array(n, a, &len);
            if (!present[i * 6 + a]) continue;
            float *d = len > 0 && len <= KERAS_MAX_ELEMS ? malloc(len * sizeof *d) : NULL;
            if (!d || take(b, &off, d, len * sizeof *d)) {
                free(d);
                bad = 1;
                break;
            }
            *p = d;
        }
    }
    free(present);
    if (bad || off != b->len) {
        if (h.nodes) edgeq_graph_free(&h);
        return -1;
    }
    *g = h;
    return 0;
}

static int load_forked(const char *path, edgeq_graph *g, char *msg, size_t msglen) {
    int fds[2];
    if (pipe(fds) != 0) return load_direct(path, g, msg, msglen);
    fflush(NULL); /* or the child would write the parent's buffered output again */
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return load_direct(path, g, msg, msglen);
    }
    if (pid == 0) {
        close(fds[0]);
        /* The parent's handlers (cleanups of its outputs) are not ours. */
        signal(SIGPIPE, SIG_IGN);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
#ifndef EDGEQ_SANITIZED
        /* The child reports through the pipe; what a dying libhdf5 or libc
         * prints ("free(): invalid pointer") would only garble the one-line
         * error. Sanitizer builds keep stderr for their reports. */
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) {
            dup2(devnull, 2);
            close(devnull);
        }
#endif
        edgeq_graph cg;
        int rc = load_direct(path, &cg, msg, msglen);
        int w = send_graph(fds[1], rc, msg, &cg);
        close(fds[1]);
        if (rc == 0) edgeq_graph_free(&cg);
#ifdef EDGEQ_SANITIZED
        exit(w == 0 ? 0 : 3); /* exit: LeakSanitizer checks the child at exit */
#else
        _exit(w == 0 ? 0 : 3); /* _exit: the parent's atexit handlers are not ours */
#endif
    }
    close(fds[1]);
    buf b = {NULL, 0, 0};
    int rr = read_pipe(fds[0], &b, time(NULL) + CHILD_TIMEOUT_S);
    close(fds[0]);
    if (rr == 1) kill(pid, SIGKILL);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    int rc = -1;
    uint32_t head[2];
    size_t off = 0;
    if (rr == 1) {
        snprintf(msg, msglen,
                 "reading the file took more than %d s and was stopped: the HDF5 library is "
                 "stuck on it (a damaged file?)",
                 CHILD_TIMEOUT_S);
    } else if (WIFSIGNALED(st)) {
        snprintf(msg, msglen,
                 "the HDF5/zip reader crashed on this file (signal %d): the file is damaged",
                 WTERMSIG(st));
    } else if (rr != 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0 ||
               take(&b, &off, head, sizeof head) || head[1] >= msglen || head[1] > b.len - off) {
        /* A non-zero exit after a complete answer: a sanitizer's report in
         * a checking build (its message is on stderr already). */
        snprintf(msg, msglen, "the file could not be read (reader exit status %d)",
                 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    } else {
        memcpy(msg, b.p + off, head[1]);
        msg[head[1]] = 0;
        off += head[1];
        if (head[0] != 0) {
            if (!msg[0]) snprintf(msg, msglen, "the file could not be read");
        } else if (parse_graph(&b, off, g) != 0) {
            snprintf(msg, msglen, "the file could not be read (reader exit status %d)",
                     WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        } else {
            rc = 0;
        }
    }
    free(b.p);
    return rc;
}

int edgeq_keras_load(const char *path, edgeq_graph *g, char *err, size_t errlen) {
    char msg[1024];
    memset(g, 0, sizeof *g);
    const char *inproc = getenv("EDGEQ_KERAS_INPROCESS");
    int rc = inproc && inproc[0] && strcmp(inproc, "0") != 0
                 ? load_direct(path, g, msg, sizeof msg)
                 : load_forked(path, g, msg, sizeof msg);
    if (rc != 0) {
        memset(g, 0, sizeof *g);
        snprintf(err, errlen, "%s: %s", path, msg);
        return -1;
    }
    return 0;
}
