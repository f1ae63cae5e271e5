/* Shipped models by name (api/model_find.h). */
#define _GNU_SOURCE /* dladdr */
#include "api/model_find.h"

#include <dlfcn.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef QKV_INSTALL_MODEL_DIR
#define QKV_INSTALL_MODEL_DIR ""
#endif
#ifndef QKV_LIB_TO_MODELS
#define QKV_LIB_TO_MODELS "../share/qkv/models"
#endif

static int name_ok(const char *name)
{
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n > 64)
        return 0;
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' ||
              *p == '-'))
            return 0;
    return 1;
}

/* Cuts the last component of the path in dir ("" when it has none). */
static void parent(char *dir)
{
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        dir[0] = '\0';
}

/* The folder of the running executable into dir[len] ("" when it cannot be read). */
static void exe_dir(char *dir, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", dir, len - 1);
    dir[n > 0 ? n : 0] = '\0';
    parent(dir);
}

/* The models folder of the install this code was loaded from: the folder of the shared library
 * (or program) holding this function, then QKV_LIB_TO_MODELS, the way from an install's libdir
 * to its share/qkv/models (so an install moved with cmake --install --prefix DIR finds DIR's
 * models). "" when unknown. */
static void library_models(char *dir, size_t len)
{
    Dl_info info;
    dir[0] = '\0';
    if (!dladdr((void *)&qkv_model_find, &info) || !info.dli_fname || !strchr(info.dli_fname, '/'))
        return;
    char lib[PATH_MAX];
    if (!realpath(info.dli_fname, lib))
        return;
    parent(lib);
    if (lib[0] && (size_t)snprintf(dir, len, "%s/%s", lib, QKV_LIB_TO_MODELS) >= len)
        dir[0] = '\0';
}

int qkv_model_find(const char *name, char *path, size_t len, qkv_error *err)
{
    if (!name_ok(name))
        return qkv_fail(err, "'%s' is not a model name (letters, digits, '_' and '-', at most 64)",
                        name ? name : "(null)");
    char exe[PATH_MAX], share[PATH_MAX + 32], tree[PATH_MAX + 32], lib[PATH_MAX + 64];
    exe_dir(exe, sizeof exe);
    snprintf(share, sizeof share, "%s/../share/qkv/models", exe);
    snprintf(tree, sizeof tree, "%s/../data/models", exe);
    library_models(lib, sizeof lib);
    const char *env = getenv("QKV_MODEL_DIR");
    const char *dirs[] = {env && env[0] ? env : "", exe[0] ? share : "", exe[0] ? tree : "", lib,
                          QKV_INSTALL_MODEL_DIR};
    char looked[sizeof err->msg] = "";
    size_t used = 0;
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
        if (!dirs[d][0])
            continue;
        int n = snprintf(path, len, "%s/%s.h5", dirs[d], name);
        if (n > 0 && (size_t)n < len && access(path, R_OK) == 0)
            return 0;
        if (used < sizeof looked)
            used += (size_t)snprintf(looked + used, sizeof looked - used, "%s%s/%s.h5", used ? ", " : "", dirs[d],
                                     name);
    }
    path[0] = '\0';
    return qkv_fail(err, "no shipped model '%s': looked for %s (set QKV_MODEL to a model file, or QKV_MODEL_DIR to "
                         "its folder)", name, used ? looked : "nothing (no folder known)");
}

int qkv_model_find_default(char *path, size_t len, qkv_error *err)
{
    const char *env = getenv("QKV_MODEL");
    if (!env || !env[0])
        return qkv_model_find(QKV_DEFAULT_MODEL_NAME, path, len, err);
    if (access(env, R_OK) != 0)
        return qkv_fail(err, "QKV_MODEL=%s: no such readable file", env);
    if ((size_t)snprintf(path, len, "%s", env) >= len)
        return qkv_fail(err, "QKV_MODEL=%s: the path is too long", env);
    return 0;
}
