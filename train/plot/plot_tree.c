/* Dependency trees through Graphviz's dot (plot_tree.h). */
#include "train/plot/plot_tree.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "train/plot/gnuplot.h"

void qkv_tree_dot_path(const char *image, char *out, size_t len)
{
    const char *dot = strrchr(image, '.'), *slash = strrchr(image, '/');
    size_t stem = dot && (!slash || dot > slash) ? (size_t)(dot - image) : strlen(image);
    snprintf(out, len, "%.*s.dot", (int)stem, image);
}

/* s as a DOT double-quoted string's contents (backslash and " escaped). */
static void dot_quote(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        fputc(*s, f);
    }
}

static void write_dot(FILE *f, const qkv_tree_plot *t)
{
    /* a tree: each word a level below its head; ordering=out keeps a head's dependents in
     * sentence order (the arcs are listed by dependent) */
    fprintf(f, "digraph tree {\n  ordering=out;\n  node [shape=box, fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\", "
               "fontsize=10];\n  w0 [label=\"ROOT\", shape=plaintext];\n");
    for (int i = 0; i < t->n_words; i++) {
        fprintf(f, "  w%d [label=\"%d ", i + 1, i + 1);
        dot_quote(f, t->words[i]);
        fprintf(f, "\"];\n");
    }
    for (int i = 0; i < t->n_words; i++) {
        fprintf(f, "  w%d -> w%d [label=\"", (int)t->arcs[i], i + 1);
        dot_quote(f, t->labels[i]);
        if (t->probs)
            fprintf(f, " %.2f", t->probs[i]);
        fprintf(f, "\"];\n");
    }
    fprintf(f, "}\n");
}

/* Runs dot (fork and exec, no shell). */
static int run_dot(const char *format, const char *image, const char *dot_path, qkv_error *err)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return qkv_fail(err, "cannot start dot: %s", strerror(errno));
    if (pid == 0) {
        sigset_t none; /* the child starts with no signal blocked (qkv train blocks two) */
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execlp("dot", "dot", format, "-o", image, dot_path, (char *)NULL);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return qkv_fail(err, "waiting for dot: %s", strerror(errno));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        return qkv_fail(err, "Graphviz's dot is not installed (not on PATH): install it (Debian/Ubuntu: apt-get "
                             "install graphviz) and run 'dot %s -o %s %s'; the DOT file is written",
                        format, image, dot_path);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return QKV_OK;
    return qkv_fail(err, "dot %s failed (status %d)", dot_path, status);
}

int qkv_plot_tree(const qkv_tree_plot *t, const char *image, qkv_error *err)
{
    qkv_image_kind kind;
    if (qkv_image_kind_of(image, &kind, err))
        return QKV_ERR;
    char dot_path[4096];
    qkv_tree_dot_path(image, dot_path, sizeof dot_path);
    FILE *f = fopen(dot_path, "w");
    if (!f)
        return qkv_fail(err, "%s: %s", dot_path, strerror(errno));
    write_dot(f, t);
    if (fclose(f))
        return qkv_fail(err, "writing %s: %s", dot_path, strerror(errno));
    return run_dot(kind == QKV_IMAGE_SVG ? "-Tsvg" : "-Tpng", image, dot_path, err);
}
