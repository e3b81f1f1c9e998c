/* SPDX-License-Identifier: Apache-2.0 */
/*
 * output_path.h — an output path never clobbers an input or a file the
 * user did not mean to replace.
 *
 * Every command that writes a file checks each output before any work:
 *   - an output that is one of the command's input files is refused, always
 *     (same device and inode, so `model.h5`, `./model.h5`, a symlink or a
 *     hard link to it are all caught; also two outputs that are one file);
 *   - an existing output whose name does not end in one of the extensions
 *     that command writes (.tflite for models, .c/.h for C, ...) is refused
 *     unless --force: `edgeq model.h5 notes.txt` never replaces notes.txt.
 * Outputs are then written to a temporary file in the same folder and
 * renamed (file_util.h), so a failure leaves no partial file.
 */
#ifndef EDGEQ_OUTPUT_PATH_H
#define EDGEQ_OUTPUT_PATH_H

/* `inputs`: n_inputs paths (NULL entries skipped) the command reads.
 * `exts`: NULL-terminated list of extensions (".tflite") an existing
 * output may have. `what` names the output in messages ("output",
 * "--report"). Prints the reason and returns EDGEQ_EXIT_USAGE (2) when
 * refused, else 0. */
int edgeq_output_check(const char *out, const char *what, const char *const *inputs,
                       int n_inputs, const char *const *exts, int force);

#endif
