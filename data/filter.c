/* Dataset filters (see data/dataset.h). */
#include "data/dataset.h"

#include <string.h>

int qkv_dataset_keep_max_len(qkv_dataset *ds, int max_len, qkv_error *err)
{
    if (max_len < 1)
        return qkv_fail(err, "max_len must be at least 1, got %d", max_len);
    int32_t kept = 0;
    ds->n_nonempty = 0;
    ds->max_sent_len = 0;
    ds->n_unknown_tags = 0;
    for (int s = 0; s < ds->n_sent; s++) {
        int32_t start = ds->sent_start[s], len = ds->sent_start[s + 1] - start;
        ds->sent_start[s] = kept;
        if (len > max_len)
            continue; /* the sentence stays, with no words: it never reaches a batch */
        for (int f = 0; f < ds->n_features; f++)
            memmove(ds->features[f] + kept, ds->features[f] + start, (size_t)len * sizeof(int32_t));
        memmove(ds->tags + kept, ds->tags + start, (size_t)len * sizeof(int32_t));
        for (int32_t w = kept; w < kept + len; w++)
            ds->n_unknown_tags += ds->tags[w] < 0;
        kept += len;
        ds->n_nonempty += len > 0;
        if (len > ds->max_sent_len)
            ds->max_sent_len = len;
    }
    ds->sent_start[ds->n_sent] = kept;
    ds->n_words = kept;
    return QKV_OK;
}
