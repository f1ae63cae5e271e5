/* The one rule for every file a qkv command writes (eval --logits and --confusion, plot,
 * attention, positions and parse-draw --out and the gnuplot or Graphviz file beside each image,
 * export and speech --out, tag's standard output, the files of a run folder): never over one of
 * the command's inputs, and over an existing file only with --force. */
#ifndef QKV_OUTPUT_FILE_H
#define QKV_OUTPUT_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/error.h"

/* The rule without printing: QKV_OK when out may be written, else an error naming opt and out
 * (below: qkv_output_ok). A name taken by a symbolic link that points nowhere is an existing
 * file. */
int qkv_output_check(const char *opt, const char *out, const char *const *inputs, int n_inputs, bool force,
                     bool replace_ok, qkv_error *err);

/* Whether command cmd may write out (given by option opt, e.g. "--logits"; NULL for a default
 * name). Refused, with a message on stderr:
 *   - out is one of inputs[0..n_inputs-1] ("-" = standard input): the same file by device and
 *     inode, so another name, a hard link or a symbolic link to an input counts too; --force
 *     does not change this;
 *   - out exists, unless force, or replace_ok (a file qkv itself keeps up to date, such as
 *     RUN/plots/loss.png).
 * out NULL means standard output: refused only when it is one of the inputs (with
 * "qkv tag M in.conllu > in.conllu" the shell has already emptied that file). */
bool qkv_output_ok(const char *cmd, const char *opt, const char *out, const char *const *inputs, int n_inputs,
                   bool force, bool replace_ok);

/* The same for an image a command draws (attention, positions): out must end in .png or .svg,
 * and both out and the gnuplot script beside it (its path into script[script_len]) must pass
 * qkv_output_ok. Refusals are printed on stderr. */
bool qkv_image_output_ok(const char *cmd, const char *opt, const char *out, char *script, size_t script_len,
                         const char *const *inputs, int n_inputs, bool force);

#endif
