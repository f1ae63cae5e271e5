#include "train/cli/output_file.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "train/plot/gnuplot.h"
#include "train/fail.h"

/* stat of path, or of standard input for "-". */
static int stat_input(const char *path, struct stat *st) { return strcmp(path, "-") ? stat(path, st) : fstat(0, st); }

bool qkv_output_ok(const char *cmd, const char *opt, const char *out, const char *const *inputs, int n_inputs,
                   bool force, bool replace_ok)
{
    struct stat so, si;
    if (out ? stat(out, &so) != 0 : (fstat(1, &so) != 0 || !S_ISREG(so.st_mode)))
        return true; /* nothing there (or a terminal, a pipe): nothing to lose */
    for (int k = 0; k < n_inputs; k++) {
        if (!inputs[k] || stat_input(inputs[k], &si) != 0 || si.st_dev != so.st_dev || si.st_ino != so.st_ino)
            continue;
        const char *input = strcmp(inputs[k], "-") ? inputs[k] : "standard input";
        if (!out)
            fprintf(stderr,
                    "qkv %s: standard output is the same file as the input (%s); a '> FILE' redirection has "
                    "already emptied it: write to another file\n",
                    cmd, input);
        else
            fprintf(stderr, "qkv %s: %s%s%s is the input %s: writing it would destroy it; choose another file\n",
                    cmd, opt ? opt : "", opt ? " " : "", out, input);
        return false;
    }
    if (out && !force && !replace_ok) {
        fprintf(stderr, "qkv %s: %s%s%s already exists: choose another file, or replace it with --force\n", cmd,
                opt ? opt : "", opt ? " " : "", out);
        return false;
    }
    return true;
}

bool qkv_image_output_ok(const char *cmd, const char *opt, const char *out, char *script, size_t script_len,
                         const char *const *inputs, int n_inputs, bool force)
{
    qkv_gnuplot_script_path(out, script, script_len);
    qkv_error err;
    qkv_image_kind kind;
    if (qkv_image_kind_of(out, &kind, &err)) {
        qkv_fail_report(&err);
        return false;
    }
    return qkv_output_ok(cmd, opt, out, inputs, n_inputs, force, false) &&
           qkv_output_ok(cmd, NULL, script, inputs, n_inputs, force, false);
}
