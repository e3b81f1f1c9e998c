/* SPDX-License-Identifier: Apache-2.0 */
/*
 * output_path.c — refuse outputs that are inputs or unexpected files (see
 * output_path.h).
 */
#include "output_path.h"

#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "io/file_util.h"

int edgeq_output_check(const char *out, const char *what, const char *const *inputs,
                       int n_inputs, const char *const *exts, int force) {
    struct stat so;
    if (!out || stat(out, &so) != 0) return 0; /* a new file (or one the write reports) */
    for (int k = 0; k < n_inputs; k++) {
        struct stat si;
        if (!inputs[k] || stat(inputs[k], &si) != 0) continue;
        if (si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
            if (strcmp(inputs[k], out) == 0)
                edgeq_error("%s '%s' is also an input: refusing to overwrite it (nothing was "
                            "written)", what, out);
            else
                edgeq_error("%s '%s' is the same file as input '%s' (a link or another "
                            "spelling): refusing to overwrite it (nothing was written)",
                            what, out, inputs[k]);
            return EDGEQ_EXIT_USAGE;
        }
    }
    if (force || !S_ISREG(so.st_mode)) return 0;
    char list[128] = "";
    size_t at = 0;
    for (int k = 0; exts && exts[k]; k++) {
        if (edgeq_has_ext(out, exts[k])) return 0;
        if (at < sizeof list)
            at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", k ? " or " : "", exts[k]);
    }
    edgeq_error("%s '%s' exists and is not a %s file: refusing to replace it (pass --force to "
                "overwrite it; nothing was written)", what, out, list);
    return EDGEQ_EXIT_USAGE;
}
