/* Files and folders of the application. See train/files.h. */
#include "train/files.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

int qkv_mkdirs(const char *path)
{
    char buf[4096];
    size_t len = strlen(path);
    if (len == 0 || len >= sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, path, len + 1);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0777) && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(buf, 0777) && errno != EEXIST)
        return -1;
    struct stat st;
    if (stat(buf, &st) || !S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}
