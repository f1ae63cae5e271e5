/* Relations between the span keys (run_config.h: qkv_run_config_check_spans). */
#include "api/run_config.h"

int qkv_run_config_check_spans(const qkv_run_config *cfg, const char *where, qkv_error *err)
{
    /* The CRF's constraints (models/crf_head.h) are BIO's, or BIOES's when a tag is E- or S-:
     * IOB1 starts most chunks with I-, which they forbid after O, and IOB1's own rule (B-x only
     * right after x) cannot be told from BIO by the tag names they are built from. */
    if (cfg->model.output == QKV_OUTPUT_CRF && cfg->model.crf_constrained && cfg->data.read.scheme == QKV_TAG_SCHEME_IOB1)
        return qkv_fail(err, "%s: data.tag_scheme = iob1 cannot train with model.crf_constrained: its constraints are "
                             "BIO's or BIOES's, which forbid the I- that starts an IOB1 chunk; use data.tag_scheme bio "
                             "or bioes (the same chunks; qkv tag writes the predictions back in each file's own scheme)",
                        where);
    return QKV_OK;
}
