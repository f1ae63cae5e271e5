#include "train/plot/gnuplot.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "train/cli/cli.h"

int qkv_image_kind_of(const char *path, qkv_image_kind *kind, qkv_error *err)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (dot && (!slash || dot > slash)) {
        if (!strcasecmp(dot, ".png")) {
            *kind = QKV_IMAGE_PNG;
            return QKV_OK;
        }
        if (!strcasecmp(dot, ".svg")) {
            *kind = QKV_IMAGE_SVG;
            return QKV_OK;
        }
    }
    return qkv_fail(err, "%s: the image name must end in .png or .svg", path);
}

bool qkv_image_size_parse(const char *text, int *width, int *height)
{
    long wh[2];
    if (!qkv_cli_wholes(text, 'x', 2, 16, 20000, wh))
        return false;
    *width = (int)wh[0];
    *height = (int)wh[1];
    return true;
}

void qkv_gnuplot_script_path(const char *image, char *out, size_t len)
{
    snprintf(out, len, "%s", image);
    char *dot = strrchr(out, '.'), *slash = strrchr(out, '/');
    if (dot && (!slash || dot > slash))
        *dot = '\0';
    size_t n = strlen(out);
    if (n + 4 <= len)
        memcpy(out + n, ".gp", 4);
}

/* A double-quoted gnuplot string: backslash and double quote escaped, line breaks dropped;
 * for a tic label (a format string to gnuplot) '%' is doubled too. */
static void quote(FILE *f, const char *s, bool tic)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '\\' || *s == '"')
            fputc('\\', f);
        if (tic && *s == '%')
            fputc('%', f);
        if (*s != '\n' && *s != '\r')
            fputc(*s, f);
    }
    fputc('"', f);
}

void qkv_gnuplot_quote(FILE *f, const char *s) { quote(f, s, false); }

void qkv_gnuplot_quote_tic(FILE *f, const char *s) { quote(f, s, true); }

void qkv_gnuplot_terminal(FILE *f, qkv_image_kind kind, const char *image, int width, int height)
{
    if (kind == QKV_IMAGE_SVG)
        fprintf(f, "set terminal svg size %d,%d dynamic noenhanced font 'sans,11' background '#ffffff'\n", width,
                height);
    else
        fprintf(f, "set terminal pngcairo size %d,%d noenhanced font 'sans,10' background '#ffffff'\n", width,
                height);
    fputs("set output ", f);
    qkv_gnuplot_quote(f, image);
    fputc('\n', f);
}

void qkv_path_absolute(const char *path, char *out, size_t len)
{
    char cwd[4096];
    if (path[0] == '/' || !getcwd(cwd, sizeof cwd))
        snprintf(out, len, "%s", path);
    else
        snprintf(out, len, "%s/%s", cwd, path[0] == '.' && path[1] == '/' ? path + 2 : path);
}

bool qkv_gnuplot_available(void)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        return false;
    const char *p = path;
    for (;;) {
        const char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char candidate[4200];
        if (n == 0)
            snprintf(candidate, sizeof candidate, "./gnuplot");
        else
            snprintf(candidate, sizeof candidate, "%.*s/gnuplot", (int)n, p);
        if (access(candidate, X_OK) == 0)
            return true;
        if (!end)
            return false;
        p = end + 1;
    }
}

int qkv_gnuplot_run(const char *script, qkv_error *err)
{
    if (!qkv_gnuplot_available())
        return qkv_fail(err,
                        "gnuplot is not installed (not on PATH): install it (Debian/Ubuntu: apt-get install "
                        "gnuplot-nox) and run 'gnuplot %s'; the script is written",
                        script);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return qkv_fail(err, "cannot start gnuplot: %s", strerror(errno));
    if (pid == 0) {
        sigset_t none; /* the child starts with no signal blocked (qkv train blocks two) */
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execlp("gnuplot", "gnuplot", script, (char *)NULL);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return qkv_fail(err, "waiting for gnuplot: %s", strerror(errno));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return QKV_OK;
    if (WIFEXITED(status))
        return qkv_fail(err, "gnuplot %s failed (exit status %d)", script, WEXITSTATUS(status));
    return qkv_fail(err, "gnuplot %s was killed by signal %d", script, WTERMSIG(status));
}

int qkv_gnuplot_draw(const char *image, qkv_image_kind kind, qkv_gnuplot_writer *write, const void *ctx,
                     qkv_error *err)
{
    char abs_image[4200], script[4300];
    qkv_path_absolute(image, abs_image, sizeof abs_image);
    qkv_gnuplot_script_path(abs_image, script, sizeof script);
    FILE *f = fopen(script, "w");
    if (!f)
        return qkv_fail(err, "%s: cannot write the gnuplot script: %s", script, strerror(errno));
    write(f, kind, abs_image, script, ctx);
    if (fclose(f))
        return qkv_fail(err, "%s: cannot write the gnuplot script: %s", script, strerror(errno));
    return qkv_gnuplot_run(script, err);
}
