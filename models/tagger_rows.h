/* The embedding-table rows a training batch touches (models/tagger.h qkv_tagger_table_rows),
 * kept per table so that the work after backward is proportional to them: zeroing the
 * gradients of those rows only (every other row's gradient is still zero), and, with
 * `optim.sparse_embeddings`, the lazy optimizer update of those rows only (lib/optim/optim.h
 * qkv_optim_set_rows). */
#ifndef QKV_TAGGER_ROWS_H
#define QKV_TAGGER_ROWS_H

#include "lib/error.h"
#include "lib/optim/optim.h"
#include "lib/row_set.h"
#include "models/tagger.h"

typedef struct qkv_tagger_rows {
    int n;                                          /* qkv_tagger_n_tables */
    int param[QKV_TAGGER_MAX_FEATURES + 1];         /* index of table k in qkv_tagger_params */
    qkv_row_set sets[QKV_TAGGER_MAX_FEATURES + 1];  /* its touched rows */
    bool *is_table;                                 /* [number of parameters]: a table? */
} qkv_tagger_rows;

/* Empty sets for every table of m. QKV_ERR with err set when out of memory (r is then safe to
 * qkv_tagger_rows_free). */
int qkv_tagger_rows_init(qkv_tagger_rows *r, const qkv_tagger *m, qkv_error *err);
void qkv_tagger_rows_free(qkv_tagger_rows *r);

/* Adds the rows batch `in` selects in each table (call once per batch, after backward). */
void qkv_tagger_rows_collect(qkv_tagger_rows *r, const qkv_tagger *m, const qkv_tagger_input *in);

/* Sets every gradient of m to zero, given that the tables' nonzero rows are all in the sets:
 * whole tensors for the other parameters, the collected rows for the tables. Then empties the
 * sets. The same result as qkv_params_zero_grad, at a cost independent of the vocabularies. */
void qkv_tagger_rows_zero_grad(qkv_tagger_rows *r, qkv_tagger *m);

/* Registers every table with the optimizer for a lazy update of its collected rows. */
int qkv_tagger_rows_lazy(qkv_tagger_rows *r, qkv_optimizer *o, qkv_error *err);

#endif
