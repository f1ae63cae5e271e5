#include "train/dropout_streams.h"

#include <stdlib.h>
#include <string.h>

int qkv_train_streams_set(qkv_train_streams *st, const qkv_batch *b, uint64_t key, qkv_error *err)
{
    int B = qkv_batch_n_sent(b), T = qkv_batch_n_tokens(b);
    if (T + 1 > st->cap_rows) {
        free(st->row_ids);
        st->cap_rows = 0;
        if (!(st->row_ids = malloc(((size_t)T + 1) * sizeof *st->row_ids)))
            return qkv_fail(err, "out of memory for the dropout streams");
        st->cap_rows = T + 1;
    }
    if (B + 1 > st->cap_sent) {
        free(st->sent_ids);
        st->cap_sent = 0;
        if (!(st->sent_ids = malloc(((size_t)B + 1) * sizeof *st->sent_ids)))
            return qkv_fail(err, "out of memory for the dropout streams");
        st->cap_sent = B + 1;
    }
    const int32_t *offsets = qkv_batch_offsets(b);
    for (int s = 0; s < B; s++) {
        uint64_t id = (uint64_t)(uint32_t)qkv_batch_sent_id(b, s);
        st->sent_ids[s] = id;
        for (int t = offsets[s]; t < offsets[s + 1]; t++)
            st->row_ids[t] = id << 32 | (uint64_t)(t - offsets[s]);
    }
    st->ds = (qkv_dropout_streams){key, st->row_ids, st->sent_ids, T, B, 0};
    return QKV_OK;
}

void qkv_train_streams_free(qkv_train_streams *st)
{
    free(st->row_ids);
    free(st->sent_ids);
    memset(st, 0, sizeof *st);
}
