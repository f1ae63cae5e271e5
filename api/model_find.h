/* Where a shipped model is: `qkv tag` without a model and qkv_model_open_named (qkv.h) look a
 * model up by name ("en": data/models/en.h5 of the source tree beside a build folder in it,
 * share/qkv/models/en.h5 of an install). */
#ifndef QKV_API_MODEL_FIND_H
#define QKV_API_MODEL_FIND_H

#include <stddef.h>

#include "lib/error.h"

/* The model qkv uses when none is named. */
#define QKV_DEFAULT_MODEL_NAME "en"

/* The file of the shipped model `name` (letters, digits, '_' and '-', at most 64) into
 * path[len]: NAME.h5 in the first of these folders that holds it: $QKV_MODEL_DIR (when set),
 * ../share/qkv/models and ../data/models beside the running executable (/proc/self/exe: an
 * install's bin/, a build folder in the source tree), the share/qkv/models of the install that
 * holds the library itself (found from the library's own file, so an install put elsewhere with
 * cmake --install --prefix DIR finds DIR's), the install's share/qkv/models as configured at
 * build time. Errors: a bad name; no such file, naming every place looked in. */
int qkv_model_find(const char *name, char *path, size_t len, qkv_error *err);

/* The default model's file into path[len]: $QKV_MODEL when set (it must exist: the error names
 * it), else qkv_model_find(QKV_DEFAULT_MODEL_NAME). */
int qkv_model_find_default(char *path, size_t len, qkv_error *err);

#endif
