/* qkv gradcheck: runs qkv-gradcheck, the same checks built in double precision, which lives
 * beside the qkv binary (the float and double libraries cannot share one program). */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "train/cli/commands.h"

int qkv_cmd_gradcheck(int argc, char **argv)
{
    char self[4096], path[4200];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n < 0) {
        fprintf(stderr, "qkv: cannot find the qkv binary: %s\n", strerror(errno));
        return 1;
    }
    self[n] = '\0';
    snprintf(path, sizeof path, "%s/qkv-gradcheck", dirname(self));
    (void)argc;
    argv[0] = path;
    execv(path, argv);
    fprintf(stderr, "qkv: cannot run %s: %s (it is built with qkv)\n", path, strerror(errno));
    return 1;
}
