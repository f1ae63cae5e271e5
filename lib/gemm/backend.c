/* The process-wide choice of the float GEMM backend; see lib/gemm/backend.h. */
#include "lib/gemm/backend.h"

#include <stddef.h>

const char *const QKV_GEMM_BACKEND_NAMES[] = {"auto", "openblas", "onednn", NULL};
_Static_assert(sizeof QKV_GEMM_BACKEND_NAMES / sizeof QKV_GEMM_BACKEND_NAMES[0] == QKV_GEMM_COUNT + 1,
               "one name per backend");

#ifdef QKV_HAVE_ONEDNN
bool qkv_gemm_onednn = true;
#else
bool qkv_gemm_onednn = false;
#endif

bool qkv_gemm_have_onednn(void)
{
#ifdef QKV_HAVE_ONEDNN
    return true;
#else
    return false;
#endif
}

int qkv_gemm_set_backend(qkv_gemm_backend b, qkv_error *err)
{
    if (b == QKV_GEMM_ONEDNN && !qkv_gemm_have_onednn())
        return qkv_fail(err, "train.gemm: onednn: this build has no oneDNN (apt-get install libdnnl-dev, then "
                             "configure and build again)");
    if ((int)b < 0 || (int)b >= (int)QKV_GEMM_COUNT)
        return qkv_fail(err, "train.gemm: unknown backend %d", (int)b);
    qkv_gemm_onednn = b == QKV_GEMM_ONEDNN || (b == QKV_GEMM_AUTO && qkv_gemm_have_onednn());
    return QKV_OK;
}

const char *qkv_gemm_backend_name(void)
{
    return qkv_gemm_onednn ? "onednn" : "openblas";
}

const char *const QKV_PRECISION_NAMES[] = {"f32", "bf16", NULL};
_Static_assert(sizeof QKV_PRECISION_NAMES / sizeof QKV_PRECISION_NAMES[0] == QKV_PRECISION_COUNT + 1,
               "one name per precision");

bool qkv_gemm_bf16_on = false;

int qkv_gemm_set_precision(qkv_gemm_precision p, qkv_error *err)
{
    if ((int)p < 0 || (int)p >= (int)QKV_PRECISION_COUNT)
        return qkv_fail(err, "train.precision: unknown precision %d", (int)p);
    if (p == QKV_PRECISION_BF16 && !qkv_gemm_have_onednn())
        return qkv_fail(err, "train.precision: bf16: this build has no oneDNN, whose matmul computes the bf16 "
                             "products (apt-get install libdnnl-dev, then configure and build again); "
                             "train.precision f32 runs without it");
    qkv_gemm_bf16_on = p == QKV_PRECISION_BF16;
    return QKV_OK;
}

const char *qkv_gemm_precision_name(void)
{
    return qkv_gemm_bf16_on ? "bf16" : "f32";
}
