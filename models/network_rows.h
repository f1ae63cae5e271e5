/* The embedding-table rows a training batch touches (models/network.h qkv_network_table_rows),
 * kept per table so that the work after backward is proportional to them: zeroing the
 * gradients of those rows only (every other row's gradient is still zero), and, with
 * `optim.sparse_embeddings`, the lazy optimizer update of those rows only (lib/optim/optim.h
 * qkv_optim_set_rows). */
#ifndef QKV_NETWORK_ROWS_H
#define QKV_NETWORK_ROWS_H

#include "lib/error.h"
#include "lib/optim/optim.h"
#include "lib/row_set.h"
#include "models/network.h"

typedef struct qkv_network_rows {
    int n;                                          /* qkv_network_n_tables */
    int param[QKV_NETWORK_MAX_FEATURES + 1];         /* index of table k in qkv_network_params */
    qkv_row_set sets[QKV_NETWORK_MAX_FEATURES + 1];  /* its touched rows */
    bool *is_table;                                 /* [number of parameters]: a table? */
} qkv_network_rows;

/* Empty sets for every table of m. QKV_ERR with err set when out of memory (r is then safe to
 * qkv_network_rows_free). */
int qkv_network_rows_init(qkv_network_rows *r, const qkv_network *m, qkv_error *err);
void qkv_network_rows_free(qkv_network_rows *r);

/* Adds the rows batch `in` selects in each table (call once per batch, after backward). */
void qkv_network_rows_collect(qkv_network_rows *r, const qkv_network *m, const qkv_network_input *in);

/* Sets every gradient of m to zero, given that the tables' nonzero rows are all in the sets:
 * whole tensors for the other parameters, the collected rows for the tables. Then empties the
 * sets. The same result as qkv_params_zero_grad, at a cost independent of the vocabularies. */
void qkv_network_rows_zero_grad(qkv_network_rows *r, qkv_network *m);

/* Registers every table with the optimizer for a lazy update of its collected rows. */
int qkv_network_rows_lazy(qkv_network_rows *r, qkv_optimizer *o, qkv_error *err);

#endif
