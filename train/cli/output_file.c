#include "train/cli/output_file.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "train/plot/gnuplot.h"
#include "train/fail.h"

/* stat of path, or of standard input for "-". */
static int stat_input(const char *path, struct stat *st) { return strcmp(path, "-") ? stat(path, st) : fstat(0, st); }

int qkv_output_check(const char *opt, const char *out, const char *const *inputs, int n_inputs, bool force,
                     bool replace_ok, qkv_error *err)
{
    struct stat so, si, sl;
    const char *o = opt ? opt : "", *sp = opt ? " " : "";
    /* out itself or, for a symbolic link, what it points to: the file that would be written */
    bool there = out ? stat(out, &so) == 0 : fstat(1, &so) == 0 && S_ISREG(so.st_mode);
    for (int k = 0; there && k < n_inputs; k++) {
        if (!inputs[k] || stat_input(inputs[k], &si) != 0 || si.st_dev != so.st_dev || si.st_ino != so.st_ino)
            continue;
        const char *input = strcmp(inputs[k], "-") ? inputs[k] : "standard input";
        if (!out)
            return qkv_fail(err, "standard output is the same file as the input (%s); a '> FILE' redirection has "
                                 "already emptied it: write to another file", input);
        return qkv_fail(err, "%s%s%s is the input %s: writing it would destroy it; choose another file", o, sp, out,
                        input);
    }
    /* a name that is taken, even by a symbolic link that points nowhere, is an existing file */
    if (out && (there || lstat(out, &sl) == 0) && !force && !replace_ok)
        return qkv_fail(err, "%s%s%s already exists: choose another file, or replace it with --force", o, sp, out);
    return QKV_OK;
}

bool qkv_output_ok(const char *cmd, const char *opt, const char *out, const char *const *inputs, int n_inputs,
                   bool force, bool replace_ok)
{
    qkv_error err;
    if (qkv_output_check(opt, out, inputs, n_inputs, force, replace_ok, &err) == QKV_OK)
        return true;
    fprintf(stderr, "qkv %s: %s\n", cmd, err.msg);
    return false;
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
